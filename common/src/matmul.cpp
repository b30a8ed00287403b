// The public entries of tilekit/matmul.hpp: tk::gemm and tk::gemm_strided_batched (the BLAS's argument
// checks, positions as in cblas_sgemm; the quick returns; the column-major call turned row-major; batches
// split for the grid; aliasing decided on elements across a batch), and tk::matmul's variant registry and
// Buffer form (its pointer form is tk::gemm's).
#include "tilekit/matmul.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

const char* to_string(Layout l) {
  return l == Layout::row_major ? "row-major" : l == Layout::col_major ? "column-major" : "unknown";
}
const char* to_string(Op o) { return o == Op::none ? "N" : o == Op::trans ? "T" : "unknown"; }

namespace {

using detail::fail;
using detail::Operand;
using std::int64_t;

// An operand of a batch: matrix i at p + i * stride elements.
struct Batched {
  Operand o;
  int64_t stride;
  const char* stride_arg;
};

// The bytes between matrix 0 and the end of matrix batch - 1, or -1 on overflow.
int64_t batch_span(const Batched& b, int64_t batch) {
  int64_t elems = 0, last = 0, bytes = 0;
  if (__builtin_mul_overflow(b.o.rows - 1, b.o.ld, &elems) || __builtin_add_overflow(elems, b.o.cols, &elems) ||
      __builtin_mul_overflow(batch - 1, b.stride, &last) || __builtin_add_overflow(elems, last, &elems) ||
      __builtin_mul_overflow(elems, static_cast<int64_t>(b.o.elem), &bytes))
    return -1;
  return bytes;
}

void require_batch_addressable(const char* call, const Batched& b, int64_t batch) {
  detail::require_addressable(call, b.o);
  if (batch == 1) return;
  const int64_t bytes = batch_span(b, batch);
  if (bytes >= 0 && reinterpret_cast<std::uintptr_t>(b.o.p) <= UINTPTR_MAX - static_cast<std::uintptr_t>(bytes)) return;
  fail(call, ": arguments 'batch' = ", batch, " and '", b.stride_arg, "' = ", b.stride, " place the last matrix of '",
       b.o.name, "' past the end of the address space");
}

Operand nth(const Batched& b, int64_t i) {
  Operand o = b.o;
  o.p = static_cast<const char*>(o.p) + i * b.stride * static_cast<int64_t>(o.elem);
  return o;
}

// No matrix of `w` shares an element with any matrix of `x` (w == x: with any other matrix of its own batch).
void require_disjoint_batched(const char* call, const Batched& w, const Batched& x, int64_t batch, bool same) {
  if (batch == 1) {
    if (!same) detail::require_disjoint(call, w.o, x.o);
    return;
  }
  const auto e = static_cast<int64_t>(w.o.elem);
  const auto start = [](const Batched& b) { return reinterpret_cast<std::uintptr_t>(b.o.p); };
  const int64_t span_w = batch_span(w, batch), span_x = batch_span(x, batch);
  if (!same && (start(w) + span_w <= start(x) || start(x) + span_x <= start(w))) return;  // apart: the usual case
  const auto report = [&](int64_t i, int64_t j, const detail::Overlap& o) {
    fail(call, ": element ", detail::caller_coords(w.o, o.xi, o.xj), " of matrix ", i, " of '", w.o.name,
         "' is element ", detail::caller_coords(x.o, o.yi, o.yj), " of matrix ", j, " of '", x.o.name,
         "'; a written matrix must share no element with another operand");
  };
  const int64_t one_w = batch_span(w, 1), one_x = batch_span(x, 1);
  if (same) {  // matrix i against i + d: the same geometry for every i, so only d varies
    if (w.stride == 0)
      fail(call, ": argument '", w.stride_arg, "' is 0 with batch = ", batch, "; the ", batch, " matrices of '",
           w.o.name, "' would be one");
    for (int64_t d = 1; d < batch && (d * w.stride) * e < one_w; ++d) {
      const detail::Overlap o = detail::find_overlap(nth(w, 0), nth(w, d));
      if (o.found) report(0, d, o);
    }
    return;
  }
  // matrix i of w against the matrices of x whose spans can meet it
  for (int64_t i = 0; i < batch; ++i) {
    const Operand wi = nth(w, i);
    const int64_t off = static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(wi.p) - start(x));  // bytes, may be < 0
    int64_t lo = 0, hi = batch - 1;
    if (x.stride != 0) {
      const int64_t step =
          x.stride * static_cast<int64_t>(x.o.elem);  // matrix j of x spans [j * step, j * step + one_x)
                                                      // from start(x)
      lo = std::max<int64_t>(0, (off - one_x) / step);
      hi = std::min<int64_t>(batch - 1, (off + one_w) / step + 1);
    } else {
      hi = 0;
    }
    for (int64_t j = lo; j <= hi; ++j) {
      const detail::Overlap o = detail::find_overlap(wi, nth(x, j));
      if (o.found) report(i, j, o);
    }
  }
}

