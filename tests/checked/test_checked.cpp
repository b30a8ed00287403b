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

// The shared-memory bugs, with the catalogue's arrays declared each way: TK_SHARED_ARRAY (the arena, where
// checked mode knows each array's extents) and TK_SHARED (a static found by its symbol: name and byte).
class CheckedShared : public ::testing::TestWithParam<bool> {
 protected:
  bool cuda_way() const { return GetParam(); }
  // the kernel of the catalogue in this test's form
  template <class F>
  F pick(F with_macro, F the_cuda_way) const {
    return cuda_way() ? the_cuda_way : with_macro;
  }
  // how a report names element `index` (an extent list) / byte `byte` of array `name`
  std::string element(const char* name, const char* index, int byte) const {
    return std::string(name) + (cuda_way() ? " byte " + std::to_string(byte) : std::string(index));
  }
};
INSTANTIATE_TEST_SUITE_P(Declared, CheckedShared, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "TK_SHARED" : "TK_SHARED_ARRAY";
                         });
namespace bkc = tk::kernels::broken_cuda_way;

TEST_P(CheckedShared, TheTiledMatmulWithItsBarriersIsClean) {
  Matrices m;
  tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0},
             pick(&bk::tiled_matmul<16, true, true>, &bkc::tiled_matmul<16, true, true>), m.n, m.A.data(), m.B.data(),
             m.C.data());
  EXPECT_LT(m.max_error(), 1e-4);
}

TEST_P(CheckedShared, BothBarriersRemovedIsARace) {  // Kirk & Hwu, exercise 5.3
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0},
                   pick(&bk::tiled_matmul<16, false, false>, &bkc::tiled_matmul<16, false, false>), m.n, m.A.data(),
                   m.B.data(), m.C.data());
      },
      KernelBug::race,
      {"tk::launch(tiled_matmul)", "block (0, 0, 0)", "thread (", "reads As",
       cuda_way()
           ? "TK_SHARED As, 1024 bytes, in tk::target_cpu::kernels::broken_cuda_way::tiled_matmul<16, false, false>("
           : "float [TILE][TILE]",
       "broken_kernels_catalogue.hpp:", "no TK_BARRIER() between them"});
}

TEST_P(CheckedShared, TheFirstBarrierRemovedIsAReadAfterWriteRace) {
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0},
                   pick(&bk::tiled_matmul<16, false, true>, &bkc::tiled_matmul<16, false, true>), m.n, m.A.data(),
                   m.B.data(), m.C.data());
      },
      KernelBug::race, {"reads As", "wrote in the phase at broken_kernels_catalogue.hpp:"});
}

TEST_P(CheckedShared, TheSecondBarrierRemovedIsAWriteAfterReadRace) {
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul", {4, 4, 1}, {16, 16, 1}, 0},
                   pick(&bk::tiled_matmul<16, true, false>, &bkc::tiled_matmul<16, true, false>), m.n, m.A.data(),
                   m.B.data(), m.C.data());
      },
      KernelBug::race, {"writes As", "read in the phase at broken_kernels_catalogue.hpp:"});
}

TEST_P(CheckedShared, AnAccumulatorInAPlainLocalIsThreadState) {
  // Which block is caught first depends on rounding: the shared accumulator's sum in the two thread orders
  // agrees to the last bit for about one block in 40, so the test names no block.
  Matrices m;
  expect_bug(
      [&] {
        tk::launch(m.dev, {"tiled_matmul_plain_local", {4, 4, 1}, {16, 16, 1}, 0},
                   pick(&bk::tiled_matmul_plain_local<16>, &bkc::tiled_matmul_plain_local<16>), m.n, m.A.data(),
                   m.B.data(), m.C.data());
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

TEST_P(CheckedShared, ABarrierInABranchIsDivergent) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"barrier_in_branch", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::barrier_in_branch, &bkc::barrier_in_branch), in.data(), out.data());
      },
      KernelBug::divergent_barrier,
      {"TK_BARRIER() at", "broken_kernels_catalogue.hpp:", "reached it 0 times", "1 times"});
}

