// CUDA kernels of gpumf::VectorTools. The per-cell sums are CUB's segmented reduction (a
// segment per cell, n_q consecutive points): deterministic, as the results of a norm must be.
#include <gpumf/internal/cuda_check.h>

#include <cub/device/device_segmented_reduce.cuh>
#include <algorithm>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "vector_tools/vector_tools_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        /// The first point of cell c: c * n_q.
        struct CellOffset
        {
          unsigned int n_q;
          __host__ __device__ unsigned int
          operator()(const unsigned int c) const
          {
            return c * n_q;
          }
        };

        template <typename Number>
        __global__ void
        distribute_constraints_kernel(Number                      *v,
                                      const unsigned int          *codes,
                                      const unsigned int          *plain,
                                      const std::size_t            n,
                                      const ConstraintRows<Number> rows)
        {
          for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n;
               k += std::size_t(gridDim.x) * blockDim.x)
            {
              const unsigned int code = codes[k];
              // (several cells may write a DoF they share: the same value)
              if (code == no_dof)
                v[plain[k]] = Number(0);
              else if (is_constraint_row(code))
                v[plain[k]] = read_dof(v, code, rows);
            }
        }
      } // namespace

      template <typename Number>
      void
      distribute_constraints(Number                      *v,
                             const unsigned int          *codes,
                             const unsigned int          *plain,
                             const std::size_t            n,
                             const ConstraintRows<Number> rows)
      {
        if (n == 0)
          return;
        const unsigned int block = 256;
        const unsigned int grid  = unsigned(std::min<std::size_t>((n + block - 1) / block, 65535));
        distribute_constraints_kernel<<<grid, block>>>(v, codes, plain, n, rows);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <typename Number>
      void
      reduce_per_cell(const Number      *points,
                      const unsigned int n_cells,
                      const unsigned int n_q,
                      const bool         maximum,
                      Number            *per_cell)
      {
        if (n_cells == 0)
          return;
        const auto offsets =
          thrust::make_transform_iterator(thrust::counting_iterator<unsigned int>(0), CellOffset{n_q});
        const auto run = [&](void *scratch, std::size_t &bytes) {
          if (maximum)
            GPUMF_CHECK_CUDA(
              cub::DeviceSegmentedReduce::Max(scratch, bytes, points, per_cell, int(n_cells), offsets, offsets + 1));
          else
            GPUMF_CHECK_CUDA(
              cub::DeviceSegmentedReduce::Sum(scratch, bytes, points, per_cell, int(n_cells), offsets, offsets + 1));
        };
        std::size_t bytes = 0;
        run(nullptr, bytes);
        void *scratch = nullptr;
        GPUMF_CHECK_CUDA(cudaMalloc(&scratch, std::max<std::size_t>(bytes, 1)));
        run(scratch, bytes);
        GPUMF_CHECK_CUDA(cudaFree(scratch));
      }

      GPUMF_VECTOR_TOOLS_KERNELS(float, template)
      GPUMF_VECTOR_TOOLS_KERNELS(double, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
