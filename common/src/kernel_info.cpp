// Occupancy reasoning and the kernel-resource report.
#include "tilekit/kernel_info.hpp"

#include "tilekit/matmul.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "dispatch.hpp"
#include "tilekit/detail/launchers_aos.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/detail/launchers_experiments.hpp"
#include "tilekit/detail/launchers_matmul.hpp"
#include "tilekit/detail/launchers_stencil.hpp"
#include "tilekit/detail/launchers_transpose.hpp"
#include "tilekit/error.hpp"

namespace tk {

Occupancy occupancy(const DeviceProps& p, int threads_per_block, int registers_per_thread,
                    std::int64_t shared_per_block) {
  Occupancy o;
  o.threads_per_block = threads_per_block;
  if (threads_per_block <= 0 || threads_per_block > p.max_threads_per_block) return o;
  struct Bound {
    std::int64_t blocks;
    const char* name;
  };
  std::vector<Bound> bounds{
      {p.max_blocks_per_multiprocessor > 0 ? p.max_blocks_per_multiprocessor : INT_MAX, "block slots"},
      {p.max_threads_per_multiprocessor / threads_per_block, "threads"}};
  if (registers_per_thread > 0 && p.regs_per_multiprocessor > 0)
    bounds.push_back(
        {p.regs_per_multiprocessor / (std::int64_t{registers_per_thread} * threads_per_block), "registers"});
  if (shared_per_block > 0 && p.shared_per_multiprocessor > 0)
    bounds.push_back({shared_per_block <= p.shared_per_block_optin ? p.shared_per_multiprocessor / shared_per_block : 0,
                      "shared memory"});
  const auto least = std::min_element(bounds.begin(), bounds.end(),
                                      [](const Bound& a, const Bound& b) { return a.blocks < b.blocks; });
  o.blocks = static_cast<int>(least->blocks);
  o.limit = least->name;
  return o;
}

namespace detail {
std::vector<KernelResources>*& describe_sink() {
  thread_local std::vector<KernelResources>* sink = nullptr;
  return sink;
}
}  // namespace detail

std::vector<KernelResources> kernel_resources(const Device& dev) {
  if (dev.backend() == Backend::kokkos) return {};  // Kokkos chooses its own launches
  std::vector<KernelResources> out;
  struct Recording {  // launches record instead of running, until this scope ends (exceptions too)
    explicit Recording(std::vector<KernelResources>* v) { detail::describe_sink() = v; }
    ~Recording() { detail::describe_sink() = nullptr; }
  } recording(&out);
  // 16-byte-aligned stand-ins for every pointer: nothing is launched, so nothing is read or written.
  float* p = reinterpret_cast<float*>(std::uintptr_t{4096});
  auto record = [&](const char* op, const char* variant, const auto& call) {
    const std::size_t before = out.size();
    call();
    for (std::size_t i = before; i < out.size(); ++i) {
      out[i].op = op;
      out[i].variant = variant;
    }
  };
  const std::int64_t big = std::int64_t{1} << 28, side = 8192, n3 = 4096;
  // GEMM in both precisions, no transposes: every variant, then each warp_tiled configuration by name
  const auto square = [&](auto* x) {
    detail::GemmArgs<std::remove_pointer_t<decltype(x)>> a;
    a.M = a.N = a.K = a.lda = a.ldb = a.ldc = n3;
    a.A = a.B = a.C = x;
    return a;
  };
  const detail::GemmArgs<float> sgemm = square(p);
  const detail::GemmArgs<double> dgemm = square(reinterpret_cast<double*>(p));
  for (const auto& v : matmul_variants()) {
    record("sgemm", v.name, [&] { TK_DISPATCH(dev, gemm, dev, v.variant, sgemm, nullptr); });
    record("dgemm", v.name, [&] { TK_DISPATCH(dev, gemm, dev, v.variant, dgemm, nullptr); });
  }
  for (const char* c : matmul_configs(dev, 4))
    record("sgemm", c, [&] { TK_DISPATCH(dev, gemm, dev, MatmulVariant::warp_tiled, sgemm, c); });
  for (const char* c : matmul_configs(dev, 8))
    record("dgemm", c, [&] { TK_DISPATCH(dev, gemm, dev, MatmulVariant::warp_tiled, dgemm, c); });
  record("copy", "-", [&] { TK_DISPATCH(dev, copy, dev, big, p, p + big); });
  record("vector_add", "-", [&] { TK_DISPATCH(dev, vector_add, dev, big, p, p, p); });
  record("matrix_add", "-", [&] { TK_DISPATCH(dev, matrix_add, dev, side, side, p, side, p, side, p, side); });
  auto variants_of = [](const auto& infos) {
    std::vector<std::pair<std::decay_t<decltype(infos.front().variant)>, const char*>> all;
    for (const auto& i : infos) all.emplace_back(i.variant, i.name);
    return all;
  };
  auto transposes = variants_of(transpose_variants());
  transposes.emplace_back(TransposeVariant::best, "best");
  for (const auto& [v, name] : transposes)
    record("transpose", name, [&] { TK_DISPATCH(dev, transpose, dev, v, side, side, p, side, p, side); });
  for (const auto& [v, name] : variants_of(aos_variants()))
    record("float3_add", name, [&] { TK_DISPATCH(dev, float3_add, dev, v, big / 3, p, p, 2.f); });
  record("float3_add_soa", "-", [&] { TK_DISPATCH(dev, float3_add_soa, dev, big / 3, p, p, 2.f); });
  for (const auto& [v, name] : variants_of(stencil_variants())) {
    record("moving_average", name, [&] { TK_DISPATCH(dev, moving_average, dev, v, big, p, p, 8); });
    record("stencil_5point", name,
           [&] { TK_DISPATCH(dev, stencil_5point, dev, v, side, side, p, side, p, side, 0.5f, 0.125f); });
    record("convolve_2d", name, [&] { TK_DISPATCH(dev, convolve_2d, dev, v, side, side, p, side, p, 2, p, side); });
  }
  return out;
}

}  // namespace tk