TEST_P(CheckedShared, ABarrierInsideAPhaseIsReportedEvenWhenEveryThreadReachesIt) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"barrier_in_phase", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::barrier_in_phase, &bkc::barrier_in_phase), in.data(), out.data());
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

TEST_P(CheckedShared, AStaticSharedIndexPastItsExtentIsOutOfRange) {
  constexpr int n = 32;
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(n * n, 1.f)), out(dev, n * n);
  expect_bug(
      [&] {
        tk::launch(dev, {"stencil_tile_without_halo", {2, 2, 1}, {16, 16, 1}, 0},
                   pick(&bk::stencil_tile_without_halo<16>, &bkc::stencil_tile_without_halo<16>), n, in.data(),
                   out.data());
      },
      KernelBug::out_of_range,
      {"tk::launch(stencil_tile_without_halo)", "thread (15, 0, 0)", "index 16 into", "broken_kernels_catalogue.hpp:"});
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

TEST_P(CheckedShared, AnAtomicCounterNeverZeroedIsUninitialised) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"counter_never_zeroed", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::counter_never_zeroed, &bkc::counter_never_zeroed), in.data(), out.data());
      },
      KernelBug::uninitialized,
      {("reads " + element("count", "[0]", 0)).c_str(), "no thread of the block has written"});
}

TEST_P(CheckedShared, AHaloNeverLoadedIsAnUninitialisedRead) {
  constexpr int n = 256;
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(n, 1.f)), out(dev, n);
  expect_bug(
      [&] {
        tk::launch(dev, {"moving_average_without_halo", {n / 64, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::moving_average_without_halo<2>, &bkc::moving_average_without_halo<2>), n, in.data(),
                   out.data());
      },
      KernelBug::uninitialized,
      {("thread (0, 0, 0) reads " + element("tile", "[0]", 0)).c_str(),
       cuda_way() ? "TK_SHARED tile, 272 bytes" : "float [64 + 2 * R] tile", "no thread of the block has written"});
}

// Copies in flight: a three-stage ring read back by other threads. With the wait that its reads need it runs clean
// and right; waiting for one group too few, or starting a copy into a stage still in flight, is reported (the plain
// CPU target copies at the call: both give the right answer there).
TEST_P(CheckedShared, ACopyRingWithTheRightWaitIsClean) {
  constexpr int rounds = 7;
  const Device dev = Device::cpu();
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(64 * rounds, rng);
  Buffer<float> in(dev, x), out(dev, nans(64 * rounds));
  tk::launch(dev, {"copy_ring", {1, 1, 1}, {64, 1, 1}, 0}, pick(&bk::copy_ring<3, 1>, &bkc::copy_ring<3, 1>), rounds,
             in.data(), out.data());
  const auto got = out.to_host();
  for (int r = 0; r < rounds; ++r)
    for (int t = 0; t < 64; ++t) ASSERT_EQ(got[r * 64 + t], x[r * 64 + 63 - t]) << "round " << r << ", thread " << t;
}

TEST_P(CheckedShared, AWaitForOneGroupTooFewIsARace) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64 * 5, 1.f)), out(dev, 64 * 5);
  expect_bug(
      [&] {
        tk::launch(dev, {"copy_ring", {1, 1, 1}, {64, 1, 1}, 0}, pick(&bk::copy_ring<3, 2>, &bkc::copy_ring<3, 2>), 5,
                   in.data(), out.data());
      },
      KernelBug::race,
      {"tk::launch(copy_ring)", ("thread (0, 0, 0) reads " + element("ring", "[0][63]", 63 * 4)).c_str(),
       "a tk::copy_async of thread (63, 0, 0)", "has not filled yet", "no tk::copy_async_wait"});
}

TEST_P(CheckedShared, ACopyIntoAStageStillInFlightIsARace) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64 * 6, 1.f)), out(dev, 64 * 6);
  expect_bug(
      [&] {
        tk::launch(dev, {"copy_ring_overfilled", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::copy_ring_overfilled<3>, &bkc::copy_ring_overfilled<3>), 6, in.data(), out.data());
      },
      KernelBug::race,
      {("thread (0, 0, 0) starts a tk::copy_async into " + element("ring", "[0][0]", 0)).c_str(),
       "a tk::copy_async of thread (0, 0, 0)", "still fills"});
}

