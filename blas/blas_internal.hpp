// Between the two files of libtilekit_blas (not installed, not exported).
#pragma once

namespace tk::blas {

// True while this thread's cblas_sgemm/cblas_dgemm checks a row-major call's arguments.
bool in_row_major_cblas_call();

}  // namespace tk::blas