namespace tk {
namespace {

KnownDevice make(const char* key, const char* name, const char* arch, int sms, int warp, int max_threads_block,
                 int max_threads_sm, int max_blocks_sm, int regs_sm, std::int64_t shared_sm, std::int64_t shared_block,
                 std::int64_t shared_block_optin, std::int64_t l2, double bw, double gflops) {
  KnownDevice d;
  d.key = key;
  d.props.name = name;
  d.props.arch = arch;
  d.props.multiprocessors = sms;
  d.props.warp_size = warp;
  d.props.max_threads_per_block = max_threads_block;
  d.props.max_threads_per_multiprocessor = max_threads_sm;
  d.props.max_blocks_per_multiprocessor = max_blocks_sm;
  d.props.regs_per_multiprocessor = regs_sm;
  d.props.regs_per_block = regs_sm;
  d.props.shared_per_multiprocessor = shared_sm;
  d.props.shared_per_block = shared_block;
  d.props.shared_per_block_optin = shared_block_optin;
  d.props.l2_bytes = l2;
  d.bandwidth_gbs = bw;
  d.fp32_gflops = gflops;
  return d;
}

constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;

}  // namespace

// Datasheet figures (vendor whitepapers; the G80 and K40 as the seeds quote them).
const std::vector<KnownDevice>& known_devices() {
  static const std::vector<KnownDevice>& all = *new std::vector<KnownDevice>{
      // never destroyed: usable during exit
      make("g80", "NVIDIA G80 (GeForce 8800 GTX; seed 001)", "sm_10", 16, 32, 512, 768, 8, 8192, 16 * KiB, 16 * KiB,
           16 * KiB, 0, 86.4, 367.0),
      make("k40", "NVIDIA Tesla K40 (seed 000)", "sm_35", 15, 32, 1024, 2048, 16, 65536, 48 * KiB, 48 * KiB, 48 * KiB,
           1536 * KiB, 288.0, 4290.0),
      make("a100", "NVIDIA A100 SXM4 40GB", "sm_80", 108, 32, 1024, 2048, 32, 65536, 164 * KiB, 48 * KiB, 163 * KiB,
           40 * MiB, 1555.0, 19500.0),
      make("h100", "NVIDIA H100 SXM5 80GB", "sm_90", 132, 32, 1024, 2048, 32, 65536, 228 * KiB, 48 * KiB, 227 * KiB,
           50 * MiB, 3352.0, 66900.0),
      make("h200", "NVIDIA H200 SXM 141GB", "sm_90", 132, 32, 1024, 2048, 32, 65536, 228 * KiB, 48 * KiB, 227 * KiB,
           60 * MiB, 4800.0, 66900.0),
      make("mi250x", "AMD Instinct MI250X (one GCD)", "gfx90a", 110, 64, 1024, 2048, 32, 131072, 64 * KiB, 64 * KiB,
           64 * KiB, 8 * MiB, 1638.4, 23950.0),
      make("mi300x", "AMD Instinct MI300X", "gfx942", 304, 64, 1024, 2048, 32, 131072, 64 * KiB, 64 * KiB, 64 * KiB,
           32 * MiB, 5300.0, 81700.0),
  };
  return all;
}

const KnownDevice* find_known_device(const std::string& key) {
  for (const auto& d : known_devices())
    if (d.key == key) return &d;
  return nullptr;
}

TileAnalysis analyse_tile(const DeviceProps& p, double bandwidth_gbs, double fp32_gflops, const TileShape& t,
                          int stages, int registers_per_thread) {
  TileAnalysis a;
  a.tile = t;
  a.loads_per_phase = double(t.bm + t.bn) * t.bk;
  a.flops_per_phase = 2.0 * t.bm * t.bn * t.bk;
  a.cgma = a.flops_per_phase / a.loads_per_phase;
  a.shared_bytes = std::int64_t{stages} * (t.bm + t.bn) * t.bk * 4;
  a.blocks_by_threads = t.threads <= p.max_threads_per_block ? p.max_threads_per_multiprocessor / t.threads : 0;
  a.blocks_by_shared =
      a.shared_bytes <= p.shared_per_block_optin ? static_cast<int>(p.shared_per_multiprocessor / a.shared_bytes) : 0;
  a.occ = occupancy(p, t.threads, registers_per_thread, a.shared_bytes);
  a.bandwidth_bound_gflops = bandwidth_gbs / 4.0 * a.cgma;
  a.fma_peak_gflops = fp32_gflops;
  return a;
}

}  // namespace tk
