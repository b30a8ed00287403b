// tilekit/numeric.hpp — the 16-bit floating-point types of the GEMM inputs, and the math mode of float GEMM.
//
//   tk::bf16   bfloat16: 1 sign, 8 exponent, 7 mantissa bits (float's range, 3 significant digits)
//   tk::f16    IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits (largest finite 65504)
//   tk::Math   tk::Math::exact (true FP32 products) or tk::Math::tf32 (float GEMM may round its inputs to
//              TF32, 10 mantissa bits, and use the tensor cores; as cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH)
//
// Both types are 2 bytes, trivially copyable (tk::Buffer<tk::bf16> works), usable on the host and in kernels.
// Conversions are explicit: tk::bf16(x) and tk::f16(x) round a float to nearest, ties to even (overflow
// gives infinity, NaN stays NaN); float(h) is exact. tk::tf32_round(x) rounds a float to TF32 as the GPU's
// cvt.rna.tf32.f32 does (to nearest, ties away from zero), returned as a float.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__HIP__)
#define TK_HOST_DEVICE __host__ __device__
#else
#define TK_HOST_DEVICE
#endif

namespace tk {

enum class Math { exact, tf32 };
const char* to_string(Math m);

namespace numeric_detail {
TK_HOST_DEVICE inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}
TK_HOST_DEVICE inline float float_of(std::uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace numeric_detail

struct bf16 {
  std::uint16_t bits;

  bf16() = default;
  TK_HOST_DEVICE explicit bf16(float f) : bits(round(f)) {}
  TK_HOST_DEVICE explicit operator float() const { return numeric_detail::float_of(std::uint32_t{bits} << 16); }
  TK_HOST_DEVICE static bf16 from_bits(std::uint16_t b) {
    bf16 h;
    h.bits = b;
    return h;
  }

 private:
  TK_HOST_DEVICE static std::uint16_t round(float f) {
    const std::uint32_t u = numeric_detail::bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN stays quiet NaN
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
};

struct f16 {
  std::uint16_t bits;

  f16() = default;
  TK_HOST_DEVICE explicit f16(float f) : bits(round(f)) {}
  TK_HOST_DEVICE explicit operator float() const {
    const std::uint32_t sign = std::uint32_t{bits & 0x8000u} << 16, e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
    if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
      const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
      return numeric_detail::float_of(numeric_detail::bits_of(v) | sign);
    }
    if (e == 31) return numeric_detail::float_of(sign | 0x7f800000u | (m << 13));  // Inf, NaN
    return numeric_detail::float_of(sign | ((e + 112u) << 23) | (m << 13));
  }
  TK_HOST_DEVICE static f16 from_bits(std::uint16_t b) {
    f16 h;
    h.bits = b;
    return h;
  }

 private:
  TK_HOST_DEVICE static std::uint16_t round(float f) {
    std::uint32_t x = numeric_detail::bits_of(f);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((x >> 13) & 0x3ffu));  // NaN
    if (x >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: rounds to Inf
    if (x >= 0x38800000u) {  // a normal half (>= 2^-14): rebias the exponent, round at bit 13, ties to even
      x += 0xc8000fffu + ((x >> 13) & 1u);
      return static_cast<std::uint16_t>(sign | (x >> 13));
    }
    // a subnormal half or zero: m = x * 2^24 rounded to an integer, ties to even; 1024 is the smallest normal
    const float scaled = numeric_detail::float_of(x) * 16777216.0f;  // exact: a power of two
    const float magic = 8388608.0f;  // 2^23: adding it rounds a value below 2^23 to an integer (nearest, even)
    const auto m = static_cast<std::uint32_t>((scaled + magic) - magic);
    return static_cast<std::uint16_t>(sign | m);
  }
};

static_assert(sizeof(bf16) == 2 && sizeof(f16) == 2, "16-bit types");

// x rounded to TF32 (sign, 8 exponent bits, 10 mantissa bits) as cvt.rna.tf32.f32 rounds it: to nearest,
// ties away from zero; Inf and NaN unchanged.
TK_HOST_DEVICE inline float tf32_round(float x) {
  const std::uint32_t u = numeric_detail::bits_of(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  return numeric_detail::float_of((u + 0x1000u) & 0xffffe000u);
}

}  // namespace tk
