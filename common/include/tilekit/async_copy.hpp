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
// barrier (group counts are per thread, and a kernel's arithmetic on them assumes every thread commits); within a
// role of tk::split_roles, by every thread of that role alike.
// NVIDIA sm_80 and later: cp.async (16 bytes bypass L1: .cg; 4 and 8 bytes: .ca) and its group
// instructions; the registers that a load-then-store staging needs are not used. Earlier NVIDIA GPUs,
// AMD GPUs (HIP) and CPUs: a plain copy at the call, and commit/wait do nothing — the same kernel text,
// with no overlap beyond what the hardware finds itself. Checked mode (a CPU built with TK_CHECKED) holds each copy
// until a wait of its thread completes its group, and reports a read or store of its destination before that as a
// race (tilekit/cpu/checked.hpp, copy_async_issue): a wrong wait count fails on a CPU.
//
// Barriers that a thread arrives at and waits for by phase, so that the threads of a block meet in pairs of
// groups (a group that copies strips, groups that multiply them) without stopping the whole block:
//   tk::AsyncBarrier                             16 bytes in shared memory
//   tk::barrier_init(b, count)                   one thread, in a phase; a TK_BARRIER() before any other use.
//                                                A phase of b completes when `count` arrivals have come
//   tk::barrier_arrive(b)                        this thread's arrival in b's current phase (release: its
//                                                earlier shared-memory writes are seen by whoever waits)
//   tk::barrier_wait(b, parity)                  returns once b's phase of that parity (phase k: k % 2) has
//                                                completed (acquire); a thread waits at most one phase behind
// Called inside phases, by the threads of a role (branch on th.id). NVIDIA sm_80 and later: mbarrier
// (try_wait on sm_90, test_wait before), the waiting thread spinning alone. Other GPUs (HIP; CUDA before sm_80):
// atomics on the same words, a count of arrivals and a count of phases. CPUs: a block's threads run phase after
// phase on one OS thread, so a wait cannot let another thread run: the phase it waits for must already be complete
// (its arrivals in an earlier phase of the kernel), else the call fails naming the kernel and the barrier's
// counts, where a GPU would wait forever or for a later arrival. Checked mode takes every completed wait as a
// TK_BARRIER() of the whole block for its race checks: any two accesses with some thread's completed wait between
// them (in the CPU's order) count as ordered, so in a kernel that waits on these barriers most races go unreported.
// A kernel written for both runs each step's arrivals before the waits that need them (tk::split_roles below
// orders two roles so; tests/kernels/layer_kernels.hpp's barrier_relay is an example).
//
// Two roles in one block, each with its own loop (warp specialisation):
//   tk::split_roles<FIRST, FIRST_REGS, REST_REGS>(n_first, n_rest, lag, first, rest, rest_done)
//                                                the block's threads 0 .. FIRST - 1 (whole warpgroups) run
//                                                first(i) for i = 0 .. n_first - 1, the others rest(t) for
//                                                t = 0 .. n_rest - 1 and then rest_done(); the roles meet at
//                                                AsyncBarriers only. Each callable holds phases (TK_THREADS, whose
//                                                bodies take their role's threads by th.id) and calls its role's
//                                                threads make together (tk::copy_async_commit and _wait), never a
//                                                TK_BARRIER() (on a GPU one role would wait there forever); a
//                                                warpgroup instruction only where every warpgroup of the other role
//                                                names no strip (nullptr operands: the CPU emulates the call for
//                                                every warpgroup of the block and skips those); nothing follows the
//                                                call in the kernel.
// GPU: a loop per role, each running ahead as far as its barriers let it. FIRST_REGS and REST_REGS (NVIDIA
// sm_90a: setmaxnreg; multiples of 8, 0 leaves them): the first role gives registers back to the block's pool
// and the rest take them, so that a kernel of FIRST copying threads and many accumulators fits; the registers the
// block launches with must cover FIRST x FIRST_REGS plus the rest x REST_REGS, or the rest's request waits
// forever (384 threads launched at 168: 128 x 56 + 256 x 224). CPU: one loop that runs first(i) and then
// rest(i - lag), so rest(t)'s waits find what first(0 .. t + lag) did and first(i)'s what rest(0 .. i - lag - 1)
// did (a ring of S buffers released one step after use needs S >= lag + 2), then rest_done(). The CPU checks that
// the block is whole warpgroups with threads past FIRST, and lag >= 0.
//
// Tensor copies: a box of an array in global memory copied into shared memory by one thread, its landing counted by
// an AsyncBarrier in bytes (NVIDIA sm_90's tensor memory accelerator, TMA):
//   tk::TensorBox{base, elem_bytes, {d0, d1, d2}, {s1, s2}, {b0, b1}, swizzle}
//                                                an array of up to three dimensions (d0 the contiguous one, of
//                                                elem_bytes-byte values: 1, 2, 4 or 8; s1 and s2 the bytes between
//                                                consecutive indices of dimensions 1 and 2, multiples of 16; base
//                                                on 16 bytes) and the box one copy takes: b0 x b1 values (b0 at
//                                                most 256 values, a multiple of 16 bytes, at most 128 with the
//                                                swizzle; b1 at most 256); swizzle: the 128-byte swizzle below
//   tk::tensor_map(box) -> tk::TensorMap         (host) the descriptor, 128 bytes; throws tk::Error naming the
//                                                field that breaks the rules above. A kernel takes it by value, as
//                                                `const TK_GRID_CONSTANT tk::TensorMap` (on NVIDIA GPUs it must
//                                                stay in the kernel's parameter space)
//   tk::barrier_expect_copies(b, bytes)          this thread's arrival at b, and the bytes that the tensor copies
//                                                it starts next, into b's current phase, will bring: the phase
//                                                completes once its arrivals have come and those bytes landed
//   tk::copy_tensor_async(dst, map, c0, c1, c2, b)
//                                                this thread starts copying the box whose first value is at index
//                                                (c0, c1, c2) (c0 elem_bytes a multiple of 16: the copy moves
//                                                16-byte pieces; an H200 stops with an illegal instruction
//                                                otherwise, a CPU fails naming the kernel and c0) into shared
//                                                memory at dst (on 128 bytes); values past
//                                                the array's ends (or before its start) are zeros. The box's bytes,
//                                                zeros included, count toward b's phase. Box line l (along d1)
//                                                lies at dst + l b0 elem_bytes; with the swizzle its 16-byte chunk
//                                                c lies at chunk c XOR ((address >> 7) % 8) of the line, which for a
//                                                dst on 1024 bytes and 128-byte lines is tk::mma::sw128's layout of
//                                                one 128-byte group.
// Called inside a phase by one thread; the waiters wait on b as for any arrival. NVIDIA sm_90: the map is a
// CUtensorMap made by cuTensorMapEncodeTiled (through the runtime's driver entry point: no link to libcuda), the
// copy cp.async.bulk.tensor and the expectation mbarrier.arrive.expect_tx; NVIDIA GPUs before sm_90 have no such
// copy (the kernel traps there; tilekit launches none there). CPUs and other GPUs (HIP): the calling thread copies
// at the call, and the expected bytes are counted down by the copies, the one that completes them arriving for the
// thread. So, for every target alike: one expecting thread per phase of a barrier, its expectation before its copies
// (a GPU would also take copies first or several expecting threads; these stand-ins would not). On a CPU an
// expectation while an earlier one's bytes are still due, a copy that brings more bytes than the phase still
// expects, and a destination not on 128 bytes fail naming the kernel (a GPU would stop, or complete the phase early
// or never). A copy lands at the call on a CPU: a kernel that reads its destination before the wait passes there.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tilekit/error.hpp"
#include "tilekit/detail/tensor_box.hpp"
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
#elif defined(TK_CHECKED) && !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  // checked mode holds the copy until a wait completes its group (tilekit/cpu/checked.hpp, copy_async_issue)
  float v[words];
  TK_UNROLL
  for (int w = 0; w < words; ++w) v[w] = 4 * w < src_bytes ? p[w] : 0.f;
  cpu::checked::copy_async_issue(d, p, src_bytes, v, BYTES);
