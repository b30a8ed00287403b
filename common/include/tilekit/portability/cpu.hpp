// tilekit/portability/cpu.hpp — the kernel layer on a CPU (g++/clang++ with OpenMP).
//
// A kernel is an ordinary inline function that the executor (tilekit/cpu/executor.hpp) calls once per
// block, blocks spread over OpenMP threads. A phase is a loop nest over the block's threads: for z, for y,
// `omp simd` for x, so a block's threads are the lanes of the vector unit, and a phase that ends is a
// barrier that every thread has reached. Shared tiles are block-local arrays (cache-resident), a
// tk::Private is an array with one element per thread of the block. At -O0 all of it is a plain loop nest
// that gdb, ASan and UBSan see through.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

// TK_CPU_AS_CUDA / TK_CPU_AS_HIP: the CPU executor runs the launch shapes and template instantiations that
// the CUDA (warp 32) or HIP (wave 64) launchers ship, so that the tests check them on a CPU-only machine
// (tests/CMakeLists.txt, tk_gpu_shapes). Launchers see this_target and warp_size of that GPU target.
#if defined(TK_CPU_AS_CUDA)
#define TK_TARGET_NS target_cpu_as_cuda
#define TK_TARGET_NAME "cpu (CUDA shapes)"
#define TK_TARGET_ID cpu_as_cuda
#elif defined(TK_CPU_AS_HIP)
#define TK_TARGET_NS target_cpu_as_hip
#define TK_TARGET_NAME "cpu (HIP shapes)"
#define TK_TARGET_ID cpu_as_hip
#else
#define TK_TARGET_NS target_cpu
#define TK_TARGET_NAME "cpu"
// Launchers compiled for this target live in namespace tk::launchers::TK_TARGET_ID: `cpu`, or in a build with
// runtime dispatch one namespace per instruction-set copy (cpu_v2, cpu_v3, cpu_v4; cmake/TkKernelSources.cmake).
#if defined(TK_CPU_ISA_ID)
#define TK_TARGET_ID TK_CPU_ISA_ID
#else
#define TK_TARGET_ID cpu
#endif
#endif

#if (defined(__AVX__) || defined(__SSE2__)) && !defined(TK_CHECKED)
#include <immintrin.h>
#endif

#include "tilekit/cpu/executor.hpp"
#include "tilekit/kernel_info.hpp"

