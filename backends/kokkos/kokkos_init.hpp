// backends/kokkos/kokkos_init.hpp — where the Kokkos versions run, and Kokkos initialised on first use.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <mutex>
#include <type_traits>

namespace tk::launchers::kokkos {

// Kokkos's default execution space: a host one (OpenMP, Threads or Serial, over the caller's host memory) or,
// where Kokkos was built for CUDA, the GPU (these sources are then compiled by nvcc, and every pointer an op is
// given is memory of that GPU: detail::check_pointer refuses host memory, as for a CUDA device).
using Space = Kokkos::DefaultExecutionSpace;
inline constexpr bool space_on_host = std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>;
#if defined(KOKKOS_ENABLE_CUDA)
static_assert(space_on_host || std::is_same_v<Space, Kokkos::Cuda>,
              "tilekit's Kokkos backend runs on a host execution space or on Kokkos::Cuda");
#else
static_assert(space_on_host, "tilekit's Kokkos backend runs on a host execution space or on Kokkos::Cuda");
#endif

// Kokkos must be initialised once before use and finalised once at exit; tilekit does both unless the
// application already manages Kokkos itself.
inline void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!Kokkos::is_initialized()) {
      // without Kokkos's advice on OMP_PROC_BIND and the like, printed by every process that uses it
#if KOKKOS_VERSION >= 30700
      Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
      Kokkos::InitArguments args;
      args.disable_warnings = true;
      Kokkos::initialize(args);
#endif
      std::atexit([] {
        if (Kokkos::is_initialized()) Kokkos::finalize();
      });
    }
  });
}

}  // namespace tk::launchers::kokkos
