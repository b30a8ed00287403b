// tests/checked/test_checked.cpp — checked mode against the catalogue of broken kernels
// (broken_kernels.hpp): each is reported with its bug class and a message that names the kernel, the
// block, the thread(s) and the array element. Built into tk_tests only in a checked build (TK_CHECKED);
// there the rest of the suite is the proof that every shipped kernel and every test kernel runs clean.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "checked/broken_kernels.hpp"
#include "support.hpp"
#include "tilekit/tilekit.hpp"

namespace tk {
namespace {

namespace bk = tk::kernels::broken;
using namespace tk::test;

// Runs f, which must throw tk::KernelCheckError of class `bug` whose message holds every part.
void expect_bug(const std::function<void()>& f, KernelBug bug, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << to_string(bug);
  } catch (const KernelCheckError& e) {
    EXPECT_EQ(e.bug(), bug) << e.what();
    if (std::getenv("TK_SHOW_CHECKED")) std::printf("%s\n\n", e.what());
    for (const char* p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
  }
}

struct Matrices {
  static constexpr int n = 64;
  Device dev = Device::cpu();
  std::mt19937_64 rng{fresh_seed()};
  std::vector<float> a = random_floats(n * n, rng), b = random_floats(n * n, rng);
  Buffer<float> A{dev, a}, B{dev, b}, C{dev, nans(n* n)};
  double max_error() const {
    const auto c = C.to_host();
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        double ref = 0;
        for (int k = 0; k < n; ++k) ref += double(a[i * n + k]) * b[k * n + j];
        worst = std::max(worst, std::abs(ref - c[i * n + j]));
      }
    }
    return worst;
  }
};

TEST(CheckedMode, TheTiledMatmulWithItsBarriersIsClean) {
  Matrices m;
  tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0}, &bk::tiled_matmul<16, true, true>, m.n, m.A.data(),
             m.B.data(), m.C.data());
  EXPECT_LT(m.max_error(), 1e-4);
}

TEST(CheckedMode, BothBarriersRemovedIsARace) {  // Kirk & Hwu, exercise 5.3
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0}, &bk::tiled_matmul<16, false, false>, m.n,
                   m.A.data(), m.B.data(), m.C.data());
      },
      KernelBug::race,
      {"tk::launch(tiled_matmul)", "block (0, 0, 0)", "thread (", "reads As[", "float [TILE][TILE]",
       "broken_kernels.hpp:", "no TK_BARRIER() between them"});
}

TEST(CheckedMode, TheFirstBarrierRemovedIsAReadAfterWriteRace) {
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0}, &bk::tiled_matmul<16, false, true>, m.n,
                   m.A.data(), m.B.data(), m.C.data());
      },
      KernelBug::race, {"reads As[", "wrote in the phase at broken_kernels.hpp:"});
}

TEST(CheckedMode, TheSecondBarrierRemovedIsAWriteAfterReadRace) {
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0}, &bk::tiled_matmul<16, true, false>, m.n,
                   m.A.data(), m.B.data(), m.C.data());
      },
      KernelBug::race, {"writes As[", "read in the phase at broken_kernels.hpp:"});
}

TEST(CheckedMode, AnAccumulatorInAPlainLocalIsThreadState) {
  // Which block is caught first depends on rounding: the shared accumulator's sum in the two thread orders
  // agrees to the last bit for about one block in 40, so the test names no block.
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul_plain_local", {4, 4, 1}, {16, 16, 1}, 0}, &bk::tiled_matmul_plain_local<16>,
                   m.n, m.A.data(), m.B.data(), m.C.data());
      },
      KernelBug::thread_state,
      {"tk::launch(tiled_matmul_plain_local)", "(second run, threads in reverse order)", "depends on the order",
       "from kernel argument 3", "tk::Private"});
}

TEST(CheckedMode, APrivateReadForAnotherThreadIsThreadState) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"private_of_neighbour", {1, 1, 1}, {64, 1, 1}, 0}, &bk::private_of_neighbour, in.data(),
                   out.data());
      },
      KernelBug::thread_state, {"thread (0, 0, 0)", "belongs to thread (1, 0, 0)", "tk::Private<float, 1>"});
}

TEST(CheckedMode, ABarrierInABranchIsDivergent) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"barrier_in_branch", {1, 1, 1}, {64, 1, 1}, 0}, &bk::barrier_in_branch, in.data(), out.data());
      },
      KernelBug::divergent_barrier, {"TK_BARRIER() at", "broken_kernels.hpp:", "reached it 0 times", "1 times"});
}

