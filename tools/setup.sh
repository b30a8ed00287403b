#!/usr/bin/env bash
# Makes sure building and testing tilekit has what it needs, and installs what is missing where it knows the
# package manager (apt-get on Debian/Ubuntu, dnf on Fedora/RHEL); elsewhere it says what to install.
#   tools/setup.sh            the CPU build. Required: a C++17 compiler with OpenMP, CMake >= 3.24, make or
#                             ninja, GoogleTest, Google Benchmark. Optional (used when present): Kokkos,
#                             OpenBLAS (the CPU matmul ceiling), netlib's BLAS test programs (tools/blas-test.sh).
#   tools/setup.sh hip        and a HIP compiler (hipcc): required.
# It looks for the tools and libraries themselves (commands, headers, a test compile), not for packages, so a
# machine where they came from elsewhere (a source build, Spack, Homebrew, a container) passes as it is.
# TK_SETUP_NO_INSTALL=1: report only (exit 1 if something required is missing). Exit 0 when all required
# parts are there afterwards.
set -uo pipefail

want_hip=0
for extra in "$@"; do
  case "$extra" in
    hip) want_hip=1 ;;
    *) echo "tools/setup.sh: unknown extra '$extra' (expected: hip)" >&2; exit 2 ;;
  esac
done

find_cxx() {  # $CXX, else the first of c++, g++, clang++ on the PATH (looked up again after an install)
  cxx=${CXX:-}
  if [ -z "$cxx" ]; then
    for c in c++ g++ clang++; do command -v "$c" >/dev/null && { cxx=$c; break; }; done
  fi
}
incdirs=(/usr/include /usr/local/include /usr/include/x86_64-linux-gnu /opt/homebrew/include)
have_header() {  # have_header PATH...: any of these headers under a usual include directory
  local d h
  for h in "$@"; do for d in "${incdirs[@]}"; do [ -f "$d/$h" ] && return 0; done; done
  return 1
}
compiles() {  # compiles FLAGS...: a program with main compiles and links with these flags
  find_cxx
  [ -n "$cxx" ] || return 1
  local dir; dir=$(mktemp -d)
  printf '#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n' >"$dir/t.cpp"
  "$cxx" -std=c++17 "$@" "$dir/t.cpp" -o "$dir/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$dir"
  return $rc
}
cmake_ok() {
  command -v cmake >/dev/null || return 1
  local v; v=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+' | head -1)
  [ "$(printf '%s\n3.24\n' "$v" | sort -V | head -1)" = 3.24 ]
}

have_build_tool() { command -v make || command -v ninja; }
have_gtest() { have_header gtest/gtest.h || [ -f /usr/src/googletest/CMakeLists.txt ]; }
have_openblas() { have_header cblas.h openblas/cblas.h && ldconfig -p 2>/dev/null | grep -q libopenblas; }
have_blas_tests() { [ -x /usr/lib/x86_64-linux-gnu/blas/xblat3s ] || [ -n "${TK_BLAS_TEST_DIR:-}" ]; }

# part: name | required (1) or optional (0) | the check | Debian package | Fedora package
parts=(
  "C++17 compiler with OpenMP|1|compiles -fopenmp|g++|gcc-c++ libgomp"
  "CMake >= 3.24|1|cmake_ok|cmake|cmake"
  "make or ninja|1|have_build_tool|make|make"
  "GoogleTest|1|have_gtest|libgtest-dev|gtest-devel"
  "Google Benchmark|1|have_header benchmark/benchmark.h|libbenchmark-dev|google-benchmark-devel"
  "Kokkos|0|have_header trilinos/Kokkos_Core.hpp Kokkos_Core.hpp|libtrilinos-kokkos-dev|"
  "OpenBLAS|0|have_openblas|libopenblas-dev|openblas-devel"
  "netlib BLAS test programs|0|have_blas_tests|libblas-test|"
)
[ "$want_hip" = 1 ] && parts+=("HIP compiler (hipcc)|1|command -v hipcc|hipcc|")

manager=""
if command -v apt-get >/dev/null; then manager=apt-get; elif command -v dnf >/dev/null; then manager=dnf; fi

check_all() {  # sets missing_req, missing_opt (descriptions) and pkgs (to install with $manager)
  missing_req=() missing_opt=() pkgs=()
  local p name req check apt dnf pkg
  for p in "${parts[@]}"; do
    IFS='|' read -r name req check apt dnf <<<"$p"
    $check >/dev/null 2>&1 && continue  # a function or command and its arguments
    pkg=""
    [ "$manager" = apt-get ] && pkg=$apt
    [ "$manager" = dnf ] && pkg=$dnf
    if [ "$req" = 1 ]; then missing_req+=("$name${apt:+ (Debian: $apt${dnf:+; Fedora: $dnf})}")
    else missing_opt+=("$name${apt:+ (Debian: $apt${dnf:+; Fedora: $dnf})}"); fi
    [ -n "$pkg" ] && pkgs+=($pkg)
  done
}

check_all
if [ ${#pkgs[@]} -gt 0 ] && [ -n "$manager" ] && [ "${TK_SETUP_NO_INSTALL:-0}" = 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "tools/setup.sh: installing ${pkgs[*]} with $manager"
  if [ "$manager" = apt-get ]; then
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}"
  else
    $sudo dnf install -y "${pkgs[@]}"
  fi
  check_all
fi
for m in "${missing_opt[@]}"; do echo "tools/setup.sh: optional, not found: $m" >&2; done
if [ ${#missing_req[@]} -gt 0 ]; then
  how=""
  [ -n "$manager" ] && how=" (and not installed by $manager)"
  [ "${TK_SETUP_NO_INSTALL:-0}" != 0 ] && how=" (TK_SETUP_NO_INSTALL: nothing installed)"
  echo "tools/setup.sh: required, not found$how:" >&2
  for m in "${missing_req[@]}"; do echo "  - $m" >&2; done
  echo "Install them with your system's package manager or from source, then run this again." >&2
  exit 1
fi
exit 0