#define TK_KERNEL inline
#define TK_DEVICE inline __attribute__((always_inline))  // so a phase that calls it still vectorises
#if defined(TK_CHECKED)
// A TK_SHARED array (`TK_SHARED float As[T][T];`, the CUDA way) becomes a function-local static: one block
// runs at a time in checked mode, and the runtime finds the array by its symbol and checks every access to it
// as it checks TK_SHARED_ARRAY ones (backends/cpu/checked_statics.cpp; the program must keep its symbol table).
#define TK_SHARED static __attribute__((aligned(64)))
// Checked mode (tilekit/cpu/checked.hpp): shared arrays live in the arena, where each access is checked.
#define TK_SHARED_ARRAY(T, name, dims) \
  T(&name) dims = ::tk::cpu::checked::shared_array_of<T dims>(#name, #T " " #dims, __FILE__, __LINE__)
#define TK_BARRIER() ::tk::cpu::checked::barrier(__FILE__, __LINE__)
#else
#define TK_SHARED alignas(64)
#define TK_SHARED_ARRAY(T, name, dims) alignas(64) T name dims
// The phases already run one after another: the end of a phase is the barrier.
#define TK_BARRIER() ((void)0)
#endif
#define TK_LAUNCH_BOUNDS(n)
#define TK_LAUNCH_BOUNDS_MIN(n, b)
#define TK_GRID_CONSTANT

// The loop over a block's x threads is marked free of loop-carried dependences (the threads of a phase are
// independent by the layer's rules), which lets the vectoriser widen it. Not `omp simd`: an OpenMP simd
// region may not be left by an exception (gcc and clang call std::terminate), and kernel code that throws
// inside a phase must reach the executor, which rethrows it to the caller once the grid has stopped.
// The same phases vectorise;
// docs/history/performance-log.md#the-cpu-phase-loop-gcc-ivdep-against-omp-simd-issue-10 compares the two on the CPU benchmark.
#if defined(__clang__)
#define TK_DETAIL_SIMD _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define TK_DETAIL_SIMD _Pragma("GCC ivdep")
#else
#define TK_DETAIL_SIMD
#endif

// clang-format off
#if defined(TK_CHECKED)
#define TK_THREADS(th)                                                                      \
  for (::tk::cpu::checked::PhaseLoop tk_phase_(__FILE__, __LINE__); tk_phase_.next();) \
    if (const ::tk::Thread th = tk_phase_.thread(); true)
#define TK_THREADS_IN_ROWS(th, rows)                                                        \
  for (::tk::cpu::checked::PhaseLoop tk_phase_(__FILE__, __LINE__); tk_phase_.next();) \
    if (const ::tk::Thread th = tk_phase_.thread(); th.y < (rows))
#define TK_THREAD_ZERO(th)                                                                  \
  for (::tk::cpu::checked::PhaseLoop tk_phase_(__FILE__, __LINE__); tk_phase_.next();) \
    if (const ::tk::Thread th = tk_phase_.thread(); th.id == 0)
#else
// The block's extents are copied into locals once per phase, so the compiler need not reload them
// from thread-local storage after every store the body makes.
#define TK_THREADS(th)                                                                                 \
  for (::tk::cpu::Phase tk_phase_ = ::tk::cpu::Phase::begin(); tk_phase_.once; tk_phase_.once = false) \
    for (int tk_z_ = 0; tk_z_ < tk_phase_.nz; ++tk_z_)                                               \
      for (int tk_y_ = 0; tk_y_ < tk_phase_.ny; ++tk_y_)                                             \
        TK_DETAIL_SIMD for (int tk_x_ = 0; tk_x_ < tk_phase_.nx; ++tk_x_)                            \
          if (const ::tk::Thread th{tk_x_, tk_y_, tk_z_,                                              \
                                    (tk_z_ * tk_phase_.ny + tk_y_) * tk_phase_.nx + tk_x_};            \
              true)
// The phase for the threads of the first `rows` rows (th.y < rows) only: the loop over y stops there, so
// the vectorised loop over x stays as TK_THREADS's (a TK_SKIP() on th.y inside it does not: the phase
// loses its vectors). A GPU runs every row (portability/gpu.hpp): the others' work must be harmless.
#define TK_THREADS_IN_ROWS(th, rows)                                                                   \
  for (::tk::cpu::Phase tk_phase_ = ::tk::cpu::Phase::begin(); tk_phase_.once; tk_phase_.once = false) \
    for (int tk_z_ = 0, tk_rows_ = (rows); tk_z_ < tk_phase_.nz; ++tk_z_)                             \
      for (int tk_y_ = 0; tk_y_ < tk_phase_.ny && tk_y_ < tk_rows_; ++tk_y_)                          \
        TK_DETAIL_SIMD for (int tk_x_ = 0; tk_x_ < tk_phase_.nx; ++tk_x_)                            \
          if (const ::tk::Thread th{tk_x_, tk_y_, tk_z_,                                              \
                                    (tk_z_ * tk_phase_.ny + tk_y_) * tk_phase_.nx + tk_x_};            \
              true)
// The phase of thread 0 alone: the body once, without a loop over the block's other threads.
#define TK_THREAD_ZERO(th)                               \
  for (bool tk_once_ = true; tk_once_; tk_once_ = false) \
    if ([[maybe_unused]] const ::tk::Thread th{0, 0, 0, 0}; true)
#endif
// clang-format on
#define TK_SKIP() continue
// Unroll the next loop completely (a compile-time trip count): a per-thread array stays in vector registers.
#if defined(__clang__)
#define TK_UNROLL _Pragma("unroll")
#define TK_NO_UNROLL _Pragma("nounroll")
#else
#define TK_UNROLL _Pragma("GCC unroll 64")
#define TK_NO_UNROLL _Pragma("GCC unroll 1")
#endif
// TK_NO_UNROLL: keep the next loop a loop (a GPU kernel's register budget; on a CPU it changes nothing that matters).

namespace tk {
inline namespace TK_TARGET_NS {
namespace kernels {}

#if defined(TK_CPU_AS_CUDA)
constexpr int warp_size = 32;
#elif defined(TK_CPU_AS_HIP)
constexpr int warp_size = 64;
// The float lanes of the widest vector unit this file is compiled for: the threads that really run
// in lock-step on a CPU core.
#elif defined(__AVX512F__)
constexpr int warp_size = 16;
#elif defined(__AVX__)
constexpr int warp_size = 8;
#else
constexpr int warp_size = 4;
#endif

// tk::load_vec / store_vec move elements one by one, which the phase's simd loop widens (tilekit/vec.hpp).
constexpr bool vec_by_element = true;

#if defined(TK_CPU_AS_CUDA)
constexpr Target this_target = Target::cuda;
#elif defined(TK_CPU_AS_HIP)
constexpr Target this_target = Target::hip;
#else
constexpr Target this_target = Target::cpu;
#endif

inline Dim3 block_idx() { return cpu::tls_block.block_idx; }
inline Dim3 block_dim() { return cpu::tls_block.block_dim; }
inline Dim3 grid_dim() { return cpu::tls_block.grid_dim; }

template <class T, int N = 1>
using Private = cpu::Private<T, N>;

// *p += v as one indivisible update, returning the old value: blocks run on different OS threads at once, so
// an element that several blocks update needs it. An OpenMP atomic (a compare-and-swap loop for float);
// a phase that calls it runs one thread at a time, since the update cannot be vectorised.
inline float atomic_add(float* p, float v) {
  float old;
#if defined(_OPENMP)
#pragma omp atomic capture
#endif
  {
    old = *p;
    *p += v;
  }
  return old;
}

// A hint that global memory at p will be read soon: on a CPU, fetch its cache line into L1 (prefetcht0)
// while other work runs. It never faults, whatever p is.
// The empty volatile asm is what keeps the prefetch: gcc (12 at least) takes a function whose only effect is
// a prefetch, such as a kernel's lambda that prefetches a run of lines, for one without any effect (C++'s
// forward progress lets it drop the loop as well) and deletes its calls: no CPU GEMM ever issued the prefetches
// its strip loads asked for (objdump found none; issued, they measured slower, and the loads no longer ask). The
// asm also keeps gcc from vectorising a phase that calls it: call it from thread 0's phase (TK_THREAD_ZERO).
// The staged 5-point stencil (kernels/stencil/stencil5_streamed.hpp) calls it, a few rows ahead of its reads;
// there prefetcht0 beat prefetcht1 (host D', 8192^2, a stand-alone loop of the same order: 17.1 against 17.5 ms
// with 1024-wide blocks, 18.4 against 20.4 with 2048-wide).
inline __attribute__((always_inline)) void prefetch(const void* p) {
  __builtin_prefetch(p, 0, 3);
  asm volatile("" : : "r"(p));
}

// Orders this thread's non-temporal stores (transpose_line_square<T, true>) before what follows: a kernel
// that streams calls it before its block ends.
inline void stream_fence() {
#if (defined(__AVX__) || defined(__SSE2__)) && !defined(TK_CHECKED)
  _mm_sfence();
#endif
}

// Copies a cache line's worth of T, 64 / sizeof(T) elements, from src to dst (any alignment): vector moves.
// A loop copying a whole row element by element becomes one memcpy, which gcc's generic tuning (the
// x86-64-v4 copy) expands as `rep movsq`. Element by element in checked mode, whose instrumentation does
// not see a memcpy.
template <class T>
inline void copy_line(T* dst, const T* src) {
#if defined(TK_CHECKED)
  for (int e = 0; e < 64 / static_cast<int>(sizeof(T)); ++e) dst[e] = src[e];
#elif defined(__AVX512F__)
  _mm512_storeu_si512(dst, _mm512_loadu_si512(src));
#elif defined(__AVX__)
  // (a 64-byte memcpy becomes four 16-byte moves under gcc's generic tuning)
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src) + 1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst) + 1, hi);
#else
  __builtin_memcpy(dst, src, 64);
#endif
}

