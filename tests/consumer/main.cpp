// Uses installed tilekit on the CPU: vector_add through Buffers, a kernel of its own through the installed
// kernel layer, a column-major DGEMM through tk::gemm and through libtilekit_blas's cblas_dgemm. Exits
// non-zero on a wrong result.
#if defined(TK_CONSUMER_BLAS)
#include <tilekit/blas.h>
#endif
#include <tilekit/kernel.hpp>
#include <tilekit/tilekit.hpp>

#include <cstdio>
#include <vector>

namespace consumer {
TK_KERNEL void scale(int n, float s, float* x) {
  TK_THREADS(th) {
    const int i = tk::block_idx().x * tk::block_dim().x + th.x;
    if (i < n) x[i] *= s;
  }
}
#if defined(TK_CHECKED)
// Against a checked tilekit, the consumer's own kernels are checked too: this one forgot its barrier.
TK_KERNEL void reverse_without_barrier(float* out) {
  TK_SHARED_ARRAY(float, s, [128]);
  TK_THREADS(th) { s[th.x] = float(th.x); }
  TK_THREADS(th) { out[th.x] = s[127 - th.x]; }
}
#endif
}  // namespace consumer

int main() {
  const tk::Device dev = tk::Device::cpu();
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
  tk::Buffer<float> da(dev, a), db(dev, b), dc(dev, n);
  tk::vector_add(da, db, dc);
  tk::launch(dev, {"scale", {(n + 127) / 128, 1, 1}, {128, 1, 1}, 0}, &consumer::scale, n, 0.5f, dc.data());
  const std::vector<float> c = dc.to_host();
  for (int i = 0; i < n; ++i)
    if (c[i] != 1.5f * float(i)) {
      std::printf("tk_consumer: c[%d] = %g, expected %g\n", i, c[i], 1.5 * i);
      return 1;
    }
  // C = A^T B, column-major 2 x 2: A = [1 3; 2 4] (columns 1 2, 3 4), B = I; both ways
  const double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1};
  double C1[4], C2[4];
  tk::gemm(dev, tk::Layout::col_major, tk::Op::trans, tk::Op::none, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C1, 2);
#if defined(TK_CONSUMER_BLAS)
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C2, 2);
#else
  tk::gemm(dev, tk::Layout::col_major, tk::Op::trans, tk::Op::none, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C2, 2);
#endif
  const double want[4] = {1, 3, 2, 4};  // A^T, column-major
  for (int i = 0; i < 4; ++i)
    if (C1[i] != want[i] || C2[i] != want[i]) {
      std::printf("tk_consumer: DGEMM element %d: tk::gemm %g, cblas_dgemm %g, expected %g\n", i, C1[i], C2[i],
                  want[i]);
      return 1;
    }
#if defined(TK_CHECKED)
  try {
    tk::launch(dev, {"reverse_without_barrier", {1, 1, 1}, {128, 1, 1}, 0}, &consumer::reverse_without_barrier,
               dc.data());
    std::printf("tk_consumer: checked tilekit did not report the missing barrier\n");
    return 1;
  } catch (const tk::KernelCheckError& e) {
    if (e.bug() != tk::KernelBug::race) return 1;
    std::printf("tk_consumer: checked mode reported: %s\n", e.what());
  }
#endif
  std::printf("tk_consumer: tilekit %s works from an installed package\n", TK_VERSION_STRING);
  return 0;
}
