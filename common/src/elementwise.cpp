// The public entries of tilekit/elementwise.hpp: check every argument, then hand the call to the device's backend.
#include "tilekit/elementwise.hpp"

#include <cstdint>

#include "tilekit/detail/launchers_elementwise.hpp"
#include "tilekit/detail/memory.hpp"
#include "tilekit/error.hpp"
#include "checks.hpp"
#include "dispatch.hpp"

namespace tk {

using detail::Operand;
using detail::require_nonnegative;

void copy(const Queue& queue, std::int64_t n, const float* in, float* out) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::copy";
  require_nonnegative(call, "n", n);
  if (n == 0) return;
  detail::check_pointer(dev, in, call, "in");
  detail::check_pointer(dev, out, call, "out");
  const Operand o_in{"in", in, 1, n, n, "1", "n", "n"}, o_out{"out", out, 1, n, n, "1", "n", "n"};
  detail::require_addressable(call, o_in);
  detail::require_addressable(call, o_out);
  detail::require_disjoint(call, o_out, o_in);
  TK_DISPATCH(dev, copy, dev, n, in, out);
}

void vector_add(const Queue& queue, std::int64_t n, const float* a, const float* b, float* c) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::vector_add";
  require_nonnegative(call, "n", n);
  if (n == 0) return;
  detail::check_pointer(dev, a, call, "a");
  detail::check_pointer(dev, b, call, "b");
  detail::check_pointer(dev, c, call, "c");
  const Operand o_a{"a", a, 1, n, n, "1", "n", "n"}, o_b{"b", b, 1, n, n, "1", "n", "n"},
      o_c{"c", c, 1, n, n, "1", "n", "n"};
  for (const Operand* o : {&o_a, &o_b, &o_c}) detail::require_addressable(call, *o);
  detail::require_same_or_disjoint(call, o_c, o_a);
  detail::require_same_or_disjoint(call, o_c, o_b);
  TK_DISPATCH(dev, vector_add, dev, n, a, b, c);
}

void matrix_add(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,
                const float* B, std::int64_t ldb, float* C, std::int64_t ldc) {
  const detail::OnQueue on(queue, __func__);
  const Device& dev = queue.device();
  const char* call = "tk::matrix_add";
  require_nonnegative(call, "rows", rows);
  require_nonnegative(call, "cols", cols);
  detail::require_ld(call, "lda", lda, "cols", cols);
  detail::require_ld(call, "ldb", ldb, "cols", cols);
  detail::require_ld(call, "ldc", ldc, "cols", cols);
  if (rows == 0 || cols == 0) return;
  detail::check_pointer(dev, A, call, "A");
  detail::check_pointer(dev, B, call, "B");
  detail::check_pointer(dev, C, call, "C");
  const Operand o_a{"A", A, rows, cols, lda, "rows", "cols", "lda"},
      o_b{"B", B, rows, cols, ldb, "rows", "cols", "ldb"}, o_c{"C", C, rows, cols, ldc, "rows", "cols", "ldc"};
  for (const Operand* o : {&o_a, &o_b, &o_c}) detail::require_addressable(call, *o);
  detail::require_same_or_disjoint(call, o_c, o_a);
  detail::require_same_or_disjoint(call, o_c, o_b);
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
