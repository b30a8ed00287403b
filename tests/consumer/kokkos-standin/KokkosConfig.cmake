# A stand-in for a Kokkos installed from source or by Spack (CI step 8b): find_package(Kokkos CONFIG) gives
# the target Kokkos::kokkos, here made from Debian's Trilinos Kokkos files. tilekit built against it must
# export Kokkos::kokkos and find it again through its package config (find_dependency).
find_path(KokkosStandin_INCLUDE_DIR Kokkos_Core.hpp PATH_SUFFIXES trilinos NO_CMAKE_PATH)
find_library(KokkosStandin_LIBRARY NAMES trilinos_kokkoscore)
if(NOT KokkosStandin_INCLUDE_DIR OR NOT KokkosStandin_LIBRARY)
  set(Kokkos_FOUND FALSE)
  set(Kokkos_NOT_FOUND_MESSAGE "the stand-in needs Debian's libtrilinos-kokkos-dev")
  return()
endif()
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${KokkosStandin_INCLUDE_DIR}"
                                                  INTERFACE_LINK_LIBRARIES "${KokkosStandin_LIBRARY}")
endif()
set(Kokkos_FOUND TRUE)
