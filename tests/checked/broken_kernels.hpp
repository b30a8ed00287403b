// tests/checked/broken_kernels.hpp — the catalogue of broken kernels: each is written the way a newcomer
// gets it wrong, runs without a complaint (and often with the right answer) on the plain CPU target, and
// is reported by checked mode with its bug class (tests/checked/test_checked.cpp). One clean kernel per
// family shows the fix. The catalogue (broken_kernels_catalogue.hpp) comes twice: in namespace broken its
// shared arrays are declared with TK_SHARED_ARRAY, in broken_cuda_way as CUDA code declares them,
// `TK_SHARED float As[T][T];` (the form the seeds' exercises use), and checked mode must catch both.
#pragma once

#include <cstdint>

#include "tilekit/async_copy.hpp"
#include "tilekit/kernel.hpp"
#include "tilekit/mma.hpp"

// clang-format off
#define TK_BROKEN_SHARED(T, name, dims) TK_SHARED_ARRAY(T, name, dims)
namespace tk::kernels::broken {
#include "checked/broken_kernels_catalogue.hpp"  // IWYU pragma: keep
}  // namespace tk::kernels::broken
#undef TK_BROKEN_SHARED
#define TK_BROKEN_SHARED(T, name, dims) TK_SHARED T name dims
namespace tk::kernels::broken_cuda_way {
#include "checked/broken_kernels_catalogue.hpp"  // IWYU pragma: keep
}  // namespace tk::kernels::broken_cuda_way
#undef TK_BROKEN_SHARED
// clang-format on
