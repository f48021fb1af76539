// The kernels of gpumf::StencilOperator: the naive host reference in stencil_reference.cc, CUDA in
// stencil_kernels.cu (core/executor.h: one list, both executors).
#ifndef gpumf_source_stencil_stencil_kernels_h
#define gpumf_source_stencil_stencil_kernels_h

#include <cstddef>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /// StencilOperator::Grid as pointers of its backend (storage: 1 constant, 2 semi_constant, 3 variable).
    template <int dim, typename Number>
    struct StencilGrid
    {
      unsigned int        first[3], size[3], global_size[3];
      unsigned int        dirichlet_faces;
      const unsigned int *halo;
      const Number       *stencils;
      int                 storage;
      unsigned int        direction;
      unsigned int        n_owned;
    };

    /// The boundary kind of grid coordinate @p g in a direction with @p n points: 0 lower, 1 inside, 2 upper.
    inline unsigned int
    stencil_boundary_kind(const long g, const unsigned int n)
    {
      return g == 0 ? 0 : (g + 1 == long(n) ? 2 : 1);
    }

    /// The color of owned point @p i of @p grid (a StencilGrid or StencilOperator's host Grid: its
    /// owned box `first`, `size`): bit d the parity of its global grid coordinate d.
    template <int dim, typename Grid>
    inline unsigned int
    stencil_color_of(const Grid &grid, const unsigned int i)
    {
      std::size_t  rest  = i;
      unsigned int color = 0;
      for (unsigned int d = 0; d < dim; ++d)
        {
          color |= unsigned((rest % grid.size[d] + grid.first[d]) & 1u) << d;
          rest /= grid.size[d];
        }
      return color;
    }
  } // namespace internal
} // namespace gpumf

#define GPUMF_STENCIL_KERNELS(dim, Number, TEMPLATE)                                                  \
  /* dst = A src on the owned box of grid (src: owned and ghost entries) */                           \
  TEMPLATE void stencil_apply(const StencilGrid<dim, Number> &grid, const Number *src, Number *dst);  \
  /* x_i += omega (b_i - (A x)_i) / a_ii for the owned points of color (stencil_color_of()); x: owned \
     and current ghost entries. Points of one color do not couple, so all of them update at once. */  \
  TEMPLATE void stencil_relax_color(                                                                  \
    const StencilGrid<dim, Number> &grid, unsigned int color, Number omega, const Number *b, Number *x);

// what each implementation file instantiates: dim 2, 3; float, double
#define GPUMF_STENCIL_INSTANTIATIONS         \
  GPUMF_STENCIL_KERNELS(2, float, template)  \
  GPUMF_STENCIL_KERNELS(2, double, template) \
  GPUMF_STENCIL_KERNELS(3, float, template)  \
  GPUMF_STENCIL_KERNELS(3, double, template)

GPUMF_DECLARE_KERNELS(GPUMF_STENCIL_KERNELS(dim, Number, GPUMF_TEMPLATE_DIM_NUMBER))

#endif