#if defined(__AVX__) && !defined(TK_CHECKED)
namespace avx {
// The 8 x 8 floats at s (rows ld apart) transposed in registers: row j of the result in r[j].
// (transpose8x8_regs: the same on 8 rows already in r.)
inline void transpose8x8_regs(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);      // per 128-bit lane: r_i0 r_(i+1)0 r_i1 r_(i+1)1
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);  // r_i2 r_(i+1)2 r_i3 r_(i+1)3
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);  // column 0 (and 4) of rows i .. i + 3
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x20);
    r[j + 4] = _mm256_permute2f128_ps(u[j], u[j + 4], 0x31);
  }
}
inline void transpose8x8(const float* s, std::int64_t ld, __m256 (&r)[8]) {
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + i * ld);
  transpose8x8_regs(r);
}

#if defined(__AVX512F__)
// One stage of the 16 x 16 transpose: for each pair of rows i, i + D (bit D of i clear), element (i, j + D)
// swaps with (i + D, j) for every j with bit D clear, i.e. bit D of the row index with bit D of the column
// index; the four stages D = 8, 4, 2, 1 swap all four bits: the transpose. Two-source permutes
// (vpermt2ps; gcc 12's unpack and shuffle intrinsics warn of an uninitialised pass-through).
template <int D>
inline void transpose16_stage(__m512 (&r)[16]) {
  const auto at = [](int j, bool hi) { return (j & D) ? (hi ? 16 + j : 16 + j - D) : (hi ? j + D : j); };
  const __m512i lo =
      _mm512_setr_epi32(at(0, false), at(1, false), at(2, false), at(3, false), at(4, false), at(5, false),
                        at(6, false), at(7, false), at(8, false), at(9, false), at(10, false), at(11, false),
                        at(12, false), at(13, false), at(14, false), at(15, false));
  const __m512i hi = _mm512_setr_epi32(at(0, true), at(1, true), at(2, true), at(3, true), at(4, true), at(5, true),
                                       at(6, true), at(7, true), at(8, true), at(9, true), at(10, true), at(11, true),
                                       at(12, true), at(13, true), at(14, true), at(15, true));
  for (int i = 0; i < 16; ++i) {
    if (i & D) continue;
    const __m512 a = r[i], b = r[i + D];
    r[i] = _mm512_permutex2var_ps(a, lo, b);
    r[i + D] = _mm512_permutex2var_ps(a, hi, b);
  }
}

