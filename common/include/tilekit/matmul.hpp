// tilekit/matmul.hpp — the matmul family: tk::matmul and the BLAS-style tk::gemm below.
//
// tk::matmul: C = alpha * A * B + beta * C, single precision, row-major (BLAS letters: A is
// M x K with leading dimension lda, B is K x N with ldb, C is M x N with ldc). The seeds write the same
// product as M (m x n) times N (n x k) = P: their m, n, k are M, K, N here.
//
// Pointers are in the memory of `dev`. The BLAS's semantics:
// - M == 0 or N == 0: nothing is done. (alpha == 0 or K == 0) and beta == 1: nothing is done, and no
//   pointer is looked at.
// - alpha == 0 or K == 0 (the product term vanishes): C = beta * C; A and B are neither checked nor read
//   (they may be null or hold NaN or Inf).
// - beta == 0: C is written, never read (it may hold NaN); C = alpha * A * B exactly, not 0 * NaN.
// - Aliasing is decided on elements: C may share no element with A or B (A and B may share elements).
//   Disjoint blocks of one array are fine: the blocks of a blocked LU, interleaved column blocks, a matrix
//   and its own padding columns. A shared element throws tk::Error naming it.
// - Every size, leading dimension and matrix extent is checked without overflow: a matrix that cannot fit
//   in the address space throws tk::Error naming its arguments. Pointers must be aligned to 4 bytes.
// Thread safety: any number of host threads may call tk::matmul at once (README, "The contract"); each
// split-K call takes scratch memory of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/buffer.hpp"
#include "tilekit/device.hpp"
#include "tilekit/numeric.hpp"

namespace tk {

// The seeds' progression, one kernel file each (kernels/matmul/): see tk::matmul_variants() for what
// each teaches. `best` picks the fastest for the device and shape; a C with at most 8 rows or columns (on a
// GPU up to 32 floats or 16 doubles where the large operand's rows lie along C's) it runs as a
// matrix-vector product that reads the large operand once (kernels/matmul/gemv.hpp).
enum class MatmulVariant { naive, smem_tiled16, smem_tiled32, smem_dynamic, register_tiled, warp_tiled, best };

struct MatmulVariantInfo {
  MatmulVariant variant;
  const char* name;     // "smem_tiled16"
  const char* teaches;  // one line: the technique and what it improves
  const char* seed;     // the source document it comes from
};

// Every variant except `best`, in the order of the progression.
const std::vector<MatmulVariantInfo>& matmul_variants();
const char* to_string(MatmulVariant v);

void matmul(const Queue& queue, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const float* A,
            std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
            MatmulVariant variant = MatmulVariant::best);

// Buffer form: A holds M x K, B K x N, C M x N, all densely packed (lda = K, ldb = ldc = N).
void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A, const Buffer<float>& B,
            float beta, Buffer<float>& C, MatmulVariant variant = MatmulVariant::best);

// ---- tk::gemm: the BLAS GEMM ----------------------------------------------------------------------------
// C = alpha * op(A) * op(B) + beta * C, in float and double, row- or column-major, op(X) = X or X^T, and
// its strided batched form. tk::matmul (above) is the row-major, no-transpose, float shorthand of the same
// call.
//
// Shapes (as the BLAS): op(A) is M x K, op(B) is K x N, C is M x N. In the storage order `layout`, A holds
// M x K elements (op_a == Op::none) or K x M (Op::trans), B holds K x N or N x K, C holds M x N; each
// leading dimension is at least max(1, the stored column count) for row-major, the stored row count for
// column-major. Transposed operands are read transposed by the kernels' own tile loads: no copy is made.
// Workspace: in warp_tiled (a GPU's `best`), a single product whose A or B rows are not 16-byte multiples
// (a leading dimension that is not a multiple of 4 floats or 2 doubles, or a pointer off 16 bytes), with
// M N / (M + N) >= 500 and M N K >= 2^31, first copies those operands into aligned rows ("packing": at most
// (M + N) K elements plus each row's padding to 16 bytes, from tilekit's own stream-ordered pool on the
// queue's stream, returned when the call's work is done); if that memory cannot be had, the call runs
// without it. Split-K takes a workspace of its partial sums in the same way. TK_MATMUL_PACK=0 turns packing
// off; 2 packs every single product with such operands, whatever its size.
//
// Pointers are in the memory of `dev`, aligned to their element. The BLAS's semantics:
// - M == 0 or N == 0 (or batch == 0): nothing is done. (alpha == 0 or K == 0) and beta == 1: nothing is
//   done, and no pointer is looked at.
// - alpha == 0 or K == 0: C = beta * C; A and B are neither checked nor read (null, NaN and Inf allowed).
// - beta == 0: C is written, never read (it may hold NaN).
// - C shares no element with A or B (A and B may share); disjoint blocks of one array are fine. With a
//   batch, the C matrices share no element with each other either (stride_c may be less than M * ldc only
//   where the matrices interleave without touching).
// Errors throw tk::Error naming the call and the argument, with its position in the CBLAS call
// (cblas_sgemm(layout=1, transa=2, transb=3, M=4, N=5, K=6, alpha=7, A=8, lda=9, B=10, ldb=11, beta=12,
// C=13, ldc=14)), e.g. "tk::gemm: argument 9 'lda' is 3; expected lda >= max(1, K) = 5 (row-major, op(A) = A,
// stored M x K)". The positions are CBLAS's; the order of the checks is not (a row-major CBLAS checks N
// before M and ldb before lda): when several arguments are wrong, the one named may differ. libtilekit_blas
// (docs/blas.md) reproduces the reference's order exactly.
// On a CPU device a block's shared arrays live on the stack of the thread that runs it (the caller's among
// them): DGEMM's take 330 KiB, so threads that call tilekit need stacks of 1 MiB or more.
// Thread safety: as tk::matmul, any number of host threads may call at once.