#else
  // Word by word: floats are what tilekit stages, and a CPU compiler vectorises the copy across threads.
  TK_UNROLL
  for (int w = 0; w < words; ++w) d[w] = 4 * w < src_bytes ? p[w] : 0.f;
#endif
}

TK_DEVICE void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#elif defined(TK_CHECKED) && !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  cpu::checked::copy_async_commit();
#endif
}

template <int N>
TK_DEVICE void copy_async_wait() {
  static_assert(N >= 0, "copy_async_wait<N>: N groups left in flight, 0 or more");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#elif defined(TK_CHECKED) && !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  cpu::checked::copy_async_wait(N);
#endif
}

struct alignas(8) AsyncBarrier {
  // mbarrier's 64-bit word; elsewhere: arrivals since the start, arrivals a phase takes, phases completed, and the
  // bytes of tensor copies the current phase still expects (tk::barrier_expect_copies)
  std::uint32_t w[4];
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__HIP__)
#define TK_DETAIL_MBARRIER 1
#endif

TK_DEVICE void barrier_init(AsyncBarrier* b, int count) {
#if defined(TK_DETAIL_MBARRIER)
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(b));
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(s), "r"(count) : "memory");
#if __CUDA_ARCH__ >= 900
  // the initialisation made visible to the tensor copies' completions too (they reach the barrier through the
  // async proxy), before the barrier that publishes it
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
#else
  b->w[0] = 0;
  b->w[1] = static_cast<std::uint32_t>(count);
  b->w[2] = 0;
  b->w[3] = 0;
