// libtilekit_blas: the BLAS's SGEMM and DGEMM entry points (Fortran and CBLAS) on tk::gemm.
// The contract (argument checks, error handlers, TK_BLAS_DEVICE, copies) is in include/tilekit/blas.h.
#include "tilekit/blas.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "blas_internal.hpp"
#include "tilekit/buffer.hpp"
#include "tilekit/device.hpp"
#include "tilekit/error.hpp"
#include "tilekit/matmul.hpp"

namespace tk::blas {

namespace {

thread_local bool cblas_call = false, row_major_cblas_call = false;

[[noreturn]] void die(const char* routine, const char* message) {
  std::fprintf(stderr, "tilekit_blas: %s: %s\n", routine, message);
  std::fflush(stderr);
  std::abort();
}

// TK_BLAS_DEVICE, spelt as tk::Device::name() writes a device: cpu, cuda, cuda:N, hip, hip:N, kokkos.
Device parse_device(const std::string& s) {
  if (s.empty() || s == "cpu") return Device::cpu();
  if (s == "kokkos") return Device::kokkos();
  for (const char* gpu : {"cuda", "hip"}) {
    const std::string b = gpu;
    if (s.compare(0, b.size(), b) != 0) continue;
    int index = 0;
    if (s.size() > b.size()) {
      const std::string digits = s.substr(b.size() + 1);
      if (s[b.size()] != ':' || digits.empty() || digits.size() > 4 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        break;
      index = std::stoi(digits);
    }
    return b == "cuda" ? Device::cuda(index) : Device::hip(index);
  }
  detail::fail("unknown device; expected cpu, cuda, cuda:N, hip, hip:N or kokkos");
}

// Chosen once, by whichever thread first has work to do (a function-local static: thread-safe).
const Device& blas_device() {
  static const Device dev = [] {
    const char* env = std::getenv("TK_BLAS_DEVICE");
    const std::string value = env != nullptr ? env : "";
    try {
      return parse_device(value);
    } catch (const std::exception& e) {
      die(("TK_BLAS_DEVICE=" + value).c_str(), e.what());
    }
  }();
  return dev;
}

// LSAME: the first character, either case.
char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
bool valid_trans(char c) {
  c = upper(c);
  return c == 'N' || c == 'T' || c == 'C';
}

// The reference xGEMM's checks, in its order; 0 or the number of the offending argument.
int fortran_info(char transa, char transb, int M, int N, int K, int lda, int ldb, int ldc) {
  const bool nota = upper(transa) == 'N';
  const bool notb = upper(transb) == 'N';
  const int nrowa = nota ? M : K;
  const int nrowb = notb ? K : N;
  auto at_least_1 = [](int v) { return v > 1 ? v : 1; };
  if (!valid_trans(transa)) return 1;
  if (!valid_trans(transb)) return 2;
  if (M < 0) return 3;
  if (N < 0) return 4;
  if (K < 0) return 5;
  if (lda < at_least_1(nrowa)) return 8;
  if (ldb < at_least_1(nrowb)) return 10;
  if (ldc < at_least_1(M)) return 13;
  return 0;
}

// Elements spanned by a rows x cols matrix with leading dimension ld in `layout` (0 when it is empty).
std::size_t span(Layout layout, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  const std::int64_t outer = layout == Layout::col_major ? cols : rows;
  const std::int64_t inner = layout == Layout::col_major ? rows : cols;
  return static_cast<std::size_t>(ld * (outer - 1) + inner);
}

// tk::gemm on the device of TK_BLAS_DEVICE; arguments already checked, not a quick return.
template <class T>
void run(Layout layout, Op op_a, Op op_b, std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A,
         std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  const Device& dev = blas_device();
  if (dev.backend() == Backend::cpu) {
    gemm(dev, layout, op_a, op_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  // Another device: its own copies of the operands, as NVBLAS does. A and B only when they are read; C's
  // storage only when beta != 0; back, only the M x N elements of the result (C's storage between them may
  // belong to other calls, e.g. another thread's rows of the same column-major matrix).
  Buffer<T> a, b;
  const bool product = alpha != T(0) && K != 0;
  if (product) {
    const std::size_t na = op_a == Op::none ? span(layout, M, K, lda) : span(layout, K, M, lda);
    const std::size_t nb = op_b == Op::none ? span(layout, K, N, ldb) : span(layout, N, K, ldb);
    a = Buffer<T>(dev, na);
    a.copy_from_host(A, na);
    b = Buffer<T>(dev, nb);
    b.copy_from_host(B, nb);
  }
  const std::size_t nc = span(layout, M, N, ldc);
  Buffer<T> c(dev, nc);
  if (beta != T(0)) c.copy_from_host(C, nc);
  gemm(dev, layout, op_a, op_b, M, N, K, alpha, product ? a.data() : nullptr, lda, product ? b.data() : nullptr, ldb,
       beta, c.data(), ldc);
  const std::int64_t outer = layout == Layout::col_major ? N : M;
  const std::int64_t inner = layout == Layout::col_major ? M : N;
  if (ldc == inner) {
    c.copy_to_host(C, nc);
  } else {
    for (std::int64_t j = 0; j < outer; ++j)
      c.copy_to_host(C + j * ldc, static_cast<std::size_t>(inner), static_cast<std::size_t>(j * ldc));
  }
}

Op to_op(char c) { return upper(c) == 'N' ? Op::none : Op::trans; }

// The call itself, once its arguments are checked and it is no quick return: a tk::Error (or anything else)
// ends the program with its message (tilekit/blas.h).
template <class T>
void run_or_die(const char* routine, Layout layout, char transa, char transb, int M, int N, int K, T alpha, const T* A,
                int lda, const T* B, int ldb, T beta, T* C, int ldc) noexcept {
  try {
    run(layout, to_op(transa), to_op(transb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } catch (const std::exception& e) {
    die(routine, e.what());
  } catch (...) {
    die(routine, "unknown exception");
  }
}

// sgemm_ / dgemm_. Not noexcept: a program's XERBLA may throw, and its exception reaches the caller as it
// would from the reference BLAS.
template <class T>
void fortran_gemm(const char* name, const char* routine, const char* transa, const char* transb, const int* m,
                  const int* n, const int* k, const T* alpha, const T* a, const int* lda, const T* b, const int* ldb,
                  const T* beta, T* c, const int* ldc) {
  const int info = fortran_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
  if (info != 0) {
    xerbla_(name, &info, 6);  // the global symbol: the program's XERBLA when it has one
    return;
  }
  if (*m == 0 || *n == 0 || ((*alpha == T(0) || *k == 0) && *beta == T(1))) return;
  run_or_die(routine, Layout::col_major, *transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

// While a CBLAS call checks its arguments (this thread's call only): our default handlers then report as the
// reference CBLAS's do with its globals CBLAS_CallFromC and RowMajorStrg. Reset on the way out, also when a
// program's handler throws.
struct CblasCall {
  explicit CblasCall(bool row_major) {
    cblas_call = true;
    row_major_cblas_call = row_major;
  }
  ~CblasCall() { cblas_call = row_major_cblas_call = false; }
  CblasCall(const CblasCall&) = delete;
  CblasCall& operator=(const CblasCall&) = delete;
};

char trans_char(CBLAS_TRANSPOSE t) {
  return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : '\0';
}

// cblas_sgemm / cblas_dgemm: the reference CBLAS's checks, then tk::gemm in the caller's own layout. Not
// noexcept, as fortran_gemm.
template <class T>
void cblas_gemm(const char* name, const char* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA,
                CBLAS_TRANSPOSE TransB, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta,
                T* C, int ldc) {
  const char ta = trans_char(TransA);
  const char tb = trans_char(TransB);
  {
    const CblasCall call(layout == CblasRowMajor);
    if (layout != CblasColMajor && layout != CblasRowMajor) {
      cblas_xerbla(1, routine, "Illegal layout setting, %d\n", static_cast<int>(layout));
      return;
    }
    if (ta == '\0') {
      cblas_xerbla(2, routine, "Illegal TransA setting, %d\n", static_cast<int>(TransA));
      return;
    }
    if (tb == '\0') {
      cblas_xerbla(3, routine, "Illegal TransB setting, %d\n", static_cast<int>(TransB));
      return;
    }
    // Row-major: the reference forwards C^T = op(B)^T op(A)^T to the column-major xGEMM, whose checks see
    // B, A, N, M, ldb, lda and report through XERBLA (the global symbol: the program's when it has one, else
    // the default, which hands CBLAS's number, info + 1, to cblas_xerbla).
    const int info = layout == CblasColMajor ? fortran_info(ta, tb, M, N, K, lda, ldb, ldc)
                                             : fortran_info(tb, ta, N, M, K, ldb, lda, ldc);
    if (info != 0) {
      xerbla_(name, &info, 6);
      return;
    }
  }
  if (M == 0 || N == 0 || ((alpha == T(0) || K == 0) && beta == T(1))) return;
  run_or_die(routine, layout == CblasColMajor ? Layout::col_major : Layout::row_major, ta, tb, M, N, K, alpha, A, lda,
             B, ldb, beta, C, ldc);
}

}  // namespace

bool in_cblas_call() { return cblas_call; }
bool in_row_major_cblas_call() { return row_major_cblas_call; }

}  // namespace tk::blas

extern "C" {

void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, int M, int N, int K, float alpha,
                 const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  tk::blas::cblas_gemm("SGEMM ", "cblas_sgemm", layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, int M, int N, int K, double alpha,
                 const double* A, int lda, const double* B, int ldb, double beta, double* C, int ldc) {
  tk::blas::cblas_gemm("DGEMM ", "cblas_dgemm", layout, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc,
            size_t, size_t) {
  tk::blas::fortran_gemm("SGEMM ", "SGEMM", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, size_t, size_t) {
  tk::blas::fortran_gemm("DGEMM ", "DGEMM", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // extern "C"
