// The shared argument checks (checks.hpp).
#include "checks.hpp"

#include <algorithm>
#include <utility>

#include "tilekit/error.hpp"

namespace tk::detail {
namespace {

using i128 = __int128;  // bounds below that may pass 2^63 before they are clipped

// floor(a / b) for b > 0.
i128 floor_div(i128 a, i128 b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); }

// The bytes x spans, (rows - 1) * ld + cols elements; -1 when that overflows int64.
std::int64_t span_bytes(const Operand& x) {
  std::int64_t elems = 0, bytes = 0;
  if (__builtin_mul_overflow(x.rows - 1, x.ld, &elems) || __builtin_add_overflow(elems, x.cols, &elems) ||
      __builtin_mul_overflow(elems, static_cast<std::int64_t>(x.elem), &bytes))
    return -1;
  return bytes;
}

// An operand as a strided run of byte intervals: row i is [start + i * stride, start + i * stride + len).
struct Rows {
  std::uintptr_t start;
  std::int64_t count, stride, len, span;
};

Rows rows_of(const Operand& x) {
  const std::int64_t span = span_bytes(x);
  if (x.ld == x.cols || x.rows == 1) return {reinterpret_cast<std::uintptr_t>(x.p), 1, span, span, span};  // one run
  const auto e = static_cast<std::int64_t>(x.elem);
  return {reinterpret_cast<std::uintptr_t>(x.p), x.rows, x.ld * e, x.cols * e, span};
}

// The element of o that holds the byte `offset` bytes after o.p: (row, column).
std::pair<std::int64_t, std::int64_t> element_at(const Operand& o, std::int64_t offset) {
  const std::int64_t e = offset / static_cast<std::int64_t>(o.elem);
  return {e / o.ld, e % o.ld};
}

}  // namespace

void require_nonnegative(const char* call, const char* name, std::int64_t value) {
  if (value < 0) fail(call, ": argument '", name, "' is ", value, "; expected ", name, " >= 0");
}

void require_ld(const char* call, const char* ld_name, std::int64_t ld, const char* cols_name, std::int64_t cols) {
  if (ld < cols || ld < 1)
    fail(call, ": argument '", ld_name, "' is ", ld, "; expected ", ld_name, " >= max(1, ", cols_name, ")");
}

void require_addressable(const char* call, const Operand& x) {
  const std::int64_t bytes = span_bytes(x);
  if (bytes >= 0 && reinterpret_cast<std::uintptr_t>(x.p) <= UINTPTR_MAX - static_cast<std::uintptr_t>(bytes)) return;
  fail(call, ": arguments '", x.rows_arg, "' = ", x.rows, ", '", x.cols_arg, "' = ", x.cols, ", '", x.ld_arg,
       "' = ", x.ld, " make '", x.name, "' span (", x.rows_arg, " - 1) * ", x.ld_arg, " + ", x.cols_arg,
       " elements of ", x.elem, " bytes, more than the address space holds");
}

Overlap find_overlap(const Operand& x_in, const Operand& y_in) {
  // Iterate over the rows of the operand with fewer of them, each tested against the other in O(1).
  const bool swapped = rows_of(x_in).count > rows_of(y_in).count;
  const Rows x = rows_of(swapped ? y_in : x_in), y = rows_of(swapped ? x_in : y_in);
  // Disjoint spans: nothing more to ask. Both operands are addressable, so none of these sums wraps.
  if (x.start + static_cast<std::uintptr_t>(x.span) <= y.start ||
      y.start + static_cast<std::uintptr_t>(y.span) <= x.start)
    return {};
  // The spans intersect, so the distance between the starts is below the larger span (< 2^63).
  const std::int64_t d =
      x.start >= y.start ? static_cast<std::int64_t>(x.start - y.start) : -static_cast<std::int64_t>(y.start - x.start);
  // Counted from y.start, row i of x is [s, s + x.len) with s = d + i * x.stride. Only the rows that end
  // after y.start and begin before y's span ends can meet y.
  const auto i_lo = static_cast<std::int64_t>(std::max<i128>(0, floor_div(i128{-d} - x.len, x.stride) + 1));
  const auto i_hi = static_cast<std::int64_t>(std::min<i128>(x.count - 1, floor_div(i128{y.span} - 1 - d, x.stride)));
  for (std::int64_t i = i_lo; i <= i_hi; ++i) {
    const std::int64_t s = d + i * x.stride;
    // The first row k of y that ends after s (k * y.stride + y.len > s); it meets row i if it begins
    // before row i ends.
    const auto k = static_cast<std::int64_t>(std::max<i128>(0, floor_div(i128{s} - y.len, y.stride) + 1));
    if (k >= y.count || k * y.stride >= s + x.len) continue;
    const std::int64_t at = std::max(s, k * y.stride);  // the first shared byte, counted from y.start
    const std::int64_t from_x = at - d, from_y = at;
    const auto [xi, xj] = element_at(x_in, swapped ? from_y : from_x);
    const auto [yi, yj] = element_at(y_in, swapped ? from_x : from_y);
    return {true, xi, xj, yi, yj};
  }
  return {};
}

std::string caller_coords(const Operand& x, std::int64_t i, std::int64_t j) {
  if (x.col_major) std::swap(i, j);
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

void require_disjoint(const char* call, const Operand& written, const Operand& other) {
  const Overlap o = find_overlap(written, other);
  if (o.found)
    fail(call, ": arguments '", written.name, "' and '", other.name, "' overlap: element ",
         caller_coords(written, o.xi, o.xj), " of '", written.name, "' is element ", caller_coords(other, o.yi, o.yj),
         " of '", other.name, "'; they must not share elements");
}

void require_same_or_disjoint(const char* call, const Operand& written, const Operand& other) {
  // The same elements: the same start and shape, and the same rows (one row: whatever the leading dimension)
  if (written.p == other.p && written.rows == other.rows && written.cols == other.cols &&
      (written.ld == other.ld || written.rows == 1))
    return;
  const Overlap o = find_overlap(written, other);
  if (o.found)
    fail(call, ": arguments '", written.name, "' and '", other.name, "' overlap: element ",
         caller_coords(written, o.xi, o.xj), " of '", written.name, "' is element ", caller_coords(other, o.yi, o.yj),
         " of '", other.name, "'; they must be the same matrix or share no element");
}

void require_matrix_lds(const char* call, std::int64_t rows, std::int64_t cols, std::int64_t ld_in,
                        std::int64_t ld_out) {
  require_nonnegative(call, "rows", rows);
  require_nonnegative(call, "cols", cols);
  require_ld(call, "ld_in", ld_in, "cols", cols);
  require_ld(call, "ld_out", ld_out, "cols", cols);
}

void require_out_in(const char* call, const Operand& out, const Operand& in) {
  require_addressable(call, out);
  require_addressable(call, in);
  require_disjoint(call, out, in);
}

}  // namespace tk::detail
