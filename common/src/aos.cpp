// The public entries of tilekit/aos.hpp: the variant registry, argument checks, dispatch.
#include "tilekit/aos.hpp"

#include <cstdint>

#include "checks.hpp"
#include "dispatch.hpp"
#include "tilekit/detail/launchers_aos.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"

namespace tk {

using detail::Operand;
using detail::require;
using detail::require_nonnegative;

namespace {

// n float3 structs in and out: the same array (an in-place update) or no element shared.
void require_float3s(const Device& dev, const char* call, std::int64_t n, const float* in, float* out) {
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  const Operand o_in{"in", in, n, 3, 3, "n", "3", "3"}, o_out{"out", out, n, 3, 3, "n", "3", "3"};
  detail::require_addressable(call, o_in);
  detail::require_addressable(call, o_out);
  detail::require_same_or_disjoint(call, o_out, o_in);
}

}  // namespace

const std::vector<VariantInfo<AosVariant>>& aos_variants() {
  static const std::vector<VariantInfo<AosVariant>>& all = *new std::vector<VariantInfo<AosVariant>>{
      // never destroyed: usable during exit
      {AosVariant::direct, "direct", "three 4-byte loads 12 bytes apart per struct: uncoalesced", "003"},
      {AosVariant::smem_staged, "smem_staged", "coalesced loads and stores staged through shared memory", "003"},
  };
  return all;
}

const char* to_string(AosVariant v) { return detail::variant_name(aos_variants(), v); }

void float3_add(const Queue& queue, std::int64_t n, const float* in, float* out, float value, AosVariant variant) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::float3_add";
  require_nonnegative(call, "n", n);
  require(detail::variant_listed(aos_variants(), variant), call, "variant", static_cast<int>(variant),
          "a tk::AosVariant");
  if (n == 0) return;
  require_float3s(dev, call, n, in, out);
  TK_DISPATCH(dev, float3_add, dev, variant, n, in, out, value);
}

void float3_add_soa(const Queue& queue, std::int64_t n, const float* in, float* out, float value) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::float3_add_soa";
  require_nonnegative(call, "n", n);
  if (n == 0) return;
  require_float3s(dev, call, n, in, out);
  TK_DISPATCH(dev, float3_add_soa, dev, n, in, out, value);
}

}  // namespace tk
