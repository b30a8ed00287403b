// The soak test (ctest cpu.Soak.MixedOpsFromManyThreads): 16 host threads for TK_SOAK_SECONDS (default 15; CI's
// AddressSanitizer run: 60) call random ops of random shapes — GEMMs of both precisions in every storage, some
// with split-K scratch, one thread with a growing series of them (an iterative solver's growing basis),
// transposes, stencils, matrix and vector adds — on the host devices (the CPU, and Kokkos where built), with
// random variants, and check every result against a reference. Two bounds:
// - resident memory at the end may exceed its level after warm-up (every thread 20 calls in) by at most twice
//   the largest working set the threads can hold at once (16 threads x the largest call's operands: 8.5 MiB), plus AddressSanitizer's quarantine
//   (TK_SOAK_QUARANTINE_MIB, set with quarantine_size_mb in its run);
// - the scratch pool may hold no more blocks than the threads could hold at once (16 per host device): the old
//   pool kept every outgrown workspace (67 MB over 512 growing products).
// Exit status 0 when every result is right and both bounds hold.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tilekit/detail/memory.hpp"
#include "tilekit/tilekit.hpp"

namespace {

constexpr int threads = 16;
constexpr std::int64_t max_side = 128, max_k = 4096;  // split-K's products 8 x N x 4096; operands of 8.5 MiB at most
std::atomic<long> calls{0}, failures{0};
std::mutex report_m;

double rss_mib() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

void fail(const std::string& what) {
  std::lock_guard<std::mutex> lock(report_m);
  if (failures++ < 10) std::printf("WRONG: %s\n", what.c_str());
}

bool close(double got, double want, double tol) { return std::abs(got - want) <= tol * (1 + std::abs(want)); }

template <class T>
void gemm_call(std::mt19937_64& rng, const tk::Device& dev, std::int64_t M, std::int64_t N, std::int64_t K) {
  const tk::Layout layout = rng() % 2 ? tk::Layout::row_major : tk::Layout::col_major;
  const tk::Op oa = rng() % 2 ? tk::Op::trans : tk::Op::none, ob = rng() % 2 ? tk::Op::trans : tk::Op::none;
  const bool row = layout == tk::Layout::row_major;
  // stored shapes in `layout`, and leading dimensions with a random pad
  const std::int64_t ar = oa == tk::Op::none ? M : K, ac = oa == tk::Op::none ? K : M;
  const std::int64_t br = ob == tk::Op::none ? K : N, bc = ob == tk::Op::none ? N : K;
  const std::int64_t lda = (row ? ac : ar) + static_cast<std::int64_t>(rng() % 3);
  const std::int64_t ldb = (row ? bc : br) + static_cast<std::int64_t>(rng() % 3);
  const std::int64_t ldc = (row ? N : M) + static_cast<std::int64_t>(rng() % 3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<std::size_t>(lda * (row ? ar : ac))), B(static_cast<std::size_t>(ldb * (row ? br : bc)));
  for (auto& x : A) x = T(u(rng));
  for (auto& x : B) x = T(u(rng));
  std::vector<T> C(static_cast<std::size_t>(ldc * (row ? M : N)), T(0.5));
  const std::vector<T> C0 = C;
  const T alpha = T(1.5), beta = rng() % 2 ? T(0) : T(-0.5);
  const auto variant = static_cast<tk::MatmulVariant>(rng() % (static_cast<int>(tk::MatmulVariant::best) + 1));
  tk::gemm(dev, layout, oa, ob, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, variant);
  const auto at = [&](const std::vector<T>& m, std::int64_t ld, std::int64_t i, std::int64_t j) {
    return double(row ? m[i * ld + j] : m[j * ld + i]);
  };
  // a few elements of C against a double reference
  for (int s = 0; s < 6; ++s) {
    const std::int64_t i = static_cast<std::int64_t>(rng() % M), j = static_cast<std::int64_t>(rng() % N);
    double want = 0;
    for (std::int64_t k = 0; k < K; ++k)
      want += (oa == tk::Op::none ? at(A, lda, i, k) : at(A, lda, k, i)) *
              (ob == tk::Op::none ? at(B, ldb, k, j) : at(B, ldb, j, k));
    want = double(alpha) * want + double(beta) * at(C0, ldc, i, j);
    const double tol = (sizeof(T) == 4 ? 2e-5 : 1e-12) * std::sqrt(double(K)) * 8;
    if (!close(at(C, ldc, i, j), want, tol))
      fail("gemm " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " on " + dev.name() +
           " variant " + tk::to_string(variant) + ": C(" + std::to_string(i) + ", " + std::to_string(j) +
           ") = " + std::to_string(at(C, ldc, i, j)) + ", expected " + std::to_string(want));
  }
}

void memory_call(std::mt19937_64& rng, const tk::Device& dev) {
  const std::int64_t rows = 1 + static_cast<std::int64_t>(rng() % 700),
                     cols = 1 + static_cast<std::int64_t>(rng() % 700);
  std::vector<float> in(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i % 1009) - 500.0f;
  switch (rng() % 4) {
    case 0: {
      std::vector<float> out(in.size(), -1.0f);
      const auto v = tk::transpose_variants()[rng() % tk::transpose_variants().size()].variant;
      tk::transpose(dev, rows, cols, in.data(), cols, out.data(), rows, v);
      const std::int64_t i = static_cast<std::int64_t>(rng() % rows), j = static_cast<std::int64_t>(rng() % cols);
      if (out[j * rows + i] != in[i * cols + j]) fail("transpose on " + dev.name());
      break;
    }
    case 1: {
      std::vector<float> out(in.size(), -1.0f);
      tk::stencil_5point(dev, rows, cols, in.data(), cols, out.data(), cols, 0.5f, 0.125f);
      const std::int64_t i = static_cast<std::int64_t>(rng() % rows), j = static_cast<std::int64_t>(rng() % cols);
      auto v = [&](std::int64_t r, std::int64_t c) {
        return r < 0 || c < 0 || r >= rows || c >= cols ? 0.0 : double(in[r * cols + c]);
      };
      const double got = out[i * cols + j];
      const double want = 0.5 * v(i, j) + 0.125 * (v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1));
      if (!close(got, want, 1e-5)) fail("stencil_5point on " + dev.name());
      break;
    }
    case 2: {  // in place (a single row with another leading dimension for C: the same elements)
      std::vector<float> c = in;
      const std::int64_t ldc = rows == 1 ? cols + 7 : cols;
      tk::matrix_add(dev, rows, cols, c.data(), cols, in.data(), cols, c.data(), ldc);
      if (c.back() != 2 * in.back()) fail("matrix_add on " + dev.name());
      break;
    }
    default: {
      std::vector<float> out(in.size(), -1.0f);
      tk::vector_add(dev, static_cast<std::int64_t>(in.size()), in.data(), in.data(), out.data());
      if (out[in.size() / 2] != 2 * in[in.size() / 2]) fail("vector_add on " + dev.name());
    }
  }
}

}  // namespace

