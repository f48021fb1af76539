// CUDA kernel of gpumf::StencilOperator (stencil_kernels.cu); its host reference is the loop in
// stencil_operator.cc.
#ifndef gpumf_source_stencil_kernels_h
#define gpumf_source_stencil_kernels_h

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      /// StencilOperator::Grid as device pointers (storage: 1 constant, 2 semi_constant, 3 variable).
      template <typename Number>
      struct StencilGrid
      {
        unsigned int        first[3], size[3], global_size[3];
        unsigned int        dirichlet_faces;
        const unsigned int *halo;
        const Number *      stencils;
        int                 storage;
        unsigned int        direction;
        unsigned int        n_owned;
      };

      /// dst = A src on the owned box of @p grid (src: owned and ghost entries).
      template <int dim, typename Number>
      void
      stencil_apply(const StencilGrid<Number> &grid, const Number *src, Number *dst);

      /// x_i += omega (b_i - (A x)_i) / a_ii for the owned points of @p color (bit d: the parity
      /// of the global grid coordinate d); x: owned and current ghost entries. Points of one
      /// color do not couple, so all of them update at once.
      template <int dim, typename Number>
      void
      stencil_relax_color(const StencilGrid<Number> &grid, unsigned int color, Number omega, const Number *b,
                          Number *x);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
