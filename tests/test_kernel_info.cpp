// Occupancy and tile arithmetic (tilekit/kernel_info.hpp) against the seeds' own worked figures, and the
// kernel-resource report on every backend.
#include "support.hpp"

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

TEST_P(KernelResourcesTest, EveryMatmulVariantReportsItsLaunch) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const auto ks = kernel_resources(dev);
  if (dev.backend() == Backend::kokkos) {
    EXPECT_TRUE(ks.empty());  // Kokkos chooses its own launches
    return;
  }
  ASSERT_EQ(ks.size(), matmul_variants().size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(ks[i].op, "matmul");
    EXPECT_EQ(ks[i].variant, matmul_variants()[i].name);
    EXPECT_GT(ks[i].block_threads, 0);
    if (dev.backend() == Backend::cuda || dev.backend() == Backend::hip) {
      EXPECT_GT(ks[i].registers_per_thread, 0) << ks[i].kernel;
      EXPECT_GE(ks[i].runtime_blocks_per_multiprocessor, 1) << ks[i].kernel;
      EXPECT_LE(ks[i].block_threads, ks[i].max_threads_per_block) << ks[i].kernel;
      // The seeds' arithmetic never promises fewer blocks than the runtime finds.
      const Occupancy o = occupancy(dev.props(), ks[i].block_threads, ks[i].registers_per_thread,
                                    ks[i].static_shared + ks[i].dynamic_shared);
      EXPECT_GE(o.blocks, ks[i].runtime_blocks_per_multiprocessor) << ks[i].kernel << " limited by " << o.limit;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, KernelResourcesTest, ::testing::ValuesIn(built_backends()), backend_name);

}  // namespace
}  // namespace tk::test
