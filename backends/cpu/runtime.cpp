// The CPU's runtime: host memory (64-byte aligned), synchronous copies, and what sysfs says of the caches.
#include <sched.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "tilekit/detail/runtime.hpp"
#include "tilekit/error.hpp"

namespace tk::detail {
namespace {

std::int64_t read_cache_size(int index, int* level, std::string* type) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
  std::ifstream fl(dir + "level"), ft(dir + "type"), fs(dir + "size");
  std::string size;
  if (!(fl >> *level) || !(ft >> *type) || !(fs >> size) || size.empty()) return -1;
  std::int64_t v = std::atoll(size.c_str());
  if (size.back() == 'K') v <<= 10;
  if (size.back() == 'M') v <<= 20;
  return v;
}

// One field of /proc/cpuinfo's first processor ("vendor_id", "cpu family", "cpu MHz"), or "".
std::string cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || line.find_first_not_of(" \t", key.size()) != colon) continue;
    return colon + 2 <= line.size() ? line.substr(colon + 2) : "";
  }
  return "";
}

// The cores' clock in kHz: cpufreq's maximum (the one-core turbo clock: an upper bound), else /proc/cpuinfo's
// "cpu MHz" (what a virtual machine shows, often the base clock). *source says which.
std::int64_t cpu_clock_khz(const char** source) {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  std::int64_t khz = 0;
  if (f >> khz && khz > 0) {
    *source = "cpufreq's maximum, one-core turbo";
    return khz;
  }
  const std::string mhz = cpuinfo_field("cpu MHz");
  *source = "/proc/cpuinfo's cpu MHz";
  return mhz.empty() ? 0 : static_cast<std::int64_t>(std::atof(mhz.c_str()) * 1e3);
}

// Physical cores among the CPUs this process may run on (sched_getaffinity): SMT siblings (topology's
// core_cpus_list, thread_siblings_list on older kernels) count once. 0 when the topology cannot be read.
int physical_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  std::set<std::string> cores;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    std::string siblings;
    std::ifstream f(dir + "core_cpus_list");
    if (!(f >> siblings)) {
      std::ifstream g(dir + "thread_siblings_list");
      if (!(g >> siblings)) return 0;
    }
    cores.insert(siblings);
  }
  return static_cast<int>(cores.size());
}

// Whether this process may use AMX-BF16: the CPU has AMX-TILE and AMX-BF16 (CPUID leaf 7: EDX bits 24 and 22),
// Linux granted the process the tile data state (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): kernels
// from 5.16 on; a process must ask before its first tile instruction, or it is killed by SIGILL), and the
// OS enabled the tile state in XCR0 (bits 17 and 18). Asked once per process.
bool amx_bf16_usable() {
#if defined(__x86_64__)
  static const bool usable = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    if ((d >> 22 & 1u) == 0 || (d >> 24 & 1u) == 0) return false;
    unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;  // OSXSAVE (leaf 1, ECX bit 27): xgetbv below is allowed
    if (__get_cpuid(1, &a1, &b1, &c1, &d1) == 0 || (c1 >> 27 & 1u) == 0) return false;
    constexpr long arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18;
    if (syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) != 0) return false;
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo >> 17 & 3u) == 3u;
  }();
  return usable;
#else
  return false;
#endif
}

// The FMA pipes of one core and the bits each executes at once, by vendor and family: AMD Zen 2-4 (family
// 0x17, 0x19) two 256-bit pipes (Zen 4 splits an AVX-512 op in two), Zen 5 (0x1a) two 512-bit pipes (its server
// parts; the mobile ones split AVX-512 as Zen 4 does, and are not told apart here); Intel two
// pipes of the widest vector it runs (server parts with AVX-512 have two 512-bit FMA units; a few have one).
void set_cpu_peak(DeviceProps& p) {
  const std::string vendor = cpuinfo_field("vendor_id");
  const int family = std::atoi(cpuinfo_field("cpu family").c_str());
  int pipes = 2, bits = p.simd_width_bits;
  if (vendor == "AuthenticAMD" && (family == 0x17 || family == 0x19)) bits = std::min(bits, 256);
  if (vendor != "AuthenticAMD" && vendor != "GenuineIntel") pipes = 1;  // unknown: one pipe, the ISA's width
  p.simd_datapath_bits = bits;
  const char* clock_source = "unknown";
  p.clock_khz = cpu_clock_khz(&clock_source);
  const int physical = physical_cores();
  const int cores = physical > 0 ? physical : p.multiprocessors;
  const double per_cycle32 = 2.0 * pipes * bits / 32;  // FMA = 2 FLOPs per lane
  p.peak_fp32_gflops = cores * per_cycle32 * static_cast<double>(p.clock_khz) / 1e6;
  p.peak_fp64_gflops = p.peak_fp32_gflops / 2;
#if defined(__x86_64__) || defined(__i386__)
  // vdpbf16ps: a 512-bit one per cycle, 16 lanes x 2 products x 2 FLOPs: Zen 4 (whose FMAs are 256-bit halves)
  // and Zen 5 (assumed: two a cycle, as its FMAs; not measured) twice their FP32 peak; Intel's cores one per cycle beside two 512-bit
  // FMAs: their FP32 peak
  if (__builtin_cpu_supports("avx512bf16"))
    p.peak_bf16_gflops = vendor == "AuthenticAMD" ? 2 * p.peak_fp32_gflops : p.peak_fp32_gflops;
  // tdpbf16ps: 16 x 16 x 32 products (2 FLOPs each) in 16 cycles
  if (p.clock_khz > 0 && amx_bf16_usable())
    p.peak_amx_bf16_gflops = cores * 1024.0 * static_cast<double>(p.clock_khz) / 1e6;
#endif
  p.cpu_peak_model =
      std::to_string(cores) + (physical > 0 ? " physical cores x " : " CPUs x ") + std::to_string(p.clock_khz / 1000) +
      " MHz (" + clock_source + ") x " + std::to_string(pipes) + " FMA pipe" + (pipes > 1 ? "s" : "") + " x " +
      std::to_string(bits) + " bits" +
      (vendor.empty() ? "" : " (" + vendor + " family " + std::to_string(family) + ")") +
      (p.peak_bf16_gflops > 0
           ? "; BF16 (AVX512_BF16) " + std::string(p.peak_bf16_gflops > p.peak_fp32_gflops ? "twice" : "once") +
                 " the FP32 peak"
           : "") +
      (p.peak_amx_bf16_gflops > 0 ? "; BF16 on AMX tiles 1024 FLOPs a cycle" : "");
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "CPU";
}

