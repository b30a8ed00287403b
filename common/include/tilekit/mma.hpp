// tilekit/mma.hpp — the warp's matrix multiply-accumulate on the matrix units (NVIDIA tensor cores, AMD matrix
// cores), written once for every target.
//
// ---- The portable form: tk::mma ----
//   tk::mma::Precision           f64 (double in, double accumulator); tf32, bf16, f16 (float accumulator)
//   tk::mma::Op<P>               this target's instruction for precision P: its shape (m x n x k), the lanes
//                                that share it (32: NVIDIA's warp; 64: CDNA's wave), the registers per lane
//                                of each operand (a_regs, b_regs, c_regs; Op::Reg holds Op::per_reg values:
//                                two 16-bit ones in 32 bits) and which element each value v holds:
//                                  Op::a(lane, v) -> {row, k}  of the m x k A
//                                  Op::b(lane, v) -> {k, col}  of the k x n B
//                                  Op::c(lane, i) -> {row, col} of the m x n accumulator (Op::Acc)
//                                Op::In is a value's type (float for tf32, tk::bf16, tk::f16, double).
//   tk::mma::load_a<Op, K_CONTIGUOUS>(f, th.id, base, tile, pitch, r0, k0, lane), load_b<Op, N_CONTIGUOUS>(...)
//                                in a phase: the lane's A (B) registers of the block at (r0, k0) ((k0, n0)) of
//                                a tile in shared memory, either storage order; ldmatrix on NVIDIA where it
//                                applies, by coordinates elsewhere
//   tk::mma::input<P>(x)         x as the kernel hands it to the instruction: rounded to TF32 for tf32
//                                (cvt.rna.tf32.f32: nearest, ties away), unchanged otherwise
//   tk::mma::mma_sync<Op>(d, di, a, ai, b, bi)
//                                D = A B + D for every warp of the block at once: lane l's values of A are
//                                a(l, ai .. ai + a_regs - 1), of B b(l, bi ..), of D d(l, di ..), each a
//                                tk::Private (ai, bi, di compile-time constants in unrolled loops, so that
//                                they stay registers on a GPU)
//   tk::mma::lanes<P>            Op<P>::lanes, for the launcher's block shape
//   tk::mma::has_matrix_units    true where mma_sync runs on the matrix units (CUDA sm_80+, CDNA gfx90a/gfx94x);
//                                elsewhere the kernel still compiles (the launcher does not choose it)
//
// A call stands between phases (block-level code), like a barrier: every lane of every warp reaches it with
// the same Op, and the block is whole warps. The fragments are loaded and stored in phases, by coordinates.
// What each target runs:
//   CUDA sm_80+   mma.sync: tf32 m16n8k8, bf16 and f16 m16n8k16 (float accumulators), f64 m16n8k8 (one
//                 instruction on sm_90, four m8n8k4 on sm_80-89);
//   HIP gfx90a    MFMA on a wave64: tf32 as exact FP32 16x16x4 (gfx90a has no TF32), bf16 16x16x16 (_1k),
//                 f16 16x16x16, f64 16x16x4;
//   CPU           the executor emulates the instruction of the target whose layout it runs (warp 32 as
//                 NVIDIA's, or the wave64 layout when compiled with TK_CPU_AS_HIP): each lane's fragment is
//                 held where the GPU holds it, inputs are taken as the hardware takes them (TF32: the low 13
//                 mantissa bits ignored, as NVIDIA's tensor cores do; bf16 and f16 exactly), products summed
//                 in double and rounded once to the float accumulator. A wrong fragment index gives a
//                 wrong product on a laptop. Checked mode refuses a call inside a phase and a block that is
//                 not whole warps.
//
// ---- The warpgroup's multiply-accumulate (NVIDIA sm_90a's wgmma): tk::mma::Warpgroup ----
//   tk::mma::Warpgroup<P, N>      D(64 x N) += A(64 x k) B(k x N) for a warpgroup (4 warps, 128 threads),
//                                both operands read from shared memory; k = 16 for bf16 and f16, 8 for tf32
//                                (float accumulators). tf32 operands are K-major only, and the instruction
//                                takes a float's top 19 bits (the low 13 mantissa bits ignored: truncation, where
//                                the warp-level kernel rounds with cvt.rna). Its accumulator: N / 2 floats per
//                                thread, value i of thread t
//                                (0..127) at Warpgroup::c(t, i) = {16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2),
//                                8 (i / 4) + 2 (t % 4) + i % 2}.
//   tk::mma::sw128<In>(line, e, lines)
//                                the shared-memory layout the instruction reads (128-byte swizzle): a strip of
//                                `lines` lines (a multiple of 8) of global memory, each cut into groups of
//                                128 bytes; group g of every line, then group g + 1: element e of line l at
//                                g lines 128 + l 128 + (16-byte chunk of e XOR l % 8) 16 bytes (+ e's byte in
//                                the chunk), counted in In. The strip starts on 1024 bytes.
//   tk::mma::Operand<In>{strip, lines, line0, e0}
//                                the instruction's block of an operand in such a strip: its first line and
//                                first element of a line. An operand is K-major (its lines run along k: A as
//                                stored M x K, B stored N x K; the block covers lines line0 .. + 64 (A) or
//                                + N (B), elements e0 .. e0 + k - 1 of one 128-byte group) or MN-major (lines
//                                along m or n: A stored K x M, B stored K x N; lines line0 .. line0 + k - 1,
//                                elements e0 .. from a group's start, over 64 (A) or N (B) elements).
//   tk::mma::warpgroup_mma<W, A_MN, B_MN>(d, di, a, b)
//                                starts D += A B for every warpgroup of the block: thread t's accumulator
//                                values are d(t, di .. di + c_regs - 1). Asynchronous: between
//                                warpgroup_arrive() before the first call of a batch and warpgroup_wait<N>()
//                                after warpgroup_commit() (at most N batches left in flight), the
//                                accumulators are the instruction's; the strips it reads stay unwritten until a
//                                wait has retired the batch. On a CPU a warpgroup whose operands name no strip
//                                (nullptr) does not multiply: a block's warpgroup that only copies strips, which
//                                on a GPU does not reach the call (tk::split_roles). warpgroup_pin<REGS>(d) after setting the
//                                accumulators and after the last wait<0>: no other access moves across it.
//   tk::mma::shared_to_matrix_units()
//                                makes this thread's shared-memory stores (plain or tk::copy_async, after its
//                                wait) visible to the warpgroup instruction, before the barrier that publishes
//                                them (fence.proxy.async: the instruction reads through the async proxy).
//   tk::mma::has_warpgroup_mma  true in device code for sm_90a (__CUDA_ARCH_FEAT_SM90_ALL); elsewhere the
//                                kernel compiles and the launcher never runs it on a GPU.
//   tk::mma::warpgroup_in_build  (host code) whether launchers may run such a kernel: CUDA with sm_90a in the
//                                build, or the CPU executor's copy of the CUDA launchers.
// On a CPU the executor runs the instruction at the call: each warpgroup's product computed from the strips
// through sw128 (the layout above), summed in double and rounded once into the accumulators where c() puts
// them; the arrive, commit and wait calls do nothing (checked mode: each call stands between phases, the
// block is whole warpgroups). So the kernel's strip layout, operand blocks and accumulator indexing are tested
// on a laptop; the descriptor encoding (start, LBO, SBO, swizzle bits) only on sm_90a.
//
// ---- The CPU's pair dot product (AVX512_BF16's vdpbf16ps): tk::mma::Pairs16 ----
//   tk::mma::Pairs16             16 float accumulators (one zmm register where the instruction is used)
//   pairs_zero(), pairs_load(p), pairs_store(p, c)
//                                16 zeros; 16 floats from p; c's 16 floats to p (any alignment)
//   pair_dot(c, a, b) -> c       for l in 0..15: c[l] += A.hi B[l].hi, then c[l] += A.lo B[l].lo, where a and
//                                b[l] (a const std::uint32_t*) hold two tk::bf16 each, the lower k in the low
//                                half (as they lie in memory along k); each step a fused multiply-add rounded
//                                to nearest even, its subnormal inputs (bf16 values and c) read as zero and a
//                                subnormal result flushed to zero (the instruction's DAZ and FTZ)
//   pair_dot_native              true where pair_dot is the instruction: a CPU copy with AVX-512 (the x86-64-v4
//                                copy, -march=native on such a CPU), outside checked mode; the instruction
//                                runs only on a CPU with AVX512_BF16, which a launcher asks of
//                                tk::DeviceProps::peak_bf16_gflops (0 without it). Elsewhere (other copies,
//                                checked mode, a GPU) pair_dot is the same arithmetic, lane by lane (slow:
//                                launchers run it in checked mode only, pair_dot_checked).
//   TK_PAIR_DOT_KERNEL           declares a kernel that calls pair_dot (on such a copy, the kernel is compiled
//                                for AVX512_BF16; a lambda inside it is not, so pair_dot is not called from
//                                one)
// Per thread, not per warp: a thread's 16 accumulators are one vector. This is the CPU's matrix unit: a GPU
// has tensor cores (above) and never runs a pair-dot kernel.
//
// ---- The CPU's tile matrix unit (Intel AMX-BF16's tdpbf16ps): tk::mma::tile_dot_32x32 ----
//   tile_dot_32x32(c, ldc, a, lda, b, ldb, steps, accumulate)
//                                C (32 x 32 floats at c, rows ldc floats apart) = (accumulate ? C : 0) + the sum
//                                over s < steps of A_s B_s, where A_s is 32 rows of 16 pairs (row r: words
//                                16 s .. 16 s + 15 of a + r lda) and B_s 16 rows of 32 pairs (row p: words 0 .. 31
//                                of b + (16 s + p) ldb; word n is column n's pair); a pair is two tk::bf16 along k,
//                                the lower k in the low half. Per element of C and per pair: c += a.lo b.lo, then
//                                c += a.hi b.hi, each a multiply-add rounded to nearest even, subnormal inputs and
//                                results taken as zero (the instruction's DAZ and FTZ; whether the hardware
//                                rounds the product before the add is not specified, so results may differ in
//                                the last bit from the emulation)
//   tile_dot_begin(), tile_dot_end()
//                                load the tile configuration (eight tiles of 16 rows x 64 bytes) on the calling
//                                OS thread, and release the tiles: a kernel calls them in a TK_THREAD_ZERO phase at
//                                its start and its end. The CPU executor runs a block on one OS thread, so the
//                                configuration holds for the whole block (nothing else runs there in between)
//   tile_dot_native              true where tile_dot_32x32 is the instruction: a CPU copy with AVX-512 (the
//                                x86-64-v4 copy, -march=native on such a CPU) built by GCC or Clang, outside
//                                checked mode; it runs only where tk::DeviceProps::peak_amx_bf16_gflops is above
//                                0 (the CPU has AMX-BF16 and the kernel granted the process the tile state).
//                                Elsewhere it is the same arithmetic, element by element (slow: launchers run it in
//                                checked mode only, tile_dot_checked)
// Per thread of a CPU block: one call multiplies on all eight tile registers (four of C, two of A, two of B). A
// GPU never runs a tile-dot kernel.
//
// ---- The FP64 primitives (kernels/matmul/warp_tiling.hpp's tiling; mma_f64_16x8x8: Op<f64>'s mma_sync on NVIDIA) ----
//   tk::has_mma_f64                         true where the instructions below exist: CUDA device code for
//                                           sm_80 and later; false on CPUs, AMD GPUs and older NVIDIA GPUs
//   tk::mma_f64_8x8x4(d0, d1, a, b)         D(8 x 8) += A(8 x 4) B(4 x 8) for the warp: lane l holds
//                                           A(l / 4, l % 4) in a, B(l % 4, l / 4) in b, and
//                                           D(l / 4, 2 (l % 4) + {0, 1}) in d0, d1 (mma.sync m8n8k4)
//   tk::mma_f64_16x8x4(d, a0, a1, b)        two of those stacked (rows + 8): a1 = A(l / 4 + 8, l % 4),
//                                           d[2], d[3] the rows + 8 (one m16n8k4 on sm_90, two m8n8k4 before)
//   tk::mma_f64_16x8x8(d, a, b)             D(16 x 8) += A(16 x 8) B(8 x 8): two m16n8k4 along k, the second's
//                                           A in a[2], a[3] and B in b[1] (k + 4): tk::mma::Op<Precision::f64>'s
//                                           layout (one m16n8k8 on sm_90, four m8n8k4 before)
//
// Warp-collective: all 32 lanes of a converged warp call it at once, with the same shape. Use it only
// under `if constexpr (tk::has_mma_f64)`; elsewhere the kernel computes the same outputs per lane with
// FMAs from the tiles in shared memory (kernels/matmul/warp_tiling.hpp does exactly that), so the CPU
// executor and checked mode test the tiling, and the GPU tests the instruction.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/numeric.hpp"

