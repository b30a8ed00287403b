// tests/support.hpp — what every test shares: the backends to instantiate for, random inputs,
// NaN poisoning and comparison against a double-precision reference.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tilekit/tilekit.hpp"

namespace tk {
// gtest prints a parameter through PrintTo, found by argument-dependent lookup.
inline void PrintTo(Backend b, std::ostream* os) { *os << to_string(b); }
}  // namespace tk

namespace tk::test {

// Every backend this build has; a test instantiated for a backend with no device skips with the reason.
inline std::vector<Backend> built_backends() {
  std::vector<Backend> out;
  for (Backend b : {Backend::cpu, Backend::cuda, Backend::hip, Backend::kokkos})
    if (backend_built(b)) out.push_back(b);
  return out;
}

// The backends that compile tilekit's own kernel layer (Kokkos has its own implementations).
inline std::vector<Backend> kernel_backends() {
  std::vector<Backend> out;
  for (Backend b : built_backends())
    if (b != Backend::kokkos) out.push_back(b);
  return out;
}

// The first device of a backend, or a skip naming why there is none.
#define TK_DEVICE_OR_SKIP(var, backend)                                                                    \
  if (::tk::device_count(backend) == 0)                                                                    \
    GTEST_SKIP() << "no " << ::tk::to_string(backend) << " device: " << ::tk::unavailable_reason(backend); \
  const ::tk::Device var = (backend) == ::tk::Backend::cuda     ? ::tk::Device::cuda(0)                    \
                           : (backend) == ::tk::Backend::hip    ? ::tk::Device::hip(0)                     \
                           : (backend) == ::tk::Backend::kokkos ? ::tk::Device::kokkos()                   \
                                                                : ::tk::Device::cpu()

// Fresh inputs on every call: the seed comes from a random device, printed on failure by the caller.
inline std::vector<float> random_floats(std::size_t n, std::mt19937_64& rng, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// TK_TEST_SEED=<n>: every fresh seed is n, to run a failure's inputs again (where the test prints its seed).
inline std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("TK_TEST_SEED"); s != nullptr && *s != '\0') return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

// AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, Clang before 2025 only __has_feature(address_sanitizer).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TK_TEST_HAS_ASAN 1
#endif
#endif
#ifndef TK_TEST_HAS_ASAN
#define TK_TEST_HAS_ASAN 0
#endif

// Checked mode (TK_CHECKED) checks every access of every thread and runs tens of times slower than a plain
// build; AddressSanitizer several times. There the GEMM tests that run a product of shapes and storages (op(A),
// op(B), layout) run half of it, a Latin half: shape `shape` in storage `storage` when the shape's index and the
// storage's parity (below) agree, even in checked mode, odd under AddressSanitizer (+ UBSan). So each pair runs
// under one of the two kinds of checks, not both (and where a test runs fewer storages in checked mode, as
// GemmSmallSide's row-major only, the pairs it leaves out there run unchecked). A storage's parity is that of its transposes and its layout together, so
// each shape runs both op(A)s and both op(B)s (row-major NN and TT for even shapes in checked mode, NT and TN for
// odd ones), and every storage runs half the shapes. Every other build (cpu, hip-cpu) runs the whole product of
// the same kernels (but hip-cpu's 16-bit GEMM tests, tests/test_gemm16.cpp). Kept apart so that CI stays under its minutes (docs/contributing.md).
inline bool in_instrumented_half(std::size_t shape, std::size_t storage) {
#if defined(TK_CHECKED)
  return (shape + storage) % 2 == 0;
#elif defined(__SANITIZE_ADDRESS__) || TK_TEST_HAS_ASAN
  return (shape + storage) % 2 == 1;
#else
  (void)shape;
  (void)storage;
  return true;
#endif
}
// A storage's parity for in_instrumented_half: op(A) transposed, op(B) transposed and column-major, added.
inline std::size_t storage_index(Op oa, Op ob, Layout layout = Layout::row_major) {
  return std::size_t(layout == Layout::col_major) + std::size_t(oa == Op::trans) + std::size_t(ob == Op::trans);
}

inline std::vector<float> nans(std::size_t n) { return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()); }

// Compares got with a double reference: |got - ref| <= tol_abs + tol_rel * |ref| for every index; reports
// the first 10 mismatches (an unwritten, NaN-poisoned element always fails).
inline ::testing::AssertionResult all_close(const std::vector<float>& got, const std::vector<double>& ref,
                                            double tol_abs, double tol_rel) {
  if (got.size() != ref.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != reference size " << ref.size();
  std::size_t bad = 0;
  auto fail = ::testing::AssertionFailure();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = ref[i];
    if (!(std::fabs(g - r) <= tol_abs + tol_rel * std::fabs(r))) {
      if (bad < 10) fail << "\n  [" << i << "] got " << g << ", expected " << r;
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return fail << "\n  " << bad << " of " << got.size() << " elements differ";
}

// Expects `stmt` to throw tk::Error whose message contains every one of `parts`.
#define TK_EXPECT_ERROR(stmt, ...)                                        \
  do {                                                                    \
    try {                                                                 \
      stmt;                                                               \
      ADD_FAILURE() << "expected tk::Error from: " #stmt;                 \
    } catch (const ::tk::Error& e) {                                      \
      for (const char* part : {__VA_ARGS__})                              \
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos)    \
            << "message \"" << e.what() << "\" lacks \"" << part << "\""; \
    }                                                                     \
  } while (0)

// Host address space reserved, not committed: only the pages a test touches take memory, so tests of
// indices past 2^31 on the host's devices (cpu, kokkos) run anywhere, CI included. data() is null when the
// system refuses the reservation.
class Reservation {
 public:
  explicit Reservation(std::size_t floats) : bytes_(floats * sizeof(float)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    p_ = p == MAP_FAILED ? nullptr : static_cast<float*>(p);
  }
  ~Reservation() {
    if (p_ != nullptr) munmap(p_, bytes_);
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  float* data() const { return p_; }

 private:
  std::size_t bytes_;
  float* p_;
};

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) { return to_string(info.param); }

}  // namespace tk::test
