/**
 * @file gpumf/mg_transfer.h
 * gpumf::MGTransferMatrixFree: prolongation and restriction between the levels of a geometric
 * multigrid hierarchy, matrix-free with the 1D embedding matrices, on the GPU (or the host
 * reference backend). deal.II equivalent: MGTransferMatrixFree<dim, Number>
 * (multigrid/mg_transfer_matrix_free.h), whose results it reproduces to round-off.
 */
#ifndef gpumf_mg_transfer_h
#define gpumf_mg_transfer_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>
#include <gpumf/multigrid.h>
#include <gpumf/vector.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/multigrid/mg_base.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <memory>
#include <vector>

namespace gpumf
{
  /**
   * Transfer between the levels of a mesh refined (globally or adaptively, serial or
   * parallel::distributed with construct_multigrid_hierarchy) for FE_Q of any degree, or an
   * FESystem of one FE_Q, on gpumf::Vector level vectors; for deal.II's Multigrid and
   * PreconditionMG, as deal.II's MGTransferMatrixFree (same results to round-off). Also for a
   * discontinuous element (FE_DGQ, FE_DGQHermite, FE_DGQLegendre, FE_DGQArbitraryNodes):
   * each child then has its own (p+1)^dim DoFs, the patch 2p+2 points per direction, the
   * weights 1, and the 1D embedding the coarse polynomials' coefficients on each child;
   * interpolate_to_mg() is FE_Q only. For FE_Q:
   *
   * - prolongation from level l-1 to l: per parent cell of level l-1 the (p+1)^dim coarse values
   *   (zero at the level's Dirichlet DoFs, MGConstrainedDoFs::get_boundary_indices()) are
   *   interpolated to the (2p+1)^dim points of its 2^dim children by the 1D embedding matrix
   *   in each direction (sum factorization), multiplied by 1/(number of parents sharing the
   *   fine DoF), and added into the fine vector;
   * - restriction is the transpose;
   * - copy_to_mg() / copy_from_mg() move between the global vector (active DoFs) and the
   *   level vectors: every level holds the DoFs of its active cells except the refinement edges.
   *
   * The parents of a level are colored (no two of a color share a DoF), so the results are
   * bitwise reproducible; one kernel per color, a thread block per parent.
   *
   * Arrays of level l (parents on level l-1, in color order; N = 2p+1, n = p+1, k the component):
   * @verbatim
   *   coarse_indices [(parent * n_components + k) * n^dim + i]   local index on level l-1, or no_dof
   *                                                              (a Dirichlet DoF: reads 0, not written)
   *   fine_indices   [(parent * n_components + k) * N^dim + j]   local index on level l, j lexicographic
   *                                                              in the patch of the 2^dim children
   *   weights        [parent * 3^dim + t(j_x) + 3 t(j_y) + 9 t(j_z)]  1 / multiplicity of the fine DoF,
   *                                                              t(0) = 0, t(N-1) = 2, else 1
   *   prolongation   [q * n + i]                                 1D embedding: phi_i(x_q), q in 0..N-1
   * @endverbatim
   */
  template <int dim, typename Number>
  class MGTransferMatrixFree : public dealii::MGTransferBase<Vector<Number>>
  {
  public:
    using VectorType = Vector<Number>;

    /// A transfer without boundary conditions; see initialize_constraints().
    MGTransferMatrixFree() = default;

    /// A transfer honouring the level Dirichlet DoFs of @p mg_constrained_dofs.
    explicit MGTransferMatrixFree(const dealii::MGConstrainedDoFs &mg_constrained_dofs);

    /// Sets the MGConstrainedDoFs (before build()).
    void
    initialize_constraints(const dealii::MGConstrainedDoFs &mg_constrained_dofs);

    /**
     * Sets up the transfer for @p dof_handler (with level DoFs) on @p backend. With
     * @p external_partitioners (one per level, e.g. from the level MatrixFree objects'
     * get_vector_partitioner()), level vectors made by copy_to_mg() get those layouts, so the
     * level operators accept them; vectors of another layout are copied into internal ones.
     */
    void
    build(const dealii::DoFHandler<dim>                                                 &dof_handler,
          const std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> &external_partitioners = {},
          const Backend                                                                  backend = default_backend());

