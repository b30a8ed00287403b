// The copy probe behind docs/performance.md#cpu-ceiling (host D, 2026-11-29): one buffer of N MiB copied three ways
// over the OpenMP threads, best of 15 calls each: memcpy in 1 MiB pieces (tk-bench's ceiling until then), one
// memcpy per thread, and AVX-512 non-temporal stores per thread.
// g++ -O3 -march=native -fopenmp xeon-2026-11-29-copy-probe.cpp -o probe && OMP_NUM_THREADS=2 ./probe 256
#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
using clk = std::chrono::steady_clock;
template <class F>
double best(F f, int n = 15) {
  double b = 1e9;
  for (int i = 0; i < n; ++i) {
    auto t = clk::now();
    f();
    b = std::min(b, std::chrono::duration<double, std::milli>(clk::now() - t).count());
  }
  return b;
}
int main(int argc, char** argv) {
  long MB = atol(argv[1]);
  size_t bytes = MB << 20;
  size_t n = bytes / 4;
  std::vector<float> a(n + 16, 1.f), b(n + 16, 0.f);
  float *s = a.data() + 1, *d = b.data() + 1;
  auto chunked = [&] {
    const size_t ch = 1 << 20;
    long c = (bytes + ch - 1) / ch;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < c; ++i) memcpy((char*)d + i * ch, (char*)s + i * ch, std::min(ch, bytes - i * ch));
  };
  auto whole = [&] {
#pragma omp parallel
    {
      size_t t = omp_get_thread_num(), k = omp_get_num_threads();
      size_t lo = n * t / k, hi = n * (t + 1) / k;
      memcpy(d + lo, s + lo, (hi - lo) * 4);
    }
  };
  auto nt = [&] {
#pragma omp parallel
    {
      size_t t = omp_get_thread_num(), k = omp_get_num_threads();
      size_t lo = n * t / k, hi = n * (t + 1) / k;
      size_t i = lo;
      while (i < hi && ((uintptr_t)(d + i) % 64)) {
        d[i] = s[i];
        ++i;
      }
      for (; i + 16 <= hi; i += 16) _mm512_stream_ps(d + i, _mm512_loadu_ps(s + i));
      for (; i < hi; ++i) d[i] = s[i];
      _mm_sfence();
    }
  };
  for (int r = 0; r < 3; ++r) {
    double c = best(chunked), w = best(whole), x = best(nt);
    printf("%ld MiB: chunked %.2f ms (%.1f GB/s) whole %.2f (%.1f) nt %.2f (%.1f)\n", MB, c, 2 * bytes / c / 1e6, w,
           2 * bytes / w / 1e6, x, 2 * bytes / x / 1e6);
  }
}
