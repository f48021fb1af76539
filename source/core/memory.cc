// Allocation and copies in host and device memory.
#include "core/run_profile.h"

#include <gpumf/internal/cuda_check.h>
#include <gpumf/internal/memory.h>

#include <cstdlib>
#include <cstring>

namespace gpumf
{
  namespace internal
  {
    void
    device_memory_info(std::size_t &free_bytes, std::size_t &total_bytes)
    {
#if GPUMF_WITH_CUDA
      GPUMF_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
#else
      free_bytes = total_bytes = 0;
      AssertThrow(false, ExcNoGPU("gpumf was built without CUDA"));
#endif
    }

    void *
    allocate(const Backend backend, const std::size_t bytes)
    {
      if (backend == Backend::host)
        {
          void *ptr = std::malloc(bytes);
          AssertThrow(ptr != nullptr || bytes == 0, ExcHostOutOfMemory(bytes));
          return ptr;
        }
#if GPUMF_WITH_CUDA
      void             *ptr = nullptr;
      RunTimer          timer(RunPart::device_allocate);
      const cudaError_t error = cudaMalloc(&ptr, bytes);
      if (error == cudaErrorMemoryAllocation)
        {
          cudaGetLastError(); // the program may go on with a smaller problem
          std::size_t free_bytes = 0, total_bytes = 0;
          cudaMemGetInfo(&free_bytes, &total_bytes);
          AssertThrow(false, ExcDeviceOutOfMemory(bytes, free_bytes, total_bytes));
        }
      GPUMF_CHECK_CUDA(error);
      return ptr;
#else
      AssertThrow(false, ExcNoGPU("gpumf was built without CUDA"));
      return nullptr;
#endif
    }

    void
    deallocate(const Backend backend, void *ptr)
    {
      if (backend == Backend::host)
        std::free(ptr);
#if GPUMF_WITH_CUDA
      else
        {
          RunTimer timer(RunPart::device_free);
          cudaFree(ptr); // no throw from destructors
        }
#endif
    }

    void *
    allocate_pinned(const std::size_t bytes)
    {
#if GPUMF_WITH_CUDA
      void *ptr = nullptr;
      if (bytes > 0)
        GPUMF_CHECK_CUDA(cudaMallocHost(&ptr, bytes));
      return ptr;
#else
      return allocate(Backend::host, bytes);
#endif
    }

    void
    deallocate_pinned(void *ptr)
    {
#if GPUMF_WITH_CUDA
      cudaFreeHost(ptr); // no throw from destructors
#else
      deallocate(Backend::host, ptr);
#endif
    }

    void
    copy(const Backend dst_backend, void *dst, const Backend src_backend, const void *src, const std::size_t bytes)
    {
      if (bytes == 0)
        return;
      if (dst_backend == Backend::host && src_backend == Backend::host)
        {
          std::memcpy(dst, src, bytes);
          return;
        }
#if GPUMF_WITH_CUDA
      GPUMF_CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
#else
      AssertThrow(false, ExcNoGPU("gpumf was built without CUDA"));
#endif
    }

    void
    zero(const Backend backend, void *ptr, const std::size_t bytes)
    {
      if (bytes == 0)
        return;
      if (backend == Backend::host)
        std::memset(ptr, 0, bytes);
#if GPUMF_WITH_CUDA
      else
        GPUMF_CHECK_CUDA(cudaMemset(ptr, 0, bytes));
#endif
    }
  } // namespace internal
} // namespace gpumf
