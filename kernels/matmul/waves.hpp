// kernels/matmul/waves.hpp — how a GEMM's tiles fill a GPU: the wave plan of the warp-tiled launcher (the GPU
// policies' plan, policy/gpu.hpp, with each target's machine model). Host code, no kernel: a pure function of
// the shape, the tile and the machine, unit-tested in tests/test_waves.cpp.
//
// C's tiles run in rounds: waves of `slots` blocks (multiprocessors x blocks each holds), or, where the SM count
// is known, the busiest SM's blocks (see lone_block_rate), and a last round that is partly empty costs about as
// much as a full one. On an H100 (132 SMs, one 128 x 256 block each) 3072^3 has 288 tiles: three waves for 2.2
// waves of work; 1536^3 has 72: one wave with 60 SMs idle. The plan fills them:
// - split K into `splits` parts, run as splits x tiles blocks, each writing a partial product, then sum the
//   parts into C (splitk_reduce.hpp);
// - or, with more tiles than a round holds: the whole tile rows that fit into full rounds run as they are (data
//   parallel), and the rest of C, less than a round, is split along K to fill the machine once more (the
//   data-parallel + split-K hybrid that stream-K schedules, as in CUTLASS, also use for their last wave).
// Each plan is priced with a model of the machine and the cheapest is taken: a round costs its FLOPs at the
// peak rate (a last round of fewer blocks than an SM holds at the lower rate of lone_block_rate), a split costs
// its partial products written and read back (and C read and written by the second kernel) at the DRAM
// bandwidth (on sm_90, a whole split's partial products of float that fit the L2 at split_traffic_rate where the DRAM
// is slower: onchip_partials; a hybrid's tail at the DRAM's), and each kernel launch beyond the first a fixed time
// (the gap between kernels and the ramp of the next: on an H100 the hybrid of 4096 x 4096 x 256, priced 5 us faster
// without it, measured 18 us slower). Only plans of one tile configuration are compared, so the kernel's own
// speed cancels out; the one measured efficiency is lone_block_rate's.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tk::kernels::matmul_waves {

struct Machine {
  std::int64_t slots = 0;     // blocks of this configuration that run at once
  double flops_per_byte = 0;  // peak FLOP/s over DRAM bytes/s
  double launch_bytes = 0;    // what one more kernel launch costs, in DRAM bytes moved in that time
  std::int64_t sms = 0;       // multiprocessors (0: not known: waves of `slots`, and long_split_strips is off)
  // A whole split's partial products of at most `onchip_bytes` (the L2) move at `onchip_ratio` DRAM byte-times a byte
  // (the DRAM's rate over split_traffic_rate's, at most 1; see split_traffic_rate); larger ones, and a hybrid's split
  // tail (`priced`), at the DRAM's rate.
  double onchip_bytes = 0;
  double onchip_ratio = 1;
};

// The rate at which a whole split's partial products that fit the L2 are priced, bytes/s, where the DRAM is slower
// (a hybrid's split tail keeps the DRAM's price: `priced`): they are
// written and then read back soon after, largely from the L2 (not measured: 1536^3's 36 MiB in 4 splits beside its
// 18 MiB of A and B exceed the H100's 50 MiB), so their price need not follow the DRAM's; C's read and write by the
// second kernel are priced alike. Fitted, not derived, and for Hopper only (gpu.hpp's gate): the plan
// was fitted on an H200 (2026-12-03), whose DRAM runs at this rate; on an H100 (3.35 TB/s) the DRAM's price took
// 1536^3 and 1280^3 off the splits that measured fastest there in every storage (2026-12-07, forced 1, 2, 3, 4 and 6
// ways, % of cuBLAS NN / NT / TN / TT: 1536^3 unsplit 94.4 / 80.0 / 88.2 / 79.8, 4 splits 100.3 / 89.5 / 97.4 / 90.0;
// 1280^3 unsplit 93.8-95.4 / 86.4-89.8 / 84.4-85.8 / 100.3-102.3, 3 splits 95.5 / 94.3 / 86.1 / 103.4), and priced at
// this rate it takes them, and keeps 1408^3 and 2048 x 2048 x 1024 unsplit as measured
// (docs/performance.md#h100-splits-onchip).
constexpr double split_traffic_rate = 4.8e12;

