// Between the two files of libtilekit_blas (not installed, not exported).
#pragma once

namespace tk::blas {

// True while this thread's cblas_sgemm/cblas_dgemm checks its arguments (and reports one through XERBLA, as
// the reference CBLAS does), and whether that call is row-major. The default handlers (xerbla.cpp) then report
// as the reference CBLAS's; outside such a call they hand a report to the next library's handler, if any.
bool in_cblas_call();
bool in_row_major_cblas_call();

}  // namespace tk::blas
