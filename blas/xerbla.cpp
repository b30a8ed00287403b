// The default error handlers of libtilekit_blas, as the reference BLAS's and CBLAS's (tilekit/blas.h).
// Weak, and in a file of their own: tilekit_blas.cpp calls them through their global symbols, so that a
// program's own xerbla_ / cblas_xerbla (the reference test programs have both) receive every report.
//
// Ours may also come first for another BLAS loaded after this library (LD_PRELOAD in front of the reference
// BLAS, as tools/blas-test.sh does): its routines then report through our handlers. A report that is not
// from our own CBLAS call goes on to that library's handler (the next definition of the symbol, RTLD_NEXT),
// which knows its own state (the reference CBLAS's CBLAS_CallFromC and RowMajorStrg); without one, ours
// reports it as the reference BLAS's does.
#include <dlfcn.h>

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "blas_internal.hpp"
#include "tilekit/blas.h"

namespace {

using XerblaFn = void (*)(const char*, const int*, size_t);
using CblasXerblaFn = void (*)(int, const char*, const char*, ...);

// The next library's definition of `symbol` after this one, or nullptr.
template <class Fn>
Fn next_handler(const char* symbol) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));
}

}  // namespace

extern "C" {

// The reference BLAS's XERBLA: WRITE(*, '(" ** On entry to ", A, " parameter number ", I2, " had an illegal
// value")') SRNAME(1:LEN_TRIM(SRNAME)), INFO, then STOP (exit status 0). During our cblas_?gemm's checks, as
// the reference CBLAS's XERBLA: the CBLAS's number (info + 1, the layout argument first) to cblas_xerbla.
__attribute__((weak)) void xerbla_(const char* srname, const int* info, size_t srname_len) {
  while (srname_len > 0 && srname[srname_len - 1] == ' ') --srname_len;
  if (tk::blas::in_cblas_call()) {
    char rout[16] = "cblas_";
    for (size_t i = 0; i < srname_len && i < 8; ++i)
      rout[6 + i] = static_cast<char>(std::tolower(static_cast<unsigned char>(srname[i])));
    cblas_xerbla(*info + 1, rout, "");
    return;
  }
  if (const XerblaFn next = next_handler<XerblaFn>("xerbla_")) {
    next(srname, info, srname_len);
    return;
  }
  char number[3] = "**";  // I2: two columns, asterisks when the number does not fit
  if (*info >= -9 && *info <= 99) std::snprintf(number, sizeof number, "%2d", *info);
  std::printf(" ** On entry to %.*s parameter number %s had an illegal value\n", static_cast<int>(srname_len), srname,
              number);
  std::fflush(stdout);
  std::exit(0);
}

// The reference CBLAS's cblas_xerbla: for a row-major gemm the number it is given is that of the column-major
// call the CBLAS made (4 and 5, 9 and 11 exchanged); it prints the caller's, then the message, and exits.
// Outside our own call, the next library's cblas_xerbla, given the message already formatted.
__attribute__((weak)) void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  va_list args;
  va_start(args, form);
  if (!tk::blas::in_cblas_call()) {
    if (const CblasXerblaFn next = next_handler<CblasXerblaFn>("cblas_xerbla")) {
      char message[512];
      std::vsnprintf(message, sizeof message, form, args);
      va_end(args);
      next(info, rout, "%s", message);
      return;
    }
  }
  if (tk::blas::in_row_major_cblas_call() && std::strstr(rout, "gemm") != nullptr) {
    if (info == 4) info = 5;
    else if (info == 5) info = 4;
    else if (info == 9) info = 11;
    else if (info == 11) info = 9;
  }
  if (info != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  std::vfprintf(stderr, form, args);
  va_end(args);
  std::exit(-1);
}

}  // extern "C"
