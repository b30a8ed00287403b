// tk-info — the device, the kernels and the tile sizes, explained the way seeds 000 and 001 reason.
//
//   tk-info                  every device present: its table, tilekit's kernels as compiled with the
//                            occupancy they imply (and the runtime's own answer), the matmul tile table
//   tk-info --device KEY     a known device from its datasheet (g80, k40, a100, h100, h200, mi250x,
//                            mi300x), or a present one (cpu, cuda, hip): works on a CPU-only machine; in a
//                            HIP build, an AMD device also lists every AMD kernel of the build as compiled
//                            (registers, LDS, scratch, spills from the code objects) with its occupancy
//   tk-info --matmul-configs [cpu|cuda|hip]   the names of warp_tiled's tile configurations built for
//                            that backend (the first device of it present; default: the first GPU, else
//                            the CPU), float then double, one per line as "float NAME": the values
//                            TK_MATMUL_CONFIG accepts (tools/gpu-check.sh runs the tests under each)
//   tk-info --json           machine-readable: each device's properties and peaks (a CPU's from its ISA, cores
//                            and clock, and its measured memory bandwidth), and why each absent backend is absent
//   tk-info --version, --help
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

using tk::DeviceProps;

// FP32 lanes per multiprocessor by NVIDIA architecture (CUDA programming guide, arithmetic throughput).
int fp32_lanes(const std::string& arch) {
  if (arch == "sm_80" || arch == "sm_70" || arch == "sm_72" || arch == "sm_75" || arch == "sm_60") return 64;
  if (arch.rfind("sm_3", 0) == 0) return 192;
  if (arch.rfind("sm_", 0) == 0) return 128;
  if (arch.rfind("gfx", 0) == 0) return 64;  // 4 SIMD16 per CU
  return 0;
}

void print_props(const DeviceProps& p, double bw, double gflops) {
  auto kib = [](std::int64_t b) { return b / 1024.0; };
  std::printf("  %-34s %s (%s)\n", "device", p.name.c_str(), p.arch.c_str());
  std::printf("  %-34s %d\n", p.simd_width_bits ? "cores" : "multiprocessors", p.multiprocessors);
  std::printf("  %-34s %d\n", p.simd_width_bits ? "SIMD lanes (float), the CPU's warp" : "warp size", p.warp_size);
  if (p.simd_width_bits) {
    if (!p.vendor.empty()) std::printf("  %-34s %s\n", "vendor", p.vendor.c_str());
    std::printf("  %-34s %d bits", "SIMD width", p.simd_width_bits);
    if (p.simd_datapath_bits > 0 && p.simd_datapath_bits < p.simd_width_bits)
      std::printf(" (executed %d at a time)", p.simd_datapath_bits);
    std::printf("\n");
    std::printf("  %-34s L1d %.0f KiB, L2 %.0f KiB, L3 %.0f KiB\n", "caches", kib(p.l1_bytes), kib(p.l2_bytes),
                kib(p.l3_bytes));
    return;
  }
  std::printf("  %-34s %d per multiprocessor, %d per block\n", "threads", p.max_threads_per_multiprocessor,
              p.max_threads_per_block);
  std::printf("  %-34s %d\n", "blocks per multiprocessor", p.max_blocks_per_multiprocessor);
  std::printf("  %-34s %d per multiprocessor\n", "32-bit registers", p.regs_per_multiprocessor);
  std::printf("  %-34s %.0f KiB per multiprocessor, %.0f KiB per block (%.0f KiB opted in)\n", "shared memory",
              kib(p.shared_per_multiprocessor), kib(p.shared_per_block), kib(p.shared_per_block_optin));
  if (p.l2_bytes > 0) std::printf("  %-34s %.1f MiB\n", "L2 cache", kib(p.l2_bytes) / 1024.0);
  else std::printf("  %-34s none\n", "L2 cache");
  std::printf("  %-34s %.1f GB/s\n", "DRAM bandwidth", bw);
  std::printf("  %-34s %.1f GFLOP/s\n", "FP32 peak (FMA = 2 FLOPs)", gflops);
  std::printf("  %-34s %.1f FLOPs per float loaded (seed 000: utilisation of a kernel with CGMA c is c / this)\n",
              "CGMA needed to reach the peak", gflops / (bw / 4.0));
}

