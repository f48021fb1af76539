/**
 * @file gpumf/stencil_operator.h
 * gpumf::StencilOperator: the operator of trilinear (FE_Q(1)) elements on a logically Cartesian
 * mesh applied as a 3^dim-point stencil (9-point in 2D, 27-point in 3D) on the grid of the DoFs,
 * by a kernel that stages tiles of the grid with their halo in shared memory. deal.II has no
 * equivalent (its CPU and GPU MatrixFree work cell by cell); the closest is an assembled
 * SparseMatrix of the same form. Host code only: include from .cc or .cu files.
 */
#ifndef gpumf_stencil_operator_h
#define gpumf_stencil_operator_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/full_matrix.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpumf
{
  /**
   * How StencilOperator stores its stencils; the storage follows from the mesh and the form
   * (StencilOperator::AdditionalData::storage).
   */
  enum class StencilStorage
  {
    /// The lightest storage that represents the operator exactly (to 1e-12 relative).
    automatic,
    /// One stencil for the whole grid (one per kind of boundary position: 3^dim stencils of 3^dim
    /// entries, no per-point data): a uniform mesh and a constant coefficient.
    constant,
    /// One stencil per grid plane normal to one direction (per boundary kind of the other
    /// directions): a mesh uniform in all but that direction, a coefficient varying along it.
    semi_constant,
    /// 3^dim entries per grid point (27 × the vector's memory in 3D): any logically Cartesian mesh
    /// and coefficient.
    variable,
    /// Rows with column indices (ELL), not on the grid: any FE_Q(1) mesh, partition and
    /// multigrid level. MultiColorGaussSeidel only (StencilOperator works on the grid).
    general
  };

  /// "automatic", "constant", "semi_constant" or "variable".
  std::string
  to_string(const StencilStorage storage);

  /**
   * Renumbers the DoFs of @p dof_handler (scalar FE_Q(1) on a logically Cartesian mesh, active
   * cells) so that each rank's locally owned DoFs are numbered lexicographically by their grid
   * coordinates (x fastest), within the rank's range of indices. StencilOperator needs this
   * numbering: with it a grid tile is a set of consecutive vector entries. Collective.
   * The deal.II counterpart is a function of the namespace DoFRenumbering.
   */
  template <int dim>
  void
  renumber_lexicographic(dealii::DoFHandler<dim> &dof_handler);

  /**
   * The operator of a bilinear form (default the Laplacian (grad u, grad v)) for the scalar
   * FE_Q(1) element on a logically Cartesian mesh (a subdivided box, refined uniformly, deformed
   * in any way), applied as a stencil on the grid of the DoFs.
   *
   * <b>Setup.</b> reinit() takes a MatrixFree object of the DoFHandler (its constraints, layout and
   * backend) and assembles each owned DoF's row from deal.II's element matrices (FEValues; owned
   * and ghost cells; in the threads of deal.II's WorkStream), sorted by the offset of the neighbour, (-1,0,1)^dim, x
   * fastest. It then chooses the storage (StencilStorage): the rows of all points of one boundary kind (per direction:
   * on the lower boundary, inside, on the upper boundary) equal → constant; equal within each plane normal to one
   * direction → semi_constant; else variable. Constant and semi-constant storage need the constrained DoFs to be whole
   * faces of the box (Dirichlet conditions on some of its 2·dim faces; the constrained points are found from their
   * coordinates); otherwise the automatic choice is variable.
   *
   * <b>Grid.</b> The locally owned DoFs of each rank must form a box of the grid, numbered
   * lexicographically (renumber_lexicographic(); one rank: always a box; several: e.g. a mesh of
   * 2^k coarse cells along one direction on 2^k ranks). The halo of the box (one point wide) is
   * read from the ghost entries of the vector, after update_ghost_values().
   *
   * <b>Application.</b> dst_i = sum_k s_ik src_(i+offset_k) for unconstrained rows, with src taken
   * as zero on constrained points, and dst_i = src_i on constrained rows (as the matrix-free
   * operators of gpumf/operators.h, deal.II's MatrixFreeOperators::Base). CUDA: a block of 32 × 8
   * threads (2D: 32 × 8 points; 3D: 32 × 8 columns marching in z) stages the planes of its tile
   * plus halo in shared memory with coalesced loads along x; each thread sums its point's stencil
   * from shared memory. Host: a plain loop over the points (the reference).
   *
   * Not supported (reinit() throws ExcNotSupported): elements other than scalar FE_Q(1), meshes
   * that are not logically Cartesian, hanging nodes or any constraint with entries, multigrid
   * levels, owned DoFs that do not form a lexicographically numbered box, and a storage forced
   * where it cannot represent the operator.
   */
  template <int dim, typename Number = double>
  class StencilOperator : public internal::EnableObserverPointer
  {
  public:
    using VectorType    = Vector<Number>;
    using value_type    = Number;
    using size_type     = typename VectorType::size_type;
    using cell_iterator = typename dealii::DoFHandler<dim>::cell_iterator;
    /// The element matrix of @p cell from @p fe_values (reinit on the cell); @p matrix is zero
    /// on entry. Called for owned and ghost cells, from several threads at once (deal.II's
    /// WorkStream: the function must not write shared state).
    using CellMatrixFunction =
      std::function<void(const cell_iterator &, const dealii::FEValues<dim> &, dealii::FullMatrix<double> &)>;

    /// Entries per stencil: 3^dim.
    static constexpr unsigned int n_entries = dim == 1 ? 3 : dim == 2 ? 9 : 27;

    /// Options of reinit().
    struct AdditionalData
    {
      /// The storage; automatic: the lightest exact one.
      StencilStorage storage = StencilStorage::automatic;
      /// Gauss points per direction of the element matrices (2: exact for the Laplacian on
      /// parallelograms, as LaplaceOperator<dim, 1, 2>).
      unsigned int n_q_points_1d = 2;
      /// The element matrix; empty: the Laplacian (grad u, grad v).
      CellMatrixFunction cell_matrix;
      /// The mapping of the element matrices; empty: MappingQ1.
      std::shared_ptr<const dealii::Mapping<dim>> mapping;
    };

    StencilOperator() = default;

    /// Assembles and stores the stencils (class documentation). Collective.
    void
    reinit(const MatrixFree<dim, Number> &matrix_free, const AdditionalData &data = AdditionalData());

    /// dst = A src (ghost values of src exchanged inside).
    void
    vmult(VectorType &dst, const VectorType &src) const;

    /// The same as vmult() (the forms in use are symmetric: a nonsymmetric cell_matrix gets A, not A^T).
    void
    Tvmult(VectorType &dst, const VectorType &src) const;

    /**
     * One color of a Gauss-Seidel sweep (MultiColorGaussSeidel on this storage): for the owned
     * points whose global grid coordinates have the parities of @p color (bit d: coordinate d
     * odd), x_i += omega (b_i - (A x)_i) / a_ii, all at once (such points do not couple). The
     * ghost entries of @p x must be current (update_ghost_values()); the CUDA kernel stages the
     * tiles of the application, 64 x 16 points per block of which a quarter is of the color.
     */
    void
    relax_color(unsigned int color, Number omega, const VectorType &b, VectorType &x) const;

    /// The color of owned point @p i (local index): bit d is the parity of its global grid
    /// coordinate d, as relax_color() counts colors.
    unsigned int
    color_of(unsigned int i) const;

    /// The layout of the vectors (that of the MatrixFree object).
    void
    initialize_dof_vector(VectorType &vector) const;

    /// The storage in use (never automatic).
    StencilStorage
    storage() const;

    /// The direction along which semi_constant storage varies (dim for the other storages).
    unsigned int
    varying_direction() const;

    /// Global number of rows and columns.
    size_type
    m() const;
    size_type
    n() const;

    /// Where the stencils live and the kernel runs.
    Backend
    backend() const;

    /// Bytes of the stencils and index tables (host and device).
    std::size_t
    memory_consumption() const;

    /// Bytes an application moves at least: the owned entries of src read and of dst written, plus
    /// the stored stencils that are read per point (variable: 3^dim numbers per point).
    std::size_t
    memory_traffic() const;

    /// The grid layout the kernels read (internal; for the kernels and tests).
    struct Grid
    {
      /// Owned box: first global grid coordinates and points per direction.
      std::array<unsigned int, 3> first{{0, 0, 0}}, size{{1, 1, 1}};
      /// Grid points of the whole mesh per direction.
      std::array<unsigned int, 3> global_size{{1, 1, 1}};
      /// Bit 2d (2d+1): the lower (upper) face normal to direction d is constrained.
      unsigned int dirichlet_faces = 0;
      /// [point of the box extended by one point each side, x fastest]: local vector index of
      /// halo points (owned points: unused; invalid_unsigned_int: not in the mesh). Empty when
      /// the halo holds no ghost entries (one rank).
      internal::Array<unsigned int> halo;
      /// constant: [class][entry]; semi_constant: [plane][class of the other directions][entry];
      /// variable: [entry][owned point]
      internal::Array<Number> stencils;
      StencilStorage          storage   = StencilStorage::variable;
      unsigned int            direction = dim;
      unsigned int            n_owned   = 0;
    };

    /// The grid data.
    const Grid &
    get_grid() const;

  private:
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
    Backend                                                    backend_ = Backend::host;
    Grid                                                       grid;

    void
    check_vector(const VectorType &v) const;
  };
} // namespace gpumf

#endif