#endif
}

TK_DEVICE void barrier_arrive(AsyncBarrier* b) {
#if defined(TK_DETAIL_MBARRIER)
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(b));
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(s) : "memory");
#elif defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  // arrivals counted from the start, never reset, so an arrival of the next phase cannot be lost: the one that
  // makes the count a multiple of a phase's completes the phase
  __threadfence_block();
  if ((atomicAdd(&b->w[0], 1u) + 1u) % b->w[1] == 0u) {
    __threadfence_block();
    atomicAdd(&b->w[2], 1u);
  }
#else
  if ((__atomic_fetch_add(&b->w[0], 1u, __ATOMIC_ACQ_REL) + 1u) % __atomic_load_n(&b->w[1], __ATOMIC_RELAXED) == 0u)
    __atomic_fetch_add(&b->w[2], 1u, __ATOMIC_RELEASE);
#endif
}

TK_DEVICE void barrier_wait(AsyncBarrier* b, int parity) {
#if defined(TK_DETAIL_MBARRIER)
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(b));
  unsigned done = 0;
  do {
#if __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(s), "r"(parity)
                 : "memory");
#else
    asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(s), "r"(parity)
                 : "memory");
#endif
  } while (!done);
#elif defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  while ((atomicAdd(&b->w[2], 0u) & 1u) == static_cast<unsigned>(parity & 1)) {
  }
  __threadfence_block();
#else
  const std::uint32_t phases = __atomic_load_n(&b->w[2], __ATOMIC_ACQUIRE);
  if ((phases & 1u) == static_cast<std::uint32_t>(parity & 1))
    tk::detail::fail("tk::barrier_wait in kernel ", cpu::tls_block.kernel_name, ": a thread waits for the phase of ",
                     "parity ", parity & 1, " of a barrier that has completed ", phases, " phases (",
                     __atomic_load_n(&b->w[0], __ATOMIC_RELAXED), " arrivals in all, ", b->w[1],
                     " a phase); on a CPU the arrivals it waits for must come in an earlier phase of the kernel");
#if defined(TK_CHECKED)
  cpu::checked::async_barrier_waited();
#endif
#endif
}

#if defined(TK_DETAIL_MBARRIER)
#undef TK_DETAIL_MBARRIER
#endif

template <int FIRST, int FIRST_REGS = 0, int REST_REGS = 0, class F, class R, class D>
TK_DEVICE void split_roles(std::int64_t n_first, std::int64_t n_rest, std::int64_t lag, F&& first, R&& rest,
                           D&& rest_done) {
  static_assert(FIRST > 0 && FIRST % 128 == 0, "the first role is whole warpgroups");
  static_assert(FIRST_REGS % 8 == 0 && REST_REGS % 8 == 0, "register counts are multiples of 8");
  static_assert((FIRST_REGS == 0 || (FIRST_REGS >= 24 && FIRST_REGS <= 256)) &&
                    (REST_REGS == 0 || (REST_REGS >= 24 && REST_REGS <= 256)),
                "setmaxnreg takes 24 to 256 registers");
#if defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  (void)lag;
  if (this_thread().id < FIRST) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (FIRST_REGS > 0) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(FIRST_REGS));
#endif
    for (std::int64_t i = 0; i < n_first; ++i) first(i);
  } else {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    if constexpr (REST_REGS > 0) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REST_REGS));
#endif
    for (std::int64_t t = 0; t < n_rest; ++t) rest(t);
    rest_done();
  }
#else
  if (cpu::tls_block.threads % 128 != 0 || cpu::tls_block.threads <= FIRST || lag < 0)
    tk::detail::fail("tk::split_roles in kernel ", cpu::tls_block.kernel_name, ": a block of ", cpu::tls_block.threads,
                     " threads, ", FIRST, " in the first role, lag ", lag,
                     " (whole warpgroups, threads in both roles, a lag of 0 or more)");
  const std::int64_t n = std::max(n_first, n_rest + lag);
  for (std::int64_t i = 0; i < n; ++i) {
    if (i < n_first) first(i);
    if (i >= lag && i - lag < n_rest) rest(i - lag);
  }
  rest_done();