// The GPU that the CPU executor plans for (the tests of the GPU launchers' shapes): 4 slots, 20 FLOP per byte, free
// launches and no SM count, so that every kind of plan runs in tests/test_gpu_shapes.cpp (tests/test_waves.cpp).
inline constexpr Machine pretend_gpu{4, 20.0, 0, 0};

struct Plan {
  std::int64_t dp_rows = 0;  // rows of C (whole tile rows) run first, unsplit; 0: none
  std::int64_t splits = 1;   // the split along K of the other rows
  bool operator==(const Plan& o) const { return dp_rows == o.dp_rows && splits == o.splits; }
};

// A split must save this fraction of the time to be worth its second kernel and its memory.
constexpr double split_gain = 0.03;
// At most this many splits, each of at least `min_strips` strips of K (8 by default).
constexpr std::int64_t max_split_count = 256;
// Tiles that give nearly every multiprocessor one block (at least 7 in 8 of them, none two) are split only into
// parts of at least this many strips. Without the SM count the model prices such a wave as a full one; with it, a
// block alone at lone_block_rate, which would split 1000^3 below; yet a split's short blocks pay their pipeline's
// start and end, and its partial products their traffic, which the measurements favour. On an H200, 128
// FP32 tiles of 128 x 64 (strips of 8), % of cuBLAS: 1000^3 and 1024^3 in 3 splits (42-43 strips each) NN 81.5 /
// 88.3 against 87.2 / 92.6 unsplit, TT 82.1 / 87.6 against 82.7 / 85.0; 1000 x 1000 x 2000 in 3 (83) NN / TT
// 88.1 / 87.3 against 87.4 / 83.0; 1024 x 1024 x 3000 in 3 (125) 90.3 / 86.2 against 84.6 / 84.0 in 2; 1000 x
// 1000 x 4000 in 3 (167) NN 93.2 against 63.9 unsplit (docs/performance.md#h200-fp32-one-block-per-sm).
constexpr std::int64_t long_split_strips = 80;
// Where the multiprocessors are known (and slots are a whole number of blocks per SM), blocks are counted per SM,
// not per wave of slots: the busiest SM holds b blocks, R at a time (R = slots / sms), and runs its rounds of R at
// its full rate and its last round of r < R blocks at a rate that depends on r: `lone_block_rate` with one block,
// geometrically more up to R (a rate of lone_block_rate^(1 - ln r / ln R)). So 242 blocks of 128 x 64 (1408^3)
// on 132 SMs of 3 slots take 2.3 block times (two blocks on most SMs), not a wave of 396 slots (3), and the 3
// splits that the wave priced at 2 (726 blocks, two waves of a third) would take 2 plus their traffic. A block
// alone runs at 2/3: on an H200 1000 x 1000 x 4000 (128 tiles of 128 x 64, one an SM) ran unsplit at 0.69 of the
// rate of the same work split 3 ways. With it, the traffic and launch prices below and splits looked for up to
// four waves of blocks (`best_split`), the plan took the split that measured fastest (geometric mean of four
// storages), or one within 1%, on 11 of 12 FP32 shapes of 1-9 blocks an SM, forced 1, 2, 3, 4, 6 and 8 ways in
// one lease (2026-12-03, docs/performance.md#h200-fp32-splits-per-sm); 1152^3 took 2 splits for 4 (5% slower). The
// plan before (waves of slots, splits up to two waves) took the fastest on 6. (1536^3's 4 splits come from the four
// waves: counted in waves, 288 blocks are 3 block times too.)
constexpr double lone_block_rate = 2.0 / 3;
static_assert(lone_block_rate > 0 && lone_block_rate <= 1, "a rate between 0 and the SM's full rate");

