// bench/experiments.cpp — the seed-003 access-pattern experiments (tk-bench --experiments): coalescing
// (increment patterns, strided and misaligned reads) and shared-memory banks. Each row reports the median
// time and x_baseline = time / time of its baseline case (coalesced a[i]++; stride-1 reads; word reads at
// stride 1), the seed's "t", measured in the same function.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace tk::bench {

namespace {

// An experiment row: `op` under the benchmark loop, then `baseline` as often; reports both medians and
// their ratio.
void run_relative(benchmark::State& state, const tk::Device& dev, const std::function<void()>& op,
                  const std::function<void()>& baseline) {
  const Medians m = time_beside(state, dev, op, baseline);
  state.counters["baseline_ms"] = m.baseline_ms;
  state.counters["x_baseline"] = m.op_ms / m.baseline_ms;
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
                                            [&] {
                                              tk::increment_pattern(dev, n, a.data(), tk::IncrementPattern::coalesced);
                                            });
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
    pace(benchmark::RegisterBenchmark(
             ("bank_reads/" + label + "/" + d).c_str(),
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

void register_experiments(const tk::Device& dev, const Options& opt) {
  const std::string d = dev.name();
  const Pace p = experiment_pace(dev, opt);
  register_coalescing(dev, d, p);
  register_banks(dev, d, p);
}

}  // namespace tk::bench
