// The naive host reference of MultiColorGaussSeidel's kernels (multicolor_gauss_seidel_kernels.h):
// row after row, entry after entry.
#include <cstddef>

#include "stencil/multicolor_gauss_seidel_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      template <typename Number>
      void
      gauss_seidel_color(const StencilLaunch<Number> &stencil,
                         const unsigned int           begin,
                         const unsigned int           end,
                         const Number                 omega,
                         const Number                *b,
                         Number                      *x)
      {
        for (unsigned int r = begin; r < end; ++r)
          {
            const unsigned int i   = stencil.rows[r];
            Number             sum = b[i];
            for (unsigned int s = 0; s < stencil.n_slots; ++s)
              {
                const std::size_t e = std::size_t(s) * stencil.n_rows + r;
                sum -= stencil.values[e] * x[stencil.columns[e]];
              }
            x[i] += omega * sum * stencil.inverse_diagonal[r];
          }
      }

      template <typename Number>
      void
      stencil_vmult(const StencilLaunch<Number> &stencil, const Number *src, Number *dst)
      {
        for (unsigned int r = 0; r < stencil.n_rows; ++r)
          {
            Number sum = 0;
            for (unsigned int k = 0; k < stencil.n_slots; ++k)
              {
                const std::size_t e = std::size_t(k) * stencil.n_rows + r;
                sum += stencil.values[e] * src[stencil.columns[e]];
              }
            dst[stencil.rows[r]] = sum;
          }
      }

      GPUMF_GAUSS_SEIDEL_KERNELS(float, template)
      GPUMF_GAUSS_SEIDEL_KERNELS(double, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
