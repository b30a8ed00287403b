// tests/checked/broken_kernels_catalogue.hpp — the broken kernels themselves, included twice by
// broken_kernels.hpp (so no include guard): TK_BROKEN_SHARED(T, name, dims) declares a shared array either
// with TK_SHARED_ARRAY or the CUDA way, `TK_SHARED T name dims;`. Each bug is marked BUG.

// Race (Kirk & Hwu, exercise 5.3): the tiled matrix multiplication with both barriers removed. The
// loads of the next tile overwrite As and Bs while other threads still read the previous one, and the
// products read elements that other threads have not loaded yet. The CPU runs each phase to the end
// before the next, so the answer is right there.
template <int TILE, bool FIRST_BARRIER, bool SECOND_BARRIER>
TK_KERNEL void tiled_matmul(int n, const float* A, const float* B, float* C) {
  TK_BROKEN_SHARED(float, As, [TILE][TILE]);
  TK_BROKEN_SHARED(float, Bs, [TILE][TILE]);
  tk::Private<float> acc(0.f);
  const int row0 = tk::block_idx().y * TILE, col0 = tk::block_idx().x * TILE;
  for (int t = 0; t < n / TILE; ++t) {
    TK_THREADS(th) {
      As[th.y][th.x] = A[(row0 + th.y) * n + t * TILE + th.x];
      Bs[th.y][th.x] = B[(t * TILE + th.y) * n + col0 + th.x];
    }
    if (FIRST_BARRIER) TK_BARRIER();  // BUG when false: products read elements not yet loaded
    TK_THREADS(th) {
      for (int k = 0; k < TILE; ++k) acc(th.id) += As[th.y][k] * Bs[k][th.x];
    }
    if (SECOND_BARRIER) TK_BARRIER();  // BUG when false: the next loads overwrite what is being read
  }
  TK_THREADS(th) { C[(row0 + th.y) * n + col0 + th.x] = acc(th.id); }
}

// Thread state: the same multiplication with the accumulator a plain local. On a GPU each thread has its
// own; on the CPU one variable is shared by the whole block's phase loop.
template <int TILE>
TK_KERNEL void tiled_matmul_plain_local(int n, const float* A, const float* B, float* C) {
  TK_BROKEN_SHARED(float, As, [TILE][TILE]);
  TK_BROKEN_SHARED(float, Bs, [TILE][TILE]);
  float acc = 0.f;  // BUG: a per-thread value that lives across barriers must be a tk::Private
  const int row0 = tk::block_idx().y * TILE, col0 = tk::block_idx().x * TILE;
  for (int t = 0; t < n / TILE; ++t) {
    TK_THREADS(th) {
      As[th.y][th.x] = A[(row0 + th.y) * n + t * TILE + th.x];
      Bs[th.y][th.x] = B[(t * TILE + th.y) * n + col0 + th.x];
    }
    TK_BARRIER();
    TK_THREADS(th) {
      for (int k = 0; k < TILE; ++k) acc += As[th.y][k] * Bs[k][th.x];
    }
    TK_BARRIER();
  }
  TK_THREADS(th) { C[(row0 + th.y) * n + col0 + th.x] = acc; }
}

// Thread state: a Private read with another thread's id (the neighbour's partial sum, as if registers
// could be read across threads).
TK_KERNEL void private_of_neighbour(const float* in, float* out) {
  tk::Private<float> v(0.f);
  TK_THREADS(th) { v(th.id) = in[th.id]; }
  TK_BARRIER();
  TK_THREADS(th) { out[th.id] = v(th.id) + v((th.id + 1) % tk::block_dim().x); }  // BUG: use shared memory
}

// Divergent barrier: a barrier inside a phase, in a branch only some threads take (a reduction that
// "synchronises the active half").
TK_KERNEL void barrier_in_branch(const float* in, float* out) {
  TK_BROKEN_SHARED(float, s, [64]);
  TK_THREADS(th) { s[th.x] = in[th.x]; }
  TK_BARRIER();
  TK_THREADS(th) {
    if (th.x < 32) {
      s[th.x] += s[th.x + 32];
      TK_BARRIER();  // BUG: only half the threads get here, and a barrier inside a phase is none on the CPU
    }
  }
  TK_BARRIER();
  TK_THREADS(th) { out[th.x] = s[th.x]; }
}

