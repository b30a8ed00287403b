/* tilekit/blas.h — libtilekit_blas: tk::gemm (tilekit/matmul.hpp) behind the BLAS's GEMM entry points, so that
 * a program written against the BLAS runs its SGEMM and DGEMM on tilekit, unchanged (docs/blas.md).
 *
 * Exports (C linkage, LP64: every integer is a 32-bit int, as in the reference BLAS and CBLAS):
 *   cblas_sgemm, cblas_dgemm   the CBLAS calls, row- or column-major
 *   sgemm_, dgemm_             the Fortran 77 calls (gfortran's ABI: every argument by address, then the
 *                              lengths of the two character arguments as trailing hidden size_t arguments)
 *   xerbla_, cblas_xerbla      default error handlers, as the reference's (see below); a program's own
 *                              definitions replace them
 * Nothing else is exported (no BLAS routine other than GEMM: route the rest to another BLAS).
 *
 * Arguments are checked exactly as the reference BLAS and CBLAS check them, in the same order, reporting the
 * same parameter numbers through the same handlers:
 * - sgemm_/dgemm_: transa not N, T or C (either case) -> 1, transb -> 2, M < 0 -> 3, N < 0 -> 4, K < 0 -> 5,
 *   lda < max(1, rows of A as stored) -> 8, ldb < max(1, rows of B as stored) -> 10, ldc < max(1, M) -> 13,
 *   reported as xerbla_("SGEMM ", &info, 6) ("DGEMM "), and the call returns without touching C.
 * - cblas_sgemm/cblas_dgemm: layout neither CblasRowMajor nor CblasColMajor -> cblas_xerbla(1, ...), TransA
 *   -> 2, TransB -> 3 (the reference reports 2 for a bad TransB in a row-major call: a quirk not copied);
 *   then the Fortran checks of the column-major call the CBLAS makes (for row-major: the product
 *   C^T = op(B)^T op(A)^T, with A and B, M and N, lda and ldb exchanged), reported as that call reports them,
 *   xerbla_("SGEMM ", &fortran_info, 6): a program's own XERBLA gets them as from the reference.
 * - Then, as the reference: M == 0, N == 0, or ((alpha == 0 or K == 0) and beta == 1) returns at once.
 * - A program's handler may throw a C++ exception; it reaches the caller, and C is not written.
 *
 * Default handlers (defined weak, called through their global symbols: a program that defines its own, as
 * the reference test programs do, gets every call):
 * - xerbla_ prints " ** On entry to SGEMM parameter number  8 had an illegal value" on stdout and stops the
 *   program with exit status 0, as the reference BLAS's XERBLA (a Fortran STOP) does; during a CBLAS call of
 *   ours it calls cblas_xerbla(fortran_info + 1, "cblas_sgemm", ""), as the reference CBLAS's XERBLA does;
 * - cblas_xerbla prints "Parameter 9 to routine cblas_sgemm was incorrect" and its message on stderr and
 *   exits with status 255 (exit(-1)), as the reference CBLAS's does; for a row-major gemm it numbers the
 *   arguments of the caller's call (the column-major call's 4 and 5, 9 and 11 exchanged).
 * - A report that is not from our own calls (another BLAS loaded after this library, whose routines then
 *   find our handlers first) goes on to that library's own handler (dlsym(RTLD_NEXT)), when it has one.
 *
 * Execution: on the device named by the environment variable TK_BLAS_DEVICE, read once, at the first call
 * that has work to do: "cpu" (the default, also when unset or empty), "cuda" or "cuda:N", "hip" or "hip:N",
 * "kokkos" (tk::Device::name()'s spelling). On the CPU, tk::gemm runs on the caller's arrays. On any other
 * device the operands are copied to device memory for the call: A and B (not when alpha == 0 or K == 0),
 * C only when beta != 0; the M x N result is copied back, and nothing else of C's storage is written.
 *
 * Errors that are not argument errors never return and never cross into the caller as an exception: an
 * unknown or unavailable TK_BLAS_DEVICE ("tilekit_blas: TK_BLAS_DEVICE=...: ..."), or a tk::Error from the
 * call (e.g. a pointer not aligned to its element, C sharing elements with A or B, out of device memory:
 * "tilekit_blas: cblas_sgemm: ..."), is printed once on stderr and the program is ended with abort().
 *
 * Thread safety: any number of threads may call at once; the device is chosen once, whichever thread calls
 * first, and the library keeps no other state (but a flag per thread while a CBLAS call checks its
 * arguments). On the CPU, each calling thread computes part of the product with tiles on its own stack (up to
 * 330 KiB for DGEMM): calling threads need stacks of 1 MiB or more. The CPU path runs on OpenMP: after the
 * process has called with more than one OpenMP thread, a fork()ed child must not call (GNU libgomp's thread
 * pool does not survive fork: the call hangs) unless the process runs with OMP_NUM_THREADS=1 from its start
 * (setting it in the child is too late: libgomp reads it once, when it is loaded).
 */
#ifndef TILEKIT_BLAS_H
#define TILEKIT_BLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CBLAS's enumerations, as in cblas.h; a cblas.h included first (netlib's or OpenBLAS's: CBLAS_H) provides
 * them instead, and declares cblas_xerbla. */
#ifndef CBLAS_H
typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 } CBLAS_TRANSPOSE;
typedef CBLAS_LAYOUT CBLAS_ORDER; /* the older name */
#endif

void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, int M, int N, int K, float alpha,
                 const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc);
void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE TransA, CBLAS_TRANSPOSE TransB, int M, int N, int K, double alpha,
                 const double* A, int lda, const double* B, int ldb, double beta, double* C, int ldc);

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc,
            size_t transa_len, size_t transb_len);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, size_t transa_len, size_t transb_len);

/* The error handlers (defaults above; define your own to replace them). */
void xerbla_(const char* srname, const int* info, size_t srname_len);
#ifndef CBLAS_H
void cblas_xerbla(int info, const char* rout, const char* form, ...);
#endif

#ifdef __cplusplus
}
#endif

#endif /* TILEKIT_BLAS_H */
