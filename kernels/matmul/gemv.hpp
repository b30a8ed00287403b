// kernels/matmul/gemv.hpp — products whose C has at most R rows or columns (a GEMV when R = 1): one large
// operand W read once, past R short vectors.
//
// With M (or N) at most R, each element of the other operand feeds at most R multiply-adds: CGMA = 2 R FLOPs
// per element, far under a GPU's balance (about 40 FLOPs per float loaded on an H100), so the product runs
// at the speed of reading W once. The tile kernels' 128-row tiles would hold at most R useful rows, with the
// loads and multiply-adds of 128. In common.hpp's row-major terms the four storages come down to
// two forms of the same loop, chosen by the way W's lines lie:
//  - along the outputs j (ALONG_K false: B as stored when M is small, A stored transposed when N is): the
//    block's BX threads across j read whole lines of W (coalesced; vectors of threads on a CPU), VEC
//    adjacent outputs each; its BY rows of threads take alternate k and are added up at the end;
//  - along k (ALONG_K true: B stored transposed, A as stored): a row of BX threads walks one line of W, a
//    vector of VEC elements per thread and step, each thread keeping R partial dot products, which the block
//    adds up through shared memory at the end (BY lines per block).
// The R short vectors X (rows of op(A), or columns of op(B): R x K) are staged through shared memory KC
// elements of k at a time, so that threads read them as broadcasts (first form) or vectors (second) whatever
// their storage; rows past `rows` are zeros (their products are never stored). The launcher picks R (1, 4,
// 8; on a GPU in the first form also 16 and 32) and the block shape per target.
//
// Split-K: when one matrix's outputs give too few blocks for the machine, the launcher (launch.cpp) gives
// block x of the grid the k range [split * k_per_split, ...) of output block x % blocks_j, and the blocks
// write partial sums (`partial`, one rows x J slab per split in the kernel's own coordinates, so that the
// stores are coalesced along j) that matmul_splitk_reduce adds into C. Otherwise C = alpha * sum + beta * C
// directly (C unread when beta == 0). Batches: grid y.
//
// Coordinates: W(k, j) is W[k * ldw + j] (first form) or W[j * ldw + k] (second); X(r, k) is X[r * xr + k * xk];
// the output (r, j) is Y[r * yr + j * yj], its partial partial[(split * rows + r) * J + j].
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>

#include "common.hpp"

