// tilekit/device.hpp — devices, chosen at run time: the CPU (always), CUDA device i, HIP device i, Kokkos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tk {

enum class Backend { cpu, cuda, hip, kokkos };

const char* to_string(Backend b);

// What seed 001's device table lists, for the device at hand. GPU fields come from the runtime
// (cudaDeviceGetAttribute / hipDeviceGetAttribute); on the CPU "multiprocessors" are cores, the warp is
// the float SIMD width (the lanes that run a block's threads in lock-step), and the caches come from sysfs.
struct DeviceProps {
  std::string name;
  std::string arch;                          // "sm_90", "gfx90a", "x86_64 avx512f", ...
  int multiprocessors = 0;                   // SMs, CUs, or CPU cores
  int warp_size = 0;                         // 32 on NVIDIA, 64 on CDNA, 32 on RDNA; SIMD lanes on CPU
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  int regs_per_block = 0;
  int regs_per_multiprocessor = 0;
  std::int64_t shared_per_block = 0;         // without opting in (48 KiB on NVIDIA)
  std::int64_t shared_per_block_optin = 0;   // the most a kernel may ask for
  std::int64_t shared_per_multiprocessor = 0;
  std::int64_t l1_bytes = 0;                 // CPU: L1 data cache per core
  std::int64_t l2_bytes = 0;
  std::int64_t l3_bytes = 0;                 // CPU only
  std::int64_t global_mem_bytes = 0;
  int mem_bus_width_bits = 0;
  std::int64_t mem_clock_khz = 0;
  int simd_width_bits = 0;                   // CPU only
  std::int64_t clock_khz = 0;                // GPU: the multiprocessors' peak clock

  // Theoretical DRAM bandwidth from bus width and clock (double data rate); 0 when either is unknown.
  double peak_bandwidth_gbs() const {
    return 2.0 * static_cast<double>(mem_clock_khz) * 1e3 * (mem_bus_width_bits / 8.0) / 1e9;
  }
};

class Device {
 public:
  Device() = default;  // the CPU
  static Device cpu() { return Device(); }
  static Device cuda(int index = 0);    // throws tk::Error if not built in or no such device
  static Device hip(int index = 0);
  static Device kokkos();

  Backend backend() const { return backend_; }
  int index() const { return index_; }
  std::string name() const;             // "cpu", "cuda:0", ...
  // Queried once, then cached; the reference stays valid for the life of the program, whatever devices are
  // queried later and from whichever threads.
  const DeviceProps& props() const;
  void synchronize() const;             // waits for all work queued on the device

  friend bool operator==(const Device& a, const Device& b) {
    return a.backend_ == b.backend_ && a.index_ == b.index_;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

 private:
  Device(Backend b, int i) : backend_(b), index_(i) {}
  Backend backend_ = Backend::cpu;
  int index_ = 0;
};

// Backends compiled into this build.
bool backend_built(Backend b);
// Devices of a backend usable now (0 when not built, or when its runtime finds none).
int device_count(Backend b);
// Why device_count(b) is 0, or "" when it is not.
std::string unavailable_reason(Backend b);
// Every usable device: the CPU first, then each GPU, then Kokkos.
std::vector<Device> devices();
// The device to run on when the program does not choose: the first CUDA GPU, else the first HIP GPU, else
// the CPU (tilekit's OpenMP executor). Never the Kokkos device: that is the independent cross-check of the
// kernels (Kokkos Serial in Debian's build), not a speed contender.
Device default_device();

// Device timing: record() on the device's queue; elapsed_ms() waits for the later event.
// On the CPU (whose calls are synchronous) an event is a steady-clock time stamp.
class Event {
 public:
  explicit Event(const Device& dev);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record();
  static double elapsed_ms(const Event& start, const Event& stop);

 private:
  Device dev_;
  void* handle_ = nullptr;  // cudaEvent_t / hipEvent_t
  double host_ms_ = 0.0;
};

}  // namespace tk
