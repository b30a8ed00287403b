// kernels/matmul/cpu_block.hpp — the width of register_tiled's block on a CPU, from the CPU's L2, the
// matrix and the threads: a stated model in the manner of BLIS (Low et al., "Analytical modeling is enough
// for high-performance BLIS", 2016), fitted to this kernel's loop order.
//
// On a CPU a block computes a BM x BN tile of C, k strip by k strip (register_tiled.hpp). Per strip it
// copies BM x BK of A into As and BK x BN of B into Bs, then every row group of threads streams the whole
// of Bs through its FMA loop, and every vector of threads reads and writes its accumulators (the block's
// BM x BN tile of C, a tk::Private) once. (Since row_tiles, below, a block runs several such tiles one above the
// other and copies each strip of B once for them; the width's model below was fitted before, with one tile a
// block, and its C-tile bound then keeps one tile's accumulators in L2, not the block's.) So:
//   - each element of A copied serves 2 BN FLOPs, each of B 2 BM: the wider the block, the less of its
//     time goes to copying A (the copy waits on L3 and memory; it was 15% of the kernel at BN = 128);
//   - Bs, read BM / TM times per strip, must stay in L2: BK x BN x sizeof(T) <= L2 / 2;
//   - the C tile, read and written once per strip, should too: BM x BN x sizeof(T) <= L2 / 2 (the other
//     halves hold As and Bs or C respectively);
//   - a block pays for the columns it covers, padding included, plus the copy of its A strip, which costs
//     about as much as 19 columns of FMAs (15% of a 128-wide block's time in the profile).
// BN is the one of 32 TN x {1, 2, 4, ...} up to 512 elements that satisfies both cache bounds with the least
// ceil(N / BN) * (BN + 19) (the wider on a tie), then narrowed while the grid would have fewer than `slots`
// blocks (4 per thread of the executor's team: threads would idle). 512 is the widest measured better than
// its half (192 x 1024 floats was not,
// docs/history/performance-log.md#cpu-the-blocks-width-from-the-l2-the-strip-copies-tkprivates-stride-2026-11-24-later); with AVX2's 16-column register tile it takes
// eight vectors of threads per TN. BM = 192 and BK = 128 stay fixed for C of more than 96 rows: other
// values measured no better. A C of at most 96 rows would leave at least half of a 192-row block's rows
// multiplying zeros (32 rows: five sixths), so it takes blocks of 48 rows (8 rows of threads; at most 47
// rows of padding) and a width of 64 TN (256 floats with AVX-512), which gives 2048 columns 8 blocks, or 32 TN where
// that pads and copies less (N = 125: 128 columns, not 256); the strips of B are then copied once per 48 rows
// instead of 192, less work than the rows they save.
// Likewise a C of at most 16 TN columns takes blocks 16 TN wide (16 threads across, so a thread's TN
// columns lie 16 apart): in the narrowest of the widths above, 32 TN, 32 columns used a quarter of them. With a
// register tile of 4 or more vectors (AVX-512), a C of at most 8 TN columns takes blocks 8 TN wide and a thread
// tile of TN / 2 vectors (narrow_tn): in 16 TN, 32 columns multiplied as many zeros as values (SGEMM 2048 x 32
// x 1024 at 53% of OpenBLAS on Zen 5; the 6 x 2 tile still has 12 sums in flight, for 2 FMA pipes of 4 cycles).
// A C of more than 96 rows whose 192-row blocks, at their narrowest (and without a tail, below), would be fewer than
// the threads (slots / 4) takes 48-row blocks too (SGEMM 250 x 125 x 750 on 2 threads: one 192 x 128 block and a
// tail of 58 rows left one thread idle for four fifths of the time).
// A C of more than 96 rows whose last row of 192-row blocks would hold at most 96 of them (M = 195: 3) runs
// those rows as a product of their own, in 48-row blocks (tail_rows): about r rows of work instead of 192
// (register_tiled skips a block's rows of threads past M), for B's strips copied once more per 48 rows and
// one more launch.
// A single product whose blocks are fewer than the threads (a small C with a long K: 32 x 32 x 16384 is
// one block) splits K (k_splits): with s splits its grid of `tiles` blocks, each 1 / s of K deep, runs in
// ceil(tiles * s / threads) / s blocks' time; s runs from 1 to 64 with each split at least 8 strips of bk
// (the partial tiles' sum, s x M x N, is then under a thousandth of the work), and the fewest splits of
// the least time win.
#pragma once

#include <cstdint>

