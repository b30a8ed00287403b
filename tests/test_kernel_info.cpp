// Occupancy and tile arithmetic (tilekit/kernel_info.hpp) against the seeds' own worked figures, and the
// kernel-resource report on every backend.
#include <algorithm>

#include "support.hpp"
#include "tilekit/matmul.hpp"

namespace tk::test {
namespace {

// Seed 001, section 5.4: on the G80, 16 x 16 tiles use 2 KB of shared memory per block, so shared memory
// would allow 8 blocks per SM, but 768 threads per SM allow only 3; CGMA 16 at 86.4 GB/s bounds the kernel
// at 345.6 GFLOP/s.
TEST(KernelInfo, G80SixteenBySixteenTilesMatchSeed001) {
  const KnownDevice* g80 = find_known_device("g80");
  ASSERT_NE(g80, nullptr);
  const TileAnalysis a = analyse_tile(g80->props, g80->bandwidth_gbs, g80->fp32_gflops, {"16", 16, 16, 16, 256});
  EXPECT_EQ(a.shared_bytes, 2048);
  EXPECT_EQ(a.blocks_by_shared, 8);
  EXPECT_EQ(a.blocks_by_threads, 3);
  EXPECT_EQ(a.occ.blocks, 3);
  EXPECT_EQ(a.occ.limit, "threads");
  EXPECT_DOUBLE_EQ(a.cgma, 16.0);
  EXPECT_NEAR(a.bandwidth_bound_gflops, 345.6, 1e-9);
}

// Seed 000: 32 x 32 tiles need 1024 threads per block, more than a G80 block may have; on a K40 they fit
// twice per SM (2048 threads), at CGMA 32.
TEST(KernelInfo, ThirtyTwoByThirtyTwoTilesByDevice) {
  const KnownDevice *g80 = find_known_device("g80"), *k40 = find_known_device("k40");
  ASSERT_NE(k40, nullptr);
  EXPECT_EQ(analyse_tile(g80->props, g80->bandwidth_gbs, g80->fp32_gflops, {"32", 32, 32, 32, 1024}).occ.blocks, 0);
  const TileAnalysis a = analyse_tile(k40->props, k40->bandwidth_gbs, k40->fp32_gflops, {"32", 32, 32, 32, 1024});
  EXPECT_EQ(a.occ.blocks, 2);
  EXPECT_DOUBLE_EQ(a.cgma, 32.0);
  EXPECT_EQ(find_known_device("nope"), nullptr);
}

TEST(KernelInfo, RegistersCanBindOccupancy) {
  const KnownDevice* h100 = find_known_device("h100");
  ASSERT_NE(h100, nullptr);
  // 256 threads x 128 registers = 32768 of 65536: 2 blocks, registers bind before threads (8) do.
  const Occupancy o = occupancy(h100->props, 256, 128, 0);
  EXPECT_EQ(o.blocks, 2);
  EXPECT_EQ(o.limit, "registers");
  EXPECT_EQ(o.threads(), 512);
}

class KernelResourcesTest : public ::testing::TestWithParam<Backend> {};

TEST_P(KernelResourcesTest, EveryKernelReportsItsLaunch) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const auto ks = kernel_resources(dev);
  if (dev.backend() == Backend::kokkos) {
    EXPECT_TRUE(ks.empty());  // Kokkos chooses its own launches
    return;
  }
  // GEMM in each precision: every variant, then every warp_tiled configuration of the backend, by name
  for (const int bytes : {4, 8}) {
    const std::string op = bytes == 4 ? "sgemm" : "dgemm";
    std::vector<std::string> got, want;
    for (const auto& k : ks)  // a call may launch a variant's kernel more than once (the wave plan's parts)
      if (k.op == op && (got.empty() || got.back() != k.variant)) got.push_back(k.variant);
    for (const auto& v : matmul_variants()) want.push_back(v.name);
    for (const char* c : matmul_configs(dev, bytes)) want.push_back(c);
    EXPECT_EQ(got, want) << op;
  }
  for (const char* op : {"copy", "vector_add", "matrix_add", "transpose", "float3_add", "stencil_5point"})
    EXPECT_TRUE(std::any_of(ks.begin(), ks.end(), [&](const KernelResources& k) { return k.op == op; })) << op;
  for (const auto& k : ks) {
    EXPECT_GT(k.block_threads, 0) << k.kernel;
    if (dev.backend() == Backend::cuda || dev.backend() == Backend::hip) {
      EXPECT_GT(k.registers_per_thread, 0) << k.kernel;
      EXPECT_GE(k.runtime_blocks_per_multiprocessor, 1) << k.kernel;
      EXPECT_LE(k.block_threads, k.max_threads_per_block) << k.kernel;
      // HIP-CPU (the hip-cpu preset) runs blocks on host threads: its "registers" (the CPU's 16) and blocks per
      // multiprocessor (its thread limit) are no GPU's, so no occupancy arithmetic holds for them.
      if (dev.props().arch == "hip-cpu") continue;
      // The seeds' arithmetic never promises fewer blocks than the runtime finds.
      const Occupancy o =
          occupancy(dev.props(), k.block_threads, k.registers_per_thread, k.static_shared + k.dynamic_shared);
      EXPECT_GE(o.blocks, k.runtime_blocks_per_multiprocessor) << k.kernel << " limited by " << o.limit;
    }
  }
  // Recording ends with the call: the next launch runs for real.
  Buffer<float> a(dev, std::vector<float>{1.f, 2.f}), b(dev, 2);
  tk::copy(a, b);
  EXPECT_EQ(b.to_host(), (std::vector<float>{1.f, 2.f}));
}

INSTANTIATE_TEST_SUITE_P(All, KernelResourcesTest, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
