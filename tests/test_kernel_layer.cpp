// The kernel layer itself (tilekit/kernel.hpp) on every target: thread and block indices for any shape,
// dynamic shared memory and barriers, Privates across barriers, static shared tiles, TK_SKIP, warp size,
// and the launch checks.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>

#include "kernels/layer_launchers.hpp"
#include "support.hpp"

namespace tk::test {
namespace {

#if defined(TK_HAVE_CUDA)
#define TK_TEST_IF_CUDA(...) __VA_ARGS__
#else
#define TK_TEST_IF_CUDA(...)
#endif
#if defined(TK_HAVE_HIP)
#define TK_TEST_IF_HIP(...) __VA_ARGS__
#else
#define TK_TEST_IF_HIP(...)
#endif

// Calls test_launchers::<backend of dev>::fn(dev, args...).
#define TK_TEST_LAUNCH(dev, fn, ...)                                                                  \
  do {                                                                                                \
    switch ((dev).backend()) {                                                                        \
      case Backend::cuda: TK_TEST_IF_CUDA(test_launchers::cuda::fn(dev, __VA_ARGS__); break;) FAIL(); \
      case Backend::hip: TK_TEST_IF_HIP(test_launchers::hip::fn(dev, __VA_ARGS__); break;) FAIL();    \
      default: test_launchers::cpu::fn(dev, __VA_ARGS__);                                             \
    }                                                                                                 \
  } while (0)

class KernelLayer : public ::testing::TestWithParam<Backend> {};

std::int64_t expected_where(std::int64_t block, const Dim3& bd, int x, int y, int z) {
  const std::int64_t id = (std::int64_t{z} * bd.y + y) * bd.x + x;
  return ((((block * 16 + z) * 16 + y) * 16 + x) << 20) + id;
}

TEST_P(KernelLayer, EveryThreadOfEveryBlockRunsOnceWithItsIndices) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  for (const auto& [grid, block] :
       {std::pair{Dim3{3, 2, 2}, Dim3{7, 5, 3}}, std::pair{Dim3{1, 1, 1}, Dim3{1, 1, 1}},
        std::pair{Dim3{5, 1, 1}, Dim3{256, 1, 1}}, std::pair{Dim3{2, 3, 1}, Dim3{4, 4, 4}}}) {
    const std::int64_t threads = std::int64_t{block.x} * block.y * block.z;
    const std::int64_t total = threads * grid.x * grid.y * grid.z;
    Buffer<std::int64_t> out(dev, std::vector<std::int64_t>(total, -1));
    TK_TEST_LAUNCH(dev, where_am_i, grid, block, out.data());
    const auto got = out.to_host();
    std::int64_t bad = 0;
    for (std::int64_t b = 0; b < std::int64_t{grid.x} * grid.y * grid.z; ++b) {
      for (int z = 0; z < block.z; ++z) {
        for (int y = 0; y < block.y; ++y) {
          for (int x = 0; x < block.x; ++x) {
            const std::int64_t id = (std::int64_t{z} * block.y + y) * block.x + x;
            bad += got[b * threads + id] != expected_where(b, block, x, y, z);
          }
        }
      }
    }
    EXPECT_EQ(bad, 0) << "grid " << grid.x << "x" << grid.y << "x" << grid.z << ", block " << block.x << "x" << block.y
                      << "x" << block.z;
  }
}

TEST_P(KernelLayer, DynamicSharedMemoryAndBarrierReverseEachSegment) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  for (int block : {1, 32, 100, 1024}) {
    const std::int64_t n = 5 * block + block / 3 + 1;  // a partial last block
    std::mt19937_64 rng(fresh_seed());
    const auto x = random_floats(n, rng);
    Buffer<float> in(dev, x), out(dev, nans(n));
    TK_TEST_LAUNCH(dev, reverse_segments, block, n, in.data(), out.data());
    const auto got = out.to_host();
    std::vector<double> ref(n);
    for (std::int64_t base = 0; base < n; base += block) {
      const std::int64_t len = std::min<std::int64_t>(block, n - base);
      for (std::int64_t i = 0; i < len; ++i) ref[base + i] = x[base + len - 1 - i];
    }
    EXPECT_TRUE(all_close(got, ref, 0, 0)) << "block " << block;
  }
}

