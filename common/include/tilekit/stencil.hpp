// tilekit/stencil.hpp — stencils with halo tiles (seed 000): the moving average, the 5-point stencil, 2D convolution.
//
// Every pointer is in the memory of the queue's device; matrices are row-major with leading dimensions
// (element (i, j) of A is A[i * lda + j]). Calls on a GPU are queued on the device and return at once; calls
// on the CPU return when done. Every argument is checked: bad input throws tk::Error; a size of 0 is a
// no-op. The contract shared by every op (threads, aliasing, overflow) is in tilekit/elementwise.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/variants.hpp"

namespace tk {

// ---- Stencils (seed 000: the moving average as an example of data reuse) --------------------------------
//
// Boundary: every element outside the array reads as 0 (zero padding), so each output has the same
// formula everywhere. Sums run in the order written below, in float; the result differs from an exact sum
// by rounding only (the tests state the bound). in and out must share no element.

// best: the fastest for the device — for the 5-point stencil its own kernel (kernels/stencil/
// stencil5_streamed.hpp: each thread streams a strip of rows through registers); for the others the faster
// of naive and smem_tiled on the target.
enum class StencilVariant { naive, smem_tiled, best };

// 1D moving average of radius `radius` (0 <= radius <= 1024):
// out[i] = (x[i - radius] + ... + x[i + radius]) * (1 / (2 * radius + 1)), x[j] = in[j] for 0 <= j < n, else 0.
void moving_average(const Queue& queue, std::int64_t n, const float* in, float* out, int radius,
                    StencilVariant variant = StencilVariant::best);

// 2D 5-point stencil on a rows x cols matrix:
// out(i, j) = center * x(i, j) + side * (x(i - 1, j) + x(i + 1, j) + x(i, j - 1) + x(i, j + 1)),
// x(i, j) = in(i, j) inside the matrix, else 0. (center = side = 0.2: the 5-point average.)
void stencil_5point(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                    float* out, std::int64_t ld_out, float center, float side,
                    StencilVariant variant = StencilVariant::best);

// General 2D convolution with a small (2r + 1) x (2r + 1) filter, r = radius (0 <= r <= 8), row-major in
// device memory. As in image processing and CNNs the filter is not flipped (a cross-correlation):
// out(i, j) = sum over a, b in [-r, r] (a outer, b inner) of filter[(a + r) * (2r + 1) + b + r] * x(i + a, j + b).
void convolve_2d(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
                 const float* filter, int radius, float* out, std::int64_t ld_out,
                 StencilVariant variant = StencilVariant::best);

// The variants, with what each teaches (tests, tk-bench and tk-info iterate these).
const std::vector<VariantInfo<StencilVariant>>& stencil_variants();
const char* to_string(StencilVariant v);

}  // namespace tk
