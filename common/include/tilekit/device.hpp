// tilekit/device.hpp — devices, chosen at run time: the CPU (always), CUDA device i, HIP device i, Kokkos.
#pragma once

#include <cstdint>
#include <memory>
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
  std::string arch;         // "sm_90", "gfx90a", "x86_64 avx512f", ...
  int multiprocessors = 0;  // SMs, CUs, or CPU cores
  int warp_size = 0;        // 32 on NVIDIA, 64 on CDNA, 32 on RDNA; SIMD lanes on CPU
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  int regs_per_block = 0;
  int regs_per_multiprocessor = 0;
  std::int64_t shared_per_block = 0;        // without opting in (48 KiB on NVIDIA)
  std::int64_t shared_per_block_optin = 0;  // the most a kernel may ask for
  std::int64_t shared_per_multiprocessor = 0;
  std::int64_t l1_bytes = 0;  // CPU: L1 data cache per core
  std::int64_t l2_bytes = 0;
  std::int64_t l3_bytes = 0;  // CPU only
  std::int64_t global_mem_bytes = 0;
  int mem_bus_width_bits = 0;
  std::int64_t mem_clock_khz = 0;
  int simd_width_bits = 0;  // CPU only
  // CPU: the bits of a vector that one of the core's FMA pipes executes at once (AMD Zen 2-4: 256, an AVX-512 op
  // taking two passes; Zen 5's server parts and Intel's AVX-512 parts: 512), from the vendor and family alone (so
  // Zen 5's mobile parts, which run AVX-512 in 256-bit halves, read 512); 0 on a GPU.
  int simd_datapath_bits = 0;
  std::int64_t clock_khz = 0;  // GPU: the multiprocessors' peak clock; CPU: the cores' (0: unknown)
  // Where the figures come from: the driver the GPU runtime talks to ("CUDA driver 13.0, runtime 13.0"; empty
  // on the CPU), and the compiler that built this backend's code ("nvcc 13.0.88", "g++ 12.2.0").
  std::string driver;
  std::string compiler;
  // CPU: the cores' peak FP32 and FP64 rate, GFLOP/s (an FMA counts 2): physical cores x clock x FMA pipes x the
  // lanes of one pipe (the vector width the core executes in one go: AMD Zen 4 runs AVX-512 as two 256-bit
  // halves) x 2. 0 where the clock is unknown. cpu_peak_model says which cores, clock, pipes and widths were
  // assumed (an Intel part with one 512-bit FMA unit has half the peak given).
  double peak_fp32_gflops = 0;
  double peak_fp64_gflops = 0;
  // CPU: the cores' peak BF16 rate with FP32 accumulation, GFLOP/s (AVX512_BF16's pair dot product: 4 FLOPs per
  // float lane; 0 without it, or where the FP32 peak is unknown): on AMD's cores twice the FP32 peak (measured on
  // Zen 4; Zen 5 assumed alike), on Intel's the same (one such unit beside two FMA units). A GPU's is 0 (its
  // tensor cores are not modelled here).
  double peak_bf16_gflops = 0;
  // CPU: the cores' peak BF16 rate on Intel's tile matrix unit (AMX-BF16's tdpbf16ps, 16 x 16 x 32 products in 16
  // cycles: 1024 FLOPs a cycle per core), GFLOP/s; 0 where the CPU lacks AMX-BF16, the kernel refused the process
  // the tile state (Linux's arch_prctl(ARCH_REQ_XCOMP_PERM), asked once per process when the device is first
  // queried), or the clock is unknown. Where it is above 0 a CPU's BF16 GEMM runs its tile kernel
  // (kernels/matmul/tile_dot.hpp) in the library's AVX-512 copy of its kernels (x86-64-v4, or -march=native on such
  // a CPU); a copy without AVX-512 (TK_CPU_ISA=x86-64-v3, say) converts to float.
  double peak_amx_bf16_gflops = 0;
  std::string cpu_peak_model;
  std::string vendor;  // CPU: /proc/cpuinfo's vendor_id ("AuthenticAMD", "GenuineIntel"; "" where unknown)

  // Theoretical DRAM bandwidth from bus width and clock (double data rate); 0 when either is unknown.
  double peak_bandwidth_gbs() const {
    return 2.0 * static_cast<double>(mem_clock_khz) * 1e3 * (mem_bus_width_bits / 8.0) / 1e9;
  }
};

// The instruction set of the CPU kernels this process runs: with runtime dispatch (the default x86-64 build,
// TK_CPU_ARCH=dispatch) "x86-64-v4 (AVX-512), picked at run time among ..." (TK_CPU_ISA may ask for a lower
// copy); otherwise the one copy's -march. tk-info prints it.
std::string cpu_kernel_isa();

class Device {
 public:
  Device() = default;  // the CPU
  static Device cpu() { return Device(); }
  static Device cuda(int index = 0);  // throws tk::Error if not built in or no such device
  static Device hip(int index = 0);
  static Device kokkos();

  Backend backend() const { return backend_; }
  int index() const { return index_; }
  std::string name() const;  // "cpu", "cuda:0", ...
  // Queried once, then cached; the reference stays valid for the life of the program, whatever devices are
  // queried later and from whichever threads.
  const DeviceProps& props() const;
  void synchronize() const;  // waits for all work queued on the device