// T: alpha's and beta's type; In: A's and B's elements; Out: C's (all T but for the 16-bit GEMMs).
template <class T, class In, class Out>
void gemm_checked(const char* call, const Device& dev, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K,
                  T alpha, const In* A, int64_t lda, int64_t sa, const In* B, int64_t ldb, int64_t sb, T beta, Out* C,
                  int64_t ldc, int64_t sc, int64_t batch, MatmulVariant variant, bool batched,
                  Math math = Math::exact) {
  constexpr bool same = std::is_same_v<T, In> && std::is_same_v<T, Out>;
  const bool row = layout == Layout::row_major;
  if (layout != Layout::row_major && layout != Layout::col_major)
    fail(call, ": argument 1 'layout' is ", static_cast<int>(layout), "; expected tk::Layout::row_major or col_major");
  if (op_a != Op::none && op_a != Op::trans)
    fail(call, ": argument 2 'op_a' is ", static_cast<int>(op_a), "; expected tk::Op::none or trans");
  if (op_b != Op::none && op_b != Op::trans)
    fail(call, ": argument 3 'op_b' is ", static_cast<int>(op_b), "; expected tk::Op::none or trans");
  const auto nonnegative = [&](int pos, const char* name, int64_t v) {
    if (v < 0) fail(call, ": argument ", pos, " '", name, "' is ", v, "; expected ", name, " >= 0");
  };
  nonnegative(4, "M", M);
  nonnegative(5, "N", N);
  nonnegative(6, "K", K);
  // The stored shapes, in `layout`: A is M x K (op_a N) or K x M; B is K x N or N x K; C is M x N.
  const bool ta = op_a == Op::trans, tb = op_b == Op::trans;
  struct Stored {
    const char *rows_arg, *cols_arg;
    int64_t rows, cols;
  };
  const Stored sta = ta ? Stored{"K", "M", K, M} : Stored{"M", "K", M, K};
  const Stored stb = tb ? Stored{"N", "K", N, K} : Stored{"K", "N", K, N};
  const Stored stc{"M", "N", M, N};
  const auto ld_check = [&](int pos, const char* name, int64_t ld, const Stored& s, const char* what) {
    const int64_t need = std::max<int64_t>(1, row ? s.cols : s.rows);
    if (ld < need)
      fail(call, ": argument ", pos, " '", name, "' is ", ld, "; expected ", name, " >= max(1, ",
           row ? s.cols_arg : s.rows_arg, ") = ", need, " (", to_string(layout), ", ", what, " stored ", s.rows_arg,
           " x ", s.cols_arg, ")");
  };
  ld_check(9, "lda", lda, sta, ta ? "op(A) = A^T, A" : "op(A) = A,");
  ld_check(11, "ldb", ldb, stb, tb ? "op(B) = B^T, B" : "op(B) = B,");
  ld_check(14, "ldc", ldc, stc, "C");
  if (batched) {
    if (batch < 0) fail(call, ": argument 'batch' is ", batch, "; expected batch >= 0");
    for (const auto& [name, s] : {std::tuple{"stride_a", sa}, std::tuple{"stride_b", sb}, std::tuple{"stride_c", sc}})
      if (s < 0) fail(call, ": argument '", name, "' is ", s, "; expected ", name, " >= 0");
  }
  detail::require(static_cast<int>(variant) >= 0 && static_cast<int>(variant) <= static_cast<int>(MatmulVariant::best),
                  call, "variant", static_cast<int>(variant), "a tk::MatmulVariant");
  if (math != Math::exact && math != Math::tf32)
    fail(call, ": argument 'math' is ", static_cast<int>(math), "; expected tk::Math::exact or tk::Math::tf32");
  // The BLAS quick returns: nothing to compute, or C = 1 * C.
  if (M == 0 || N == 0 || batch == 0 || ((alpha == T(0) || K == 0) && beta == T(1))) return;

  // Row-major from here: a column-major C is the row-major C^T = op(B)^T op(A)^T, so A and B trade places.
  // An operand stored R x C column-major is C x R row-major with the same leading dimension.
  const auto as_row = [&](const char* name, const void* p, const Stored& s, int64_t ld, const char* ld_arg,
                          int64_t stride, const char* stride_arg, std::size_t elem) {
    Operand o = row ? Operand{name, p, s.rows, s.cols, ld, s.rows_arg, s.cols_arg, ld_arg}
                    : Operand{name, p, s.cols, s.rows, ld, s.cols_arg, s.rows_arg, ld_arg};
    o.elem = elem;
    o.col_major = !row;
    return Batched{o, stride, stride_arg};
  };
  const Batched bc = as_row("C", C, stc, ldc, "ldc", sc, "stride_c", sizeof(Out));
  detail::check_pointer(dev, C, call, "C", alignof(Out));
  require_batch_addressable(call, bc, batch);
  require_disjoint_batched(call, bc, bc, batch, true);
  detail::GemmArgs<T, In, Out> a;
  if (alpha == T(0) || K == 0) {  // no product term: A and B are not read (they may be null, or hold NaN)
    if constexpr (!same) {        // the 16-bit launchers scale C themselves (K = 0)
      a.M = bc.o.rows;
      a.N = bc.o.cols;
      a.beta = beta;
      a.C = C;
      a.ldc = ldc;
      a.sc = sc;
      a.batch = batch;
      TK_DISPATCH(dev, gemm, dev, variant, a);
    }
    if constexpr (same) {
      for (int64_t i = 0; i < batch; ++i) {
        T* ci = C + i * sc;
        const int64_t rows = bc.o.rows, cols = bc.o.cols;
        [&]() -> void { TK_DISPATCH(dev, matrix_scale, dev, rows, cols, beta, ci, ldc); }();
      }
    }
    return;
  }
  detail::check_pointer(dev, A, call, "A", alignof(In));
  detail::check_pointer(dev, B, call, "B", alignof(In));
  const Batched ba = as_row("A", A, sta, lda, "lda", sa, "stride_a", sizeof(In)),
                bb = as_row("B", B, stb, ldb, "ldb", sb, "stride_b", sizeof(In));
  require_batch_addressable(call, ba, batch);
  require_batch_addressable(call, bb, batch);
  require_disjoint_batched(call, bc, ba, batch, false);
  require_disjoint_batched(call, bc, bb, batch, false);

  // Row-major as it is, or column-major as the row-major product C^T = op(B)^T op(A)^T: A and B swap roles.
  a.M = row ? M : N;
  a.N = row ? N : M;
  a.K = K;
  a.alpha = alpha;
  a.A = row ? A : B;
  a.lda = row ? lda : ldb;
  a.sa = row ? sa : sb;
  a.ta = row ? ta : tb;
  a.B = row ? B : A;
  a.ldb = row ? ldb : lda;
  a.sb = row ? sb : sa;
  a.tb = row ? tb : ta;
  a.beta = beta;
  a.C = C;
  a.ldc = ldc;
  a.sc = sc;
  a.batch = batch;
  a.math = math;
  if constexpr (same) {
    TK_DISPATCH(dev, gemm, dev, variant, a, nullptr);
  } else {
    TK_DISPATCH(dev, gemm, dev, variant, a);
  }
}

}  // namespace