    /// dst = P src: from level to_level-1 to to_level.
    void
    prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /// dst += P src.
    void
    prolongate_and_add(const unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /// dst += P^T src: from level from_level to from_level-1.
    void
    restrict_and_add(const unsigned int from_level, VectorType &dst, const VectorType &src) const override;

    /**
     * Level vectors from the global vector @p src (any gpumf::Vector number type: float levels
     * inside a double solver): every level's vector gets the level layout and the values of the
     * DoFs of the level's active cells (refinement edges excluded), zero elsewhere.
     */
    template <typename Number2>
    void
    copy_to_mg(const dealii::DoFHandler<dim>     &dof_handler,
               dealii::MGLevelObject<VectorType> &dst,
               const Vector<Number2>             &src) const;

    /// The global vector from the level vectors (the values of each level's active cells).
    template <typename Number2>
    void
    copy_from_mg(const dealii::DoFHandler<dim>           &dof_handler,
                 Vector<Number2>                         &dst,
                 const dealii::MGLevelObject<VectorType> &src) const;

    /// As copy_from_mg(), adding into @p dst.
    template <typename Number2>
    void
    copy_from_mg_add(const dealii::DoFHandler<dim>           &dof_handler,
                     Vector<Number2>                         &dst,
                     const dealii::MGLevelObject<VectorType> &src) const;

    /**
     * The solution @p src on every level, as deal.II's interpolate_to_mg(): each level's vector
     * gets the values of its active cells' DoFs (as copy_to_mg(), the refinement edges included:
     * those index pairs are made at the first call) and, on its refined cells, the
     * interpolation of the finer level's function at their support points (deal.II's
     * restriction matrices of FE_Q), from the finest level down; the levels' Dirichlet DoFs
     * included. For level coefficients that depend on the solution (deal.II's step-66):
     * copy_to_mg() leaves the refined cells of every coarser level at zero. @p src must have its
     * hanging nodes set (AffineConstraints::distribute(), or
     * gpumf::VectorTools::distribute_constraints()). The level vectors get the transfer's layouts.
     */
    template <typename Number2>
    void
    interpolate_to_mg(const dealii::DoFHandler<dim>     &dof_handler,
                      dealii::MGLevelObject<VectorType> &dst,
                      const Vector<Number2>             &src) const;

    /// The level layouts of copy_to_mg() (external ones where given and usable).
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_level_partitioner(const unsigned int level) const;

    /// Colors of the parents of level @p level (on level-1).
    unsigned int
    n_colors(const unsigned int level) const;

    /// Bytes held on the host and the backend.
    std::size_t
    memory_consumption() const;

    /// Releases everything.
    void
    clear();

  private:
    template <typename Number2>
    void
    copy_from_mg(Vector<Number2> &dst, const dealii::MGLevelObject<VectorType> &src, bool add) const;

    /// copy_to_mg() with the refinement edges (interpolate_to_mg()) or without.
    template <typename Number2>
    void
    copy_to_mg(dealii::MGLevelObject<VectorType> &dst, const Vector<Number2> &src, bool with_edges) const;

    /// The vector to read on level @p level: @p v itself when it has the transfer's layout,
    /// else an internal one with the transfer's ghosts holding a copy of v's owned entries.
    const VectorType &
    in_layout(const unsigned int level, const VectorType &v) const;

    /// prolongate_and_add() (restriction false) or restrict_and_add() between @p fine_level and the level below.
    void
    apply(const unsigned int fine_level, const bool restriction, VectorType &dst, const VectorType &src) const;

    /// Where contributions to @p dst on @p level are added: @p dst itself (ghost entries zeroed)
    /// when it has the transfer's layout, else a zeroed internal vector (added to dst afterwards).
    VectorType &
    accumulation_target(const unsigned int level, VectorType &dst) const;

    /// Pairs of a global DoF (local index with the locally relevant ghosts) and its level index,
    /// with 1 / (number of ranks that record the pair).
    struct CopyPairs
    {
      internal::Array<unsigned int> global_indices, level_indices;
      internal::Array<double>       weights;
    };

    /// Per level l: the parents on l-1 and their children (see the class documentation).
    struct Level
    {
      internal::Array<unsigned int> coarse_indices, fine_indices;
      /// coarse_indices with the level's Dirichlet DoFs as their indices (interpolate_to_mg())
      internal::Array<unsigned int> coarse_plain_indices;
      internal::Array<Number>       weights;
      /// color c: parents [color_start[c], color_start[c+1])
      std::vector<unsigned int> color_start{0};
      /// copy_to_mg / copy_from_mg (refinement edges excluded), and interpolate_to_mg (included)
      CopyPairs         copies;
      mutable CopyPairs with_edges;
    };

    internal::ObserverPointer<const dealii::MGConstrainedDoFs> mg_constrained_dofs;
    Backend                                               backend_  = Backend::host;
    unsigned int                                          fe_degree = 0, n_components = 1;
    /// a discontinuous element: each child has its own (p+1)^dim DoFs, 2p+2 patch points per direction
    bool                                                                    discontinuous = false;
    unsigned int                                                            patch_points  = 0;
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner>              global_partitioner;
    std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> partitioners;
    std::vector<Level>                                                      levels;
    internal::Array<Number>                                                 prolongation_matrix;
    /// the 1D interpolation of interpolate_to_mg(), [j * n + i]
    internal::Array<Number> interpolation_matrix;
    /// the DoFHandler of build(); whether Level::with_edges is made (at the first interpolate_to_mg())
    const dealii::DoFHandler<dim> *dof_handler      = nullptr;
    mutable bool                   with_edges_built = false;
    /// internal ghosted level vectors for inputs of another layout
    mutable std::vector<VectorType> ghosted;
    mutable std::vector<VectorType> accumulated;
  };
} // namespace gpumf

#endif