// The 16 x 16 floats at s (rows ld apart) transposed in registers: row j of the result in r[j].
inline void transpose16x16(const float* s, std::int64_t ld, __m512 (&r)[16]) {
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(s + i * ld);
  transpose16_stage<8>(r);
  transpose16_stage<4>(r);
  transpose16_stage<2>(r);
  transpose16_stage<1>(r);
}
#endif
}  // namespace avx
#endif

// Transposes the square of G x G elements at src, G = 64 / sizeof(T) (a cache line a row, rows src_ld
// elements apart) into dst (rows dst_ld apart): dst[j * dst_ld + i] = src[i * src_ld + j]. With AVX, in
// 8 x 8 (float) or 4 x 4 (double) blocks transposed in registers (unpack, shuffle, lane permute), about a
// third of an element-by-element copy's instructions; element by element otherwise and in checked mode.
// STREAM (float; SSE2 or AVX): dst's lines, when dst and dst_ld keep them 64-byte aligned, are written whole
// with non-temporal stores, past the caches: no read of a line about to be overwritten, no eviction of data
// still in use; the kernel calls tk::stream_fence() before its block ends. (With AVX-512 the square is one
// 16 x 16 transpose, a line per store; with AVX, two 8 x 8 blocks whose halves of a line are stored back to
// back, so that the write-combining buffers still see whole lines; with SSE2 alone, four 4 x 4 blocks per
// four lines.) Plain stores otherwise.
template <class T, bool STREAM = false>
inline void transpose_line_square(T* dst, std::int64_t dst_ld, const T* src, std::int64_t src_ld) {
  constexpr int G = 64 / static_cast<int>(sizeof(T));
#if defined(__AVX__) && !defined(TK_CHECKED)
  if constexpr (std::is_same_v<T, float>) {
    if (STREAM && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && dst_ld % G == 0) {
#if defined(__AVX512F__)
      __m512 r[16];
      avx::transpose16x16(src, src_ld, r);
      for (int j = 0; j < 16; ++j) _mm512_stream_ps(dst + j * dst_ld, r[j]);
#else
      for (int bj = 0; bj < G; bj += 8) {
        __m256 lo[8], hi[8];
        avx::transpose8x8(src + bj, src_ld, lo);               // columns bj.. of rows 0 .. 7
        avx::transpose8x8(src + 8 * src_ld + bj, src_ld, hi);  // of rows 8 .. 15
        for (int j = 0; j < 8; ++j) {
          _mm256_stream_ps(dst + (bj + j) * dst_ld, lo[j]);
          _mm256_stream_ps(dst + (bj + j) * dst_ld + 8, hi[j]);
        }
      }
#endif
      return;
    }
    for (int bi = 0; bi < G; bi += 8) {
      for (int bj = 0; bj < G; bj += 8) {
        __m256 r[8];
        avx::transpose8x8(src + bi * src_ld + bj, src_ld, r);
        float* d = dst + bj * dst_ld + bi;
        for (int j = 0; j < 8; ++j) _mm256_storeu_ps(d + j * dst_ld, r[j]);
      }
    }
    return;
  } else if constexpr (std::is_same_v<T, double>) {
    for (int bi = 0; bi < G; bi += 4) {
      for (int bj = 0; bj < G; bj += 4) {
        const double* s = src + bi * src_ld + bj;
        const __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + src_ld);
        const __m256d r2 = _mm256_loadu_pd(s + 2 * src_ld), r3 = _mm256_loadu_pd(s + 3 * src_ld);
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1),
                      t1 = _mm256_unpackhi_pd(r0, r1);  // r00 r10 r02 r12 / r01 r11 r03 r13
        const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        double* d = dst + bj * dst_ld + bi;
        _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm256_storeu_pd(d + dst_ld, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm256_storeu_pd(d + 2 * dst_ld, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm256_storeu_pd(d + 3 * dst_ld, _mm256_permute2f128_pd(t1, t3, 0x31));
      }
    }
    return;
  }
#elif defined(__SSE2__) && !defined(TK_CHECKED)
  if constexpr (STREAM && std::is_same_v<T, float>) {
    if (reinterpret_cast<std::uintptr_t>(dst) % 64 == 0 && dst_ld % G == 0) {
      for (int bj = 0; bj < G; bj += 4) {  // dst rows bj .. bj + 3: four 4 x 4 blocks, then whole lines
        __m128 r[4][4];
        for (int b = 0; b < 4; ++b) {
          for (int i = 0; i < 4; ++i) r[b][i] = _mm_loadu_ps(src + (4 * b + i) * src_ld + bj);
          _MM_TRANSPOSE4_PS(r[b][0], r[b][1], r[b][2], r[b][3]);
        }
        for (int j = 0; j < 4; ++j) {
          for (int b = 0; b < 4; ++b) _mm_stream_ps(dst + (bj + j) * dst_ld + 4 * b, r[b][j]);
        }
      }
      return;
    }
  }
#endif
  for (int i = 0; i < G; ++i) {
    for (int j = 0; j < G; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
  }
}

// Transposes rows x cols floats at src (rows src_ld apart; 1 <= cols <= 256, any rows) into cols rows of dst
// (dst_ld apart): dst[j * dst_ld + i] = src[i * src_ld + j], for dst rows of any alignment (a user's std::vector,
// an odd leading dimension), where transpose_line_square<float, true> cannot stream. With AVX-512 each dst row's
// whole 64-byte lines go out with non-temporal stores: src is taken as strips of 16 columns, transposed 16 x 16
// square by square, a row of squares at a time (16 rows of src read along the columns, as the squares of
// cpu_squares.hpp do; the squares at the right and bottom edges loaded with masks, nothing read past them), and
// each dst line is cut from two vertically consecutive squares' columns by one two-source permute, the window
// set by where that dst row's lines begin; the partial lines at the two ends of each dst row take masked plain
// stores. With AVX2 the same (three permutes and two blends a line), except where AMD leaves faults on AVX2's
// masked-out lanes to the implementation: the edge squares' rows load with masks only where their 32 bytes stay in
// one page, else element by element, and the partial lines store element by element. The caller calls
// tk::stream_fence() before its block ends. transpose_strip_streams says whether this build does that; otherwise
// the elements are copied one by one. STREAM false: plain stores throughout (dst is a thread's own buffer, read
// again soon).
#if (defined(__AVX512F__) || defined(__AVX2__)) && !defined(TK_CHECKED)
constexpr bool transpose_strip_streams = true;
#else
constexpr bool transpose_strip_streams = false;
#endif
// Whether this build's deinterleave_columns is vector code and its transpose_strips16 the AVX-512 one (AVX-512; in
// checked mode too, where they run as plain loops but keep the launchers' choices): the CPU transpose's skinny
// kernels rely on it. (The AVX2 copy has the strips, transpose_strip_streams, but not the skinny kernels.)
#if defined(__AVX512F__)
constexpr bool transpose_skinny_vectors = true;
#else
constexpr bool transpose_skinny_vectors = false;
#endif
template <bool STREAM = true>
inline void transpose_strips16(float* dst, std::int64_t dst_ld, const float* src, std::int64_t src_ld,
                               std::int64_t rows, int cols) {
#if (defined(__AVX512F__) || defined(__AVX2__)) && !defined(TK_CHECKED)
  if (rows < 1 || cols < 1) return;
  if (cols > 256) {  // 256 columns at a time
    for (int c = 0; c < cols; c += 256)
      transpose_strips16<STREAM>(dst + c * dst_ld, dst_ld, src + c, src_ld, rows, cols - c < 256 ? cols - c : 256);
    return;
  }
  const std::int64_t last = (rows - 1) / 16;         // the last row of squares
  const int v = static_cast<int>(rows - 16 * last);  // its valid rows, 1 .. 16
  const int strips = (cols + 15) / 16;
#endif
#if defined(__AVX512F__) && !defined(TK_CHECKED)
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const auto lanes = [](int lo, int hi) {  // the mask of lanes [lo, hi)
    return static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
  };
  const auto put = [](float* p, __m512 x) {  // a whole, aligned line
    if constexpr (STREAM) {
      _mm512_stream_ps(p, x);
    } else {
      _mm512_store_ps(p, x);
    }
  };
  const auto shift = [&](int row) {  // floats from the start of a dst row to its first 64-byte boundary
    return static_cast<int>((64 - reinterpret_cast<std::uintptr_t>(dst + row * dst_ld) % 64) % 64 / 4);
  };
  __m512 prev[16][16];  // per strip: the last square's columns (dst rows 16 w + j), kept for the next square
  for (std::int64_t b = 0; b <= last; ++b) {
    const int vr = b == last ? v : 16;
    for (int w = 0; w < strips; ++w) {
      const int vc = cols - 16 * w < 16 ? cols - 16 * w : 16;
      const __mmask16 cm = lanes(0, vc);
      __m512 cur[16];
      const float* s0 = src + 16 * b * src_ld + 16 * w;
      for (int i = 0; i < 16; ++i) cur[i] = i < vr ? _mm512_maskz_loadu_ps(cm, s0 + i * src_ld) : _mm512_setzero_ps();
      avx::transpose16_stage<8>(cur);
      avx::transpose16_stage<4>(cur);
      avx::transpose16_stage<2>(cur);
      avx::transpose16_stage<1>(cur);  // cur[j]: dst row 16 w + j, elements 16 b ..
      for (int j = 0; j < vc; ++j) {
        float* d = dst + (16 * w + j) * dst_ld + 16 * b;
        const int s = shift(16 * w + j);
        if (b == 0) {
          if (s) _mm512_mask_storeu_ps(d, lanes(0, s < vr ? s : vr), cur[j]);  // the head: [0, s)
        } else if (s) {  // the line at 16 (b - 1) + s: the last square's lanes s .. 15, then this one's 0 .. s - 1
          const __m512 line = _mm512_permutex2var_ps(prev[w][j], _mm512_add_epi32(iota, _mm512_set1_epi32(s)), cur[j]);
          if (b < last || s <= v) {
            put(d - 16 + s, line);
          } else {  // past the last row: the line's first 16 - s + v elements
            _mm512_mask_storeu_ps(d - 16 + s, lanes(0, 16 - s + v), line);
          }
        } else {
          put(d - 16, prev[w][j]);
        }
        prev[w][j] = cur[j];
      }
    }
  }
  for (int w = 0; w < strips; ++w) {  // the tail: the last square's lanes [s, v), where s <= v
    const int vc = cols - 16 * w < 16 ? cols - 16 * w : 16;
    for (int j = 0; j < vc; ++j) {
      float* d = dst + (16 * w + j) * dst_ld + 16 * last;
      const int s = shift(16 * w + j);
      if (s == 0 && v == 16) {
        put(d, prev[w][j]);
      } else if (s < v) {
        _mm512_mask_storeu_ps(d, lanes(s, v), prev[w][j]);
      }
    }
  }
#elif defined(__AVX2__) && !defined(TK_CHECKED)
  // AVX2: the same walk with each 16 x 16 square as four 8 x 8 transposes, a dst row's 16 elements of a square
  // in two registers, and each whole line cut from the last square's pair and this one's by two permutes and a
  // blend per half (a window of 16 at offset s of the 32), streamed as two 32-byte halves back to back. The next
  // row of squares' 16 lines of this strip are prefetched one square ahead: on host E (Zen 3) the loads left to
  // the hardware's prefetchers alone and the streamed stores held each other to about half the rate of either
  // alone (docs/performance.md#cpu-amd-zen3-transpose-avx2).
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // n floats at p (n <= 0: none), the other lanes zero: a masked load where its 32 bytes lie in p's page (its
  // masked-out lanes cannot fault there), element by element where they cross into the next
  const auto load8 = [&](const float* p, int n) {
    if (n >= 8) return _mm256_loadu_ps(p);
    if (n <= 0) return _mm256_setzero_ps();
    if (reinterpret_cast<std::uintptr_t>(p) % 4096 <= 4096 - 32)
      return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(n), iota));
    alignas(32) float t[8] = {};
    for (int e = 0; e < n; ++e) t[e] = p[e];
    return _mm256_load_ps(t);
  };
  const auto store_lanes = [](float* p, __m256 lo, __m256 hi, int a, int b) {  // lanes [a, b) of the 16 at p
    alignas(32) float t[16];
    _mm256_store_ps(t, lo);
    _mm256_store_ps(t + 8, hi);
    for (int e = a; e < b; ++e) p[e] = t[e];
  };
  const auto put = [](float* p, __m256 lo, __m256 hi) {  // a whole, aligned line
    if constexpr (STREAM) {
      _mm256_stream_ps(p, lo);
      _mm256_stream_ps(p + 8, hi);
    } else {
      _mm256_store_ps(p, lo);
      _mm256_store_ps(p + 8, hi);
    }
  };
  const auto shift = [&](int row) {  // floats from the start of a dst row to its first 64-byte boundary
    return static_cast<int>((64 - reinterpret_cast<std::uintptr_t>(dst + row * dst_ld) % 64) % 64 / 4);
  };
  __m256 prev[16][16][2];  // per strip: the last square's columns (dst rows 16 w + j), kept for the next square
  for (std::int64_t b = 0; b <= last; ++b) {
    const int vr = b == last ? v : 16;
    const int ahead = b + 1 < last ? 16 : b + 1 == last ? v : 0;  // the next row of squares' rows
    for (int w = 0; w < strips; ++w) {
      const int vc = cols - 16 * w < 16 ? cols - 16 * w : 16;
      const float* s0 = src + 16 * b * src_ld + 16 * w;
      for (int i = 0; i < ahead; ++i) __builtin_prefetch(s0 + (16 + i) * src_ld, 0, 3);
      __m256 q[4][8];  // rows 0-7 and 8-15 of columns 0-7 (q[0], q[1]) and 8-15 (q[2], q[3])
      for (int i = 0; i < 16; ++i) {
        const float* p = s0 + i * src_ld;
        q[i / 8][i % 8] = i < vr ? load8(p, vc < 8 ? vc : 8) : _mm256_setzero_ps();
        q[2 + i / 8][i % 8] = i < vr ? load8(p + 8, vc - 8) : _mm256_setzero_ps();
      }
      for (auto& h : q) avx::transpose8x8_regs(h);
      for (int j = 0; j < vc; ++j) {
        const __m256 c0 = q[j < 8 ? 0 : 2][j % 8], c1 = q[j < 8 ? 1 : 3][j % 8];  // dst elements 16 b + 0..7, 8..15
        float* d = dst + (16 * w + j) * dst_ld + 16 * b;
        const int s = shift(16 * w + j);
        if (b == 0) {
          if (s) store_lanes(d, c0, c1, 0, s < vr ? s : vr);  // the head: [0, s)
        } else if (s) {  // the line at 16 (b - 1) + s: the last square's lanes s .. 15, then this one's 0 .. s - 1
          const __m256 p0 = prev[w][j][0], p1 = prev[w][j][1];
          const __m256i idx = _mm256_add_epi32(iota, _mm256_set1_epi32(s & 7));  // (vpermps reads 3 bits)
          const __m256 next = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
          const __m256 a = _mm256_permutevar8x32_ps(s < 8 ? p0 : p1, idx);
          const __m256 m = _mm256_permutevar8x32_ps(s < 8 ? p1 : c0, idx);
          const __m256 z = _mm256_permutevar8x32_ps(s < 8 ? c0 : c1, idx);
          const __m256 lo = _mm256_blendv_ps(a, m, next), hi = _mm256_blendv_ps(m, z, next);
          if (b < last || s <= v) {
            put(d - 16 + s, lo, hi);
          } else {  // past the last row: the line's first 16 - s + v elements
            store_lanes(d - 16 + s, lo, hi, 0, 16 - s + v);
          }
        } else {
          put(d - 16, prev[w][j][0], prev[w][j][1]);
        }
        prev[w][j][0] = c0;
        prev[w][j][1] = c1;
      }
    }
  }
  for (int w = 0; w < strips; ++w) {  // the tail: the last square's lanes [s, v), where s <= v
    const int vc = cols - 16 * w < 16 ? cols - 16 * w : 16;
    for (int j = 0; j < vc; ++j) {
      float* d = dst + (16 * w + j) * dst_ld + 16 * last;
      const int s = shift(16 * w + j);
      if (s == 0 && v == 16) {
        put(d, prev[w][j][0], prev[w][j][1]);
      } else if (s < v) {
        store_lanes(d, prev[w][j][0], prev[w][j][1], s, v);
      }
    }
  }
