// The public entries of tilekit/stencil.hpp: the variant registry, argument checks, dispatch.
#include "tilekit/stencil.hpp"

#include <cstdint>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers_stencil.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

using detail::Operand;
using detail::require;
using detail::require_nonnegative;

const std::vector<VariantInfo<StencilVariant>>& stencil_variants() {
  static const std::vector<VariantInfo<StencilVariant>>& all = *new std::vector<VariantInfo<StencilVariant>>{
      // never destroyed: usable during exit
      {StencilVariant::naive, "naive", "every tap read from global memory (caches catch the reuse)", "000"},
      {StencilVariant::smem_tiled, "smem_tiled", "tile and halo loaded into shared memory once, taps from there",
       "000, 003"},
      {StencilVariant::best, "best",
       "5-point: rows streamed through registers, wide loads, no barrier; others: the faster of the two here",
       "000, 004"},
  };
  return all;
}

const char* to_string(StencilVariant v) { return detail::variant_name(stencil_variants(), v); }

void moving_average(const Queue& queue, std::int64_t n, const float* in, float* out, int radius,
                    StencilVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::moving_average";
  require_nonnegative(call, "n", n);
  require(radius >= 0 && radius <= 1024, call, "radius", radius, "0 <= radius <= 1024");
  require(detail::variant_listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant),
          "a tk::StencilVariant");
  if (n == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  detail::require_out_in(call, detail::vector_operand("out", out, n), detail::vector_operand("in", in, n));
  TK_DISPATCH(dev, moving_average, dev, variant, n, in, out, radius);
}

void stencil_5point(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                    float* out, std::int64_t ld_out, float center, float side, StencilVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::stencil_5point";
  detail::require_matrix_lds(call, rows, cols, ld_in, ld_out);
  require(detail::variant_listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant),
          "a tk::StencilVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  detail::require_out_in(call, {"out", out, rows, cols, ld_out, "rows", "cols", "ld_out"},
                         {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  TK_DISPATCH(dev, stencil_5point, dev, variant, rows, cols, in, ld_in, out, ld_out, center, side);
}

void convolve_2d(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                 const float* filter, int radius, float* out, std::int64_t ld_out, StencilVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::convolve_2d";
  detail::require_matrix_lds(call, rows, cols, ld_in, ld_out);
  require(radius >= 0 && radius <= 8, call, "radius", radius, "0 <= radius <= 8");
  require(detail::variant_listed(stencil_variants(), variant), call, "variant", static_cast<int>(variant),
          "a tk::StencilVariant");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, filter, call, "filter");
  detail::check_pointer(dev, out, call, "out");
  const Operand o_out{"out", out, rows, cols, ld_out, "rows", "cols", "ld_out"};
  detail::require_out_in(call, o_out, {"in", in, rows, cols, ld_in, "rows", "cols", "ld_in"});
  const std::int64_t side = 2 * radius + 1;
  detail::require_disjoint(call, o_out,
                           {"filter", filter, side, side, side, "2 * radius + 1", "2 * radius + 1", "2 * radius + 1"});
  TK_DISPATCH(dev, convolve_2d, dev, variant, rows, cols, in, ld_in, filter, radius, out, ld_out);
}

}  // namespace tk
