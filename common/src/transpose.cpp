// The public entries of tilekit/transpose.hpp: the variant registry, argument checks, dispatch.
#include "tilekit/transpose.hpp"

#include <cstdint>
#include <string>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/detail/launchers_transpose.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

using detail::Operand;
using detail::require;
using detail::require_nonnegative;

const std::vector<VariantInfo<TransposeVariant>>& transpose_variants() {
  static const std::vector<VariantInfo<TransposeVariant>>& all = *new std::vector<VariantInfo<TransposeVariant>>{
      // never destroyed: usable during exit
      {TransposeVariant::naive, "naive", "one element per thread: coalesced reads, writes a float per burst", "003"},
      {TransposeVariant::smem, "smem", "through a 32 x 32 shared tile: coalesced both ways, 32-way bank conflict",
       "003"},
      {TransposeVariant::smem_padded, "smem_padded", "one padding float per tile row: conflict-free column reads",
       "003"},
  };
  return all;
}

const char* to_string(TransposeVariant v) {
  return v == TransposeVariant::best ? "best" : detail::variant_name(transpose_variants(), v);
}

std::string transpose_tile_choice(const Device& dev, std::int64_t rows, std::int64_t cols) {
  require(rows >= 1, "tk::transpose_tile_choice", "rows", rows, ">= 1");
  require(cols >= 1, "tk::transpose_tile_choice", "cols", cols, ">= 1");
  TK_DISPATCH(dev, transpose_tile_choice, dev, rows, cols);
}

void transpose(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
               float* out, std::int64_t ld_out, TransposeVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::transpose";
  require_nonnegative(call, "rows", rows);
  require_nonnegative(call, "cols", cols);
  detail::require_ld(call, "ld_in", ld_in, "cols", cols);
  detail::require_ld(call, "ld_out", ld_out, "rows", rows);
  require(variant == TransposeVariant::best || detail::variant_listed(transpose_variants(), variant), call, "variant",
          static_cast<int>(variant), "a tk::TransposeVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  detail::require_out_in(call, {"out", out, cols, rows, ld_out, "cols", "rows", "ld_out"},
                         {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  // `best` of a single row or column whose elements are adjacent on both sides: the transpose is a copy of
  // rows * cols elements, run as one (a tile kernel leaves 31 of 32 rows of every tile empty: 0.3% of
  // memcpy for 1 x 2^24 on a CPU, docs/history/performance-log.md#shape-sweep-tk-bench---sweep).
  if (variant == TransposeVariant::best && ((rows == 1 && ld_out == 1) || (cols == 1 && ld_in == 1))) {
    TK_DISPATCH(dev, copy, dev, rows * cols, in, out);
  }
  TK_DISPATCH(dev, transpose, dev, variant, rows, cols, in, ld_in, out, ld_out);
}

}  // namespace tk
