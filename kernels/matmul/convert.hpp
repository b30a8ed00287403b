// kernels/matmul/convert.hpp — a matrix converted element by element (the 16-bit GEMMs' path through the
// float kernels, launch_mma.cpp): P(i, j) = To(X(i, j)) for `rows` rows of `cols` elements, X with leading
// dimension ld, P with ldp. The rows over grid y-blocks, a row's elements over x.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tilekit/kernel.hpp"
#include "tilekit/numeric.hpp"

namespace tk::kernels {

template <class From, class To>
TK_KERNEL void matmul_convert(std::int64_t rows, std::int64_t cols, const From* X, std::int64_t ld, To* P,
                              std::int64_t ldp) {
  const std::int64_t nt = tk::block_dim().x, j0 = std::int64_t{tk::block_idx().x} * nt;
  for (std::int64_t i = tk::block_idx().y; i < rows; i += tk::grid_dim().y) {
    TK_THREADS(th) {
      const std::int64_t j = j0 + th.x;
      if (j < cols) {
        if constexpr (std::is_same_v<From, To>) {
          P[i * ldp + j] = X[i * ld + j];  // a copy (packing), doubles included
        } else {
          P[i * ldp + j] = static_cast<To>(static_cast<float>(X[i * ld + j]));
        }
      }
    }
  }
}

}  // namespace tk::kernels
