// CUDA kernels of gpumf::KellyErrorEstimator: a thread per item (face piece) and a thread per
// cell; each thread's sums run in a fixed order, so that the indicators are the same on every run.
#include <gpumf/internal/cuda_check.h>

#include <algorithm>

#include "vector_tools/error_estimator_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int block = 128;

        unsigned int
        grid_for(const unsigned int n)
        {
          return std::max(1u, (n + block - 1) / block);
        }

        template <int dim, typename Number>
        __global__ void
        face_integrals_kernel(const KellyData<dim, Number> k)
        {
          const unsigned int item = blockIdx.x * block + threadIdx.x;
          if (item < k.n_items)
            k.item_integral[item] = kelly_item<dim>(k, item);
        }

        template <int dim, typename Number>
        __global__ void
        cell_errors_kernel(const KellyData<dim, Number> k)
        {
          const unsigned int cell = blockIdx.x * block + threadIdx.x;
          if (cell < k.n_cells)
            k.cell_error[cell] = kelly_cell(k, cell);
        }

        template <int dim, typename Number>
        __global__ void
        neumann_points_kernel(const KellyData<dim, Number> k)
        {
          const unsigned int item = blockIdx.x * block + threadIdx.x;
          if (item < k.n_items)
            kelly_neumann_point<dim>(k, item);
        }
      } // namespace

      template <int dim, typename Number>
      void
      kelly_face_integrals(const KellyData<dim, Number> &k)
      {
        if (k.n_items == 0)
          return;
        face_integrals_kernel<dim, Number><<<grid_for(k.n_items), block>>>(k);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <int dim, typename Number>
      void
      kelly_cell_errors(const KellyData<dim, Number> &k)
      {
        if (k.n_cells == 0)
          return;
        cell_errors_kernel<dim, Number><<<grid_for(k.n_cells), block>>>(k);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <int dim, typename Number>
      void
      kelly_neumann_points(const KellyData<dim, Number> &k)
      {
        if (k.n_items == 0)
          return;
        neumann_points_kernel<dim, Number><<<grid_for(k.n_items), block>>>(k);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      GPUMF_KELLY_KERNELS(2, double, template)
      GPUMF_KELLY_KERNELS(3, double, template)
      GPUMF_KELLY_KERNELS(2, float, template)
      GPUMF_KELLY_KERNELS(3, float, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
