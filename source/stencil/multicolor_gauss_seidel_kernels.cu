// CUDA kernels of gpumf::MultiColorGaussSeidel: one thread per row of the ELL stencil
// (slot-major, so the threads of a warp read consecutive entries of each slot).
#include <gpumf/internal/cuda_check.h>

#include "stencil/multicolor_gauss_seidel_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int block_size = 256;

        template <typename Number>
        __global__ void
        gauss_seidel_color_kernel(const StencilLaunch<Number> stencil,
                                  const unsigned int          begin,
                                  const unsigned int          end,
                                  const Number                omega,
                                  const Number *__restrict__ b,
                                  Number *x)
        {
          const unsigned int r = begin + blockIdx.x * blockDim.x + threadIdx.x;
          if (r >= end)
            return;
          const unsigned int i   = __ldg(stencil.rows + r);
          Number             sum = __ldg(b + i);
          // x is read and written in this launch, but x_j of a column j != i belongs to another
          // color: no thread of this launch writes it
          for (unsigned int k = 0; k < stencil.n_slots; ++k)
            {
              const std::size_t s = std::size_t(k) * stencil.n_rows + r;
              sum -= __ldg(stencil.values + s) * x[__ldg(stencil.columns + s)];
            }
          x[i] += omega * sum * __ldg(stencil.inverse_diagonal + r);
        }

        template <typename Number>
        __global__ void
        stencil_vmult_kernel(const StencilLaunch<Number> stencil,
                             const Number *__restrict__ src,
                             Number *__restrict__ dst)
        {
          const unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
          if (r >= stencil.n_rows)
            return;
          Number sum = 0;
          for (unsigned int k = 0; k < stencil.n_slots; ++k)
            {
              const std::size_t s = std::size_t(k) * stencil.n_rows + r;
              sum += __ldg(stencil.values + s) * __ldg(src + __ldg(stencil.columns + s));
            }
          dst[__ldg(stencil.rows + r)] = sum;
        }
      } // namespace

      template <typename Number>
      void
      gauss_seidel_color(const StencilLaunch<Number> &stencil,
                         const unsigned int           begin,
                         const unsigned int           end,
                         const Number                 omega,
                         const Number                *b,
                         Number                      *x)
      {
        if (end <= begin)
          return;
        const unsigned int n_blocks = (end - begin + block_size - 1) / block_size;
        gauss_seidel_color_kernel<Number><<<n_blocks, block_size>>>(stencil, begin, end, omega, b, x);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <typename Number>
      void
      stencil_vmult(const StencilLaunch<Number> &stencil, const Number *src, Number *dst)
      {
        if (stencil.n_rows == 0)
          return;
        const unsigned int n_blocks = (stencil.n_rows + block_size - 1) / block_size;
        stencil_vmult_kernel<Number><<<n_blocks, block_size>>>(stencil, src, dst);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      GPUMF_GAUSS_SEIDEL_KERNELS(float, template)
      GPUMF_GAUSS_SEIDEL_KERNELS(double, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
