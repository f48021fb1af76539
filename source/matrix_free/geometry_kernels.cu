// CUDA kernels of gpumf::MatrixFree's geometry (geometry_kernels.h): a thread per quadrature
// point of a cell evaluates the mapping's tensor-product basis at its point directly from the
// cell's support points (the threads of a cell read the same support points: cached), in double.
// The reductions are Thrust's.
#include <gpumf/internal/cuda_check.h>

#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/find.h>

#include <algorithm>

#include "matrix_free/geometry_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        /// x and J ([d][e] = d x_d / d xi_e) of cell c at the point with 1D indices q[0..dim).
        template <int dim, typename Number>
        __device__ void
        evaluate(const MappingGeometry<dim, Number> &g,
                 const unsigned int                  c,
                 const unsigned int (&q)[3],
                 double (&x)[dim],
                 double (&jacobian)[dim][dim])
        {
          const unsigned int n   = g.n_support_1d;
          const unsigned int n_s = dim == 2 ? n * n : n * n * n;
          const double      *X   = g.support + std::size_t(c) * n_s * dim;
          const double      *v0  = g.values + q[0] * n;
          const double      *v1  = g.values + q[1] * n;
          const double      *d0  = g.derivatives + q[0] * n;
          const double      *d1  = g.derivatives + q[1] * n;
          const double      *v2  = g.values + (dim == 3 ? q[2] * n : 0);
          const double      *d2  = g.derivatives + (dim == 3 ? q[2] * n : 0);
          const unsigned int n_z = dim == 3 ? n : 1;
          for (unsigned int d = 0; d < dim; ++d)
            {
              x[d] = 0;
              for (unsigned int e = 0; e < dim; ++e)
                jacobian[d][e] = 0;
            }
          unsigned int i = 0;
          for (unsigned int iz = 0; iz < n_z; ++iz)
            for (unsigned int iy = 0; iy < n; ++iy)
              for (unsigned int ix = 0; ix < n; ++ix, ++i)
                {
                  const double vz = dim == 3 ? v2[iz] : 1., dz = dim == 3 ? d2[iz] : 0.;
                  const double value = v0[ix] * v1[iy] * vz;
                  double       derivative[dim];
                  derivative[0] = d0[ix] * v1[iy] * vz;
                  derivative[1] = v0[ix] * d1[iy] * vz;
                  if constexpr (dim == 3)
                    derivative[2] = v0[ix] * v1[iy] * dz;
                  for (unsigned int d = 0; d < dim; ++d)
                    {
                      const double Xd = X[i * dim + d];
                      x[d] += value * Xd;
                      for (unsigned int e = 0; e < dim; ++e)
                        jacobian[d][e] += derivative[e] * Xd;
                    }
                }
        }

        /// det J and J^-1 ([e][d] = d xi_e / d x_d) by cofactors.
        template <int dim>
        __device__ double
        invert(const double (&J)[dim][dim], double (&inverse)[dim][dim])
        {
          if constexpr (dim == 2)
            {
              const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
              inverse[0][0]    = J[1][1] / det;
              inverse[0][1]    = -J[0][1] / det;
              inverse[1][0]    = -J[1][0] / det;
              inverse[1][1]    = J[0][0] / det;
              return det;
            }
          else
            {
              const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
              const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
              const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
              const double det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
              inverse[0][0]    = c00 / det;
              inverse[1][0]    = c01 / det;
              inverse[2][0]    = c02 / det;
              inverse[0][1]    = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
              inverse[1][1]    = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
              inverse[2][1]    = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
              inverse[0][2]    = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
              inverse[1][2]    = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
              inverse[2][2]    = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
              return det;
            }
        }

        template <int dim, typename Number>
        __global__ void
        mapping_geometry_kernel(const MappingGeometry<dim, Number> g)
        {
          const unsigned int n_q1    = g.n_q_1d;
          const unsigned int n_q     = dim == 2 ? n_q1 * n_q1 : n_q1 * n_q1 * n_q1;
          const std::size_t  n_total = std::size_t(g.n_cells) * n_q;
          for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < n_total;
               k += std::size_t(gridDim.x) * blockDim.x)
            {
              const unsigned int c = unsigned(k / n_q), q = unsigned(k % n_q);
              const unsigned int indices[3] = {q % n_q1, (q / n_q1) % n_q1, dim == 3 ? q / (n_q1 * n_q1) : 0u};
              double             x[dim], jacobian[dim][dim], inverse[dim][dim];
              evaluate(g, c, indices, x, jacobian);
              const double det = invert<dim>(jacobian, inverse);
              if (!(det > 0))
                atomicOr(g.flags + c, cell_distorted);
              for (unsigned int d = 0; d < dim; ++d)
                g.points[k * dim + d] = Number(x[d]);
              if (g.JxW != nullptr)
                {
                  g.JxW[k] = Number(det * g.weights[q]);
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      g.inv_jacobian[(e * dim + d) * n_total + k] = Number(inverse[e][d]);
                }
              if (q == 0)
                {
                  g.cell_det[c] = Number(det);
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      g.cell_inverse[(e * dim + d) * std::size_t(g.n_cells) + c] = Number(inverse[e][d]);
                  continue;
                }
              // against point 0 of the cell (evaluated again here, in the same arithmetic)
              const unsigned int zero[3] = {0, 0, 0};
              double             x_0[dim], jacobian_0[dim][dim], inverse_0[dim][dim];
              evaluate(g, c, zero, x_0, jacobian_0);
              const double det_0 = invert<dim>(jacobian_0, inverse_0);
              if (differs_from_point_0<dim>(det, det_0, inverse, inverse_0))
                atomicOr(g.flags + c, cell_curved);
            }
        }

        struct HasBits
        {
          unsigned int mask;
          __host__ __device__ bool
          operator()(const unsigned int flags) const
          {
            return (flags & mask) != 0;
          }
        };
      } // namespace

      template <int dim, typename Number>
      void
      mapping_geometry(const MappingGeometry<dim, Number> &g)
      {
        if (g.n_cells == 0)
          return;
        GPUMF_CHECK_CUDA(cudaMemset(g.flags, 0, g.n_cells * sizeof(unsigned int)));
        const std::size_t n_total =
          std::size_t(g.n_cells) * (dim == 2 ? g.n_q_1d * g.n_q_1d : g.n_q_1d * g.n_q_1d * g.n_q_1d);
        const unsigned int block = 128;
        const unsigned int grid  = unsigned(std::min<std::size_t>((n_total + block - 1) / block, 1u << 20));
        mapping_geometry_kernel<dim, Number><<<grid, block>>>(g);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <typename Number>
      void
      value_range(const Number *values, const std::size_t n, double &low, double &high)
      {
        const auto extremes = thrust::minmax_element(thrust::device, values, values + n);
        Number     host[2];
        GPUMF_CHECK_CUDA(cudaMemcpy(&host[0], &*extremes.first, sizeof(Number), cudaMemcpyDeviceToHost));
        GPUMF_CHECK_CUDA(cudaMemcpy(&host[1], &*extremes.second, sizeof(Number), cudaMemcpyDeviceToHost));
        low  = double(host[0]);
        high = double(host[1]);
      }

      std::size_t
      first_with(const unsigned int *flags, const std::size_t n, const unsigned int mask)
      {
        const unsigned int *found = thrust::find_if(thrust::device, flags, flags + n, HasBits{mask});
        return std::size_t(found - flags);
      }

      GPUMF_GEOMETRY_INSTANTIATIONS
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