TEST_P(KernelLayer, PrivatesSurviveBarriersAndTheTreeReductionSums) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const std::int64_t n = 100003, per_block = 128 * 3, blocks = (n + per_block - 1) / per_block;
  std::mt19937_64 rng(fresh_seed());
  const auto x = random_floats(n, rng);
  Buffer<float> in(dev, x);
  Buffer<double> sums(dev, std::vector<double>(blocks, std::nan("")));
  TK_TEST_LAUNCH(dev, block_sums, n, in.data(), sums.data());
  const auto got = sums.to_host();
  for (std::int64_t b = 0; b < blocks; ++b) {
    double ref = 0;
    for (std::int64_t i = b * per_block; i < std::min(n, (b + 1) * per_block); ++i) ref += x[i];
    EXPECT_NEAR(got[b], ref, 1e-9 * per_block) << "block " << b;
  }
}

TEST_P(KernelLayer, AsyncCopiesThroughAStagedRingArriveWholeAndZeroFilled) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  for (int bytes : {4, 8, 16}) {
    const int w = bytes / 4, seg = 64 * w, blocks = 3, rounds = 5;
    const std::int64_t total = std::int64_t{blocks} * rounds * seg;
    for (std::int64_t n : {total, total - 1, total - seg - 3, std::int64_t{5}}) {  // full, ragged tails
      std::mt19937_64 rng(fresh_seed());
      const auto x = random_floats(n, rng);
      Buffer<float> in(dev, x), out(dev, nans(total));
      TK_TEST_LAUNCH(dev, staged_copy, bytes, blocks, rounds, n, in.data(), out.data());
      const auto got = out.to_host();
      std::int64_t bad = 0;
      for (std::int64_t i = 0; i < total; ++i) {
        const std::int64_t s0 = i / seg * seg, t = (i - s0) / w, e = (i - s0) % w;
        const std::int64_t src = s0 + (63 - t) * w + e;  // the chunk thread 63 - t copied
        const float want = src < n ? x[src] : 0.f;
        bad += !(got[i] == want);  // NaN (never written) counts as bad
      }
      EXPECT_EQ(bad, 0) << bytes << "-byte copies, n = " << n;
    }
  }
}

// tk::AsyncBarrier between two roles of tk::split_roles: every round arrives whole, from the other role's threads,
// through a ring that wraps several times (both barriers' phases flip); on a CPU, the phase order that lets every
// wait find its phase complete.
TEST_P(KernelLayer, AsyncBarriersPassRoundsBetweenTwoRoles) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  if (dev.backend() == Backend::hip && dev.props().arch == "hip-cpu")
    GTEST_SKIP() << "HIP-CPU runs a block's threads as fibers that switch at __syncthreads only: a spinning wait "
                    "would never let the arrivals it waits for run";
  for (int stages : {2, 3}) {
    const int blocks = 3, rounds = 11;
    const std::int64_t total = std::int64_t{blocks} * rounds * 128;
    std::mt19937_64 rng(fresh_seed());
    const auto x = random_floats(total, rng);
    Buffer<float> in(dev, x), out(dev, nans(total));
    TK_TEST_LAUNCH(dev, barrier_relay, stages, blocks, rounds, in.data(), out.data());
    const auto got = out.to_host();
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < total; ++i) {
      const std::int64_t r0 = i / 128 * 128, c = i - r0;
      bad += !(got[i] == x[r0 + 127 - c]);  // NaN (never written) counts as bad
    }
    EXPECT_EQ(bad, 0) << stages << " stages";
  }
}

// Where byte `pos` of a box copied to a 1024-byte boundary lies: the 128-byte swizzle moves 16-byte chunk c of the
// 128 bytes at offset 128 j to chunk c XOR (j % 8).
std::int64_t swizzled(std::int64_t pos, bool swizzle) { return swizzle ? pos ^ (((pos >> 7) & 7) << 4) : pos; }

