// The GEMM wave plan (kernels/matmul/waves.hpp): how the warp-tiled launcher fills a GPU's blocks, on the
// shapes whose tiles leave the last wave partly empty, with an H100's numbers (132 SMs, one 128 x 256 block
// each; 67 TFLOP/s over 3.35 TB/s), and on the pretend GPU the CPU executor plans for in the GPU-shape
// tests (4 slots, 20 FLOP per byte).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "../kernels/matmul/waves.hpp"

namespace tk::test {
namespace {

namespace mw = tk::kernels::matmul_waves;
const mw::Machine h100{132, 66.9e12 / 3.35e12}, pretend = mw::pretend_gpu;
// cuda_mid's machine on an H200 (policy/cuda.hpp, machine): 128 x 64 x 8 tiles, three blocks per SM (396 slots),
// 132 SMs of 128 FP32 lanes at 1.98 GHz, 4.8 TB/s, 8 us a launch; and the same with the SM count not known
constexpr double h200_bw = 4.8e12;
const mw::Machine h200{396, 128 * 2.0 * 132 * 1.98e9 / h200_bw, 8e-6 * h200_bw, 132};
const mw::Machine sms_unknown{h200.slots, h200.flops_per_byte, h200.launch_bytes, 0};

// Waves the plan's blocks take, and the waves of work they hold (tiles x K / slots), for the whole GEMM.
double waves_of(const mw::Plan& p, std::int64_t M, std::int64_t N, std::int64_t bm, std::int64_t bn,
                const mw::Machine& m) {
  const std::int64_t tn = (N + bn - 1) / bn, dp = p.dp_rows / bm * tn, rest = ((M - p.dp_rows + bm - 1) / bm) * tn;
  auto waves = [&](std::int64_t blocks) { return static_cast<double>((blocks + m.slots - 1) / m.slots); };
  return waves(dp) + waves(rest * p.splits) / static_cast<double>(p.splits);
}

TEST(WavePlan, FullWavesRunAsTheyAre) {
  EXPECT_EQ(mw::plan(4096, 4096, 4096, 128, 256, 8, 4, mw::Machine{128, 20}), mw::Plan{});  // 512 tiles: 4 waves
  // 512 tiles on 132 slots: 3.9 waves, and the last one is 88% full: nothing to gain
  EXPECT_EQ(mw::plan(4096, 4096, 4096, 128, 256, 8, 4, h100), mw::Plan{});
}

TEST(WavePlan, APartialLastWaveIsSplitAlongK) {
  // 3072^3: 288 tiles = 2.18 waves. The first 22 tile rows (264 tiles) fill two waves; the last 2 rows (24
  // tiles) are split along K to fill a third, so the plan takes 2 + 1 / splits waves instead of 3.
  const mw::Plan p = mw::plan(3072, 3072, 3072, 128, 256, 8, 4, h100);
  EXPECT_EQ(p.dp_rows, 22 * 128);
  EXPECT_GE(p.splits, 2);
  EXPECT_LE(p.splits * 24, 2 * 132);
  EXPECT_LT(waves_of(p, 3072, 3072, 128, 256, h100), 2.5);
  // odd sizes: 3001^3 has the same 24 x 12 tiles
  EXPECT_EQ(mw::plan(3001, 3001, 3001, 128, 256, 8, 4, h100).dp_rows, 22 * 128);
}

TEST(WavePlan, LessThanAWaveIsSplitToFillIt) {
  // 1536^3 in 128 x 256 tiles: 72 tiles on 132 slots. Split 3 ways: 216 blocks of a third of K, 2 waves of a
  // third: 0.67 of the unsplit time.
  const mw::Plan p = mw::plan(1536, 1536, 1536, 128, 256, 8, 4, h100);
  EXPECT_EQ(p.dp_rows, 0);
  EXPECT_GE(p.splits, 2);
  EXPECT_LT(waves_of(p, 1536, 1536, 128, 256, h100), 0.7);
  // one tile and a very long K: many splits, up to what fills the machine
  const mw::Plan q = mw::plan(128, 128, 65536, 128, 256, 8, 4, h100);
  EXPECT_GE(q.splits, 100);
  EXPECT_LE(q.splits, mw::max_split_count);
}

TEST(WavePlan, SplitsKeepEightStripsAndPayForTheirTraffic) {
  // K = 64 holds 4 strips of 16: no split, whatever the waves
  EXPECT_EQ(mw::plan(1000, 1000, 64, 128, 64, 16, 4, h100).splits, 1);
  // a split whose partial products cost more memory time than the waves it saves is not taken: the same
  // 1536^2 x 2048 on a machine with little bandwidth for its FLOPs (2000 FLOP per byte), and with plenty (1)
  const mw::Machine starved{132, 2000.0}, rich{132, 1.0};
  EXPECT_EQ(mw::plan(1536, 1536, 2048, 128, 256, 8, 4, starved).splits, 1);
  EXPECT_GT(mw::plan(1536, 1536, 2048, 128, 256, 8, 4, rich).splits, 1);
}

TEST(WavePlan, ALaunchMustPayForItself) {
  // 4096 x 4096 x 256 in 128 x 64 tiles, three blocks per SM: 2048 tiles = 5.2 waves of 25 us. The hybrid
  // saves half a wave, less than its two extra launches cost (8 us each): it measured 18 us slower.
  const mw::Machine free_launches{396, h100.flops_per_byte}, h100_launches{396, h100.flops_per_byte, 8e-6 * 3.35e12};
  EXPECT_GT(mw::plan(4096, 4096, 256, 128, 64, 16, 4, free_launches).dp_rows, 0);
  EXPECT_EQ(mw::plan(4096, 4096, 256, 128, 64, 16, 4, h100_launches), mw::Plan{});
  // 3072^3 saves most of a wave of 400 us: still split
  EXPECT_GT(mw::plan(3072, 3072, 3072, 128, 256, 8, 4, mw::Machine{132, h100.flops_per_byte, 8e-6 * 3.35e12}).splits,
            1);
}

TEST(WavePlan, NoMachineNoPlan) {
  EXPECT_EQ(mw::plan(3072, 3072, 3072, 128, 256, 8, 4, mw::Machine{}), mw::Plan{});
  EXPECT_EQ(mw::plan(0, 3072, 3072, 128, 256, 8, 4, h100), mw::Plan{});
}

// The GPU-shape tests' GEMMs (tests/test_gpu_shapes.cpp) on the pretend GPU take each plan: M = 4 bm + 7
// rows over one column of tiles is 5 tiles on 4 slots, the hybrid; a small C with a long K splits.
TEST(WavePlan, TheGpuShapeTestsTakeEveryPlan) {
  for (std::int64_t bm : {64, 128, 256}) {
    for (std::int64_t bk : {8, 16}) {
      const mw::Plan h = mw::plan(4 * bm + 7, 8, 272, bm, 64, bk, 4, pretend);
      EXPECT_EQ(h.dp_rows, 4 * bm) << "bm " << bm << ", bk " << bk;
      EXPECT_GT(h.splits, 1) << "bm " << bm << ", bk " << bk;
    }
  }
  EXPECT_GT(mw::plan(70, 90, 1100, 128, 256, 8, 4, pretend).splits, 1);
  EXPECT_GT(mw::plan(70, 90, 1100, 128, 64, 16, 8, pretend).splits, 1);
}

// The warpgroup kernel's plans (launch_mma_units.cpp): 128 x 256 tiles, strips of 64 16-bit values or 32 floats,
// splits of at least 4 strips, float partial products; on an H200 (132 SMs, one block each, half the BF16 dense
// peak over 4.8 TB/s, 8 us a launch: policy/cuda.hpp, warpgroup_machine).
TEST(WavePlan, TheWarpgroupKernelSplitsFewTiles) {
  const double bw = 4.8e12;
  const mw::Machine h200_bf16{132, 1024 * 2.0 * 132 * 1.98e9 / bw, 8e-6 * bw};
  // 8 x 4096 x 4096: 16 tiles for 132 SMs, split 8 ways (64 strips: 8 each)
  EXPECT_EQ(mw::plan(8, 4096, 4096, 128, 256, 64, 4, h200_bf16, 4), (mw::Plan{0, 8}));
  // 4096^3: 512 tiles, 3.9 waves whose last is 88% full: as it is
  EXPECT_EQ(mw::plan(4096, 4096, 4096, 128, 256, 64, 4, h200_bf16, 4), mw::Plan{});
  // at least min_strips strips a split: 1024 deep holds 16 strips of 64, so 4 splits at most with 4, 2 with 8
  EXPECT_LE(mw::plan(128, 128, 1024, 128, 256, 64, 4, pretend, 4).splits, 4);
  EXPECT_GT(mw::plan(128, 128, 1024, 128, 256, 64, 4, pretend, 4).splits, 2);
  EXPECT_LE(mw::plan(128, 128, 1024, 128, 256, 64, 4, pretend, 8).splits, 2);
  EXPECT_EQ(mw::plan(128, 128, 1024, 128, 256, 64, 4, pretend, 0), mw::Plan{});
  // the GPU-shape tests' warpgroup products on the pretend GPU: one tile split 3 ways (16-bit) or 4 (TF32); 5 tile
  // rows of which 4 run unsplit, the last split
  EXPECT_EQ(mw::plan(100, 200, 1000, 128, 256, 64, 4, pretend, 4), (mw::Plan{0, 3}));
  EXPECT_EQ(mw::plan(100, 200, 1000, 128, 256, 32, 4, pretend, 4), (mw::Plan{0, 4}));
  EXPECT_EQ(mw::plan(520, 40, 512, 128, 256, 64, 4, pretend, 4), (mw::Plan{512, 2}));
  EXPECT_EQ(mw::plan(520, 40, 512, 128, 256, 32, 4, pretend, 4), (mw::Plan{512, 4}));
}

// Tiles that give nearly every SM one block split only into long parts (long_split_strips): FP32 cuda_mid (128 x 64
// x 8, three blocks per SM: 396 slots) on an H200 (132 SMs, 128 FP32 lanes each at 1.98 GHz, 4.8 TB/s, 8 us a
// launch: policy/cuda.hpp, machine), at the shapes measured (docs/performance.md#h200-fp32-one-block-per-sm).
TEST(WavePlan, AWaveOfOneBlockPerSmSplitsOnlyLongK) {
  // 1000^3 and 1024^3: 128 tiles for 132 SMs, 125 and 128 strips: unsplit (split 3 ways when the SMs are not known)
  EXPECT_EQ(mw::plan(1000, 1000, 1000, 128, 64, 8, 4, h200), mw::Plan{});
  EXPECT_EQ(mw::plan(1024, 1024, 1024, 128, 64, 8, 4, h200), mw::Plan{});
  EXPECT_EQ(mw::plan(1000, 1000, 1000, 128, 64, 8, 4, sms_unknown), (mw::Plan{0, 3}));
  // the same tiles, longer K: 3 splits of at least 80 strips (250, 375 and 500 strips)
  EXPECT_EQ(mw::plan(1000, 1000, 2000, 128, 64, 8, 4, h200), (mw::Plan{0, 3}));
  EXPECT_EQ(mw::plan(1024, 1024, 3000, 128, 64, 8, 4, h200), (mw::Plan{0, 3}));
  EXPECT_EQ(mw::plan(1000, 1000, 4000, 128, 64, 8, 4, h200), (mw::Plan{0, 3}));
  // fewer tiles than 7 in 8 SMs, or more than one a SM: split as before (896^3: 98 tiles; 1100^3: 162)
  EXPECT_EQ(mw::plan(896, 896, 896, 128, 64, 8, 4, h200), (mw::Plan{0, 4}));
  EXPECT_EQ(mw::plan(1100, 1100, 1100, 128, 64, 8, 4, h200), (mw::Plan{0, 2}));
  // 2000 x 2000 x 500: the hybrid's last 4 tile rows (128 tiles) are such a wave: no split anywhere
  EXPECT_EQ(mw::plan(2000, 2000, 500, 128, 64, 8, 4, h200), mw::Plan{});
  EXPECT_EQ(mw::plan(2000, 2000, 500, 128, 64, 8, 4, sms_unknown), (mw::Plan{1536, 3}));
}

TEST(WavePlan, BlocksAreCountedPerSm) {
  // An H200 with cuda_mid's 128 x 64 x 8 tiles, three blocks an SM. The plan takes the split that measured fastest
  // on these shapes (2026-12-03, every split 1-8 forced in four storages); counted in waves of 396 slots, a
  // product of fewer tiles than slots prices as one wave whatever its tiles, and took other splits (1408^3 below).
  // 1536^3: 288 tiles, so 24 SMs hold 3 blocks and the others 2; split 4 ways, 1152 blocks of a quarter of K
  // hold the busiest SM to 9 quarters (measured 89.6-98.8% of cuBLAS against 79.6-89.4% unsplit)
  EXPECT_EQ(mw::plan(1536, 1536, 1536, 128, 64, 8, 4, h200), (mw::Plan{0, 4}));
  // 242 and 245 tiles: 2 blocks on most SMs (2.3 block times), and no split saves its traffic (unsplit measured
  // fastest by 9-11%); in waves of slots they priced as a full wave (3 block times), and 3 splits as 2
  EXPECT_EQ(mw::plan(1408, 1408, 1408, 128, 64, 8, 4, h200), mw::Plan{});
  EXPECT_EQ(mw::plan(777, 2222, 1333, 128, 64, 8, 4, h200), mw::Plan{});
  EXPECT_EQ(mw::plan(1408, 1408, 1408, 128, 64, 8, 4, sms_unknown), (mw::Plan{0, 3}));
  EXPECT_EQ(mw::plan(777, 2222, 1333, 128, 64, 8, 4, sms_unknown), (mw::Plan{0, 3}));
  // 512 tiles: 4 blocks on 116 SMs (4.5 block times); 2 splits would take 4.2 and lose more to their traffic
  EXPECT_EQ(mw::plan(2048, 2048, 1024, 128, 64, 8, 4, h200), mw::Plan{});
  // where a split evens the SMs out, it is kept: 200 tiles in 3, 189 in 2
  EXPECT_EQ(mw::plan(1280, 1280, 1280, 128, 64, 8, 4, h200), (mw::Plan{0, 3}));
  EXPECT_EQ(mw::plan(1100, 1300, 1500, 128, 64, 8, 4, h200), (mw::Plan{0, 2}));
  // short K: the split's traffic costs more than the 3 block times it would save a quarter of
  EXPECT_EQ(mw::plan(1536, 1536, 768, 128, 64, 8, 4, h200), mw::Plan{});
  // 800 tiles: 8 SMs would hold a seventh block alone; the hybrid runs 760 tiles and splits the last 40 six ways
  // (measured 90.4-104.5% of cuBLAS, unsplit 87.4-100.3%)
  EXPECT_EQ(mw::plan(2500, 2500, 800, 128, 64, 8, 4, h200), (mw::Plan{19 * 128, 6}));
  // one block an SM (the warpgroup kernel, cuda_dmma): the SMs' rounds are the waves, and the plan is the same
  // (a guard on the per-SM count's claim that it changes nothing there: only the one-block-per-SM rule differs)
  const mw::Machine one_each{132, h200.flops_per_byte, h200.launch_bytes, 132};
  mw::Machine one_each_unknown = one_each;
  one_each_unknown.sms = 0;
  for (const std::int64_t n : {1000, 1536, 2000, 3072, 4000})
    EXPECT_EQ(mw::plan(n, n, n, 128, 256, 8, 4, one_each), mw::plan(n, n, n, 128, 256, 8, 4, one_each_unknown)) << n;
}

// A split's partial products that fit the L2 are priced at split_traffic_rate, not at the DRAM's slower rate (on
// sm_90: policy/gpu.hpp): on an H100 (3.35 TB/s, 50 MiB of L2; cuda_mid's tiles, three an SM) the DRAM's price took
// 1536^3 and 1280^3 off the splits that measured fastest there in every storage (2026-12-07: 4 and 3 ways, 6-13% and
// 0-9% over unsplit), and with the on-chip price the plan takes them and the H200's picks (same SMs and clock, DRAM
// at that rate)
TEST(WavePlan, PartialsInTheL2ArePricedOnChip) {
  constexpr double bw = 2.0 * 2619e6 * 5120 / 8;  // the H100's memory clock and bus, as DeviceProps computes it
  const mw::Machine dram{396, 128 * 2.0 * 132 * 1.98e9 / bw, 8e-6 * bw, 132};
  const mw::Machine l2 = mw::onchip_partials(dram, bw, 50.0 * (1 << 20));
  EXPECT_EQ(l2.onchip_bytes, 50.0 * (1 << 20));
  EXPECT_NEAR(l2.onchip_ratio, 0.698, 0.001);
  EXPECT_EQ(mw::plan(1536, 1536, 1536, 128, 64, 8, 4, dram), mw::Plan{});
  EXPECT_EQ(mw::plan(1280, 1280, 1280, 128, 64, 8, 4, dram), mw::Plan{});
  EXPECT_EQ(mw::plan(1536, 1536, 1536, 128, 64, 8, 4, l2), (mw::Plan{0, 4}));  // 36 MiB of partials
  EXPECT_EQ(mw::plan(1280, 1280, 1280, 128, 64, 8, 4, l2), (mw::Plan{0, 3}));
  // unsplit measured fastest on the H100 too (1408^3 by 8-29% over 2 and 3 splits), and kept
  EXPECT_EQ(mw::plan(1408, 1408, 1408, 128, 64, 8, 4, l2), mw::Plan{});
  for (const auto& s : {std::array<std::int64_t, 3>{1536, 1536, 1536},
                        {1280, 1280, 1280},
                        {1408, 1408, 1408},
                        {1152, 1152, 1152},
                        {1100, 1300, 1500},
                        {2500, 2500, 800},
                        {1536, 1536, 768}})
    EXPECT_EQ(mw::plan(s[0], s[1], s[2], 128, 64, 8, 4, l2), mw::plan(s[0], s[1], s[2], 128, 64, 8, 4, h200))
        << s[0] << " x " << s[1] << " x " << s[2];
  // 2048 x 2048 x 1024 runs cuda_square's 128 x 128 tiles, two an SM (policy/cuda.hpp, square_tiles_fill_better):
  // unsplit, as measured (splits 2-6 ways 20-25% slower)
  const mw::Machine square_dram{264, dram.flops_per_byte, dram.launch_bytes, 132};
  EXPECT_EQ(mw::plan(2048, 2048, 1024, 128, 128, 8, 4, mw::onchip_partials(square_dram, bw, 50.0 * (1 << 20))),
            mw::Plan{});
  // a hybrid's split tail keeps the DRAM's price: 3328^3 on those tiles (676 blocks) unsplit, as measured (the hybrid
  // that the on-chip price took, 3200 rows then 10 splits, 4-5 points slower in every storage); the hybrids of 3680^3
  // and 7712^3 as the DRAM prices them (their tails were growing to 9 and 17 splits, unmeasured)
  const mw::Machine square_l2 = mw::onchip_partials(square_dram, bw, 50.0 * (1 << 20));
  EXPECT_EQ(mw::plan(3328, 3328, 3328, 128, 128, 8, 4, square_l2), mw::Plan{});
  EXPECT_EQ(mw::plan(3680, 3680, 3680, 128, 128, 8, 4, square_l2), (mw::Plan{3456, 4}));
  EXPECT_EQ(mw::plan(3680, 3680, 3680, 128, 128, 8, 4, square_l2),
            mw::plan(3680, 3680, 3680, 128, 128, 8, 4, square_dram));
  EXPECT_EQ(mw::plan(7712, 7712, 7712, 128, 128, 8, 4, square_l2), (mw::Plan{7680, 4}));
  // while whole splits take the on-chip price: 1088^3, 1440^3 and 1472^3 on cuda_mid's tiles (with 1248^3 and
  // 1504^3, measured faster than unsplit in every storage, by 4-18 points)
  EXPECT_EQ(mw::plan(1088, 1088, 1088, 128, 64, 8, 4, l2), (mw::Plan{0, 5}));
  EXPECT_EQ(mw::plan(1472, 1472, 1472, 128, 64, 8, 4, l2), (mw::Plan{0, 4}));
  EXPECT_EQ(mw::plan(1440, 1440, 1440, 128, 64, 8, 4, l2), (mw::Plan{0, 4}));
  // partials larger than the L2 keep the DRAM's price: 4 splits of 1536^3 with a 32 MiB L2
  EXPECT_EQ(mw::plan(1536, 1536, 1536, 128, 64, 8, 4, mw::onchip_partials(dram, bw, 32.0 * (1 << 20))), mw::Plan{});
  // a DRAM at least as fast as the rate (an H200's 4.8 TB/s and more), or of unknown speed, changes nothing
  EXPECT_EQ(mw::onchip_partials(h200, 4.9e12, 50.0 * (1 << 20)).onchip_ratio, 1.0);
  EXPECT_EQ(mw::onchip_partials(h200, 0, 50.0 * (1 << 20)).onchip_ratio, 1.0);
  EXPECT_EQ(mw::onchip_partials(h200, bw, 0).onchip_bytes, 0.0);
  EXPECT_EQ(mw::plan(1536, 1536, 1536, 128, 64, 8, 4, mw::onchip_partials(dram, bw, 0)), mw::Plan{});
}

// The peel (waves.hpp's peel): C's last few rows and columns past whole tiles, run apart, where the rest then takes
// fewer rounds by more than their extra reads cost. DGEMM's sm_90 choices on the H100's model: test_gpu_shapes.cpp.
TEST(WavePeel, RowsAndColumnsPastWholeTilesThatCostARound) {
  const auto peel = [](std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t most) {
    return mw::peel(M, N, K, 128, 64, 16, 8, pretend, most, 8, false);
  };
  // 3 x 5 tiles on 4 slots: 4 rounds; 2 x 4 tiles (4 rows and a column apart), 2 rounds and two reads of an operand
  EXPECT_EQ(peel(260, 257, 129, 8), (mw::Peel{4, 1}));
  EXPECT_EQ(peel(260, 257, 129, 1), (mw::Peel{0, 1}));  // at most `most` rows or columns
  EXPECT_EQ(peel(260, 257, 129, 0), mw::Peel{});
  EXPECT_EQ(peel(300, 131, 80, 8), (mw::Peel{0, 3}));  // 44 rows past the tiles: too many; 3 columns
  EXPECT_EQ(peel(130, 130, 200, 8), (mw::Peel{2, 0}));
  EXPECT_EQ(peel(128, 64, 100, 8), mw::Peel{});  // whole tiles
  EXPECT_EQ(peel(129, 64, 100, 8), mw::Peel{});  // 2 tiles in one round either way
  // a side of less than a tile is not peeled (its product is a matrix-vector one already)
  EXPECT_EQ(peel(5, 257, 129, 8).rows, 0);
  // nothing planned, nothing peeled: no machine, or no K
  EXPECT_EQ(mw::peel(260, 257, 129, 128, 64, 16, 8, mw::Machine{}, 8), mw::Peel{});
  EXPECT_EQ(mw::peel(260, 257, 0, 128, 64, 16, 8, pretend, 8), mw::Peel{});
}

}  // namespace
}  // namespace tk::test
