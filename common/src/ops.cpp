// The public entries: check every argument, then hand the call to the device's backend.
#include "tilekit/ops.hpp"

#include <cstdint>

#include "tilekit/detail/launchers.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"
#include "dispatch.hpp"

namespace tk {
namespace {

using detail::require;

// Element ranges [p, p + n) and [q, q + m) must be the same range or disjoint.
void require_no_partial_overlap(const float* p, std::int64_t n, const float* q, std::int64_t m, const char* call,
                                const char* pname, const char* qname, bool allow_same) {
  const bool disjoint = p + n <= q || q + m <= p;
  if (disjoint || (allow_same && p == q && n == m)) return;
  detail::fail(call, ": arguments '", pname, "' and '", qname, "' overlap",
               allow_same ? " partially; they must be the same array or disjoint" : "; they must be disjoint");
}

// The elements a rows x cols matrix with leading dimension ld spans.
std::int64_t span(std::int64_t rows, std::int64_t cols, std::int64_t ld) { return (rows - 1) * ld + cols; }

}  // namespace

void copy(const Device& dev, std::int64_t n, const float* in, float* out) {
  const char* call = "tk::copy";
  require(n >= 0, call, "n", n, "n >= 0");
  if (n == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  require_no_partial_overlap(in, n, out, n, call, "in", "out", false);
  TK_DISPATCH(dev, copy, dev, n, in, out);
}

void vector_add(const Device& dev, std::int64_t n, const float* a, const float* b, float* c) {
  const char* call = "tk::vector_add";
  require(n >= 0, call, "n", n, "n >= 0");
  if (n == 0) return;
  detail::check_pointer(dev, a, call, "a");
  detail::check_pointer(dev, b, call, "b");
  detail::check_pointer(dev, c, call, "c");
  require_no_partial_overlap(c, n, a, n, call, "c", "a", true);
  require_no_partial_overlap(c, n, b, n, call, "c", "b", true);
  TK_DISPATCH(dev, vector_add, dev, n, a, b, c);
}

void matrix_add(const Device& dev, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,
                const float* B, std::int64_t ldb, float* C, std::int64_t ldc) {
  const char* call = "tk::matrix_add";
  require(rows >= 0, call, "rows", rows, "rows >= 0");
  require(cols >= 0, call, "cols", cols, "cols >= 0");
  require(lda >= cols && lda >= 1, call, "lda", lda, "lda >= max(1, cols)");
  require(ldb >= cols && ldb >= 1, call, "ldb", ldb, "ldb >= max(1, cols)");
  require(ldc >= cols && ldc >= 1, call, "ldc", ldc, "ldc >= max(1, cols)");
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, A, call, "A");
  detail::check_pointer(dev, B, call, "B");
  detail::check_pointer(dev, C, call, "C");
  if (!(C == A && ldc == lda)) require_no_partial_overlap(C, span(rows, cols, ldc), A, span(rows, cols, lda), call, "C", "A", false);
  if (!(C == B && ldc == ldb)) require_no_partial_overlap(C, span(rows, cols, ldc), B, span(rows, cols, ldb), call, "C", "B", false);
  TK_DISPATCH(dev, matrix_add, dev, rows, cols, A, lda, B, ldb, C, ldc);
}

namespace {
void require_same(const Buffer<float>& x, const Buffer<float>& y, const char* call, const char* xname,
                  const char* yname) {
  if (x.device() != y.device())
    detail::fail(call, ": argument '", yname, "' is on ", y.device().name(), "; expected ", x.device().name(),
                 ", the device of '", xname, "'");
  if (x.size() != y.size())
    detail::fail(call, ": argument '", yname, "' has ", y.size(), " elements; expected ", x.size(), ", the size of '",
                 xname, "'");
}
}  // namespace

void copy(const Buffer<float>& in, Buffer<float>& out) {
  require_same(in, out, "tk::copy", "in", "out");
  copy(in.device(), static_cast<std::int64_t>(in.size()), in.data(), out.data());
}

void vector_add(const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c) {
  require_same(a, b, "tk::vector_add", "a", "b");
  require_same(a, c, "tk::vector_add", "a", "c");
  vector_add(a.device(), static_cast<std::int64_t>(a.size()), a.data(), b.data(), c.data());
}

}  // namespace tk
