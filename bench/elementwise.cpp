// bench/elementwise.cpp — copy, vector_add and matrix_add rows.
//
// Bytes counted: each input read once and each output written once — copy 8 bytes per element,
// vector_add and matrix_add 12 (two reads, one write). FLOPs: 1 per element for the adds.
// Arrays are 64 MiB (CPU) or 1 GiB (GPU) per operand, far beyond any cache, so each call streams from memory.
//
// queues/two_copies (GPUs): 16 pairs of independent copies, one of each pair on each of two tk::Queues,
// against the same 32 copies on one queue, from 64 KiB per copy (a few blocks: latency-bound) to 64 MiB
// (DRAM-bound), timed on the GPU from the moment both queues may start (they wait behind a long copy on a
// third queue while the host queues the pairs). speedup = one-queue time / two-queue time: 1 when the
// queues do not overlap (or when each copy alone saturates DRAM, so overlapping gains nothing), up to 2.
#include <algorithm>
#include <string>
#include <vector>

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

    benchmark::RegisterBenchmark(("memcpy" + tag).c_str(),
                                 [dev, n, nb](benchmark::State& st) {
                                   tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 0.f);
                                   auto base = [&] { device_memcpy(dev, b.data(), a.data(), nb); };
                                   run_ceiling_row(st, dev, 2 * nb, base);
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("copy" + tag).c_str(),
                                 [dev, n, nb](benchmark::State& st) {
                                   tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 0.f);
                                   run_row(
                                       st, dev, 2 * nb, 0, 2 * nb, [&] { tk::copy(dev, n, a.data(), b.data()); },
                                       [&] { device_memcpy(dev, b.data(), a.data(), nb); });
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);

    benchmark::RegisterBenchmark(("vector_add" + tag).c_str(),
                                 [dev, n, nb](benchmark::State& st) {
                                   tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 2.f),
                                                     c = filled(dev, n, 0.f);
                                   run_row(
                                       st, dev, 3 * nb, static_cast<double>(n), 2 * nb,
                                       [&] { tk::vector_add(dev, n, a.data(), b.data(), c.data()); },
                                       [&] { device_memcpy(dev, c.data(), a.data(), nb); });
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);

    // Square-ish matrix with a padded leading dimension (a multiple of 4, so rows stay 16-byte aligned).
    const std::int64_t cols = 8192, rows = n / (cols + 64), ld = cols + 64;
    benchmark::RegisterBenchmark(
        ("matrix_add" + tag).c_str(),
        [dev, rows, cols, ld](benchmark::State& st) {
          const std::int64_t elems = rows * ld;
          tk::Buffer<float> A = filled(dev, elems, 1.f), B = filled(dev, elems, 2.f), C = filled(dev, elems, 0.f);
          const double nb_m = 4.0 * rows * cols;
          run_row(
              st, dev, 3 * nb_m, static_cast<double>(rows * cols), 2.0 * 4 * elems,
              [&] { tk::matrix_add(dev, rows, cols, A.data(), ld, B.data(), ld, C.data(), ld); },
              [&] { device_memcpy(dev, C.data(), A.data(), 4.0 * elems); });
        })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }

  // the queues of a host device, and of Kokkos (on a GPU too), are synchronous: nothing can overlap
  if (dev.backend() != tk::Backend::cuda && dev.backend() != tk::Backend::hip) return;
  for (const std::int64_t kib : {64, 256, 1024, 4096, 65536}) {
    const std::int64_t n = kib * 1024 / 4;
    const std::string name = "queues/two_copies/" + d + "/" + std::to_string(kib) + "KiB";
    benchmark::RegisterBenchmark(
        name.c_str(),
        [dev, n](benchmark::State& st) {
          constexpr int pairs = 16;
          constexpr std::int64_t big = std::int64_t{1} << 28;  // 1 GiB: ~0.7 ms of DRAM-bound copy on an H100
          tk::Buffer<float> a = filled(dev, n, 1.f), b = filled(dev, n, 0.f), c = filled(dev, n, 2.f),
                            e = filled(dev, n, 0.f), g = filled(dev, big, 0.f), h = filled(dev, big, 0.f);
          const tk::Queue q0 = tk::Queue::create(dev), q1 = tk::Queue::create(dev), busy = tk::Queue::create(dev);
          tk::Event gate(dev), end0(dev), end1(dev);
          // The GPU time of the pairs alone: both queues wait behind a long copy on a third, so every small copy
          // is queued before the first starts, and the host's per-call cost does not count.
          auto run = [&](bool two) {
            tk::copy(busy, big, g.data(), h.data());
            gate.record(busy);
            q0.wait(gate);
            q1.wait(gate);
            for (int i = 0; i < pairs; ++i) {
              tk::copy(q0, n, a.data(), b.data());
              tk::copy(two ? q1 : q0, n, c.data(), e.data());
            }
            end0.record(q0);
            end1.record(q1);
            return std::max(tk::Event::elapsed_ms(gate, end0), tk::Event::elapsed_ms(gate, end1));
          };
          run(true);  // warm-up
          std::vector<double> two_ms, one_ms;
          for (auto _ : st) {
            two_ms.push_back(run(true));
            st.SetIterationTime(two_ms.back() / 1e3);
          }
          for (std::size_t i = 0; i < two_ms.size(); ++i) one_ms.push_back(run(false));
          record_times(st, two_ms);
          st.counters["two_queues_ms"] = median(two_ms);
          st.counters["one_queue_ms"] = median(one_ms);
          st.counters["speedup"] = median(one_ms) / median(two_ms);
        })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace tk::bench