// tk::copy_tensor_async of one box: every value where the layout puts it (the swizzle's chunks included), zeros past
// each of the three dimensions' ends and before their starts, 2- and 4-byte values; the copy's landing passes the
// barrier that expects its bytes. On the GPU: the tensor memory accelerator against the layer's layout.
TEST_P(KernelLayer, TensorCopiesPutTheBoxWhereTheLayoutSaysWithZerosOutside) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  if (dev.backend() == Backend::cuda && std::atoi(dev.props().arch.c_str() + 3) < 90)  // "sm_90", "sm_100"
    GTEST_SKIP() << "tensor copies need sm_90 (" << dev.props().arch << ")";
  struct Case {
    int eb;
    std::int64_t d0, d1, d2, ld, plane;  // ld and plane in values
    int b0, b1;
    bool swizzle;
    int c0, c1, c2;
  };
  const Case cases[] = {
      {2, 100, 70, 3, 104, 104 * 72, 64, 64, true, 64, 32, 1},  // past d0 and d1
      {2, 100, 70, 3, 104, 104 * 72, 64, 64, true, 0, 0, 0},
      {2, 100, 70, 3, 104, 104 * 72, 64, 8, false, -8, -2, 2},  // before the start
      {2, 100, 70, 3, 104, 104 * 72, 16, 8, false, 96, 66, 1},
      {2, 100, 70, 3, 104, 104 * 72, 64, 16, true, 0, 0, 3},  // a plane past d2: zeros
      {4, 37, 20, 1, 40, 40 * 20, 32, 16, true, 16, 10, 0},
      {4, 37, 20, 1, 40, 40 * 20, 8, 4, false, 32, 18, 0},  // (c0 on 16 bytes: 32, not 33)
  };
  std::mt19937_64 rng(fresh_seed());
  for (const Case& c : cases) {
    const std::int64_t n = c.plane * c.d2 * c.eb;
    std::vector<unsigned char> host(n);
    for (auto& b : host) b = static_cast<unsigned char>(1 + rng() % 255);  // never 0: a zero is a fill
    Buffer<unsigned char> src(dev, host);
    const int bytes = c.b0 * c.b1 * c.eb;
    Buffer<unsigned char> out(dev, std::vector<unsigned char>(bytes, 0xee));
    tk::TensorBox box;
    box.base = src.data();
    box.elem_bytes = c.eb;
    box.dims[0] = c.d0;
    box.dims[1] = c.d1;
    box.dims[2] = c.d2;
    box.strides[0] = c.ld * c.eb;
    box.strides[1] = c.plane * c.eb;
    box.box[0] = c.b0;
    box.box[1] = c.b1;
    box.swizzle = c.swizzle;
    TK_TEST_LAUNCH(dev, tensor_copy, box, c.c0, c.c1, c.c2, static_cast<unsigned>(bytes), bytes, out.data());
    const auto got = out.to_host();
    std::int64_t bad = 0;
    for (int l = 0; l < c.b1; ++l) {
      for (int e = 0; e < c.b0; ++e) {
        const std::int64_t i0 = c.c0 + e, i1 = c.c1 + l, i2 = c.c2;
        const bool in = i0 >= 0 && i0 < c.d0 && i1 >= 0 && i1 < c.d1 && i2 >= 0 && i2 < c.d2;
        const std::int64_t at = swizzled((std::int64_t{l} * c.b0 + e) * c.eb, c.swizzle);
        for (int k = 0; k < c.eb; ++k) {
          const unsigned char want = in ? host[((i2 * c.plane) + i1 * c.ld + i0) * c.eb + k] : 0;
          bad += got[at + k] != want;
        }
      }
    }
    EXPECT_EQ(bad, 0) << c.eb << "-byte values, box " << c.b0 << " x " << c.b1 << (c.swizzle ? " swizzled" : "")
                      << " at (" << c.c0 << ", " << c.c1 << ", " << c.c2 << ")";
  }
}