namespace tk {
inline namespace TK_TARGET_NS {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
inline constexpr bool has_mma_f64 = true;
#else
inline constexpr bool has_mma_f64 = false;
#endif

// Templates, so that a call in a discarded `if constexpr` branch is never instantiated where the
// instruction does not exist.
template <class T>
TK_DEVICE void mma_f64_8x8x4(T& d0, T& d1, T a, T b) {
  static_assert(sizeof(T) == 8 && has_mma_f64, "mma_f64_8x8x4: double, CUDA sm_80 or later only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
#endif
}

template <class T>
TK_DEVICE void mma_f64_16x8x4(T& d0, T& d1, T& d2, T& d3, T a0, T a1, T b) {
  static_assert(sizeof(T) == 8 && has_mma_f64, "mma_f64_16x8x4: double, CUDA sm_80 or later only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
               : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
               : "d"(a0), "d"(a1), "d"(b));
#else
  mma_f64_8x8x4(d0, d1, a0, b);
  mma_f64_8x8x4(d2, d3, a1, b);
#endif
}

template <class T>
TK_DEVICE void mma_f64_16x8x8(T& d0, T& d1, T& d2, T& d3, T a0, T a1, T a2, T a3, T b0, T b1) {
  static_assert(sizeof(T) == 8 && has_mma_f64, "mma_f64_16x8x8: double, CUDA sm_80 or later only");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
  mma_f64_16x8x4(d0, d1, d2, d3, a0, a1, b0);
  mma_f64_16x8x4(d0, d1, d2, d3, a2, a3, b1);
#endif
}

// ---- tk::mma: the portable form ----
namespace mma {

enum class Precision { f64, tf32, bf16, f16 };

struct Coord {
  int r, c;
};

// The fragment layouts this translation unit holds: CDNA's 64-lane wave (HIP, and the CPU executor running
// the HIP launchers' shapes) or NVIDIA's 32-lane warp (CUDA, and every other CPU build).
#if defined(__HIP__) || defined(__HIPCC__) || defined(TK_CPU_AS_HIP)
inline constexpr bool wave64 = true;
#else
inline constexpr bool wave64 = false;
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
#define TK_MMA_NVIDIA 1
inline constexpr bool has_matrix_units = true;
#elif defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
#define TK_MMA_CDNA 1
inline constexpr bool has_matrix_units = true;
#else
inline constexpr bool has_matrix_units = false;
#endif

// In: a value's type; Acc: the accumulator's; Reg: a lane's register, holding per_reg values (two 16-bit
// values in one 32-bit register, the lower index in the low half, as the instructions take them).
template <Precision P>
struct Types;
template <>
struct Types<Precision::f64> {
  using In = double;
  using Acc = double;
  using Reg = double;
  static constexpr int per_reg = 1;
};
template <>
struct Types<Precision::tf32> {
  using In = float;
  using Acc = float;
  using Reg = float;
  static constexpr int per_reg = 1;
};
template <>
struct Types<Precision::bf16> {
  using In = tk::bf16;
  using Acc = float;
  using Reg = std::uint32_t;
  static constexpr int per_reg = 2;
};
template <>
struct Types<Precision::f16> {
  using In = tk::f16;
  using Acc = float;
  using Reg = std::uint32_t;
  static constexpr int per_reg = 2;
};

template <Precision P, bool WAVE64 = wave64>
struct Op;

// NVIDIA's warp: lane l is thread t = l % 4 of group g = l / 4 (the PTX ISA's mma.sync fragment figures).
// Coordinates are per value v (register v / per_reg).
template <Precision P>
struct NvidiaBase : Types<P> {
  static constexpr Precision precision = P;
  static constexpr int lanes = 32;
  // TF32: what the kernel hands the tensor cores (cvt.rna.tf32.f32), and what they take of a float (its top
  // 19 bits: the low 13 mantissa bits are ignored).
  static TK_HOST_DEVICE float input(float x) {
#if defined(__CUDA_ARCH__) && !defined(__HIP__)
    if constexpr (P == Precision::tf32) {
      unsigned r;
      asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
      return __uint_as_float(r);
    }
    return x;
#else
    return P == Precision::tf32 ? tk::tf32_round(x) : x;
#endif
  }
  static float taken(float x) {
    return P == Precision::tf32 ? numeric_detail::float_of(numeric_detail::bits_of(x) & 0xffffe000u) : x;
  }
};

// m16n8k8 with one value per register: TF32, and FP64 (sm_90's instruction; four m8n8k4 on sm_80-89, whose
// fragments these are: values 0 and 1 of A the rows l / 4 and l / 4 + 8 at k = l % 4, 2 and 3 at k + 4).
template <Precision P>
struct Nvidia8 : NvidiaBase<P> {
  static constexpr int m = 16, n = 8, k = 8, a_regs = 4, b_regs = 2, c_regs = 4;
  static TK_HOST_DEVICE constexpr Coord a(int l, int v) { return {l / 4 + 8 * (v & 1), l % 4 + 4 * (v >> 1)}; }
  static TK_HOST_DEVICE constexpr Coord b(int l, int v) { return {l % 4 + 4 * v, l / 4}; }
  static TK_HOST_DEVICE constexpr Coord c(int l, int i) { return {l / 4 + 8 * (i >> 1), 2 * (l % 4) + (i & 1)}; }
};
template <>
struct Op<Precision::f64, false> : Nvidia8<Precision::f64> {};
template <>
struct Op<Precision::tf32, false> : Nvidia8<Precision::tf32> {};
template <Precision P>
struct Nvidia16 : NvidiaBase<P> {  // m16n8k16: 8 values of A in 4 registers, 4 of B in 2
  static constexpr int m = 16, n = 8, k = 16, a_regs = 4, b_regs = 2, c_regs = 4;
  static TK_HOST_DEVICE constexpr Coord a(int l, int v) {
    return {l / 4 + 8 * ((v >> 1) & 1), 2 * (l % 4) + (v & 1) + 8 * (v >> 2)};
  }
  static TK_HOST_DEVICE constexpr Coord b(int l, int v) { return {2 * (l % 4) + (v & 1) + 8 * (v >> 1), l / 4}; }
  static TK_HOST_DEVICE constexpr Coord c(int l, int i) { return {l / 4 + 8 * (i >> 1), 2 * (l % 4) + (i & 1)}; }
};
template <>
struct Op<Precision::bf16, false> : Nvidia16<Precision::bf16> {};
template <>
struct Op<Precision::f16, false> : Nvidia16<Precision::f16> {};

// CDNA's wave: lane l is row (or column) l % 16 of quad q = l / 16 (the 16 x 16 MFMA family). gfx90a has no
// TF32 instruction: tf32 runs as exact FP32 (v_mfma_f32_16x16x4f32), which TF32 permits.
template <Precision P>
struct Cdna : Types<P> {
  static constexpr Precision precision = P;
  static constexpr int lanes = 64, m = 16, n = 16, c_regs = 4;
  static constexpr int k = P == Precision::bf16 || P == Precision::f16 ? 16 : 4;
  static constexpr int a_regs = k / 4 / Types<P>::per_reg, b_regs = a_regs;
  static TK_HOST_DEVICE float input(float x) { return x; }
  static float taken(float x) { return x; }
  static TK_HOST_DEVICE constexpr Coord a(int l, int v) { return {l % 16, (k / 4) * (l / 16) + v}; }
  static TK_HOST_DEVICE constexpr Coord b(int l, int v) { return {(k / 4) * (l / 16) + v, l % 16}; }
  static TK_HOST_DEVICE constexpr Coord c(int l, int i) { return {4 * (l / 16) + i, l % 16}; }
};
template <Precision P>
struct Op<P, true> : Cdna<P> {};
// FP64's accumulator is spread the other way: value i of lane l is row 4 i + l / 16 (AMD's matrix-core examples,
// mfma_fp64_16x16x4fp64).
template <>
struct Op<Precision::f64, true> : Cdna<Precision::f64> {
  static TK_HOST_DEVICE constexpr Coord c(int l, int i) { return {4 * i + l / 16, l % 16}; }
};

template <Precision P>
inline constexpr int lanes = Op<P>::lanes;

// x as the kernel hands it to the instruction (see the top of this file).
template <Precision P, class T>
TK_DEVICE T input(T x) {
  if constexpr (P == Precision::tf32) {
    return Op<P>::input(x);
  } else {
    return x;
  }
}

namespace detail {
TK_DEVICE std::uint16_t bits16(tk::bf16 x) { return x.bits; }
TK_DEVICE std::uint16_t bits16(tk::f16 x) { return x.bits; }

// Register r of a fragment made of its values: vals[0 .. per_reg - 1].
template <class O, class In>
TK_DEVICE typename O::Reg reg_of(const In* vals) {
  if constexpr (O::per_reg == 2) {
    return std::uint32_t{bits16(vals[0])} | (std::uint32_t{bits16(vals[1])} << 16);
  } else {
    return vals[0];
  }
}
// Value h of register r.
template <class O>
TK_DEVICE typename O::In value_of(typename O::Reg r, int h) {
  if constexpr (O::per_reg == 2) {
    return O::In::from_bits(static_cast<std::uint16_t>(h ? r >> 16 : r & 0xffffu));
  } else {
    return r;
  }
}

// Registers [base, base + REGS) of a lane's fragment from its values, value v being at(v), through input<P>.
template <class O, int REGS, class F, class At>
TK_DEVICE void load_by_value(F& f, int id, int base, At at) {
  TK_UNROLL
  for (int r = 0; r < REGS; ++r) {
    typename O::In v[O::per_reg];
    TK_UNROLL
    for (int h = 0; h < O::per_reg; ++h) v[h] = input<O::precision>(at(r * O::per_reg + h));
    f(id, base + r) = reg_of<O>(v);
  }
}

#if defined(TK_MMA_NVIDIA)
// ldmatrix: four (two) 8 x 8 matrices of 16-bit values from shared memory, lane l giving a row address of
// matrix l / 8; TRANS: each matrix transposed on the way.
template <bool TRANS, int N>
TK_DEVICE void ldsm(std::uint32_t (&r)[N], const void* p) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  if constexpr (N == 4 && TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
  } else if constexpr (N == 4) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
  } else if constexpr (TRANS) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
  }
}
#endif
}  // namespace detail

// Loads, in a phase, lane `lane`'s registers of the A fragment whose m x k block starts at (r0, k0) of a
// tile in shared memory: element (m, k) at tile[m * pitch + k] (K_CONTIGUOUS) or tile[k * pitch + m]. The
// registers go to f(id, base .. base + a_regs - 1), through input<P>. NVIDIA: ldmatrix (BF16, FP16; TF32
// with k contiguous), rows 16-byte aligned; elsewhere by coordinates.
template <class O, bool K_CONTIGUOUS, class F, class In>
TK_DEVICE void load_a(F& f, int id, int base, const In* tile, int pitch, int r0, int k0, int lane) {
#if defined(TK_MMA_NVIDIA)
  constexpr bool ldsm16 = O::precision == Precision::bf16 || O::precision == Precision::f16;
  constexpr bool ldsm32 = O::precision == Precision::tf32 && K_CONTIGUOUS;
#else
  constexpr bool ldsm16 = false, ldsm32 = false;
#endif
  if constexpr (ldsm16) {
#if defined(TK_MMA_NVIDIA)
    const int j = lane / 8, row = lane % 8;
    const In* p = K_CONTIGUOUS ? tile + (r0 + (j & 1) * 8 + row) * pitch + k0 + (j >> 1) * 8
                               : tile + (k0 + (j >> 1) * 8 + row) * pitch + r0 + (j & 1) * 8;
    std::uint32_t r[4];
    detail::ldsm<!K_CONTIGUOUS>(r, p);
    TK_UNROLL
    for (int i = 0; i < 4; ++i) f(id, base + i) = r[i];
#endif
  } else if constexpr (ldsm32) {
#if defined(TK_MMA_NVIDIA)
    const int j = lane / 8, row = lane % 8;
    std::uint32_t r[4];
    detail::ldsm<false>(r, tile + (r0 + (j & 1) * 8 + row) * pitch + k0 + (j >> 1) * 4);
    TK_UNROLL
    for (int i = 0; i < 4; ++i) f(id, base + i) = O::input(__uint_as_float(r[i]));
#endif
  } else {
    detail::load_by_value<O, O::a_regs>(f, id, base, [&](int v) {
      const Coord x = O::a(lane, v);
      return K_CONTIGUOUS ? tile[(r0 + x.r) * pitch + k0 + x.c] : tile[(k0 + x.c) * pitch + r0 + x.r];
    });
  }
}

// The same for B's k x n block at (k0, n0): element (k, n) at tile[k * pitch + n] (N_CONTIGUOUS) or
// tile[n * pitch + k]; registers to f(id, base .. base + b_regs - 1).
template <class O, bool N_CONTIGUOUS, class F, class In>
TK_DEVICE void load_b(F& f, int id, int base, const In* tile, int pitch, int k0, int n0, int lane) {
#if defined(TK_MMA_NVIDIA)
  constexpr bool ldsm16 = O::precision == Precision::bf16 || O::precision == Precision::f16;
#else
  constexpr bool ldsm16 = false;
#endif
  if constexpr (ldsm16) {
#if defined(TK_MMA_NVIDIA)
    const int j = (lane / 8) & 1, row = lane % 8;
    const In* p = N_CONTIGUOUS ? tile + (k0 + j * 8 + row) * pitch + n0 : tile + (n0 + row) * pitch + k0 + j * 8;
    std::uint32_t r[2];
    detail::ldsm<N_CONTIGUOUS>(r, p);
    f(id, base) = r[0];
    f(id, base + 1) = r[1];
#endif
  } else {
    detail::load_by_value<O, O::b_regs>(f, id, base, [&](int v) {
      const Coord x = O::b(lane, v);
      return N_CONTIGUOUS ? tile[(k0 + x.r) * pitch + n0 + x.c] : tile[(n0 + x.c) * pitch + k0 + x.r];
    });
  }
}

namespace detail {
inline double value(double x) { return x; }
inline double value(float x) { return x; }
inline double value(tk::bf16 x) { return static_cast<float>(x); }
inline double value(tk::f16 x) { return static_cast<float>(x); }

#if !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
// The CPU executor's instruction: for each warp of the block, the lanes' fragments gathered by the layout, the
// product summed in double from the inputs as the hardware takes them, rounded once to the accumulator.
template <class O, class PD, class PA, class PB>
__attribute__((no_sanitize("thread"))) void emulate(PD& d, int di, const PA& a, int ai, const PB& b, int bi) {
  const int threads = cpu::tls_block.threads;
#if defined(TK_CHECKED)
  cpu::checked::warp_collective("tk::mma::mma_sync", O::lanes);
#endif
  if (threads % O::lanes != 0)
    tk::detail::fail("tk::mma::mma_sync in kernel ", cpu::tls_block.kernel_name, ": a block of ", threads,
                     " threads is not whole warps of ", O::lanes, " lanes");
  using Acc = typename O::Acc;
  constexpr int R = O::per_reg;
  for (int w0 = 0; w0 < threads; w0 += O::lanes) {
    double A[O::m][O::k], B[O::k][O::n];
    for (auto& row : A)
      for (double& x : row) x = __builtin_nan("");  // an element no lane holds poisons the product
    for (auto& row : B)
      for (double& x : row) x = __builtin_nan("");
    for (int l = 0; l < O::lanes; ++l) {
      for (int v = 0; v < O::a_regs * R; ++v) {
        const Coord x = O::a(l, v);
        double y = value(value_of<O>(a.unchecked(w0 + l, ai + v / R), v % R));
        if constexpr (O::precision == Precision::tf32) y = O::taken(static_cast<float>(y));
        A[x.r][x.c] = y;
      }
      for (int v = 0; v < O::b_regs * R; ++v) {
        const Coord x = O::b(l, v);
        double y = value(value_of<O>(b.unchecked(w0 + l, bi + v / R), v % R));
        if constexpr (O::precision == Precision::tf32) y = O::taken(static_cast<float>(y));
        B[x.r][x.c] = y;
      }
    }
    for (int l = 0; l < O::lanes; ++l) {
      for (int i = 0; i < O::c_regs; ++i) {
        const Coord x = O::c(l, i);
        Acc& out = d.unchecked(w0 + l, di + i);
        double s = out;
        for (int k = 0; k < O::k; ++k) s += A[x.r][k] * B[k][x.c];
        out = static_cast<Acc>(s);
      }
    }
  }
}
#endif
}  // namespace detail

// D = A B + D, for every warp of the block (see the top of this file).
template <class O, class PD, class PA, class PB>
TK_DEVICE void mma_sync(PD& d, int di, const PA& a, int ai, const PB& b, int bi) {
#if defined(TK_MMA_NVIDIA)
  if constexpr (O::precision == Precision::tf32) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d(0, di)), "+f"(d(0, di + 1)), "+f"(d(0, di + 2)), "+f"(d(0, di + 3))
        : "r"(__float_as_uint(a(0, ai))), "r"(__float_as_uint(a(0, ai + 1))), "r"(__float_as_uint(a(0, ai + 2))),
          "r"(__float_as_uint(a(0, ai + 3))), "r"(__float_as_uint(b(0, bi))), "r"(__float_as_uint(b(0, bi + 1))));
  } else if constexpr (O::precision == Precision::bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d(0, di)), "+f"(d(0, di + 1)), "+f"(d(0, di + 2)), "+f"(d(0, di + 3))
        : "r"(a(0, ai)), "r"(a(0, ai + 1)), "r"(a(0, ai + 2)), "r"(a(0, ai + 3)), "r"(b(0, bi)), "r"(b(0, bi + 1)));
  } else if constexpr (O::precision == Precision::f16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d(0, di)), "+f"(d(0, di + 1)), "+f"(d(0, di + 2)), "+f"(d(0, di + 3))
        : "r"(a(0, ai)), "r"(a(0, ai + 1)), "r"(a(0, ai + 2)), "r"(a(0, ai + 3)), "r"(b(0, bi)), "r"(b(0, bi + 1)));
  } else {
    mma_f64_16x8x8(d(0, di), d(0, di + 1), d(0, di + 2), d(0, di + 3), a(0, ai), a(0, ai + 1), a(0, ai + 2),
                   a(0, ai + 3), b(0, bi), b(0, bi + 1));
  }
