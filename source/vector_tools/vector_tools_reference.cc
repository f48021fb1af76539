// The host reference of the kernels of gpumf::VectorTools: plain loops.
#include <algorithm>

#include "vector_tools/vector_tools_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      template <typename Number>
      void
      reduce_per_cell(const Number      *points,
                      const unsigned int n_cells,
                      const unsigned int n_q,
                      const bool         maximum,
                      Number            *per_cell)
      {
        for (unsigned int c = 0; c < n_cells; ++c)
          {
            Number result = 0;
            for (unsigned int q = 0; q < n_q; ++q)
              {
                const Number x = points[std::size_t(c) * n_q + q];
                result         = maximum ? std::max(result, x) : result + x;
              }
            per_cell[c] = result;
          }
      }

      template <typename Number>
      void
      distribute_constraints(Number                      *v,
                             const unsigned int          *codes,
                             const unsigned int          *plain,
                             const std::size_t            n,
                             const ConstraintRows<Number> rows)
      {
        for (std::size_t k = 0; k < n; ++k)
          if (codes[k] == no_dof)
            v[plain[k]] = Number(0);
          else if (is_constraint_row(codes[k]))
            v[plain[k]] = read_dof(v, codes[k], rows);
      }

      GPUMF_VECTOR_TOOLS_KERNELS(float, template)
      GPUMF_VECTOR_TOOLS_KERNELS(double, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
