/**
 * @file gpumf/internal/index_loop.h
 * cuda_for_each_index(n, f, what): `f(i)` for every i in [0, n) as a grid-stride CUDA kernel,
 * where the caller is compiled by nvcc (256 threads a block, at most 65535 blocks; returns before
 * the GPU is done). In a file compiled by a host compiler it throws, naming @p what: the kernel
 * can only be instantiated by nvcc. The one launcher behind Vector::transform() and
 * gpumf::Kokkos::parallel_for().
 */
#ifndef gpumf_internal_index_loop_h
#define gpumf_internal_index_loop_h

#include <gpumf/backend.h>
#include <gpumf/config.h>

#include <cstddef>
#include <string>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>

#  include <algorithm>
#endif

namespace gpumf
{
  namespace internal
  {
#ifdef __CUDACC__
    inline namespace nvcc_compiled
    {
      template <typename Function>
      __global__ void
      index_kernel(const std::size_t n, const Function f)
      {
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
             i += std::size_t(gridDim.x) * blockDim.x)
          f(i);
      }

      template <typename Function>
      void
      cuda_for_each_index(const std::size_t n, const Function &f, const char *)
      {
        if (n == 0)
          return;
        constexpr unsigned int block  = 256;
        const std::size_t      blocks = std::min<std::size_t>((n + block - 1) / block, 65535);
        index_kernel<<<static_cast<unsigned int>(blocks), block>>>(n, f);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }
    } // namespace nvcc_compiled
#else
    inline namespace host_compiled
    {
      template <typename Function>
      void
      cuda_for_each_index(const std::size_t, const Function &, const char *what)
      {
        AssertThrow(false,
                    ExcNotSupported(std::string(what) +
                                    ", called from a file compiled by a host compiler: compile the call in a .cu file "
                                    "with nvcc, or use the host backend (GPUMF_BACKEND=host)."));
      }
    } // namespace host_compiled
#endif
  } // namespace internal
} // namespace gpumf

#endif