#elif defined(TK_MMA_CDNA)
  using f4 = float __attribute__((ext_vector_type(4)));
  if constexpr (O::precision == Precision::f64) {
    using d4 = double __attribute__((ext_vector_type(4)));
    d4 c = {d(0, di), d(0, di + 1), d(0, di + 2), d(0, di + 3)};
    c = __builtin_amdgcn_mfma_f64_16x16x4f64(a(0, ai), b(0, bi), c, 0, 0, 0);
    for (int i = 0; i < 4; ++i) d(0, di + i) = c[i];
  } else {
    f4 c = {d(0, di), d(0, di + 1), d(0, di + 2), d(0, di + 3)};
    if constexpr (O::precision == Precision::tf32) {
      c = __builtin_amdgcn_mfma_f32_16x16x4f32(a(0, ai), b(0, bi), c, 0, 0, 0);
    } else {
      // four 16-bit values in two registers, as one 64-bit vector of the instruction
      using u2 = unsigned __attribute__((ext_vector_type(2)));
      const u2 ar = {a(0, ai), a(0, ai + 1)}, br = {b(0, bi), b(0, bi + 1)};
      if constexpr (O::precision == Precision::bf16) {
        using s4 = short __attribute__((ext_vector_type(4)));
        c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(__builtin_bit_cast(s4, ar), __builtin_bit_cast(s4, br), c, 0, 0,
                                                      0);
      } else {
        using h4 = _Float16 __attribute__((ext_vector_type(4)));
        c = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(h4, ar), __builtin_bit_cast(h4, br), c, 0, 0, 0);
      }
    }
    for (int i = 0; i < 4; ++i) d(0, di + i) = c[i];
  }
