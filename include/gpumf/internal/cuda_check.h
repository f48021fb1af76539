/**
 * @file gpumf/internal/cuda_check.h
 * GPUMF_CHECK_CUDA(call): throws gpumf::ExcCudaError when a CUDA runtime call fails
 * (deal.II's AssertCuda, but active in release builds too).
 */
#ifndef gpumf_internal_cuda_check_h
#define gpumf_internal_cuda_check_h

#include <gpumf/config.h>

#if GPUMF_WITH_CUDA
#  include <cuda_runtime_api.h>
#  include <gpumf/backend.h>

#  define GPUMF_CHECK_CUDA(call)                                                                                  \
    do                                                                                                            \
      {                                                                                                           \
        const cudaError_t gpumf_error_ = (call);                                                                  \
        AssertThrow(gpumf_error_ == cudaSuccess, ::gpumf::ExcCudaError(#call, cudaGetErrorString(gpumf_error_))); \
      }                                                                                                           \
    while (false)
#endif

#endif
