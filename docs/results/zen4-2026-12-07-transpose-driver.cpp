// The driver of docs/results/zen4-2026-12-07-transpose-strip-rows.txt: tk::transpose's `best` on rows x cols floats
// whose arrays start 16 bytes past a 2 MiB boundary (a std::vector's alignment; `out`'s rows then not 64-byte
// aligned), ld = the row, against a copy of the same bytes over the same OpenMP threads (each thread one contiguous
// piece, with non-temporal stores where NT is set: the CPU ceiling's faster copy on this host), interleaved, the
// best of 3 calls a round. TK_TRANSPOSE_TUNE=<512..4096> forces the strips with that many rows a block.
// Build against a `cpu` preset tree:
//   g++ -O2 -fopenmp -std=c++17 -march=x86-64-v3 -Icommon/include -Ibackends/cpu/include -Ibuild/cpu/include \
//     docs/results/zen4-2026-12-07-transpose-driver.cpp build/cpu/libtilekit.a \
//     /usr/lib/x86_64-linux-gnu/libtrilinos_kokkoscore.so -lpthread -o /tmp/tdrv
// Run: OMP_NUM_THREADS=2 NT=1 TK_TRANSPOSE_TUNE=1680 /tmp/tdrv 5000 7001 3 h1680
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tilekit/transpose.hpp"

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  if (argc < 3) return 1;
  const long rows = atol(argv[1]), cols = atol(argv[2]), n = rows * cols;
  const int rounds = argc > 3 ? atoi(argv[3]) : 5;
  const char* label = argc > 4 ? argv[4] : "best";
  const auto make = [](long count) {
    const std::size_t bytes = (count * 4 + (2 << 20)) / (2 << 20) * (2 << 20);
    return static_cast<float*>(aligned_alloc(2 << 20, bytes)) + 4;
  };
  float *in = make(n), *out = make(n), *cp = make(n);
#pragma omp parallel for
  for (long i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000), out[i] = 0, cp[i] = 0;
  const bool nt = getenv("NT") != nullptr;
  tk::Queue q;
  double best_t = 1e9, best_c = 1e9;
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 3; ++k) {
      const double t0 = now();
      tk::transpose(q, rows, cols, in, cols, out, rows);
      best_t = std::min(best_t, now() - t0);
    }
    for (int k = 0; k < 3; ++k) {
      const double t0 = now();
#pragma omp parallel
      {
        const int th = omp_get_num_threads(), t = omp_get_thread_num();
        long a = n * t / th, b = n * (t + 1) / th;
        if (nt) {
          long i = a;
          for (; i < b && reinterpret_cast<std::uintptr_t>(cp + i) % 32 != 0; ++i) cp[i] = in[i];
          for (; i + 8 <= b; i += 8) _mm256_stream_ps(cp + i, _mm256_loadu_ps(in + i));
          for (; i < b; ++i) cp[i] = in[i];
          _mm_sfence();
        } else {
          std::memcpy(cp + a, in + a, (b - a) * 4);
        }
      }
      best_c = std::min(best_c, now() - t0);
    }
  }
  const double gb = 2.0 * n * 4 / 1e9;
  bool exact = true;
  for (long i = 0; i < rows && exact; i += 97)
    for (long j = 0; j < cols; j += 89) exact = exact && out[j * rows + i] == in[i * cols + j];
  printf("%ldx%ld copy %.1f GB/s; %s %.1f GB/s (%.0f%%); %s\n", rows, cols, gb / best_c, label, gb / best_t,
         100 * best_c / best_t, exact ? "exact" : "WRONG");
  return exact ? 0 : 1;
}
