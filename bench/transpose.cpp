// bench/transpose.cpp — the transpose rows beside the memcpy ceiling: 8192 x 8192 on GPUs, 4096 x 4096
// on the CPU (8192 with --full); 8 bytes per element.//
// Bytes counted: each input element read once and each output element written once, whatever the kernel
// really moves (halos, strided sectors). The ceiling is a device-to-device copy of one operand, counted as
// bytes read + written (bench_common.hpp).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace tk::bench {

void register_transpose(const tk::Device& dev, const Options& opt) {
  const std::string d = dev.name();
  const Pace p = row_pace(dev, opt);
  std::vector<std::int64_t> sizes{is_gpu(dev) ? 8192 : 4096};
  if (opt.full && !is_gpu(dev)) sizes.push_back(8192);
  std::vector<tk::TransposeVariant> variants;
  for (const auto& info : tk::transpose_variants()) variants.push_back(info.variant);
  variants.push_back(tk::TransposeVariant::best);
  for (std::int64_t n : sizes) {
    for (tk::TransposeVariant v : variants) {
      const std::string name =
          std::string("transpose/") + tk::to_string(v) + "/" + d + "/" + std::to_string(n) + "x" + std::to_string(n);
      pace(benchmark::RegisterBenchmark(name.c_str(),
                                        [dev, n, v](benchmark::State& st) {
                                          auto in = filled(dev, n * n, 1.f);
                                          tk::Buffer<float> out(dev, n * n);
                                          const double nb = 4.0 * n * n;
                                          run_row(
                                              st, dev, 2 * nb, 0, 2 * nb,
                                              [&] { tk::transpose(dev, n, n, in.data(), n, out.data(), n, v); },
                                              [&] { device_memcpy(dev, out.data(), in.data(), nb); });
                                        }),
           p);
    }
  }
}

}  // namespace tk::bench
