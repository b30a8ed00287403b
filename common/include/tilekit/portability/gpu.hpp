// tilekit/portability/gpu.hpp — the kernel layer on a GPU (CUDA and HIP alike): every construct is the
// vendor's own, so a kernel compiles to exactly the code one would write by hand. Its launch goes through
// the runtime glue of backends/gpu, written once for both as well.
// Included by cuda.hpp / hip.hpp, which hold what differs (the vendor header, the target's names, the
// stream type, the warp) and define TK_TARGET_NS, TK_TARGET_ID and TK_GPU_STREAM_T first.
#pragma once

#include <utility>

#include "tilekit/device.hpp"
#include "tilekit/kernel_info.hpp"
#include "tilekit/kernel_types.hpp"

#define TK_KERNEL __global__
#define TK_DEVICE __device__ __forceinline__
#define TK_SHARED __shared__
#define TK_SHARED_ARRAY(T, name, dims) alignas(16) __shared__ T name dims
#define TK_BARRIER() __syncthreads()
// A phase is the body once, for this thread; the one-trip loop gives TK_SKIP() a `continue` to take.
#define TK_THREADS(th)                                   \
  for (bool tk_once_ = true; tk_once_; tk_once_ = false) \
    if (const ::tk::Thread th = ::tk::this_thread(); true)
// A phase whose threads past the first `rows` rows (th.y >= rows) have no work that counts: a CPU skips
// them (its loop over y stops there), a GPU runs them as TK_THREADS does, so their work must be harmless
// (results never stored) and `rows` is not evaluated.
#define TK_THREADS_IN_ROWS(th, rows) TK_THREADS(th)
// A phase whose body thread 0 alone runs (the others pass it by).
#define TK_THREAD_ZERO(th)                               \
  for (bool tk_once_ = true; tk_once_; tk_once_ = false) \
    if (const ::tk::Thread th = ::tk::this_thread(); th.id == 0)
#define TK_SKIP() continue
// Unroll the next loop completely (its trip count is a compile-time constant): register arrays stay registers.
#if defined(__HIP_CPU_RT__) && defined(__GNUC__) && !defined(__clang__)
#define TK_UNROLL _Pragma("GCC unroll 64")  // HIP-CPU under g++, which has no plain `#pragma unroll`
#define TK_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define TK_UNROLL _Pragma("unroll")
#define TK_NO_UNROLL _Pragma("unroll 1")
#endif
// Keep the next loop a loop: where unrolling it would let the compiler hold two iterations' registers at once.
// Lets the compiler assume the kernel never runs with more than n threads per block.
#define TK_LAUNCH_BOUNDS(n) __launch_bounds__(n)
// ... and asks for registers few enough that b blocks of n threads fit one multiprocessor (CUDA; HIP's
// second argument means waves per execution unit, so there it is the plain bound).
#if defined(__HIP__)
#define TK_LAUNCH_BOUNDS_MIN(n, b) __launch_bounds__(n)
#else
#define TK_LAUNCH_BOUNDS_MIN(n, b) __launch_bounds__(n, b)
#endif
// A kernel parameter that stays in the parameter space, its address usable (a tk::TensorMap): CUDA's
// __grid_constant__; HIP has none and needs none.
#if defined(__HIP__)
#define TK_GRID_CONSTANT
#else
#define TK_GRID_CONSTANT __grid_constant__
#endif

namespace tk {
inline namespace TK_TARGET_NS {
namespace kernels {}

// tk::load_vec / store_vec go through the aligned vector type: one 8- or 16-byte access (tilekit/vec.hpp).
constexpr bool vec_by_element = false;

TK_DEVICE Dim3 block_idx() { return {int(blockIdx.x), int(blockIdx.y), int(blockIdx.z)}; }
TK_DEVICE Dim3 block_dim() { return {int(blockDim.x), int(blockDim.y), int(blockDim.z)}; }
TK_DEVICE Dim3 grid_dim() { return {int(gridDim.x), int(gridDim.y), int(gridDim.z)}; }
TK_DEVICE Thread this_thread() {
  const int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  return {x, y, z, (z * int(blockDim.y) + y) * int(blockDim.x) + x};
}

// N values of T per thread, alive across barriers: a register array on a GPU. Index it with
// compile-time constants (unrolled loops) or the compiler moves it to local memory.
template <class T, int N = 1>
class Private {
  static_assert(N >= 1, "a Private holds at least one value per thread");

 public:
  TK_DEVICE Private() {}
  TK_DEVICE explicit Private(const T& init) {
    TK_UNROLL
    for (int i = 0; i < N; ++i) v_[i] = init;
  }
  Private(const Private&) = delete;
  Private& operator=(const Private&) = delete;
  // Indexed like the CPU's Private, by the thread's linear id, which a register does not need.
  TK_DEVICE T& operator()(int /*id*/, int i = 0) { return v_[i]; }
  TK_DEVICE const T& operator()(int /*id*/, int i = 0) const { return v_[i]; }

 private:
  T v_[N];
};

// *p += v as one indivisible update (global or shared memory), returning the old value: atomicAdd.
TK_DEVICE float atomic_add(float* p, float v) { return atomicAdd(p, v); }

// A hint that global memory at p will be read soon. Nothing on a GPU, whose warps hide the latency.
TK_DEVICE void prefetch(const void*) {}

// A cache line's worth of T copied, and a square of 64 / sizeof(T) elements a side transposed
// (dst[j * dst_ld + i] = src[i * src_ld + j]): the CPU's strip loads; on a GPU, plain loops.
template <class T>
TK_DEVICE void copy_line(T* dst, const T* src) {
  for (int e = 0; e < 64 / static_cast<int>(sizeof(T)); ++e) dst[e] = src[e];
}
template <class T, bool STREAM = false>
TK_DEVICE void transpose_line_square(T* dst, std::int64_t dst_ld, const T* src, std::int64_t src_ld) {
  constexpr int G = 64 / static_cast<int>(sizeof(T));
  for (int i = 0; i < G; ++i) {
    for (int j = 0; j < G; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
  }
}

// The CPU's strip transpose for dst rows of any alignment (tilekit/portability/cpu.hpp): a plain loop here.
constexpr bool transpose_strip_streams = false;
constexpr bool transpose_skinny_vectors = false;
template <bool STREAM = true>
TK_DEVICE void transpose_strips16(float* dst, std::int64_t dst_ld, const float* src, std::int64_t src_ld,
                                  std::int64_t rows, int cols) {
  for (std::int64_t i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) dst[j * dst_ld + i] = src[i * src_ld + j];
  }
}

// The CPU's split of a few-column matrix into its columns (tilekit/portability/cpu.hpp): a plain loop here.
TK_DEVICE void deinterleave_columns(float* dst, std::int64_t dst_ld, const float* src, int cols, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < cols; ++j) dst[j * dst_ld + i] = src[i * cols + j];
  }
}

