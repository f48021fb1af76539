/**
 * @file gpumf/multicolor_gauss_seidel.h
 * gpumf::MultiColorGaussSeidel: Gauss-Seidel / SOR / symmetric Gauss-Seidel (SSOR) sweeps for
 * trilinear (FE_Q(1)) elements on the GPU, with the assembled operator stored as a 3^dim-point
 * stencil and the DoFs grouped in 2^dim colors that update in parallel. A smoother for
 * deal.II's mg::SmootherRelaxation and a preconditioner for deal.II's solvers.
 * deal.II equivalents: PreconditionSOR, PreconditionSSOR (lac/precondition.h) and
 * SparseMatrix::SOR_step(), SparseMatrix::SSOR_step(), SparseMatrix::precondition_SOR(),
 * which sweep in the DoF order of an assembled SparseMatrix on the CPU.
 * Host code only: include from .cc or .cu files; the kernels are in the library.
 */
#ifndef gpumf_multicolor_gauss_seidel_h
#define gpumf_multicolor_gauss_seidel_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>
#include <gpumf/matrix_free.h>
#include <gpumf/stencil_operator.h>
#include <gpumf/vector.h>

#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/full_matrix.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace gpumf
{
  /**
   * Multi-color Gauss-Seidel (and SOR, symmetric Gauss-Seidel, SSOR) for the scalar FE_Q(1)
   * element: a smoother (deal.II's mg::SmootherRelaxation<MultiColorGaussSeidel, Vector>) and a
   * preconditioner (deal.II's SolverCG, SolverGMRES), on the CUDA or the host backend of a
   * gpumf::MatrixFree object, active cells or one multigrid level, one or several MPI ranks.
   *
   * <b>The matrix.</b> reinit() assembles the operator A of a bilinear form on the host with
   * deal.II's FEValues: element matrices (AdditionalData::cell_matrix; default the Laplacian
   * (grad u, grad v)) of the cells of the MatrixFree object and of the ghost cells around them,
   * summed into the rows of the locally owned DoFs. With Q1 elements a DoF couples with the DoFs
   * of the cells around its vertex: at most 3^dim entries per row on a logically Cartesian mesh
   * (a 9-point stencil in 2D, 27-point in 3D). Rows of constrained DoFs
   * (MatrixFree::get_constrained_dofs(): Dirichlet conditions, on a level the level's boundary
   * DoFs) are the identity and their columns are dropped, as in the matrix-free operators
   * (MatrixFreeOperators::Base). Constraints with entries (hanging nodes, periodicity) are not
   * supported (reinit() throws).
   *
   * <b>Colors.</b> On a logically Cartesian mesh (internal::cartesian_coordinates(): the mesh of
   * a subdivided box, refined uniformly, deformed in any way) every DoF has integer coordinates
   * (its cell's coordinates plus the vertex's position in the cell) and its color is the parity
   * of each coordinate, @f$c = \sum_d (x_d \bmod 2)\, 2^d@f$: 2^dim colors, and two DoFs of one
   * color are two grid lines apart in some direction, so no cell holds both and they do not
   * couple. The colors depend on the mesh only, so all MPI ranks agree on the colors of the
   * DoFs they share. Otherwise, on one MPI rank, the rows are colored greedily in index order
   * (each row the smallest color none of its coupled rows has; more colors, e.g. 4 to 6 in 2D
   * on a ball); on several ranks a mesh that is not logically Cartesian is rejected.
   *
   * <b>Sweeps.</b> A sweep processes the colors one after the other; within a color every row
   * i updates at once (one CUDA thread per row):
   * @f[ x_i \leftarrow x_i + \omega \frac{b_i - \sum_j a_{ij} x_j}{a_{ii}}. @f]
   * As rows of a color do not couple, a sweep equals a sequential Gauss-Seidel (SOR for
   * @f$\omega \neq 1@f$) in the order "rows of color 0, rows of color 1, ...", the backward sweep the
   * same in reverse (colors in reverse order), and the symmetric sweep (forward, then backward)
   * symmetric Gauss-Seidel (SSOR) in that order. With several ranks the ghost entries of x are
   * exchanged before each color (rows at the boundary of a rank read their neighbors' values
   * of the earlier colors), and zeroed after the sweep.
   *
   * <b>Storage on the grid</b> (AdditionalData::storage; automatic where it applies): on the
   * active cells of a logically Cartesian mesh whose owned DoFs form a lexicographically numbered
   * box on each rank (renumber_lexicographic(); the conditions of StencilOperator), the operator
   * is a StencilOperator with constant, semi-constant or variable stencils (StencilStorage), and
   * each color's update is StencilOperator::relax_color(): the tiled kernel of the application,
   * without index arrays. Otherwise (multigrid levels, other numberings and partitions, meshes
   * that are not logically Cartesian), and with StencilStorage::general, the ELL rows below.
   *
   * <b>General storage</b> (ELL, rows sorted by color, slot-major so that the threads of a warp read
   * consecutive addresses): with n_rows the locally owned rows, S the slots per row (3^dim on
   * a logically Cartesian mesh, the longest row otherwise) and r the position of a row in
   * color order,
   * @verbatim
   *   color_start      [c]              first position of color c (n_colors + 1 entries, host)
   *   rows             [r]              local vector index i of the row at position r
   *   columns          [k * n_rows + r] local vector index j (owned or ghost) of entry k of row r
   *   values           [k * n_rows + r] a_ij; unused slots: j = i, a_ij = 0
   *   inverse_diagonal [r]              1 / a_ii
   *
   *   position r:  0 ... | color_start[1] ... | ... | color_start[n_colors-1] ... n_rows-1
   *   rows:        color 0 rows (ascending) | color 1 rows | ...
   * @endverbatim
   *
   * Use as a preconditioner: `solver.solve(A, x, b, gauss_seidel)` (vmult(): one sweep from
   * zero; with AdditionalData::symmetric, the default, a symmetric operator as CG needs). Use as
   * a multigrid smoother: `mg::SmootherRelaxation<MultiColorGaussSeidel<dim, Number>,
   * Vector<Number>>` initialized with the level operators (initialize(), step(), Tstep()).
   */
  template <int dim, typename Number = double>
  class MultiColorGaussSeidel : public internal::EnableObserverPointer
  {
  public:
    using VectorType = Vector<Number>;
    using value_type = Number;
    using size_type  = typename VectorType::size_type;
    /// The cells of the MatrixFree object: active cells, or cells of one level.
    using cell_iterator = typename dealii::DoFHandler<dim>::cell_iterator;
    /**
     * Adds the element matrix of @p cell (deal.II's DoF order of the cell; @p matrix is zero on
     * entry) from @p fe_values, reinit on the cell. Called for the locally owned cells and the
     * ghost cells (on a level: level ghost cells) next to locally owned DoFs, so it must not
     * need data that only the owner of a cell has; on the grid storages from several threads at
     * once (StencilOperator), so it must not write shared state.
     */
    using CellMatrixFunction =
      std::function<void(const cell_iterator &, const dealii::FEValues<dim> &, dealii::FullMatrix<double> &)>;

    /**
     * Options of reinit() and initialize(), as deal.II's PreconditionRelaxation::AdditionalData.
     */
    struct AdditionalData
    {
      /// See the members.
      AdditionalData(const double relaxation = 1., const bool symmetric = true, const unsigned int n_q_points_1d = 2)
        : relaxation(relaxation)
        , symmetric(symmetric)
        , n_q_points_1d(n_q_points_1d)
      {}

      /// omega: 1 for Gauss-Seidel, in (0, 2) for SOR (deal.II: AdditionalData::relaxation).
      double relaxation;
      /// true: step() and vmult() do a forward sweep, then a backward sweep (symmetric
      /// Gauss-Seidel / SSOR, deal.II's PreconditionSSOR); false: a forward sweep only
      /// (Gauss-Seidel / SOR, deal.II's PreconditionSOR).
      bool symmetric;
      /// Gauss points per direction for the element matrices (2 integrates the Laplacian of
      /// Q1 exactly on parallelograms, and is what LaplaceOperator<dim, 1, 2> uses).
      unsigned int n_q_points_1d;
      /// The element matrix; empty: the Laplacian (grad u, grad v).
      CellMatrixFunction cell_matrix;
      /// The mapping of the element matrices; empty: MappingQ1.
      std::shared_ptr<const dealii::Mapping<dim>> mapping;
      /// automatic: the lightest grid storage (StencilOperator) where the mesh, numbering and
      /// partition allow it, else general (ELL rows). constant, semi_constant, variable: that grid
      /// storage or an exception (StencilOperator::reinit()'s); general: the ELL rows always.
      StencilStorage storage = StencilStorage::automatic;
    };

    /**
     * The assembled stencil on the host (a copy, for tests and inspection), in the layout of the
     * class documentation.
     */
    struct HostStencil
    {
      /// Slots per row (S).
      unsigned int n_slots = 0;
      /// First position of each color, n_colors + 1 entries.
      std::vector<unsigned int> color_start;
      /// Local vector index of the row at each position.
      std::vector<unsigned int> rows;
      /// [k * rows.size() + r]: local vector index of entry k of the row at position r.
      std::vector<unsigned int> columns;
      /// [k * rows.size() + r]: the value of that entry (0 for unused slots).
      std::vector<Number> values;

      /// The entries (local column, value) of the row at position @p r, unused slots left out.
      std::vector<std::pair<unsigned int, Number>>
      row(const unsigned int r) const
      {
        std::vector<std::pair<unsigned int, Number>> result;
        for (unsigned int k = 0; k < n_slots; ++k)
          {
            const std::size_t s = std::size_t(k) * rows.size() + r;
            if (columns[s] != rows[r] || values[s] != Number(0) || k == 0)
              result.emplace_back(columns[s], values[s]);
          }
        return result;
      }
    };

    MultiColorGaussSeidel() = default;

    /**
     * Assembles the stencil of the operator on the cells of @p matrix_free (its active cells,
     * or its multigrid level), with its constraints, DoF layout and backend, and colors the
     * rows (see the class documentation). Collective over the MPI communicator of the mesh.
     * Throws ExcNotSupported for an element other than scalar FE_Q(1), for constraints with
     * entries (hanging nodes), and for a mesh that is not logically Cartesian on several ranks.
     */
    void
    reinit(const MatrixFree<dim, Number> &matrix_free, const AdditionalData &data = AdditionalData());

    /**
     * For deal.II's mg::SmootherRelaxation and PreconditionRelaxation-style use: reinit() on the
     * MatrixFree object of @p op (a MatrixFreeOperators::Base-derived operator such as
     * LaplaceOperator<dim, 1, 2>; the stencil is that of AdditionalData::cell_matrix, which must
     * be the operator's form). Throws on levels with refinement edges
     * (op.has_interface_matrices()), which the stencil does not treat.
     */
    template <typename OperatorType>
    void
    initialize(const OperatorType &op, const AdditionalData &data = AdditionalData())
    {
      AssertThrow(!op.has_interface_matrices(),
                  ExcNotSupported("MultiColorGaussSeidel: the level has refinement-edge DoFs (an adaptively refined "
                                  "mesh); the stencil supports levels without them (uniformly refined meshes)."));
      AssertThrow(op.get_matrix_free() != nullptr, dealii::ExcNotInitialized());
      reinit(*op.get_matrix_free(), data);
    }

    /// Releases all memory.
    void
    clear();

    /**
     * dst = P^{-1} src: one sweep (forward, or symmetric with AdditionalData::symmetric) from
     * dst = 0 for the right-hand side src (deal.II: PreconditionSOR::vmult(),
     * PreconditionSSOR::vmult(); the symmetric version is the textbook SSOR preconditioner
     * (2 - omega)/omega (D/omega + U)^{-1} D (D/omega + L)^{-1}).
     */
    void
    vmult(VectorType &dst, const VectorType &src) const;

    /**
     * The transpose of vmult() for a symmetric matrix: without AdditionalData::symmetric a
     * backward sweep from zero, (D/omega + U)^{-1} src (deal.II: PreconditionSOR::Tvmult());
     * with it the same as vmult(), the SSOR preconditioner being symmetric (deal.II:
     * PreconditionSSOR::Tvmult()).
     */
    void
    Tvmult(VectorType &dst, const VectorType &src) const;

    /// One more sweep on @p x (forward, or forward then backward) for A x = b
    /// (deal.II: PreconditionSOR::step(), SparseMatrix::SOR_step(), SSOR_step()).
    void
    step(VectorType &x, const VectorType &b) const;

    /// The transposed step: a backward sweep (deal.II: PreconditionSOR::Tstep(), SparseMatrix::TSOR_step()),
    /// or with AdditionalData::symmetric the same as step() (deal.II: PreconditionSSOR::Tstep()).
    /// mg::SmootherRelaxation alternates step() and Tstep() when asked for a symmetric smoother.
    void
    Tstep(VectorType &x, const VectorType &b) const;

    /// Colors 0, 1, ..., n_colors() - 1: x_i += omega (b_i - (A x)_i) / a_ii for the rows of each color.
    void
    forward_sweep(VectorType &x, const VectorType &b) const;

    /// Colors n_colors() - 1, ..., 0.
    void
    backward_sweep(VectorType &x, const VectorType &b) const;

    /// dst = A src with the assembled stencil (constrained rows: dst_i = src_i).
    void
    stencil_vmult(VectorType &dst, const VectorType &src) const;

    /// Number of colors: 2^dim on a logically Cartesian mesh (on every rank, colors may be empty).
    unsigned int
    n_colors() const;

    /// Local row indices of each color, ascending, on the host.
    const std::vector<std::vector<unsigned int>> &
    colored_rows() const;

    /// True when the colors are the vertex parities (logically Cartesian mesh), false when greedy.
    bool
    parity_coloring() const;

    /// A host copy of the stencil (general storage; throws on the grid storages, whose stencils
    /// StencilOperator::get_grid() shows).
    HostStencil
    get_stencil() const;

    /// The storage in use: general, or the grid storage of the StencilOperator.
    StencilStorage
    storage() const;

    /// Global number of rows (deal.II: PreconditionRelaxation::m()).
    size_type
    m() const;

    /// Global number of columns.
    size_type
    n() const;

    /// The relaxation parameter omega in use.
    double
    relaxation() const;

    /// The layout of the vectors (that of the MatrixFree object).
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_vector_partitioner() const;

    /// Where the stencil lives and the sweeps run.
    Backend
    backend() const;

    /// Bytes held (host and device).
    std::size_t
    memory_consumption() const;

  private:
    /// The colors in @p order, each after a ghost exchange of x where another color changed x before.
    void
    sweep(VectorType &x, const VectorType &b, const std::vector<unsigned int> &order) const;

    /// Throws unless @p v has the layout and backend of the stencil.
    void
    check_vector(const VectorType &v) const;

    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
    /// The operator on the grid (storage on the grid), unused with general storage.
    StencilOperator<dim, Number>           grid;
    bool                                   on_grid   = false;
    Backend                                backend_  = Backend::host;
    double                                 omega     = 1.;
    bool                                   symmetric = true;
    bool                                   parity    = true;
    unsigned int                           n_slots   = 0;
    std::vector<unsigned int>              color_start;
    std::vector<std::vector<unsigned int>> colored_rows_host;
    std::vector<unsigned int>              forward_order, backward_order;
    internal::Array<unsigned int>          rows;
    internal::Array<unsigned int>          columns;
    internal::Array<Number>                values;
    internal::Array<Number>                inverse_diagonal;
  };
} // namespace gpumf

#endif