void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K, float alpha,
          const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
          MatmulVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  gemm_checked("tk::gemm", dev, layout, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1, variant,
               false);
}

void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K, double alpha,
          const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
          MatmulVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  gemm_checked("tk::gemm", dev, layout, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1, variant,
               false);
}

void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K,
                          float alpha, const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb,
                          int64_t stride_b, float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch,
                          MatmulVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  gemm_checked("tk::gemm_strided_batched", dev, layout, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b,
               beta, C, ldc, stride_c, batch, variant, true);
}

void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K,
                          double alpha, const double* A, int64_t lda, int64_t stride_a, const double* B, int64_t ldb,
                          int64_t stride_b, double beta, double* C, int64_t ldc, int64_t stride_c, int64_t batch,
                          MatmulVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  gemm_checked("tk::gemm_strided_batched", dev, layout, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b,
               beta, C, ldc, stride_c, batch, variant, true);
}

void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K, float alpha,
          const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
          MatmulVariant variant, Math math) {
  const detail::OnQueue on(queue, __func__);
  gemm_checked("tk::gemm", queue.device(), layout, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
               variant, false, math);
}

void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K,
                          float alpha, const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb,
                          int64_t stride_b, float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch,
                          MatmulVariant variant, Math math) {
  const detail::OnQueue on(queue, __func__);
  gemm_checked("tk::gemm_strided_batched", queue.device(), layout, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, ldb,
               stride_b, beta, C, ldc, stride_c, batch, variant, true, math);
}