void print_kernels(const tk::Device& dev) {
  const auto ks = tk::kernel_resources(dev);
  if (ks.empty()) return;
  const DeviceProps& p = dev.props();
  std::printf(
      "\n  kernels as compiled for %s, at the launch shapes of large problems (matmul 4096^3, 2D ops 8192^2,\n"
      "  1D ops 2^28 elements); blocks per multiprocessor reasoned from threads, registers and shared memory\n"
      "  (seed 001, 5.4), then the runtime's own answer:\n",
      dev.name().c_str());
  std::printf("  %-28s %-26s %8s %5s %9s %9s %8s %-14s %8s %8s\n", "op/variant", "kernel", "threads", "regs",
              "static B", "dynamic B", "blocks", "limited by", "runtime", "occupancy");
  for (const auto& k : ks) {
    const bool gpu = k.registers_per_thread >= 0;
    const tk::Occupancy o =
        tk::occupancy(p, k.block_threads, k.registers_per_thread, (gpu ? k.static_shared : 0) + k.dynamic_shared);
    const std::string name = k.variant == "-" ? k.op : k.op + "/" + k.variant;
    if (!gpu) {
      std::printf("  %-28s %-26s %8d %5s %9s %9lld %8s %-14s %8s %8s\n", name.c_str(), k.kernel.c_str(),
                  k.block_threads, "-", "-", static_cast<long long>(k.dynamic_shared), "-", "(CPU)", "-", "-");
      continue;
    }
    std::printf("  %-28s %-26s %8d %5d %9lld %9lld %8d %-14s %8d %7.0f%%\n", name.c_str(), k.kernel.c_str(),
                k.block_threads, k.registers_per_thread, static_cast<long long>(k.static_shared),
                static_cast<long long>(k.dynamic_shared), o.blocks, o.limit.c_str(),
                k.runtime_blocks_per_multiprocessor, 100.0 * o.threads() / p.max_threads_per_multiprocessor);
  }
  std::printf(
      "  (the runtime also counts register and shared-memory allocation granularity and its own\n"
      "   reserved shared memory, so it may answer fewer blocks than the seeds' arithmetic)\n");
}

void print_tiles(const DeviceProps& p, double bw, double gflops) {
  std::printf(
      "\n  matmul tile sizes (seed 000): per phase a block loads (BM + BN) * BK floats for 2 * BM * BN * BK "
      "FLOPs\n");
  std::printf("  %-26s %8s %10s %12s %6s %9s %13s %12s %9s %11s %11s\n", "tile", "threads", "loads", "FLOPs", "CGMA",
              "shared B", "blocks: smem", "threads", "resident", "BW-bound", "FMA peak");
  const std::vector<std::pair<tk::TileShape, int>> tiles{
      {{"8 x 8 (smem_tiled)", 8, 8, 8, 64}, 1},
      {{"16 x 16 (smem_tiled16)", 16, 16, 16, 256}, 1},
      {{"32 x 32 (smem_tiled32)", 32, 32, 32, 1024}, 1},
      {{"64 x 64 (one thread each)", 64, 64, 64, 4096}, 1},
      {{"128x128x8 register_tiled", 128, 128, 8, 256}, 1},
      {{"128x128x8 warp_tiled", 128, 128, 8, 128}, 2},
      {{"128x256x8 warp_tiled", 128, 256, 8, 256}, 2},
      {{"128x64x16 warp_tiled", 128, 64, 16, 128}, 2},
  };
  for (const auto& [t, stages] : tiles) {
    const tk::TileAnalysis a = tk::analyse_tile(p, bw, gflops, t, stages);
    char resident[64];
    if (a.occ.blocks > 0) std::snprintf(resident, sizeof resident, "%d (%s)", a.occ.blocks, a.occ.limit.c_str());
    else std::snprintf(resident, sizeof resident, "does not fit");
    std::printf("  %-26s %8d %10.0f %12.0f %6.1f %9lld %13d %12d %-20s %7.1f GF %8.1f GF\n", t.name.c_str(), t.threads,
                a.loads_per_phase, a.flops_per_phase, a.cgma, static_cast<long long>(a.shared_bytes),
                a.blocks_by_shared, a.blocks_by_threads, resident, a.bandwidth_bound_gflops, a.fma_peak_gflops);
  }
  std::printf(
      "  (blocks: smem / threads = what shared memory / the thread limit alone allow per multiprocessor;\n"
      "   BW-bound = bandwidth / 4 bytes x CGMA, the most a kernel that loads every tile from DRAM can do)\n");
}

