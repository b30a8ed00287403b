// kernels/transpose/launch.cpp — the transpose launchers, compiled once per target.
//
// Grid math: x over the tile columns of `in`, y over its tile rows up to 65535 (a GPU grid's y limit; the
// kernels step through the rest). Shapes, tile x block (reasons in the kernel files):
//   naive          32 x 32 threads, one element each (the seed's)
//   smem, padded   32 x 32 tile: GPUs 32 x 8 threads (4 elements each), CPUs 32 x 32 (one each)
//   best, CPUs     T x T tile of 16 x 16 squares, one per thread, moved through registers with streamed
//                  stores (cpu_squares.hpp), T = 256 halved for small grids (cpu_tile.hpp); skinny
//                  shapes too. Where `out`'s rows all start the same number of floats past a 64-byte line (ld_out
//                  a multiple of 16, `out` off a line: a std::vector's data), its first rows' heads by the squares'
//                  edge path and the rest as aligned squares. Elsewhere, where `out`'s rows are not 64-byte aligned
//                  and the build has AVX2 or AVX-512, either
//                  256 columns (16 strips of 16) by H rows, one thread each, every whole line of `out` streamed
//                  (cpu_strips.hpp; H in cpu_tile.hpp): with AVX-512 always where the rows fall in few of the L1's
//                  sets (a multiple of 1024 floats apart or near it: cpu_tile.hpp, strips_for_stride); elsewhere the
//                  strips or the squares, whichever won the race on the process's first two calls of at least
//                  2^23 elements (cpu_tile.hpp, races; the strips until then). The AVX2 copy keeps the squares
//                  on crowded rows, on matrices of at most 64 rows or 16 columns and on those whose two arrays
//                  fit half the last-level cache (cpu_tile.hpp, avx2_keeps_squares).
//                  At most 64 rows with `out` contiguous: chunks of columns transposed into a thread's
//                  buffer and streamed out (cpu_skinny.hpp)
//   best, GPUs     by the shape (shaped.hpp), 256 threads:
//                  - fewer than 32 rows: a TR x (1024 / TR) tile, TR the power of two at or above rows;
//                  - else fewer than 32 columns: a (1024 / TC) x TC tile, TC likewise, with sector-aligned
//                    writes when out's rows are not 32-byte aligned;
//                  - else rows of `out` 32-byte aligned (ld_out a multiple of 8, out aligned): the padded
//                    32 x 32 tile on 32 x 8 threads (multi_element.hpp);
//                  - else a 32 x 32 tile with sector-aligned writes, the tiles inside the matrix without
//                    bounds tests, for 8 blocks per SM (transpose_shaped_fast).
// TK_TRANSPOSE_TUNE=<n> changes `best` for tuning runs on new hardware. On a CPU, n = 64, 128 or 256 forces
// the squares on a tile of that side (cpu_tile.hpp has the others). On a GPU (GPU builds only): n = 1..4 give
// aligned shapes the n-th of {64 x 16, 64 x 8, 64 x 4, 32 x 16} (tile width x block rows) instead of 32 x 8;
// unaligned ones get the fast 32 x 32 tile on 512 threads (n = 5), the plain transpose_shaped 32 x 32 (n = 8, the
// tile before the fast one), the fast tile compiled for 6 blocks per SM instead of 8 (n = 10), or a fast 64 x 32
// for 6 (n = 12); skinny ones tiles of 2048 (n = 6) or 512 (n = 7) elements instead of 1024.
// docs/history/performance-log.md#nvidia-h100-80gb-hbm3-sxm-132-sms-driver-58015904-nvcc-130-2026-11-24 has what each measured.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cpu_skinny.hpp"
#include "cpu_squares.hpp"
#include "cpu_strips.hpp"
#include "cpu_tile.hpp"
#include "multi_element.hpp"
#include "naive.hpp"
#include "shaped.hpp"
#include "smem.hpp"
#include "smem_padded.hpp"
#include "tilekit/detail/cpu_threads.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/detail/launchers_transpose.hpp"
#include "tilekit/detail/pow2.hpp"
#include "tilekit/error.hpp"
#include "tilekit/kernel.hpp"