  friend bool operator==(const Device& a, const Device& b) { return a.backend_ == b.backend_ && a.index_ == b.index_; }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

 private:
  Device(Backend b, int i) : backend_(b), index_(i) {}
  Backend backend_ = Backend::cpu;
  int index_ = 0;
};

// Backends compiled into this build.
bool backend_built(Backend b);
// Whether the ops of b's devices take plain host pointers (std::vector data, new or malloc memory): the CPU's;
// Kokkos's when Kokkos runs on a host execution space (OpenMP, Threads, Serial). A GPU's ops, and Kokkos's
// where Kokkos was built for CUDA, need that GPU's memory (tk::Buffer) and refuse host pointers with tk::Error.
bool reads_host_memory(Backend b);
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

class Event;

// A queue of work on one device. Every op takes one; a tk::Device converts to its default queue, so
// `tk::matmul(dev, ...)` runs on the device's default queue.
// - CUDA and HIP: a queue is a stream. The default queue is the device's default (legacy) stream.
//   Queue::create makes a stream of its own (cudaStreamCreate / hipStreamCreate, default flags: like any
//   such stream it runs after earlier default-stream work, and later default-stream work, tk::Buffer's
//   copies included, waits for it). Queue::wrap takes an application's cudaStream_t / hipStream_t on the
//   same device, which tilekit neither owns nor destroys (a CUDA stream of another device throws tk::Error
//   naming both; HIP 5 cannot tell a stream's device, so there the caller must get it right); if it was
//   made non-blocking, synchronise it before a tk::Buffer copy reads what it wrote (tk::Buffer's uploads
//   are complete when they return, so work on any queue sees them).
//   Work on one queue runs in the order queued; work on two queues may run at once. A call returns once
//   its work is queued. Ordering between queues: record an Event on one, wait() for it on the other.
//   (HIP-CPU, the hip-cpu preset: the default queue is a stream of tilekit's own, since HIP-CPU's null stream
//   runs its work on two threads at once; its synchronize() waits for every stream, as the legacy stream's does.)
// - CPU and Kokkos: every queue is synchronous: a call returns when its work is done (on the calling
//   thread; Kokkos on a GPU fences its kernels before it returns), so there is nothing to wait for
//   (synchronize() and wait() return at once).
// Copies of a Queue share its stream; a created stream is destroyed with the last copy (work already
// queued on it still completes). Scratch memory a call needs (split-K partial sums) is allocated in
// order on the call's own queue (a stream-ordered pool on GPUs), so no two queues ever share it.
// Thread safety: several host threads may queue work on one Queue or on different ones at once.
class Queue {
 public:
  Queue(const Device& dev);  // NOLINT(google-explicit-constructor): a device means its default queue
  Queue() : Queue(Device::cpu()) {}
  static Queue create(const Device& dev);                     // a new queue (a new stream on a GPU)
  static Queue wrap(const Device& dev, void* native_stream);  // an application's stream, not owned

  const Device& device() const { return dev_; }
  // The cudaStream_t / hipStream_t behind the queue; nullptr for the default queue and on the CPU.
  void* native() const { return stream_.get(); }
  void synchronize() const;         // waits for the work queued on this queue
  void wait(const Event& e) const;  // later work on this queue starts after the work before e.record(...)

  friend bool operator==(const Queue& a, const Queue& b) { return a.dev_ == b.dev_ && a.native() == b.native(); }
  friend bool operator!=(const Queue& a, const Queue& b) { return !(a == b); }

 private:
  Queue(const Device& dev, std::shared_ptr<void> stream) : dev_(dev), stream_(std::move(stream)) {}
  Device dev_;
  std::shared_ptr<void> stream_;  // owned (the deleter destroys the stream) or wrapped (no-op deleter)
};

// A point in a queue's work, for ordering (Queue::wait) and timing (elapsed_ms). record() marks the
// default queue, record(q) queue q of the same device; elapsed_ms() waits for the later event.
// On the CPU (whose calls are synchronous) an event is a steady-clock time stamp.
class Event {
 public:
  explicit Event(const Device& dev);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record();
  void record(const Queue& q);
  static double elapsed_ms(const Event& start, const Event& stop);

 private:
  friend class Queue;
  Device dev_;
  void* handle_ = nullptr;  // cudaEvent_t / hipEvent_t
  double host_ms_ = 0.0;
};

namespace detail {
// The stream of the queue an op was called on, for the launches and scratch memory of that call, on the
// calling thread (nullptr: the default stream), and the public call's name ("gemm": errors raised deep inside,
// such as a bad TK_CPU_ISA, name the caller's op as tk::gemm). Set by each public entry for the length of the
// call.
void* current_stream() noexcept;
const char* current_call() noexcept;  // nullptr outside a public call
class OnQueue {
 public:
  OnQueue(const Queue& q, const char* call) noexcept;
  ~OnQueue();
  OnQueue(const OnQueue&) = delete;
  OnQueue& operator=(const OnQueue&) = delete;

 private:
  void* previous_;
  const char* previous_call_;
};
}  // namespace detail

}  // namespace tk