enum class Layout { row_major, col_major };
enum class Op { none, trans };  // the BLAS's 'N' and 'T' ('C' is 'T' for real types)

const char* to_string(Layout l);
const char* to_string(Op o);

void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, std::int64_t K,
          float alpha, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
          std::int64_t ldc, MatmulVariant variant = MatmulVariant::best);
void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, std::int64_t K,
          double alpha, const double* A, std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C,
          std::int64_t ldc, MatmulVariant variant = MatmulVariant::best);

// `batch` products, matrix i of each operand at X + i * stride_x (strides in elements, >= 0; a stride of 0
// shares one A or B across the batch, never one C unless batch == 1). batch == 1 is the plain call.
void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N,
                          std::int64_t K, float alpha, const float* A, std::int64_t lda, std::int64_t stride_a,
                          const float* B, std::int64_t ldb, std::int64_t stride_b, float beta, float* C,
                          std::int64_t ldc, std::int64_t stride_c, std::int64_t batch,
                          MatmulVariant variant = MatmulVariant::best);
void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N,
                          std::int64_t K, double alpha, const double* A, std::int64_t lda, std::int64_t stride_a,
                          const double* B, std::int64_t ldb, std::int64_t stride_b, double beta, double* C,
                          std::int64_t ldc, std::int64_t stride_c, std::int64_t batch,
                          MatmulVariant variant = MatmulVariant::best);

// ---- Tensor cores: TF32 float GEMM, and BF16 / FP16 inputs ----
// The same calls, with the same argument checks, error texts (the positions of cblas_sgemm) and semantics.
//
// Float GEMM with a tk::Math after the variant: Math::exact (the default, as every call above) computes
// true FP32 products; Math::tf32 lets the call cut A's and B's elements to TF32 (10 mantissa bits) and
// multiply on the matrix units, accumulating in float, as cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH. The warp-level
// kernel rounds each element to nearest, ties away from zero; `best` on an NVIDIA sm_90 GPU runs the warpgroup
// kernel (wgmma, in builds with sm_90a code; but a batch whose C holds at most 128 * 128 elements runs the
// warp-level one), whose instruction truncates (the low 13 mantissa bits ignored). A
// single product there whose row-major A is stored K x M or B stored K x N (the instruction reads TF32 operands
// along k only), read by two tiles or more (A where C has at least 257 columns, B where it has at least 129 rows;
// column-major: the user's A where C has at least 129 columns, B where it has at least 257 rows) or with rows that
// do not all start on 16 bytes, first transposes that operand into a workspace of the device (4 (M + N) K' bytes
// at most, K' = K rounded up to a multiple of 4), and copies an operand whose rows do not start on 16 bytes with
// 16-byte rows, as for 16-bit inputs (below); other such operands, a batch's, and a call whose workspace cannot be
// had are transposed in the kernel's shared-memory strips instead (slower per tile, no extra pass). Where the
// call's path has no matrix units (a CPU's `best`, an NVIDIA GPU before sm_80, an AMD GPU other than
// gfx90a/gfx94x, the teaching variants) it computes exactly, which TF32 permits. gfx90a has no TF32 instruction:
// there tf32 runs as exact FP32 on the matrix cores. A TF32 call on the matrix units runs their kernels:
// TK_MATMUL_CONFIG (a float warp_tiled configuration) does not apply to it.
//
// 16-bit inputs: A and B as tk::bf16 or tk::f16 (exact products), alpha and beta float, the sum of products in float; C
// float, or the inputs' type (C = alpha * sum + beta * C computed in float, then rounded to nearest even). `best` on an
// NVIDIA sm_90 GPU (H100, H200) runs the warpgroup kernel (kernels/matmul/warpgroup_tiled.hpp: wgmma, in builds whose
// CUDA architectures include 90a, as the default list does; not for a batch whose C holds at most 128 * 128 elements,
// which runs the warp-level kernel; a single product of too few 128 x 256 tiles for the GPU is split along K, its
// partial sums in a workspace of the device of 4 x splits x M x N bytes (unsplit where that cannot be had); a single
// product whose A or B rows do not all start on 16 bytes, every side at least 128 or (A and B of 2^22 elements or more)
// the copy at most an eighth of them, first copies that operand with 16-byte rows into a workspace of the device: at
// most 2 (M K + K N) bytes, and the call may then fail for want of memory). Otherwise `best`, and `warp_tiled`
// everywhere, run the warp-level tensor-core kernel (kernels/matmul/mma_tiled.hpp) where the device has matrix units
// (NVIDIA sm_80+, AMD gfx90a/gfx94x); `warp_tiled` runs it on a CPU too, in the executor's exact emulation of the GPU's
// fragments (slow: for tests). On a CPU with AVX512_BF16, BF16 inputs' `register_tiled` runs the pair-dot kernel
// (kernels/matmul/pair_dot.hpp: vdpbf16ps, two products per float lane, each step a fused multiply-add, subnormal
// inputs and results taken as zero, as the instruction does; in checked mode on any CPU, lane by lane), and `best` does
// too where the CPU's BF16 peak is above its FP32 peak and C has more than 8 columns (DeviceProps::peak_bf16_gflops:
// AMD Zen 4, not Intel's cores). On a CPU with AMX-BF16 whose kernel grants the process the tile state
// (DeviceProps::peak_amx_bf16_gflops: Intel Xeon from Sapphire Rapids on), BF16 inputs' `smem_dynamic`, and `best`
// where C has more than 8 columns, run the tile kernel (kernels/matmul/tile_dot.hpp: tdpbf16ps, 32 x 32 of C per thread
// on the eight tile registers, subnormal inputs and results taken as zero; in checked mode on any CPU, element by
// element); the CPU runtime asks Linux for the tile state (arch_prctl) once per process, when the device's properties
// are first read. Elsewhere, and for the other variants, the call converts A and B (and a 16-bit C) to float in a
// workspace of the device (at most (M + N) K + M N floats per matrix, one matrix at a time) and runs the float variant:
// the same result up to the order of the sums.
void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, std::int64_t K,
          float alpha, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
          std::int64_t ldc, MatmulVariant variant, Math math);
