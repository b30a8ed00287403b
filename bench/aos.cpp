// bench/aos.cpp — the float3 array-of-structs rows (and the struct-of-arrays layout) beside the memcpy
// ceiling: 1 GiB of structs on GPUs, 64 MiB on the CPU; 24 bytes per struct.//
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

void register_aos(const tk::Device& dev, const Options& opt) {
  const std::string d = dev.name();
  const Pace p = row_pace(dev, opt);
  // Structs: 1 GiB (64 MiB) of them, a multiple of 1024 so that the SoA planes stay 16-byte aligned (its
  // 4-wide path; an odd n takes the scalar one).
  const std::int64_t n = (is_gpu(dev) ? std::int64_t{1} << 30 : std::int64_t{64} << 20) / 12 / 1024 * 1024;
  const std::string tag = "/" + d + "/" + std::to_string(n);
  auto add = [&](const std::string& name, std::function<void(const float*, float*)> op) {
    pace(benchmark::RegisterBenchmark((name + tag).c_str(),
                                      [dev, n, op](benchmark::State& st) {
                                        auto in = filled(dev, 3 * n, 1.f);
                                        tk::Buffer<float> out(dev, 3 * n);
                                        const double nb = 12.0 * n;
                                        run_row(
                                            st, dev, 2 * nb, 3.0 * n, 2 * nb, [&] { op(in.data(), out.data()); },
                                            [&] { device_memcpy(dev, out.data(), in.data(), nb); });
                                      }),
         p);
  };
  for (const auto& info : tk::aos_variants()) {
    const tk::AosVariant v = info.variant;
    add(std::string("float3_add/") + info.name,
        [dev, n, v](const float* in, float* out) { tk::float3_add(dev, n, in, out, 2.f, v); });
  }
  add("float3_add_soa", [dev, n](const float* in, float* out) { tk::float3_add_soa(dev, n, in, out, 2.f); });
}

}  // namespace tk::bench
