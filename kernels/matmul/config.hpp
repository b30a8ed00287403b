// kernels/matmul/config.hpp — what a warp_tiled configuration is made of, as named parts. A configuration is a
// constexpr GemmConfig built from its parts in any order, and reads like its description:
//
//   config(Block{128, 128, 8}, Warp{64, 64, 4}, Thread{8, 4}, Lanes{32}, Stages{3}, BlocksPerSM{2}, whole_strips)
//
// is "128 x 128 x 8 blocks of four 64 x 64 warp tiles, each in 4 column sub-tiles, 8 x 4 outputs per lane,
// 32-lane warps, three strips in flight, two blocks per SM, whole strips unchecked". config(base, parts...)
// changes some parts of another configuration. The lists of each target's configurations, and the rule
// that picks one, are in policy/<target>.hpp; the kernels read the parts (warp_tiled.hpp, through
// WarpTilingOf). A configuration's name is derived from its parts (config_name); the role names of the
// policy files ("cuda_square") are aliases of it for TK_MATMUL_CONFIG and tk-info.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "warp_tiling.hpp"

namespace tk::kernels::matmul_config {

// The block's tile of C and the depth of its k strips.
struct Block {
  int m = 0, n = 0, k = 0;
};
// A warp's tile of the block, in `subtiles_n` column sub-tiles (the rows take as many as the lanes need).
struct Warp {
  int m = 0, n = 0, subtiles_n = 1;
};
// A lane's outputs in each sub-tile.
struct Thread {
  int m = 0, n = 0;
};
// Lanes of a warp: 32 on NVIDIA, 64 on CDNA, a vector's lanes on a CPU (where a warp is only a layout).
struct Lanes {
  int n = 0;
};
// Strips in flight (warp_tiled.hpp): 1, one shared buffer loaded straight from global memory; 2, double
// buffering through one set of registers; 3, two strips on their way in two sets of registers. With
// async_copies, a ring of 2-4 shared buffers that tk::copy_async fills, n - 1 strips on their way.
struct Stages {
  int n = 2;
};
// Blocks per multiprocessor asked of the compiler (its register budget: the launch bounds' minimum).
struct BlocksPerSM {
  int n = 1;
};
// Strips fetched two at a time (pipeline_pairs.hpp; three stages), each staged after `stage_at` k rows of an
// even step's multiply and `stage_odd` of an odd one's.
struct StripPairs {
  int stage_at = 0, stage_odd = 0;
};
// Flags. rolled: one k step per iteration with run-time buffer indices (without it, two steps per iteration
// with constant ones, pipeline_staged.hpp). whole_strips: when every strip of a block is full, all its steps
// run unchecked. lean_epilogue: a tile inside C is stored without a bounds test per output (epilogue.hpp).
// async_copies: the strips go global -> shared by tk::copy_async into a ring of `Stages` buffers, no staging
// registers (pipeline_async.hpp; rolled and whole_strips do not apply to it).
struct Rolled {};
struct WholeStrips {};
struct LeanEpilogue {};
struct AsyncCopies {};
inline constexpr Rolled rolled{};
inline constexpr WholeStrips whole_strips{};
inline constexpr LeanEpilogue lean_epilogue{};
inline constexpr AsyncCopies async_copies{};

struct Pipeline {
  int stages = 2;
  bool unroll = true, whole = false, pairs = false, async = false;
  int stage_at = 0, stage_odd = 0;
};

struct GemmConfig {
  Block block;
  Warp warp;
  Thread thread;
  int lanes = 0;
  Pipeline pipeline;
  bool lean = false;  // the epilogue
  int min_blocks = 1;
};

constexpr void set(GemmConfig& c, Block p) { c.block = p; }
constexpr void set(GemmConfig& c, Warp p) { c.warp = p; }
constexpr void set(GemmConfig& c, Thread p) { c.thread = p; }
constexpr void set(GemmConfig& c, Lanes p) { c.lanes = p.n; }
constexpr void set(GemmConfig& c, Stages p) { c.pipeline.stages = p.n; }
constexpr void set(GemmConfig& c, BlocksPerSM p) { c.min_blocks = p.n; }
constexpr void set(GemmConfig& c, StripPairs p) {
  c.pipeline.pairs = true;
  c.pipeline.stage_at = p.stage_at;
  c.pipeline.stage_odd = p.stage_odd;
}
constexpr void set(GemmConfig& c, Rolled) { c.pipeline.unroll = false; }
constexpr void set(GemmConfig& c, WholeStrips) { c.pipeline.whole = true; }
constexpr void set(GemmConfig& c, LeanEpilogue) { c.lean = true; }
constexpr void set(GemmConfig& c, AsyncCopies) {
  c.pipeline.async = true;
  c.pipeline.whole = false;  // (its loop has no unchecked steps to extend)
}

// A configuration from its parts; the ones not given keep GemmConfig's defaults.
template <class... Parts>
constexpr GemmConfig config(Parts... parts) {
  GemmConfig c{};
  (set(c, parts), ...);
  return c;
}
// `base` with some parts replaced.
template <class... Parts>
constexpr GemmConfig config(GemmConfig base, Parts... parts) {
  (set(base, parts), ...);
  return base;
}

// Whether the parts make a tiling (the kernel checks the rest: warp_tiling.hpp's static asserts).
constexpr bool complete(const GemmConfig& c) {
  return c.block.m > 0 && c.block.n > 0 && c.block.k > 0 && c.warp.m > 0 && c.warp.n > 0 && c.warp.subtiles_n > 0 &&
         c.thread.m > 0 && c.thread.n > 0 && c.lanes > 0 &&
         (c.pipeline.async ? c.pipeline.stages >= 2 && c.pipeline.stages <= 4 && !c.pipeline.pairs
                           : c.pipeline.stages >= 1 && c.pipeline.stages <= 3);
}

// The name derived from the parts: "b128x128x8_w64x64x4_t8x4_l32_s3_m2_whole" (block, warp tile and its
// column sub-tiles, lane tile, lanes, stages, blocks per SM, then the flags: rolled, pairs<at>.<odd>, whole,
// async, lean).
inline std::string config_name(const GemmConfig& c) {
  const auto s = [](int v) { return std::to_string(v); };
  std::string n = "b" + s(c.block.m) + "x" + s(c.block.n) + "x" + s(c.block.k) + "_w" + s(c.warp.m) + "x" +
                  s(c.warp.n) + "x" + s(c.warp.subtiles_n) + "_t" + s(c.thread.m) + "x" + s(c.thread.n) + "_l" +
                  s(c.lanes) + "_s" + s(c.pipeline.stages) + "_m" + s(c.min_blocks);
  if (!c.pipeline.unroll) n += "_rolled";
  if (c.pipeline.pairs) n += "_pairs" + s(c.pipeline.stage_at) + "." + s(c.pipeline.stage_odd);
  if (c.pipeline.whole) n += "_whole";
  if (c.pipeline.async) n += "_async";
  if (c.lean) n += "_lean";
  return n;
}

// A target's configurations for one precision, each a type with `static constexpr GemmConfig config` and
// `static constexpr const char* name` (its role).
template <class... Entries>
struct List {};

// The role name of the entry that `name` names, by its role or its derived name, or nullptr. (Role names
// first: a launcher asks on every call, and a derived name is built only when no role name matches.)
template <class... Cs>
const char* find(const char* name, List<Cs...>) {
  const char* found = nullptr;
  (void)((std::strcmp(name, Cs::name) == 0 ? (found = Cs::name, true) : false) || ...);
  if (!found) (void)((config_name(Cs::config) == name ? (found = Cs::name, true) : false) || ...);
  return found;
}
template <class... Cs>
std::vector<const char*> role_names(List<Cs...>) {
  return {Cs::name...};
}
// "a, b, c": the role names, for error messages.
template <class... Cs>
std::string known_names(List<Cs...> list) {
  std::string known;
  for (const char* n : role_names(list)) known += std::string(known.empty() ? "" : ", ") + n;
  return known;
}

}  // namespace tk::kernels::matmul_config

namespace tk::kernels {

// The tiling of configuration entry Cfg (a type of a policy's list).
template <class Cfg>
using WarpTilingOf =
    WarpTiling<Cfg::config.block.m, Cfg::config.block.n, Cfg::config.block.k, Cfg::config.warp.m, Cfg::config.warp.n,
               Cfg::config.warp.subtiles_n, Cfg::config.thread.m, Cfg::config.thread.n, Cfg::config.lanes>;

}  // namespace tk::kernels
