/* libtilekit_blas from a C program's atexit handler, as netlib's BLAS allows (ctest cpu.Blas.CallsDuringExit):
 * sgemm_ and cblas_dgemm during exit, after main has called them once; exit status 0 only if both are right. */
#include <stdio.h>
#include <stdlib.h>

#include "tilekit/blas.h"

static void products(const char* when) {
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0, 0, 0, 0};
  const double ad[4] = {1, 2, 3, 4}, bd[4] = {5, 6, 7, 8};
  double cd[4] = {0, 0, 0, 0};
  const int n = 2;
  const float one = 1, zero = 0;
  /* column-major 2 x 2: C = A B; A = [1 3; 2 4], B = [5 7; 6 8] -> C = [23 31; 34 46] */
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, ad, 2, bd, 2, 0.0, cd, 2);
  const int ok = c[0] == 23 && c[1] == 34 && c[2] == 31 && c[3] == 46 && cd[0] == 23 && cd[3] == 46;
  printf("%s: %s\n", when, ok ? "right" : "WRONG");
  fflush(stdout);
  if (!ok) _Exit(1);
}

static void at_exit(void) { products("an atexit handler"); }

int main(void) {
  atexit(at_exit);
  products("main");
  return 0;
}
