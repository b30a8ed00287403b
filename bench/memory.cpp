// bench/memory.cpp — rows of the memory-bound kernels (transpose, float3 AoS/SoA, stencils) beside the
// same-run memcpy ceiling, and the seed-003 experiments (coalescing, shared-memory banks) as ratios to
// their baseline case measured in the same function.
//
// Bytes counted: each input element read once and each output element written once, whatever the kernel
// really moves (halos, strided sectors): transpose and stencils 8 bytes per element, the float3 update 24
// per struct. The ceiling is a device-to-device copy of one operand, counted as bytes read + written.
// Sizes: transpose and the 2D stencils 8192 x 8192 on GPUs, 4096 x 4096 on the CPU (8192 with --full);
// the 1D and struct arrays 1 GiB per operand on GPUs, 64 MiB on the CPU. Experiment rows report the
// median time and x_baseline = time / time of the baseline case (coalesced a[i]++; stride-1 reads; word
// reads at stride 1), the seed's "t".
// Pace: GPU rows (and --full) run for Google Benchmark's minimum time; the CPU quick suite runs a fixed
// number of iterations per row, so each row's set-up happens once and the whole suite stays short.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace tk::bench {
namespace {

struct Pace {
  int iterations;   // > 0: exactly this many (CPU quick suite)
  double min_time;  // else: Google Benchmark's minimum time, seconds
};

void pace(benchmark::internal::Benchmark* b, const Pace& p) {
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  if (p.iterations > 0)
    b->Iterations(p.iterations);
  else
    b->MinTime(p.min_time);
}

// An experiment row: `op` under the benchmark loop, then `baseline` as often; reports both medians and
// their ratio.
void run_relative(benchmark::State& state, const tk::Device& dev, const std::function<void()>& op,
                  const std::function<void()>& baseline) {
  const Medians m = time_beside(state, dev, op, baseline);
  state.counters["ms"] = m.op_ms;
  state.counters["baseline_ms"] = m.baseline_ms;
  state.counters["x_baseline"] = m.op_ms / m.baseline_ms;
}

void register_transpose(const tk::Device& dev, const Options& opt, const std::string& d, const Pace& p) {
  std::vector<std::int64_t> sizes{is_gpu(dev) ? 8192 : 4096};
  if (opt.full && !is_gpu(dev)) sizes.push_back(8192);
  std::vector<tk::TransposeVariant> variants;
  for (const auto& info : tk::transpose_variants()) variants.push_back(info.variant);
  variants.push_back(tk::TransposeVariant::best);
  for (std::int64_t n : sizes) {
    for (tk::TransposeVariant v : variants) {
      const std::string name = std::string("transpose/") + tk::to_string(v) + "/" + d + "/" + std::to_string(n) + "x" +
                               std::to_string(n);
      pace(benchmark::RegisterBenchmark(name.c_str(),
                                        [dev, n, v](benchmark::State& st) {
                                          auto in = filled(dev, n * n, 1.f);
                                          tk::Buffer<float> out(dev, n * n);
                                          const double nb = 4.0 * n * n;
                                          run_row(st, dev, 2 * nb, 0, 2 * nb,
                                                  [&] { tk::transpose(dev, n, n, in.data(), n, out.data(), n, v); },
                                                  [&] { device_memcpy(dev, out.data(), in.data(), nb); });
                                        }),
           p);
    }
  }
}

void register_aos(const tk::Device& dev, const std::string& d, const Pace& p) {
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
                                        run_row(st, dev, 2 * nb, 3.0 * n, 2 * nb, [&] { op(in.data(), out.data()); },
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

void register_stencils(const tk::Device& dev, const std::string& d, const Pace& p) {
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
                                        run_row(st, dev, 2 * nb, flops * elems, 2 * nb,
                                                [&] { op(in.data(), out.data()); },
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

void register_coalescing(const tk::Device& dev, const std::string& d, const Pace& p) {
  // GPU: 256 MiB, past the L2 (the seed's 12 MB would sit in an H100's 50 MB L2). CPU: the seed's 3M floats.
  const std::int64_t n = is_gpu(dev) ? std::int64_t{1} << 26 : 3 * (std::int64_t{1} << 20);
  for (const auto& info : tk::increment_patterns()) {
    const tk::IncrementPattern pattern = info.variant;
    const std::string name = std::string("increment/") + info.name + "/" + d + "/" + std::to_string(n);
    pace(benchmark::RegisterBenchmark(name.c_str(),
                                      [dev, n, pattern](benchmark::State& st) {
                                        auto a = filled(dev, n, 0.f);
                                        run_relative(
                                            st, dev, [&] { tk::increment_pattern(dev, n, a.data(), pattern); },
                                            [&] { tk::increment_pattern(dev, n, a.data(), tk::IncrementPattern::coalesced); });
                                      }),
         p);
  }
  // Reads at stride s or misaligned by `offset` floats, from one input of m * 32 floats (and a bit) that
  // every row shares: 512 MiB on GPUs, 32 MiB on the CPU.
  const std::int64_t m = is_gpu(dev) ? std::int64_t{1} << 22 : std::int64_t{1} << 18;
  auto in = std::make_shared<tk::Buffer<float>>(filled(dev, m * 32 + 32, 1.f));
  const std::vector<std::pair<int, int>> cases{{1, 0}, {1, 1}, {1, 16}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {32, 0}};
  for (const auto& [stride, offset] : cases) {
    const std::string name = "strided_read/stride:" + std::to_string(stride) + "/offset:" + std::to_string(offset) +
                             "/" + d + "/" + std::to_string(m);
    pace(benchmark::RegisterBenchmark(name.c_str(),
                                      [dev, m, in, stride = stride, offset = offset](benchmark::State& st) {
                                        tk::Buffer<float> out(dev, m);
                                        run_relative(
                                            st, dev,
                                            [&] { tk::strided_read(dev, m, in->data(), stride, offset, out.data()); },
                                            [&] { tk::strided_read(dev, m, in->data(), 1, 0, out.data()); });
                                      }),
         p);
  }
}

void register_banks(const tk::Device& dev, const std::string& d, const Pace& p) {
  // Enough threads to fill the device several times over, each reading often enough that the fill of the
  // shared array is a small part of the time.
  const std::int64_t n = is_gpu(dev) ? std::int64_t{1} << 22 : std::int64_t{1} << 14;
  const int reads = is_gpu(dev) ? 4096 : 256;
  auto add = [&](const std::string& label, tk::BankPattern pattern, int stride) {
    pace(benchmark::RegisterBenchmark(("bank_reads/" + label + "/" + d).c_str(),
                                      [dev, n, reads, pattern, stride](benchmark::State& st) {
                                        tk::Buffer<std::uint32_t> out(dev, n);
                                        run_relative(
                                            st, dev, [&] { tk::bank_reads(dev, n, pattern, stride, reads, out.data()); },
                                            [&] { tk::bank_reads(dev, n, tk::BankPattern::word_stride, 1, reads, out.data()); });
                                      }),
         p);
  };
  for (int s = 1; s <= 33; ++s) add("word_stride:" + std::to_string(s), tk::BankPattern::word_stride, s);
  for (const auto& info : tk::bank_patterns())
    if (info.variant != tk::BankPattern::word_stride) add(info.name, info.variant, 1);
}

}  // namespace

void register_memory(const tk::Device& dev, const Options& opt) {
  const std::string d = dev.name();
  // The CPU quick suite (2 cores) runs fixed iteration counts: a row's medians over 8 runs, an experiment's
  // over 5; enough for ratios, and the whole group runs in about 30 s.
  const bool quick_cpu = !is_gpu(dev) && !opt.full;
  const Pace rows = quick_cpu ? Pace{8, 0} : Pace{0, 0.5}, experiments = quick_cpu ? Pace{5, 0} : Pace{0, 0.2};
  if (opt.experiments) {  // their own suite (tk-bench --experiments)
    register_coalescing(dev, d, experiments);
    register_banks(dev, d, experiments);
    return;
  }
  register_transpose(dev, opt, d, rows);
  register_aos(dev, d, rows);
  register_stencils(dev, d, rows);
}

}  // namespace tk::bench
