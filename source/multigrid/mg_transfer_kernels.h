// CUDA kernels of gpumf::MGTransferMatrixFree (mg_transfer_kernels.cu); the host reference
// loops are in mg_transfer.cc.
#ifndef gpumf_source_mg_transfer_kernels_h
#define gpumf_source_mg_transfer_kernels_h

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    /// The arrays of one level of the transfer (see MGTransferMatrixFree's documentation),
    /// parents [first, first + n_parents) of one color.
    template <typename Number>
    struct TransferLevel
    {
      const unsigned int *coarse_indices;
      const unsigned int *fine_indices;
      const Number *      weights;
      const Number *      prolongation; // [q * n + i], q < 2p+1, i < n = p+1
      unsigned int        n;            // p + 1
      unsigned int        n_components;
      unsigned int        first;
      unsigned int        n_parents;
    };

    namespace cuda
    {
      /// fine += weights .* (P x P x P) coarse, per parent of the color
      template <int dim, typename Number>
      void
      prolongate_add(const TransferLevel<Number> &level, Number *fine, const Number *coarse);

      /// coarse += (P x P x P)^T (weights .* fine), per parent of the color
      template <int dim, typename Number>
      void
      restrict_add(const TransferLevel<Number> &level, Number *coarse, const Number *fine);

      /// dst[dst_indices[i]] (+)= Dst(weights[i] * src[src_indices[i]]) for i < n (weights null: 1)
      template <typename Dst, typename Src>
      void
      copy_indexed(Dst *dst, const unsigned int *dst_indices, const Src *src, const unsigned int *src_indices,
                   const double *weights, std::size_t n, bool add);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
