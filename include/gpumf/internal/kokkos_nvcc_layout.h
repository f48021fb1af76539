/**
 * @file
 * Kokkos' class layouts in nvcc's translation units as in Debian's deal.II (g++). CMake includes
 * this header first in every CUDA source compiled against a deal.II with Kokkos (the gpumf
 * target's `--pre-include`).
 *
 * Kokkos 5 writes its View (BasicView) and mdspan members with [[no_unique_address]] unless it
 * sees nvcc (`__NVCC__`): the same headers then give deal.II's classes that hold Views
 * (LinearAlgebra::distributed::Vector<double>: 448 bytes with g++, 480 with nvcc) another size in
 * a .cu file than in the libdeal.ii that g++ built, and the library writes past the objects a .cu
 * file made. Seen with deal.II 9.8 (Kokkos 5.0): nvcc's build of the step-64 port solved with a
 * zero right-hand side on the host backend, then crashed in DataOut::attach_dof_handler().
 * Where deal.II's Kokkos has no CUDA backend (Debian's: Serial only), nvcc must read Kokkos as g++
 * does: Kokkos_Core.hpp is included here first, with __NVCC__ undefined (its include guards keep
 * later inclusions from reading it again). A Kokkos with CUDA was built by nvcc itself: nothing
 * is done.
 */
#ifndef gpumf_internal_kokkos_nvcc_layout_h
#define gpumf_internal_kokkos_nvcc_layout_h

#if defined(__NVCC__) && defined(__has_include)
#  if __has_include(<Kokkos_Core.hpp>)
#    include <Kokkos_Macros.hpp> // (the backends of KokkosCore_config.h; nothing laid out yet)
#    if !defined(KOKKOS_ENABLE_CUDA)
#      pragma push_macro("__NVCC__")
#      undef __NVCC__
#      include <Kokkos_Core.hpp>
#      pragma pop_macro("__NVCC__")
#    endif
#  endif
#endif

#endif
