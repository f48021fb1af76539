// CUDA kernels of gpumf::MultiColorGaussSeidel (multicolor_gauss_seidel_kernels.cu); the host
// reference of each is the loop beside its call in multicolor_gauss_seidel.cc.
#ifndef gpumf_source_multicolor_gauss_seidel_kernels_h
#define gpumf_source_multicolor_gauss_seidel_kernels_h

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      /// The ELL stencil of MultiColorGaussSeidel (include/gpumf/multicolor_gauss_seidel.h), device pointers.
      template <typename Number>
      struct StencilLaunch
      {
        const unsigned int *rows;             ///< [r] local vector index of the row at position r
        const unsigned int *columns;          ///< [k * n_rows + r] local vector index of entry k
        const Number *      values;           ///< [k * n_rows + r] matrix entry
        const Number *      inverse_diagonal; ///< [r] 1 / a_ii
        unsigned int        n_rows;           ///< all positions (stride of the slots)
        unsigned int        n_slots;          ///< entries per row
      };

      /// x_i += omega (b_i - sum_k a_ik x_k) / a_ii for the rows at positions [begin, end) (one
      /// color: the rows do not couple), one thread per row.
      template <typename Number>
      void
      gauss_seidel_color(const StencilLaunch<Number> &stencil, unsigned int begin, unsigned int end, Number omega,
                         const Number *b, Number *x);

      /// dst_i = sum_k a_ik src_k for all rows, one thread per row.
      template <typename Number>
      void
      stencil_vmult(const StencilLaunch<Number> &stencil, const Number *src, Number *dst);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
