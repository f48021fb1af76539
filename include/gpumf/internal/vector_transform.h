/**
 * @file gpumf/internal/vector_transform.h
 * Vector::transform(): a CUDA kernel where the caller is compiled by nvcc, the host loop
 * otherwise.
 */
#ifndef gpumf_internal_vector_transform_h
#define gpumf_internal_vector_transform_h

#include <gpumf/vector.h>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>
#endif

namespace gpumf
{
  namespace internal
  {
#ifdef __CUDACC__
    inline namespace nvcc_compiled
    {
      template <typename Number, typename Function>
      __global__ void
      transform_kernel(Number *x, const std::size_t n, const Function f)
      {
        for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
             i += std::size_t(gridDim.x) * blockDim.x)
          x[i] = f(x[i]);
      }

      template <typename Number, typename Function>
      void
      cuda_transform(Number *x, const std::size_t n, const Function &f)
      {
        if (n == 0)
          return;
        constexpr unsigned int block  = 256;
        const std::size_t      blocks = std::min<std::size_t>((n + block - 1) / block, 65535);
        transform_kernel<<<static_cast<unsigned int>(blocks), block>>>(x, n, f);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }
    } // namespace nvcc_compiled
#else
    inline namespace host_compiled
    {
      template <typename Number, typename Function>
      void
      cuda_transform(Number *, const std::size_t, const Function &)
      {
        AssertThrow(false,
                    ExcNotSupported("gpumf::Vector::transform() on a vector of the CUDA backend, called from a file "
                                    "compiled by a host compiler: compile the call in a .cu file with nvcc, or use "
                                    "the host backend (GPUMF_BACKEND=host)."));
      }
    } // namespace host_compiled
#endif
  } // namespace internal

  template <typename Number>
  template <typename Function, typename Compiler>
  void
  Vector<Number>::transform(const Function &f)
  {
    zero_out_ghost_values(); // they would no longer match
    Number *const     x = get_values();
    const std::size_t n = locally_owned_size();
    if (backend() == Backend::host)
      for (std::size_t i = 0; i < n; ++i)
        x[i] = f(x[i]);
    else
      internal::cuda_transform(x, n, f);
  }
} // namespace gpumf

#endif
