// The CPU kernels' instruction set: with runtime dispatch (TK_CPU_ARCH=dispatch, the default on x86-64), the
// launchers are compiled for x86-64-v2, -v3 and -v4 (cmake/TkKernelSources.cmake) and each call runs the best
// copy this CPU executes, or the one TK_CPU_ISA asks for. This file is compiled for the baseline (v2).
#include <string>

#include "dispatch.hpp"
#include "tilekit/detail/knobs.hpp"
#include "tilekit/device.hpp"
#include "tilekit/error.hpp"

namespace tk::detail {
namespace {

// The highest x86-64 microarchitecture level this CPU (and its operating system: the compiler's runtime
// checks that the AVX and AVX-512 registers are enabled) runs; 1 below the v2 baseline, 0 off x86-64.
int hardware_level() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return 4;
  if (__builtin_cpu_supports("x86-64-v3")) return 3;
  return __builtin_cpu_supports("x86-64-v2") ? 2 : 1;
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // Compilers without the level names: the levels' defining features (LZCNT, MOVBE and F16C, also part of
  // v3, come with AVX2 + FMA + BMI2 on every CPU that has those).
  __builtin_cpu_init();
  const bool v2 =
      __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3");
  const bool v3 = v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
  return v4 ? 4 : v3 ? 3 : v2 ? 2 : 1;
#else
  return 0;
#endif
}

// "x86-64-v3", "v3" or "3" -> 3; 0 when it names no level.
int parse_level(const std::string& s) {
  std::string v = s;
  if (v.rfind("x86-64-", 0) == 0) v = v.substr(7);
  if (!v.empty() && v[0] == 'v') v = v.substr(1);
  return v == "2" ? 2 : v == "3" ? 3 : v == "4" ? 4 : 0;
}

const char* level_features(int level) {
  return level == 4 ? "AVX-512" : level == 3 ? "AVX2, FMA" : level == 2 ? "SSE4.2" : "below SSE4.2";
}

struct Choice {
  int level = 0;
  std::string error;  // why no copy can run (a bad TK_CPU_ISA, a CPU below the baseline)
};

Choice choose() {
  const int hw = hardware_level();
  const std::string& want = knobs().cpu_isa;
#if defined(TK_CPU_DISPATCH)
  if (hw < 2) return {0, "this CPU lacks x86-64-v2 (SSE4.2, POPCNT), the lowest copy of the CPU kernels in this build"};
  if (want.empty()) return {hw, ""};
  const int asked = parse_level(want);
  if (asked == 0)
    return {0, "TK_CPU_ISA is '" + want + "'; expected x86-64-v2, x86-64-v3 or x86-64-v4 (or v2, v3, v4)"};
  if (asked > hw)
    return {0, "TK_CPU_ISA is '" + want + "' (" + level_features(asked) +
                   "), which this CPU cannot run (it runs up to x86-64-v" + std::to_string(hw) + ")"};
  return {asked, ""};
#else
  (void)want;
  return {hw, ""};
#endif
}

const Choice& choice() {
  static const Choice& c = *new Choice(choose());  // never destroyed: usable during exit
  return c;
}

}  // namespace

int cpu_kernel_level(const char* op) {
  const Choice& c = choice();
  if (!c.error.empty()) {
    const char* call = current_call();  // the public call the op serves (tk::gemm, not its matrix_scale)
    fail("tk::", call ? call : op, ": ", c.error);
  }
  return c.level;
}

}  // namespace tk::detail

namespace tk {

std::string cpu_kernel_isa() {
  const detail::Choice& c = detail::choice();
#if defined(TK_CPU_DISPATCH)
  if (!c.error.empty()) return "none: " + c.error;
  std::string s = "x86-64-v" + std::to_string(c.level) + " (" + detail::level_features(c.level) +
                  "), picked at run time among x86-64-v2, v3 and v4";
  if (!detail::knobs().cpu_isa.empty()) s += " (TK_CPU_ISA)";
  return s;
#else
  (void)c;
  std::string s = std::string("one copy, -march=") + TK_CPU_ARCH_NAME + " (no runtime dispatch)";
  if (!detail::knobs().cpu_isa.empty()) s += "; TK_CPU_ISA ignored";
  return s;
#endif
}

}  // namespace tk
