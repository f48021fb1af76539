# deal.II's CPU baselines at full SIMD width (doc/performance.md, "deal.II's CPU at full SIMD
# width"). Debian's deal.II 9.4.1 is built with DEAL_II_VECTORIZATION_WIDTH_IN_BITS 0
# (VectorizedArray<double> of width 1). A program made native here compiles against a copy of
# deal.II's config.h with 512 (eight doubles, sixteen floats), first in its include path, for the
# CPU named by GPUMF_NATIVE_SIMD_MARCH (default x86-64-v4: AVX-512, as the GPU machine's Xeon and
# this machine's EPYC have), with hidden symbols, and links gpumf_dealii_native: what the library
# lacks at that width (benchmarks/native_simd/*.cc: MatrixFree, its set-up and the evaluation
# factories, in double and float, 2D and 3D), instantiated from the templates Debian installs.
# The library's own objects keep width 1; classes whose layout does not depend on the width may
# cross between them (the multigrid transfer, MappingQ's internal data: pointers to aligned
# vectors). These programs run on AVX-512 CPUs only, and only against deal.II 9.4.1 (the
# instantiations are 9.4.1's); none is built by default.
#
#   gpumf_dealii_native_simd(<target>)   makes <target>'s deal.II code native (all its sources)
#   gpumf_dealii_native_objects(<name> <source>...)
#                                        an object library of those sources made native, linked
#                                        to gpumf: the deal.II side of a program whose other
#                                        sources (nvcc's among them) keep the library's width
#   GPUMF_DEALII_NATIVE_SIMD             TRUE where this works (deal.II 9.4.1 with width 0)
set(GPUMF_NATIVE_SIMD_MARCH "x86-64-v4" CACHE STRING "-march= of the native-SIMD deal.II baselines (an AVX-512 CPU)")
set(GPUMF_DEALII_NATIVE_SIMD FALSE)
# (not cached: a build folder reconfigured against another deal.II finds that one's)
find_file(gpumf_dealii_config deal.II/base/config.h PATHS ${DEAL_II_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
if(DEAL_II_VERSION VERSION_EQUAL 9.4.1 AND gpumf_dealii_config)
  file(READ ${gpumf_dealii_config} config_text)
  set(width_0 "#define DEAL_II_VECTORIZATION_WIDTH_IN_BITS 0\n")
  if(config_text MATCHES "${width_0}")
    string(REPLACE "${width_0}" "#define DEAL_II_VECTORIZATION_WIDTH_IN_BITS 512\n" config_text "${config_text}")
    set(GPUMF_NATIVE_SIMD_INCLUDE ${PROJECT_BINARY_DIR}/native_simd/include)
    set(shadow ${GPUMF_NATIVE_SIMD_INCLUDE}/deal.II/base/config.h)
    set(old_text "")
    if(EXISTS ${shadow})
      file(READ ${shadow} old_text)
    endif()
    if(NOT old_text STREQUAL config_text) # rewritten only when it changes: no needless rebuilds
      file(WRITE ${shadow} "${config_text}")
    endif()
    set(GPUMF_DEALII_NATIVE_SIMD TRUE)
    set(native_dir ${PROJECT_SOURCE_DIR}/benchmarks/native_simd)
    add_library(gpumf_dealii_native OBJECT EXCLUDE_FROM_ALL ${native_dir}/matrix_free.cc
                ${native_dir}/cell_factory.cc ${native_dir}/face_factory.cc)
    target_include_directories(gpumf_dealii_native PRIVATE ${DEAL_II_INCLUDE_DIRS})
    target_link_libraries(gpumf_dealii_native PRIVATE ${DEAL_II_TARGET_RELEASE} MPI::MPI_CXX)
  endif()
endif()

function(gpumf_dealii_native_flags target)
  target_include_directories(${target} BEFORE PRIVATE ${GPUMF_NATIVE_SIMD_INCLUDE})
  target_compile_options(${target} PRIVATE -march=${GPUMF_NATIVE_SIMD_MARCH} -fvisibility=hidden
                                           -fvisibility-inlines-hidden)
endfunction()

function(gpumf_dealii_native_simd target)
  if(NOT GPUMF_DEALII_NATIVE_SIMD)
    message(FATAL_ERROR "gpumf_dealii_native_simd(${target}): only against Debian's deal.II 9.4.1 "
                        "(DEAL_II_VECTORIZATION_WIDTH_IN_BITS 0); this is deal.II ${DEAL_II_VERSION}")
  endif()
  gpumf_dealii_native_flags(${target})
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:gpumf_dealii_native>)
  set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
endfunction()

function(gpumf_dealii_native_objects name)
  add_library(${name} OBJECT EXCLUDE_FROM_ALL ${ARGN})
  target_link_libraries(${name} PRIVATE gpumf)
  gpumf_dealii_native_flags(${name})
endfunction()

if(GPUMF_DEALII_NATIVE_SIMD)
  gpumf_dealii_native_flags(gpumf_dealii_native)
endif()
