/* Built as C with nothing but `pkg-config --cflags --libs tilekit_blas` against an installed tilekit (CI step 8b):
 * a 3 x 2 SGEMM through the CBLAS entry point, checked. */
#include <stdio.h>
#include <tilekit/blas.h>

int main(void) {
  const float a[6] = {1, 2, 3, 4, 5, 6}; /* 3 x 2, row-major */
  const float b[4] = {1, 0, 0, 2};       /* 2 x 2 */
  float c[6] = {-1, -1, -1, -1, -1, -1};
  const float want[6] = {1, 4, 3, 8, 5, 12};
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 3, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
  for (int i = 0; i < 6; ++i)
    if (c[i] != want[i]) {
      printf("pkg-config BLAS consumer: c[%d] = %g, expected %g\n", i, c[i], want[i]);
      return 1;
    }
  printf("pkg-config BLAS consumer: tilekit_blas works from C\n");
  return 0;
}
