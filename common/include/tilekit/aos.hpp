// tilekit/aos.hpp — the array-of-structs update (seed 003): direct, staged through shared memory, and the
// struct-of-arrays layout.
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

// ---- Array of structs (seed 003) ------------------------------------------------------------------------

enum class AosVariant { direct, smem_staged };

// The seed's float3 update on n structs {x, y, z} of 3 floats (3n floats, interleaved):
// out[i] = {in[i].x + value, in[i].y + value, in[i].z + value} (the seed adds 2). out may be in, or
// share no element with it.
void float3_add(const Queue& queue, std::int64_t n, const float* in, float* out, float value = 2.f,
                AosVariant variant = AosVariant::smem_staged);

// The same update on the struct-of-arrays layout: in and out hold the n x's, then the n y's, then the
// n z's (3n floats). out may be in, or share no element with it.
void float3_add_soa(const Queue& queue, std::int64_t n, const float* in, float* out, float value = 2.f);

// The variants, with what each teaches (tests, tk-bench and tk-info iterate these).
const std::vector<VariantInfo<AosVariant>>& aos_variants();
const char* to_string(AosVariant v);

}  // namespace tk