namespace tk::launchers::TK_TARGET_ID {
namespace {

constexpr int max_grid_y = 65535;
constexpr bool on_cpu = tk::this_target == Target::cpu;
constexpr int seed_tile = 32;               // seed 003: 32 x 32 tiles
constexpr int seed_rows = on_cpu ? 32 : 8;  // block rows of smem and smem_padded
constexpr int best_tile = 32;               // GPUs; CPUs: cpu_tile.hpp
constexpr int best_rows = 8;
// The CPU executor running the GPU launchers' shapes (tests): the tuning-only kernels are left out there.
#if defined(TK_CPU_AS_CUDA) || defined(TK_CPU_AS_HIP)
constexpr bool tuning_kernels = false;
#else
constexpr bool tuning_kernels = !on_cpu;
#endif

Dim3 tile_grid(std::int64_t rows, std::int64_t cols, int tile) {
  const std::int64_t gx = (cols + tile - 1) / tile, gy = (rows + tile - 1) / tile;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 tiles");
  return {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1};
}

template <int TILE, int ROWS, class Kernel, class... Args>
void run(const Device& dev, const char* name, Kernel kernel, std::int64_t rows, std::int64_t cols, Args... args) {
  tk::launch(dev, {name, tile_grid(rows, cols, TILE), {TILE, ROWS, 1}, 0}, kernel, rows, cols, args...);
}

[[maybe_unused]] int tune_config() { return tk::detail::knobs().transpose_tune; }

template <int TILE, int ROWS>
void run_best(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in, float* out,
              std::int64_t ld_out) {
  run<TILE, ROWS>(dev, "transpose_multi_element", tk::kernels::transpose_multi_element<TILE, ROWS>, rows, cols, in,
                  ld_in, out, ld_out);
}

// CPUs: squares of 16 x 16 through registers (cpu_squares.hpp), (T / 16)^2 threads per T x T tile.
template <int TILE>
[[maybe_unused]] void run_squares(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in,
                                  std::int64_t ld_in, float* out, std::int64_t ld_out) {
  tk::launch(dev, {"transpose_squares", tile_grid(rows, cols, TILE), {TILE / 16, TILE / 16, 1}, 0},
             &tk::kernels::transpose_squares<TILE>, rows, cols, in, ld_in, out, ld_out);
}

template <int TR, int TC, int ALIGN, int threads = 256>
void run_shaped(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                float* out, std::int64_t ld_out) {
  const std::int64_t gx = (cols + TC - 1) / TC,
                     gy = (rows + tk::kernels::TransposeShapedTile<TR, TC, ALIGN>::reach + TR - 1) / TR;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 tiles");
  tk::launch(dev,
             {"transpose_shaped",
              {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1},
              {threads, 1, 1},
              0},
             tk::kernels::transpose_shaped<TR, TC, threads, ALIGN>, rows, cols, in, ld_in, out, ld_out);
}

// The large unaligned shapes' tile (shaped.hpp, transpose_shaped_fast): compiled for `minb` blocks per
// multiprocessor, by default a full one (2048 threads: 32 registers a thread at 256).
template <int TR, int TC, int threads = 256, int minb = 2048 / threads>
void run_shaped_fast(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                     float* out, std::int64_t ld_out) {
  const std::int64_t gx = (cols + TC - 1) / TC;
  const std::int64_t gy = (rows + tk::kernels::TransposeShapedTile<TR, TC, 8>::reach + TR - 1) / TR;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 tiles");
  const Dim3 grid{static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1};
  tk::launch(dev, {"transpose_shaped_fast", grid, {threads, 1, 1}, 0},
             tk::kernels::transpose_shaped_fast<TR, TC, threads, 8, minb>, rows, cols, in, ld_in, out, ld_out);
}

// Skinny matrices: fewer than 32 rows (ALIGN unused), or else fewer than 32 columns, in tiles of ELEMS; the
// narrow side of the tile is the power of two at or above the matrix's.
template <int ELEMS>
void run_skinny(const Device& dev, bool aligned, std::int64_t rows, std::int64_t cols, const float* in,
                std::int64_t ld_in, float* out, std::int64_t ld_out) {
  if (rows < 32) {
    return tk::detail::with_pow2_at_least<32>(rows, [&](auto tr) {
      constexpr int TR = decltype(tr)::value;
      run_shaped<TR, ELEMS / TR, 0>(dev, rows, cols, in, ld_in, out, ld_out);
    });
  }
  tk::detail::with_pow2_at_least<32>(cols, [&](auto tc) {
    constexpr int TC = decltype(tc)::value;
    if (aligned) return run_shaped<ELEMS / TC, TC, 0>(dev, rows, cols, in, ld_in, out, ld_out);
    run_shaped<ELEMS / TC, TC, 8>(dev, rows, cols, in, ld_in, out, ld_out);
  });
}

// The CPU `best` tile for a rows x cols matrix (cpu_tile.hpp states the model), or the side that
// TK_TRANSPOSE_TUNE forces.
[[maybe_unused]] tk::kernels::transpose_cpu::Tile cpu_tile(const Device&, std::int64_t rows, std::int64_t cols) {
  const int forced = tk::detail::knobs().transpose_tune;
  if (forced == 64 || forced == 128 || forced == 256) return {forced, "TK_TRANSPOSE_TUNE"};
  return tk::kernels::transpose_cpu::tile_for(rows, cols, tk::detail::cpu_block_slots());
}

// CPU `best` as squares (cpu_squares.hpp), on the tile that cpu_tile.hpp picks.
template <int = 0>
void run_cpu_squares(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                     float* out, std::int64_t ld_out) {
  switch (cpu_tile(dev, rows, cols).side) {
    case 64: return run_squares<64>(dev, rows, cols, in, ld_in, out, ld_out);
    case 256: return run_squares<256>(dev, rows, cols, in, ld_in, out, ld_out);
    default: return run_squares<128>(dev, rows, cols, in, ld_in, out, ld_out);
  }
}

// CPU `best` where `out`'s rows are not 64-byte aligned: blocks of 256 columns by H rows (cpu_strips.hpp).
template <int = 0>
void run_cpu_strips(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                    float* out, std::int64_t ld_out) {
  const int forced = tk::detail::knobs().transpose_tune;
  const std::int64_t h = forced >= 512 && forced <= 4096 && forced % 16 == 0
                             ? forced
                             : tk::kernels::transpose_cpu::strip_rows_for(rows, cols, tk::detail::cpu_block_slots());
  const std::int64_t gx = (cols + 16 * tk::kernels::strips_per_block - 1) / (16 * tk::kernels::strips_per_block);
  const std::int64_t gy = (rows + h - 1) / h;
  if (gx > 0x7fffffff) tk::detail::fail("tk::transpose: ", cols, " columns need more than 2^31 - 1 blocks");
  tk::launch(dev,
             {"transpose_strips",
              {static_cast<int>(gx), static_cast<int>(std::min<std::int64_t>(gy, max_grid_y)), 1},
              {1, 1, 1},
              0},
             &tk::kernels::transpose_strips<tk::kernels::strips_per_block>, rows, cols, h, in, ld_in, out, ld_out);
}

// The race between squares and strips where `out`'s rows are not 64-byte aligned and crowd no L1 set (cpu_tile.hpp
// says why and how): one per process and copy of the kernels, never destroyed (tilekit may be called during exit).
struct UnalignedRace {
  std::mutex m;
  bool busy = false;                     // a call is racing
  int calls = 0;                         // calls raced
  double strips = 1e30, squares = 1e30;  // the best seconds per element of each
  std::atomic<int> pick{0};              // 0 not yet, 1 squares, 2 strips
};
[[maybe_unused]] UnalignedRace& unaligned_race() {
  static UnalignedRace* race = new UnalignedRace;
  return *race;
}

// CPU `best` for unaligned rows of `out` that crowd no L1 set: the race's pick; before it, the strips, or a race
// where this call is large enough and no other call is racing.
template <int = 0>
void run_cpu_unaligned(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                       float* out, std::int64_t ld_out) {
  namespace tc = tk::kernels::transpose_cpu;
  UnalignedRace& race = unaligned_race();
  const int pick = race.pick.load(std::memory_order_acquire);
  if (pick == 1) return run_cpu_squares(dev, rows, cols, in, ld_in, out, ld_out);
  if (pick == 0 && tc::races(rows, cols)) {
    bool mine = false, strips_first = false;
    {
      const std::lock_guard<std::mutex> lock(race.m);
      if (!race.busy && race.calls < tc::race_calls) {
        race.busy = mine = true;
        strips_first = race.calls % 2 == 0;
      }
    }
    if (mine) {
      const std::int64_t c1 = tc::race_split(cols);
      using clock = std::chrono::steady_clock;
      const auto seconds = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
      };
      double t_strips = 0, t_squares = 0;
      try {
        const auto strips = [&] { run_cpu_strips(dev, rows, c1, in, ld_in, out, ld_out); };
        const auto squares = [&] { run_cpu_squares(dev, rows, cols - c1, in + c1, ld_in, out + c1 * ld_out, ld_out); };
        const auto t0 = clock::now();
        strips_first ? strips() : squares();
        const auto t1 = clock::now();
        strips_first ? squares() : strips();
        const auto t2 = clock::now();
        t_strips = strips_first ? seconds(t0, t1) : seconds(t1, t2);
        t_squares = strips_first ? seconds(t1, t2) : seconds(t0, t1);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(race.m);
        race.busy = false;
        throw;
      }
      const std::lock_guard<std::mutex> lock(race.m);
      race.busy = false;
      race.strips = std::min(race.strips, t_strips / static_cast<double>(rows * c1));
      race.squares = std::min(race.squares, t_squares / static_cast<double>(rows * (cols - c1)));
      if (++race.calls == tc::race_calls)
        race.pick.store(tc::squares_won(race.strips, race.squares) ? 1 : 2, std::memory_order_release);
      return;
    }
  }
  return run_cpu_strips(dev, rows, cols, in, ld_in, out, ld_out);
}

// What the race has picked, for tk::transpose_tile_choice.
[[maybe_unused]] std::string unaligned_told() {
  UnalignedRace& race = unaligned_race();
  const std::lock_guard<std::mutex> lock(race.m);
  const int pick = race.pick.load(std::memory_order_acquire);
  if (pick == 0)
    return "the strips until measured (raced " + std::to_string(race.calls) + " of " +
           std::to_string(tk::kernels::transpose_cpu::race_calls) + " calls)";
  const auto ns = [](double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", s * 1e9);
    return std::string(b);
  };
  return std::string(pick == 1 ? "the squares" : "the strips") + ", measured here: strips " + ns(race.strips) +
         " ns and squares " + ns(race.squares) + " ns per element";
}

// CPU `best`: the rule at the top of this file. (A template, instantiated by the CPU target alone: its kernels
// keep 64 KiB buffers that a GPU build need not compile.) Every shape, skinny ones too (fewer than 32 rows took
// the GPU's shaped tile: 16 x 2^20 at 4.7-5.5 GB/s on a 2-core EPYC, 23.6-30.4 as squares;
// docs/history/performance-log.md#cpu-transpose-16-x-16-squares-through-registers-streamed-stores-2026-11-25-issue-13).
template <int = 0>
void run_best_cpu(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                  float* out, std::int64_t ld_out) {
  const auto blocks = [](std::int64_t n, std::int64_t chunk) {
    const std::int64_t b = (n + chunk - 1) / chunk;
    if (b > 0x7fffffff) tk::detail::fail("tk::transpose: ", n, " elements of a side need more than 2^31 - 1 blocks");
    return static_cast<int>(b);
  };
  // Few rows, `out` contiguous: fewer than 16 interleaved into the buffer (up to 8 rows by permutes with AVX-512,
  // tk::interleave_rows; element by element elsewhere; measured with AVX-512 only), 16 to 64 as strips there
  // (AVX-512 builds; the AVX2 copy keeps its 8 x 8 squares)
  if (ld_out == rows && (rows < 16 || (tk::transpose_skinny_vectors && rows <= tk::kernels::skinny_max_rows))) {
    const std::int64_t chunk = tk::kernels::skinny_buffer_floats / rows;
    return tk::launch(dev, {"transpose_interleave", {blocks(cols, chunk), 1, 1}, {1, 1, 1}, 0},
                      &tk::kernels::transpose_interleave<tk::kernels::skinny_buffer_floats>, rows, cols, chunk, in,
                      ld_in, out);
  }
  if (tk::transpose_skinny_vectors && cols < 16 && ld_in == cols) {
    const std::int64_t chunk = tk::kernels::skinny_buffer_floats / cols;
    return tk::launch(dev, {"transpose_deinterleave", {blocks(rows, chunk), 1, 1}, {1, 1, 1}, 0},
                      &tk::kernels::transpose_deinterleave<tk::kernels::skinny_buffer_floats>, rows, cols, chunk, in,
                      out, ld_out);
  }
  // `out`'s rows 64-byte aligned (streamed squares), a build without the strips or TK_TRANSPOSE_TUNE forcing them: the
  // squares; TK_TRANSPOSE_TUNE forcing the strips: the strips; in the AVX2 copy (strips, no skinny kernels) narrow
  // matrices, rows that crowd the L1's sets and matrices that fit the last-level cache: the squares (cpu_tile.hpp,
  // avx2_keeps_squares); elsewhere rows that
  // crowd the L1's sets: the strips; else the race (cpu_tile.hpp)
  const int tune = tk::detail::knobs().transpose_tune;
  // `out`'s rows all the same number of floats past a line (ld_out a multiple of 16 floats, out off 64 bytes: a
  // user's std::vector, 16-byte aligned, of a matrix whose rows are a multiple of 16): the first s rows of `in`
  // (the heads of out's rows, up to their first whole line) go through the squares' edge path, and the rest, whose
  // rows of `out` now start on a line, as streamed squares (a std::vector's 8192^2 took the strips, unstreamed, at
  // 42% of memcpy on Zen 5, where tilekit's aligned buffers ran at 69%).
  const std::uintptr_t off = reinterpret_cast<std::uintptr_t>(out) % 64;
  if (tune == 0 && off != 0 && off % sizeof(float) == 0 && ld_out % 16 == 0) {
    const std::int64_t s = static_cast<std::int64_t>((64 - off) / sizeof(float));
    if (rows >= s + 16) {
      run_cpu_squares(dev, s, cols, in, ld_in, out, ld_out);
      return run_best_cpu(dev, rows - s, cols, in + s * ld_in, ld_in, out + s, ld_out);
    }
  }
  const bool lines = reinterpret_cast<std::uintptr_t>(out) % 64 == 0 && ld_out % 16 == 0;
  const bool squares_forced = tune == 1 || tune == 64 || tune == 128 || tune == 256;
  namespace tc = tk::kernels::transpose_cpu;
  if (lines || !tk::transpose_strip_streams || squares_forced)
    return run_cpu_squares(dev, rows, cols, in, ld_in, out, ld_out);
  if (tune >= 512 && tune <= 4096 && tune % 16 == 0) return run_cpu_strips(dev, rows, cols, in, ld_in, out, ld_out);
  if (!tk::transpose_skinny_vectors && tc::avx2_keeps_squares(rows, cols, ld_out, dev.props().l3_bytes))
    return run_cpu_squares(dev, rows, cols, in, ld_in, out, ld_out);
  if (tc::strips_for_stride(ld_out)) return run_cpu_strips(dev, rows, cols, in, ld_in, out, ld_out);
  return run_cpu_unaligned(dev, rows, cols, in, ld_in, out, ld_out);
}

// GPU `best`: the rule at the top of this file. (A template, instantiated by GPU targets alone.)
template <int = 0>
void run_best_gpu(const Device& dev, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                  float* out, std::int64_t ld_out) {
  const int tune = tuning_kernels ? tune_config() : 0;
  const bool aligned = ld_out % 8 == 0 && reinterpret_cast<std::uintptr_t>(out) % 32 == 0;
  if (rows < 32 || cols < 32) {
    if constexpr (tuning_kernels) {
      if (tune == 6) return run_skinny<2048>(dev, aligned, rows, cols, in, ld_in, out, ld_out);
      if (tune == 7) return run_skinny<512>(dev, aligned, rows, cols, in, ld_in, out, ld_out);
    }
    return run_skinny<1024>(dev, aligned, rows, cols, in, ld_in, out, ld_out);
  }
  if (!aligned) {
    if constexpr (tuning_kernels) {
      if (tune == 5) return run_shaped_fast<32, 32, 512>(dev, rows, cols, in, ld_in, out, ld_out);
      if (tune == 8) return run_shaped<32, 32, 8>(dev, rows, cols, in, ld_in, out, ld_out);
      if (tune == 10) return run_shaped_fast<32, 32, 256, 6>(dev, rows, cols, in, ld_in, out, ld_out);
      if (tune == 12) return run_shaped_fast<64, 32, 256, 6>(dev, rows, cols, in, ld_in, out, ld_out);
    }
    return run_shaped_fast<32, 32>(dev, rows, cols, in, ld_in, out, ld_out);
  }
  if constexpr (tuning_kernels) {
    switch (tune) {
      case 1: return run_best<64, 16>(dev, rows, cols, in, ld_in, out, ld_out);
      case 2: return run_best<64, 8>(dev, rows, cols, in, ld_in, out, ld_out);
      case 3: return run_best<64, 4>(dev, rows, cols, in, ld_in, out, ld_out);
      case 4: return run_best<32, 16>(dev, rows, cols, in, ld_in, out, ld_out);
      default: break;
    }
  }
  return run_best<best_tile, best_rows>(dev, rows, cols, in, ld_in, out, ld_out);
}

}  // namespace

