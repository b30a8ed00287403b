// tilekit/elementwise.hpp — the elementwise ops (copy, vector_add, matrix_add), and the contract of every op.
// Each op runs on `queue`: a tk::Queue, or a tk::Device for its default queue (device.hpp). Every pointer is
// in the memory of the queue's device; matrices are row-major with leading dimensions (element (i, j) of A
// is A[i * lda + j]), BLAS style. Calls on a GPU are queued and return at
// once (Queue::synchronize, Device::synchronize, tk::Buffer copies and tk::Event wait for them); calls on the
// CPU return when done. Every argument is checked: bad input throws tk::Error; a size of 0 is a no-op.
//
// The contract every op keeps (here, and in transpose.hpp, aos.hpp, stencil.hpp, experiments.hpp, matmul.hpp):
// - Several host threads may call any op at once, on one queue, on several queues of one device, or on
//   several devices; the calls share no scratch memory. Two calls that may run at once (from two threads,
//   or on two GPU queues not ordered by an Event) must not write memory the other reads or writes.
// - Aliasing is decided on elements: a rows x cols matrix with leading dimension ld touches its rows x cols
//   elements, not the gaps between its rows. An output may share no element with an input unless the op
//   says it may be the very same array (in-place ops); disjoint blocks of one array are accepted.
// - Sizes, leading dimensions and extents are checked without overflow; an operand that cannot fit in the
//   address space throws tk::Error naming the arguments. Pointers must be aligned to their element type.
#pragma once

#include <cstdint>

#include "tilekit/buffer.hpp"
#include "tilekit/device.hpp"

namespace tk {

// out[i] = in[i] for 0 <= i < n. The ranges must share no element. (The bandwidth ceiling of the benchmark.)
void copy(const Queue& queue, std::int64_t n, const float* in, float* out);

// c[i] = a[i] + b[i] for 0 <= i < n. c may be a or b (the same pointer), or share no element with it.
void vector_add(const Queue& queue, std::int64_t n, const float* a, const float* b, float* c);

// C = A + B, all rows x cols, row-major; lda, ldb, ldc >= cols. C may be A or B (same pointer and leading
// dimension), or share no element with it.
void matrix_add(const Queue& queue, std::int64_t rows, std::int64_t cols, const float* A, std::int64_t lda,
                const float* B, std::int64_t ldb, float* C, std::int64_t ldc);

// Buffer forms: the device is the buffers' (all must share it), n is their size (all must match).
void copy(const Buffer<float>& in, Buffer<float>& out);
void vector_add(const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c);

}  // namespace tk