// tk::tensor_map refuses a box the tensor copies cannot take, naming the field; on a CPU a box that does not start on
// 16 bytes along its lines, and a copy that brings more bytes than its barrier still expects, fail naming the kernel,
// and so does a wait on a phase whose bytes never came (where a GPU would stop or pass the barrier early or never).
TEST_P(KernelLayer, TensorMapsRefuseBadBoxesAndACpuCatchesAWrongByteCount) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<unsigned char> src(dev, std::vector<unsigned char>(4096, 1));
  Buffer<unsigned char> out(dev, std::vector<unsigned char>(1024, 0));
  const auto good = [&] {
    tk::TensorBox b;
    b.base = src.data();
    b.elem_bytes = 2;
    b.dims[0] = 64;
    b.dims[1] = 32;
    b.strides[0] = 128;
    b.strides[1] = 4096;
    b.box[0] = 64;
    b.box[1] = 8;
    b.swizzle = true;
    return b;
  };
  const auto refused = [&](tk::TensorBox b, const char* field) {
    try {
      TK_TEST_LAUNCH(dev, tensor_copy, b, 0, 0, 0, 1024u, 1024, out.data());
      ADD_FAILURE() << "a box with a bad " << field << " was taken";
    } catch (const tk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("tk::tensor_map: ") + field), std::string::npos) << e.what();
    }
  };
  auto b = good();
  b.base = src.data() + 8;
  refused(b, "base");
  b = good();
  b.strides[0] = 136;
  refused(b, "strides[0]");
  b = good();
  b.box[0] = 128;  // 256 bytes: past the swizzle's 128
  refused(b, "box[0]");
  b = good();
  b.elem_bytes = 3;
  refused(b, "elem_bytes");
  b = good();
  b.box[1] = 257;
  refused(b, "box[1]");
  if (dev.backend() != Backend::cpu) return;
  try {  // a box starting 8 values (16 bytes) into its lines is fine, 4 values (8 bytes) is not
    test_launchers::cpu::tensor_copy(dev, good(), 8, 0, 0, 1024u, 1024, out.data());
    test_launchers::cpu::tensor_copy(dev, good(), 4, 0, 0, 1024u, 1024, out.data());
    ADD_FAILURE() << "a box starting 8 bytes into its lines was copied";
  } catch (const tk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tk::copy_tensor_async in kernel tensor_copy: c0 = 4"), std::string::npos)
        << e.what();
  }
  try {
    test_launchers::cpu::tensor_copy(dev, good(), 0, 0, 0, 1022u, 1024, out.data());
    ADD_FAILURE() << "a copy of 1024 bytes into a phase expecting 1022 passed";
  } catch (const tk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tk::copy_tensor_async in kernel tensor_copy"), std::string::npos) << e.what();
  }
  try {
    test_launchers::cpu::tensor_copy(dev, good(), 0, 0, 0, 2048u, 1024, out.data());
    ADD_FAILURE() << "a wait on a phase expecting 2048 bytes passed after 1024";
  } catch (const tk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tk::barrier_wait in kernel tensor_copy"), std::string::npos) << e.what();
  }
}

// TK_THREADS_IN_ROWS runs the threads of the first `rows` rows of every z slice; a CPU skips the rest (its
// loop over y stops), a GPU may run them.
TEST_P(KernelLayer, ThreadsInRowsRunTheFirstRows) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const Dim3 block{16, 6, 2};
  const int threads = block.x * block.y * block.z;
  for (int rows : {0, 1, 4, 6, 9}) {
    Buffer<int> out(dev, std::vector<int>(threads, -1));
    TK_TEST_LAUNCH(dev, rows_phase, block, rows, out.data());
    const auto got = out.to_host();
    for (int z = 0; z < block.z; ++z) {
      for (int y = 0; y < block.y; ++y) {
        for (int x = 0; x < block.x; ++x) {
          const int v = got[(z * block.y + y) * block.x + x];
          if (y < rows) {
            EXPECT_EQ(v, y) << "rows " << rows << ", thread (" << x << ", " << y << ", " << z << ")";
          } else if (dev.backend() == Backend::cpu) {
            EXPECT_EQ(v, -1) << "rows " << rows << ": a CPU ran thread (" << x << ", " << y << ", " << z << ")";
          } else {
            EXPECT_TRUE(v == -1 || v == y) << "rows " << rows << ", thread (" << x << ", " << y << ", " << z << ")";
          }
        }
      }
    }
  }
}