#elif defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  // A GPU without matrix units (or the host pass): the launcher never runs an MMA kernel here.
  (void)d, (void)di, (void)a, (void)ai, (void)b, (void)bi;
  __builtin_trap();
#else
  detail::emulate<O>(d, di, a, ai, b, bi);
#endif
}

// ---- The warpgroup's multiply-accumulate (see the top of this file) ----
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(__HIP__)
#define TK_MMA_WARPGROUP 1
inline constexpr bool has_warpgroup_mma = true;
#else
inline constexpr bool has_warpgroup_mma = false;
#endif

// Whether this translation unit's launchers may run the warpgroup kernels (host code): a CUDA compile whose build
// has sm_90a code (TK_CUDA_WGMMA, cmake/TkKernelSources.cmake), or the CPU executor's copy of the CUDA launchers
// (its emulation); never HIP, HIP-CPU or the CPU's own launchers.
#if defined(__CUDACC__)
#if defined(TK_CUDA_WGMMA)
inline constexpr bool warpgroup_in_build = true;
#else
inline constexpr bool warpgroup_in_build = false;
#endif
#else
inline constexpr bool warpgroup_in_build = tk::this_target == tk::Target::cuda;
#endif

template <Precision P, int N>
struct Warpgroup : Types<P> {
  static_assert(P != Precision::f64, "the warpgroup instruction: tf32, bf16 and f16 inputs");
  static_assert(N == 128 || N == 256, "the warpgroup instruction's n: 128 or 256");
  static constexpr Precision precision = P;
  // tf32: both operands K-major (the instruction transposes only 16-bit values)
  static constexpr bool mn_major_allowed = P != Precision::tf32;
  static constexpr int m = 64, n = N, k = P == Precision::tf32 ? 8 : 16, threads = 128, c_regs = N / 2;
  static TK_HOST_DEVICE constexpr Coord c(int t, int i) {
    return {16 * (t / 32) + (t % 32) / 4 + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * (t % 4) + (i & 1)};
  }
};

