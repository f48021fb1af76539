/**
 * @file gpumf/mg_transfer_global_coarsening.h
 * Multigrid transfer between meshes: gpumf::MGTwoLevelTransfer (prolongation and restriction
 * between a DoFHandler on a mesh and one on the mesh coarsened once) and
 * gpumf::MGTransferGlobalCoarsening (a hierarchy of them, for deal.II's Multigrid and
 * PreconditionMG). deal.II equivalents: MGTwoLevelTransfer::reinit_geometric_transfer() and
 * MGTransferGlobalCoarsening (9.8: MGTransferMatrixFree<dim, Number, MemorySpace::Default> with
 * Portable::MGTwoLevelTransfer) of multigrid/mg_transfer_global_coarsening.h, whose results they
 * reproduce to round-off. The levels are separate meshes, as deal.II's
 * MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence() makes them; for the
 * levels of one mesh see gpumf::MGTransferMatrixFree (gpumf/mg_transfer.h).
 */
#ifndef gpumf_mg_transfer_global_coarsening_h
#define gpumf_mg_transfer_global_coarsening_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>
#include <gpumf/vector.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/multigrid/mg_base.h>

#include <functional>
#include <memory>
#include <vector>

namespace gpumf
{
  /**
   * Transfer between two DoFHandlers of one element (FE_Q of any degree, or an FESystem of one
   * FE_Q) on two meshes, the fine one the coarse one refined once everywhere: every coarse cell
   * has its 2^dim children in the fine mesh (as for the meshes of
   * MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence() of a globally refined
   * mesh). Serial Triangulation or parallel::distributed::Triangulation (each rank handles the
   * families of children it owns; the coarse cell must be locally owned or a ghost there).
   *
   * - prolongate_and_add(): per coarse cell the (p+1)^dim coarse values (zero at the coarse
   *   constraints' constrained DoFs) are interpolated to the (2p+1)^dim points of its children by
   *   the 1D embedding in each direction, multiplied by 1/(number of coarse cells sharing the fine
   *   DoF), zero at the fine constraints' constrained DoFs, and added into the fine vector;
   * - restrict_and_add() is the transpose;
   * - interpolate(): the coarse function interpolating the fine one at the coarse support points
   *   (deal.II's restriction matrices of FE_Q).
   *
   * The constraints may hold homogeneous Dirichlet conditions (constrained DoFs without entries,
   * e.g. from DoFTools::make_zero_boundary_constraints()), as deal.II's Portable transfer; hanging
   * nodes, periodicity and inhomogeneities are refused with a message. The coarse cells are
   * colored (no two of a color share a DoF): bitwise reproducible results. The kernels are those
   * of gpumf::MGTransferMatrixFree.
   */
  template <int dim, typename Number>
  class MGTwoLevelTransfer
  {
  public:
    using VectorType = Vector<Number>;

    MGTwoLevelTransfer();
    ~MGTwoLevelTransfer();
    MGTwoLevelTransfer(MGTwoLevelTransfer &&) noexcept;
    MGTwoLevelTransfer &
    operator=(MGTwoLevelTransfer &&) noexcept;

    /**
     * Sets up the transfer from @p dof_coarse to @p dof_fine (deal.II's signature; the constraints
     * of either number type), on @p backend. The level arguments (deal.II's transfer between
     * the multigrid levels of one DoFHandler) are not supported: use gpumf::MGTransferMatrixFree.
     * Collective on the meshes' communicator.
     */
    template <typename Number2>
    void
    reinit_geometric_transfer(const dealii::DoFHandler<dim>            &dof_fine,
                              const dealii::DoFHandler<dim>            &dof_coarse,
                              const dealii::AffineConstraints<Number2> &constraints_fine,
                              const dealii::AffineConstraints<Number2> &constraints_coarse,
                              const unsigned int mg_level_fine   = dealii::numbers::invalid_unsigned_int,
                              const unsigned int mg_level_coarse = dealii::numbers::invalid_unsigned_int,
                              const Backend      backend         = default_backend());

    /// As above, without constraints.
    void
    reinit_geometric_transfer(const dealii::DoFHandler<dim> &dof_fine,
                              const dealii::DoFHandler<dim> &dof_coarse,
                              const Backend                  backend = default_backend());

    /// dst += P src (dst on the fine DoFHandler, src on the coarse one; any layouts of those).
    void
    prolongate_and_add(VectorType &dst, const VectorType &src) const;

    /// dst += P^T src (dst coarse, src fine).
    void
    restrict_and_add(VectorType &dst, const VectorType &src) const;

    /// dst = the interpolation of the fine function @p src at the coarse support points
    /// (constrained coarse DoFs included).
    void
    interpolate(VectorType &dst, const VectorType &src) const;

    /**
     * Adopts the layouts of the vectors the level operators make (deal.II's name), where they
     * hold what the coarse cells need on every rank: vectors of those layouts are then read and
     * written in place, others copied. Collective.
     */
    void
    enable_inplace_operations_if_possible(
      const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner_coarse,
      const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner_fine) const;

