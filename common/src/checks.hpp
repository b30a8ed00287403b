// common/src/checks.hpp — the argument checks every public entry shares: sizes, leading dimensions,
// the extent of each operand in memory (computed without overflow) and aliasing decided on the elements.
//
// A matrix operand is rows x cols elements of `elem` bytes, row i starting i * ld elements after p; it
// touches those elements only, not the gaps between its rows. A vector of n elements is 1 x n; a strided
// vector is n x 1 with ld = the stride. Two operands conflict only when an element that one writes is
// also read or written through the other, so disjoint blocks of one array (the blocked-LU pattern,
// interleaved column blocks, a matrix and the padding of its own rows) pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/variants.hpp"

namespace tk::detail {

struct Operand {
  const char* name;  // the argument that holds the pointer: "A"
  const void* p;
  std::int64_t rows, cols, ld;
  const char* rows_arg;  // the arguments the extent comes from, for messages: "M", "K", "lda"
  const char* cols_arg;
  const char* ld_arg;
  std::size_t elem = sizeof(float);
  // The caller stored it column-major: rows here are the caller's columns, so messages name element (i, j)
  // of this view as the caller's (j, i).
  bool col_major = false;
};

// "(i, j)": element (i, j) of x's row-major view, in the caller's coordinates.
std::string caller_coords(const Operand& x, std::int64_t i, std::int64_t j);

// "<call>: argument '<name>' is <value>; expected <name> >= 0".
void require_nonnegative(const char* call, const char* name, std::int64_t value);

// "<call>: argument '<ld_name>' is <ld>; expected <ld_name> >= max(1, <cols_name>)".
void require_ld(const char* call, const char* ld_name, std::int64_t ld, const char* cols_name, std::int64_t cols);

// x's elements, (rows - 1) * ld + cols of them from p, fit in the address space: computed without
// overflow, and p plus that many bytes does not wrap. Throws tk::Error naming the arguments otherwise.
// Requires rows, cols >= 1 and ld >= cols (checked before).
void require_addressable(const char* call, const Operand& x);

// Where two operands share an element: element (xi, xj) of x is element (yi, yj) of y.
struct Overlap {
  bool found = false;
  std::int64_t xi = 0, xj = 0, yi = 0, yj = 0;
};
// Exact, for addressable operands; O(rows of the one with fewer rows that lie in the other's span).
Overlap find_overlap(const Operand& x, const Operand& y);

// `written` and `other` share no element.
void require_disjoint(const char* call, const Operand& written, const Operand& other);
// ... or are the same matrix (same pointer, extent and leading dimension): an in-place elementwise update.
void require_same_or_disjoint(const char* call, const Operand& written, const Operand& other);

// A vector of n elements as an operand: one row (n_arg names n in messages).
inline Operand vector_operand(const char* name, const void* p, std::int64_t n, const char* n_arg = "n") {
  return {name, p, 1, n, n, "1", n_arg, n_arg};
}

// rows, cols >= 0 and ld_in, ld_out >= max(1, cols): a rows x cols in -> out matrix op.
void require_matrix_lds(const char* call, std::int64_t rows, std::int64_t cols, std::int64_t ld_in,
                        std::int64_t ld_out);

// Both operands fit in memory and `out` shares no element with `in`.
void require_out_in(const char* call, const Operand& out, const Operand& in);

// A variant's registry entry (tilekit/variants.hpp): its name ("unknown" if not listed), whether it is listed.
template <class V>
const char* variant_name(const std::vector<VariantInfo<V>>& all, V v) {
  for (const auto& info : all)
    if (info.variant == v) return info.name;
  return "unknown";
}
template <class V>
bool variant_listed(const std::vector<VariantInfo<V>>& all, V v) {
  for (const auto& info : all)
    if (info.variant == v) return true;
  return false;
}

}  // namespace tk::detail