TEST_P(CheckedShared, ALandedCopyReadWithoutABarrierIsARace) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64 * 4, 1.f)), out(dev, 64 * 4);
  expect_bug(
      [&] {
        tk::launch(dev, {"copy_ring", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::copy_ring<3, 1, false>, &bkc::copy_ring<3, 1, false>), 4, in.data(), out.data());
      },
      KernelBug::race,
      {("thread (0, 0, 0) reads " + element("ring", "[0][63]", 63 * 4)).c_str(), "which thread (63, 0, 0) wrote",
       "with no TK_BARRIER() between them"});
}

TEST_P(CheckedShared, ACommitInsideAPhaseIsDivergent) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"copy_committed_in_a_phase", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::copy_committed_in_a_phase, &bkc::copy_committed_in_a_phase), in.data(), out.data());
      },
      KernelBug::divergent_barrier, {"tk::copy_async_commit inside the phase at", "by thread (0, 0, 0)"});
}

TEST_P(CheckedShared, AMisalignedCopyIsOutOfRange) {
  const Device dev = Device::cpu();
  Buffer<float> in(dev, std::vector<float>(4 * 64, 1.f)), out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"copy_misaligned", {1, 1, 1}, {64, 1, 1}, 0},
                   pick(&bk::copy_misaligned, &bkc::copy_misaligned), in.data(), out.data());
      },
      KernelBug::out_of_range,
      {"thread (0, 0, 0) starts a tk::copy_async<16>", "its destination 4 bytes and its source 0 bytes past"});
}

// A TK_SHARED array is one static in checked mode, so block 1 finds what block 0 wrote there; a GPU gives each
// block shared memory of its own, and checked mode treats the array as unwritten at the start of every block.
TK_KERNEL void reads_what_the_last_block_left(float* out) {
  TK_SHARED float tile[64];
  TK_THREADS(th) {
    if (tk::block_idx().x == 0) tile[th.x] = 1.f;
  }
  TK_BARRIER();
  TK_THREADS(th) { out[tk::block_idx().x * 64 + th.x] = tile[63 - th.x]; }
}

TEST(CheckedMode, EachBlockStartsWithItsTkSharedArraysUnwritten) {
  const Device dev = Device::cpu();
  Buffer<float> out(dev, 128);
  expect_bug(
      [&] {
        tk::launch(dev, {"reads_what_the_last_block_left", {2, 1, 1}, {64, 1, 1}, 0}, &reads_what_the_last_block_left,
                   out.data());
      },
      KernelBug::uninitialized, {"block (1, 0, 0)", "thread (0, 0, 0) reads tile byte 252", "since the block started"});
}

// Exercise 5.3 as the seeds write it (and as a newcomer ports it): `TK_SHARED float As[T][T];`, no barriers.
// The plain CPU target runs it clean, with the right answer; checked mode names the array, both phases and
// the missing barrier.
template <int T>
TK_KERNEL void exercise_5_3(int n, const float* M, const float* N, float* P) {
  TK_SHARED float Mds[T][T];
  TK_SHARED float Nds[T][T];
  tk::Private<float> pvalue(0.f);
  const int row0 = tk::block_idx().y * T, col0 = tk::block_idx().x * T;
  for (int ph = 0; ph < n / T; ++ph) {
    TK_THREADS(th) {  // line A: the loads
      Mds[th.y][th.x] = M[(row0 + th.y) * n + ph * T + th.x];
      Nds[th.y][th.x] = N[(ph * T + th.y) * n + col0 + th.x];
    }
    TK_THREADS(th) {  // line B: the products, with no TK_BARRIER() before them
      for (int k = 0; k < T; ++k) pvalue(th.id) += Mds[th.y][k] * Nds[k][th.x];
    }
  }
  TK_THREADS(th) { P[(row0 + th.y) * n + col0 + th.x] = pvalue(th.id); }
}
constexpr int exercise_line_a = __LINE__ - 10, exercise_line_b = __LINE__ - 6;

