// bench/elementwise.cpp — copy, vector_add and matrix_add rows.
//
// Bytes counted: each input read once and each output written once — copy 8 bytes per element,
// vector_add and matrix_add 12 (two reads, one write). FLOPs: 1 per element for the adds.
// Arrays are 64 MiB (CPU) or 1 GiB (GPU) per operand, far beyond any cache, so each call streams from memory.
#include <string>

#include "bench_common.hpp"

namespace tk::bench {

void register_elementwise(const tk::Device& dev, const Options& opt) {
  const double default_mib = is_gpu(dev) ? 1024 : 64;
  std::vector<double> sizes{opt.size_mib > 0 ? opt.size_mib : default_mib};
  if (opt.full) sizes.push_back(is_gpu(dev) ? 4096 : 512);
  const std::string d = dev.name();
  for (double mib : sizes) {
    const std::int64_t n = static_cast<std::int64_t>(mib * 1024 * 1024 / sizeof(float));
    const std::string tag = "/" + d + "/" + std::to_string(static_cast<long long>(mib)) + "MiB";
    const double nb = 4.0 * n;  // bytes of one operand

    benchmark::RegisterBenchmark(("memcpy" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 0.f);
      auto base = [&] { device_memcpy(dev, b.data(), a.data(), nb); };
      run_row(st, dev, 2 * nb, 0, 2 * nb, base, base);
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("copy" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 0.f);
      run_row(st, dev, 2 * nb, 0, 2 * nb, [&] { tk::copy(dev, n, a.data(), b.data()); },
              [&] { device_memcpy(dev, b.data(), a.data(), nb); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("vector_add" + tag).c_str(), [dev, n, nb](benchmark::State& st) {
      tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 2.f), c = filled(dev, n, 0.f);
      run_row(st, dev, 3 * nb, static_cast<double>(n), 2 * nb,
              [&] { tk::vector_add(dev, n, a.data(), b.data(), c.data()); },
              [&] { device_memcpy(dev, c.data(), a.data(), nb); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);

    // Square-ish matrix with a padded leading dimension (a multiple of 4, so rows stay 16-byte aligned).
    const std::int64_t cols = 8192, rows = n / (cols + 64), ld = cols + 64;
    benchmark::RegisterBenchmark(("matrix_add" + tag).c_str(), [dev, rows, cols, ld](benchmark::State& st) {
      const std::int64_t elems = rows * ld;
      tk::Buffer<float> A = filled(dev, elems, 1.f), B = filled(dev, elems, 2.f), C = filled(dev, elems, 0.f);
      const double nb_m = 4.0 * rows * cols;
      run_row(st, dev, 3 * nb_m, static_cast<double>(rows * cols), 2.0 * 4 * elems,
              [&] { tk::matrix_add(dev, rows, cols, A.data(), ld, B.data(), ld, C.data(), ld); },
              [&] { device_memcpy(dev, C.data(), A.data(), 4.0 * elems); });
    })->UseManualTime()->Unit(benchmark::kMillisecond);
  }
}

}  // namespace tk::bench