// Element e of line `line` in a 128-byte-swizzled strip of `lines` lines (see the top of this file).
template <class In>
TK_HOST_DEVICE constexpr int sw128(int line, int e, int lines) {
  constexpr int per = 128 / static_cast<int>(sizeof(In)), vec = 16 / static_cast<int>(sizeof(In));
  return (e / per) * lines * per + line * per + ((((e % per) / vec) ^ (line & 7)) * vec) + e % vec;
}

template <class In>
struct Operand {
  const In* strip;
  int lines, line0, e0;
};

TK_DEVICE void shared_to_matrix_units() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

#if !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
namespace detail {
inline void warpgroup_check(const char* what) {
#if defined(TK_CHECKED)
  cpu::checked::warp_collective(what, 128);
#endif
  if (cpu::tls_block.threads % 128 != 0)
    tk::detail::fail(what, " in kernel ", cpu::tls_block.kernel_name, ": a block of ", cpu::tls_block.threads,
                     " threads is not whole warpgroups of 128");
}

// An operand block the instruction's descriptor can express: a strip on 1024 bytes of whole 8-line periods,
// the block starting on one, 16-byte aligned, inside one 128-byte group (K-major) or at a group's start
// (MN-major), its lines inside the strip. EXTENT: the block's m or n (64 for A, N for B).
template <bool MN, int K, int EXTENT, class In>
void warpgroup_check_operand(const Operand<In>& o, const char* which) {
  constexpr int per = 128 / static_cast<int>(sizeof(In)), vec = 16 / static_cast<int>(sizeof(In));
  const int span = MN ? K : EXTENT;  // the block's lines
  const bool ok = reinterpret_cast<std::uintptr_t>(o.strip) % 1024 == 0 && o.lines % 8 == 0 && o.line0 % 8 == 0 &&
                  o.line0 >= 0 && o.line0 + span <= o.lines && o.e0 >= 0 &&
                  (MN ? o.e0 % per == 0 : o.e0 % vec == 0 && o.e0 % per + K <= per);
  if (!ok)
    tk::detail::fail("tk::mma::warpgroup_mma in kernel ", cpu::tls_block.kernel_name, ": operand ", which,
                     (MN ? " (MN-major)" : " (K-major)"), " {lines ", o.lines, ", line0 ", o.line0, ", e0 ", o.e0,
                     "} of a strip at ", static_cast<const void*>(o.strip),
                     " is not a block the instruction's descriptor expresses");
}

// One warpgroup's product D += A B from the strips as they are now, into threads g .. g + 127 of d.
template <class W, bool A_MN, bool B_MN, class PD, class In>
__attribute__((no_sanitize("thread"))) void warpgroup_product(PD& d, int di, int g, const Operand<In>& oa,
                                                              const Operand<In>& ob) {
  // what the instruction takes of a value in shared memory: of a float (tf32) its top 19 bits, the low 13
  // mantissa bits ignored (not rounded: no conversion runs between the copy and the instruction)
  const auto at = [](const Operand<In>& o, int line, int e) {
    const In x = o.strip[sw128<In>(o.line0 + line, o.e0 + e, o.lines)];
    if constexpr (W::precision == Precision::tf32) return value(Op<Precision::tf32, false>::taken(x));
    else return value(x);
  };
  // thread-local: 36 KiB is more than some executor threads' stacks hold
  thread_local double A[W::m][W::k], B[W::k][W::n];
  for (int i = 0; i < W::m; ++i)
    for (int k = 0; k < W::k; ++k) A[i][k] = A_MN ? at(oa, k, i) : at(oa, i, k);
  for (int k = 0; k < W::k; ++k)
    for (int j = 0; j < W::n; ++j) B[k][j] = B_MN ? at(ob, k, j) : at(ob, j, k);
  for (int t = g; t < g + W::threads; ++t) {
    for (int i = 0; i < W::c_regs; ++i) {
      const Coord x = W::c(t - g, i);
      auto& out = d.unchecked(t, di + i);
      double sum = out;
      for (int k = 0; k < W::k; ++k) sum += A[x.r][k] * B[k][x.c];
      out = static_cast<typename W::Acc>(sum);
    }
  }
}

// The executor's warpgroup instructions in flight, for the block this OS thread runs: a call's product waits
// in its batch until a warpgroup_wait retires the batch, and reads the strips then, as the GPU may. So a kernel
// that overwrites a strip before the wait that retires its readers gets a wrong product on a CPU too. Fixed
// thread-local storage, touched only by uninstrumented functions (checked mode records and undoes the writes
// that instrumented code makes outside the block's arena). Left over from a block that failed: dropped when
// another block calls.
struct WgOperand {
  const void* strip;
  int lines, line0, e0;
};
using WgRun = void (*)(void* d, int di, const WgOperand* ops, int groups);
struct WgCall {
  static constexpr int max_groups = 8;  // warpgroups of a block of at most 1024 threads
  WgRun run;
  void* d;
  int di, groups;
  WgOperand ops[2 * max_groups];  // A and B of each warpgroup
};
struct WarpgroupInFlight {
  static constexpr int max_batches = 8, max_calls = 32;
  const char* kernel = nullptr;
  Dim3 block{0, 0, 0};
  WgCall calls[max_batches][max_calls];
  int count[max_batches] = {};
  int first = 0, committed = 0;  // the committed batches: a ring from `first`; the open one follows them
};

__attribute__((no_sanitize("thread"))) inline WarpgroupInFlight& warpgroup_in_flight() {
  thread_local WarpgroupInFlight q;
  const cpu::BlockContext& b = cpu::tls_block;
  if (q.kernel != b.kernel_name || q.block.x != b.block_idx.x || q.block.y != b.block_idx.y ||
      q.block.z != b.block_idx.z) {
    q.kernel = b.kernel_name;
    q.block = b.block_idx;
    q.first = q.committed = 0;
    for (int& n : q.count) n = 0;
  }
  return q;
}

template <class W, bool A_MN, bool B_MN, class PD, class In>
__attribute__((no_sanitize("thread"))) void warpgroup_run(void* d, int di, const WgOperand* ops, int groups) {
  const auto op = [](const WgOperand& o) {
    return Operand<In>{static_cast<const In*>(o.strip), o.lines, o.line0, o.e0};
  };
  for (int w = 0; w < groups; ++w)
    if (ops[2 * w].strip != nullptr)
      warpgroup_product<W, A_MN, B_MN>(*static_cast<PD*>(d), di, w * W::threads, op(ops[2 * w]), op(ops[2 * w + 1]));
}

// warpgroup_mma on a CPU: each warpgroup's operands (the same for its 128 threads) checked, the call queued.
template <class W, bool A_MN, bool B_MN, class PD, class PO>
__attribute__((no_sanitize("thread"))) void warpgroup_enqueue(PD& d, int di, const PO& a, const PO& b) {
  using In = typename W::In;
  const auto same = [](const Operand<In>& x, const Operand<In>& y) {
    return x.strip == y.strip && x.lines == y.lines && x.line0 == y.line0 && x.e0 == y.e0;
  };
  WarpgroupInFlight& q = warpgroup_in_flight();
  const int open = (q.first + q.committed) % WarpgroupInFlight::max_batches;
  if (q.count[open] == WarpgroupInFlight::max_calls)
    tk::detail::fail("tk::mma::warpgroup_mma in kernel ", cpu::tls_block.kernel_name, ": more than ",
                     WarpgroupInFlight::max_calls, " calls in one batch (the CPU executor's limit)");
  WgCall& c = q.calls[open][q.count[open]];
  c.run = &warpgroup_run<W, A_MN, B_MN, PD, In>;
  c.d = &d;
  c.di = di;
  c.groups = cpu::tls_block.threads / W::threads;
  for (int w = 0; w < c.groups; ++w) {
    const int g = w * W::threads;
    const Operand<In>&oa = a.unchecked(g, 0), &ob = b.unchecked(g, 0);
    for (int t = g; t < g + W::threads; ++t) {
      if (!same(a.unchecked(t, 0), oa) || !same(b.unchecked(t, 0), ob))
        tk::detail::fail("tk::mma::warpgroup_mma in kernel ", cpu::tls_block.kernel_name, ": thread ", t,
                         " names another operand block than thread ", g, " of its warpgroup");
    }
    if (oa.strip == nullptr && ob.strip == nullptr) {  // a warpgroup that does not multiply
      c.ops[2 * w] = c.ops[2 * w + 1] = {nullptr, 0, 0, 0};
      continue;
    }
    warpgroup_check_operand<A_MN, W::k, W::m>(oa, "A");
    warpgroup_check_operand<B_MN, W::k, W::n>(ob, "B");
    c.ops[2 * w] = {oa.strip, oa.lines, oa.line0, oa.e0};
    c.ops[2 * w + 1] = {ob.strip, ob.lines, ob.line0, ob.e0};
  }
  ++q.count[open];
}

__attribute__((no_sanitize("thread"))) inline void warpgroup_commit_cpu() {
  WarpgroupInFlight& q = warpgroup_in_flight();
  if (q.committed + 1 == WarpgroupInFlight::max_batches)
    tk::detail::fail("tk::mma::warpgroup_commit in kernel ", cpu::tls_block.kernel_name, ": more than ",
                     WarpgroupInFlight::max_batches - 1, " batches in flight (the CPU executor's limit)");
  ++q.committed;
  q.count[(q.first + q.committed) % WarpgroupInFlight::max_batches] = 0;
}

__attribute__((no_sanitize("thread"))) inline void warpgroup_wait_cpu(int n) {
  WarpgroupInFlight& q = warpgroup_in_flight();
  const int open = (q.first + q.committed) % WarpgroupInFlight::max_batches;
  if (q.count[open] != 0)
    tk::detail::fail("tk::mma::warpgroup_wait in kernel ", cpu::tls_block.kernel_name, ": ", q.count[open],
                     " warpgroup_mma calls not committed (warpgroup_commit first)");
  while (q.committed > n) {
    for (int i = 0; i < q.count[q.first]; ++i) {
      const WgCall& c = q.calls[q.first][i];
      c.run(c.d, c.di, c.ops, c.groups);
    }
    q.count[q.first] = 0;
    q.first = (q.first + 1) % WarpgroupInFlight::max_batches;
    --q.committed;
  }
}
}  // namespace detail
#endif