// M x N x K in one matrix (batches are not split: their matrices fill the waves), tiles bm x bn, strips of bk
// along K, elements of `bytes` (of the partial products: the bytes the split writes and reads back), splits of at
// least min_strips strips each.
// Priced: the plan and its time in DRAM byte-times (0 where nothing is planned).
struct Priced {
  Plan plan;
  double cost = 0;
};
// hybrid_plans: false for a kernel that runs whole plans only (all of C split alike) and, where the hybrid would be
// taken, none (DGEMM: policy/cuda.hpp's f64_units_plan_on): that plan priced.
inline Priced priced(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t bm, std::int64_t bn, std::int64_t bk,
                     int bytes, const Machine& m, std::int64_t min_strips = 8, bool hybrid_plans = true) {
  const Priced plain;
  if (M <= 0 || N <= 0 || K <= 0 || m.slots <= 0 || m.flops_per_byte <= 0 || min_strips < 1) return plain;
  const std::int64_t tm = (M + bm - 1) / bm, tn = (N + bn - 1) / bn, t = tm * tn;
  const std::int64_t max_splits = std::min<std::int64_t>(max_split_count, K / (min_strips * bk));
  // time in units of DRAM byte-times: `blocks` blocks of full K (per SM where the SMs are known, else in waves of
  // slots), and `rows` rows of C in tm_part tile rows split s ways. A round: `round` blocks, one per SM (or a wave
  // of slots); round_time: a round's time at the full rate, `resident`: blocks an SM runs at once.
  const bool per_sm = m.sms > 0 && m.slots >= m.sms && m.slots % m.sms == 0;
  const std::int64_t round = per_sm ? m.sms : m.slots, resident = per_sm ? m.slots / m.sms : 1;
  const double round_time =
      2.0 * static_cast<double>(bm * bn) * static_cast<double>(K) * static_cast<double>(round) / m.flops_per_byte;
  auto full_k = [&](std::int64_t blocks) {
    const std::int64_t b = (blocks + round - 1) / round, last = b % resident;  // the busiest SM's; its last round
    const double rate = last == 0 ? 1.0
                                  : std::pow(lone_block_rate, 1.0 - std::log(static_cast<double>(last)) /
                                                                        std::log(static_cast<double>(resident)));
    return (static_cast<double>(b - last) + static_cast<double>(last) / rate) * round_time;
  };
  // onchip: whether partial products that fit onchip_bytes take onchip_ratio (whole plans only: below)
  auto cost = [&](std::int64_t tm_part, std::int64_t rows, std::int64_t s, bool onchip) {
    const double partials = static_cast<double>(s) * static_cast<double>(rows) * static_cast<double>(N) * bytes;
    const double rate = onchip && partials <= m.onchip_bytes ? std::min(1.0, m.onchip_ratio) : 1.0;
    const double traffic =
        s == 1 ? 0
               : (2.0 * s + 2.0) * static_cast<double>(rows) * static_cast<double>(N) * bytes * rate + m.launch_bytes;
    return full_k(tm_part * tn * s) / static_cast<double>(s) + traffic;
  };
  // the best split of tm_part tile rows (rows rows of C), looked for up to four waves of blocks (more splits may
  // still price lower, but their short blocks and traffic were not measured to pay)
  auto best_split = [&](std::int64_t tm_part, std::int64_t rows, std::int64_t& s_best, bool onchip) {
    double best = cost(tm_part, rows, 1, onchip);
    s_best = 1;
    const std::int64_t blocks = tm_part * tn;
    const bool one_each = m.sms > 0 && blocks <= m.sms && 8 * blocks >= 7 * m.sms;
    const std::int64_t most = one_each ? std::min(max_splits, K / (long_split_strips * bk)) : max_splits;
    for (std::int64_t s = 2; s <= most && blocks * (s - 1) < 4 * m.slots; ++s) {
      const double c = cost(tm_part, rows, s, onchip);
      if (c < (1 - split_gain) * best) best = c, s_best = s;
    }
    return best;
  };
  Plan whole;
  const double whole_cost = best_split(tm, M, whole.splits, true);
  if (t <= round || t % round == 0) return {whole, whole_cost};
  const std::int64_t dp_tile_rows = (t / round) * round / tn;  // whole tile rows within the full rounds
  if (dp_tile_rows < 1 || dp_tile_rows >= tm) return {whole, whole_cost};
  // A hybrid's split tail keeps the DRAM's price: on the H100, 3328^3 on 128 x 128 tiles (676 blocks, 264 slots),
  // which the on-chip price took from unsplit to a hybrid (3200 rows, then 10 splits), measured 4-5 points under
  // unsplit in every storage (% of cuBLAS NN / NT / TN / TT 87.0 / 89.3 / 80.4 / 91.9 against 91.6 / 94.0 / 84.6 /
  // 97.0; 2026-12-07, docs/performance.md#h100-sweep-onchip), while whole splits (1088^3, 1248^3, 1440^3, 1472^3,
  // 1504^3) gained 4-18. One hybrid measured: the rule rests on it (the other hybrids it moves back are unmeasured).
  Plan hybrid{dp_tile_rows * bm, 1};
  const double hybrid_cost = full_k(dp_tile_rows * tn) + m.launch_bytes +
                             best_split(tm - dp_tile_rows, M - dp_tile_rows * bm, hybrid.splits, false);
  if (hybrid.splits > 1 && hybrid_cost < (1 - split_gain) * whole_cost) {
    if (!hybrid_plans) return {Plan{}, cost(tm, M, 1, true)};
    return {hybrid, hybrid_cost};
  }
  return {whole, whole_cost};
}
// m with a whole split's partial products of up to `l2_bytes` priced at split_traffic_rate where the DRAM
// (`dram_bytes_per_s`) is slower (no change where it is as fast, or unknown; a hybrid's tail keeps the DRAM's price).
inline Machine onchip_partials(Machine m, double dram_bytes_per_s, double l2_bytes) {
  m.onchip_bytes = l2_bytes > 0 ? l2_bytes : 0;
  m.onchip_ratio = dram_bytes_per_s > 0 ? std::min(1.0, dram_bytes_per_s / split_traffic_rate) : 1.0;
  return m;
}