#else
  for (std::int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
#endif
}

// Splits n rows of a contiguous matrix of `cols` columns (1 <= cols < 16) at src into its columns:
// dst[j * dst_ld + i] = src[i * cols + j], dst a thread's own buffer. With AVX-512, 16 rows (cols vectors, read
// whole) at a time, each column cut out of them by (cols + 1) / 2 two-source permutes; element by element
// otherwise.
inline void deinterleave_columns(float* dst, std::int64_t dst_ld, const float* src, int cols, std::int64_t n) {
  std::int64_t i = 0;
#if defined(__AVX512F__) && !defined(TK_CHECKED)
  if (cols >= 1 && cols < 16) {
    const int pairs = (cols + 1) / 2;
    __m512i idx[15][8];  // column j, source pair p: where lane k's element j + k * cols lies in vectors 2p, 2p + 1
    __mmask16 take[15][8];
    for (int j = 0; j < cols; ++j) {
      for (int p = 0; p < pairs; ++p) {
        alignas(64) int at[16];
        unsigned m = 0;
        for (int k = 0; k < 16; ++k) {
          const int pos = j + k * cols - 32 * p;
          at[k] = pos >= 0 && pos < 32 ? pos : 0;
          if (pos >= 0 && pos < 32) m |= 1u << k;
        }
        idx[j][p] = _mm512_load_si512(at);
        take[j][p] = static_cast<__mmask16>(m);
      }
    }
    for (; i + 16 <= n; i += 16) {
      __m512 v[16];
      for (int q = 0; q < cols; ++q) v[q] = _mm512_loadu_ps(src + i * cols + 16 * q);
      v[cols] = _mm512_setzero_ps();
      for (int j = 0; j < cols; ++j) {
        __m512 r = _mm512_setzero_ps();
        for (int p = 0; p < pairs; ++p)
          r = _mm512_mask_mov_ps(r, take[j][p], _mm512_permutex2var_ps(v[2 * p], idx[j][p], v[2 * p + 1]));
        _mm512_storeu_ps(dst + j * dst_ld + i, r);
      }
    }
  }
#endif
  for (; i < n; ++i)
    for (int j = 0; j < cols; ++j) dst[j * dst_ld + i] = src[i * cols + j];
}