#if defined(TK_HAVE_AMDGPU_RESOURCES)
// This build's AMD kernels, read from their code objects by tools/amdgpu-resources at build time.
struct AmdKernel {
  const char* arch;
  const char* name;
  int vgpr, agpr, sgpr, lds, scratch, vgpr_spill, sgpr_spill, wave, max_workgroup;
};
const AmdKernel amd_kernels[] = {
#include "tilekit/amdgpu_resources.inc"
};

// Where a workgroup runs, from the ISA guides: SIMDs, wave slots per SIMD, VGPRs per lane per SIMD (gfx90a:
// VGPRs and AGPRs from one file of 512), allocation granule, LDS. CDNA: a compute unit; RDNA: a workgroup
// processor (two CUs, the compiler's default WGP mode).
struct AmdCu {
  int simds, waves_per_simd, vgprs, granule, lds;
};
AmdCu amd_cu(const std::string& arch, int wave) {
  if (arch == "gfx90a" || arch == "gfx940" || arch == "gfx942") return {4, 8, 512, 8, 64 * 1024};
  if (arch.rfind("gfx101", 0) == 0) return {4, 20, wave == 32 ? 1024 : 512, wave == 32 ? 16 : 8, 128 * 1024};
  if (arch.rfind("gfx10", 0) == 0 || arch.rfind("gfx11", 0) == 0)  // RDNA: four SIMD32 per WGP
    return {4, 16, wave == 32 ? 1024 : 512, wave == 32 ? 16 : 8, 128 * 1024};
  return {4, 10, 256, 4, 64 * 1024};  // GCN
}

// Every kernel as compiled, with the waves per SIMD its registers and LDS allow for workgroups of its launch
// bound (the whole workgroup's waves on one CU), and what binds.
void print_amd_kernels() {
  std::string arch;
  for (const AmdKernel& k : amd_kernels) {
    if (k.arch != arch) {
      arch = k.arch;
      std::printf(
          "\n  kernels as compiled for %s (this build's code objects); waves per SIMD by the ISA guide's\n"
          "  arithmetic for workgroups of the kernel's launch bound (`bound`; 1024 threads where it declares\n"
          "  none, the most the compiler must plan for):\n",
          k.arch);
      std::printf("  %-76s %5s %5s %5s %7s %7s %6s %4s %5s %-16s\n", "kernel", "VGPR", "AGPR", "SGPR", "LDS", "scratch",
                  "spills", "wave", "bound", "waves/SIMD");
    }
    const AmdCu cu = amd_cu(k.arch, k.wave);
    // .vgpr_count already holds a gfx90a kernel's AGPRs (VGPRs rounded to 4, then AGPRs: one register file)
    const int regs = (k.vgpr + cu.granule - 1) / cu.granule * cu.granule;
    if (k.wave <= 0 || k.max_workgroup <= 0) continue;
    const int by_regs = std::min(cu.waves_per_simd, regs > 0 ? cu.vgprs / regs : cu.waves_per_simd);
    const int wg_waves = (k.max_workgroup + k.wave - 1) / k.wave;
    int wgs = by_regs * cu.simds / wg_waves;
    const char* limit = "VGPRs";
    if (by_regs == cu.waves_per_simd) limit = "wave slots";
    if (k.lds > 0 && cu.lds / k.lds < wgs) {
      wgs = cu.lds / k.lds;
      limit = "LDS";
    }
    char occ[32];
    if (wgs > 0) std::snprintf(occ, sizeof occ, "%d (%s)", wgs * wg_waves / cu.simds, limit);
    else std::snprintf(occ, sizeof occ, "does not fit (%s)", limit);
    std::string name = k.name;
    if (name.size() > 76) name = name.substr(0, 73) + "...";
    std::printf("  %-76s %5d %5d %5d %7d %7d %6d %4d %5d %-16s\n", name.c_str(), k.vgpr, k.agpr, k.sgpr, k.lds,
                k.scratch, k.vgpr_spill + k.sgpr_spill, k.wave, k.max_workgroup, occ);
  }
}
#endif

// ---- the options, --json, and what a CPU has ----