#define TK_DETAIL_GEMM_16(IN, OUT)                                                                                    \
  void gemm(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K, float alpha,        \
            const IN* A, int64_t lda, const IN* B, int64_t ldb, float beta, OUT* C, int64_t ldc,                      \
            MatmulVariant variant) {                                                                                  \
    const detail::OnQueue on(queue, __func__);                                                                        \
    gemm_checked("tk::gemm", queue.device(), layout, op_a, op_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc,  \
                 0, 1, variant, false);                                                                               \
  }                                                                                                                   \
  void gemm_strided_batched(const Queue& queue, Layout layout, Op op_a, Op op_b, int64_t M, int64_t N, int64_t K,     \
                            float alpha, const IN* A, int64_t lda, int64_t stride_a, const IN* B, int64_t ldb,        \
                            int64_t stride_b, float beta, OUT* C, int64_t ldc, int64_t stride_c, int64_t batch,       \
                            MatmulVariant variant) {                                                                  \
    const detail::OnQueue on(queue, __func__);                                                                        \
    gemm_checked("tk::gemm_strided_batched", queue.device(), layout, op_a, op_b, M, N, K, alpha, A, lda, stride_a, B, \
                 ldb, stride_b, beta, C, ldc, stride_c, batch, variant, true);                                        \
  }
TK_DETAIL_GEMM_16(bf16, float)
TK_DETAIL_GEMM_16(bf16, bf16)
TK_DETAIL_GEMM_16(f16, float)
TK_DETAIL_GEMM_16(f16, f16)
#undef TK_DETAIL_GEMM_16

const char* to_string(Math m) { return m == Math::exact ? "exact" : m == Math::tf32 ? "tf32" : "unknown"; }

std::vector<const char*> matmul_configs(const Device& dev, int element_bytes) {
  detail::require(element_bytes == 4 || element_bytes == 8, "tk::matmul_configs", "element_bytes", element_bytes,
                  "4 (float) or 8 (double)");
  TK_DISPATCH(dev, matmul_configs, element_bytes);
}

