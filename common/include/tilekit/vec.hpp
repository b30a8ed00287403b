// tilekit/vec.hpp — N-wide vector accesses for kernels: tk::Vec<float, 4> is a float4 on a GPU
// (one 16-byte load or store per thread) and four lanes a CPU compiler packs into vector registers.
// Precondition of load_vec / store_vec: the address is aligned to sizeof(T) * N (launchers check it).
#pragma once

#include "tilekit/kernel.hpp"

namespace tk {
inline namespace TK_TARGET_NS {

template <class T, int N>
struct alignas(sizeof(T) * N) Vec {
  static_assert((N & (N - 1)) == 0 && N >= 1 && N <= 16, "N is a power of two, at most 16");
  T v[N];
};

// A GPU needs the access through the aligned vector type to emit one wide instruction; a CPU compiler
// vectorising a phase across threads needs plain element accesses (it cannot widen an aggregate copy),
// so the target says which (vec_by_element, in target/*.hpp).
template <int N, class T>
TK_DEVICE Vec<T, N> load_vec(const T* p) {
  if constexpr (vec_by_element) {
    Vec<T, N> r;
    for (int k = 0; k < N; ++k) r.v[k] = p[k];
    return r;
  } else {
    return *reinterpret_cast<const Vec<T, N>*>(p);
  }
}

template <int N, class T>
TK_DEVICE void store_vec(T* p, const Vec<T, N>& x) {
  if constexpr (vec_by_element) {
    for (int k = 0; k < N; ++k) p[k] = x.v[k];
  } else {
    *reinterpret_cast<Vec<T, N>*>(p) = x;
  }
}

}  // namespace TK_TARGET_NS
}  // namespace tk
