// Devices, buffers and events on every backend.
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"
#include "tilekit/detail/per_device.hpp"
#include "tilekit/mma.hpp"

namespace tk::test {
namespace {

class DeviceTest : public ::testing::TestWithParam<Backend> {};

TEST_P(DeviceTest, IsEnumeratedWithSaneProperties) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  const auto all = devices();
  EXPECT_EQ(all.front(), Device::cpu());
  EXPECT_NE(std::find(all.begin(), all.end(), dev), all.end());
  EXPECT_EQ(dev.backend(), GetParam());
  const DeviceProps& p = dev.props();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.multiprocessors, 0);
  EXPECT_GT(p.warp_size, 0);
  EXPECT_GT(p.max_threads_per_block, 0);
  if (!reads_host_memory(GetParam())) {  // a GPU (Kokkos built for CUDA: its GPU's figures)
    EXPECT_GE(p.shared_per_block, 16 * 1024);
    EXPECT_GE(p.shared_per_block_optin, p.shared_per_block);
    EXPECT_GE(p.shared_per_multiprocessor, p.shared_per_block);
    EXPECT_GT(p.regs_per_multiprocessor, 0);
    EXPECT_GT(p.max_threads_per_multiprocessor, 0);
    EXPECT_GT(p.l2_bytes, 0);
    // HIP-CPU (the hip-cpu preset: the HIP backend run on the host) has no memory bus to report
    if (p.arch != "hip-cpu") EXPECT_GT(p.peak_bandwidth_gbs(), 100.0);
  } else {
    EXPECT_GT(p.simd_width_bits, 0);
  }
  if (dev.backend() == Backend::cpu) {
    // the BF16 peak (the pair dot product's): where the CPU has AVX512_BF16, and then once (Intel) or twice (AMD)
    // the FP32 peak; it decides where `best` runs the pair-dot kernel (tk::mma::pair_dot_pays)
#if defined(__x86_64__)
    if (p.peak_fp32_gflops > 0) EXPECT_EQ(p.peak_bf16_gflops > 0, __builtin_cpu_supports("avx512bf16") != 0);
#endif
    // the FMA pipes' width: one of the vector widths, at most the ISA's; Zen 2-4 (AMD family 0x17, 0x19) run
    // theirs 256 bits at a time (the stencil's row sweeps read it, kernels/stencil/launch.cpp)
    EXPECT_TRUE(p.simd_datapath_bits == 128 || p.simd_datapath_bits == 256 || p.simd_datapath_bits == 512)
        << p.simd_datapath_bits;
    EXPECT_LE(p.simd_datapath_bits, p.simd_width_bits);
    if (p.vendor == "AuthenticAMD" && p.cpu_peak_model.find("family 25)") != std::string::npos)
      EXPECT_EQ(p.simd_datapath_bits, std::min(p.simd_width_bits, 256));
    if (p.peak_bf16_gflops > 0) {
      EXPECT_TRUE(p.peak_bf16_gflops == p.peak_fp32_gflops || p.peak_bf16_gflops == 2 * p.peak_fp32_gflops)
          << p.peak_bf16_gflops << " against FP32 " << p.peak_fp32_gflops;
      EXPECT_NE(p.cpu_peak_model.find("BF16"), std::string::npos) << p.cpu_peak_model;
    }
    // the AMX peak: only where CPUID says AMX-BF16 and AMX-TILE (leaf 7, EDX bits 22 and 24), and then 1024 FLOPs a
    // cycle per core: 16 times the FP32 peak of a core with two 512-bit FMA pipes (64 FLOPs), as every AMX part has
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool amx = __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d >> 22 & 1u) != 0 && (d >> 24 & 1u) != 0;
    if (!amx) EXPECT_EQ(p.peak_amx_bf16_gflops, 0.0);
#endif
    if (p.peak_amx_bf16_gflops > 0) {
      EXPECT_DOUBLE_EQ(p.peak_amx_bf16_gflops, 16 * p.peak_fp32_gflops) << p.cpu_peak_model;
      EXPECT_NE(p.cpu_peak_model.find("AMX"), std::string::npos) << p.cpu_peak_model;
    }
    EXPECT_TRUE(tk::mma::pair_dot_pays(2 * 100.0, 100.0));
    EXPECT_FALSE(tk::mma::pair_dot_pays(100.0, 100.0));
    EXPECT_FALSE(tk::mma::pair_dot_pays(0.0, 100.0));
  } else if (!reads_host_memory(dev.backend())) {
    EXPECT_EQ(p.peak_bf16_gflops, 0.0);  // a GPU's tensor cores are not modelled
    EXPECT_EQ(p.peak_amx_bf16_gflops, 0.0);
  }
}