// The CPU's interleave of a few-row matrix into a buffer (tilekit/portability/cpu.hpp): a plain loop here.
constexpr int interleave_vector_rows = 0;
TK_DEVICE void interleave_rows(float* dst, const float* src, std::int64_t src_ld, int rows, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    for (int i = 0; i < rows; ++i) dst[j * rows + i] = src[i * src_ld + j];
  }
}

// The CPU's streamed copy out of a thread's buffer (tilekit/portability/cpu.hpp): a plain loop here.
TK_DEVICE void stream_floats(float* dst, const float* src, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

// Orders a CPU's streamed stores: nothing to do on a GPU (transpose_line_square does not stream there).
TK_DEVICE void stream_fence() {}

// The block's dynamic shared memory, sized by LaunchSpec::dynamic_shared.
#if defined(__HIP_CPU_RT__)
// HIP-CPU: a buffer per block (16-byte aligned), one for every element type (one function, one buffer)
TK_DEVICE unsigned char* dynamic_shared_bytes() {
  HIP_DYNAMIC_SHARED(unsigned char, tk_dynamic_shared_)
  return tk_dynamic_shared_;
}
template <class T>
TK_DEVICE T* dynamic_shared() {
  return reinterpret_cast<T*>(dynamic_shared_bytes());
}
#else
template <class T>
TK_DEVICE T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char tk_dynamic_shared_[];
  return reinterpret_cast<T*>(tk_dynamic_shared_);
}
#endif

}  // namespace TK_TARGET_NS
}  // namespace tk

// ---- Launching ----
// The runtime glue's functions carry the target's name (cuda_prepare_launch, hip_prepare_launch: one
// library may hold both backends).
#define TK_GPU_FN_(id, name) id##_##name
#define TK_GPU_FN2_(id, name) TK_GPU_FN_(id, name)
#define TK_GPU_FN(name) TK_GPU_FN2_(TK_TARGET_ID, name)

namespace tk {
namespace detail {
// Checks the device is a usable device of this target, makes it current and checks the launch shape against
// its limits (raising the kernel's dynamic shared-memory limit when it asks for more than 48 KiB).
// Returns false for an empty grid, which launches nothing.
bool TK_GPU_FN(prepare_launch)(const Device& dev, const LaunchSpec& spec, const void* kernel);
void TK_GPU_FN(check_launch)(const LaunchSpec& spec);
KernelResources TK_GPU_FN(describe)(const Device& dev, const LaunchSpec& spec, const void* kernel);
#if defined(__HIP_CPU_RT__)
// HIP-CPU's stream for a queue's native stream: the queue's own, or for the default queue (null) a stream of
// tilekit's (backends/hip/runtime.hip says why).
void* hip_cpu_stream(void* s);
#endif
}  // namespace detail

inline namespace TK_TARGET_NS {

// The kernel's resources as compiled and the runtime's occupancy for this launch shape (nothing runs).
template <class... P>
KernelResources describe(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...)) {
  return detail::TK_GPU_FN(describe)(dev, spec, reinterpret_cast<const void*>(kernel));
}

// Launches kernel on the queue of the op being called (detail::current_stream(); the default stream
// outside an op) (asynchronous); launch errors throw tk::Error naming spec.name.
template <class... P, class... A>
void launch(const Device& dev, const LaunchSpec& spec, void (*kernel)(P...), A&&... args) {
  if (auto* sink = detail::describe_sink()) return sink->push_back(describe(dev, spec, kernel));
  if (!detail::TK_GPU_FN(prepare_launch)(dev, spec, reinterpret_cast<const void*>(kernel))) return;
#if defined(__HIP_CPU_RT__)
  const auto stream = static_cast<TK_GPU_STREAM_T>(detail::hip_cpu_stream(detail::current_stream()));
#else
  const auto stream = static_cast<TK_GPU_STREAM_T>(detail::current_stream());
#endif
  TK_GPU_LAUNCH_KERNEL(kernel, dim3(spec.grid.x, spec.grid.y, spec.grid.z),
                       dim3(spec.block.x, spec.block.y, spec.block.z), spec.dynamic_shared, stream,
                       static_cast<P>(std::forward<A>(args))...);
  detail::TK_GPU_FN(check_launch)(spec);
}

}  // namespace TK_TARGET_NS
}  // namespace tk