int main() {
  const char* env = std::getenv("TK_SOAK_SECONDS");
  const double seconds = env ? std::atof(env) : 15.0;
  std::vector<tk::Device> devs;
  for (const tk::Device& d : tk::devices())
    if (tk::reads_host_memory(d.backend())) devs.push_back(d);
  // the largest working set of one call: a double GEMM's A and B of max_side x max_k (with their pads) and C
  const double largest_call_mib = (2.0 * (max_side + 2) * max_k + (max_side + 2) * max_side) * 8 / (1 << 20);
  const char* quarantine = std::getenv("TK_SOAK_QUARANTINE_MIB");
  const double bound_mib = 2 * threads * largest_call_mib + (quarantine ? std::atof(quarantine) : 0.0);
  // the baseline once every thread has run a while (its stack, its malloc arena, the executor's arena and
  // OpenMP's team are then in it): the bound is on growth from there to the end
  double rss_start = 0;
  std::atomic<int> warmed{0};
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      std::int64_t growing = 1;  // thread 0: products 8 x N x 4096, N growing by one (split-K scratch)
      int my_calls = 0;
      while (elapsed() < seconds) {
        const tk::Device& dev = devs[rng() % devs.size()];
        try {
          if (t == 0) {
            rng() % 2 ? gemm_call<float>(rng, tk::Device::cpu(), 8, growing, max_k)
                      : gemm_call<double>(rng, tk::Device::cpu(), 8, growing, max_k);
            growing = growing % max_side + 1;
          } else if (rng() % 2) {
            const std::int64_t M = 1 + static_cast<std::int64_t>(rng() % max_side);
            const std::int64_t N = 1 + static_cast<std::int64_t>(rng() % max_side);
            const std::int64_t K = rng() % 8 == 0 ? 1 + static_cast<std::int64_t>(rng() % max_k)
                                                  : 1 + static_cast<std::int64_t>(rng() % max_side);
            rng() % 2 ? gemm_call<float>(rng, dev, M, N, K) : gemm_call<double>(rng, dev, M, N, K);
          } else {
            memory_call(rng, dev);
          }
        } catch (const std::exception& e) {
          fail(std::string("threw: ") + e.what());
        }
        if (++my_calls == 20) ++warmed;
        ++calls;
      }
    });
  while (warmed < threads && elapsed() < seconds / 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  rss_start = rss_mib();
  for (auto& th : pool) th.join();
  const double rss_end = rss_mib();
  const tk::detail::ScratchHeld held = tk::detail::host_scratch_held();
  std::printf(
      "soak: %ld calls from %d threads in %.0f s on %zu host devices; resident %.0f MiB after warm-up, %.0f "
      "MiB at the end (growth allowed: %.0f MiB: 2 x %d threads x %.1f MiB + quarantine %s MiB); scratch pool "
      "%zu blocks, %.2f MiB\n",
      calls.load(), threads, seconds, devs.size(), rss_start, rss_end, bound_mib, threads, largest_call_mib,
      quarantine ? quarantine : "0", held.blocks, held.bytes / double(1 << 20));
  bool ok = failures == 0;
  if (rss_end - rss_start > bound_mib) {
    std::printf("WRONG: resident memory grew by %.0f MiB, more than %.0f MiB\n", rss_end - rss_start, bound_mib);
    ok = false;
  }
  if (held.blocks > devs.size() * threads) {
    std::printf(
        "WRONG: the scratch pool holds %zu blocks, more than the %zu a device's %d threads could hold at once\n",
        held.blocks, devs.size() * threads, threads);
    ok = false;
  }
  std::printf("soak: %s\n", ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}