TEST_P(KernelLayer, WarpSizeIsTheTargets) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<int> out(dev, std::vector<int>{-1});
  TK_TEST_LAUNCH(dev, report_warp_size, out.data());
  const int w = out.to_host()[0];
  if (dev.backend() == Backend::cpu) {
    EXPECT_TRUE(w == 4 || w == 8 || w == 16) << w;
  } else {
    EXPECT_EQ(w, dev.props().warp_size);
  }
}

// The definitions of the CPU's BF16 instructions (tilekit/mma.hpp): a float's bits; the bf16 half of a word at
// `shift` as a float, a subnormal read as zero; a float's subnormal flushed to zero.
std::uint32_t word_of(float f) {
  std::uint32_t w;
  std::memcpy(&w, &f, sizeof w);
  return w;
}
float bf16_half_value(std::uint32_t w, int shift) {
  std::uint32_t x = ((w >> shift) & 0xffffu) << 16;
  if ((x & 0x7f800000u) == 0) x &= 0x80000000u;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
float flush_subnormal(float f) {
  std::uint32_t x = word_of(f);
  if ((x & 0x7f800000u) == 0) x &= 0x80000000u;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

// tk::mma::pair_dot against its definition (tilekit/mma.hpp): the high halves' product added first, then the
// low halves', each step a fused multiply-add rounded to nearest even, subnormal inputs (the accumulator's too) read
// as zero, subnormal results flushed. Where the CPU copy runs AVX512_BF16's instruction this checks the instruction
// against that definition (computed here on the host), bit for bit, which the other targets compute lane by lane.
TEST_P(KernelLayer, PairDotIsTheInstructionsArithmetic) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  constexpr int n = 100;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  // a bf16 half: mostly random values, some subnormals, zeros and large ones
  const auto half = [&](int i) -> std::uint16_t {
    switch (i % 11) {
      case 3: return static_cast<std::uint16_t>(0x0040u + (rng() & 0x3fu) + ((rng() & 1u) << 15));  // subnormal
      case 7: return static_cast<std::uint16_t>(word_of(u(rng) * 1e30f) >> 16);
      default: return tk::bf16(u(rng)).bits;
    }
  };
  std::vector<std::uint32_t> a(n), b(16 * n);
  std::vector<float> c(16 * n);
  for (int i = 0; i < n; ++i) a[i] = half(i) | std::uint32_t{half(i + 5)} << 16;
  for (int i = 0; i < 16 * n; ++i) b[i] = half(i + 1) | std::uint32_t{half(i + 2)} << 16;
  for (int i = 0; i < 16 * n; ++i) c[i] = i % 13 == 0 ? 0.f : u(rng) * (i % 5 == 0 ? 1e-36f : 1.f);
  // thread 0's lanes at the edges of float's range (its A pair: high 2^64, low 2^-70): a product that overflows
  // alone (one rounding per step: -1.5 2^127 + 2^128 = 2^126, where a rounded product is infinite); a subnormal
  // result flushed to zero (1.5 2^-126 - 2^-126); a subnormal accumulator read as zero (2^-127 + 2^-126 is 2^-126);
  // a sum past the largest float
  const auto word = [&](float hi, float lo) { return (word_of(hi) >> 16) << 16 | word_of(lo) >> 16; };
  a[0] = word(0x1p64f, 0x1p-70f);
  b[0] = word(0x1p64f, 0.f), c[0] = -0x1.8p127f;
  b[1] = word(0.f, -0x1p-56f), c[1] = 0x1.8p-126f;
  b[2] = word(0.f, 0x1p-56f), c[2] = 0x1p-127f;
  b[3] = word(0x1p64f, 0.f), c[3] = 0x1.fffffep127f;
  Buffer<std::uint32_t> da(dev, a), db(dev, b);
  Buffer<float> dc(dev, c);
  if (dev.backend() == Backend::cpu) {
    if (!test_launchers::cpu::pair_dot_lanes(dev, n, da.data(), db.data(), dc.data()))
      GTEST_SKIP() << "this CPU copy of the kernels has AVX512_BF16's instruction and the CPU lacks it";
  } else {
    TK_TEST_LAUNCH(dev, pair_dot_lanes, n, da.data(), db.data(), dc.data());
  }
  const std::vector<float> got = dc.to_host();
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    for (int l = 0; l < 16; ++l) {
      const int e = 16 * t + l;
      const float step =
          flush_subnormal(std::fma(bf16_half_value(a[t], 16), bf16_half_value(b[e], 16), flush_subnormal(c[e])));
      const float want = flush_subnormal(std::fma(bf16_half_value(a[t], 0), bf16_half_value(b[e], 0), step));
      if (word_of(got[e]) != word_of(want) && !(std::isnan(got[e]) && std::isnan(want)) && bad++ < 5)
        ADD_FAILURE() << "lane " << e << ": " << got[e] << " (0x" << std::hex << word_of(got[e]) << "), expected "
                      << want << " (0x" << word_of(want) << std::dec << ")";
    }
  }
}

