// Runtime dispatch of the CPU kernels (TK_CPU_ARCH=dispatch, cmake/TkKernelSources.cmake): the copy that
// runs is the best one the CPU executes, or the one TK_CPU_ISA asks for; a value that names no level, or one
// above what the CPU runs, is refused with tk::Error on every CPU call. tests/CMakeLists.txt runs these tests
// (and every CPU op test) again under TK_CPU_ISA=x86-64-v2 and -v3, and under a bad value.
#include <cstdlib>
#include <string>
#include <vector>

#include "support.hpp"

namespace tk::test {
namespace {

// This CPU's highest x86-64 level, found here independently of the library (GCC 12's level names); 0 where
// that compiler is not at work.
int hardware_level() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  __builtin_cpu_init();
  return __builtin_cpu_supports("x86-64-v4") ? 4 : __builtin_cpu_supports("x86-64-v3") ? 3 : 2;
#else
  return 0;
#endif
}

std::string env_isa() {
  const char* e = std::getenv("TK_CPU_ISA");
  return e != nullptr ? e : "";
}

// 2-4 for "x86-64-vN", "vN" or "N"; 0 otherwise.
int level_of(std::string v) {
  if (v.rfind("x86-64-", 0) == 0) v = v.substr(7);
  if (!v.empty() && v[0] == 'v') v = v.substr(1);
  return v == "2" ? 2 : v == "3" ? 3 : v == "4" ? 4 : 0;
}

bool dispatching() { return tk::cpu_kernel_isa().rfind("one copy", 0) != 0; }

TEST(CpuIsa, NamesTheCopyThatRuns) {
  const std::string isa = tk::cpu_kernel_isa();
  if (!dispatching()) GTEST_SKIP() << "no runtime dispatch in this build: " << isa;
  const int hw = hardware_level();
  const std::string want = env_isa();
  if (!want.empty() && (level_of(want) == 0 || (hw != 0 && level_of(want) > hw)))
    GTEST_SKIP() << "TK_CPU_ISA=" << want << " is refused: CpuIsa.BadValueIsRefusedByEveryCpuCall";
  const int expected = want.empty() ? hw : level_of(want);
  if (expected == 0) GTEST_SKIP() << "this compiler cannot name the CPU's level: " << isa;
  EXPECT_EQ(isa.rfind("x86-64-v" + std::to_string(expected) + " ", 0), 0u) << isa;
}

TEST(CpuIsa, TheCopyComputes) {
  // The op tests check every result under each copy (the ctest runs above); this one call shows the
  // dispatched copy is reached at all.
  if (!dispatching()) GTEST_SKIP() << "no runtime dispatch in this build";
  const std::string want = env_isa();
  if (!want.empty() && (level_of(want) == 0 || (hardware_level() != 0 && level_of(want) > hardware_level())))
    GTEST_SKIP() << "TK_CPU_ISA=" << want << " is refused";
  const std::int64_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (std::int64_t i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
  tk::vector_add(Device::cpu(), n, a.data(), b.data(), c.data());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], float(3 * i)) << "at " << i;
}

TEST(CpuIsa, BadValueIsRefusedByEveryCpuCall) {
  const std::string want = env_isa();
  const int hw = hardware_level();
  const bool bad = !want.empty() && (level_of(want) == 0 || (hw != 0 && level_of(want) > hw));
  if (!dispatching() || !bad) GTEST_SKIP() << "runs under a TK_CPU_ISA this CPU cannot honour (tests/CMakeLists.txt)";
  EXPECT_EQ(tk::cpu_kernel_isa().rfind("none: ", 0), 0u) << tk::cpu_kernel_isa();
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 0.0f);
  TK_EXPECT_ERROR(tk::vector_add(Device::cpu(), 16, a.data(), b.data(), c.data()), "vector_add", "TK_CPU_ISA",
                  want.c_str());
  TK_EXPECT_ERROR(tk::matmul(Device::cpu(), 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 0.0f, c.data(), 4), "TK_CPU_ISA");
  EXPECT_EQ(c[0], 0.0f) << "nothing is written";
  // named after the caller's op, not the internal one that serves it (gemm's C = beta C is matrix_scale; a
  // one-row transpose is a copy)
  const auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const tk::Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string scale = message([&] {
    tk::gemm(Device::cpu(), tk::Layout::row_major, tk::Op::none, tk::Op::none, 4, 4, 4, 0.0f, a.data(), 4, b.data(), 4,
             0.5f, c.data(), 4);
  });
  EXPECT_EQ(scale.rfind("tk::gemm: TK_CPU_ISA", 0), 0u) << scale;
  const std::string copy = message([&] { tk::transpose(Device::cpu(), 1, 16, a.data(), 16, c.data(), 1); });
  EXPECT_EQ(copy.rfind("tk::transpose: TK_CPU_ISA", 0), 0u) << copy;
}

}  // namespace
}  // namespace tk::test