namespace tk::kernels::matmul_cpu {

inline constexpr int bm = 192, bk = 128, max_bn = 512;
// C of at most 2 small_bm rows: blocks of small_bm x small_bn_tn * TN (above).
inline constexpr int small_bm = 48, small_bn_tn = 64;
// C of at most few_bn_tn * TN columns: blocks few_bn_tn * TN wide.
inline constexpr int few_bn_tn = 16;
// The copy of a block's A strip in columns of FMA work (above).
inline constexpr int a_copy_columns = 19;

struct Block {
  int bn;                   // the block's width: 32 TN x {1, 2, 4, ...} <= max_bn, or 16 TN, or small_bn_tn TN
  const char* why;          // the rule that settled it
  int bm = matmul_cpu::bm;  // the block's rows: bm, or small_bm
  bool narrow = false;      // the thread's tile TN / 2 vectors wide (narrow_tn): bn is then few_bn_tn * TN / 2
};

// Whether a C of N columns takes the narrow blocks (above) with a register tile of `tn` vectors.
constexpr bool narrow_tn(int tn, std::int64_t N) { return tn >= 4 && tn % 2 == 0 && N <= few_bn_tn * tn / 2; }

// The rows of C (above) that run in 48-row blocks after the others: 0 or 1 to 96.
constexpr std::int64_t tail_rows(std::int64_t M) {
  const std::int64_t r = M % bm;
  return M > 2 * small_bm && r <= 2 * small_bm ? r : 0;
}

// `l2` the L2 bytes per core (0: unknown), `bytes` sizeof(T), `tn` the register tile's vectors, M x N the
// product (per matrix of a batch of `batch`), `slots` the blocks that keep the threads busy.
constexpr Block block_n(std::int64_t l2, int bytes, int tn, std::int64_t M, std::int64_t N, std::int64_t batch,
                        std::int64_t slots) {
  const bool few_columns = N <= few_bn_tn * tn, narrow_tile = narrow_tn(tn, N);
  // 192-row blocks (a tail's rows apart), even at their narrowest, fewer than the threads (slots / 4)?
  const std::int64_t narrowest = narrow_tile ? few_bn_tn * tn / 2 : few_columns ? few_bn_tn * tn : 32 * tn;
  const bool few_tall = ((M - tail_rows(M) + bm - 1) / bm) * ((N + narrowest - 1) / narrowest) * batch * 4 < slots;
  if (M <= 2 * small_bm || few_tall) {
    const bool rows96 = M <= 2 * small_bm;
    if (narrow_tile)
      return {few_bn_tn * tn / 2,
              rows96 ? "C of at most 96 rows and 8 TN columns: 48-row blocks, 8 TN wide, TN / 2 vectors a thread"
                     : "192-row blocks fewer than the threads: 48-row blocks, 8 TN wide, TN / 2 vectors a thread",
              small_bm, true};
    if (few_columns)
      return {few_bn_tn * tn,
              rows96 ? "C of at most 96 rows and 16 TN columns: 48-row blocks, 16 TN wide"
                     : "192-row blocks fewer than the threads: 48-row blocks, 16 TN wide",
              small_bm};
    // 32 or 64 TN wide, whichever pads and copies less (a 48-row block's strip of A: a quarter of a_copy_columns)
    const auto cost48 = [&](int w) { return (N + w - 1) / w * (w + a_copy_columns / 4); };
    const int w = cost48(32 * tn) < cost48(small_bn_tn * tn) ? 32 * tn : small_bn_tn * tn;
    return {w,
            rows96 ? "C of at most 96 rows: 48-row blocks, 32 or 64 TN wide"
                   : "192-row blocks fewer than the threads: 48-row blocks, 32 or 64 TN wide",
            small_bm};
  }
  if (narrow_tile)
    return {few_bn_tn * tn / 2, "C of at most 8 TN columns: blocks 8 TN wide, TN / 2 vectors a thread", bm, true};
  if (few_columns) return {few_bn_tn * tn, "C of at most 16 TN columns: blocks 16 TN wide"};
  const int narrow = 32 * tn;
  const auto fits = [&](int w) {
    return std::int64_t{bk} * w * bytes <= l2 / 2 && std::int64_t{bm} * w * bytes <= l2 / 2;
  };
  const auto cost = [&](int w) { return (N + w - 1) / w * (w + a_copy_columns); };
  const char* least = "the least padded and copying work among the widths whose strip of B and C tile fit half of L2";
  Block b{narrow, fits(narrow) ? least
                  : l2 > 0     ? "even the narrowest width's C tile or strip of B exceeds half of L2"
                               : "L2 size unknown: the narrowest"};
  for (int w = 2 * narrow; w <= max_bn && fits(w); w *= 2)
    if (cost(w) <= cost(b.bn)) b = {w, least};
  const auto blocks = [&](int w) { return ((M + bm - 1) / bm) * ((N + w - 1) / w) * batch; };
  while (b.bn > narrow && blocks(b.bn) < slots) b = {b.bn / 2, "narrowed until the grid has 4 blocks per thread"};
  return b;
}

// The tiles of C, one above the other, that a block runs (register_tiled.hpp's row_tiles): each strip of B is
// copied once for all of them instead of once per tile (BLIS copies its panel of B once for every row of C;
// a block's copies of its strips were 15-18% of SGEMM 2048^3's kernel time, most of it B's). The candidates: r
// tiles a block evened out over the rows of tiles (11 rows of 192-row tiles: 11, or 6 and 5, not 8 and 3), from 1
// up to max_row_tiles, that keep at least `slots` blocks in the grid (or r = 1). Of those, the one whose blocks,
// dealt to the threads (slots / 4) as the executor's static schedule deals them (contiguous runs, the first
// n % T threads one more), leave the busiest thread the least work (makespan), the larger on a tie. A block's work
// is its tiles' (the last row and column of tiles count by the part of C they hold: last_m, last_n) plus an
// eighth of a tile for its copies of B's strips. (Before the makespan, the largest candidate ran: SGEMM 1500^2 x
// 250 on 2 threads got 9 blocks of 3, 3 and 2 tiles, 15 tiles' work for one thread and 9 for the other.)
// (Each tile's accumulators are a tk::Private of the kernel's: max_row_tiles of them per block. Checked mode tracks
// every byte of a block's Privates, so its builds stop at two tiles, which still run the blocks' loop over tiles.)
#if defined(TK_CHECKED)
inline constexpr int max_row_tiles = 2;
#else
inline constexpr int max_row_tiles = 16;
#endif

// The makespan above of r tiles a block (evened), in tiles' work; the grid's order as register_tiled.hpp's (a C of at
// most two rows of blocks column by column).
constexpr double row_tiles_makespan(std::int64_t r, std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t batch,
                                    std::int64_t threads, double last_m, double last_n) {
  const std::int64_t groups = (tiles_m + r - 1) / r, per_matrix = groups * tiles_n, n = per_matrix * batch;
  const bool by_columns = groups <= 2;
  const auto cost = [&](std::int64_t b) {
    const std::int64_t x = b % per_matrix;
    const std::int64_t g = by_columns ? x % groups : x / tiles_n, col = by_columns ? x / groups : x % tiles_n;
    const std::int64_t first = g * r, last = first + r < tiles_m ? first + r : tiles_m;
    const double rows = static_cast<double>(last - first) - (last == tiles_m ? 1 - last_m : 0);
    return (rows + 0.125) * (col == tiles_n - 1 ? last_n : 1);
  };
  const std::int64_t q = n / threads, rem = n % threads;
  double worst = 0;
  std::int64_t b = 0;
  for (std::int64_t t = 0; t < threads && b < n; ++t) {
    double sum = 0;
    for (std::int64_t e = b + q + (t < rem ? 1 : 0); b < e; ++b) sum += cost(b);
    worst = sum > worst ? sum : worst;
  }
  return worst;
}

constexpr int row_tiles(std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t batch, std::int64_t slots,
                        double last_m = 1, double last_n = 1) {
  const auto evened = [&](std::int64_t r) {
    const std::int64_t groups = (tiles_m + r - 1) / r;
    return (tiles_m + groups - 1) / groups;
  };
  const std::int64_t threads = slots / 4 > 1 ? slots / 4 : 1;
  // (a grid of more than 2^16 blocks: the largest candidate without the makespan, whose count is then not worth it)
  const bool weigh = tiles_m * tiles_n * batch <= (std::int64_t{1} << 16);
  std::int64_t best = 1;
  double best_cost = -1;  // r = 1's, weighed once a second candidate comes
  for (std::int64_t r = 2; r <= max_row_tiles && r <= tiles_m; ++r) {
    const std::int64_t e = evened(r);
    if (e <= best || (tiles_m + e - 1) / e * tiles_n * batch < slots) continue;
    if (best_cost < 0) best_cost = weigh ? row_tiles_makespan(1, tiles_m, tiles_n, batch, threads, last_m, last_n) : 0;
    const double c = weigh ? row_tiles_makespan(e, tiles_m, tiles_n, batch, threads, last_m, last_n) : 0;
    if (c <= best_cost) best = e, best_cost = c;
  }
  return static_cast<int>(best);
}

// The ways to split K (above) for `tiles` blocks of a single product on `threads` threads.
constexpr int k_splits(std::int64_t tiles, int threads, std::int64_t K) {
  const std::int64_t cap = K / (8 * bk) < 64 ? K / (8 * bk) : 64;
  const auto rounds = [&](std::int64_t s) { return (tiles * s + threads - 1) / threads; };
  std::int64_t best = 1;
  for (std::int64_t s = 2; s <= cap; ++s)
    if (rounds(s) * best < rounds(best) * s) best = s;
  return static_cast<int>(best);
}

}  // namespace tk::kernels::matmul_cpu
