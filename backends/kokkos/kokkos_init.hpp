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
      Kokkos::initialize();
      std::atexit([] {
        if (Kokkos::is_initialized()) Kokkos::finalize();
      });
    }
  });
}

}  // namespace tk::launchers::kokkos
