// libtilekit_blas with a program's own XERBLA (and no cblas_xerbla of its own), as a C++ program that turns
// BLAS argument errors into exceptions would have: every argument error of sgemm_/dgemm_ and of
// cblas_sgemm/cblas_dgemm's dimensions reaches it with the reference's routine name and Fortran number (the
// reference CBLAS reports those through its Fortran xGEMM), the call then returns without touching C, and an
// exception thrown by the handler reaches the caller. Exit status 0 when every check holds.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tilekit/blas.h"

namespace {

std::string last_name;
int last_info = 0, calls = 0;
bool throwing = false;
int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s (last report: '%s' %d, %d reports)\n", what, last_name.c_str(), last_info, calls);
    ++failures;
  }
}

// Reports since the last reset: exactly one, of `name` and `info`.
bool reported(const char* name, int info) {
  const bool ok = calls == 1 && last_name == name && last_info == info;
  calls = 0;
  last_name.clear();
  last_info = 0;
  return ok;
}

}  // namespace

extern "C" void xerbla_(const char* srname, const int* info, size_t len) {
  last_name.assign(srname, len);
  while (!last_name.empty() && last_name.back() == ' ') last_name.pop_back();
  last_info = *info;
  ++calls;
  if (throwing) throw std::invalid_argument(last_name + " argument " + std::to_string(*info));
}

int main() {
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {-1, -1, -1, -1};
  float af[4] = {1, 2, 3, 4}, bf[4] = {5, 6, 7, 8}, cf[4] = {-1, -1, -1, -1};
  const double one = 1, zero = 0;
  const int two = 2, one_i = 1, minus = -1;

  // Fortran: lda = 1 < M = 2 is argument 8.
  dgemm_("N", "N", &two, &two, &two, &one, a, &one_i, b, &two, &zero, c, &two, 1, 1);
  check(reported("DGEMM", 8), "dgemm_ lda -> XERBLA('DGEMM', 8)");
  // CBLAS, column-major: the same Fortran number through XERBLA (not cblas_xerbla's 9).
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2);
  check(reported("DGEMM", 8), "cblas_dgemm column-major lda -> XERBLA('DGEMM', 8)");
  // Row-major: the column-major call C^T = B^T A^T sees lda as its ldb, argument 10; N as its M, 3.
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2);
  check(reported("DGEMM", 10), "cblas_dgemm row-major lda -> XERBLA('DGEMM', 10)");
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, -1, 2, 1.0f, af, 2, bf, 2, 0.0f, cf, 2);
  check(reported("SGEMM", 3), "cblas_sgemm row-major N < 0 -> XERBLA('SGEMM', 3)");
  sgemm_("N", "X", &two, &two, &minus, nullptr, af, &two, bf, &two, nullptr, cf, &two, 1, 1);
  check(reported("SGEMM", 2), "sgemm_ transb 'X' -> XERBLA('SGEMM', 2)");
  check(c[0] == -1 && c[3] == -1 && cf[0] == -1 && cf[3] == -1, "C untouched by the calls in error");

  // A handler that throws: the exception reaches the caller, from either interface.
  throwing = true;
  for (int which = 0; which < 2; ++which) {
    bool caught = false;
    try {
      if (which == 0) dgemm_("N", "N", &two, &two, &two, &one, a, &one_i, b, &two, &zero, c, &two, 1, 1);
      else cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 1, b, 2, 0.0, c, 2);
    } catch (const std::invalid_argument& e) {
      caught = std::strstr(e.what(), "DGEMM argument") != nullptr;
    }
    check(caught, which == 0 ? "dgemm_: the handler's exception reaches the caller"
                             : "cblas_dgemm: the handler's exception reaches the caller");
    calls = 0;
  }
  throwing = false;

  // After all that, a correct call: no report, and the product (row-major [[1,2],[3,4]] x [[5,6],[7,8]]).
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  check(calls == 0 && c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50, "a correct call after the errors");

  if (failures == 0) std::printf("own XERBLA: every report as the reference's\n");
  return failures == 0 ? 0 : 1;
}
