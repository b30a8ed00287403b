// tilekit called while the program ends (ctest cpu.Contract.CallsDuringExit): from a static object's destructor,
// constructed before tilekit's first use (so destroyed after tilekit's own statics would be), and from an atexit
// handler registered first (so run last). Each runs device queries, GEMMs of both precisions (one with split-K
// scratch), a transpose, and allocations; the program exits 0 only if every result is right.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tilekit/tilekit.hpp"

namespace {

int failures = 0;

template <class T>
bool gemm_right(const tk::Device& dev, std::int64_t M, std::int64_t N, std::int64_t K) {
  std::vector<T> a(M * K), b(K * N);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = T(i % 7) - T(3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = T(i % 5) - T(2);
  tk::Buffer<T> da(dev, a), db(dev, b), dc(dev, std::vector<T>(M * N, T(-1)));
  tk::gemm(dev, tk::Layout::row_major, tk::Op::none, tk::Op::none, M, N, K, T(1), da.data(), K, db.data(), N, T(0),
           dc.data(), N);
  const std::vector<T> c = dc.to_host();
  for (std::int64_t i = 0; i < M; i += std::max<std::int64_t>(1, M / 4)) {
    for (std::int64_t j = 0; j < N; j += std::max<std::int64_t>(1, N / 4)) {
      double want = 0;
      for (std::int64_t k = 0; k < K; ++k) want += double(a[i * K + k]) * double(b[k * N + j]);
      if (std::abs(double(c[i * N + j]) - want) > 1e-3 * (1 + std::abs(want))) return false;
    }
  }
  return true;
}

void use_tilekit(const char* when) {
  try {
    const tk::Device dev = tk::Device::cpu();
    const tk::DeviceProps& p = dev.props();
    bool ok = p.multiprocessors > 0 && !tk::devices().empty();
    ok = ok && gemm_right<float>(dev, 64, 64, 64) && gemm_right<double>(dev, 64, 64, 64);
    ok = ok && gemm_right<float>(dev, 8, 200, 2048);  // a few rows, long K: split-K's scratch
    std::vector<float> x(300 * 200);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i);
    tk::Buffer<float> dx(dev, x), dy(dev, x.size());
    tk::transpose(dev, 300, 200, dx.data(), 200, dy.data(), 300);
    const std::vector<float> y = dy.to_host();
    ok = ok && y[7 * 300 + 11] == x[11 * 200 + 7];
    ok = ok && tk::matmul_tile_choice(dev, 4, 512, 512, 512).size() > 0;
    std::printf("%s: %s\n", when, ok ? "right" : "WRONG");
    std::fflush(stdout);
    if (!ok) ++failures;
  } catch (const std::exception& e) {
    std::printf("%s: threw %s\n", when, e.what());
    ++failures;
  }
  if (failures) std::_Exit(1);
}

struct AtExit {
  ~AtExit() { use_tilekit("a static object's destructor"); }
} at_exit;  // constructed before main, so destroyed after every static tilekit makes later

}  // namespace

int main() {
  std::atexit([] { use_tilekit("an atexit handler"); });  // registered first: run last
  use_tilekit("main");
  return 0;
}