std::string transpose_tile_choice(const Device& dev, std::int64_t rows, std::int64_t cols) {
  if constexpr (on_cpu) {
    const auto t = cpu_tile(dev, rows, cols);
    const std::string side = std::to_string(t.side);
    // The AVX-512 copy: strips on crowded rows, the race elsewhere; the AVX2 copy: the race only where
    // avx2_keeps_squares leaves the shape to it (cpu_tile.hpp).
    const std::string strips =
        !tk::transpose_strip_streams ? std::string()
        : tk::transpose_skinny_vectors
            ? "; where out's rows are not 64-byte aligned and crowd the L1's sets (a multiple of 1024 floats apart or "
              "near it), blocks of 256 columns as strips with every whole line of out streamed; where they are not "
              "aligned and crowd no set, " +
                  unaligned_told()
            : "; where out's rows are not 64-byte aligned and crowd no L1 set, the matrix has over 64 rows and over "
              "16 columns and its two arrays fill over half the last-level cache (elsewhere the squares), blocks of "
              "256 columns as strips with every whole line of out streamed or the squares: " +
                  unaligned_told();
    return "squares of 16 x 16 through registers (stores streamed where out's rows are 64-byte aligned, or all the "
           "same floats past a line: then out's heads up to their first line by the edge path), tile " +
           side + " x " + side + " (" + t.why + "; " + std::to_string(tk::detail::cpu_block_slots()) + " tile slots)" +
           strips +
           (tk::transpose_skinny_vectors
                ? "; at most 64 rows with out contiguous, or fewer than 16 columns with in contiguous, through a "
                  "thread's buffer, streamed out"
                : "; fewer than 16 rows with out contiguous through a thread's buffer, streamed out");
  } else {
    (void)dev;
    if (rows < 32 || cols < 32) return "transpose_shaped, a skinny tile of 1024 elements";
    return "multi_element 32 x 32 tile on 32 x 8 threads where out's rows are 32-byte aligned, else "
           "transpose_shaped_fast 32 x 32";
  }
}