#endif
}

}  // namespace TK_TARGET_NS

// ---- Tensor copies ----

inline namespace TK_TARGET_NS {

inline TensorMap tensor_map(const TensorBox& box) {
  detail::check_tensor_box(box);
  TensorMap m{};
#if defined(__CUDACC__) && !defined(__HIP__)
  detail::cuda_encode_tensor_map(box, m.bytes);
#else
  std::memcpy(m.bytes, &box, sizeof box);
#endif
  return m;
}

TK_DEVICE void barrier_expect_copies(AsyncBarrier* b, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(b));
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(s), "r"(bytes) : "memory");
#elif defined(__CUDA_ARCH__) && !defined(__HIP__)
  (void)b, (void)bytes;
  __trap();
#elif defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  if (bytes == 0) return barrier_arrive(b);
  atomicAdd(&b->w[3], bytes);
#else
  if (b->w[3] != 0)
    tk::detail::fail("tk::barrier_expect_copies in kernel ", cpu::tls_block.kernel_name, ": ", bytes,
                     " bytes expected while ", b->w[3], " of an earlier expectation are still due (one expecting ",
                     "thread a phase, its expectation before its copies)");
  if (bytes == 0) return barrier_arrive(b);
  b->w[3] = bytes;
#endif
}

TK_DEVICE void copy_tensor_async(void* dst, const TensorMap& map, int c0, int c1, int c2, AsyncBarrier* b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIP__)
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(b));
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(d),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(s)
      : "memory");
#elif defined(__CUDA_ARCH__) && !defined(__HIP__)
  (void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)b;
  __trap();
#else
  TensorBox t;  // byte by byte (std::memcpy is not a device function everywhere)
  for (std::size_t i = 0; i < sizeof t; ++i) reinterpret_cast<unsigned char*>(&t)[i] = map.bytes[i];
#if !defined(__CUDACC__) && !defined(__HIP__) && !defined(__HIPCC__)
  if (reinterpret_cast<std::uintptr_t>(dst) % 128 != 0)
    tk::detail::fail("tk::copy_tensor_async in kernel ", cpu::tls_block.kernel_name, ": a destination ",
                     reinterpret_cast<std::uintptr_t>(dst) % 128, " bytes past a 128-byte boundary");
  if ((std::int64_t{c0} * t.elem_bytes) % 16 != 0)
    tk::detail::fail("tk::copy_tensor_async in kernel ", cpu::tls_block.kernel_name, ": c0 = ", c0, " (values of ",
                     t.elem_bytes, " bytes: the box must start on a multiple of 16 bytes along its lines)");
#endif
  const auto* src = static_cast<const unsigned char*>(t.base);
  const std::uintptr_t d0 = reinterpret_cast<std::uintptr_t>(dst);
  const int eb = t.elem_bytes, line = t.box[0] * eb;
  const bool plane = c2 >= 0 && c2 < t.dims[2];
  for (int l = 0; l < t.box[1]; ++l) {
    const std::int64_t i1 = std::int64_t{c1} + l;
    const bool row = plane && i1 >= 0 && i1 < t.dims[1];
    for (int e = 0; e < t.box[0]; ++e) {
      const std::int64_t i0 = std::int64_t{c0} + e;
      std::uintptr_t a = d0 + static_cast<std::uintptr_t>(l) * line + static_cast<std::uintptr_t>(e) * eb;
      if (t.swizzle) a ^= ((a >> 7) & 7u) << 4;
      auto* out = reinterpret_cast<unsigned char*>(a);
      const bool inside = row && i0 >= 0 && i0 < t.dims[0];
      const unsigned char* in = inside ? src + c2 * t.strides[1] + i1 * t.strides[0] + i0 * eb : src;
      for (int k = 0; k < eb; ++k) out[k] = inside ? in[k] : 0;
    }
  }
  const unsigned bytes = static_cast<unsigned>(t.box[1]) * static_cast<unsigned>(line);
#if defined(__CUDACC__) || defined(__HIP__) || defined(__HIPCC__)
  __threadfence_block();
  if (atomicSub(&b->w[3], bytes) == bytes) barrier_arrive(b);
#else
  if (bytes > b->w[3])
    tk::detail::fail("tk::copy_tensor_async in kernel ", cpu::tls_block.kernel_name, ": a copy of ", bytes,
                     " bytes into a barrier's phase that expects ", b->w[3],
                     " more (tk::barrier_expect_copies before the copies, with all their bytes)");
  b->w[3] -= bytes;
  if (b->w[3] == 0) barrier_arrive(b);
#endif
#endif
}

}  // namespace TK_TARGET_NS
}  // namespace tk
