// tilekit/variants.hpp — how an op lists its variants: each with its name and what it teaches, for the
// tests, tk-bench, tk-info and the docs.
#pragma once

namespace tk {

template <class Variant>
struct VariantInfo {
  Variant variant;
  const char* name;     // "smem_padded"
  const char* teaches;  // one line: the technique and what it improves
  const char* seed;     // the source document it comes from
};

}  // namespace tk
