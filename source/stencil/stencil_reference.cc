// The naive host reference of StencilOperator's kernels (stencil_kernels.h): each point's row
// from its 3^dim neighbours one after the other, read through the box or the halo table.
#include <array>
#include <limits>

#include "stencil/stencil_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      namespace
      {
        constexpr unsigned int no_index = std::numeric_limits<unsigned int>::max();


        /// (A x)_i and the diagonal a_ii: every neighbour of the point, read through the box or the halo.
        template <int dim, typename Number>
        Number
        row(const StencilGrid<dim, Number> &g, const Number *x, const unsigned int i, Number &diagonal)
        {
          constexpr unsigned int n_entries = dim == 1 ? 3 : dim == 2 ? 9 : 27;
          const unsigned int     n_c       = n_entries;
          std::array<long, 3>    p{{0, 0, 0}}, q;
          std::size_t            rest = i;
          for (unsigned int d = 0; d < dim; ++d)
            p[d] = rest % g.size[d], rest /= g.size[d];
          const auto global = [&](const std::array<long, 3> &b, const unsigned int d) {
            return b[d] + long(g.first[d]);
          };
          const auto dirichlet = [&](const std::array<long, 3> &b) {
            for (unsigned int d = 0; d < dim; ++d)
              if (((g.dirichlet_faces >> (2 * d) & 1u) && global(b, d) == 0) ||
                  ((g.dirichlet_faces >> (2 * d + 1) & 1u) && global(b, d) + 1 == long(g.global_size[d])))
                return true;
            return false;
          };
          diagonal = 1;
          if (g.storage != 3 && dirichlet(p))
            return x[i]; // identity row
          Number sum = 0;
          for (unsigned int k = 0; k < n_entries; ++k)
            {
              unsigned int r      = k;
              bool         in_box = true, in_mesh = true;
              for (unsigned int d = 0; d < dim; ++d, r /= 3)
                {
                  q[d]    = p[d] + long(r % 3) - 1;
                  in_box  = in_box && q[d] >= 0 && q[d] < long(g.size[d]);
                  in_mesh = in_mesh && global(q, d) >= 0 && global(q, d) < long(g.global_size[d]);
                }
              Number value = 0;
              if (in_box)
                {
                  std::size_t j = 0;
                  for (int d = dim - 1; d >= 0; --d)
                    j = j * g.size[d] + q[d];
                  value = x[j];
                }
              else if (in_mesh && g.halo != nullptr)
                {
                  std::size_t e = 0;
                  for (int d = dim - 1; d >= 0; --d)
                    e = e * (g.size[d] + 2) + (q[d] + 1);
                  const unsigned int j = g.halo[e];
                  value                = j != no_index ? x[j] : Number(0);
                }
              if (g.storage != 3 && in_mesh && dirichlet(q))
                value = 0;
              Number s = 0;
              if (g.storage == 3)
                s = g.stencils[std::size_t(k) * g.n_owned + i];
              else
                {
                  unsigned int c = 0;
                  for (int d = dim - 1; d >= 0; --d)
                    if (g.storage == 1 || unsigned(d) != g.direction)
                      c = 3 * c + stencil_boundary_kind(global(p, d), g.global_size[d]);
                  const std::size_t key = g.storage == 1 ? c : std::size_t(global(p, g.direction)) * (n_c / 3) + c;
                  s                     = g.stencils[key * n_entries + k];
                }
              if (k == n_entries / 2)
                diagonal = s;
              sum += s * value;
            }
          return sum;
        }
      } // namespace

      template <int dim, typename Number>
      void
      stencil_apply(const StencilGrid<dim, Number> &grid, const Number *src, Number *dst)
      {
        Number diagonal = 0;
        for (unsigned int i = 0; i < grid.n_owned; ++i)
          dst[i] = row(grid, src, i, diagonal);
      }

      template <int dim, typename Number>
      void
      stencil_relax_color(const StencilGrid<dim, Number> &grid,
                          const unsigned int              color,
                          const Number                    omega,
                          const Number                   *b,
                          Number                         *x)
      {
        // the points of the color one after the other (they do not couple)
        for (unsigned int i = 0; i < grid.n_owned; ++i)
          {
            if (stencil_color_of<dim>(grid, i) != color)
              continue;
            Number       diagonal = 1;
            const Number ax       = row(grid, x, i, diagonal);
            x[i] += omega * (b[i] - ax) / diagonal;
          }
      }

      GPUMF_STENCIL_INSTANTIATIONS
    } // namespace host
  }   // namespace internal
} // namespace gpumf
