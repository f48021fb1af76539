// The naive host reference of the geometry kernels (geometry_kernels.h).
#include <deal.II/base/tensor.h>
#include <deal.II/base/utilities.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/threads.h"

#include "matrix_free/geometry_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      /**
       * Host reference of mapping_geometry(): every point and Jacobian directly as the sum over
       * all support points of X_i times the product of the 1D values (and one derivative), the
       * inverse and determinant by deal.II's Tensor. The cells in deal.II's threads (each cell's
       * values its own).
       */
      template <int dim, typename Number>
      void
      mapping_geometry(const MappingGeometry<dim, Number> &g)
      {
        const unsigned int n_s1 = g.n_support_1d, n_q1 = g.n_q_1d;
        const unsigned int n_s = dealii::Utilities::pow(n_s1, dim), n_q = dealii::Utilities::pow(n_q1, dim);
        const std::size_t  n_total = std::size_t(g.n_cells) * n_q;
        // the 1D indices of the tensor-product indices (x fastest)
        const auto indices = [](const unsigned int n, const unsigned int n_1d) {
          std::vector<std::array<unsigned int, dim>> result(n);
          for (unsigned int i = 0; i < n; ++i)
            for (unsigned int d = 0, r = i; d < dim; ++d, r /= n_1d)
              result[i][d] = r % n_1d;
          return result;
        };
        const std::vector<std::array<unsigned int, dim>> support_index = indices(n_s, n_s1),
                                                         point_index   = indices(n_q, n_q1);
        internal::parallel_for(g.n_cells, [&](const unsigned int begin, const unsigned int end) {
          for (unsigned int c = begin; c < end; ++c)
            {
              dealii::Tensor<2, dim> inverse_0;
              double                 det_0 = 0;
              g.flags[c]                   = 0;
              for (unsigned int q = 0; q < n_q; ++q)
                {
                  dealii::Tensor<1, dim> x;
                  dealii::Tensor<2, dim> jacobian; // [d][e] = d x_d / d xi_e
                  for (unsigned int i = 0; i < n_s; ++i)
                    {
                      const double *X     = g.support + (std::size_t(c) * n_s + i) * dim;
                      double        value = 1;
                      for (unsigned int d = 0; d < dim; ++d)
                        value *= g.values[point_index[q][d] * n_s1 + support_index[i][d]];
                      for (unsigned int d = 0; d < dim; ++d)
                        x[d] += value * X[d];
                      for (unsigned int e = 0; e < dim; ++e)
                        {
                          double derivative = 1;
                          for (unsigned int k = 0; k < dim; ++k)
                            derivative *=
                              (k == e ? g.derivatives : g.values)[point_index[q][k] * n_s1 + support_index[i][k]];
                          for (unsigned int d = 0; d < dim; ++d)
                            jacobian[d][e] += derivative * X[d];
                        }
                    }
                  const double det = dealii::determinant(jacobian);
                  if (!(det > 0))
                    g.flags[c] |= cell_distorted;
                  const dealii::Tensor<2, dim> inverse = dealii::invert(jacobian);
                  const std::size_t            k       = std::size_t(c) * n_q + q;
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
                      det_0     = det;
                      inverse_0 = inverse;
                      for (unsigned int e = 0; e < dim; ++e)
                        for (unsigned int d = 0; d < dim; ++d)
                          g.cell_inverse[(e * dim + d) * std::size_t(g.n_cells) + c] = Number(inverse[e][d]);
                      g.cell_det[c] = Number(det);
                    }
                  else if (differs_from_point_0<dim>(det, det_0, inverse, inverse_0))
                    g.flags[c] |= cell_curved;
                }
            }
        });
      }

      template <typename Number>
      void
      value_range(const Number *values, const std::size_t n, double &low, double &high)
      {
        low = high = double(values[0]);
        for (std::size_t i = 1; i < n; ++i)
          {
            low  = std::min(low, double(values[i]));
            high = std::max(high, double(values[i]));
          }
      }

      std::size_t
      first_with(const unsigned int *flags, const std::size_t n, const unsigned int mask)
      {
        for (std::size_t k = 0; k < n; ++k)
          if ((flags[k] & mask) != 0)
            return k;
        return n;
      }

      GPUMF_GEOMETRY_INSTANTIATIONS
    } // namespace host
  }   // namespace internal
} // namespace gpumf
