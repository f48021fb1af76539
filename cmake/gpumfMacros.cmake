# gpumf_add_executable(<name> <sources>...)
# Sources ending in .cu hold user functors for gpumf::MatrixFree::cell_loop. With the CUDA
# backend they are compiled by nvcc (device kernels and host reference both instantiated);
# without it they are compiled as C++ and only the host backend exists.
function(gpumf_add_executable name)
  add_executable(${name} ${ARGN})
  foreach(src IN LISTS ARGN)
    if(src MATCHES "\\.cu$" AND NOT GPUMF_WITH_CUDA)
      set_source_files_properties(${src} PROPERTIES LANGUAGE CXX)
      set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS -x c++)
    endif()
  endforeach()
  if(TARGET gpumf::gpumf)
    target_link_libraries(${name} PRIVATE gpumf::gpumf)
  else()
    target_link_libraries(${name} PRIVATE gpumf)
  endif()
  target_link_options(${name} PRIVATE -Wl,--as-needed)
endfunction()
