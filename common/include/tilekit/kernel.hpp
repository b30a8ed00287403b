// tilekit/kernel.hpp — the portability layer: include this in a kernel file and write the kernel once.
//
// A kernel is a grid of blocks of threads, as in CUDA. Inside a block the code is a sequence of phases
// separated by barriers; every thread runs every phase.
//
//   TK_KERNEL void k(...)          a kernel (CUDA/HIP __global__; CPU: a function run once per block)
//   tk::launch(queue, spec, &k, args...)   runs k on a tk::Queue (or a tk::Device: its default queue)
//   TK_DEVICE                      a helper function callable from kernels
//   TK_SHARED_ARRAY(float, tile, [N][M]);   block-shared storage, float tile[N][M] (CPU: a 64-byte-aligned
//                                  block-local array; checked mode: in the arena, every access checked)
//   TK_SHARED float tile[N][M];    the same, declared the CUDA way (checked mode checks it too, found by its
//                                  symbol: it names the array and the byte, not the indices)
//   tk::dynamic_shared<T>()        the block's dynamic shared memory (size given at launch)
//   TK_THREADS(th) { ... }         a phase: the body runs for every thread th of the block
//   TK_THREAD_ZERO(th) { ... }     a phase whose body thread 0 alone runs (CPU: once, no loop over the others)
//   TK_SKIP()                      this thread is done with the current phase (at the phase's top level)
//   TK_BARRIER()                   a block barrier: only between phases, never inside one
//   TK_UNROLL                      unroll the next (constant-trip) loop: per-thread arrays stay in registers
//   tk::Private<T, N> v(init);     N values of T per thread that live across barriers; v(th.id, i)
//   tk::block_idx(), tk::block_dim(), tk::grid_dim()   the current block and the launch shape
//   tk::warp_size                  threads per warp of the target (32 NVIDIA, 64 CDNA, SIMD lanes on CPU)
//   tk::Vec<T, N>, tk::load_vec / store_vec            N-wide aligned vector accesses (float4 on GPUs)
//   tk::atomic_add(p, v)           *p += v indivisibly, returns the old value (atomicAdd; CPU: omp atomic)
//   TK_LAUNCH_BOUNDS(n), TK_LAUNCH_BOUNDS_MIN(n, b)    at most n threads per block (and b blocks per SM)
//   TK_GRID_CONSTANT                 a kernel parameter kept in the parameter space, its address usable:
//                                    `const TK_GRID_CONSTANT tk::TensorMap map` (tilekit/async_copy.hpp)
//   tk::copy_line(dst, src), tk::transpose_line_square<T, STREAM>(dst, dst_ld, src, src_ld), tk::stream_fence()
//                                  a CPU's per-thread line copies and register transposes (streamed: past the
//                                  caches, then the fence); plain loops on a GPU
//   tk::copy_async / copy_async_commit / copy_async_wait   global -> shared copies in flight
//                                  (tilekit/async_copy.hpp: cp.async on sm_80+, a plain copy elsewhere)
//   tk::AsyncBarrier, barrier_init / barrier_arrive / barrier_wait, tk::split_roles
//                                  two roles of a block meeting at barriers by phase (tilekit/async_copy.hpp)
//
// Rules that make one source correct everywhere:
//   - a barrier stands only between phases; every thread reaches every barrier the same number of times;
//     so do tk::copy_async_commit and copy_async_wait (outside phases; copy_async itself inside one), except
//     inside a role of tk::split_roles, whose threads alone reach them (tilekit/async_copy.hpp);
//   - a value that must survive a barrier is a tk::Private (or shared); a plain local dies with its phase;
//   - a block-uniform value (a loop counter over tiles) may be a plain local outside the phases;
//   - no #if on the backend inside a kernel: what differs by target is a template parameter or a trait.
// A checked build (TK_CHECKED, the `checked` preset) reports every break of these rules it can see, and the
// races, out-of-range and uninitialised accesses a GPU would suffer: tilekit/cpu/checked.hpp.
//
// Which target is compiled is decided here, once.
#pragma once

#include "tilekit/kernel_types.hpp"

#if defined(__HIP__) || defined(__HIPCC__)
#include "tilekit/portability/hip.hpp"
#elif defined(__CUDACC__)
#include "tilekit/portability/cuda.hpp"
#else
#include "tilekit/portability/cpu.hpp"
#endif

#include <utility>

namespace tk {
inline namespace TK_TARGET_NS {
// Launches kernel on queue q (a tk::Device converts to its default queue; launches inside an op go to the
// op's queue).
template <class... P, class... A>
void launch(const Queue& q, const LaunchSpec& spec, void (*kernel)(P...), A&&... args) {
  const detail::OnQueue on(q, "launch");
  launch(q.device(), spec, kernel, std::forward<A>(args)...);
}
}  // namespace TK_TARGET_NS
}  // namespace tk