namespace tk::kernels {

// The kernel's parameters, in the coordinates above: J outputs j per row, K, `rows` rows of C (<= R); W and
// its batch stride; X, its strides (xr, xk) and batch stride; Y (C), its strides (yr, yj) and batch stride;
// split-K's k range per split and partial slabs (null: none).
template <class T>
struct GemvParams {
  std::int64_t J = 0, K = 0;
  int rows = 0;
  T alpha = T(1), beta = T(0);
  const T* W = nullptr;
  std::int64_t ldw = 0, sw = 0;
  const T* X = nullptr;
  std::int64_t xr = 0, xk = 0, sx = 0;
  T* Y = nullptr;
  std::int64_t yr = 0, yj = 0, sy = 0;
  std::int64_t k_per_split = 0;
  T* partial = nullptr;
};

// The kernel's arguments from the struct, in the order of its parameters (the one place that lists them; why
// they are not the struct: warp_tiled.hpp).
template <class T>
auto gemv_args(const GemvParams<T>& p) {
  return std::tuple(p.J, p.K, p.rows, p.alpha, p.W, p.ldw, p.sw, p.X, p.xr, p.xk, p.sx, p.beta, p.Y, p.yr, p.yj, p.sy,
                    p.k_per_split, p.partial);
}

template <class T, int R, int VEC, int BX, int BY, int KC, bool ALONG_K, bool ALIGNED>
TK_KERNEL TK_LAUNCH_BOUNDS(BX* BY) void matmul_gemv(std::int64_t J, std::int64_t K, int rows, T alpha, const T* W,
                                                    std::int64_t ldw, std::int64_t sw, const T* X, std::int64_t xr,
                                                    std::int64_t xk, std::int64_t sx, T beta, T* Y, std::int64_t yr,
                                                    std::int64_t yj, std::int64_t sy, std::int64_t k_per_split,
                                                    T* partial) {
  constexpr int NT = BX * BY;
  constexpr int PER_BLOCK = ALONG_K ? BY : BX * VEC;  // outputs j per block
  static_assert(KC % VEC == 0 && (ALONG_K ? KC % (BX * VEC) == 0 && R <= BX : KC % BY == 0), "whole steps per chunk");
  constexpr bool CPU = tk::this_target == tk::Target::cpu;
  constexpr int STEPS = ALONG_K ? KC / (BX * VEC) : KC / BY;  // a thread's steps per chunk of k
  constexpr int GROUP = 4;                                    // (a CPU's first form, below)
  static_assert(STEPS % GROUP == 0, "whole groups of steps");
  // X's chunk along k: Xs[r][kk] for the second form (a thread reads VEC values of one vector), Xs[kk][r] for
  // the first (a thread reads the R values of one k, 16 bytes at a time on a GPU: broadcasts to the warp).
  constexpr int XR = ALONG_K ? R : KC, XC = ALONG_K ? KC : R;
  TK_SHARED_ARRAY(T, Xs, [XR][XC]);
  // The block's sums across its rows (first form) or its row's threads (second); BY == 1 needs none.
  constexpr int RED_Y = ALONG_K || BY > 1 ? BY : 1, RED_X = ALONG_K ? BX : (BY > 1 ? BX * VEC : 1);
  TK_SHARED_ARRAY(T, red, [RED_Y][R][RED_X]);
  tk::Private<T, R * VEC> acc(T(0));

  const std::int64_t blocks_j = (J + PER_BLOCK - 1) / PER_BLOCK;
  const std::int64_t split = tk::block_idx().x / blocks_j;
  const std::int64_t j0 = (tk::block_idx().x % blocks_j) * PER_BLOCK;
  const std::int64_t kb = split * k_per_split, ke = kb + k_per_split < K ? kb + k_per_split : K;
  const std::int64_t z = tk::block_idx().y;
  W += z * sw;
  X += z * sx;
  Y += z * sy;
  // First form: the block's VEC-wide chunks all lie inside W's lines (no bounds test on the loads).
  const bool inside = j0 + PER_BLOCK <= J;

  if constexpr (CPU && ALONG_K) {
    TK_THREADS_IN_ROWS(th, R * KC / BX) {  // (rows of X past `rows`: zeros, for the whole chunks below)
      const int r = th.y / (KC / BX), kk = th.y % (KC / BX) * BX + th.x;
      if (r >= rows) Xs[r][kk] = T(0);
    }
  }
  for (std::int64_t k0 = kb; k0 < ke; k0 += KC) {
    const int kn = ke - k0 < KC ? static_cast<int>(ke - k0) : KC;
    if constexpr (CPU && ALONG_K) {
      // On a CPU, Xs[r][kk] from thread (kk % BX, r * KC / BX + kk / BX) of the first R * KC / BX rows: where X
      // lies along k a vector of threads reads a run of X's row r (masked loads); otherwise (xr = 1: A stored
      // transposed with M small, B as stored with N small) gcc 12 makes no masked gathers and the phase runs element
      // by element. The loop below, its trip count
      // different per thread, ran element by element with a branch each on every storage: 80% of
      // 8 x 2048 x 1024 with B transposed, 12 times NN's time.
      static_assert(KC % BX == 0 && R * KC / BX <= BY, "rows of threads within rows of X, enough of them");
      if (xk == 1) {
        TK_THREADS_IN_ROWS(th, R * KC / BX) {
          const int r = th.y / (KC / BX), kk = th.y % (KC / BX) * BX + th.x;
          Xs[r][kk] = r < rows && kk < kn ? X[r * xr + k0 + kk] : T(0);
        }
      } else if (kn == KC) {
        // A whole chunk of a strided X: rows [0, rows) only and no test (Xs's rows past `rows` were zeroed before
        // the loop), 10-20% less time than the tested copy below.
        TK_THREADS_IN_ROWS(th, rows * (KC / BX)) {
          const int r = th.y / (KC / BX), kk = th.y % (KC / BX) * BX + th.x;
          Xs[r][kk] = X[r * xr + (k0 + kk) * xk];
        }
      } else {
        TK_THREADS_IN_ROWS(th, R * KC / BX) {
          const int r = th.y / (KC / BX), kk = th.y % (KC / BX) * BX + th.x;
          Xs[r][kk] = r < rows && kk < kn ? X[r * xr + (k0 + kk) * xk] : T(0);
        }
      }
    } else {
      TK_THREADS(th) {
        // The chunk of X, 0 past `rows` and past the k range; consecutive threads on consecutive elements
        // of whichever direction X lies along in memory.
        for (int e = th.id; e < R * KC; e += NT) {
          const int r = xr == 1 ? e % R : e / KC, kk = xr == 1 ? e / R : e % KC;
          (ALONG_K ? Xs[r][kk] : Xs[kk][r]) = r < rows && kk < kn ? X[r * xr + (k0 + kk) * xk] : T(0);
        }
      }
    }
    TK_BARRIER();  // the chunk of X is in place
    // A thread's steps [first, first + COUNT) of the chunk, each unrolled (a CPU's phase then has no inner
    // loop, which gcc needs to vectorise it across the threads; a GPU's thread has all its loads in flight
    // at once). FULL: the block's chunk lies inside W (no bounds tests; the common case).
    const auto compute = [&](const tk::Thread& th, int first, auto count, auto full) {
      constexpr int COUNT = decltype(count)::value;
      constexpr bool FULL = decltype(full)::value;
      T c[R][VEC];
      TK_UNROLL
      for (int r = 0; r < R; ++r) {
        TK_UNROLL
        for (int e = 0; e < VEC; ++e) c[r][e] = acc(th.id, r * VEC + e);
      }
      if constexpr (!ALONG_K) {
        const std::int64_t j = j0 + th.x * VEC;
        TK_UNROLL
        for (int s = first; s < first + COUNT; ++s) {
          const int kk = s * BY + th.y;
          if (!FULL && kk >= kn) continue;
          const tk::Vec<T, VEC> w = FULL || inside ? matmul_detail::fetch_unchecked<VEC, ALIGNED>(W, ldw, k0 + kk, j)
                                                   : matmul_detail::fetch<VEC, ALIGNED>(W, ldw, k0 + kk, j, K, J);
          constexpr int V16 = 16 / static_cast<int>(sizeof(T));
          constexpr int XV = !CPU && R % V16 == 0 ? V16 : 1;  // values of X per (16-byte) shared-memory read
          TK_UNROLL
          for (int r0 = 0; r0 < R; r0 += XV) {
            const tk::Vec<T, XV> a = tk::load_vec<XV>(&Xs[kk][r0]);
            TK_UNROLL
            for (int r = 0; r < XV; ++r) {
              TK_UNROLL
              for (int e = 0; e < VEC; ++e) c[r0 + r][e] += a.v[r] * w.v[e];
            }
          }
        }
      } else {
        // Lines past J read W's last line (stored nowhere); elements past the k range read as zeros.
        const std::int64_t line = j0 + th.y < J ? j0 + th.y : J - 1;
        TK_UNROLL
        for (int s = first; s < first + COUNT; ++s) {
          const int kk = (s * BX + th.x) * VEC;
          if (!FULL && kk >= kn) continue;
          const tk::Vec<T, VEC> w = FULL || kk + VEC <= kn
                                        ? matmul_detail::fetch_unchecked<VEC, ALIGNED>(W, ldw, line, k0 + kk)
                                        : matmul_detail::fetch<VEC, ALIGNED>(W, ldw, line, k0 + kk, J, ke);
          TK_UNROLL
          for (int r = 0; r < R; ++r) {
            const tk::Vec<T, VEC> a = tk::load_vec<VEC>(&Xs[r][kk]);
            TK_UNROLL
            for (int e = 0; e < VEC; ++e) c[r][0] += a.v[e] * w.v[e];
          }
        }
      }
      TK_UNROLL
      for (int r = 0; r < R; ++r) {
        TK_UNROLL
        for (int e = 0; e < VEC; ++e) acc(th.id, r * VEC + e) = c[r][e];
      }
    };
    const auto phases = [&](auto full) {
      if constexpr (CPU && !ALONG_K) {
        // On a CPU, GROUP lines of W at a time across the block's whole width: the loop over a vector of
        // threads then reads a few runs of W at a time, which the hardware prefetchers follow (the chunk's KC
        // lines in one phase were KC interleaved streams, one cache line from each in turn).
        for (int g = 0; g < STEPS; g += GROUP) TK_THREADS(th) {
            compute(th, g, std::integral_constant<int, GROUP>{}, full);
          }
      } else {
        TK_THREADS(th) { compute(th, 0, std::integral_constant<int, STEPS>{}, full); }
      }
    };
    if (kn == KC && (ALONG_K || inside)) {
      phases(std::true_type{});
    } else {
      phases(std::false_type{});
    }
    TK_BARRIER();  // the chunk of X is used before the next one overwrites it
  }

  // The output (r, j): C's element, or this split's partial sum.
  const auto put = [&](int r, std::int64_t j, T s) {
    if (partial) {
      partial[(split * rows + r) * J + j] = s;
    } else {
      matmul_detail::store_c(Y + r * yr + j * yj, alpha, beta, s);
    }
  };
  if constexpr (!ALONG_K && BY == 1) {
    TK_THREADS(th) {
      // (over R, not `rows`: a GPU's accumulators are registers, indexed by constants)
      TK_UNROLL
      for (int r = 0; r < R; ++r) {
        TK_UNROLL
        for (int e = 0; e < VEC; ++e)
          if (r < rows && j0 + th.x * VEC + e < J) put(r, j0 + th.x * VEC + e, acc(th.id, r * VEC + e));
      }
    }
  } else {
    TK_THREADS(th) {
      if constexpr (ALONG_K) {
        TK_UNROLL
        for (int r = 0; r < R; ++r) red[th.y][r][th.x] = acc(th.id, r * VEC);
      } else {
        TK_UNROLL
        for (int r = 0; r < R; ++r) {
          TK_UNROLL
          for (int e = 0; e < VEC; ++e) red[th.y][r][th.x * VEC + e] = acc(th.id, r * VEC + e);
        }
      }
    }
    TK_BARRIER();  // every thread's sums are in place
    TK_THREADS(th) {
      if constexpr (ALONG_K) {
        // Thread x of row y adds up output r = x of line j0 + y.
        const std::int64_t j = j0 + th.y;
        if (th.x >= rows || j >= J) TK_SKIP();
        T s = 0;
        for (int x = 0; x < BX; ++x) s += red[th.y][th.x][x];
        put(th.x, j, s);
      } else {
        // Thread (x, y) adds up outputs r = y, y + BY, ... of its VEC columns.
        for (int r = th.y; r < rows; r += BY) {
          for (int e = 0; e < VEC; ++e) {
            const int col = th.x * VEC + e;
            if (j0 + col >= J) continue;
            T s = 0;
            for (int y = 0; y < BY; ++y) s += red[y][r][col];
            put(r, j0 + col, s);
          }
        }
      }
    }
  }
}

}  // namespace tk::kernels