std::string matmul_tile_choice(const Device& dev, int element_bytes, int64_t M, int64_t N, int64_t K, int64_t batch) {
  detail::require(element_bytes == 4 || element_bytes == 8, "tk::matmul_tile_choice", "element_bytes", element_bytes,
                  "4 (float) or 8 (double)");
  detail::require(M >= 1, "tk::matmul_tile_choice", "M", M, ">= 1");
  detail::require(N >= 1, "tk::matmul_tile_choice", "N", N, ">= 1");
  detail::require(K >= 1, "tk::matmul_tile_choice", "K", K, ">= 1");
  detail::require(batch >= 1, "tk::matmul_tile_choice", "batch", batch, ">= 1");
  // the contiguous matrices it describes have element counts (and a batch's span) that a 64-bit index holds, as
  // a real call's operands must be addressable
  int64_t mk = 0, kn = 0, mn = 0, span = 0;
  if (__builtin_mul_overflow(M, K, &mk) || __builtin_mul_overflow(K, N, &kn) || __builtin_mul_overflow(M, N, &mn) ||
      __builtin_mul_overflow(std::max({mk, kn, mn}), batch, &span) || span > INT64_MAX / 8)
    fail("tk::matmul_tile_choice: ", M, " x ", N, " x ", K, " (argument 'batch' is ", batch,
         "): the operands' element counts overflow a 64-bit index");
  TK_DISPATCH(dev, matmul_tile_choice, dev, element_bytes, M, N, K, batch);
}

void matmul(const Queue& queue, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
            const float* B, int64_t ldb, float beta, float* C, int64_t ldc, MatmulVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  gemm_checked("tk::matmul", dev, Layout::row_major, Op::none, Op::none, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C,
               ldc, 0, 1, variant, false);
}

// ---- tk::matmul ----

const std::vector<MatmulVariantInfo>& matmul_variants() {
  static const std::vector<MatmulVariantInfo>& all = *new std::vector<MatmulVariantInfo>{
      // never destroyed: usable during exit
      {MatmulVariant::naive, "naive", "one thread per output, operands from global memory: CGMA 1", "000, 001"},
      {MatmulVariant::smem_tiled16, "smem_tiled16", "16 x 16 tiles of A and B shared by a block: CGMA 16", "001, 002"},
      {MatmulVariant::smem_tiled32, "smem_tiled32", "32 x 32 tiles: CGMA 32, 1024 threads per block", "000, 001, 002"},
      {MatmulVariant::smem_dynamic, "smem_dynamic", "the tile size chosen at run time, in dynamic shared memory",
       "004"},
      {MatmulVariant::register_tiled, "register_tiled",
       "TM x TN outputs per thread from registers, vector loads, A transposed in shared memory", "001 (registers)"},
      {MatmulVariant::warp_tiled, "warp_tiled",
       "warp tiles, double-buffered k loop, rasterised blocks, split-K for skinny C", "002 (blocking)"},
  };
  return all;
}

const char* to_string(MatmulVariant v) {
  if (v == MatmulVariant::best) return "best";
  for (const auto& info : matmul_variants())
    if (info.variant == v) return info.name;
  return "unknown";
}

void matmul(std::int64_t M, std::int64_t N, std::int64_t K, float alpha, const Buffer<float>& A, const Buffer<float>& B,
            float beta, Buffer<float>& C, MatmulVariant variant) {
  const char* call = "tk::matmul";
  // rows * cols, or INT64_MAX when the product overflows (no buffer holds that many elements).
  auto elements = [](std::int64_t rows, std::int64_t cols) {
    std::int64_t n = 0;
    return __builtin_mul_overflow(rows, cols, &n) ? INT64_MAX : n;
  };
  for (const auto& [buf, name, need] : {std::tuple{&A, "A", elements(M, K)}, std::tuple{&B, "B", elements(K, N)}}) {
    if (buf->device() != C.device())
      detail::fail(call, ": argument '", name, "' is on ", buf->device().name(), "; expected ", C.device().name(),
                   ", the device of 'C'");
    if (M >= 0 && N >= 0 && K >= 0 && static_cast<std::int64_t>(buf->size()) < need)
      detail::fail(call, ": argument '", name, "' has ", buf->size(), " elements; expected at least ", need);
  }
  if (M >= 0 && N >= 0 && static_cast<std::int64_t>(C.size()) < elements(M, N))
    detail::fail(call, ": argument 'C' has ", C.size(), " elements; expected at least ", elements(M, N));
  matmul(C.device(), M, N, K, alpha, A.data(), K > 0 ? K : 1, B.data(), N > 0 ? N : 1, beta, C.data(), N > 0 ? N : 1,
         variant);
}

}  // namespace tk