// A barrier inside a phase that every thread reaches: legal CUDA, but the CPU target cannot honour it.
TK_KERNEL void barrier_in_phase(const float* in, float* out) {
  TK_BROKEN_SHARED(float, s, [64]);
  TK_THREADS(th) {
    s[th.x] = in[th.x];
    TK_BARRIER();  // BUG: end the phase here instead
    out[th.x] = s[63 - th.x];
  }
}

// A warp's matrix multiply-accumulate called inside a phase: on a GPU each lane would issue it alone
// (mma.sync with a diverged warp: undefined), on the CPU the phase calls it once per thread.
TK_KERNEL void mma_inside_phase(float* out) {
  using O = tk::mma::Op<tk::mma::Precision::tf32>;
  tk::Private<float, O::c_regs> d(0.f);
  tk::Private<float, O::a_regs> a(1.f);
  tk::Private<float, O::b_regs> b(1.f);
  TK_THREADS(th) {
    tk::mma::mma_sync<O>(d, 0, a, 0, b, 0);  // BUG: a warp-collective call stands between phases
  }
  TK_THREADS(th) { out[th.id] = d(th.id, 0); }
}

// The same call where it belongs, from a block that is not whole warps.
TK_KERNEL void mma_partial_warp(float* out) {
  using O = tk::mma::Op<tk::mma::Precision::tf32>;
  tk::Private<float, O::c_regs> d(0.f);
  tk::Private<float, O::a_regs> a(1.f);
  tk::Private<float, O::b_regs> b(1.f);
  tk::mma::mma_sync<O>(d, 0, a, 0, b, 0);
  TK_THREADS(th) { out[th.id] = d(th.id, 0); }
}

// Out of range: the 5-point stencil's tile sized without its halo ring, so the halo writes fall off
// the end of each row (the index is one past the declared extent).
template <int T>
TK_KERNEL void stencil_tile_without_halo(int n, const float* in, float* out) {
  TK_BROKEN_SHARED(float, tile, [T][T]);  // BUG: the halo needs [T + 2][T + 2]
  const int r0 = tk::block_idx().y * T, c0 = tk::block_idx().x * T;
  TK_THREADS(th) { tile[th.y][th.x + 1] = in[(r0 + th.y) * n + c0 + th.x]; }
  TK_BARRIER();
  TK_THREADS(th) { out[(r0 + th.y) * n + c0 + th.x] = tile[th.y][th.x]; }
}

// Out of range: dynamic shared memory used for block_dim + 2 floats while the launch gives block_dim.
TK_KERNEL void dynamic_shared_overrun(const float* in, float* out) {
  float* s = tk::dynamic_shared<float>();
  const int n = tk::block_dim().x;
  TK_THREADS(th) {
    s[th.x] = in[th.x];
    if (th.x < 2) s[n + th.x] = 0.f;  // BUG: the launch sized the buffer for n floats
  }
  TK_BARRIER();
  TK_THREADS(th) { out[th.x] = s[th.x] + s[th.x + 2]; }
}

// Out of range: a Private of 4 values per thread indexed up to 4.
TK_KERNEL void private_index_past_end(const float* in, float* out) {
  tk::Private<float, 4> v(0.f);
  TK_THREADS(th) {
    for (int i = 0; i <= 4; ++i) v(th.id, i) = in[th.id] * i;  // BUG: i < 4
  }
  TK_BARRIER();
  TK_THREADS(th) { out[th.id] = v(th.id, 3); }
}

// Uninitialised: the moving average's halo never loaded: the edge threads read shared elements no
// thread wrote (garbage on a GPU; whatever the last block left on the CPU).
template <int R>
TK_KERNEL void moving_average_without_halo(int n, const float* in, float* out) {
  TK_BROKEN_SHARED(float, tile, [64 + 2 * R]);
  const int base = tk::block_idx().x * 64;
  TK_THREADS(th) { tile[R + th.x] = in[base + th.x]; }  // BUG: the R elements on each side are not loaded
  TK_BARRIER();
  TK_THREADS(th) {
    float sum = 0.f;
    for (int k = -R; k <= R; ++k) sum += tile[R + th.x + k];
    if (base + th.x < n) out[base + th.x] = sum / (2 * R + 1);
  }
}

// Out of range: the left neighbour of thread 0 is read at index -1 of dynamic shared memory.
TK_KERNEL void dynamic_shared_underflow(const float* in, float* out) {
  float* s = tk::dynamic_shared<float>();
  TK_THREADS(th) { s[th.x] = in[th.x]; }
  TK_BARRIER();
  TK_THREADS(th) { out[th.x] = s[th.x] - s[th.x - 1]; }  // BUG: thread 0 has no left neighbour
}

