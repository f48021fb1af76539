// Queries of the current CUDA device for the library's set-up (defined in backend.cc, where the
// other device queries are). Internal to the library.
#ifndef gpumf_source_core_device_h
#define gpumf_source_core_device_h

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    /// The shared memory one thread block of the current CUDA device may use (opt-in maximum), in
    /// bytes. Throws ExcNoGPU in a build without CUDA.
    std::size_t
    max_shared_memory_per_block();
  } // namespace internal
} // namespace gpumf

#endif
