// backends/kokkos/kokkos_init.hpp — Kokkos is initialised on first use by tilekit.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <mutex>

namespace tk::launchers::kokkos {

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
