// kernels/stencil/stencil5_streamed.hpp — tk::stencil_5point's `best`: each thread walks down a strip of
// rows, keeping the rows above, at and below the current one in registers.
//
// Technique: seed 000's data reuse taken into registers, with seed 004's advice for saturating the bus
// (several independent, wide loads in flight per thread). Thread (x, y) of a block owns V consecutive
// columns j .. j + V - 1 (j = j0 + V x) and ROWS consecutive rows starting at i0 + ROWS y. It loads the row
// above its strip and its first row, then for each row i of the strip loads row i + 1 (one V-wide access),
// the two neighbours left and right of its columns in row i (single floats: the neighbouring threads' data,
// in L1), forms the V outputs and slides its three-row window down. Loads per output: (ROWS + 2) / ROWS
// rows of V floats plus 2 / V floats, against 5 floats for naive.hpp and (TY + 2)(TX + 2) / (TY TX) staged
// through shared memory, with a barrier, for smem_tiled.hpp. The strip's loads do not depend on each other:
// with the row loop unrolled a thread has ROWS + 2 wide loads in flight, what a memory-bound kernel needs on
// a GPU whose bus wants ~40 KB in flight per SM. No shared memory, no barrier (but in the CPUs' STAGED form below).
// V > 1 needs rows aligned to V floats (in, out, ld_in and ld_out multiples of V); the launcher picks V = 1
// otherwise. Shapes (launch.cpp): H100 V = 2, ROWS = 4 on 64 x 8 threads, 99% of cudaMemcpy at 8192^2.
// Blocks whose strip and halo lie inside the array (block-uniform test) run without bounds tests; blocks
// whose columns and strip rows lie inside read a halo row outside as zeros, a test per row (StripEdge::rows);
// on CPUs blocks whose rows lie inside zero the neighbours past the first and last column (StripEdge::ends)
// or, where some of their columns lie outside, test each column (StripEdge::cols); the others test each element
// (zero outside, store only inside). The sum is formed in the same order as naive.hpp. Grid: x over column
// blocks of V block_dim.x columns, y over row segments of ROWS block_dim.y rows, which each block steps through
// by grid_dim.y on a GPU; on a CPU each block takes a run of consecutive segments (grid_dim.y runs).
// On a CPU a thread's strip is a loop inside the lanes' vector loop (V = 1: lanes are consecutive columns).
// Preconditions: in and out do not overlap. Work counted by the benchmark: 8 bytes per element.
#pragma once

#include <cstdint>

#include "halo.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/vec.hpp"

