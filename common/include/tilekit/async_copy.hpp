// tilekit/async_copy.hpp — copies from global to shared memory that proceed while the thread computes:
// the building block of multi-stage pipelines (several k strips of a matmul in flight at once).
//
//   tk::copy_async<BYTES>(dst, src, src_bytes)  start copying BYTES (4, 8 or 16) from global src to shared dst;
//                                                only the first src_bytes (0..BYTES, a multiple of 4) are
//                                                read, the rest of dst is zero-filled (0: nothing is read;
//                                                src may be any pointer). dst and src are aligned to BYTES.
//   tk::copy_async_commit()                      closes the group of copies this thread started since the
//                                                last commit
//   tk::copy_async_wait<N>()                     waits until at most the N most recent groups of this
//                                                thread are still in flight
//
// A copy is visible to the other threads of the block after the issuing thread's wait and a barrier.
// copy_async is called inside a phase; commit and wait outside phases, by every thread alike, like a
// barrier (group counts are per thread, and a kernel's arithmetic on them assumes every thread commits).
// NVIDIA sm_80 and later: cp.async (16 bytes bypass L1: .cg; 4 and 8 bytes: .ca) and its group
// instructions; the registers that a load-then-store staging needs are not used. Earlier NVIDIA GPUs,
// AMD GPUs (HIP) and CPUs: a plain copy at the call, and commit/wait do nothing — the same kernel text,
// with no overlap beyond what the hardware finds itself.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk {
inline namespace TK_TARGET_NS {

template <int BYTES>
TK_DEVICE void copy_async(void* dst, const void* src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  constexpr int words = BYTES / 4;
  auto* d = static_cast<float*>(dst);
  const auto* p = static_cast<const float*>(src);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  // Every cp.async issued reads only bytes that exist: a whole chunk is one copy; a partial one is copied
  // word by word and the rest stored as zeros; an empty one is zeros (plain shared stores, made visible by
  // the same wait and barrier).
  if (src_bytes >= BYTES) {
    const auto s = static_cast<unsigned>(__cvta_generic_to_shared(d));
    if constexpr (BYTES == 16) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(p) : "memory");
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(p), "n"(BYTES) : "memory");
    }
    return;
  }
  TK_UNROLL
  for (int w = 0; w < words; ++w) {
    if (4 * w < src_bytes) {
      const auto s = static_cast<unsigned>(__cvta_generic_to_shared(d + w));
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(p + w) : "memory");
    } else {
      d[w] = 0.f;
    }
  }
#else
  // Word by word: floats are what tilekit stages, and a CPU compiler vectorises the copy across threads.
  TK_UNROLL
  for (int w = 0; w < words; ++w) d[w] = 4 * w < src_bytes ? p[w] : 0.f;
#endif
}

TK_DEVICE void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
TK_DEVICE void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

}  // namespace TK_TARGET_NS
}  // namespace tk
