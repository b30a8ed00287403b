// The default error handlers of libtilekit_blas, as the reference BLAS's and CBLAS's (tilekit/blas.h).
// Weak, and in a file of their own: tilekit_blas.cpp calls them through their global symbols, so that a
// program's own xerbla_ / cblas_xerbla (the reference test programs have both) receive every report.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "blas_internal.hpp"
#include "tilekit/blas.h"

extern "C" {

// The reference BLAS's XERBLA: WRITE(*, '(" ** On entry to ", A, " parameter number ", I2, " had an illegal
// value")') SRNAME(1:LEN_TRIM(SRNAME)), INFO, then STOP (exit status 0).
__attribute__((weak)) void xerbla_(const char* srname, const int* info, size_t srname_len) {
  while (srname_len > 0 && srname[srname_len - 1] == ' ') --srname_len;
  char number[3] = "**";  // I2: two columns, asterisks when the number does not fit
  if (*info >= -9 && *info <= 99) std::snprintf(number, sizeof number, "%2d", *info);
  std::printf(" ** On entry to %.*s parameter number %s had an illegal value\n", static_cast<int>(srname_len),
              srname, number);
  std::fflush(stdout);
  std::exit(0);
}

// The reference CBLAS's cblas_xerbla: for a row-major gemm the number it is given is that of the column-major
// call the CBLAS made (4 and 5, 9 and 11 exchanged); it prints the caller's, then the message, and exits.
__attribute__((weak)) void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  if (tk::blas::in_row_major_cblas_call() && std::strstr(rout, "gemm") != nullptr) {
    if (info == 4) info = 5;
    else if (info == 5) info = 4;
    else if (info == 9) info = 11;
    else if (info == 11) info = 9;
  }
  if (info != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  va_list args;
  va_start(args, form);
  std::vfprintf(stderr, form, args);
  va_end(args);
  std::exit(-1);
}

}  // extern "C"