// The accumulators d(.., 0 .. REGS - 1) pinned in place: the compiler moves no access to them across this call
// (an empty asm that reads and writes each one). Between setting them and the first warpgroup_arrive, and
// after the last warpgroup_wait<0>; never while an instruction is in flight (the accumulators are its then).
template <int REGS, class PD>
TK_DEVICE void warpgroup_pin(PD& d) {
#if defined(TK_MMA_WARPGROUP)
  TK_UNROLL
  for (int i = 0; i < REGS; ++i) asm volatile("" : "+f"(d(0, i))::"memory");
#else
  (void)d;
#endif
}

TK_DEVICE void warpgroup_arrive() {
#if defined(TK_MMA_WARPGROUP)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#elif !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  detail::warpgroup_check("tk::mma::warpgroup_arrive");
#endif
}
TK_DEVICE void warpgroup_commit() {
#if defined(TK_MMA_WARPGROUP)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#elif !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  detail::warpgroup_check("tk::mma::warpgroup_commit");
  detail::warpgroup_commit_cpu();
#endif
}
template <int N>
TK_DEVICE void warpgroup_wait() {
#if defined(TK_MMA_WARPGROUP)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#elif !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  detail::warpgroup_check("tk::mma::warpgroup_wait");
  detail::warpgroup_wait_cpu(N);
#endif
}

#if defined(TK_MMA_WARPGROUP)
namespace detail {
// The instruction's shared-memory descriptor of an operand block: start address, LBO (MN-major: the distance
// between 128-byte groups, lines x 128 bytes; K-major: unused, 1), SBO (8 lines: 1024 bytes), 128-byte swizzle.
template <bool MN, class In>
TK_DEVICE std::uint64_t descriptor(const Operand<In>& o) {
  constexpr int per = 128 / static_cast<int>(sizeof(In));
  const In* start = o.strip + (o.e0 / per) * o.lines * per + o.line0 * per + o.e0 % per;
  const auto addr = static_cast<std::uint64_t>(__cvta_generic_to_shared(start));
  const std::uint64_t lbo = MN ? static_cast<std::uint64_t>(o.lines) * 128 / 16 : 1;
  return ((addr & 0x3ffff) >> 4) | (lbo << 16) | (std::uint64_t{1024 / 16} << 32) | (std::uint64_t{1} << 62);
}
}  // namespace detail
#endif