// The other way: interleaves `rows` rows of n floats at src (rows src_ld apart) into dst, a thread's own buffer:
// dst[j * rows + i] = src[i * src_ld + j], a matrix of few rows transposed into its contiguous `out`. With AVX-512,
// for 1 <= rows <= interleave_vector_rows, 16 columns at a time: `rows` vectors read, and each of the `rows` vectors
// of dst gathered from them by one masked permute a row (its lanes k take row (16 q + k) % rows, column (16 q + k) /
// rows); element by element for the last n % 16 columns, in checked mode, and for more rows (where the CPU
// transpose's skinny kernel keeps a loop of its own: cpu_skinny.hpp). The permutes cost rows / 16 a float against
// about a load and a store element by element: on Zen 4 (2026-12-07, tk-bench's rows as committed, 2 threads,
// tilekit's buffers, GB/s, against the kernel's element-by-element loop; docs/performance.md, "few rows by permutes")
// 3 x 3000017 25.0-31.4 against 18.0-26.9, 5 x 3000001 25.4-32.2 against 21.8-27.1, 8 x 2000003 23.4-29.0 against
// 25.5-31.5 (no gain at 8; 6 and 7 rows unmeasured). Above 8 rows the library never ran the permutes (a one-thread
// probe apart from it: 12 x N 12.3 against 13.4 GB/s, 15 x N 8.9 against 7.7). (One row never comes here: tk::transpose
// copies it.) interleave_vector_rows: 8 where this build has the vector code (AVX-512; checked mode too, which runs
// the plain loop but keeps the kernels' choices), else 0.
#if defined(__AVX512F__)
constexpr int interleave_vector_rows = 8;
#else
constexpr int interleave_vector_rows = 0;
#endif
inline void interleave_rows(float* __restrict__ dst, const float* __restrict__ src, std::int64_t src_ld, int rows,
                            std::int64_t n) {
  std::int64_t j = 0;
#if defined(__AVX512F__) && !defined(TK_CHECKED)
  if (rows >= 1 && rows <= 8) {
    __m512i at[8];
    __mmask16 take[8][8] = {};  // [vector of dst][row of src]
    for (int q = 0; q < rows; ++q) {
      alignas(64) int col[16];
      for (int k = 0; k < 16; ++k) {
        const int o = 16 * q + k;
        col[k] = o / rows;
        take[q][o % rows] = static_cast<__mmask16>(take[q][o % rows] | (1u << k));
      }
      at[q] = _mm512_load_si512(col);
    }
    for (; j + 16 <= n; j += 16) {
      __m512 v[8];
      for (int i = 0; i < rows; ++i) v[i] = _mm512_loadu_ps(src + i * src_ld + j);
      for (int q = 0; q < rows; ++q) {
        __m512 r = _mm512_setzero_ps();
        for (int i = 0; i < rows; ++i) r = _mm512_mask_permutexvar_ps(r, take[q][i], at[q], v[i]);
        _mm512_storeu_ps(dst + j * rows + 16 * q, r);
      }
    }
  }
#endif
  for (; j < n; ++j)
    for (int i = 0; i < rows; ++i) dst[j * rows + i] = src[i * src_ld + j];
}