TEST(CheckedMode, ABarrierInsideAPhaseIsReportedEvenWhenEveryThreadReachesIt) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"barrier_in_phase", {1, 1, 1}, {64, 1, 1}, 0}, &bk::barrier_in_phase, in.data(), out.data());
      },
      KernelBug::divergent_barrier, {"every thread reached it 1 times", "end the phase there"});
}

TEST(CheckedMode, AWarpMultiplyInsideAPhaseIsDivergent) {
  const Device dev = Device::cpu();
  Buffer<float> out(dev, std::vector<float>(64, 0.f));
  const int lanes = tk::mma::Op<tk::mma::Precision::tf32>::lanes;
  expect_bug(
      [&] {
        tk::launch(dev, {"mma_inside_phase", {1, 1, 1}, {lanes, 1, 1}, 0}, &bk::mma_inside_phase, out.data());
      },
      KernelBug::divergent_barrier, {"tk::mma::mma_sync inside", "stands between phases"});
  expect_bug(
      [&] {
        tk::launch(dev, {"mma_partial_warp", {1, 1, 1}, {lanes / 2, 1, 1}, 0}, &bk::mma_partial_warp, out.data());
      },
      KernelBug::thread_state, {"mma_partial_warp", "not whole warps of"});
  // whole warps, between phases: clean, and the product of ones over k
  tk::launch(dev, {"mma_partial_warp", {1, 1, 1}, {lanes, 1, 1}, 0}, &bk::mma_partial_warp, out.data());
  EXPECT_EQ(out.to_host()[0], float(tk::mma::Op<tk::mma::Precision::tf32>::k));
}

TEST(CheckedMode, AStaticSharedIndexPastItsExtentIsOutOfRange) {
  constexpr int n = 32;
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(n * n, 1.f)), out(dev, n * n);
  expect_bug(
      [&] {
        tk::launch(dev, {"stencil_tile_without_halo", {2, 2, 1}, {16, 16, 1}, 0}, &bk::stencil_tile_without_halo<16>, n,
                   in.data(), out.data());
      },
      KernelBug::out_of_range,
      {"tk::launch(stencil_tile_without_halo)", "thread (15, 0, 0)", "index 16 into", "broken_kernels.hpp:"});
}

TEST(CheckedMode, WritingPastDynamicSharedMemoryIsOutOfRange) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"dynamic_shared_overrun", {1, 1, 1}, {64, 1, 1}, 64 * sizeof(float)},
                   &bk::dynamic_shared_overrun, in.data(), out.data());
      },
      KernelBug::out_of_range,
      {"thread (0, 0, 0) writes 4 bytes", "0 bytes past the end of dynamic shared memory (256 bytes"});
}

TEST(CheckedMode, APrivateValueIndexPastNIsOutOfRange) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"private_index_past_end", {1, 1, 1}, {64, 1, 1}, 0}, &bk::private_index_past_end, in.data(),
                   out.data());
      },
      KernelBug::out_of_range, {"uses value 4 of tk::Private<float, 4>", "values 0 to 3"});
}

TEST(CheckedMode, AnIndexBelowDynamicSharedMemoryIsOutOfRange) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"dynamic_shared_underflow", {1, 1, 1}, {64, 1, 1}, 64 * sizeof(float)},
                   &bk::dynamic_shared_underflow, in.data(), out.data());
      },
      KernelBug::out_of_range, {"thread (0, 0, 0) reads 4 bytes", "4 bytes before the start of dynamic shared memory"});
}

TEST(CheckedMode, AnAtomicCounterNeverZeroedIsUninitialised) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"counter_never_zeroed", {1, 1, 1}, {64, 1, 1}, 0}, &bk::counter_never_zeroed, in.data(),
                   out.data());
      },
      KernelBug::uninitialized, {"reads count[0]", "no thread of the block has written"});
}

TEST(CheckedMode, AHaloNeverLoadedIsAnUninitialisedRead) {
  constexpr int n = 256;
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(n, 1.f)), out(dev, n);
  expect_bug(
      [&] {
        tk::launch(dev, {"moving_average_without_halo", {n / 64, 1, 1}, {64, 1, 1}, 0},
                   &bk::moving_average_without_halo<2>, n, in.data(), out.data());
      },
      KernelBug::uninitialized,
      {"thread (0, 0, 0) reads tile[0]", "float [64 + 2 * R] tile", "no thread of the block has written"});
}

}  // namespace
}  // namespace tk