const char* const usage =
    "usage: tk-info [--device KEY] [--json] | --matmul-configs [cpu|cuda|hip] | --version | --help\n"
    "  (no option)            every device present, and why a backend has none (not built, no driver, no GPU)\n"
    "  --device KEY           a present device (cpu, cuda, cuda:1, hip, kokkos) or a known one from its datasheet\n"
    "                         (g80, k40, a100, h100, h200, mi250x, mi300x)\n"
    "  --json                 the same, machine-readable: version, commit, each device's properties and peaks,\n"
    "                         the CPU's measured memory bandwidth, and the reason for each absent backend\n"
    "  --matmul-configs [B]   the GEMM configurations built for backend B, float then double (TK_MATMUL_CONFIG)\n"
    "  --version              tilekit's version and git commit\n";

// The CPU's memory bandwidth: the best of 5 copies of 256 MiB split over the OpenMP threads, counted as bytes
// read + written (the ceiling tk-bench sets the memory-bound rows against).
// 0 when the 512 MiB cannot be had.
double measure_cpu_bandwidth_gbs() {
  const std::size_t bytes = std::size_t{256} << 20, chunk = std::size_t{1} << 20;
  const std::int64_t chunks = static_cast<std::int64_t>(bytes / chunk);
  std::vector<char> src, dst;
  try {
    src.assign(bytes, 1);  // written first: untouched pages read as one zero page
    dst.assign(bytes, 0);
  } catch (const std::bad_alloc&) {
    return 0;
  }
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) std::memcpy(dst.data() + c * chunk, src.data() + c * chunk, chunk);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * static_cast<double>(bytes) / s / 1e9);
  }
  return dst[bytes / 2] == 1 ? best : 0;  // (reads the copy, so it is not optimised away)
}

int cpu_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void print_cpu_peaks(const DeviceProps& p, double measured_gbs) {
  if (p.peak_fp32_gflops > 0) {
    std::printf("  %-34s %.1f GFLOP/s FP32, %.1f GFLOP/s FP64\n", "peak (FMA = 2 FLOPs)", p.peak_fp32_gflops,
                p.peak_fp64_gflops);
    if (p.peak_bf16_gflops > 0)
      std::printf(
          "  %-34s %.1f GFLOP/s (AVX512_BF16's pair dot product)%s\n", "peak BF16, FP32 sums", p.peak_bf16_gflops,
          p.peak_bf16_gflops > p.peak_fp32_gflops && p.peak_amx_bf16_gflops <= 0 ? ": BF16 GEMM's `best` runs on it"
                                                                                 : "");
    if (p.peak_amx_bf16_gflops > 0)
      std::printf("  %-34s %.1f GFLOP/s (AMX-BF16's tile products): BF16 GEMM's `best` runs on it\n",
                  "peak BF16 on AMX, FP32 sums", p.peak_amx_bf16_gflops);
    std::printf("  %-34s %s\n", "  from", p.cpu_peak_model.c_str());
  } else {
    std::printf("  %-34s unknown (no clock in cpufreq or /proc/cpuinfo)\n", "peak (FMA = 2 FLOPs)");
  }
  if (measured_gbs > 0)
    std::printf("  %-34s %.1f GB/s (a copy of 256 MiB over %d OpenMP threads, read + written, best of 5)\n",
                "memory bandwidth, measured", measured_gbs, cpu_threads());
  else std::printf("  %-34s not measured (512 MiB of host memory could not be had)\n", "memory bandwidth, measured");
  if (p.peak_fp32_gflops > 0 && measured_gbs > 0)
    std::printf("  %-34s %.1f FLOPs per float loaded (seed 000)\n", "CGMA needed to reach the FP32 peak",
                p.peak_fp32_gflops / (measured_gbs / 4.0));
}

std::string json_string(const std::string& s) {
  std::string q = "\"";
  for (const unsigned char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\', q += static_cast<char>(ch);
    else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      q += buf;
    } else q += static_cast<char>(ch);
  }
  return q + "\"";
}