// Copies n floats from src (a thread's own buffer, any alignment) to dst, dst's whole 64-byte lines with
// non-temporal stores (SSE2 and up), the partial lines at either end with plain ones; the caller calls
// tk::stream_fence() before its block ends. Element by element in checked mode.
inline void stream_floats(float* dst, const float* src, std::int64_t n) {
#if (defined(__AVX__) || defined(__SSE2__)) && !defined(TK_CHECKED)
  std::int64_t i = static_cast<std::int64_t>((64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64 / 4);
  if (i > n || reinterpret_cast<std::uintptr_t>(dst) % 4 != 0) i = n;
  for (std::int64_t e = 0; e < i; ++e) dst[e] = src[e];
  for (; i + 16 <= n; i += 16) {
#if defined(__AVX512F__)
    _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
#elif defined(__AVX__)
    _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
    _mm256_stream_ps(dst + i + 8, _mm256_loadu_ps(src + i + 8));
#else
    for (int q = 0; q < 16; q += 4) _mm_stream_ps(dst + i + q, _mm_loadu_ps(src + i + q));
#endif
  }
  for (; i < n; ++i) dst[i] = src[i];
#else
  for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
#endif
}

template <class T>
inline T* dynamic_shared() {
  return reinterpret_cast<T*>(cpu::tls_block.dynamic_shared);
}

// A CPU kernel has no registers or shared-memory budget to report: the launch shape only.
template <class... P>
KernelResources describe(const Device&, const LaunchSpec& spec, void (*)(P...)) {
  KernelResources r;
  r.kernel = spec.name;
  r.block_threads = spec.block.x * spec.block.y * spec.block.z;
  r.dynamic_shared = static_cast<std::int64_t>(spec.dynamic_shared);
  return r;
}

template <class... P, class... A>
void launch(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...), A&&... args) {
  if (auto* sink = detail::describe_sink()) return sink->push_back(describe(dev, spec, kernel));
  cpu::run_grid(dev, spec, kernel, args...);
}

}  // namespace TK_TARGET_NS
}  // namespace tk