namespace tk::kernels {

// Which bounds a block's strip may cross (block-uniform):
// - inside: the strip and its halo lie inside the array, no test;
// - rows: the columns and their halo lie inside, and so do the strip's rows, but the row above or below it
//   may not (a block in the first or last row segment, every block of a grid a few rows tall). Such a halo
//   row is read from the nearest row inside and replaced by zeros (the same choice for every thread of a row
//   of threads): loads and stores stay unconditional, and the CPU's vectorised loop over the threads keeps
//   its vectors (a test per element, the `all` path, costs it them);
// - cols (CPUs only, see the kernel): the rows and halo rows lie inside, the columns may not: each column is
//   tested, a load or store under its test, which gcc makes a masked vector access;
// - ends (CPUs only): as cols, but every column of the block lies inside the array (the first block of a grid at
//   least a block wide, the last where the width is a multiple of the block's): only the first column's left
//   neighbour and the last column's right one may lie outside. They are read unconditionally, as the element
//   before the row and the one after it (the last element, or padding, of the row above; the first of the row
//   below, or padding), both in the array because the strip's rows are neither its first nor its last row, and
//   replaced by zeros: a select, not a test around a load. On an AVX2 host (Zen 3) gcc did not make cols's
//   tested loads masked vectors: the first and last of 8192^2's eight blocks of 1024 columns, a quarter of the
//   elements, took 40% of the kernel's time, scalar;
// - all: any element may lie outside; each is tested (zero outside, store only inside). Scalar on a CPU: a
//   branch-free form with clamped indices vectorised with gathers, and ran the first and last column blocks
//   (7% of 5000 x 7001) slower than the tests do (whole call 17 -> 20 ms, host D).
enum class StripEdge { inside, rows, cols, ends, all };

// v[k] = x(i, j + k), k < V.
template <StripEdge E, int V>
TK_DEVICE void stencil5_load_row(float (&v)[V], const float* __restrict__ in, std::int64_t ld, std::int64_t rows,
                                 std::int64_t cols, std::int64_t i, std::int64_t j) {
  if constexpr (E == StripEdge::all) {
    TK_UNROLL
    for (int k = 0; k < V; ++k) v[k] = read_or_zero<true>(in, ld, rows, cols, i, j + k);
  } else if constexpr (E == StripEdge::cols && V == 1) {
    v[0] = j < cols ? in[i * ld + j] : 0.f;
  } else if constexpr (E == StripEdge::cols) {
    TK_UNROLL
    for (int k = 0; k < V; ++k) v[k] = j + k < cols ? in[i * ld + j + k] : 0.f;
  } else {
    bool ok = true;
    std::int64_t ic = i;
    if constexpr (E == StripEdge::rows) {
      ok = (i >= 0) & (i < rows);
      ic = i > 0 ? i : 0;  // (a max and a min, not nested tests: gcc keeps the load unconditional)
      ic = ic < rows - 1 ? ic : rows - 1;
    }
    if constexpr (V == 1) {
      const float x = in[ic * ld + j];
      v[0] = ok ? x : 0.f;
    } else {
      const Vec<float, V> w = load_vec<V>(in + ic * ld + j);
      TK_UNROLL
      for (int k = 0; k < V; ++k) v[k] = ok ? w.v[k] : 0.f;
    }
  }
}

// Output (ir, j) goes to out[(ir - oi) * ld_out + j - oj]: oi = oj = 0 for the array itself, the strip's first row
// and column for a block's staging buffer.
template <StripEdge E, int V, int ROWS>
TK_DEVICE void stencil5_streamed_strip(std::int64_t i0, std::int64_t j0, std::int64_t rows, std::int64_t cols,
                                       const float* __restrict__ in, std::int64_t ld_in, float* __restrict__ out,
                                       std::int64_t ld_out, std::int64_t oi, std::int64_t oj, float center,
                                       float side) {
  constexpr bool all = E == StripEdge::all;
  TK_THREADS(th) {
    const std::int64_t i = i0 + std::int64_t{th.y} * ROWS, j = j0 + std::int64_t{th.x} * V;
    if (all && (i >= rows || j >= cols)) TK_SKIP();
    float up[V], mid[V], down[V];
    stencil5_load_row<E, V>(up, in, ld_in, rows, cols, i - 1, j);
    stencil5_load_row<E, V>(mid, in, ld_in, rows, cols, i, j);
    TK_UNROLL
    for (int r = 0; r < ROWS; ++r) {
      const std::int64_t ir = i + r;
      stencil5_load_row<E, V>(down, in, ld_in, rows, cols, ir + 1, j);
      float left, right;
      if constexpr (E == StripEdge::cols) {
        left = j >= 1 && j - 1 < cols ? in[ir * ld_in + j - 1] : 0.f;
        right = j + V < cols ? in[ir * ld_in + j + V] : 0.f;
      } else if constexpr (E == StripEdge::ends) {
        const float l = in[ir * ld_in + j - 1], r = in[ir * ld_in + j + V];  // (in the array: see StripEdge)
        left = j >= 1 ? l : 0.f;
        right = j + V < cols ? r : 0.f;
      } else {
        left = read_or_zero<all>(in, ld_in, rows, cols, ir, j - 1);
        right = read_or_zero<all>(in, ld_in, rows, cols, ir, j + V);
      }
      float o[V];
      TK_UNROLL
      for (int k = 0; k < V; ++k) {
        const float w = k == 0 ? left : mid[k - 1], e = k == V - 1 ? right : mid[k + 1];
        o[k] = center * mid[k] + side * (up[k] + down[k] + w + e);
      }
      float* dst = out + (ir - oi) * ld_out + (j - oj);
      if constexpr (V == 1) {  // (without a loop: gcc's vectoriser took a one-trip loop for control flow)
        if (E == StripEdge::cols ? j < cols : !all || (ir < rows && j < cols)) dst[0] = o[0];
      } else if constexpr (all || E == StripEdge::cols) {
        TK_UNROLL
        for (int k = 0; k < V; ++k) {
          if (ir < rows && j + k < cols) dst[k] = o[k];
        }
      } else {
        Vec<float, V> w;
        TK_UNROLL
        for (int k = 0; k < V; ++k) w.v[k] = o[k];
        store_vec<V>(dst, w);
      }
      TK_UNROLL
      for (int k = 0; k < V; ++k) {
        up[k] = mid[k];
        mid[k] = down[k];
      }
    }
  }
}

// STAGED (CPUs): each strip's outputs go to a staging buffer (the block's dynamic shared memory, width x height
// floats), which thread 0 then writes to `out` with tk::stream_floats: whole lines of `out` past the caches, so a
// grid larger than the caches is not read before it is written (plain stores read each line of `out` first: 12
// bytes of traffic per element instead of 8). And before each strip thread 0 prefetches the block's columns of
// the row stencil5_prefetch_rows below the strip's lowest read (tk::prefetch): a block's rows are short runs
// (4 KiB at 1024 columns), each a new stream that the hardware prefetchers would have to find again. (One row
// a strip: made for the CPU's wide blocks, whose strips are one row.) The block ends with tk::stream_fence().
constexpr int stencil5_prefetch_rows = 2;

// SWEEP (CPUs): a block's strips cross the whole width of the grid, block-wide piece by piece, before the next row
// segment (a grid of one block column): each thread then reads and writes whole rows in order, one sequential
// stream each way, where walking down a block's own columns makes every row a new short stream (launch.cpp,
// run_cpu_rows).
template <int V, int ROWS, bool STAGED = false, bool SWEEP = false>
TK_KERNEL void stencil5_streamed(std::int64_t rows, std::int64_t cols, const float* __restrict__ in, std::int64_t ld_in,
                                 float* __restrict__ out, std::int64_t ld_out, float center, float side) {
  static_assert(!SWEEP || tk::this_target == tk::Target::cpu, "row sweeps are a CPU order");
  const std::int64_t width = std::int64_t{tk::block_dim().x} * V, height = std::int64_t{tk::block_dim().y} * ROWS;
  const std::int64_t col_blocks = SWEEP ? (cols + width - 1) / width : 1;
  const std::int64_t segments = (rows + height - 1) / height;
  // StripEdge::cols on CPUs only: on an H200 a fourth strip in the kernel took 8192^2 from 98.7% to 85.7% of
  // cudaMemcpy, every block (the kernel's registers are its largest strip's)
  constexpr bool cols_strip = tk::this_target == tk::Target::cpu;
  // GPUs: the blocks of grid y take every grid_dim.y-th segment; CPUs: each a run of consecutive segments, so that a
  // block walks down its columns with the rows above it still in cache, the runs as even as whole segments allow (runs
  // of ceil(segments / grid_dim.y) left the last blocks none: 17 rows in 16 blocks gave one thread 16 rows, the other 1)
  constexpr bool cpu = tk::this_target == tk::Target::cpu;
  const std::int64_t gy = tk::grid_dim().y, by = tk::block_idx().y;
  const std::int64_t first = cpu ? by * segments / gy : by;
  const std::int64_t end = cpu ? (by + 1) * segments / gy : segments;
  const std::int64_t step = cpu ? 1 : gy;
  float* stage = nullptr;
  if constexpr (STAGED) stage = tk::dynamic_shared<float>();
  float* const dst = STAGED ? stage : out;
  const std::int64_t ld_dst = STAGED ? width : ld_out;
  for (std::int64_t t = first; t < end; t += step)
    for (std::int64_t jb = 0; jb < col_blocks; ++jb) {
      const std::int64_t i0 = t * height;
      const std::int64_t j0 = (SWEEP ? jb : std::int64_t{tk::block_idx().x}) * width;
      const std::int64_t oi = STAGED ? i0 : 0, oj = STAGED ? j0 : 0;
      const bool cols_inside = j0 >= 1 && j0 + width + 1 <= cols;  // block-uniform
      const bool rows_inside = i0 >= 1 && i0 + height + 1 <= rows;
      if constexpr (STAGED) {
        TK_THREAD_ZERO(th) {
          const std::int64_t r = i0 + height + stencil5_prefetch_rows;  // (the strip reads up to row i0 + height)
          const std::int64_t w = cols - j0 < width ? cols - j0 : width;
          if (r < rows) {
            const float* p = in + r * ld_in + j0;
            for (std::int64_t c = 0; c < w; c += 16) tk::prefetch(p + c);
            tk::prefetch(p + w - 1);  // (the last line, where the row does not start on one)
          }
        }
      }
      if (cols_inside && rows_inside)
        stencil5_streamed_strip<StripEdge::inside, V, ROWS>(i0, j0, rows, cols, in, ld_in, dst, ld_dst, oi, oj, center,
                                                            side);
      else if (cols_inside && i0 + height <= rows)
        stencil5_streamed_strip<StripEdge::rows, V, ROWS>(i0, j0, rows, cols, in, ld_in, dst, ld_dst, oi, oj, center,
                                                          side);
      else if (cols_strip && rows_inside && j0 + width <= cols)
        stencil5_streamed_strip<cols_strip ? StripEdge::ends : StripEdge::all, V, ROWS>(
            i0, j0, rows, cols, in, ld_in, dst, ld_dst, oi, oj, center, side);
      else if (cols_strip && rows_inside)
        stencil5_streamed_strip<cols_strip ? StripEdge::cols : StripEdge::all, V, ROWS>(
            i0, j0, rows, cols, in, ld_in, dst, ld_dst, oi, oj, center, side);
      else
        stencil5_streamed_strip<StripEdge::all, V, ROWS>(i0, j0, rows, cols, in, ld_in, dst, ld_dst, oi, oj, center,
                                                         side);
      if constexpr (STAGED) {
        TK_BARRIER();
        TK_THREAD_ZERO(th) {  // the strip's rows and columns inside the array, the rest of each row's buffer unused
          const std::int64_t h = rows - i0 < height ? rows - i0 : height, w = cols - j0 < width ? cols - j0 : width;
          for (std::int64_t r = 0; r < h; ++r) tk::stream_floats(out + (i0 + r) * ld_out + j0, stage + r * width, w);
        }
        TK_BARRIER();
      }
    }
  if constexpr (STAGED) {
    TK_THREAD_ZERO(th) { tk::stream_fence(); }
  }
}

}  // namespace tk::kernels