// {"tilekit": {...}, "devices": [...], "absent": {...}}: one object, every number plain.
void print_json(const std::vector<tk::Device>& devs) {
  std::printf("{\n  \"tilekit\": {\"version\": %s, \"commit\": %s, \"cpu_kernel_isa\": %s, \"cpu_threads\": %d},\n",
              json_string(tk::version()).c_str(), json_string(tk::git_commit()).c_str(),
              json_string(tk::cpu_kernel_isa()).c_str(), cpu_threads());
  std::printf("  \"devices\": [");
  for (std::size_t i = 0; i < devs.size(); ++i) {
    const tk::Device& d = devs[i];
    const DeviceProps& p = d.props();
    const bool host = tk::reads_host_memory(d.backend());
    const double bw = host ? measure_cpu_bandwidth_gbs() : p.peak_bandwidth_gbs();
    const double fp32 = host ? p.peak_fp32_gflops : 2.0 * p.multiprocessors * fp32_lanes(p.arch) * p.clock_khz / 1e6;
    std::printf(
        "%s\n    {\"name\": %s, \"backend\": %s, \"model\": %s, \"vendor\": %s, \"arch\": %s, \"driver\": %s, "
        "\"compiler\": %s,\n"
        "     \"multiprocessors\": %d, \"warp_size\": %d, \"simd_width_bits\": %d,\n"
        "     \"simd_datapath_bits\": %d, \"clock_khz\": %lld,\n"
        "     \"l1_bytes\": %lld, \"l2_bytes\": %lld, \"l3_bytes\": %lld, \"global_mem_bytes\": %lld,\n"
        "     \"shared_per_block_bytes\": %lld, \"shared_per_multiprocessor_bytes\": %lld,\n"
        "     \"peak_fp32_gflops\": %.1f, \"peak_fp64_gflops\": %.1f, \"peak_model\": %s,\n"
        "     \"memory_bandwidth_gbs\": %.1f, \"memory_bandwidth_source\": %s}",
        i ? "," : "", json_string(d.name()).c_str(), json_string(tk::to_string(d.backend())).c_str(),
        json_string(p.name).c_str(), json_string(p.vendor).c_str(), json_string(p.arch).c_str(),
        json_string(p.driver).c_str(), json_string(p.compiler).c_str(), p.multiprocessors, p.warp_size,
        p.simd_width_bits, p.simd_datapath_bits, static_cast<long long>(p.clock_khz),
        static_cast<long long>(p.l1_bytes), static_cast<long long>(p.l2_bytes), static_cast<long long>(p.l3_bytes),
        static_cast<long long>(p.global_mem_bytes), static_cast<long long>(p.shared_per_block),
        static_cast<long long>(p.shared_per_multiprocessor), fp32, host ? p.peak_fp64_gflops : 0.0,
        json_string(host ? p.cpu_peak_model : "FP32 lanes x SMs x clock").c_str(), bw,
        json_string(host ? "measured: a 256 MiB copy over the OpenMP threads" : "theoretical: bus width x memory clock")
            .c_str());
  }
  std::printf("\n  ],\n  \"absent\": {");
  bool first = true;
  for (tk::Backend b : {tk::Backend::cuda, tk::Backend::hip, tk::Backend::kokkos}) {
    const std::string why = tk::unavailable_reason(b);
    if (why.empty()) continue;
    std::printf("%s\n    %s: %s", first ? "" : ",", json_string(tk::to_string(b)).c_str(), json_string(why).c_str());
    first = false;
  }
  std::printf("%s}\n}\n", first ? "" : "\n  ");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string which;
    bool json = false;
    if (argc >= 2 && std::strcmp(argv[1], "--matmul-configs") == 0) {
      const std::string want = argc >= 3 ? argv[2] : "";
      const tk::Device* dev = nullptr;
      const auto all = tk::devices();
      for (const tk::Device& d : all) {
        if (d.backend() == tk::Backend::kokkos || (!want.empty() && want != tk::to_string(d.backend()))) continue;
        if (!dev || (dev->backend() == tk::Backend::cpu && d.backend() != tk::Backend::cpu)) dev = &d;  // a GPU first
      }
      if (!dev) {
        std::fprintf(stderr, "tk-info: no %s device here\n", want.c_str());
        return 2;
      }
      for (int bytes : {4, 8}) {
        for (const char* c : tk::matmul_configs(*dev, bytes))
          std::printf("%s %s\n", bytes == 4 ? "float" : "double", c);
      }
      return 0;
    }
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
        std::fputs(usage, stdout);
        return 0;
      } else if (std::strcmp(argv[i], "--version") == 0) {
        std::printf("tk-info (tilekit %s, commit %s)\n", tk::version(), tk::git_commit());
        return 0;
      } else if (std::strcmp(argv[i], "--json") == 0) {
        json = true;
      } else if (std::strncmp(argv[i], "--device=", 9) == 0) {
        which = argv[i] + 9;
      } else if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
        which = argv[++i];
      } else {
        std::fprintf(stderr, "tk-info: unknown argument '%s'\n%s", argv[i], usage);
        return 2;
      }
    }
    const tk::KnownDevice* known = tk::find_known_device(which);
    if (known && json) {
      std::fprintf(stderr,
                   "tk-info: --json describes the devices present; '%s' is a datasheet device (leave out --json)\n",
                   which.c_str());
      return 2;
    }
    if (known) {
      std::printf("%s (datasheet)\n", known->key.c_str());
      print_props(known->props, known->bandwidth_gbs, known->fp32_gflops);
      print_tiles(known->props, known->bandwidth_gbs, known->fp32_gflops);
#if defined(TK_HAVE_AMDGPU_RESOURCES)
      if (known->props.arch.rfind("gfx", 0) == 0) print_amd_kernels();
#endif
      return 0;
    }
    std::vector<tk::Device> chosen;
    for (const tk::Device& d : tk::devices())
      if (which.empty() || which == tk::to_string(d.backend()) || which == d.name()) chosen.push_back(d);
    if (chosen.empty()) {
      std::string why =
          "expected cpu, cuda, cuda:N, hip, hip:N, kokkos, or a known device (g80, k40, a100, h100, "
          "h200, mi250x, mi300x)";
      for (tk::Backend b : {tk::Backend::cuda, tk::Backend::hip, tk::Backend::kokkos})
        if (which.rfind(tk::to_string(b), 0) == 0)
          why = tk::unavailable_reason(b).empty() ? "no such device index" : tk::unavailable_reason(b);
      std::fprintf(stderr, "tk-info: no device '%s' here: %s\n", which.c_str(), why.c_str());
      return 2;
    }
    if (json) {
      print_json(chosen);
      return 0;
    }
    for (const tk::Device& d : chosen) {
      const DeviceProps& p = d.props();
      if (d.backend() == tk::Backend::kokkos) {
        std::printf("kokkos: the Kokkos cross-check (independent Kokkos versions of the ops), on %s\n",
                    tk::reads_host_memory(d.backend()) ? "this host" : "the GPU");
        if (!p.driver.empty()) std::printf("  %-34s %s\n", "execution space", p.driver.c_str());
        const bool on_gpu = !tk::reads_host_memory(d.backend());  // its GPU's figures, as for that GPU's device
        print_props(p, on_gpu ? p.peak_bandwidth_gbs() : 0,
                    on_gpu ? 2.0 * p.multiprocessors * fp32_lanes(p.arch) * p.clock_khz / 1e6 : 0);
        std::printf("\n");
        continue;
      }
      const double bw = p.peak_bandwidth_gbs();
      const double gflops = 2.0 * p.multiprocessors * fp32_lanes(p.arch) * p.clock_khz / 1e6;
      std::printf("%s\n", d.name().c_str());
      print_props(p, bw, gflops);
      if (!p.driver.empty()) std::printf("  %-34s %s\n", "driver", p.driver.c_str());
      if (!p.compiler.empty()) std::printf("  %-34s %s\n", "compiled with", p.compiler.c_str());
      if (d.backend() == tk::Backend::cpu) {
        print_cpu_peaks(p, measure_cpu_bandwidth_gbs());
        std::printf("  %-34s %s\n", "kernels' instruction set", tk::cpu_kernel_isa().c_str());
      }
      print_kernels(d);
      for (int bytes : {4, 8})
        std::printf("  %-34s %s\n", bytes == 4 ? "matmul best, float 2048^3" : "matmul best, double 2048^3",
                    tk::matmul_tile_choice(d, bytes, 2048, 2048, 2048).c_str());
      std::printf("  %-34s %s\n", "transpose best, 8192^2", tk::transpose_tile_choice(d, 8192, 8192).c_str());
      if (d.backend() != tk::Backend::cpu) print_tiles(p, bw, gflops);
      std::printf("\n");
    }
    if (which.empty()) {
      for (tk::Backend b : {tk::Backend::cuda, tk::Backend::hip, tk::Backend::kokkos}) {
        const std::string why = tk::unavailable_reason(b);
        if (!why.empty()) std::printf("no %s device: %s\n", tk::to_string(b), why.c_str());
      }
    }
  } catch (const tk::Error& e) {
    std::fprintf(stderr, "tk-info: %s\n", e.what());
    return 1;
  }
  return 0;
}
