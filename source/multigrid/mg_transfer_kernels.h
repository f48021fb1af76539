// The kernels of gpumf::MGTransferMatrixFree: the naive host reference in mg_transfer_reference.cc,
// CUDA in mg_transfer_kernels.cu (core/executor.h: one list, both executors).
#ifndef gpumf_source_multigrid_mg_transfer_kernels_h
#define gpumf_source_multigrid_mg_transfer_kernels_h

#include <gpumf/internal/dof_access.h>

#include <cstddef>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /// The weight class of patch point coordinate @p q of N in a direction: 0 first, 1 inside, 2 last.
    __host__ __device__ inline unsigned int
    weight_class(const unsigned int q, const unsigned int N)
    {
      return q == 0 ? 0u : (q == N - 1 ? 2u : 1u);
    }

    /// Position of patch point @p j (lexicographic, N per direction) in direction d.
    __host__ __device__ inline unsigned int
    coordinate(const unsigned int j, const unsigned int N, const unsigned int d)
    {
      return d == 0 ? j % N : d == 1 ? (j / N) % N : j / (N * N);
    }

    /// The arrays of one level of the transfer (see MGTransferMatrixFree's documentation),
    /// parents [first, first + n_parents) of one color.
    template <int dim, typename Number>
    struct TransferLevel
    {
      const unsigned int *coarse_indices;
      const unsigned int *fine_indices;
      const Number       *weights;
      const Number       *prolongation; // [q * n + i], q < N, i < n = p+1
      unsigned int        n;            // p + 1
      unsigned int        N;            // patch points per direction: 2p+1 (continuous), 2p+2 (discontinuous)
      unsigned int        n_components;
      unsigned int        weight_components; // 1: weights per parent; n_components: per parent and component
      unsigned int        first;
      unsigned int        n_parents;
    };

    /// The 3^dim weights of component @p k of @p parent.
    template <int dim, typename Number>
    __host__ __device__ inline const Number *
    weights_of(const TransferLevel<dim, Number> &level, const unsigned int parent, const unsigned int k)
    {
      return level.weights + (std::size_t(parent) * level.weight_components + (level.weight_components > 1 ? k : 0)) *
                               (dim == 2 ? 9 : 27);
    }
  } // namespace internal
} // namespace gpumf

#define GPUMF_MG_TRANSFER_KERNELS(dim, Number, TEMPLATE)                                                     \
  /* fine += weights .* (P x P x P) coarse, per parent of the color */                                       \
  TEMPLATE void prolongate_add(const TransferLevel<dim, Number> &level, Number *fine, const Number *coarse); \
  /* coarse += (P x P x P)^T (weights .* fine), per parent of the color */                                   \
  TEMPLATE void restrict_add(const TransferLevel<dim, Number> &level, Number *coarse, const Number *fine);   \
  /* coarse = (I x I x I) fine at the coarse DoFs of each parent of the color whose index is below n_owned   \
     (level.coarse_indices plain, level.prolongation holding I: [j * n + i], weights unused) */              \
  TEMPLATE void interpolate(const TransferLevel<dim, Number> &level,                                         \
                            unsigned int                      n_owned,                                       \
                            Number                           *coarse,                                        \
                            const Number                     *fine);

#define GPUMF_TEMPLATE_DST_SRC template <typename Dst, typename Src>
#define GPUMF_MG_COPY_KERNELS(Dst, Src, TEMPLATE)                                                  \
  /* dst[dst_indices[i]] (+)= Dst(weights[i] * src[src_indices[i]]) for i < n (weights null: 1) */ \
  TEMPLATE void copy_indexed(Dst                *dst,                                              \
                             const unsigned int *dst_indices,                                      \
                             const Src          *src,                                              \
                             const unsigned int *src_indices,                                      \
                             const double       *weights,                                          \
                             std::size_t         n,                                                \
                             bool                add);

// what each implementation file instantiates: dim 2, 3; float, double; copies between both
#define GPUMF_MG_TRANSFER_INSTANTIATIONS         \
  GPUMF_MG_TRANSFER_KERNELS(2, float, template)  \
  GPUMF_MG_TRANSFER_KERNELS(2, double, template) \
  GPUMF_MG_TRANSFER_KERNELS(3, float, template)  \
  GPUMF_MG_TRANSFER_KERNELS(3, double, template) \
  GPUMF_MG_COPY_KERNELS(float, float, template)  \
  GPUMF_MG_COPY_KERNELS(float, double, template) \
  GPUMF_MG_COPY_KERNELS(double, float, template) \
  GPUMF_MG_COPY_KERNELS(double, double, template)

GPUMF_DECLARE_KERNELS(GPUMF_MG_TRANSFER_KERNELS(dim, Number, GPUMF_TEMPLATE_DIM_NUMBER)
                        GPUMF_MG_COPY_KERNELS(Dst, Src, GPUMF_TEMPLATE_DST_SRC))

#endif