inline Plan plan(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t bm, std::int64_t bn, std::int64_t bk,
                 int bytes, const Machine& m, std::int64_t min_strips = 8) {
  return priced(M, N, K, bm, bn, bk, bytes, m, min_strips).plan;
}

// A thin remainder of C peeled off: its last `rows` rows (all N columns) and, above them, its last `cols` columns,
// each run as a product of its own (a matrix-vector product where it is that thin: the other operand read once),
// so that the rest of C, whole tiles along the peeled sides, fills fewer waves. 2049^3 on an H100's 132 SMs, tiles
// of 128 x 64 two an SM: 561 blocks in five rounds (the last of one block an SM) against 528 in four for its first
// 2048 rows, while its last row costs a read of B.
struct Peel {
  std::int64_t rows = 0, cols = 0;
  bool operator==(const Peel& o) const { return rows == o.rows && cols == o.cols; }
};
// The peel that prices lowest, by a split_gain margin, against none: remainders of at most `most` rows or columns
// (M % bm and N % bn on sides longer than a tile), the rest of C planned as `priced` plans it, each peeled part
// priced as its operand read once (B for the rows, A for the columns) and one more launch. Batches: none.
inline Peel peel(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t bm, std::int64_t bn, std::int64_t bk,
                 int bytes, const Machine& m, std::int64_t most, std::int64_t min_strips = 8,
                 bool hybrid_plans = true) {
  const double whole = priced(M, N, K, bm, bn, bk, bytes, m, min_strips, hybrid_plans).cost;
  if (whole <= 0) return {};
  const std::int64_t rm = M > bm && M % bm <= most ? M % bm : 0, rn = N > bn && N % bn <= most ? N % bn : 0;
  Peel best;
  double best_cost = whole;
  for (const Peel p : {Peel{rm, 0}, Peel{0, rn}, Peel{rm, rn}}) {
    if (p.rows == 0 && p.cols == 0) continue;
    const std::int64_t m0 = M - p.rows, n0 = N - p.cols;
    double c = priced(m0, n0, K, bm, bn, bk, bytes, m, min_strips, hybrid_plans).cost;
    if (p.rows > 0) c += static_cast<double>(K) * static_cast<double>(N) * bytes + m.launch_bytes;
    if (p.cols > 0) c += static_cast<double>(m0) * static_cast<double>(K) * bytes + m.launch_bytes;
    if (c < (1 - split_gain) * best_cost) best = p, best_cost = c;
  }
  return best;
}

}  // namespace tk::kernels::matmul_waves
