// kernels/transpose/cpu_skinny.hpp — tk::transpose's `best` on CPUs for a matrix of few rows (at most 64) whose
// `out` is contiguous (ld_out == rows: `out` is `cols` short rows back to back): an interleave of a few long rows
// into one array. As squares (cpu_squares.hpp) or strips (cpu_strips.hpp), each short row of `out` is a line or
// less, written through the cache in pieces, every line read before it is written.
//
// Technique: a block is one thread and a chunk of the columns. It transposes its chunk into a buffer of its own
// (64 KiB, in L1 or L2; tk::transpose_strips16 with plain stores; under 16 rows interleaved), which is then the
// chunk of `out` as `out` holds it, contiguous, and writes it out with tk::stream_floats: whole lines streamed past
// the caches, the partial lines at a chunk's two ends plain. A block ends with tk::stream_fence(). (Few columns with
// a contiguous `in` need nothing of the kind: the strips write long rows of `out`.)
// BUFFER: the floats of a block's buffer (skinny_buffer_floats; a template parameter, so that a GPU build,
// which never runs these kernels, does not compile them). Preconditions: as naive.hpp; rows <= skinny_max_rows,
// ld_out == rows. Block: 1 thread. Work counted: 8 bytes
// per element.
#pragma once

#include <cstdint>

#include "tilekit/kernel.hpp"

namespace tk::kernels {

constexpr std::int64_t skinny_buffer_floats = 16384;  // 64 KiB a block
constexpr std::int64_t skinny_max_rows = 64;          // at least 256 columns a chunk

// out contiguous (ld_out == rows), rows <= skinny_max_rows: block x takes columns [x * chunk, ...) of `in`, in
// pieces of 256 transposed into the buffer (tk::transpose_strips16 without streaming), then streamed out.
template <std::int64_t BUFFER>
TK_KERNEL void transpose_interleave(std::int64_t rows, std::int64_t cols, std::int64_t chunk,
                                    const float* __restrict__ in, std::int64_t ld_in, float* __restrict__ out) {
  const std::int64_t c0 = std::int64_t{tk::block_idx().x} * chunk;
  const std::int64_t n = cols - c0 < chunk ? cols - c0 : chunk;
  TK_THREADS(th) {
    if (th.id == 0 && n > 0) {
      alignas(64) float buf[BUFFER];
      if (rows <= tk::interleave_vector_rows) {  // 2-8 rows with AVX-512 (one row is a copy: tk::transpose): permutes
        tk::interleave_rows(buf, in + c0, ld_in, static_cast<int>(rows), n);
      } else if (rows < 16) {  // fewer rows than a square: element by element, along the short rows of `out`
        // (this loop here ran 9-15 rows at 23-29 GB/s where the same loop in tk::interleave_rows ran 13-19, Zen 4,
        // 2 threads, 2026-12-07: the compiler's code for it, not examined)
        for (std::int64_t j = 0; j < n; ++j) {
          for (std::int64_t i = 0; i < rows; ++i) buf[j * rows + i] = in[i * ld_in + c0 + j];
        }
      } else {
        for (std::int64_t q = 0; q < n; q += 256) {
          const int nc = n - q < 256 ? static_cast<int>(n - q) : 256;
          tk::transpose_strips16<false>(buf + q * rows, rows, in + c0 + q, ld_in, rows, nc);
        }
      }
      tk::stream_floats(out + c0 * rows, buf, n * rows);
    }
  }
  TK_THREADS(th) {
    if (th.id == 0) tk::stream_fence();
  }
}

// in contiguous (ld_in == cols), cols < 16: block x takes rows [x * chunk, ...) of `in`, split into its columns
// in the buffer (tk::deinterleave_columns), each then a piece of a row of `out`, streamed out.
template <std::int64_t BUFFER>
TK_KERNEL void transpose_deinterleave(std::int64_t rows, std::int64_t cols, std::int64_t chunk,
                                      const float* __restrict__ in, float* __restrict__ out, std::int64_t ld_out) {
  const std::int64_t r0 = std::int64_t{tk::block_idx().x} * chunk;
  const std::int64_t n = rows - r0 < chunk ? rows - r0 : chunk;
  TK_THREADS(th) {
    if (th.id == 0 && n > 0) {
      alignas(64) float buf[BUFFER];
      tk::deinterleave_columns(buf, n, in + r0 * cols, static_cast<int>(cols), n);
      for (std::int64_t j = 0; j < cols; ++j) tk::stream_floats(out + j * ld_out + r0, buf + j * n, n);
    }
  }
  TK_THREADS(th) {
    if (th.id == 0) tk::stream_fence();
  }
}

}  // namespace tk::kernels
