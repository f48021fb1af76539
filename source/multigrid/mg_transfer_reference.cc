// The naive host reference of the transfer kernels (mg_transfer_kernels.h).
#include <deal.II/base/utilities.h>

#include <gpumf/internal/dof_access.h>

#include "multigrid/mg_transfer_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {

      /**
       * Host reference of prolongate_add(): every fine value of a patch directly as
       * sum_i prod_d P(q_d, i_d) u_i (no sum factorization), times its weight.
       */
      template <int dim, typename Number>
      void
      prolongate_add(const TransferLevel<dim, Number> &level, Number *fine, const Number *coarse)
      {
        const unsigned int n = level.n, N = level.N, n_coarse = dealii::Utilities::pow(n, dim),
                           n_fine = dealii::Utilities::pow(N, dim);
        for (unsigned int parent = level.first; parent < level.first + level.n_parents; ++parent)
          for (unsigned int k = 0; k < level.n_components; ++k)
            {
              const unsigned int *ci = level.coarse_indices + (std::size_t(parent) * level.n_components + k) * n_coarse;
              const unsigned int *fi = level.fine_indices + (std::size_t(parent) * level.n_components + k) * n_fine;
              for (unsigned int j = 0; j < n_fine; ++j)
                {
                  Number       value = 0;
                  unsigned int cls   = 0;
                  for (unsigned int d = 0; d < dim; ++d)
                    cls += dealii::Utilities::pow(3u, d) * weight_class(coordinate(j, N, d), N);
                  for (unsigned int i = 0; i < n_coarse; ++i)
                    {
                      if (ci[i] == no_dof)
                        continue;
                      Number product = coarse[ci[i]];
                      for (unsigned int d = 0; d < dim; ++d)
                        product *= level.prolongation[coordinate(j, N, d) * n + coordinate(i, n, d)];
                      value += product;
                    }
                  fine[fi[j]] += weights_of(level, parent, k)[cls] * value;
                }
            }
      }

      /// Host reference of interpolate(): every coarse value directly as sum_j prod_d I(i_d, j_d) u_j.
      template <int dim, typename Number>
      void
      interpolate(const TransferLevel<dim, Number> &level,
                  const unsigned int                n_owned,
                  Number                           *coarse,
                  const Number                     *fine)
      {
        const unsigned int n = level.n, N = level.N, n_coarse = dealii::Utilities::pow(n, dim),
                           n_fine = dealii::Utilities::pow(N, dim);
        for (unsigned int parent = level.first; parent < level.first + level.n_parents; ++parent)
          for (unsigned int k = 0; k < level.n_components; ++k)
            {
              const unsigned int *ci = level.coarse_indices + (std::size_t(parent) * level.n_components + k) * n_coarse;
              const unsigned int *fi = level.fine_indices + (std::size_t(parent) * level.n_components + k) * n_fine;
              for (unsigned int i = 0; i < n_coarse; ++i)
                {
                  if (ci[i] >= n_owned)
                    continue;
                  Number value = 0;
                  for (unsigned int j = 0; j < n_fine; ++j)
                    {
                      Number product = fine[fi[j]];
                      for (unsigned int d = 0; d < dim; ++d)
                        product *= level.prolongation[coordinate(j, N, d) * n + coordinate(i, n, d)];
                      value += product;
                    }
                  coarse[ci[i]] = value;
                }
            }
      }

      /// Host reference of restrict_add(): the transpose of prolongate_add(), entry by entry.
      template <int dim, typename Number>
      void
      restrict_add(const TransferLevel<dim, Number> &level, Number *coarse, const Number *fine)
      {
        const unsigned int n = level.n, N = level.N, n_coarse = dealii::Utilities::pow(n, dim),
                           n_fine = dealii::Utilities::pow(N, dim);
        for (unsigned int parent = level.first; parent < level.first + level.n_parents; ++parent)
          for (unsigned int k = 0; k < level.n_components; ++k)
            {
              const unsigned int *ci = level.coarse_indices + (std::size_t(parent) * level.n_components + k) * n_coarse;
              const unsigned int *fi = level.fine_indices + (std::size_t(parent) * level.n_components + k) * n_fine;
              for (unsigned int i = 0; i < n_coarse; ++i)
                {
                  if (ci[i] == no_dof)
                    continue;
                  Number value = 0;
                  for (unsigned int j = 0; j < n_fine; ++j)
                    {
                      unsigned int cls = 0;
                      for (unsigned int d = 0; d < dim; ++d)
                        cls += dealii::Utilities::pow(3u, d) * weight_class(coordinate(j, N, d), N);
                      Number product = weights_of(level, parent, k)[cls] * fine[fi[j]];
                      for (unsigned int d = 0; d < dim; ++d)
                        product *= level.prolongation[coordinate(j, N, d) * n + coordinate(i, n, d)];
                      value += product;
                    }
                  coarse[ci[i]] += value;
                }
            }
      }

      template <typename Dst, typename Src>
      void
      copy_indexed(Dst                *dst,
                   const unsigned int *dst_indices,
                   const Src          *src,
                   const unsigned int *src_indices,
                   const double       *weights,
                   std::size_t         n,
                   bool                add)
      {
        for (std::size_t i = 0; i < n; ++i)
          dst[dst_indices[i]] =
            (add ? dst[dst_indices[i]] : Dst(0)) +
            (weights == nullptr ? Dst(src[src_indices[i]]) : Dst(weights[i] * double(src[src_indices[i]])));
      }


      GPUMF_MG_TRANSFER_INSTANTIATIONS
    } // namespace host
  }   // namespace internal
} // namespace gpumf