#if defined(TK_MMA_WARPGROUP)
// The instruction for n = 256 and 128: TY "tf32", "bf16" or "f16", KK its k ("8" or "16"), TRANS its transpose
// immediates (", %131, %132" / ", %67, %68" in 16 bits; "" in tf32, which has none) (d's N / 2 floats, the
// descriptors da and db).
#define TK_DETAIL_WGMMA_256(TY, KK, TRANS)                                                                            \
  asm volatile(                                                                                                       \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                                   \
      "wgmma.mma_async.sync.aligned.m64n256k" KK ".f32." TY "." TY                                                    \
      " {"                                                                                                            \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                        \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                              \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                              \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                              \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                              \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                              \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "                  \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"                \
      "}, %128, %129, p, 1, 1" TRANS ";\n}\n"                                                                         \
      : "+f"(d(0, di + 0)), "+f"(d(0, di + 1)), "+f"(d(0, di + 2)), "+f"(d(0, di + 3)), "+f"(d(0, di + 4)),           \
        "+f"(d(0, di + 5)), "+f"(d(0, di + 6)), "+f"(d(0, di + 7)), "+f"(d(0, di + 8)), "+f"(d(0, di + 9)),           \
        "+f"(d(0, di + 10)), "+f"(d(0, di + 11)), "+f"(d(0, di + 12)), "+f"(d(0, di + 13)), "+f"(d(0, di + 14)),      \
        "+f"(d(0, di + 15)), "+f"(d(0, di + 16)), "+f"(d(0, di + 17)), "+f"(d(0, di + 18)), "+f"(d(0, di + 19)),      \
        "+f"(d(0, di + 20)), "+f"(d(0, di + 21)), "+f"(d(0, di + 22)), "+f"(d(0, di + 23)), "+f"(d(0, di + 24)),      \
        "+f"(d(0, di + 25)), "+f"(d(0, di + 26)), "+f"(d(0, di + 27)), "+f"(d(0, di + 28)), "+f"(d(0, di + 29)),      \
        "+f"(d(0, di + 30)), "+f"(d(0, di + 31)), "+f"(d(0, di + 32)), "+f"(d(0, di + 33)), "+f"(d(0, di + 34)),      \
        "+f"(d(0, di + 35)), "+f"(d(0, di + 36)), "+f"(d(0, di + 37)), "+f"(d(0, di + 38)), "+f"(d(0, di + 39)),      \
        "+f"(d(0, di + 40)), "+f"(d(0, di + 41)), "+f"(d(0, di + 42)), "+f"(d(0, di + 43)), "+f"(d(0, di + 44)),      \
        "+f"(d(0, di + 45)), "+f"(d(0, di + 46)), "+f"(d(0, di + 47)), "+f"(d(0, di + 48)), "+f"(d(0, di + 49)),      \
        "+f"(d(0, di + 50)), "+f"(d(0, di + 51)), "+f"(d(0, di + 52)), "+f"(d(0, di + 53)), "+f"(d(0, di + 54)),      \
        "+f"(d(0, di + 55)), "+f"(d(0, di + 56)), "+f"(d(0, di + 57)), "+f"(d(0, di + 58)), "+f"(d(0, di + 59)),      \
        "+f"(d(0, di + 60)), "+f"(d(0, di + 61)), "+f"(d(0, di + 62)), "+f"(d(0, di + 63)), "+f"(d(0, di + 64)),      \
        "+f"(d(0, di + 65)), "+f"(d(0, di + 66)), "+f"(d(0, di + 67)), "+f"(d(0, di + 68)), "+f"(d(0, di + 69)),      \
        "+f"(d(0, di + 70)), "+f"(d(0, di + 71)), "+f"(d(0, di + 72)), "+f"(d(0, di + 73)), "+f"(d(0, di + 74)),      \
        "+f"(d(0, di + 75)), "+f"(d(0, di + 76)), "+f"(d(0, di + 77)), "+f"(d(0, di + 78)), "+f"(d(0, di + 79)),      \
        "+f"(d(0, di + 80)), "+f"(d(0, di + 81)), "+f"(d(0, di + 82)), "+f"(d(0, di + 83)), "+f"(d(0, di + 84)),      \
        "+f"(d(0, di + 85)), "+f"(d(0, di + 86)), "+f"(d(0, di + 87)), "+f"(d(0, di + 88)), "+f"(d(0, di + 89)),      \
        "+f"(d(0, di + 90)), "+f"(d(0, di + 91)), "+f"(d(0, di + 92)), "+f"(d(0, di + 93)), "+f"(d(0, di + 94)),      \
        "+f"(d(0, di + 95)), "+f"(d(0, di + 96)), "+f"(d(0, di + 97)), "+f"(d(0, di + 98)), "+f"(d(0, di + 99)),      \
        "+f"(d(0, di + 100)), "+f"(d(0, di + 101)), "+f"(d(0, di + 102)), "+f"(d(0, di + 103)), "+f"(d(0, di + 104)), \
        "+f"(d(0, di + 105)), "+f"(d(0, di + 106)), "+f"(d(0, di + 107)), "+f"(d(0, di + 108)), "+f"(d(0, di + 109)), \
        "+f"(d(0, di + 110)), "+f"(d(0, di + 111)), "+f"(d(0, di + 112)), "+f"(d(0, di + 113)), "+f"(d(0, di + 114)), \
        "+f"(d(0, di + 115)), "+f"(d(0, di + 116)), "+f"(d(0, di + 117)), "+f"(d(0, di + 118)), "+f"(d(0, di + 119)), \
        "+f"(d(0, di + 120)), "+f"(d(0, di + 121)), "+f"(d(0, di + 122)), "+f"(d(0, di + 123)), "+f"(d(0, di + 124)), \
        "+f"(d(0, di + 125)), "+f"(d(0, di + 126)), "+f"(d(0, di + 127))                                              \
      : "l"(da), "l"(db), "r"(1), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0))
#define TK_DETAIL_WGMMA_128(TY, KK, TRANS)                                                                       \
  asm volatile(                                                                                                  \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                               \
      "wgmma.mma_async.sync.aligned.m64n128k" KK ".f32." TY "." TY                                               \
      " {"                                                                                                       \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                   \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                         \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                         \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"                           \
      "}, %64, %65, p, 1, 1" TRANS ";\n}\n"                                                                      \
      : "+f"(d(0, di + 0)), "+f"(d(0, di + 1)), "+f"(d(0, di + 2)), "+f"(d(0, di + 3)), "+f"(d(0, di + 4)),      \
        "+f"(d(0, di + 5)), "+f"(d(0, di + 6)), "+f"(d(0, di + 7)), "+f"(d(0, di + 8)), "+f"(d(0, di + 9)),      \
        "+f"(d(0, di + 10)), "+f"(d(0, di + 11)), "+f"(d(0, di + 12)), "+f"(d(0, di + 13)), "+f"(d(0, di + 14)), \
        "+f"(d(0, di + 15)), "+f"(d(0, di + 16)), "+f"(d(0, di + 17)), "+f"(d(0, di + 18)), "+f"(d(0, di + 19)), \
        "+f"(d(0, di + 20)), "+f"(d(0, di + 21)), "+f"(d(0, di + 22)), "+f"(d(0, di + 23)), "+f"(d(0, di + 24)), \
        "+f"(d(0, di + 25)), "+f"(d(0, di + 26)), "+f"(d(0, di + 27)), "+f"(d(0, di + 28)), "+f"(d(0, di + 29)), \
        "+f"(d(0, di + 30)), "+f"(d(0, di + 31)), "+f"(d(0, di + 32)), "+f"(d(0, di + 33)), "+f"(d(0, di + 34)), \
        "+f"(d(0, di + 35)), "+f"(d(0, di + 36)), "+f"(d(0, di + 37)), "+f"(d(0, di + 38)), "+f"(d(0, di + 39)), \
        "+f"(d(0, di + 40)), "+f"(d(0, di + 41)), "+f"(d(0, di + 42)), "+f"(d(0, di + 43)), "+f"(d(0, di + 44)), \
        "+f"(d(0, di + 45)), "+f"(d(0, di + 46)), "+f"(d(0, di + 47)), "+f"(d(0, di + 48)), "+f"(d(0, di + 49)), \
        "+f"(d(0, di + 50)), "+f"(d(0, di + 51)), "+f"(d(0, di + 52)), "+f"(d(0, di + 53)), "+f"(d(0, di + 54)), \
        "+f"(d(0, di + 55)), "+f"(d(0, di + 56)), "+f"(d(0, di + 57)), "+f"(d(0, di + 58)), "+f"(d(0, di + 59)), \
        "+f"(d(0, di + 60)), "+f"(d(0, di + 61)), "+f"(d(0, di + 62)), "+f"(d(0, di + 63))                       \
      : "l"(da), "l"(db), "r"(1), "n"(A_MN ? 1 : 0), "n"(B_MN ? 1 : 0))
#endif

// D += A B for every warpgroup of the block, asynchronously (see the top of this file). A_MN / B_MN: the
// operand is MN-major (lines along m / n), else K-major. a and b: tk::Private<Operand<In>>, the same block
// for every thread of a warpgroup (each warpgroup its own).
template <class W, bool A_MN, bool B_MN, class PD, class PO>
TK_DEVICE void warpgroup_mma(PD& d, int di, const PO& a, const PO& b) {
  static_assert(W::mn_major_allowed || (!A_MN && !B_MN), "tf32: K-major operands only");
#if defined(TK_MMA_WARPGROUP)
  const std::uint64_t da = detail::descriptor<A_MN>(a(0)), db = detail::descriptor<B_MN>(b(0));
  if constexpr (W::n == 256 && W::precision == Precision::tf32) {
    TK_DETAIL_WGMMA_256("tf32", "8", "");  // no transpose immediates: %131 and %132 go unused
  } else if constexpr (W::n == 256 && W::precision == Precision::bf16) {
    TK_DETAIL_WGMMA_256("bf16", "16", ", %131, %132");
  } else if constexpr (W::n == 256) {
    TK_DETAIL_WGMMA_256("f16", "16", ", %131, %132");
  } else if constexpr (W::precision == Precision::tf32) {
    TK_DETAIL_WGMMA_128("tf32", "8", "");
  } else if constexpr (W::precision == Precision::bf16) {
    TK_DETAIL_WGMMA_128("bf16", "16", ", %67, %68");
  } else {
    TK_DETAIL_WGMMA_128("f16", "16", ", %67, %68");
  }
#elif defined(__CUDACC__) && !defined(__HIP__)
  (void)d, (void)di, (void)a, (void)b;
  __trap();  // (a device function: nvcc's host pass reaches this from the lambdas of tk::split_roles)
#elif defined(__HIP__) || defined(__HIPCC__)
  (void)d, (void)di, (void)a, (void)b;
  __builtin_trap();
#else
  detail::warpgroup_check("tk::mma::warpgroup_mma");
  detail::warpgroup_enqueue<W, A_MN, B_MN>(d, di, a, b);
#endif
}

#if defined(TK_MMA_WARPGROUP)
#undef TK_DETAIL_WGMMA_256
#undef TK_DETAIL_WGMMA_128
#endif

