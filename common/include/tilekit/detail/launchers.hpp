// tilekit/detail/launchers.hpp — how the launchers every backend provides are declared.
//
// A launcher owns the grid math and the tile constants of an op; the same launcher source,
// kernels/<family>/launch.cpp, is compiled once per target into namespace tk::launchers::<target> (see
// tk_add_kernel_sources in cmake/), and the public entries (common/src/<family>.cpp) check arguments and
// pick the backend's launcher (common/src/dispatch.hpp). The Kokkos backend provides the same list from its
// own, independent implementations (backends/kokkos/). One header per op family declares its launchers:
// launchers_elementwise.hpp, launchers_transpose.hpp, launchers_aos.hpp, launchers_stencil.hpp,
// launchers_experiments.hpp, launchers_matmul.hpp.
#pragma once

// Declares a family's launchers (DECLARE(target), one macro per family) for every target a build may hold.
#if defined(TK_CPU_DISPATCH)  // the CPU copies of a build with runtime dispatch (cmake/TkKernelSources.cmake)
#define TK_DETAIL_CPU_COPIES(DECLARE) DECLARE(cpu_v2) DECLARE(cpu_v3) DECLARE(cpu_v4)
#else
#define TK_DETAIL_CPU_COPIES(DECLARE)
#endif
#define TK_DECLARE_FOR_EVERY_TARGET(DECLARE) \
  DECLARE(cpu) TK_DETAIL_CPU_COPIES(DECLARE) DECLARE(cuda) DECLARE(hip) DECLARE(kokkos)
