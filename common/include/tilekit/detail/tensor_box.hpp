// tilekit/detail/tensor_box.hpp — the target-independent half of tilekit/async_copy.hpp's tensor copies: the box
// a tk::TensorMap describes, the map's storage and the rules both keep (host code; tilekit/async_copy.hpp documents
// them).
#pragma once

#include <cstdint>

#include "tilekit/error.hpp"

namespace tk {

struct TensorBox {
  const void* base = nullptr;
  int elem_bytes = 0;
  std::int64_t dims[3] = {1, 1, 1};
  std::int64_t strides[2] = {0, 0};  // bytes between consecutive indices of dimensions 1 and 2
  int box[2] = {0, 0};
  bool swizzle = false;
};

struct alignas(64) TensorMap {
  unsigned char bytes[128];
};
static_assert(sizeof(TensorBox) <= sizeof(TensorMap), "a CPU's map holds its box");

namespace detail {
// backends/cuda/runtime.cu: cuTensorMapEncodeTiled of a checked box into out (a CUtensorMap)
void cuda_encode_tensor_map(const TensorBox& box, void* out);

inline void check_tensor_box(const TensorBox& t) {
  const auto bad = [](const char* field, auto value, const char* rule) {
    tk::detail::fail("tk::tensor_map: ", field, " = ", value, " (", rule, ")");
  };
  if (t.elem_bytes != 1 && t.elem_bytes != 2 && t.elem_bytes != 4 && t.elem_bytes != 8)
    bad("elem_bytes", t.elem_bytes, "1, 2, 4 or 8");
  if (t.base == nullptr || reinterpret_cast<std::uintptr_t>(t.base) % 16 != 0)
    bad("base", t.base, "a pointer on 16 bytes");
  for (int i = 0; i < 3; ++i)
    if (t.dims[i] < 1 || t.dims[i] > (std::int64_t{1} << 32))
      bad(i == 0 ? "dims[0]" : i == 1 ? "dims[1]" : "dims[2]", t.dims[i], "1 to 2^32");
  for (int i = 0; i < 2; ++i)
    if (t.strides[i] <= 0 || t.strides[i] % 16 != 0 || t.strides[i] >= (std::int64_t{1} << 40))
      bad(i == 0 ? "strides[0]" : "strides[1]", t.strides[i], "a positive multiple of 16 bytes under 2^40");
  const std::int64_t line = std::int64_t{t.box[0]} * t.elem_bytes;
  if (t.box[0] < 1 || line % 16 != 0 || (t.swizzle && line > 128) || t.box[0] > 256)
    bad("box[0]", t.box[0], "values of a multiple of 16 bytes, at most 256 values, at most 128 bytes with the swizzle");
  if (t.box[1] < 1 || t.box[1] > 256) bad("box[1]", t.box[1], "1 to 256");
}
}  // namespace detail

}  // namespace tk