// tk::mma::tile_dot_32x32 against its definition (tilekit/mma.hpp), with both strides padded, three steps, and C
// accumulated and not: per element and per pair the low halves' product added, then the high halves', each a fused
// multiply-add, subnormal inputs and results taken as zero. Every target but the instruction computes exactly that
// (checked bit for bit); AMX's instruction (where this CPU copy has it and the process may use it) is checked
// against the same definition within the rounding a separate rounding of each product may add.
TEST_P(KernelLayer, TileDotIsTheInstructionsArithmetic) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  constexpr int steps = 3, pairs = 16 * steps, lda = pairs + 5, ldb = 37, ldc = 40;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  const auto half = [&](int i) -> std::uint16_t {  // mostly random values, some subnormals and zeros
    switch (i % 13) {
      case 4: return static_cast<std::uint16_t>(0x0040u + (rng() & 0x3fu) + ((rng() & 1u) << 15));
      case 9: return 0;
      default: return tk::bf16(u(rng)).bits;
    }
  };
  std::vector<std::uint32_t> a(32 * lda), b(pairs * ldb);
  std::vector<float> c0(32 * ldc);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = half(int(i)) | std::uint32_t{half(int(i) + 3)} << 16;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = half(int(i) + 1) | std::uint32_t{half(int(i) + 6)} << 16;
  for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = i % 7 == 0 ? 0x1p-127f : u(rng) * 8.f;  // some subnormal
  bool instruction = false;  // AMX's instruction ran (a CPU copy that has it, on a CPU that lets the process use it)
  Buffer<std::uint32_t> da(dev, a), db(dev, b);
  for (bool accumulate : {true, false}) {
    Buffer<float> dc(dev, c0);
    if (dev.backend() == Backend::cpu) {
      const int ran =
          test_launchers::cpu::tile_dot_once(dev, dc.data(), ldc, da.data(), lda, db.data(), ldb, steps, accumulate);
      if (ran < 0) GTEST_SKIP() << "this CPU copy of the kernels has AMX's instruction and the process may not use it";
      instruction = ran == 1;
    } else {
      TK_TEST_LAUNCH(dev, tile_dot_once, dc.data(), ldc, da.data(), lda, db.data(), ldb, steps, accumulate);
    }
    const std::vector<float> got = dc.to_host();
    int bad = 0;
    for (int i = 0; i < 32; ++i) {
      for (int j = 0; j < ldc; ++j) {
        const float g = got[i * ldc + j];
        if (j >= 32) {  // past the tile: untouched
          EXPECT_EQ(word_of(g), word_of(c0[i * ldc + j])) << "row " << i << ", column " << j;
          continue;
        }
        float want = accumulate ? flush_subnormal(c0[i * ldc + j]) : 0.f;
        double exact = want, mass = std::abs(want);
        for (int p = 0; p < pairs; ++p) {
          const std::uint32_t x = a[i * lda + p], y = b[p * ldb + j];
          want = flush_subnormal(std::fma(bf16_half_value(x, 0), bf16_half_value(y, 0), want));
          want = flush_subnormal(std::fma(bf16_half_value(x, 16), bf16_half_value(y, 16), want));
          const double lo = double(bf16_half_value(x, 0)) * bf16_half_value(y, 0),
                       hi = double(bf16_half_value(x, 16)) * bf16_half_value(y, 16);
          exact += lo + hi, mass += std::abs(lo) + std::abs(hi);
        }
        // the instruction: within float's accumulation bound of the exact sum (97 roundings of at most 2^-24 of
        // the sum of magnitudes, and as many flushes of subnormals)
        const double bound = (2 * pairs + 1) * (mass * 0x1p-24 + 0x1p-126);
        const bool ok = instruction ? std::abs(double(g) - exact) <= bound : word_of(g) == word_of(want);
        if (!ok && bad++ < 5)
          ADD_FAILURE() << (accumulate ? "C + A B" : "A B") << ", row " << i << ", column " << j << ": " << g << " (0x"
                        << std::hex << word_of(g) << "), expected " << want << " (0x" << word_of(want) << std::dec
                        << ")";
      }
    }
  }
}

