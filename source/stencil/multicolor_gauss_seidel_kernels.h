// The kernels of gpumf::MultiColorGaussSeidel on its ELL rows: the naive host reference in
// multicolor_gauss_seidel_reference.cc, CUDA in multicolor_gauss_seidel_kernels.cu (core/executor.h:
// one list, both executors).
#ifndef gpumf_source_stencil_multicolor_gauss_seidel_kernels_h
#define gpumf_source_stencil_multicolor_gauss_seidel_kernels_h

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /// The ELL stencil of MultiColorGaussSeidel (include/gpumf/multicolor_gauss_seidel.h), pointers of its backend.
    template <typename Number>
    struct StencilLaunch
    {
      const unsigned int *rows;             ///< [r] local vector index of the row at position r
      const unsigned int *columns;          ///< [k * n_rows + r] local vector index of entry k
      const Number       *values;           ///< [k * n_rows + r] matrix entry
      const Number       *inverse_diagonal; ///< [r] 1 / a_ii
      unsigned int        n_rows;           ///< all positions (stride of the slots)
      unsigned int        n_slots;          ///< entries per row
    };
  } // namespace internal
} // namespace gpumf

#define GPUMF_GAUSS_SEIDEL_KERNELS(Number, TEMPLATE)                                               \
  /* x_i += omega (b_i - sum_k a_ik x_k) / a_ii for the rows at positions [begin, end) (one color: \
     the rows do not couple); CUDA: one thread per row */                                          \
  TEMPLATE void gauss_seidel_color(const StencilLaunch<Number> &stencil,                           \
                                   unsigned int                 begin,                             \
                                   unsigned int                 end,                               \
                                   Number                       omega,                             \
                                   const Number                *b,                                 \
                                   Number                      *x);                                                     \
  /* dst_i = sum_k a_ik src_k for all rows; CUDA: one thread per row */                            \
  TEMPLATE void stencil_vmult(const StencilLaunch<Number> &stencil, const Number *src, Number *dst);

GPUMF_DECLARE_KERNELS(GPUMF_GAUSS_SEIDEL_KERNELS(Number, template <typename Number>))

#endif
