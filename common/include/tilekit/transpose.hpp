// tilekit/transpose.hpp — transpose (seed 003): naive, through shared memory, with padding against bank conflicts.
//
// Every pointer is in the memory of the queue's device; matrices are row-major with leading dimensions
// (element (i, j) of A is A[i * lda + j]). Calls on a GPU are queued on the device and return at once; calls
// on the CPU return when done. Every argument is checked: bad input throws tk::Error; a size of 0 is a
// no-op. The contract shared by every op (threads, aliasing, overflow) is in tilekit/elementwise.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilekit/device.hpp"
#include "tilekit/variants.hpp"

namespace tk {

// ---- Transpose (seed 003) -------------------------------------------------------------------------------

enum class TransposeVariant { naive, smem, smem_padded, best };

// out = in^T, out of place: in is rows x cols (ld_in >= cols), out is cols x rows (ld_out >= rows);
// out(j, i) = in(i, j). in and out must share no element; out's padding columns are left alone. `best` is
// the fastest kernel for the device (GPUs: kernels/transpose/multi_element.hpp and shaped.hpp; CPUs:
// cpu_squares.hpp, cpu_strips.hpp where out's rows are not 64-byte aligned, cpu_skinny.hpp for few rows or
// columns; kernels/transpose/launch.cpp has the rule). Where out's rows are not 64-byte aligned, the CPU's `best`
// times the strips against the squares on half of each of the process's first two calls of at least 2^23 elements
// and 512 rows and columns (calls made while another races are not counted) and keeps the faster for the rest of the
// process (kernels/transpose/cpu_tile.hpp, the race; thread-safe; the result is exact either way; the strips until
// then); tk::transpose_tile_choice tells the pick.
void transpose(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* in, std::int64_t ld_in,
               float* out, std::int64_t ld_out, TransposeVariant variant = TransposeVariant::best);

// The tile `best` takes on `dev` for a rows x cols matrix, and why (on a CPU, from the matrix and the threads:
// kernels/transpose/cpu_tile.hpp). rows and cols >= 1. tk-info prints it.
std::string transpose_tile_choice(const Device& dev, std::int64_t rows, std::int64_t cols);

// The variants, with what each teaches (tests, tk-bench and tk-info iterate these).
const std::vector<VariantInfo<TransposeVariant>>& transpose_variants();  // every variant except best
const char* to_string(TransposeVariant v);

}  // namespace tk
