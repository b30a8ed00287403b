#!/usr/bin/env bash
# Makes sure building and testing tilekit has what it needs, and installs what is missing where it knows the
# package manager (apt-get on Debian/Ubuntu, dnf on Fedora/RHEL); elsewhere it says what to install.
#   tools/setup.sh            the CPU build. Required: a C++17 compiler with OpenMP, CMake >= 3.25 (what
#                             CMakePresets.json needs), make or ninja, GoogleTest, Google Benchmark. Optional
#                             (used when present): Kokkos, OpenBLAS (the CPU matmul baseline), netlib's BLAS test
#                             programs (tools/blas-test.sh).
#   tools/setup.sh hip        and a HIP compiler (hipcc): required.
# It looks for the tools and libraries themselves (commands, headers, a test compile), not for packages, so a
# machine where they came from elsewhere (a source build, Spack, Homebrew, a container) passes as it is. Headers
# are looked for in $CPATH, $CPLUS_INCLUDE_PATH, <prefix>/include for each prefix of $CMAKE_PREFIX_PATH, and the
# compiler's own search list; hipcc on the PATH, in $ROCM_PATH/bin or in /opt/rocm/bin.
# It prints one line per part: what it found and where, or that it is missing. Before installing it says what
# it will install, and for which part.
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
cmake_needed=3.25  # CMakePresets.json's cmakeMinimumRequired

