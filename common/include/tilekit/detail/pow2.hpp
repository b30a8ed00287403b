// tilekit/detail/pow2.hpp — a launcher's run-time choice of a compile-time tile side.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace tk::detail {

// f(std::integral_constant<int, P>{}) for P the smallest power of two at or above n, or MAX (a power of
// two) when n is larger: the launchers instantiate a kernel per P (kernels/transpose and kernels/stencil).
template <int MAX, int P = 1, class F>
void with_pow2_at_least(std::int64_t n, F&& f) {
  static_assert((MAX & (MAX - 1)) == 0 && MAX >= 1, "MAX is a power of two");
  if constexpr (P >= MAX) {
    f(std::integral_constant<int, MAX>{});
  } else {
    if (n <= P) return f(std::integral_constant<int, P>{});
    with_pow2_at_least<MAX, P * 2>(n, std::forward<F>(f));
  }
}

}  // namespace tk::detail