// Uninitialised: a shared counter that every thread increments atomically, never set to zero.
TK_KERNEL void counter_never_zeroed(const float* in, float* out) {
  TK_BROKEN_SHARED(float, count, [1]);  // BUG: thread 0 should zero it, then a barrier
  TK_THREADS(th) {
    if (in[th.x] > 0.f) tk::atomic_add(&count[0], 1.f);
  }
  TK_BARRIER();
  TK_THREADS(th) {
    if (th.x == 0) out[0] = count[0];
  }
}

// Copies in flight (tk::copy_async): a ring of S stages of 64 floats, S - 1 rounds in flight ahead of the one each
// thread reads back (another thread's copy, as a pipelined matmul reads its strips). The round to read needs
// copy_async_wait<S - 2>; WAIT = S - 1 leaves its group in flight (BUG); without the barrier after the wait (BARRIER
// false, BUG) a thread reads another's landed copy before that thread's wait is known to it. The plain CPU target
// copies at the call, so the answer is right there; on a GPU the stage may still be filling.
template <int S, int WAIT, bool BARRIER = true>
TK_KERNEL void copy_ring(int rounds, const float* in, float* out) {
  TK_BROKEN_SHARED(float, ring, [S][64]);
  const auto issue = [&](int r) {
    TK_THREADS(th) { tk::copy_async<4>(&ring[r % S][th.x], in + r * 64 + th.x, 4); }
  };
  for (int r = 0; r < S - 1; ++r) {
    if (r < rounds) issue(r);
    tk::copy_async_commit();
  }
  for (int r = 0; r < rounds; ++r) {
    tk::copy_async_wait<WAIT>();  // BUG when WAIT > S - 2: round r's copies may not have landed
    if (BARRIER) TK_BARRIER();    // every thread's copies of round r seen; round r - 1's stage free
    if (r + S - 1 < rounds) issue(r + S - 1);
    tk::copy_async_commit();
    TK_THREADS(th) { out[r * 64 + th.x] = ring[r % S][63 - th.x]; }
  }
  tk::copy_async_wait<0>();
}

// Copies in flight: the prologue's loop runs to S (where it should stop before S - 1), so round S goes into stage 0
// while round 0's copy, never waited for, still fills it.
template <int S>
TK_KERNEL void copy_ring_overfilled(int rounds, const float* in, float* out) {
  TK_BROKEN_SHARED(float, ring, [S][64]);
  const auto issue = [&](int r) {
    TK_THREADS(th) { tk::copy_async<4>(&ring[r % S][th.x], in + r * 64 + th.x, 4); }
  };
  for (int r = 0; r <= S; ++r) {  // BUG: S + 1 rounds into S stages
    if (r < rounds) issue(r);
    tk::copy_async_commit();
  }
  for (int r = 0; r < rounds; ++r) {
    tk::copy_async_wait<S>();
    TK_BARRIER();
    if (r + S + 1 < rounds) issue(r + S + 1);
    tk::copy_async_commit();
    TK_THREADS(th) { out[r * 64 + th.x] = ring[r % S][63 - th.x]; }
  }
  tk::copy_async_wait<0>();
}

// Copies in flight: the commit inside the phase that issues the copies (each thread would close its own group, which
// is what a GPU does, but commits and waits are the block's, between phases, as barriers are).
TK_KERNEL void copy_committed_in_a_phase(const float* in, float* out) {
  TK_BROKEN_SHARED(float, stage, [64]);
  TK_THREADS(th) {
    tk::copy_async<4>(&stage[th.x], in + th.x, 4);
    tk::copy_async_commit();  // BUG: between phases
  }
  tk::copy_async_wait<0>();
  TK_BARRIER();
  TK_THREADS(th) { out[th.x] = stage[63 - th.x]; }
}

// Copies in flight: 16-byte copies into a stage one float off a 16-byte boundary (a GPU faults on the misaligned
// address).
TK_KERNEL void copy_misaligned(const float* in, float* out) {
  TK_BROKEN_SHARED(float, stage, [4 * 64 + 4]);
  TK_THREADS(th) { tk::copy_async<16>(&stage[1 + 4 * th.x], in + 4 * th.x, 16); }  // BUG: stage + 1
  tk::copy_async_commit();
  tk::copy_async_wait<0>();
  TK_BARRIER();
  TK_THREADS(th) { out[th.x] = stage[1 + 4 * (63 - th.x)]; }
}