TEST_P(DeviceTest, BufferRoundTripsThroughDeviceMemory) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  std::mt19937_64 rng(fresh_seed());
  const auto host = random_floats(1000, rng);
  Buffer<float> buf(dev, host);
  EXPECT_EQ(buf.size(), host.size());
  EXPECT_EQ(buf.to_host(), host);
  std::vector<float> part(10);
  buf.copy_to_host(part.data(), 10, 990);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), host.begin() + 990));
  TK_EXPECT_ERROR(buf.copy_to_host(part.data(), 11, 990), "tk::Buffer::copy_to_host", "'n'", "11");
  Buffer<float> moved = std::move(buf);
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(moved.to_host(), host);
}

TEST_P(DeviceTest, EventsMeasureNonNegativeTime) {
  TK_DEVICE_OR_SKIP(dev, GetParam());
  Buffer<float> a(dev, 1 << 20), b(dev, 1 << 20);
  Event start(dev), stop(dev);
  start.record();
  copy(a, b);
  stop.record();
  EXPECT_GE(Event::elapsed_ms(start, stop), 0.0);
}

INSTANTIATE_TEST_SUITE_P(All, DeviceTest, ::testing::ValuesIn(built_backends()), backend_name);

// The Kokkos device names where its versions run. TK_TEST_KOKKOS_SPACE (CI sets OpenMP for its Kokkos built
// from source) asks for that execution space, with more than one thread unless it is Serial.
TEST(KokkosDevice, NamesWhereItsVersionsRun) {
#if defined(TK_HAVE_KOKKOS)
  // a space asked for (CI, tools/gpu-check.sh) needs the device: no skip then
  if (std::getenv("TK_TEST_KOKKOS_SPACE") != nullptr)
    ASSERT_GT(device_count(Backend::kokkos), 0) << unavailable_reason(Backend::kokkos);
  TK_DEVICE_OR_SKIP(dev, Backend::kokkos);
  const std::string s = dev.props().driver;
  EXPECT_EQ(s.rfind("Kokkos ", 0), 0u) << s;
  // a host space names its threads; Kokkos on CUDA names its GPU, whose memory the Kokkos device then uses
  EXPECT_NE(s.find(reads_host_memory(Backend::kokkos) ? " threads" : ": Cuda, device "), std::string::npos) << s;
  if (const char* want = std::getenv("TK_TEST_KOKKOS_SPACE")) {
    EXPECT_NE(s.find(std::string(": ") + want + ","), std::string::npos) << s;
    if (std::string(want) != "Serial") EXPECT_EQ(s.find(", 1 threads"), std::string::npos) << s;
  }
#else
  GTEST_SKIP() << "no Kokkos in this build";
#endif
}

// The default device: the first GPU where one is usable, else the CPU; never the Kokkos cross-check.
// The launchers keep a kernel's occupancy per device (tilekit/detail/per_device.hpp): each device's value is
// made once, by one of the threads that ask at once, and every thread gets that device's own value. (Run
// under ThreadSanitizer in CI: the suite name holds "HostThreads".)
TEST(HostThreadsPerDevice, EachDevicesValueIsMadeOnce) {
  tk::detail::PerDevice<int> cache;
  constexpr int devices = 5, threads = 8, calls = 200;
  std::atomic<int> made[devices] = {};
  std::atomic<int> wrong{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int c = 0; c < calls; ++c) {
        const int d = (t + c) % devices;
        const int v = cache.get(d, [&] {
          made[d].fetch_add(1);
          return 100 + d;
        });
        if (v != 100 + d) wrong.fetch_add(1);
      }
    });
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(wrong.load(), 0);
  for (int d = 0; d < devices; ++d) EXPECT_EQ(made[d].load(), 1) << "device " << d;
}