    /// The layouts the transfer reads and writes in place.
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_partitioner_coarse() const;
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_partitioner_fine() const;

    /// Colors of the coarse cells.
    unsigned int
    n_colors() const;

    /// Where the transfer runs.
    Backend
    backend() const;

    /// Bytes held on the host and the backend.
    std::size_t
    memory_consumption() const;

  private:
    struct Implementation;
    /// *impl, after the check that the set-up ran
    Implementation &
    implementation() const;

    void
    apply(const bool restriction, VectorType &dst, const VectorType &src) const;

    std::unique_ptr<Implementation> impl;
  };

  /**
   * A multigrid transfer made of MGTwoLevelTransfer objects between the levels [min_level,
   * max_level] of an MGLevelObject (level l's transfer goes between l-1 and l; the one of
   * min_level is unused), for deal.II's Multigrid and PreconditionMG on gpumf::Vector level
   * vectors. copy_to_mg() gives every level a vector (of @p initialize_dof_vector, e.g. the level
   * operators' initialize_dof_vector(), else the transfer's layout) and the finest level the
   * global vector's values; copy_from_mg() takes the finest level's. deal.II 9.8's
   * MGTransferMatrixFree<dim, Number, MemorySpace::Default> (gpumf's Portable dialect names it so).
   */
  template <int dim, typename Number>
  class MGTransferGlobalCoarsening : public dealii::MGTransferBase<Vector<Number>>
  {
  public:
    using VectorType = Vector<Number>;

    /**
     * Keeps a pointer to @p transfer (which must outlive this object) and, with
     * @p initialize_dof_vector, makes each transfer adopt the level vectors' layouts.
     */
    MGTransferGlobalCoarsening(const dealii::MGLevelObject<MGTwoLevelTransfer<dim, Number>> &transfer,
                               const std::function<void(const unsigned int, VectorType &)> &initialize_dof_vector = {});

    /// A temporary MGLevelObject would leave the pointers dangling.
    MGTransferGlobalCoarsening(
      dealii::MGLevelObject<MGTwoLevelTransfer<dim, Number>>     &&transfer,
      const std::function<void(const unsigned int, VectorType &)> &initialize_dof_vector = {}) = delete;

    /// dst = P src: from level to_level-1 to to_level.
    void
    prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /// dst += P src.
    void
    prolongate_and_add(const unsigned int to_level, VectorType &dst, const VectorType &src) const override;

    /// dst += P^T src: from level from_level to from_level-1.
    void
    restrict_and_add(const unsigned int from_level, VectorType &dst, const VectorType &src) const override;

    /// Level vectors for [min_level, max_level], the finest with the values of @p src (the
    /// DoFHandler is that of the finest level's transfer; it is not read).
    template <typename Number2>
    void
    copy_to_mg(const dealii::DoFHandler<dim>     &dof_handler,
               dealii::MGLevelObject<VectorType> &dst,
               const Vector<Number2>             &src) const;

    /// dst = the finest level's vector.
    template <typename Number2>
    void
    copy_from_mg(const dealii::DoFHandler<dim>           &dof_handler,
                 Vector<Number2>                         &dst,
                 const dealii::MGLevelObject<VectorType> &src) const;

    /// dst += the finest level's vector.
    template <typename Number2>
    void
    copy_from_mg_add(const dealii::DoFHandler<dim>           &dof_handler,
                     Vector<Number2>                         &dst,
                     const dealii::MGLevelObject<VectorType> &src) const;

    /// The solution on every level: the finest @p src, each coarser the interpolation of the finer.
    template <typename Number2>
    void
    interpolate_to_mg(const dealii::DoFHandler<dim>     &dof_handler,
                      dealii::MGLevelObject<VectorType> &dst,
                      const Vector<Number2>             &src) const;

    unsigned int
    min_level() const;
    unsigned int
    max_level() const;

    std::size_t
    memory_consumption() const;

  private:
    const MGTwoLevelTransfer<dim, Number> &
    transfer(const unsigned int fine_level, const char *function) const;

    /// every level's vector made by the user's function, or the transfer's layout
    void
    initialize_level(const unsigned int level, VectorType &v) const;

    template <typename Number2>
    void
    copy_from_mg(Vector<Number2> &dst, const dealii::MGLevelObject<VectorType> &src, bool add) const;

    /// dst (+)= src on the owned entries (another number type through identity_indices)
    template <typename Dst, typename Src>
    void
    copy_owned(Vector<Dst> &dst, const Vector<Src> &src, bool add) const;

    std::vector<const MGTwoLevelTransfer<dim, Number> *> transfers;
    /// 0, 1, ...: the indices of copies between number types, made at the first
    mutable internal::Array<unsigned int>                 identity_indices;
    unsigned int                                          min_level_ = 0;
    std::function<void(const unsigned int, VectorType &)> initialize_dof_vector;
  };
} // namespace gpumf

#endif