TEST_P(KernelLayer, LaunchChecksShapeAndDevice) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<std::int64_t> out(dev, 4096);
  TK_EXPECT_ERROR(TK_TEST_LAUNCH(dev, raw_launch, Dim3{-1, 1, 1}, Dim3{32, 1, 1}, 0, out.data()), "tk::launch",
                  "raw_launch", "'grid'", "-1");
  EXPECT_NO_THROW(TK_TEST_LAUNCH(dev, raw_launch, Dim3{0, 1, 1}, Dim3{32, 1, 1}, 0, out.data()));  // empty grid
  if (dev.backend() == Backend::cpu) {
    // Any logical block size runs on the CPU.
    Buffer<std::int64_t> big(dev, 4096);
    EXPECT_NO_THROW(TK_TEST_LAUNCH(dev, raw_launch, Dim3{1, 1, 1}, Dim3{4096, 1, 1}, 0, big.data()));
    EXPECT_EQ(big.to_host()[4095], expected_where(0, Dim3{4096, 1, 1}, 4095, 0, 0));
    // A kernel compiled for the CPU refuses another device.
    for (Backend b : {Backend::cuda, Backend::hip})
      if (device_count(b) > 0)
        TK_EXPECT_ERROR(test_launchers::cpu::raw_launch(b == Backend::cuda ? Device::cuda(0) : Device::hip(0),
                                                        Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, out.data()),
                        "tk::launch", "compiled for the CPU");
  } else {
    TK_EXPECT_ERROR(TK_TEST_LAUNCH(dev, raw_launch, Dim3{1, 1, 1}, Dim3{4096, 1, 1}, 0, out.data()), "tk::launch",
                    "'block'", "4096");
    TK_EXPECT_ERROR(TK_TEST_LAUNCH(dev, raw_launch, Dim3{1, 1, 1}, Dim3{32, 1, 1}, std::size_t{1} << 30, out.data()),
                    "tk::launch", "'dynamic_shared'");
    TK_EXPECT_ERROR(test_launchers::cpu::raw_launch(dev, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, out.data()), "tk::launch",
                    "compiled for the CPU");
  }
}

INSTANTIATE_TEST_SUITE_P(All, KernelLayer, ::testing::ValuesIn(kernel_backends()), backend_name);

}  // namespace
}  // namespace tk::test
