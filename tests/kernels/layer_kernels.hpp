// tests/kernels/layer_kernels.hpp — kernels that exercise each construct of the kernel layer, written
// once like every tilekit kernel and compiled for every target by tk_add_kernel_sources.
#pragma once

#include <cstdint>

#include "tilekit/async_copy.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"

namespace tk::kernels::test {

// Every thread writes where it is: out[global linear index] = encoded (block, thread, linear id).
// Checks the thread and block indices and the linear thread id for any 3D block and grid shape.
TK_KERNEL void where_am_i(std::int64_t* out) {
  TK_THREADS(th) {
    const Dim3 b = tk::block_idx(), bd = tk::block_dim(), g = tk::grid_dim();
    const std::int64_t block = (std::int64_t{b.z} * g.y + b.y) * g.x + b.x;
    const std::int64_t threads = std::int64_t{bd.x} * bd.y * bd.z;
    out[block * threads + th.id] = ((((block * 16 + th.z) * 16 + th.y) * 16 + th.x) << 20) + th.id;
  }
}

// Reverses each block's segment of n floats through dynamic shared memory; the last block may be partial.
TK_KERNEL void reverse_segments(std::int64_t n, const float* in, float* out) {
  float* seg = tk::dynamic_shared<float>();
  const std::int64_t base = std::int64_t{tk::block_idx().x} * tk::block_dim().x;
  const int len = static_cast<int>(n - base < tk::block_dim().x ? n - base : tk::block_dim().x);
  TK_THREADS(th) {
    if (th.x >= len) TK_SKIP();
    seg[th.x] = in[base + th.x];
  }
  TK_BARRIER();  // the whole segment is in shared memory before anyone reads another thread's element
  TK_THREADS(th) {
    if (th.x >= len) TK_SKIP();
    out[base + th.x] = seg[len - 1 - th.x];
  }
}

// Sum of each block's segment: every thread accumulates a strided partial sum in a tk::Private across
// rounds separated by barriers, then a tree reduction in a static shared tile halves the active threads
// each step. BLOCK is a power of two; the launch uses exactly BLOCK threads.
template <int BLOCK, int ROUNDS>
TK_KERNEL void block_sums(std::int64_t n, const float* in, double* sums) {
  static_assert((BLOCK & (BLOCK - 1)) == 0, "the tree reduction halves a power-of-two block");
  TK_SHARED_ARRAY(double, tile, [BLOCK]);
  tk::Private<double> partial(0.0);
  tk::Private<int, 2> counts(0);  // [0]: elements this thread added, [1]: rounds it saw
  const std::int64_t base = std::int64_t{tk::block_idx().x} * BLOCK * ROUNDS;
  for (int r = 0; r < ROUNDS; ++r) {
    TK_THREADS(th) {
      const std::int64_t i = base + std::int64_t{r} * BLOCK + th.x;
      counts(th.id, 1) += 1;
      if (i >= n) TK_SKIP();
      partial(th.id) += in[i];
      counts(th.id, 0) += 1;
    }
    TK_BARRIER();  // not needed for correctness here; it proves Privates survive barriers
  }
  TK_THREADS(th) { tile[th.x] = counts(th.id, 1) == ROUNDS ? partial(th.id) : -1e300; }
  TK_BARRIER();  // the tile is full
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    TK_THREADS(th) {
      if (th.x < s) tile[th.x] += tile[th.x + s];
    }
    TK_BARRIER();  // this step's sums are written before the next step reads them
  }
  TK_THREADS(th) {
    if (th.x == 0) sums[tk::block_idx().x] = tile[0];
  }
}

// A warp_size-dependent kernel: out[0] = the target's warp size (compiled in, not queried).
// TK_THREADS_IN_ROWS: each thread of the first `rows` rows (of every z slice) writes its row; a CPU skips
// the others, a GPU may run them (the construct's contract: their work must be harmless).
TK_KERNEL void rows_phase(int rows, int* out) {
  TK_THREADS_IN_ROWS(th, rows) { out[th.id] = th.y; }
}

// tk::mma::pair_dot once per thread: c[16 t ..] += pairs a[t] . b[16 t ..], for n threads.
TK_PAIR_DOT_KERNEL void pair_dot_lanes(int n, const std::uint32_t* a, const std::uint32_t* b, float* c) {
  TK_THREADS(th) {
    const int t = static_cast<int>(tk::block_idx().x) * static_cast<int>(tk::block_dim().x) + th.x;
    if (t < n) tk::mma::pairs_store(c + 16 * t, tk::mma::pair_dot(tk::mma::pairs_load(c + 16 * t), a[t], b + 16 * t));
  }
}

// tk::mma::tile_dot_32x32 once, on thread 0, between the tile configuration's begin and end.
TK_KERNEL void tile_dot_once(float* c, std::int64_t ldc, const std::uint32_t* a, std::int64_t lda,
                             const std::uint32_t* b, std::int64_t ldb, int steps, int accumulate) {
  TK_THREAD_ZERO(th) { tk::mma::tile_dot_begin(); }
  TK_THREAD_ZERO(th) { tk::mma::tile_dot_32x32(c, ldc, a, lda, b, ldb, steps, accumulate != 0); }
  TK_THREAD_ZERO(th) { tk::mma::tile_dot_end(); }
}

TK_KERNEL void report_warp_size(int* out) {
  TK_THREADS(th) {
    if (th.id == 0) out[0] = tk::warp_size;
  }
}