class CpuRuntime final : public Runtime {
 public:
  int device_count() override { return 1; }
  std::string unavailable_reason() override { return ""; }

  DeviceProps props(int) override {
    DeviceProps p;
    p.name = cpu_model();
    p.vendor = cpuinfo_field("vendor_id");
    p.multiprocessors = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(__i386__)
    p.simd_width_bits = __builtin_cpu_supports("avx512f") ? 512 : __builtin_cpu_supports("avx") ? 256 : 128;
    p.arch = std::string("x86_64 ") + (p.simd_width_bits == 512 ? "avx512f" : p.simd_width_bits == 256 ? "avx" : "sse");
#else
    p.simd_width_bits = 128;
    p.arch = "cpu";
#endif
    p.warp_size = p.simd_width_bits / 32;
    p.max_threads_per_block = 1 << 24;  // any logical block size runs
    for (int i = 0; i < 8; ++i) {
      int level = 0;
      std::string type;
      const std::int64_t size = read_cache_size(i, &level, &type);
      if (size < 0) continue;
      if (level == 1 && type != "Instruction") p.l1_bytes = size;
      if (level == 2) p.l2_bytes = size;
      if (level == 3) p.l3_bytes = size;
    }
    // Without sysfs cache entries (some virtual machines), ask the C library.
    if (p.l1_bytes <= 0) p.l1_bytes = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
    if (p.l2_bytes <= 0) p.l2_bytes = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
    if (p.l3_bytes <= 0) p.l3_bytes = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
    // Block-local arrays have no hard limit on a CPU (they live on the stack and in the arena); report
    // the L1 data cache, the size a tile should fit to stay close to the core.
    p.shared_per_block = p.shared_per_block_optin = p.shared_per_multiprocessor = p.l1_bytes;
    set_cpu_peak(p);
#if defined(__clang__)
    p.compiler = "clang++ " __clang_version__;
#elif defined(__GNUC__)
    p.compiler = "g++ " __VERSION__;
#endif
    return p;
  }

  void* alloc(int, std::size_t bytes) override {
    // whole 64-byte lines (aligned_alloc's rule), for sizes the address space can hold: a count that wrapped
    // (a negative difference cast to size_t) must not round to a short block
    if (bytes > static_cast<std::size_t>(PTRDIFF_MAX))
      fail("tk::Buffer: ", bytes, " bytes asked for; expected at most PTRDIFF_MAX (", PTRDIFF_MAX,
           ") bytes: the size wrapped around, or is more than the address space holds");
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) fail("tk::Buffer: aligned_alloc(", rounded, " bytes) failed: out of host memory");
    return p;
  }
  void free(int, void* p) noexcept override { std::free(p); }
  void copy(int, void* dst, const void* src, std::size_t bytes, CopyKind) override { std::memcpy(dst, src, bytes); }
  void synchronize(int) override {}
  PointerInfo locate(const void*) override { return {PointerInfo::Kind::host, 0}; }
  void* stream_create(int) override { return nullptr; }
  void stream_destroy(int, void*) noexcept override {}
  void stream_synchronize(int, void*) override {}
  int stream_device(void*) override { return -1; }
  void stream_wait_event(int, void*, void*) override {}
  void* scratch_alloc(int dev, std::size_t bytes, void*) override { return alloc(dev, bytes); }
  void scratch_free(int dev, void* p, void*) noexcept override { free(dev, p); }
  void* event_create(int) override { return nullptr; }
  void event_record(int, void*, void*) override {}
  double event_elapsed_ms(void*, void*) override { return 0.0; }
  void event_destroy(void*) noexcept override {}
};

}  // namespace

// Never destroyed (like the GPU runtimes): tilekit may be called from static destructors and atexit handlers.
Runtime& cpu_runtime() {
  static CpuRuntime* r = new CpuRuntime;
  return *r;
}

}  // namespace tk::detail
