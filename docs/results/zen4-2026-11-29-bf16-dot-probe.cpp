// The pair dot product against the FMA on one core (host C, 2026-11-29): 24 independent vdpbf16ps (32 multiply-adds
// each) against 24 independent 512-bit FMAs (16 each), GMAC/s. g++ -O2 zen4-2026-11-29-bf16-dot-probe.cpp; run 3 times.
#include <immintrin.h>
#include <chrono>
#include <cstdio>
template <class F>
double run(F f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
__attribute__((target("avx512f,avx512bf16"))) float dot(long n) {
  __m512 c[24];
  for (int i = 0; i < 24; ++i) c[i] = _mm512_set1_ps(0.f);
  __m512bh a = (__m512bh)_mm512_set1_epi32(0x3f803f80), b = (__m512bh)_mm512_set1_epi32(0x3f803f80);
  for (long k = 0; k < n; ++k) {
    for (int i = 0; i < 24; ++i) c[i] = _mm512_dpbf16_ps(c[i], a, b);
    __asm__ volatile("" : "+v"(a));
  }
  __m512 s = c[0];
  for (int i = 1; i < 24; ++i) s = _mm512_add_ps(s, c[i]);
  return _mm512_reduce_add_ps(s);
}
__attribute__((target("avx512f"))) float fma(long n) {
  __m512 c[24];
  for (int i = 0; i < 24; ++i) c[i] = _mm512_set1_ps(0.f);
  __m512 a = _mm512_set1_ps(1.f), b = _mm512_set1_ps(1.f);
  for (long k = 0; k < n; ++k) {
    for (int i = 0; i < 24; ++i) c[i] = _mm512_fmadd_ps(a, b, c[i]);
    __asm__ volatile("" : "+v"(a));
  }
  __m512 s = c[0];
  for (int i = 1; i < 24; ++i) s = _mm512_add_ps(s, c[i]);
  return _mm512_reduce_add_ps(s);
}
int main() {
  long n = 20000000;
  float r = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double td = run([&] { r += dot(n); }), tf = run([&] { r += fma(n); });
    printf("dpbf16: %.1f GMAC/s  fma512: %.1f GMAC/s  ratio %.2f\n", n * 24 * 32 / td / 1e9, n * 24 * 16 / tf / 1e9,
           (n * 24 * 32 / td) / (n * 24 * 16 / tf));
  }
  return r == 1.f;
}
