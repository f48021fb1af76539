// CUDA kernels of gpumf::LocalMatrixOperator: dense element matrices applied per cell.
#include <gpumf/internal/cuda_check.h>

#include "local_matrix_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int max_thread_per_element = 64;

        template <typename Number>
        __device__ const Number *
        matrix_of(const LocalMatrixLaunch<Number> &l, const unsigned int cell)
        {
          return l.shared_matrix ? l.matrices : l.matrices + std::size_t(cell) * l.n * l.n;
        }

        template <typename Number>
        __device__ Number
        entry(const LocalMatrixLaunch<Number> &l, const Number *A, const unsigned int i, const unsigned int j)
        {
          return __ldg(l.transpose ? &A[j * l.n + i] : &A[i * l.n + j]);
        }

        template <typename Number>
        __device__ void
        add(const LocalMatrixLaunch<Number> &l, Number *dst, const unsigned int index, const Number value)
        {
          if (index == 0xffffffffu)
            return;
          if (l.atomic)
            atomicAdd(&dst[index], value);
          else
            dst[index] += value;
        }

        /// The cell's value at local DoF j (zero if constrained or for the diagonal).
        template <typename Number>
        __device__ Number
        gather(const LocalMatrixLaunch<Number> &l, const unsigned int *indices, const unsigned int j, const Number *src)
        {
          return indices[j] == 0xffffffffu || l.diagonal_only ? Number() : src[indices[j]];
        }

        /// Row i of the element matrix times v (or the diagonal entry).
        template <typename Number>
        __device__ Number
        row(const LocalMatrixLaunch<Number> &l, const Number *A, const unsigned int i, const Number *v)
        {
          if (l.diagonal_only)
            return entry(l, A, i, i);
          Number sum = 0;
          for (unsigned int j = 0; j < l.n; ++j)
            sum += entry(l, A, i, j) * v[j];
          return sum;
        }

        template <typename Number>
        __global__ void
        thread_per_element_kernel(const LocalMatrixLaunch<Number> l, const Number *src, Number *dst)
        {
          const unsigned int cell = l.first_cell + blockIdx.x * blockDim.x + threadIdx.x;
          if (cell >= l.first_cell + l.n_cells)
            return;
          const unsigned int *indices = l.local_to_global + std::size_t(cell) * l.n;
          const Number *      A       = matrix_of(l, cell);
          Number              v[max_thread_per_element];
          for (unsigned int j = 0; j < l.n; ++j)
            v[j] = gather(l, indices, j, src);
          for (unsigned int i = 0; i < l.n; ++i)
            add(l, dst, indices[i], row(l, A, i, v));
        }

        template <typename Number>
        __global__ void
        block_per_element_kernel(const LocalMatrixLaunch<Number> l, const Number *src, Number *dst)
        {
          extern __shared__ __align__(16) unsigned char shared_memory[];
          Number *            v       = reinterpret_cast<Number *>(shared_memory);
          const unsigned int  cell    = l.first_cell + blockIdx.x;
          const unsigned int *indices = l.local_to_global + std::size_t(cell) * l.n;
          const Number *      A       = matrix_of(l, cell);
          const unsigned int  i       = threadIdx.x;
          v[i] = gather(l, indices, i, src);
          __syncthreads();
          add(l, dst, indices[i], row(l, A, i, v));
        }
      } // namespace

      template <typename Number>
      void
      local_matrix_thread_per_element(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst)
      {
        if (launch.n_cells == 0)
          return;
        const unsigned int block = 128;
        thread_per_element_kernel<<<(launch.n_cells + block - 1) / block, block>>>(launch, src, dst);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <typename Number>
      void
      local_matrix_block_per_element(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst)
      {
        if (launch.n_cells == 0)
          return;
        block_per_element_kernel<<<launch.n_cells, launch.n, launch.n * sizeof(Number)>>>(launch, src, dst);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template void local_matrix_thread_per_element<float>(const LocalMatrixLaunch<float> &, const float *, float *);
      template void local_matrix_thread_per_element<double>(const LocalMatrixLaunch<double> &, const double *, double *);
      template void local_matrix_block_per_element<float>(const LocalMatrixLaunch<float> &, const float *, float *);
      template void local_matrix_block_per_element<double>(const LocalMatrixLaunch<double> &, const double *, double *);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
