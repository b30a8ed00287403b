// tilekit BF16 `best` against tilekit SGEMM `best` on the same (rounded) values, both on std::vector data (not
// 64-byte aligned) with leading dimensions padded by PAD elements: drv M N K OPS REPS PAD. Best of REPS calls x 3
// rounds (1 round above 2^34 multiply-adds). Host C, 2026-11-29: docs/results/zen4-2026-11-29-bf16-pair-dot.txt.
// g++ -O3 -march=native -std=c++17 -fopenmp -I<tilekit include dirs> this.cpp libtilekit.a (+ Kokkos if built in)
// tilekit BF16 (best) against tilekit SGEMM (best) on the same values: row-major, op(A) op(B), std::vector data
#include <tilekit/tilekit.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include <cstdlib>
#include <string>
using namespace tk;
int main(int argc, char** argv) {
  long M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);
  std::string ops = argv[4];
  int reps = argc > 5 ? atoi(argv[5]) : 5;
  long pad = argc > 6 ? atol(argv[6]) : 0;
  const bool ta = ops[0] == 'T', tb = ops[1] == 'T';
  tk::Device dev = tk::Device::cpu();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> af((ta ? K : M) * ((ta ? M : K) + pad)), bf((tb ? N : K) * ((tb ? K : N) + pad));
  for (auto& x : af) x = u(rng);
  for (auto& x : bf) x = u(rng);
  std::vector<bf16> a(af.size()), b(bf.size());
  for (size_t i = 0; i < af.size(); ++i) {
    a[i] = bf16(af[i]);
    af[i] = float(a[i]);
  }
  for (size_t i = 0; i < bf.size(); ++i) {
    b[i] = bf16(bf[i]);
    bf[i] = float(b[i]);
  }
  std::vector<float> c1(M * N), c2(M * N);
  const long lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad;
  const Op oa = ta ? Op::trans : Op::none, ob = tb ? Op::trans : Op::none;
  auto t = [&](auto f) {
    double best = 1e9;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  double tb16 = 1e9, ts = 1e9;
  for (int round = 0; round < (M * N * K > (1L << 34) ? 1 : 3); ++round) {
    tb16 = std::min(tb16, t([&] {
                      tk::gemm(dev, Layout::row_major, oa, ob, M, N, K, 1.f, a.data(), lda, b.data(), ldb, 0.f,
                               c1.data(), N);
                    }));
    ts = std::min(ts, t([&] {
                    tk::gemm(dev, Layout::row_major, oa, ob, M, N, K, 1.f, af.data(), lda, bf.data(), ldb, 0.f,
                             c2.data(), N);
                  }));
  }
  double fl = 2.0 * M * N * K;
  printf("%ldx%ldx%ld %s pad %ld  bf16 %.1f GFLOP/s  sgemm %.1f  ratio %.2f\n", M, N, K, ops.c_str(), pad,
         fl / tb16 / 1e9, fl / ts / 1e9, ts / tb16);
}