TEST(CheckedMode, ExerciseFiveThreeWrittenTheCudaWayIsARace) {
  Matrices m;
  const std::string at = "test_checked.cpp:";
  expect_bug(
      [&] {
        tk::launch(m.dev, {"exercise_5_3", {4, 4, 1}, {16, 16, 1}, 0}, &exercise_5_3<16>, m.n, m.A.data(), m.B.data(),
                   m.C.data());
      },
      KernelBug::race,
      {"tk::launch(exercise_5_3)", "race on shared memory", "thread (0, 0, 0) reads Mds byte 4",
       "TK_SHARED Mds, 1024 bytes, in tk::(anonymous namespace)::exercise_5_3<16>(",
       ("in the phase at " + at + std::to_string(exercise_line_b)).c_str(), "which thread (1, 0, 0) wrote",
       ("in the phase at " + at + std::to_string(exercise_line_a)).c_str(), "with no TK_BARRIER() between them"});
}

// A function-local static with an initialiser (a table built once, or a constant table in .data) is not shared
// memory: a kernel that reads it runs clean. Only statics without an initialiser (in .bss) and without a guard
// variable, which is what TK_SHARED declares, are checked.
inline const std::vector<float>& weights() {
  static const std::vector<float> w(64, 0.5f);
  return w;
}
inline float tap(int i) {
  static float taps[4] = {0.25f, 0.5f, 0.75f, 1.f};  // writable, initialised: .data
  return taps[i & 3];
}
TK_KERNEL void reads_an_initialised_static(float* out) {
  TK_THREADS(th) { out[th.x] = tap(th.x); }
}
TK_KERNEL void reads_a_static_through_a_helper(float* out) {
  TK_THREADS(th) { out[th.x] = weights()[static_cast<std::size_t>(th.x)]; }
}

TEST(CheckedMode, AStaticWithAnInitialiserIsNotSharedMemory) {
  const Device dev = Device::cpu();
  Buffer<float> out(dev, 64);
  (void)weights();
  tk::launch(dev, {"reads_a_static_through_a_helper", {2, 1, 1}, {64, 1, 1}, 0}, &reads_a_static_through_a_helper,
             out.data());
  EXPECT_EQ(out.to_host()[63], 0.5f);
  tk::launch(dev, {"reads_an_initialised_static", {2, 1, 1}, {64, 1, 1}, 0}, &reads_an_initialised_static, out.data());
  EXPECT_EQ(out.to_host()[6], 0.75f);
}

// An access that starts inside a TK_SHARED array and runs past its end (an 8-byte load of its last float).
// (One that lands wholly past it is not seen: there is no red zone after a static; -fsanitize=bounds still
// catches an index past a declared extent, AStaticSharedIndexPastItsExtentIsOutOfRange.)
using wide_load = double __attribute__((may_alias));
TK_KERNEL void reads_past_a_tk_shared_array(float* out) {
  TK_SHARED float tile[3];
  TK_THREADS(th) {
    if (th.x < 3) tile[th.x] = 1.f;
  }
  TK_BARRIER();
  TK_THREADS(th) {
    if (th.x == 0) out[0] = static_cast<float>(*reinterpret_cast<const wide_load*>(&tile[2]));  // BUG: 4 bytes past
  }
}

TEST(CheckedMode, ALoadRunningPastATkSharedArrayIsOutOfRange) {
  const Device dev = Device::cpu();
  Buffer<float> out(dev, 64);
  expect_bug(
      [&] {
        tk::launch(dev, {"reads_past_a_tk_shared_array", {1, 1, 1}, {64, 1, 1}, 0}, &reads_past_a_tk_shared_array,
                   out.data());
      },
      KernelBug::out_of_range,
      {"thread (0, 0, 0) reads 8 bytes", "at tile byte 8 (TK_SHARED tile, 12 bytes", "past its end"});
}

}  // namespace
}  // namespace tk