find_cxx() {  # $CXX, else the first of c++, g++, clang++ on the PATH (looked up again after an install)
  cxx=${CXX:-}
  if [ -z "$cxx" ]; then
    for c in c++ g++ clang++; do command -v "$c" >/dev/null && { cxx=$c; break; }; done
  fi
}
# Include directories, in the order a build would search them: the environment's, each CMake prefix's, the
# compiler's own list (which already holds CPATH's), and the usual places.
include_dirs() {
  local IFS=':' d p prefixes=${CMAKE_PREFIX_PATH:-}
  for d in ${CPATH:-} ${CPLUS_INCLUDE_PATH:-}; do [ -n "$d" ] && echo "$d"; done
  for p in ${prefixes//;/:}; do [ -n "$p" ] && echo "$p/include"; done
  if [ -n "${TK_SETUP_SYSTEM_DIRS+set}" ]; then  # (tools/setup_test.sh: these instead of the system's)
    for d in $TK_SETUP_SYSTEM_DIRS; do echo "$d"; done
    return
  fi
  find_cxx
  if [ -n "$cxx" ]; then
    echo | "$cxx" -x c++ -E -v - 2>&1 >/dev/null | sed -n '/^#include <...> search starts here:/,/^End of search list/p' |
      sed '1d;$d;s/^ *//;s/ (framework directory)$//'
  fi
  printf '%s\n' /usr/include /usr/local/include /usr/include/x86_64-linux-gnu /opt/homebrew/include
}
find_header() {  # find_header PATH...: prints where the first of these headers is found
  local d h
  while read -r d; do
    for h in "$@"; do [ -f "$d/$h" ] && { echo "$d/$h"; return 0; }; done
  done < <(include_dirs)
  return 1
}
compiles() {  # compiles FLAGS...: an OpenMP program with main compiles and links with these flags
  find_cxx
  [ -n "$cxx" ] || return 1
  local dir; dir=$(mktemp -d)
  printf '#include <omp.h>\nint main() { return omp_get_max_threads() > 0 ? 0 : 1; }\n' >"$dir/t.cpp"
  "$cxx" -std=c++17 "$@" "$dir/t.cpp" -o "$dir/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$dir"
  [ $rc -eq 0 ] && echo "$(command -v "$cxx") ($("$cxx" --version | head -1))"
  return $rc
}
cmake_ok() {
  command -v cmake >/dev/null || return 1
  local v; v=$(cmake --version | head -1 | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -1)
  echo "$(command -v cmake) ($v)"
  [ "$(printf '%s\n%s\n' "$v" "$cmake_needed" | sort -V | head -1)" = "$cmake_needed" ]
}
have_command() { command -v "$1"; }
have_build_tool() { command -v make || command -v ninja; }
have_gtest() {  # headers, or Debian's sources (which CMake's FindGTest builds)
  find_header gtest/gtest.h ||
    { [ -z "${TK_SETUP_SYSTEM_DIRS+set}" ] && [ -f /usr/src/googletest/CMakeLists.txt ] && echo /usr/src/googletest; }
}
have_openblas() {
  find_header cblas.h openblas/cblas.h || return 1
  ldconfig -p 2>/dev/null | grep -q libopenblas && return 0
  local IFS=':' p prefixes=${CMAKE_PREFIX_PATH:-}
  for p in ${prefixes//;/:} ${LIBRARY_PATH:-}; do
    ls "$p"/lib*/libopenblas.* "$p"/libopenblas.* >/dev/null 2>&1 && return 0
  done
  return 1
}
have_blas_tests() {
  if [ -n "${TK_BLAS_TEST_DIR:-}" ]; then echo "$TK_BLAS_TEST_DIR"; return 0; fi
  [ -x /usr/lib/x86_64-linux-gnu/blas/xblat3s ] && echo /usr/lib/x86_64-linux-gnu/blas
}
have_hipcc() {  # the PATH, then $ROCM_PATH and /opt/rocm, as the CMake code looks
  command -v hipcc && return 0
  local r
  for r in ${ROCM_PATH:-} /opt/rocm; do [ -x "$r/bin/hipcc" ] && { echo "$r/bin/hipcc"; return 0; }; done
  return 1
}

# part: name | required (1) or optional (0) | the check | Debian package | Fedora package
parts=(
  "C++17 compiler with OpenMP|1|compiles -fopenmp|g++|gcc-c++ libgomp"
  "CMake >= $cmake_needed|1|cmake_ok|cmake|cmake"
  "make or ninja|1|have_build_tool|make|make"
  "GoogleTest|1|have_gtest|libgtest-dev|gtest-devel"
  "Google Benchmark|1|find_header benchmark/benchmark.h|libbenchmark-dev|google-benchmark-devel"
  "Kokkos|0|find_header trilinos/Kokkos_Core.hpp Kokkos_Core.hpp|libtrilinos-kokkos-dev|"
  "OpenBLAS|0|have_openblas|libopenblas-dev|openblas-devel"
  "netlib BLAS test programs|0|have_blas_tests|libblas-test|"
)
[ "$want_hip" = 1 ] && parts+=("HIP compiler (hipcc)|1|have_hipcc|hipcc|")

manager=""
if command -v apt-get >/dev/null; then manager=apt-get; elif command -v dnf >/dev/null; then manager=dnf; fi

# Checks every part; sets missing_req, missing_opt (descriptions), pkgs and why (the package to install and the
# part it is for). With `report`, one line per part.
check_all() {
  missing_req=() missing_opt=() pkgs=() why=()
  local p name req check apt dnf pkg where
  for p in "${parts[@]}"; do
    IFS='|' read -r name req check apt dnf <<<"$p"
    if where=$($check 2>/dev/null); then
      [ "${1:-}" = report ] && echo "tools/setup.sh: $name: found (${where%%$'\n'*})"
      continue
    fi
    [ "${1:-}" = report ] && echo "tools/setup.sh: $name: missing${where:+ (found ${where%%$'\n'*})}" \
      "($([ "$req" = 1 ] && echo required || echo optional))"
    pkg=""
    [ "$manager" = apt-get ] && pkg=$apt
    [ "$manager" = dnf ] && pkg=$dnf
    if [ "$req" = 1 ]; then missing_req+=("$name${apt:+ (Debian: $apt${dnf:+; Fedora: $dnf})}")
    else missing_opt+=("$name${apt:+ (Debian: $apt${dnf:+; Fedora: $dnf})}"); fi
    if [ -n "$pkg" ]; then
      # shellcheck disable=SC2206  # a part may need several packages
      pkgs+=($pkg)
      why+=("$pkg ($name)")
    fi
  done
}

check_all report
if [ ${#pkgs[@]} -gt 0 ] && [ -n "$manager" ] && [ "${TK_SETUP_NO_INSTALL:-0}" = 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "tools/setup.sh: about to install with $manager: ${why[*]}"
  echo "tools/setup.sh: (TK_SETUP_NO_INSTALL=1 reports only; with CMAKE_PREFIX_PATH or CPATH naming your own" \
       "installs, they are found instead)"
  if [ "$manager" = apt-get ]; then
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}"
  else
    $sudo dnf install -y "${pkgs[@]}"
  fi
  echo "tools/setup.sh: after installing:"
  check_all report
fi
for m in ${missing_opt[@]+"${missing_opt[@]}"}; do echo "tools/setup.sh: optional, not found: $m" >&2; done
if [ ${#missing_req[@]} -gt 0 ]; then
  how=""
  [ -n "$manager" ] && how=" (and not installed by $manager)"
  [ "${TK_SETUP_NO_INSTALL:-0}" != 0 ] && how=" (TK_SETUP_NO_INSTALL: nothing installed)"
  echo "tools/setup.sh: required, not found$how:" >&2
  for m in "${missing_req[@]}"; do echo "  - $m" >&2; done
  echo "Install them with your system's package manager or from source (then point CMAKE_PREFIX_PATH or CPATH" \
       "at them), and run this again." >&2
  exit 1
fi
exit 0