void transpose(const Device& dev, TransposeVariant variant, std::int64_t rows, std::int64_t cols, const float* in,
               std::int64_t ld_in, float* out, std::int64_t ld_out) {
  switch (variant) {
    case TransposeVariant::naive:
      return run<seed_tile, seed_tile>(dev, "transpose_naive", &tk::kernels::transpose_naive<seed_tile>, rows, cols, in,
                                       ld_in, out, ld_out);
    case TransposeVariant::smem:
      return run<seed_tile, seed_rows>(dev, "transpose_smem", &tk::kernels::transpose_smem<seed_tile, seed_rows>, rows,
                                       cols, in, ld_in, out, ld_out);
    case TransposeVariant::smem_padded:
      return run<seed_tile, seed_rows>(dev, "transpose_smem_padded",
                                       tk::kernels::transpose_smem_padded<seed_tile, seed_rows>, rows, cols, in, ld_in,
                                       out, ld_out);
    case TransposeVariant::best:
      if constexpr (!on_cpu) {
        return run_best_gpu(dev, rows, cols, in, ld_in, out, ld_out);
      } else {
        return run_best_cpu(dev, rows, cols, in, ld_in, out, ld_out);
      }
  }
  tk::detail::fail("tk::transpose: argument 'variant' is ", static_cast<int>(variant),
                   "; expected a tk::TransposeVariant");
}

}  // namespace tk::launchers::TK_TARGET_ID
