// kernels/matmul/warp_tiled.hpp — tilekit's fastest matmul: the warp tiles of warp_tiling.hpp fed by a
// pipelined k loop, with rasterised blocks and split-K. Its tile shapes are configurations made of named
// parts (config.hpp), listed per target in policy/<target>.hpp; docs/performance.md#h100-sgemm has what each
// measured. One technique per file:
// - the k loop: pipeline_staged.hpp (one, two or three stages, constant buffer indices, whole strips),
//   pipeline_pairs.hpp (strips fetched in pairs, staged amid the multiply, edge tiles shifted in) or
//   pipeline_async.hpp (a ring of shared buffers filled by tk::copy_async, no staging registers);
// - the multiply of a strip: warp_tiling.hpp (per-lane FMAs, or the FP64 tensor cores);
// - the stores: epilogue.hpp (the lean epilogue, split-K's partial tiles);
// - the strips' loads in either storage: common.hpp (Strip), so the multiply never knows how A and B lie.
// This file adds the block's place in the grid:
// - Rasterisation: blocks walk the tiles in groups of 8 tile-rows (matmul_detail::grouped_tile), so blocks
//   running together share rows of A and columns of B in L2.
// - Split-K: with `partial` set the grid holds splits x tiles blocks; block s covers k in
//   [s * k_per_split, (s + 1) * k_per_split) and writes its partial tile to `partial` (splits x M x N),
//   which matmul_splitk_reduce (splitk_reduce.hpp) sums into C. For skinny C and long K (64 x 64 x 65536)
//   this turns 1 block into hundreds. Batches (grid y) are not split.
// - Loads in VEC-element chunks (16 bytes) whatever the alignment: ALIGNED chunks are one vector access,
//   others VEC scalar ones, with the same registers and layout.
// Shared memory: buffers (1 or 2; with async copies, the stages) * BK * (BM + pad + BN (+ pad when B is transposed))
// elements.
#pragma once

#include <cstdint>

#include "common.hpp"
#include "config.hpp"
#include "epilogue.hpp"
#include "pipeline_async.hpp"
#include "pipeline_pairs.hpp"
#include "pipeline_staged.hpp"
#include "warp_tiling.hpp"

namespace tk::kernels {

// Cfg: a configuration entry (config.hpp: `static constexpr GemmConfig config`). The parameters are
// matmul_detail::GemmParams's fields: launchers fill the struct by name and launch with warp_tiled_args
// (common.hpp), the one place that lists them in this order.
template <class Cfg, class E, bool ALIGNED, bool TRANS_A, bool TRANS_B>
TK_KERNEL TK_LAUNCH_BOUNDS_MIN(WarpTilingOf<Cfg>::threads, Cfg::config.min_blocks) void matmul_warp_tiled(
    std::int64_t M, std::int64_t N, std::int64_t K, E alpha, const E* A, std::int64_t lda, std::int64_t sa, const E* B,
    std::int64_t ldb, std::int64_t sb, E beta, E* C, std::int64_t ldc, std::int64_t sc, std::int64_t k_per_split,
    E* partial, std::int64_t m_read, std::int64_t n_read) {
  using W = WarpTilingOf<Cfg>;
  constexpr int BM = W::bm, BN = W::bn, BK = W::bk, VEC = 16 / sizeof(E);
  constexpr bool PAIRS = Cfg::config.pipeline.pairs, ASYNC = Cfg::config.pipeline.async;
  constexpr int STAGES = Cfg::config.pipeline.stages;
  constexpr int BUFS = ASYNC ? STAGES : STAGES == 1 ? 1 : 2;  // shared buffers
  constexpr bool A_KMAJOR = matmul_detail::a_kmajor<TRANS_A>, B_KMAJOR = matmul_detail::b_kmajor<TRANS_B>;
  using SA = matmul_detail::Strip<E, BM, BK, VEC, W::threads, A_KMAJOR>;
  using SB = matmul_detail::Strip<E, BN, BK, VEC, W::threads, B_KMAJOR>;
  TK_SHARED_ARRAY(E, As, [BUFS][BK][BM + W::pad]);
  // B's strip is padded on a GPU when it is transposed on its way in, on a CPU by a cache line (common.hpp,
  // strip_pad), or for tensor-core fragment reads (warp_tiling.hpp: four k rows of eight elements, 4 apart
  // in the banks)
  constexpr int BPAD =
      W::mma_layout && tk::this_target == tk::Target::cuda ? 4 : matmul_detail::strip_pad<E, B_KMAJOR, true>;
  TK_SHARED_ARRAY(E, Bs, [BUFS][BK][BN + BPAD]);
  tk::Private<E, W::outputs> acc(E(0));

  const int tiles_m = static_cast<int>((M + BM - 1) / BM), tiles_n = static_cast<int>((N + BN - 1) / BN);
  const int tiles = tiles_m * tiles_n;
  const int split = tk::block_idx().x / tiles;
  const matmul_detail::TileCoord tile = matmul_detail::grouped_tile<8>(tk::block_idx().x % tiles, tiles_m, tiles_n);
  // The tile's first row and column of C; with pairs an edge tile computes the last whole tile of C instead
  // (m0, n0: pipeline_pairs.hpp, shift_in), and stores only from here on.
  const std::int64_t m_first = std::int64_t{tile.m} * BM, n_first = std::int64_t{tile.n} * BN;
  const std::int64_t m0 = PAIRS ? matmul_detail::shift_in<A_KMAJOR, VEC>(m_first, BM, M) : m_first;
  const std::int64_t n0 = PAIRS ? matmul_detail::shift_in<B_KMAJOR, VEC>(n_first, BN, N) : n_first;
  const std::int64_t kbeg = split * k_per_split;
  const std::int64_t kend = K < kbeg + k_per_split ? K : kbeg + k_per_split;
  const int strips = kend > kbeg ? static_cast<int>((kend - kbeg + BK - 1) / BK) : 0;
  // How far the strips' loads may reach along m and n: M and N, except along the lines of an operand stored
  // k-major (A transposed, B as stored), whose lines may be read to m_read and n_read (>= M and N: more
  // where a packed copy's lines are padded to whole chunks, launch.cpp). The last column (row) of tiles then
  // clamps its loads like the others (Strip::clamps); values read past M or N feed only outputs that are
  // never stored. (The parameters themselves, not a maximum computed here: cuda_square has no register to
  // spare for one, and spilled in TN.)
  const std::int64_t z = tk::block_idx().y;
  A += z * sa;
  B += z * sb;
  C += z * sc;
  matmul_detail::StripSource<E> src;
  src.A = A;
  src.lda = lda;
  src.B = B;
  src.ldb = ldb;
  src.xa = A_KMAJOR ? m_read : M;
  src.xb = B_KMAJOR ? n_read : N;
  src.m0 = m0;
  src.n0 = n0;
  src.kbeg = kbeg;
  src.kend = kend;
  src.strips = strips;
  if constexpr (PAIRS) {
    matmul_detail::pair_pipeline<Cfg, SA, SB, ALIGNED>(acc, As, Bs, src);
  } else if constexpr (ASYNC) {
    matmul_detail::async_pipeline<Cfg, SA, SB, ALIGNED>(acc, As, Bs, src);
  } else {
    matmul_detail::staged_pipeline<Cfg, SA, SB, ALIGNED>(acc, As, Bs, src);
  }
  const matmul_detail::Outputs<E> out{C, M, N, ldc, alpha, beta, partial};
  matmul_detail::warp_tiled_epilogue<W, Cfg::config.lean, PAIRS>(acc, out, {m0, n0, m_first, n_first, split});
}

}  // namespace tk::kernels
