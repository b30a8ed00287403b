// bench/stencil.cpp — the stencil rows beside the memcpy ceiling: the 1D moving average on 1 GiB (GPU) or
// 64 MiB (CPU), the 5-point stencil and 2D convolution on 8192 x 8192 (GPU) or 4096 x 4096 (CPU) grids; 8
// bytes per element.//
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

void register_stencil(const tk::Device& dev, const Options& opt) {
  const std::string d = dev.name();
  const Pace p = row_pace(dev, opt);
  const std::int64_t n1 = (is_gpu(dev) ? std::int64_t{1} << 30 : std::int64_t{64} << 20) / 4;
  const std::int64_t side = is_gpu(dev) ? 8192 : 4096;
  const std::string grid = "/" + d + "/" + std::to_string(side) + "x" + std::to_string(side);
  constexpr int line_radius = 8, conv_radius = 2, taps = (2 * conv_radius + 1) * (2 * conv_radius + 1);
  // One row: `op(in, out)` on an input of `elems` ones, counted 8 bytes and `flops` FLOPs per element.
  auto add = [&](const std::string& name, std::int64_t elems, double flops,
                 std::function<void(const float*, float*)> op) {
    pace(benchmark::RegisterBenchmark(name.c_str(),
                                      [dev, elems, flops, op](benchmark::State& st) {
                                        auto in = filled(dev, elems, 1.f);
                                        tk::Buffer<float> out(dev, elems);
                                        const double nb = 4.0 * elems;
                                        run_row(
                                            st, dev, 2 * nb, flops * elems, 2 * nb, [&] { op(in.data(), out.data()); },
                                            [&] { device_memcpy(dev, out.data(), in.data(), nb); });
                                      }),
         p);
  };
  for (const auto& info : tk::stencil_variants()) {
    const tk::StencilVariant v = info.variant;
    add(std::string("moving_average/") + info.name + "/r" + std::to_string(line_radius) + "/" + d + "/" +
            std::to_string(n1),
        n1, 2 * line_radius + 1,
        [dev, n1, v](const float* in, float* out) { tk::moving_average(dev, n1, in, out, line_radius, v); });
  }
  for (const auto& info : tk::stencil_variants()) {
    const tk::StencilVariant v = info.variant;
    add(std::string("stencil_5point/") + info.name + grid, side * side, 7, [dev, side, v](const float* in, float* out) {
      tk::stencil_5point(dev, side, side, in, side, out, side, 0.2f, 0.2f, v);
    });
  }
  // The filter: a 5 x 5 box blur, in device memory for the whole run.
  auto filter = std::make_shared<tk::Buffer<float>>(filled(dev, taps, 1.f / taps));
  for (const auto& info : tk::stencil_variants()) {
    const tk::StencilVariant v = info.variant;
    add(std::string("convolve_2d/") + info.name + "/r" + std::to_string(conv_radius) + grid, side * side, 2.0 * taps,
        [dev, side, v, filter](const float* in, float* out) {
          tk::convolve_2d(dev, side, side, in, side, filter->data(), conv_radius, out, side, v);
        });
  }
}

}  // namespace tk::bench