TEST(DeviceErrors, DefaultDeviceIsTheFirstGpuElseTheCpu) {
  const Device d = default_device();
  if (device_count(Backend::cuda) > 0) {
    EXPECT_EQ(d.backend(), Backend::cuda);
    EXPECT_EQ(d.index(), 0);
  } else if (device_count(Backend::hip) > 0) {
    EXPECT_EQ(d.backend(), Backend::hip);
    EXPECT_EQ(d.index(), 0);
  } else {
    EXPECT_EQ(d.backend(), Backend::cpu);
  }
  EXPECT_NE(d.backend(), Backend::kokkos);
  Buffer<float> x(d, std::vector<float>{1.f, 2.f}), y(d, 2);
  tk::copy(d, 2, x.data(), y.data());
  EXPECT_EQ(y.to_host(), (std::vector<float>{1.f, 2.f}));
}

TEST(DeviceErrors, NoSuchDeviceThrowsNamingTheIndex) {
  TK_EXPECT_ERROR(Device::cuda(-1), "tk::Device::cuda");
  TK_EXPECT_ERROR(Device::hip(1000), "tk::Device::hip");
  if (device_count(Backend::cuda) > 0) TK_EXPECT_ERROR(Device::cuda(1000), "'index'", "1000");
}

TEST(DeviceErrors, EveryBackendNamesItself) {
  EXPECT_STREQ(to_string(Backend::cpu), "cpu");
  EXPECT_STREQ(to_string(Backend::cuda), "cuda");
  EXPECT_STREQ(to_string(Backend::hip), "hip");
  EXPECT_STREQ(to_string(Backend::kokkos), "kokkos");
  EXPECT_TRUE(backend_built(Backend::cpu));
  EXPECT_EQ(device_count(Backend::cpu), 1);
  for (Backend b : {Backend::cuda, Backend::hip})
    if (device_count(b) == 0) EXPECT_FALSE(unavailable_reason(b).empty());
}

// Which devices take plain host pointers: the CPU, and Kokkos on a host execution space; never a GPU. Kokkos
// built for CUDA is a device of its GPU: that GPU's figures, and its memory (PointerFromAnotherDeviceThrows).
TEST(Devices, OnlyHostDevicesReadHostMemory) {
  EXPECT_TRUE(reads_host_memory(Backend::cpu));
  EXPECT_FALSE(reads_host_memory(Backend::cuda));
  EXPECT_FALSE(reads_host_memory(Backend::hip));
  if (device_count(Backend::kokkos) == 0) {
    EXPECT_FALSE(unavailable_reason(Backend::kokkos).empty());
    return;
  }
  const DeviceProps& p = Device::kokkos().props();
  const bool on_cuda = p.driver.find(": Cuda, device ") != std::string::npos;
  EXPECT_EQ(reads_host_memory(Backend::kokkos), !on_cuda) << p.driver;
  if (on_cuda) {  // "...: Cuda, device <index>; CUDA driver ..."
    const int gpu = std::atoi(p.driver.c_str() + p.driver.find(": Cuda, device ") + 15);
    ASSERT_LT(gpu, device_count(Backend::cuda)) << p.driver;
    EXPECT_EQ(p.name, Device::cuda(gpu).props().name);
    EXPECT_EQ(p.global_mem_bytes, Device::cuda(gpu).props().global_mem_bytes);
  } else {
    EXPECT_EQ(p.name, Device::cpu().props().name);
  }
}

}  // namespace
}  // namespace tk::test