// ---- The CPU's pair dot product ----
#if defined(__AVX512F__) && !defined(TK_CHECKED) && !defined(__CUDACC__) && !defined(__HIP__) && \
    !defined(__HIPCC__) && (defined(__GNUC__) || defined(__clang__))
#define TK_MMA_PAIR_DOT 1
#define TK_PAIR_DOT_KERNEL TK_KERNEL __attribute__((target("avx512bf16")))
inline constexpr bool pair_dot_native = true;
struct Pairs16 {
  __m512 v;
};
TK_DEVICE Pairs16 pairs_zero() { return {_mm512_setzero_ps()}; }
TK_DEVICE Pairs16 pairs_load(const float* p) { return {_mm512_loadu_ps(p)}; }
TK_DEVICE void pairs_store(float* p, Pairs16 c) { _mm512_storeu_ps(p, c.v); }
__attribute__((always_inline, target("avx512bf16"))) inline Pairs16 pair_dot(Pairs16 c, std::uint32_t a,
                                                                             const std::uint32_t* b) {
  const __m512i bv = _mm512_loadu_si512(b);
  return {_mm512_dpbf16_ps(c.v, (__m512bh)_mm512_set1_epi32(static_cast<int>(a)), (__m512bh)bv)};
}
#else
#define TK_PAIR_DOT_KERNEL TK_KERNEL
inline constexpr bool pair_dot_native = false;
#endif
// Checked mode runs pair-dot kernels lane by lane on any CPU, so that their strips and phases are checked.
#if defined(TK_CHECKED)
inline constexpr bool pair_dot_checked = true;
#else
inline constexpr bool pair_dot_checked = false;
#endif
#if !defined(TK_MMA_PAIR_DOT)
struct Pairs16 {
  float v[16];
};
TK_DEVICE Pairs16 pairs_zero() {
  Pairs16 c;
  for (int l = 0; l < 16; ++l) c.v[l] = 0.f;
  return c;
}
TK_DEVICE Pairs16 pairs_load(const float* p) {
  Pairs16 c;
  for (int l = 0; l < 16; ++l) c.v[l] = p[l];
  return c;
}
TK_DEVICE void pairs_store(float* p, const Pairs16& c) {
  for (int l = 0; l < 16; ++l) p[l] = c.v[l];
}
namespace detail {
// a bf16 (the half of `pair` at `shift`) as a float, a subnormal as zero; a float's subnormal flushed to zero
TK_DEVICE float pair_half(std::uint32_t pair, int shift) {
  std::uint32_t u = ((pair >> shift) & 0xffffu) << 16;
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
  return numeric_detail::float_of(u);
}
TK_DEVICE float flush(float x) {
  std::uint32_t u = numeric_detail::bits_of(x);
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
  return numeric_detail::float_of(u);
}
}  // namespace detail
TK_DEVICE Pairs16 pair_dot(Pairs16 c, std::uint32_t a, const std::uint32_t* b) {
  const float alo = detail::pair_half(a, 0), ahi = detail::pair_half(a, 16);
  for (int l = 0; l < 16; ++l) {
    // each step a fused multiply-add (one rounding, as the instruction's: a product may overflow or underflow on
    // its own), its inputs and result flushed
    const float t = detail::flush(fmaf(ahi, detail::pair_half(b[l], 16), detail::flush(c.v[l])));
    c.v[l] = detail::flush(fmaf(alo, detail::pair_half(b[l], 0), t));
  }
  return c;
}
#endif

// ---- The CPU's tile matrix unit ----
#if defined(TK_MMA_PAIR_DOT)  // (AVX-512: an x86-64 CPU copy, outside checked mode)
#define TK_MMA_TILE_DOT 1
inline constexpr bool tile_dot_native = true;
namespace detail {
struct alignas(64) TileConfig {  // ldtilecfg's 64 bytes: palette 1, eight tiles of 16 rows x 64 bytes
  std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
  std::uint16_t colsb[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};
}  // namespace detail
__attribute__((noinline, target("amx-tile"))) inline void tile_dot_begin() {
  static const detail::TileConfig config;
  __asm__ volatile("ldtilecfg %0" ::"m"(config));
}
__attribute__((noinline, target("amx-tile"))) inline void tile_dot_end() { __asm__ volatile("tilerelease" ::); }
// tmm0-3: C (rows 0-15 and 16-31, columns 0-15 and 16-31), tmm4-5: A's two row halves, tmm6-7: B's column halves
__attribute__((noinline, target("amx-tile,amx-bf16"))) inline void tile_dot_32x32(
    float* c, std::int64_t ldc, const std::uint32_t* a, std::int64_t lda, const std::uint32_t* b, std::int64_t ldb,
    int steps, bool accumulate) {
  const std::int64_t sc = ldc * 4, sa = lda * 4, sb = ldb * 4;
  float* c1 = c + 16 * ldc;
  if (accumulate) {
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm0" ::"r"(c), "r"(sc) : "memory");
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm1" ::"r"(c + 16), "r"(sc) : "memory");
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm2" ::"r"(c1), "r"(sc) : "memory");
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm3" ::"r"(c1 + 16), "r"(sc) : "memory");
  } else {
    __asm__ volatile("tilezero %%tmm0\n\ttilezero %%tmm1\n\ttilezero %%tmm2\n\ttilezero %%tmm3" ::);
  }
  for (int s = 0; s < steps; ++s) {
    const std::uint32_t *a0 = a + 16 * s, *a1 = a0 + 16 * lda, *b0 = b + 16 * s * ldb;
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm4" ::"r"(a0), "r"(sa) : "memory");
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm6" ::"r"(b0), "r"(sb) : "memory");
    __asm__ volatile("tdpbf16ps %%tmm6, %%tmm4, %%tmm0" ::);
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm7" ::"r"(b0 + 16), "r"(sb) : "memory");
    __asm__ volatile("tdpbf16ps %%tmm7, %%tmm4, %%tmm1" ::);
    __asm__ volatile("tileloadd (%0,%1,1), %%tmm5" ::"r"(a1), "r"(sa) : "memory");
    __asm__ volatile("tdpbf16ps %%tmm6, %%tmm5, %%tmm2" ::);
    __asm__ volatile("tdpbf16ps %%tmm7, %%tmm5, %%tmm3" ::);
  }
  __asm__ volatile("tilestored %%tmm0, (%0,%1,1)" ::"r"(c), "r"(sc) : "memory");
  __asm__ volatile("tilestored %%tmm1, (%0,%1,1)" ::"r"(c + 16), "r"(sc) : "memory");
  __asm__ volatile("tilestored %%tmm2, (%0,%1,1)" ::"r"(c1), "r"(sc) : "memory");
  __asm__ volatile("tilestored %%tmm3, (%0,%1,1)" ::"r"(c1 + 16), "r"(sc) : "memory");
}
#else
inline constexpr bool tile_dot_native = false;
TK_DEVICE void tile_dot_begin() {}
TK_DEVICE void tile_dot_end() {}
TK_DEVICE void tile_dot_32x32(float* c, std::int64_t ldc, const std::uint32_t* a, std::int64_t lda,
                              const std::uint32_t* b, std::int64_t ldb, int steps, bool accumulate) {
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      float v = accumulate ? detail::flush(c[i * ldc + j]) : 0.f;
      for (int p = 0; p < 16 * steps; ++p) {
        const std::uint32_t x = a[i * lda + p], y = b[p * ldb + j];
        v = detail::flush(fmaf(detail::pair_half(x, 0), detail::pair_half(y, 0), v));
        v = detail::flush(fmaf(detail::pair_half(x, 16), detail::pair_half(y, 16), v));
      }
      c[i * ldc + j] = v;
    }
  }
}
#endif
#if defined(TK_CHECKED)
inline constexpr bool tile_dot_checked = true;
#else
inline constexpr bool tile_dot_checked = false;
#endif

// Whether a CPU's BF16 GEMM gains from the pair dot product: its BF16 peak (0 without AVX512_BF16) above its
// FP32 FMA peak. AMD Zen 4 runs one 512-bit vdpbf16ps a cycle against one 512-bit FMA (two 256-bit halves):
// twice the multiply-adds. Intel's server cores run one against two 512-bit FMAs: the same, and the float
// kernel wins there (no pairs to copy).
inline bool pair_dot_pays(double peak_bf16_gflops, double peak_fp32_gflops) {
  return peak_bf16_gflops > peak_fp32_gflops;
}

}  // namespace mma
}  // namespace TK_TARGET_NS
}  // namespace tk