// tk::copy_async in a STAGES-deep ring, as a multi-stage pipeline uses it: each block streams `rounds`
// segments of 64 * BYTES / 4 floats of `in` (n floats, the tail zero-filled) through shared stages, and
// thread x writes the chunk that thread 63 - x copied: another thread's data, visible only after the
// issuing thread's wait and the barrier.
template <int BYTES>
TK_DEVICE void staged_issue(float* stage, std::int64_t n, const float* in, std::int64_t first) {
  constexpr int W = BYTES / 4;
  TK_THREADS(th) {
    const std::int64_t i = first + std::int64_t{th.x} * W;
    const std::int64_t left = n - i;  // floats of `in` from i on
    const int bytes = left >= W ? BYTES : left > 0 ? 4 * static_cast<int>(left) : 0;
    tk::copy_async<BYTES>(stage + th.x * W, bytes > 0 ? in + i : in, bytes);
  }
}

template <int BYTES, int STAGES>
TK_KERNEL void staged_copy(std::int64_t n, int rounds, const float* in, float* out) {
  constexpr int W = BYTES / 4, T = 64, SEG = T * W;
  TK_SHARED_ARRAY(float, stage, [STAGES][SEG]);
  const std::int64_t base = std::int64_t{tk::block_idx().x} * rounds * SEG;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < rounds) staged_issue<BYTES>(stage[s], n, in, base + std::int64_t{s} * SEG);
    tk::copy_async_commit();
  }
  for (int r = 0; r < rounds; ++r) {
    tk::copy_async_wait<STAGES - 2>();
    TK_BARRIER();  // round r has landed for every thread; round r - 1's stage is free
    if (const int p = r + STAGES - 1; p < rounds)
      staged_issue<BYTES>(stage[p % STAGES], n, in, base + std::int64_t{p} * SEG);
    tk::copy_async_commit();
    const float* cur = stage[r % STAGES];
    TK_THREADS(th) {
      TK_UNROLL
      for (int w = 0; w < W; ++w) out[base + std::int64_t{r} * SEG + th.x * W + w] = cur[(T - 1 - th.x) * W + w];
    }
  }
}

// Two roles that meet only at tk::AsyncBarrier's, through a ring of STAGES slots (tk::split_roles, as the
// warp-specialised GEMM runs): the first warpgroup writes round i (128 floats of `in`) into slot i % STAGES once the
// second has released the round before it there, and arrives at full; the second waits at full, writes thread c's
// value from the slot's element 127 - c (another thread's) and releases the slot at empty. Enough rounds to wrap
// the ring several times, so that both barriers' phases flip.
template <int STAGES>
TK_KERNEL void barrier_relay(int rounds, const float* in, float* out) {
  TK_SHARED_ARRAY(float, slot, [STAGES][128]);
  TK_SHARED_ARRAY(tk::AsyncBarrier, bars, [2 * STAGES]);
  tk::AsyncBarrier* const full = bars;
  tk::AsyncBarrier* const empty = bars + STAGES;
  const std::int64_t base = std::int64_t{tk::block_idx().x} * rounds * 128;
  TK_THREAD_ZERO(th) {
    for (int s = 0; s < STAGES; ++s) {
      tk::barrier_init(&full[s], 128);
      tk::barrier_init(&empty[s], 128);
    }
  }
  TK_BARRIER();
  const auto write = [&](std::int64_t i) {
    TK_THREADS(th) {
      if (th.id < 128) {
        const int s = static_cast<int>(i % STAGES);
        if (i >= STAGES) tk::barrier_wait(&empty[s], static_cast<int>((i / STAGES - 1) & 1));
        slot[s][th.id] = in[base + i * 128 + th.id];
        tk::barrier_arrive(&full[s]);
      }
    }
  };
  const auto read = [&](std::int64_t t) {
    TK_THREADS(th) {
      if (th.id >= 128) {
        const int s = static_cast<int>(t % STAGES), c = th.id - 128;
        tk::barrier_wait(&full[s], static_cast<int>((t / STAGES) & 1));
        out[base + t * 128 + c] = slot[s][127 - c];
        tk::barrier_arrive(&empty[s]);
      }
    }
  };
  tk::split_roles<128>(rounds, rounds, 1, write, read, [] {});
}

// One tensor copy (tk::copy_tensor_async) of map's box at (c0, c1, c2) into dynamic shared memory (from its first
// 1024-byte boundary), the barrier expecting `expect` bytes; every thread waits for it, then the block writes the
// first `bytes` bytes of the destination to out as they lie.
TK_KERNEL void tensor_copy(const TK_GRID_CONSTANT tk::TensorMap map, int c0, int c1, int c2, unsigned expect, int bytes,
                           unsigned char* out) {
  TK_SHARED_ARRAY(tk::AsyncBarrier, bar, [1]);
  unsigned char* const dst = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(tk::dynamic_shared<unsigned char>()) + 1023) & ~std::uintptr_t{1023});
  TK_THREAD_ZERO(th) { tk::barrier_init(&bar[0], 1); }
  TK_BARRIER();
  TK_THREAD_ZERO(th) {
    tk::barrier_expect_copies(&bar[0], expect);
    tk::copy_tensor_async(dst, map, c0, c1, c2, &bar[0]);
  }
  TK_THREADS(th) { tk::barrier_wait(&bar[0], 0); }
  TK_THREADS(th) {
    for (int i = th.id; i < bytes; i += tk::block_dim().x) out[i] = dst[i];
  }
}

}  // namespace tk::kernels::test
