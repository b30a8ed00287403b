# TkBackends.cmake — decide which GPU/Kokkos backends this build has.
#
# Each of TK_ENABLE_CUDA, TK_ENABLE_HIP, TK_ENABLE_KOKKOS is AUTO (build the backend when its toolchain is
# found), ON (required: configuring fails without it) or OFF. Sets TK_HAVE_CUDA, TK_HAVE_HIP, TK_HAVE_KOKKOS.
include(CheckLanguage)

function(_tk_check_mode var)
  string(TOUPPER "${${var}}" mode)
  if(NOT mode MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${var} is '${${var}}'; expected AUTO, ON or OFF")
  endif()
  set(${var}_MODE ${mode} PARENT_SCOPE)
endfunction()

function(_tk_missing var what)
  if(${var}_MODE STREQUAL "ON")
    message(FATAL_ERROR "${var}=ON but ${what}")
  endif()
  message(STATUS "tilekit: ${var}=AUTO: ${what}; backend not built")
endfunction()

# --- CUDA -------------------------------------------------------------------------------------------
_tk_check_mode(TK_ENABLE_CUDA)
set(TK_HAVE_CUDA OFF)
if(NOT TK_ENABLE_CUDA_MODE STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(TK_HAVE_CUDA ON)
  else()
    _tk_missing(TK_ENABLE_CUDA "no CUDA compiler (nvcc) was found")
  endif()
endif()

# --- HIP --------------------------------------------------------------------------------------------
# Debian packages HIP (apt-get install hipcc) without the ROCm directory layout CMake's HIP language
# expects. When no ROCm install is present but Debian's is, point CMake at it: clang++-15 as the HIP
# compiler, a ROCm root whose lib/cmake/hip-lang links to Debian's, the device-library path, and
# CMAKE_PREFIX_PATH in the environment for the compiler check's try-compile (it needs amd_comgr).
# A user with a real ROCm install (/opt/rocm, or ROCM_PATH) is left alone.
_tk_check_mode(TK_ENABLE_HIP)
set(TK_HAVE_HIP OFF)
# TK_HIP_CPU (the hip-cpu preset): the HIP backend, its runtime glue and every kernel's HIP copy, compiled by the
# C++ compiler against HIP-CPU, AMD's header-only HIP runtime for CPUs (github.com/ROCm/HIP-CPU), whose source
# root is HIP_CPU_ROOT (a cache variable or the environment). The `hip` device is then HIP-CPU's one device:
# the HIP backend runs, and the test suite with it, on a machine without an AMD GPU (tilekit/portability/hip.hpp).
option(TK_HIP_CPU "Build the HIP backend against HIP-CPU (HIP_CPU_ROOT) with the C++ compiler" OFF)
set(TK_HIP_CPU_ACTIVE OFF)
if(TK_HIP_CPU AND NOT TK_ENABLE_HIP_MODE STREQUAL "OFF")
  if(NOT HIP_CPU_ROOT AND DEFINED ENV{HIP_CPU_ROOT})
    set(HIP_CPU_ROOT "$ENV{HIP_CPU_ROOT}")
  endif()
  set(HIP_CPU_ROOT "${HIP_CPU_ROOT}" CACHE PATH "HIP-CPU's source root (holds include/hip/hip_runtime.h)")
  if(NOT EXISTS "${HIP_CPU_ROOT}/include/hip/hip_runtime.h")
    message(FATAL_ERROR "TK_HIP_CPU=ON but HIP_CPU_ROOT ('${HIP_CPU_ROOT}') holds no include/hip/hip_runtime.h: "
                        "clone https://github.com/ROCm/HIP-CPU and set HIP_CPU_ROOT (environment or -D) to it")
  endif()
  find_package(Threads REQUIRED)
  add_library(tk_hip_cpu INTERFACE IMPORTED)
  target_include_directories(tk_hip_cpu SYSTEM INTERFACE "${HIP_CPU_ROOT}/include")
  target_link_libraries(tk_hip_cpu INTERFACE Threads::Threads ${CMAKE_DL_LIBS})
  # libstdc++ runs HIP-CPU's parallel algorithms on TBB when TBB's headers are installed: then it links TBB
  find_package(TBB CONFIG QUIET)
  if(TBB_FOUND)
    target_link_libraries(tk_hip_cpu INTERFACE TBB::tbb)
  endif()
  set(TK_HAVE_HIP ON)
  set(TK_HIP_CPU_ACTIVE ON)
  message(STATUS "tilekit: the HIP backend against HIP-CPU (${HIP_CPU_ROOT}), compiled by ${CMAKE_CXX_COMPILER}")
elseif(NOT TK_ENABLE_HIP_MODE STREQUAL "OFF")
  set(_tk_debian_hip_lang /usr/lib/x86_64-linux-gnu/cmake/hip-lang)
  if(NOT CMAKE_HIP_COMPILER AND NOT DEFINED ENV{ROCM_PATH} AND NOT EXISTS /opt/rocm AND EXISTS ${_tk_debian_hip_lang})
    find_program(TK_DEBIAN_HIP_CLANG NAMES clang++-15)
    if(TK_DEBIAN_HIP_CLANG)
      set(_tk_rocm_root "${CMAKE_BINARY_DIR}/tk-debian-rocm")
      file(MAKE_DIRECTORY "${_tk_rocm_root}/lib/cmake")
      file(CREATE_LINK ${_tk_debian_hip_lang} "${_tk_rocm_root}/lib/cmake/hip-lang" SYMBOLIC)
      set(CMAKE_HIP_COMPILER ${TK_DEBIAN_HIP_CLANG} CACHE FILEPATH "HIP compiler")
      set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_tk_rocm_root}" CACHE PATH "ROCm root for CMake's HIP language")
      set(CMAKE_HIP_FLAGS "--rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode ${CMAKE_HIP_FLAGS}"
          CACHE STRING "HIP flags" FORCE)
      set(ENV{CMAKE_PREFIX_PATH} "/usr/lib/x86_64-linux-gnu/cmake:$ENV{CMAKE_PREFIX_PATH}")
      list(APPEND CMAKE_PREFIX_PATH /usr/lib/x86_64-linux-gnu/cmake)
      message(STATUS "tilekit: using Debian's HIP (${TK_DEBIAN_HIP_CLANG}, ROCm root ${_tk_rocm_root})")
    endif()
  endif()
  if(NOT CMAKE_HIP_COMPILER)
    check_language(HIP)
  endif()
  if(CMAKE_HIP_COMPILER)
    enable_language(HIP)
    find_package(hip CONFIG REQUIRED)
    set(CMAKE_HIP_STANDARD 17)
    set(CMAKE_HIP_STANDARD_REQUIRED ON)
    set(TK_HAVE_HIP ON)
  else()
    _tk_missing(TK_ENABLE_HIP "no HIP compiler was found")
  endif()
endif()

# --- Kokkos -----------------------------------------------------------------------------------------
# A Kokkos CMake package (a source or Spack install) when one is named (Kokkos_DIR or Kokkos_ROOT, as a
# variable or in the environment); else Debian's Trilinos Kokkos (libtrilinos-kokkos-dev), whose CMake
# package names a missing include directory: its headers are in /usr/include/trilinos and its library is
# libtrilinos_kokkoscore, used as files; else find_package(Kokkos). Kokkos's default execution space is used:
# a host one, or CUDA (TK_KOKKOS_CUDA: backends/kokkos is then compiled as CUDA).
# TK_KOKKOS_KIND (package or trilinos) tells the installed package config how to find it again
# (cmake/tilekitConfig.cmake.in), and TK_KOKKOS_LINK what the exported target links: Kokkos::kokkos, or the
# library by name (no absolute path in the exported targets).
_tk_check_mode(TK_ENABLE_KOKKOS)
set(TK_HAVE_KOKKOS OFF)
if(NOT TK_ENABLE_KOKKOS_MODE STREQUAL "OFF")
  set(_tk_kokkos_named OFF)
  if(Kokkos_DIR OR Kokkos_ROOT OR DEFINED ENV{Kokkos_DIR} OR DEFINED ENV{Kokkos_ROOT})
    set(_tk_kokkos_named ON)
  endif()
  if(NOT _tk_kokkos_named)
    find_path(TK_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos NO_CMAKE_PATH)
    find_library(TK_KOKKOS_LIBRARY NAMES trilinos_kokkoscore)
  endif()
  if(NOT _tk_kokkos_named AND TK_KOKKOS_INCLUDE_DIR AND TK_KOKKOS_LIBRARY)
    add_library(tk_kokkos INTERFACE IMPORTED)
    target_include_directories(tk_kokkos INTERFACE ${TK_KOKKOS_INCLUDE_DIR})
    target_link_libraries(tk_kokkos INTERFACE ${TK_KOKKOS_LIBRARY})
    set(TK_KOKKOS_LINK trilinos_kokkoscore)
    set(TK_KOKKOS_KIND trilinos)
    set(TK_HAVE_KOKKOS ON)
  else()
    find_package(Kokkos CONFIG QUIET)
    # Kokkos built for a GPU: CUDA beside tilekit's CUDA backend (its GPU's memory and pointer checks are that
    # backend's), with CUDA as a CMake language (tools/kokkos.sh cuda), so that backends/kokkos is compiled by
    # nvcc. HIP, SYCL and the OpenMP-target backends are not supported.
    set(TK_KOKKOS_CUDA OFF)
    set(_tk_kokkos_refused "")
    if(Kokkos_FOUND)
      foreach(_tk_dev HIP SYCL OPENMPTARGET OPENACC)
        if(Kokkos_ENABLE_${_tk_dev})
          set(_tk_kokkos_refused "Kokkos was built for ${_tk_dev} (Kokkos_DEVICES ${Kokkos_DEVICES}); tilekit's Kokkos backend runs on host execution spaces and CUDA")
        endif()
      endforeach()
      if(Kokkos_ENABLE_CUDA AND NOT _tk_kokkos_refused)
        if(NOT TK_HAVE_CUDA)
          set(_tk_kokkos_refused "Kokkos was built for CUDA and this build has no CUDA backend (TK_ENABLE_CUDA)")
        elseif(NOT Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
          set(_tk_kokkos_refused "Kokkos was built for CUDA without Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE (tools/kokkos.sh cuda builds it so)")
        else()
          set(TK_KOKKOS_CUDA ON)
        endif()
      endif()
    endif()
    if(_tk_kokkos_refused)
      _tk_missing(TK_ENABLE_KOKKOS "${_tk_kokkos_refused}")
    elseif(Kokkos_FOUND)
      add_library(tk_kokkos INTERFACE IMPORTED)
      target_link_libraries(tk_kokkos INTERFACE Kokkos::kokkos)
      set(TK_KOKKOS_LINK Kokkos::kokkos)
      set(TK_KOKKOS_KIND package)
      set(TK_HAVE_KOKKOS ON)
    else()
      _tk_missing(TK_ENABLE_KOKKOS "Kokkos was not found")
    endif()
  endif()
endif()