void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N,
                          std::int64_t K, float alpha, const float* A, std::int64_t lda, std::int64_t stride_a,
                          const float* B, std::int64_t ldb, std::int64_t stride_b, float beta, float* C,
                          std::int64_t ldc, std::int64_t stride_c, std::int64_t batch, MatmulVariant variant,
                          Math math);

#define TK_DETAIL_GEMM_16(IN, OUT)                                                                               \
  void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, std::int64_t K, \
            float alpha, const IN* A, std::int64_t lda, const IN* B, std::int64_t ldb, float beta, OUT* C,       \
            std::int64_t ldc, MatmulVariant variant = MatmulVariant::best);                                      \
  void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, \
                            std::int64_t K, float alpha, const IN* A, std::int64_t lda, std::int64_t stride_a,   \
                            const IN* B, std::int64_t ldb, std::int64_t stride_b, float beta, OUT* C,            \
                            std::int64_t ldc, std::int64_t stride_c, std::int64_t batch,                         \
                            MatmulVariant variant = MatmulVariant::best);
TK_DETAIL_GEMM_16(bf16, float)
TK_DETAIL_GEMM_16(bf16, bf16)
TK_DETAIL_GEMM_16(f16, float)
TK_DETAIL_GEMM_16(f16, f16)
#undef TK_DETAIL_GEMM_16

// The names of warp_tiled's tile configurations built for dev's backend, for float (element_bytes 4) or
// double (8), in the order of the target's policy (kernels/matmul/policy/): role names, which the environment
// variable TK_MATMUL_CONFIG accepts, as it does the name derived from a configuration's parts
// (tk::matmul_tile_choice shows it), which forces one of them in every warp_tiled (and GPU `best`, matrix-vector
// shapes included) call of the program, for tuning runs. Empty for the Kokkos backend.
std::vector<const char*> matmul_configs(const Device& dev, int element_bytes);

// What `best` runs on dev for an M x N x K product (row-major, no transpose, contiguous matrices; `batch` of
// them, strided batched) of float (element_bytes 4) or double (8) elements, and why, in words (the rule:
// docs/design.md#what-best-runs): on a CPU the register-tiled kernel's block and register tiles; on a GPU the
// warp-tiled configuration picked, by its role and derived names, or the FP64 matrix-unit kernel (DGEMM on sm_90,
// "mma_tiled ..."); the matrix-vector kernel for a side of C of at most 8 (or 32). For tk-info and tuning; the
// text is not a stable format.
std::string matmul_tile_choice(const Device& dev, int element_bytes, std::int64_t M, std::int64_t N, std::int64_t K,
                               std::int64_t batch = 1);

}  // namespace tk
