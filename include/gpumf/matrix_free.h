/**
 * @file gpumf/matrix_free.h
 * gpumf::MatrixFree: the data a matrix-free operator needs on the GPU (or on the host
 * reference backend), and the loops that run a user's cell functor over all cells.
 * deal.II equivalent: CUDAWrappers::MatrixFree (deal.II 9.4, cuda_matrix_free.h).
 */
#ifndef gpumf_matrix_free_h
#define gpumf_matrix_free_h

#include <gpumf/backend.h>
#include <gpumf/cost_model.h>
#include <gpumf/device_vector.h>
#include <gpumf/team_handle.h>
#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/dof_access.h>
#include <gpumf/internal/hanging_nodes.h>
#include <gpumf/internal/dealii_host_functions.h>
#include <gpumf/internal/face_data.h>
#include <gpumf/internal/host_block.h>
#include <gpumf/internal/loop_operations.h>
#include <gpumf/internal/loop_schedule.h>
#include <gpumf/internal/memory.h>
#include <gpumf/vector.h>
#include <gpumf/block_vector.h>

#include <deal.II/base/point.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_update_flags.h>
#include <deal.II/fe/mapping.h>
// what deal.II 9.4's cuda_matrix_free.h and cuda_fe_evaluation.h bring along, so that code
// written against them compiles unchanged
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/filtered_iterator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/affine_constraints.h>

#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * Misuse that would give a wrong result: throws ExcNotSupported(@p message) on the host;
     * in a CUDA kernel prints @p message (as a failed assertion) and stops the kernel, after
     * which the CUDA context is lost and the next CUDA call reports the error.
     */
    __host__ __device__ inline void
    require(const bool condition, const char *message)
    {
      if (condition)
        return;
#ifdef __CUDA_ARCH__
      __assert_fail(message, __FILE__, __LINE__, "gpumf"); // device assert(): prints, then stops the kernel
#else
      AssertThrow(condition, ExcNotSupported(message));
#endif
    }
  } // namespace internal

  /**
   * Matrix-free data for FE_Q elements (or an FESystem of equal FE_Q) on a mesh, on one Backend.
   * Mirrors deal.II 9.4's CUDAWrappers::MatrixFree<dim, Number>, without its limits:
   * the 1D shape tables live in each object's own memory (no constant-memory slots,
   * any number of objects), and the AffineConstraints are honoured inside the kernels:
   * Dirichlet DoFs read as zero, DoFs constrained to others (hanging nodes on adaptive meshes,
   * periodicity) read as the weighted sum of their masters and add the transpose into them
   * (internal/dof_access.h), for every degree, dim 2 and 3, scalar and vector-valued elements.
   *
   * Setup (reinit) runs on the host with deal.II's DoFHandler; the geometry on the backend from
   * a MappingQ's support points (else FEValues); cells are grouped in colors (no two touch a
   * vector entry, through their DoFs or the constraints of their DoFs) when
   * AdditionalData::use_coloring is set, else in one group whose additions into shared
   * DoFs are atomic.
   *
   * Per-point arrays, cells sorted by color, `c` the cell's position in that order and
   * `q` the lexicographic quadrature point (x fastest), `N = n_cells * n_q_points`:
   * @verbatim
   *   q_points        [c * n_q_points + q]                       Point<dim, Number>
   *   JxW             [c * n_q_points + q]                       Number
   *   inv_jacobian    [(e * dim + d) * N + c * n_q_points + q]   d xi_e / d x_d
   * with Data::affine (GeometryStorage::affine: every cell a parallelepiped), per cell only:
   *   JxW             [c]                                        det J (JxW = det J * weights[q])
   *   inv_jacobian    [(e * dim + d) * n_cells + c]              d xi_e / d x_d
   *   quadrature_weights [q]                                     tensor-product weight
   *   local_to_global [c * dofs_per_cell + k * n_dofs_1d^dim + i]  code of the DoF of component k,
   *                                                              i lexicographic: vector index, row of
   *                                                              the constraint table, or no_dof
   *                                                              (internal/dof_access.h)
   *   shape_values       [q * n_dofs_1d + i]   phi_i(x_q)          (1D)
   *   shape_gradients    [q * n_dofs_1d + i]   phi_i'(x_q)         (1D, host reference)
   *   co_shape_gradients [q * n_q_1d + r]      l_r'(x_q), l_r Lagrange on the quadrature points
   *   inverse_shape_values [i * n_dofs_1d + l]  (shape_values)^-1, where n_q_1d == n_dofs_1d
   * @endverbatim
   */
  template <int dim, typename Number>
  struct SharedData;

  template <typename Number>
  class BlockVector;

  template <int dim, typename Number = double>
  class MatrixFree : public internal::EnableObserverPointer
  {
  public:
    using point_type = dealii::Point<dim, Number>;
    /// The cells the object works on: active cells, or the cells of one level (AdditionalData::mg_level).
    using cell_iterator = typename dealii::DoFHandler<dim>::cell_iterator;

    /// How additions of cells into shared DoFs are kept apart (see conflict_strategy()).
    enum class ConflictStrategy
    {
      /// atomicAdd into the result; one launch for all cells
      atomics,
      /// 2^dim colors by the parity of each cell's integer coordinates (logically Cartesian meshes)
      cartesian_coloring,
      /// cells sharing a DoF index apart (any mesh): a greedy pass in cell order, deal.II's
      /// GraphColoring where that pass gives up (source/core/coloring.cc)
      graph_coloring,
      /// no conflicts to keep apart: a discontinuous element (FE_DGQ and its relatives) without
      /// constraint rows, whose cells share no vector entry; one launch, plain additions,
      /// bitwise repeatable
      none
    };

    /**
     * Where the geometry of the quadrature points comes from. deal.II's CPU MatrixFree
     * likewise compresses affine cells to one Jacobian per cell.
     */
    enum class GeometryStorage
    {
      /// affine when every cell is a parallelepiped (constant Jacobian), else per_point
      automatic,
      /// inverse Jacobian and JxW stored at every quadrature point (any mapping)
      per_point,
      /// one inverse Jacobian and determinant per cell, JxW computed in the kernel from the
      /// quadrature weights; reinit() throws unless every cell is a parallelepiped
      affine
    };

    /**
     * How a cell on the fine side of a hanging face (adaptive meshes) reads and writes its DoFs
     * in FEEvaluation::read_dof_values() and distribute_local_to_global() and in the ready
     * operators (internal/hanging_nodes.h).
     */
    enum class HangingNodes
    {
      /**
       * As deal.II's CPU FEEvaluation since 9.4: the coarse side's DoFs, read like the cell's
       * own and interpolated to the fine side in the kernel with 1D matrices, where the element
       * is FE_Q (or an FESystem of FE_Q) on active cells and the AffineConstraints hold
       * deal.II's hanging-node constraints there (checked per cell at reinit(): a cell whose
       * constraints differ keeps constraint_rows, see n_hanging_node_cells()).
       */
      interpolation,
      /// each hanging DoF read as the weighted sum of its constraint line (internal/dof_access.h)
      constraint_rows
    };

    /// As in deal.II; only parallel_in_elem (one thread per point) is implemented.
    enum ParallelizationScheme
    {
      parallel_in_elem,
      parallel_over_elem
    };

    /**
     * Options of reinit(), as deal.II's CUDAWrappers::MatrixFree::AdditionalData, plus
     * the backend.
     */
    struct AdditionalData
    {
      AdditionalData(const ParallelizationScheme parallelization_scheme = parallel_in_elem,
                     const dealii::UpdateFlags   mapping_update_flags   = dealii::update_gradients |
                                                                      dealii::update_JxW_values |
                                                                      dealii::update_quadrature_points,
                     const bool use_coloring                      = false,
                     const bool overlap_communication_computation = false)
        : parallelization_scheme(parallelization_scheme)
        , mapping_update_flags(mapping_update_flags)
        , use_coloring(use_coloring)
        , overlap_communication_computation(overlap_communication_computation)
      {}

      /// deal.II 9.5+'s constructor (Portable::MatrixFree::AdditionalData): no parallelization scheme.
      AdditionalData(const dealii::UpdateFlags mapping_update_flags,
                     const bool                use_coloring                      = false,
                     const bool                overlap_communication_computation = false)
        : AdditionalData(parallel_in_elem, mapping_update_flags, use_coloring, overlap_communication_computation)
      {}

      /// Must be parallel_in_elem.
      ParallelizationScheme parallelization_scheme;
      /// Accepted for compatibility: quadrature points, JxW and inverse Jacobians are always stored.
      dealii::UpdateFlags mapping_update_flags;
      /**
       * As in deal.II's CPU MatrixFree: anything other than update_default sets up the faces
       * for loop() (topology, and at every face point JxW, the normal, the inverse Jacobian of
       * each side and the point itself, whatever the flags ask). A discontinuous element
       * (FE_DGQ, FE_DGQHermite, FE_DGQLegendre, FE_DGQArbitraryNodes, or FESystem of one) on the
       * active cells (hanging faces included) or the cells of a level (mg_level) that covers the
       * domain, periodic faces between cells of one level, and constraints without lines for
       * the cells' DoFs (boundary conditions enter through the boundary faces); or a continuous
       * one (FE_Q, or FESystem of FE_Q) on the active cells, with any constraints (the face
       * evaluators read through them, as FEEvaluation).
       */
      dealii::UpdateFlags mapping_update_flags_inner_faces = dealii::update_default;
      /// As mapping_update_flags_inner_faces, for the boundary faces; either sets up all faces.
      dealii::UpdateFlags mapping_update_flags_boundary_faces = dealii::update_default;
      /// true: cell coloring, bitwise reproducible (Cartesian 2^dim colors where the mesh is
      /// logically Cartesian, graph coloring otherwise); false: atomic additions.
      bool use_coloring;
      /**
       * With several MPI ranks: cell_loop() starts the ghost exchange of the source vector,
       * processes half of the cells that touch no ghost DoF while the messages are in flight,
       * then the cells that do, then starts sending their contributions to the owners
       * (compress) and processes the other half meanwhile (deal.II: the same option of
       * MatrixFree). The result is bitwise the same either way.
       */
      bool overlap_communication_computation;
      /// Where data and loops live (default: default_backend()).
      Backend backend = default_backend();
      /// For the ready-made operators (gpumf/operators.h): sum factorization, element
      /// matrices, or the cheaper by gpumf::CostModel.
      Implementation implementation = Implementation::automatic;
      /// Per-point or per-cell (affine) geometry; see GeometryStorage.
      GeometryStorage geometry = GeometryStorage::automatic;
      /**
       * CUDA: cells processed by one thread block (several at low degree keep the blocks
       * large enough for the GPU's schedulers); 0 = automatic
       * (internal::CellLayout::max_cells_per_block(): several only where a cell has fewer
       * threads than a warp). Larger values are clamped to that and to the shared memory;
       * the column kernels (a column of points per thread: the ready operators) then take, up to that,
       * the number that keeps the most cells resident on an SM (CUDA's occupancy calculator).
       */
      unsigned int cells_per_block = 0;
      /**
       * The multigrid level whose cells and level DoFs (DoFHandler::distribute_mg_dofs()) the
       * object works on, as deal.II's MatrixFree::AdditionalData::mg_level; the default
       * (numbers::invalid_unsigned_int) means the active cells. On a level, the constraints are
       * the level's (typically MGConstrainedDoFs::get_boundary_indices(level) as lines without
       * entries), the vectors have the layout of the level's DoFs (locally_owned_mg_dofs(level),
       * ghosts from DoFTools::extract_locally_relevant_level_dofs()), and the cells are the
       * locally owned cells of the level (is_locally_owned_on_level()).
       */
      unsigned int mg_level = dealii::numbers::invalid_unsigned_int;
      /**
       * Keep, besides the DoF codes that apply the constraints, the plain vector index of every
       * DoF of every cell, for FEEvaluation::read_dof_values_plain() (the vector's own entries,
       * constrained DoFs included: a solution with nonzero Dirichlet values, or after
       * AffineConstraints::distribute(), read as it is) and for gpumf::VectorTools. As deal.II's
       * AdditionalData::store_plain_indices, on by default; costs 4 bytes per DoF of every cell
       * (about as much as the codes themselves).
       */
      bool store_plain_indices = true;
      /// Hanging nodes by interpolation (the default) or through their constraint lines; see
      /// HangingNodes. Diagonals and element matrices take the constraint lines either way.
      HangingNodes hanging_nodes = HangingNodes::interpolation;
    };

    /**
     * What a cell functor receives: pointers into the arrays of one color (see the
     * class documentation), valid on the object's backend.
     */
    struct Data
    {
      point_type   *q_points;
      unsigned int *local_to_global;
      Number       *inv_jacobian;
      Number       *JxW;
      const Number *shape_values;
      const Number *shape_gradients;
      const Number *co_shape_gradients;
      /// [i * n_dofs_1d + l]: the inverse of shape_values where n_q_points_1d == n_dofs_1d
      /// (CellwiseInverseMassMatrix), else nullptr.
      const Number *inverse_shape_values = nullptr;
      /// Tensor-product quadrature weights [q] (used with affine geometry).
      const Number *quadrature_weights;
      /// Identifies the MatrixFree object.
      unsigned int id;
      /// Cells in this color.
      unsigned int n_cells;
      /// Position of this color's first cell among all cells.
      unsigned int row_start;
      /// Distance between the dim*dim components in inv_jacobian.
      unsigned int jacobian_stride;
      unsigned int n_dofs_1d;
      unsigned int n_q_points_1d;
      unsigned int n_components;
      /// CUDA: cells per thread block of the running kernel (see cells_per_block()).
      unsigned int cells_per_block;
      bool         use_coloring;
      /// Geometry per cell (see the class documentation), else per point.
      bool affine;
      /// The quadrature points are the element's nodes (Gauss-Lobatto with p+1 points):
      /// shape_values is the identity and FEEvaluation skips the interpolation passes.
      bool collocation;
      /// The constraint lines with entries (hanging nodes, periodicity, ...) that local_to_global
      /// refers to (internal/dof_access.h).
      internal::ConstraintRows<Number> constraint_rows;
      /// Per cell of the object ([row_start + cell]): 1 if one of its DoFs is a constraint row.
      const unsigned char *cell_has_constraint_rows;
      /// HangingNodes::interpolation (internal/hanging_nodes.h), where a cell of this rank uses
      /// it, else nullptr: per cell of the object ([row_start + cell]) its mask (0: none) ...
      const unsigned short *hanging_masks = nullptr;
      /// ... the codes FEEvaluation::read_dof_values() and distribute_local_to_global() use, as
      /// local_to_global but the coarse side's DoFs where a mask is set ...
      const unsigned int *hanging_local_to_global = nullptr;
      /// ... and the 1D interpolation matrices W0, W1 ([(h * n_dofs_1d + i) * n_dofs_1d + j]).
      const Number *hanging_weights = nullptr;
      /// Some cell of this launch has a constraint row (else the loops skip that logic).
      bool has_constraint_rows;
      /// Where the arrays live (copy_mf_data_to_host() reads them from there).
      Backend backend;
      /// [c * dofs_per_cell + k * n_dofs_1d^dim + i]: the vector index of the DoF, constrained or
      /// not (AdditionalData::store_plain_indices), else nullptr.
      const unsigned int *plain_local_to_global = nullptr;
      /// The faces of the cells, for FEFaceEvaluation in the face functors of loop() (empty
      /// unless AdditionalData asked for faces).
      internal::FaceData<dim, Number> faces;

      /// Quadrature points per cell, n_q_points_1d^dim (deal.II 9.7+'s Data::n_q_points).
      unsigned int n_q_points;

      /// @name deal.II 9.7+'s per-cell members: what a cell functor of the form
      /// `operator()(const Data *data, const Portable::DeviceVector<Number> &src,
      /// Portable::DeviceVector<Number> &dst)` receives besides the arrays (deal.II:
      /// Data::cell_index and Data::shared_data); set by the loops for that form and for
      /// evaluate_coefficients(), else 0 and nullptr.
      /// @{
      /// The cell (its number in this color, as the functor's cell argument of the other forms).
      int cell_index = 0;
      /// The cell's scratch, for FEEvaluation(data, dof_index).
      SharedData<dim, Number> *shared_data = nullptr;
      /// The cell's threads (deal.II: a Kokkos team handle; gpumf/kokkos.h loops over it).
      Portable::TeamHandle team_member;
      /// The functor's thread layout (its thread_per_column): which points a thread owns in
      /// for_each_quad_point().
      bool thread_per_column = false;
      /// @}

      /// @name Several DoFHandlers (reinit() with a vector of them)
      /// @{
      /// The DoFHandler whose DoF fields this Data holds (local_to_global, plain_local_to_global,
      /// the constraint rows and hanging-node arrays, the 1D shape tables, n_dofs_1d,
      /// n_components, collocation); the cells and the geometry are those of every DoFHandler.
      unsigned int dof_index = 0;
      /// The DoFHandlers of the object.
      unsigned int n_dof_handlers = 1;
      /// [k]: the Data of DoFHandler k, in the backend's memory, whose DoF fields
      /// FEEvaluation(data, k) takes (the rest of each is not for use); nullptr with one DoFHandler.
      const Data *dof_handler_data = nullptr;
      /// @}

      /// @name Several quadratures (reinit() with a vector of them)
      /// @{
      /// The quadrature whose fields this Data holds: the geometry (q_points, inv_jacobian, JxW,
      /// jacobian_stride), the 1D tables, quadrature_weights, n_q_points_1d, n_q_points and
      /// collocation.
      unsigned int quad_index = 0;
      /// The quadratures of the object.
      unsigned int n_quadratures = 1;
      /// [q * n_dof_handlers + k]: the Data of DoFHandler k on quadrature q, in the backend's
      /// memory, whose DoF and quadrature fields FEEvaluation(..., k, q) takes; nullptr with one
      /// quadrature.
      const Data *quadrature_data = nullptr;
      /// @}

      /// The launch's per-cell scratch (set by the loops; SharedData): Numbers per array of a
      /// set, sets, and Numbers from one set to the next on the GPU.
      unsigned int scratch_array_size = 0, scratch_slots = 0, scratch_stride = 0;

      /// Position of point @p q of cell @p cell (of this color) in an array with @p n_q_points_
      /// entries per cell over all cells of the object (deal.II 9.5 and 9.6's Data::local_q_point_id();
      /// deprecated in 9.8, which asks n_q_points_ to be n_q_points).
      __host__ __device__ unsigned int
      local_q_point_id(const unsigned int cell, const unsigned int n_q_points_, const unsigned int q) const
      {
        return (row_start + cell) * n_q_points_ + q;
      }

      /// Position of point @p q of cell @p cell (of this color) in an array with n_q_points entries
      /// per cell over all cells of the object (deal.II 9.7+'s two-argument form).
      __host__ __device__ unsigned int
      local_q_point_id(const unsigned int cell, const unsigned int q) const
      {
        return (row_start + cell) * n_q_points + q;
      }

      /// The real-space position of point @p q of cell @p cell (of this color) (deal.II 9.5+'s
      /// Data::get_quadrature_point()).
      __host__ __device__ point_type
      get_quadrature_point(const unsigned int cell, const unsigned int q) const
      {
        return q_points[local_q_point_id(cell, q)];
      }

      /**
       * Calls `func(q)` for each quadrature point q of the cell that the calling thread owns,
       * then waits for the cell's threads (deal.II 9.7+'s Data::for_each_quad_point(), a
       * Kokkos::TeamThreadRange over the points followed by a team barrier). Every thread of
       * the cell calls it. @p func takes the point as `const int &` or `unsigned int`.
       */
      template <typename Functor>
      __host__ __device__ void
      for_each_quad_point(const Functor &func) const;
    };

    MatrixFree();

    /**
     * Sets up the data for @p dof_handler (FE_Q, or FESystem of one FE_Q with any
     * multiplicity; with an hp::FECollection, the element every active cell uses: cells of
     * two elements throw), the locally owned cells, a 1D quadrature @p quad with n_q >= fe_degree + 1
     * points and n_q <= 32 (Gauss, or Gauss-Lobatto with fe_degree + 1 points for
     * collocation), and @p constraints, closed, with the lines of all locally relevant DoFs.
     * Constraints are applied homogeneously (C^T A C; inhomogeneities are ignored, as in
     * deal.II's CPU MatrixFree; doc/first-operator.md has the recipe for inhomogeneous Dirichlet
     * values). Supported: lines without entries (Dirichlet) and lines with at most
     * 2 n_components (fe_degree+1)^(dim-1) entries (hanging nodes, periodicity, normal-flux
     * conditions); longer lines (mean-value constraints) and unclosed constraints throw.
     */
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const AdditionalData                    &additional_data = AdditionalData());

    /// As above with constraints of another number type, copied into AffineConstraints<Number>
    /// (as deal.II's MatrixFree takes them: a float level operator with AffineConstraints<double>).
    template <typename Number2, typename = std::enable_if_t<!std::is_same_v<Number2, Number>>>
    void
    reinit(const dealii::Mapping<dim>               &mapping,
           const dealii::DoFHandler<dim>            &dof_handler,
           const dealii::AffineConstraints<Number2> &constraints,
           const dealii::Quadrature<1>              &quad,
           const AdditionalData                     &additional_data = AdditionalData())
    {
      dealii::AffineConstraints<Number> converted;
      converted.copy_from(constraints);
      reinit(mapping, dof_handler, converted, quad, additional_data);
    }

    /// As above, on the cells for which @p iterator_filter is true (deal.II's IteratorFilters).
    template <typename IteratorFiltersType>
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const IteratorFiltersType               &iterator_filter,
           const AdditionalData                    &additional_data = AdditionalData())
    {
      internal_reinit(
        mapping,
        {&dof_handler},
        {&constraints},
        {quad},
        [iterator_filter](const cell_iterator &cell) { return iterator_filter(cell); },
        additional_data);
    }

    /// As above with a MappingQ1.
    void
    reinit(const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const AdditionalData                    &additional_data = AdditionalData());

    /**
     * Several DoFHandlers on one mesh (deal.II 9.8's Portable::MatrixFree::reinit() with
     * vectors of DoFHandlers and constraints; a velocity and a pressure, say): DoFHandler k, its
     * constraints @p constraints[k], its element (each as the one-DoFHandler reinit() takes it:
     * FE_Q, FE_DGQ or an FESystem of one, any degree with fe_degree + 1 <= @p quad's points),
     * its vectors (initialize_dof_vector(vec, k)) and FEEvaluation(data, k) in the functors.
     * The cells, their order and colors (no two cells of a color share an entry of any of the
     * vectors) and the geometry are shared. At most max_dof_handlers; all on the same mesh.
     * Faces (loop()) take one DoFHandler.
     */
    void
    reinit(const dealii::Mapping<dim>                                   &mapping,
           const std::vector<const dealii::DoFHandler<dim> *>           &dof_handlers,
           const std::vector<const dealii::AffineConstraints<Number> *> &constraints,
           const dealii::Quadrature<1>                                  &quad,
           const AdditionalData                                         &additional_data = AdditionalData());

    /// As above with constraints of another number type (copied into AffineConstraints<Number>).
    template <typename Number2, typename = std::enable_if_t<!std::is_same_v<Number2, Number>>>
    void
    reinit(const dealii::Mapping<dim>                                    &mapping,
           const std::vector<const dealii::DoFHandler<dim> *>            &dof_handlers,
           const std::vector<const dealii::AffineConstraints<Number2> *> &constraints,
           const dealii::Quadrature<1>                                   &quad,
           const AdditionalData                                          &additional_data = AdditionalData())
    {
      std::vector<dealii::AffineConstraints<Number>>         converted(constraints.size());
      std::vector<const dealii::AffineConstraints<Number> *> pointers;
      for (std::size_t k = 0; k < constraints.size(); ++k)
        {
          converted[k].copy_from(*constraints[k]);
          pointers.push_back(&converted[k]);
        }
      reinit(mapping, dof_handlers, pointers, quad, additional_data);
    }

    /**
     * deal.II's CPU MatrixFree::reinit() form: several DoFHandlers and a 1D quadrature per
     * quadrature index (QGauss<1>, QGaussLobatto<1>, Quadrature<1>; at most max_quadratures).
     * Quadrature q has its own geometry (points, Jacobians, JxW) and 1D tables for every
     * DoFHandler; the cells, colors and DoF fields are shared. A functor runs on the first
     * quadrature with as many points as it declares (n_q_points), and its FEEvaluation objects
     * name theirs as in deal.II: `FEEvaluation(cell, data, shared, dof_index, quad_index)` (or
     * `FEEvaluation(data, dof_index, quad_index)`), each with that quadrature's n_q_points_1d in
     * its template arguments; quadratures of the same number of points mix in one functor.
     * Faces (loop()) take one quadrature. The ready operators use quadrature 0.
     */
    template <typename QuadratureType, typename Number2>
    void
    reinit(const dealii::Mapping<dim>                                    &mapping,
           const std::vector<const dealii::DoFHandler<dim> *>            &dof_handlers,
           const std::vector<const dealii::AffineConstraints<Number2> *> &constraints,
           const std::vector<QuadratureType>                             &quads,
           const AdditionalData                                          &additional_data = AdditionalData())
    {
      static_assert(std::is_base_of_v<dealii::Quadrature<1>, QuadratureType>,
                    "gpumf::MatrixFree::reinit takes 1D quadratures (QGauss<1>, QGaussLobatto<1>, Quadrature<1>).");
      std::vector<dealii::AffineConstraints<Number>>         converted(constraints.size());
      std::vector<const dealii::AffineConstraints<Number> *> pointers;
      for (std::size_t k = 0; k < constraints.size(); ++k)
        {
          if constexpr (std::is_same_v<Number2, Number>)
            pointers.push_back(constraints[k]);
          else
            {
              AssertThrow(constraints[k] != nullptr,
                          ExcNotSupported("gpumf::MatrixFree::reinit: the AffineConstraints of DoFHandler " +
                                          std::to_string(k) + " is a null pointer."));
              converted[k].copy_from(*constraints[k]);
              pointers.push_back(&converted[k]);
            }
        }
      const std::vector<dealii::Quadrature<1>> quadratures(quads.begin(), quads.end());
      internal_reinit(
        mapping, dof_handlers, pointers, quadratures, [](const cell_iterator &) { return true; }, additional_data);
    }

    /// The most quadratures one object takes.
    static constexpr unsigned int max_quadratures = 4;

    /// The quadratures of the object (1 unless reinit() was given several).
    unsigned int
    n_quadratures() const;

    /**
     * The quadrature a functor that declares @p n_q_points runs on (its launch: thread layout,
     * staged tables, the Data it receives): the first with that many points. Throws, naming the
     * object's quadratures, where none has.
     */
    unsigned int
    launch_quadrature(const unsigned int n_q_points) const;

    /// The most DoFHandlers one object takes.
    static constexpr unsigned int max_dof_handlers = 8;

    /// The DoFHandlers of the object (1 unless reinit() was given several).
    unsigned int
    n_dof_handlers() const;

    /// The data of one color, for the functors.
    Data
    get_data(const unsigned int color) const;

    /**
     * Which cells of a color a launch covers. The cells that read and write locally owned
     * entries only (interior) are split in two halves; those that touch ghost entries
     * (boundary) sit between them. With several ranks, cell_loop() runs the first halves of
     * all colors (while the ghost values travel), then the boundary cells of all colors, then
     * the second halves (while the contributions to other ranks travel), with or without
     * overlap, so that both give bitwise the same result.
     */
    using CellRange = internal::LoopRange;

    /// The data of part @p range of one color.
    Data
    get_data(const unsigned int color, const CellRange range) const;

    /// The data of part @p range of one color on quadrature @p quad_index (its geometry, 1D
    /// tables and sizes; DoFHandler 0's DoF fields).
    Data
    get_data(const unsigned int color, const CellRange range, const unsigned int quad_index) const;

    /// The multigrid level of the cells, or numbers::invalid_unsigned_int for the active cells
    /// (deal.II: MatrixFree::get_mg_level()).
    unsigned int
    get_mg_level() const;

    /// The locally owned constrained DoFs (local indices, sorted): the rows the operators keep
    /// as the identity (deal.II: MatrixFree::get_constrained_dofs()), on the host.
    const std::vector<unsigned int> &
    get_constrained_dofs(const unsigned int dof_index = 0) const;

    /// Number of colors (1 with atomics).
    unsigned int
    n_colors() const;

    /**
     * The locally owned active cells on the fine side of a hanging face or edge of an FE_Q
     * element: {those that read their DoFs by interpolation (HangingNodes::interpolation),
     * those that read them through the constraint lines: where the lines are not deal.II's
     * hanging-node constraints of the element, or all with HangingNodes::constraint_rows}.
     */
    std::pair<unsigned int, unsigned int>
    n_hanging_node_cells() const;

    /// The conflict strategy in use.
    ConflictStrategy
    conflict_strategy() const;

    /// True when the geometry is stored per cell (GeometryStorage::affine in effect).
    bool
    has_affine_geometry() const;

    /**
     * True when the geometry is affine and every cell, on every rank, has the same Jacobian
     * (to 1e-12 relative): a uniform Cartesian mesh, say. Then a form with constant
     * coefficients has one element matrix for all cells (LocalMatrixOperator's shared
     * storage); otherwise it cannot.
     */
    bool
    has_uniform_geometry() const;

    /**
     * Runs @p func on every cell: `func(cell, &data, &shared_data, src, dst)` on one
     * thread per quadrature point, as a CUDA kernel per color (CUDA backend) or on emulated
     * threads that run in step between barriers (host backend, internal/host_block.h).
     * deal.II: CUDAWrappers::MatrixFree::cell_loop.
     *
     * @p src and @p dst are each one gpumf::Vector<Number> (the functor receives `const
     * Number *`, `Number *`), or several: a std::vector or std::array of vectors or of
     * pointers to them (the functor receives VectorPointers<const Number>,
     * VectorPointers<Number>: `src[i]` is the i-th vector's data), at most
     * VectorPointers::max_size. The ghost values of every source are exchanged first (and
     * zeroed again afterwards unless the source had them before), the contributions to other
     * ranks' entries of every destination are sent afterwards (compress), overlapped with
     * interior cells under AdditionalData::overlap_communication_computation.
     *
     * A source or destination may also hold data per cell instead of DoF values, as deal.II's
     * programs pass a coefficient per quadrature point: k entries for each of this rank's
     * n_cells() cells (entry local_q_point_id(cell, q) for k = n_q_points), no ghost entries.
     * Such a vector reaches the functor as it is (no ghost exchange, no compress; zeroed with
     * @p zero_dst); a vector of neither layout is refused.
     *
     * The functor adds into the destinations: with @p zero_dst false (the default, as deal.II's
     * `zero_dst_vector`) they keep their values and receive the sums; with true they are set
     * to zero first. A destination that appears twice is rejected.
     *
     * A destination that is also a source is rejected (its entries would be read while other
     * cells write them), except in place: where the vector's DoFHandler has a discontinuous
     * element and no constraint lines, each cell reads and writes only its own DoFs (DG's
     * cell-local operations: the inverse mass matrix, a local projection), and one vector may be
     * source and destination at once (deal.II's in-place cell_loop). Then @p zero_dst must be
     * false, the vector is neither exchanged nor compressed (its ghost entries are zeroed), and
     * the functor usually writes with FEEvaluation::set_dof_values() (distribute_local_to_global()
     * adds into the entries it read).
     *
     * The functor type defines n_dofs_1d, n_local_dofs and n_q_points, matching this object,
     * and n_fe_evaluations when it constructs more than one FEEvaluation (SharedData).
     */
    template <typename Functor, typename SrcType, typename DstType, typename Compiler = internal::ThisCompiler>
    void
    cell_loop(const Functor &func, const SrcType &src, DstType &dst, const bool zero_dst = false) const;

    /**
     * cell_loop() with operations on the vectors' entries before and after the cells (deal.II's
     * MatrixFree::cell_loop with operation_before_loop and operation_after_loop; the same
     * vectors and functor as above, no zero_dst: the operation before sets what it needs). Each
     * operation is called as `op(begin, end)` and handles the local indices [begin, end) of the
     * locally owned entries of DoFHandler @p dof_handler_index_pre_post's vectors, every owned
     * index once: a `__host__ __device__` function object or an extended lambda `[=] __host__
     * __device__ (const unsigned int begin, const unsigned int end) { for (unsigned int i = begin;
     * i < end; ++i) ... }` that captures the vectors' get_values() pointers; a
     * std::function<void(unsigned int, unsigned int)> (deal.II's type) on the host backend; nullptr
     * or an empty std::function for none (internal/loop_operations.h).
     *
     * The operation before runs on all owned entries before the loop reads any vector, also
     * before the ghost update (it may change a source: the other ranks receive the changed
     * values); the one after when the loop is complete, the contributions of all ranks added.
     * On the CUDA backend each is one kernel with a thread per entry. deal.II's CPU loop
     * interleaves them with the cells for the cache; here they are not fused with the cells,
     * and what they save is the passes over memory of the separate vector operations that one
     * function merges (a Runge–Kutta stage's updates, say).
     */
    template <typename Functor,
              typename SrcType,
              typename DstType,
              typename OperationBefore,
              typename OperationAfter,
              typename Compiler = internal::ThisCompiler,
              typename          = std::enable_if_t<internal::is_loop_operation<OperationBefore> &&
                                          internal::is_loop_operation<OperationAfter>>>
    void
    cell_loop(const Functor         &func,
              const SrcType         &src,
              DstType               &dst,
              const OperationBefore &operation_before_loop,
              const OperationAfter  &operation_after_loop,
              const unsigned int     dof_handler_index_pre_post = 0) const;

    /**
     * Which entries of the ghost cells a face functor reads (deal.II's
     * MatrixFree::DataAccessOnFaces, the same names), and so which of the source's ghost
     * entries loop() exchanges (a continuous element: besides those its cells read themselves,
     * which every loop exchanges): `none` nothing; `values` the DoFs whose basis functions have
     * a value on a face the ghost cell shares with one of this object's cells; `gradients` a
     * value or a derivative there; `unspecified` all ghost entries. The loop is cell-centric
     * (every cell reads across all its faces), so `values_all_faces` and
     * `gradients_all_faces` are `values` and `gradients`. n_exchanged_ghost_entries() says
     * how many entries each brings. A face functor that evaluates gradients of a ghost cell
     * under `values` stops with a message, as one that reads a ghost cell under `none`.
     */
    enum class DataAccessOnFaces
    {
      none,
      values,
      values_all_faces,
      gradients,
      gradients_all_faces,
      unspecified
    };

    /**
     * Runs @p cell_op on every cell and @p inner_face_op, @p boundary_face_op on every face
     * (deal.II's MatrixFree::loop; note deal.II's order: @p dst before @p src). Functors:
     * @verbatim
     *   cell_op(cell, &data, &shared, src, dst)            as in cell_loop()
     *   inner_face_op(face, &data, &shared, src, dst)      FEFaceEvaluation(face, &data, &shared, true / false)
     *   boundary_face_op(face, &data, &shared, src, dst)   FEFaceEvaluation(face, &data, &shared, true)
     * @endverbatim
     * any of them `nullptr` to skip it. They declare n_dofs_1d, n_local_dofs and n_q_points
     * (the cell's points; one thread layout for all three) and n_fe_evaluations where they
     * construct more than one evaluator (an inner face functor's two sides: 2).
     *
     * Cell-centric (as deal.II's loop_cell_centric): each cell runs @p cell_op and then the
     * face functor of each of its faces in the order of the face numbers, and adds only into
     * its own DoFs. An inner face is thus computed twice, once from each side; the side that
     * is not the running cell evaluates but neither integrates nor writes. A discontinuous
     * element: no two cells write the same entry, so no atomics, no colors, no compress of
     * @p dst, and the result is bitwise the same for any launch configuration and number of
     * ranks sharing the cells. A continuous element (FE_Q, an FESystem of FE_Q): the cells
     * that share DoFs are kept apart as in cell_loop() (colors, bitwise reproducible, or
     * atomics: AdditionalData::use_coloring), the DoFs are read and written through the
     * constraints (Dirichlet, hanging nodes; a ghost cell's lines come from its owner), and
     * the contributions to other ranks' DoFs are sent after the loop.
     *
     * Needs faces (AdditionalData::mapping_update_flags_inner_faces or _boundary_faces). The
     * ghost values of @p src that @p src_access names are
     * exchanged first (only those travel; nothing where @p src has its ghost values already)
     * and zeroed afterwards. @p dst_access is accepted for deal.II's interface: nothing travels
     * for @p dst. With @p zero_dst the destination is set to zero first, else the loop adds
     * into it.
     */
    template <typename CellFunctor,
              typename InnerFaceFunctor,
              typename BoundaryFaceFunctor,
              typename Compiler = internal::ThisCompiler>
    void
    loop(const CellFunctor         &cell_op,
         const InnerFaceFunctor    &inner_face_op,
         const BoundaryFaceFunctor &boundary_face_op,
         Vector<Number>            &dst,
         const Vector<Number>      &src,
         const bool                 zero_dst   = false,
         const DataAccessOnFaces    dst_access = DataAccessOnFaces::unspecified,
         const DataAccessOnFaces    src_access = DataAccessOnFaces::unspecified) const;

    /**
     * The diagonal of the operator loop() applies with the same functors (deal.II 9.6's
     * MatrixFreeTools::compute_diagonal() with face functions), added into @p diagonal. For each
     * local DoF i of each cell, the cell runs its functors as in loop() on the unit vector of DoF
     * i: every read_dof_values() of FEEvaluation and FEFaceEvaluation reads 1 at DoF i of the
     * running cell and 0 elsewhere (the other side of a face reads zeros), and
     * distribute_local_to_global() adds entry i only. Cost: dofs_per_cell applications of the
     * operator, a set-up step. Needs what loop() needs; nothing is exchanged between ranks. The
     * functors receive nullptr as their source: one that reads it other than through
     * read_dof_values() is not supported.
     */
    /**
     * loop() with operations on the vectors' entries before and after (deal.II's
     * MatrixFree::loop with operation_before_loop and operation_after_loop, its argument order):
     * as the cell_loop() of that name, over the locally owned entries of DoFHandler
     * @p dof_handler_index_pre_post; no zero_dst (the operation before sets what it needs).
     */
    template <typename CellFunctor,
              typename InnerFaceFunctor,
              typename BoundaryFaceFunctor,
              typename OperationBefore,
              typename OperationAfter,
              typename Compiler = internal::ThisCompiler,
              typename          = std::enable_if_t<internal::is_loop_operation<OperationBefore> &&
                                          internal::is_loop_operation<OperationAfter>>>
    void
    loop(const CellFunctor         &cell_op,
         const InnerFaceFunctor    &inner_face_op,
         const BoundaryFaceFunctor &boundary_face_op,
         Vector<Number>            &dst,
         const Vector<Number>      &src,
         const OperationBefore     &operation_before_loop,
         const OperationAfter      &operation_after_loop,
         const unsigned int         dof_handler_index_pre_post = 0,
         const DataAccessOnFaces    dst_access                 = DataAccessOnFaces::unspecified,
         const DataAccessOnFaces    src_access                 = DataAccessOnFaces::unspecified) const;

    template <typename CellFunctor,
              typename InnerFaceFunctor,
              typename BoundaryFaceFunctor,
              typename Compiler = internal::ThisCompiler>
    void
    loop_diagonal(const CellFunctor         &cell_op,
                  const InnerFaceFunctor    &inner_face_op,
                  const BoundaryFaceFunctor &boundary_face_op,
                  Vector<Number>            &diagonal) const;

    /// True when reinit() set up the faces for loop().
    bool
    has_faces() const;

    /// The points of the faces stored on this rank, [F * n_face_points + q] for face F
    /// (FEFaceEvaluation::face_index()) and point q, on the host.
    std::vector<dealii::Point<dim>>
    get_face_quadrature_points() const;

    /// The boundary id of each face stored on this rank (numbers::internal_face_boundary_id
    /// for inner faces), on the host.
    std::vector<dealii::types::boundary_id>
    get_face_boundary_ids() const;

    /// The points per face, n_q_points_1d^(dim-1).
    unsigned int
    n_face_points() const;

    /// The cells of color @p color with a boundary face: entries [first, first + count) of
    /// Data::faces.boundary_cells (rows among all cells). For the loops of a boundary face
    /// functor alone, which run these cells only.
    std::pair<unsigned int, unsigned int>
    cells_with_boundary_faces(const unsigned int color) const;

    /// True when reinit() set up the faces of a continuous element (FE_Q, an FESystem of FE_Q):
    /// loop() then handles the DoFs that cells share as cell_loop() does.
    bool
    has_continuous_faces() const;

    /// The faces stored on this rank (each inner face between two of its cells once).
    unsigned int
    n_faces() const;

    /**
     * How many ghost entries loop() brings to this rank for @p access (DataAccessOnFaces): the
     * DoFs of the ghost cells next to this object's cells whose basis functions have a value
     * (values, values_all_faces) or a value or a derivative (gradients, gradients_all_faces) on
     * the shared faces, all ghost entries of the layout for unspecified (or where no rank's
     * subset would be smaller, or reinit() set up no faces), none for none. FE_DGQ's nodes on the cell's surface: one
     * layer of DoFs for values, all for gradients; FE_DGQHermite: one and two layers; FE_DGQLegendre: all. Collective
     * at its first call for each access (and so is loop()).
     */
    unsigned int
    n_exchanged_ghost_entries(const DataAccessOnFaces access) const;

    /// The part of the ghost entries that loop() exchanges for @p access (nullptr: all of them);
    /// made at the first call for each access (collective). For the library's face loops.
    const internal::GhostSubset *
    face_ghost_subset(const DataAccessOnFaces access) const;

    /**
     * Fills per-point coefficients: runs `func(cell, &data)` on one thread per quadrature point
     * of every cell (deal.II 9.4's form; the thread's point is local_q_point_id()), or, where the
     * functor takes `(const Data *data, unsigned int cell, unsigned int q)` (deal.II 9.5+'s
     * form), calls it once for every point q of every cell (data->local_q_point_id(cell,
     * n_q_points, q), data->get_quadrature_point(cell, q)).
     */
    template <typename Functor, typename Compiler = internal::ThisCompiler>
    void
    evaluate_coefficients(Functor func) const;

    /**
     * Reads vectors into per-point values: runs `func(cell, &data, &shared_data, src)` on every
     * cell as cell_loop() does, without a destination vector (nothing is added, no compress).
     * For coefficients that depend on a solution (a nonlinear term: read it with
     * FEEvaluation::read_dof_values_plain(), evaluate, store at local_q_point_id()) and for
     * norms and indicators per point or cell (gpumf/vector_tools.h). @p src is one
     * gpumf::Vector<Number> or several, as in cell_loop(); their ghost values are exchanged
     * first (and zeroed again afterwards unless they had them).
     */
    template <typename Functor, typename SrcType, typename Compiler = internal::ThisCompiler>
    void
    evaluate_coefficients(const Functor &func, const SrcType &src) const;

    /// dst[i] = src[i] for the locally owned constrained DoFs (of DoFHandler @p dof_index).
    void
    copy_constrained_values(const Vector<Number> &src, Vector<Number> &dst, const unsigned int dof_index = 0) const;

    /// dst[i] += src[i] for the locally owned constrained DoFs (of DoFHandler @p dof_index).
    void
    add_constrained_values(const Vector<Number> &src, Vector<Number> &dst, const unsigned int dof_index = 0) const;

    /// dst[i] = val for the locally owned constrained DoFs (of DoFHandler @p dof_index).
    void
    set_constrained_values(const Number val, Vector<Number> &dst, const unsigned int dof_index = 0) const;

    /// Block b of @p dst from block b of @p src at the constrained DoFs of DoFHandler b, for every block.
    void
    copy_constrained_values(const BlockVector<Number> &src, BlockVector<Number> &dst) const;

    /// Block b of @p dst set to @p val at the constrained DoFs of DoFHandler b, for every block.
    void
    set_constrained_values(const Number val, BlockVector<Number> &dst) const;

    /**
     * This rank's part of src . (A src) of an operator whose constrained rows are the identity:
     * the sum of @p cell_energy (n_cells() numbers in the backend's memory, u_c . (A_c u_c) of
     * each cell) plus src[i]^2 over the locally owned constrained DoFs; one pass, summed in a
     * fixed order.
     */
    Number
    energy_with_constrained_values(const Number *cell_energy, const Vector<Number> &src) const;

    /**
     * Gives @p vec this object's layout and backend: the locally owned DoFs, and as ghosts the
     * locally relevant DoFs plus the entries of the constraints of the cells' DoFs (periodic
     * partners outside the ghost layer, for instance). Vectors for the loops should come from
     * here; one built from the locally relevant DoFs alone is rejected where the sets differ.
     */
    void
    initialize_dof_vector(Vector<Number> &vec, const unsigned int dof_index = 0) const;

    /// A block per DoFHandler, block k as initialize_dof_vector(vec.block(k), k).
    void
    initialize_dof_vector(BlockVector<Number> &vec) const;

    /// As above for deal.II's block vector on the host (deal.II 9.8's step-104 fills its right-hand
    /// side so): block k with DoFHandler k's locally owned and ghost DoFs.
    void
    initialize_dof_vector(dealii::LinearAlgebra::distributed::BlockVector<Number> &vec) const;

    /// Cells of each color, in the order the loops process them.
    const std::vector<std::vector<cell_iterator>> &
    get_colored_graph() const;

    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_vector_partitioner(const unsigned int dof_index = 0) const;

    /// Releases all memory.
    void
    free();

    const dealii::DoFHandler<dim> &
    get_dof_handler(const unsigned int dof_index = 0) const;

    /// The element of the DoFHandler's cells: DoFHandler::get_fe(), or that of an hp::FECollection
    /// which every active cell uses (reinit() accepts no other hp::FECollection).
    const dealii::FiniteElement<dim> &
    get_fe(const unsigned int dof_index = 0) const;

    /// Bytes held, host and device together.
    std::size_t
    memory_consumption() const;

    Backend
    backend() const;

    /// Number of locally owned cells processed.
    unsigned int
    n_cells() const;

    /**
     * The cell (active, or of the level) with index @p cell_index < n_cells() in the loops'
     * order: what FEEvaluation::get_cell_index_in_object() returns inside a functor (deal.II's
     * MatrixFree::get_cell_iterator(), without SIMD lanes). For per-cell data a functor reads,
     * e.g. TensorProductMatrixSymmetricSumCollection::insert().
     */
    cell_iterator
    get_cell_iterator(unsigned int cell_index) const;

    /// For each local DoF of gpumf's order (component-major, lexicographic within a component)
    /// its index in deal.II's order of the cell's DoFs (cell->get_dof_indices()).
    const std::vector<unsigned int> &
    get_dof_numbering(const unsigned int dof_index = 0) const;

    /// Throws unless @p v has this object's backend and layout (initialize_dof_vector(v, dof_index)).
    void
    check_vector(const Vector<Number> &v, const unsigned int dof_index = 0) const;

    /// Throws unless @p v has this object's backend and either layout cell_loop() takes: that of
    /// initialize_dof_vector(), or k entries per cell of this rank without ghosts.
    void
    check_loop_vector(const Vector<Number> &v) const;

    /// Throws unless @p v has this object's backend and locally owned entries (ghosts may
    /// differ: deal.II's Vector(locally_owned, comm) passes); for functions that touch owned entries only.
    void
    check_owned_entries(const Vector<Number> &v) const;

    /// Number of vector components of the element (of DoFHandler @p dof_index).
    unsigned int
    n_components(const unsigned int dof_index = 0) const;

    /// The most components of the DoFHandlers' elements (a cell's scratch holds as many).
    unsigned int
    max_components() const;

    /// Quadrature points per cell (n_q_points_1d^dim) of quadrature @p quad_index.
    unsigned int
    n_q_points(const unsigned int quad_index = 0) const;

    /// The quadrature points of all cells in the order of local_q_point_id(), on the host.
    std::vector<point_type>
    get_quadrature_points() const;

    /// Bytes of shared memory a cell kernel with this element and quadrature needs per cell
    /// (values and gradients at the points) for @p n_fe_evaluations FEEvaluation objects.
    /// (On quadrature @p quad_index.)
    std::size_t
    shared_memory_per_cell(const unsigned int n_fe_evaluations = 1, const unsigned int quad_index = 0) const;

    /// Bytes of shared memory of a CUDA block of @p cells cells: the 1D tables plus the cells'
    /// scratch (on quadrature @p quad_index).
    std::size_t
    shared_memory_per_block_for(const unsigned int cells,
                                const unsigned int n_fe_evaluations = 1,
                                const unsigned int quad_index       = 0) const;

    /**
     * CUDA: cells per block for a functor of thread layout @p layout with @p n_fe_evaluations
     * FEEvaluation objects: AdditionalData::cells_per_block (0: as many as fit,
     * CellLayout::max_cells_per_block()), reduced to what the shared memory holds; throws when
     * not even one cell fits. 1 on the host backend. (On quadrature @p quad_index.)
     */
    unsigned int
    cells_per_block(const internal::CellLayout<dim> layout,
                    const unsigned int              n_fe_evaluations = 1,
                    const unsigned int              quad_index       = 0) const;

    /**
     * Runs `func(cell, &data, &shared_data, i, diagonal)` for every local DoF i of every cell
     * (one thread per point as in cell_loop()), then sends contributions to other ranks'
     * entries. For diagonals: the functor applies the cell operator to the unit vector i
     * (FEEvaluation::set_unit_dof_values) and adds entry i (distribute_local_diagonal). With
     * several DoFHandlers, i runs over the DoFs of DoFHandler @p dof_index, whose layout
     * @p diagonal has (the functor's FEEvaluation takes that index).
     */
    template <typename Functor, typename Compiler = internal::ThisCompiler>
    void
    diagonal_loop(const Functor &func, Vector<Number> &diagonal, const unsigned int dof_index = 0) const;

  private:
    /// The checks loop() and loop_diagonal() share: functors, faces, element, shared memory.
    template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor>
    void
    check_face_loop() const;

    void
    internal_reinit(const dealii::Mapping<dim>                                   &mapping,
                    const std::vector<const dealii::DoFHandler<dim> *>           &dof_handlers,
                    const std::vector<const dealii::AffineConstraints<Number> *> &constraints,
                    const std::vector<dealii::Quadrature<1>>                     &quads,
                    const std::function<bool(const cell_iterator &)>             &filter,
                    const AdditionalData                                         &additional_data);

    /// DoFHandler @p dof_index's part: this object for 0, else the one reinit() made for it
    /// (its DoF fields, vectors and constraints; the cells, colors and geometry are this object's).
    const MatrixFree &
    dof_part(const unsigned int dof_index) const;

    /// The index of the DoFHandler whose layout @p v has (check_loop_vector()), or
    /// numbers::invalid_unsigned_int for data per cell.
    unsigned int
    dof_index_of(const Vector<Number> &v) const;

    /// cell_loop() of both forms: @p before and @p after as LoopOptions::before, after.
    template <typename Functor, typename SrcType, typename DstType>
    void
    scheduled_cell_loop(const Functor               &func,
                        const SrcType               &src,
                        DstType                     &dst,
                        const bool                   zero_dst,
                        const std::function<void()> &before,
                        const std::function<void()> &after) const;

    /// The Data of no cells (n_cells 0, no color): every field a loop reads but the cells'
    /// range and the color's flag of constraint rows (get_data(); a rank may have no colors).
    Data
    data_without_cells() const;

    /// loop() of both forms.
    template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor>
    void
    scheduled_loop(const CellFunctor           &cell_op,
                   const InnerFaceFunctor      &inner_face_op,
                   const BoundaryFaceFunctor   &boundary_face_op,
                   Vector<Number>              &dst,
                   const Vector<Number>        &src,
                   const bool                   zero_dst,
                   const DataAccessOnFaces      src_access,
                   const std::function<void()> &before,
                   const std::function<void()> &after) const;

    /// The locally owned entries of DoFHandler @p dof_index's vectors (the range of the
    /// operations before and after a loop); throws for an index beyond those given to reinit().
    std::size_t
    n_owned_entries(const unsigned int dof_index, const char *caller) const;

    /// Throws unless a functor's declared sizes match this object.
    void
    check_functor(const unsigned int n_dofs_1d,
                  const unsigned int n_local_dofs,
                  const unsigned int n_q_points,
                  const unsigned int n_components) const;


    internal::ObserverPointer<const dealii::DoFHandler<dim>>   dof_handler;
    const dealii::FiniteElement<dim>                          *active_fe      = nullptr; // get_fe()
    dealii::types::global_dof_index                            n_global_cells = 0;       // n_cells() of all ranks
    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
    Backend                                                    backend_      = Backend::host;
    ConflictStrategy                                           strategy      = ConflictStrategy::atomics;
    unsigned int                                               id            = 0;
    unsigned int                                               fe_degree     = 0;
    unsigned int                                               n_q_points_1d = 0;
    unsigned int                                               n_components_ = 1;
    unsigned int                                               mg_level      = dealii::numbers::invalid_unsigned_int;
    unsigned int                                               requested_cells_per_block = 0;
    std::size_t                                                max_shared_memory         = 0;
    bool                                                       affine                    = false;
    bool                                                       uniform                   = false;
    bool                                                       collocation               = false;
    std::vector<std::vector<cell_iterator>>                    graph;
    std::vector<unsigned int>                                  color_start; // n_colors + 1
    std::vector<unsigned int>                                  dof_numbering;

    internal::Array<point_type>   q_points;
    internal::Array<unsigned int> local_to_global;
    internal::Array<unsigned int> plain_local_to_global;
    internal::Array<Number>       inv_jacobian;
    internal::Array<Number>       JxW;
    internal::Array<Number>       shape_values;
    internal::Array<Number>       shape_gradients;
    internal::Array<Number>       co_shape_gradients;
    internal::Array<Number>       inverse_shape_values;
    /// the cells in the loops' order (get_cell_iterator())
    std::vector<cell_iterator>    cells_in_order;
    internal::Array<Number>       quadrature_weights;
    internal::Array<unsigned int> constrained_dofs;
    std::vector<unsigned int>     constrained_dofs_host;
    /// The constraint table (internal/dof_access.h): CSR rows of vector indices and weights.
    internal::Array<unsigned int>  constraint_row_start;
    internal::Array<unsigned int>  constraint_indices;
    internal::Array<Number>        constraint_weights;
    internal::Array<unsigned char> cell_has_constraint_rows;
    std::vector<bool>              color_has_constraint_rows;
    /// Some cell on some rank has a constraint row (in-place loops are refused alike on all).
    bool constraint_rows_on_any_rank = false;
    /// HangingNodes::interpolation: per cell the mask, the codes, W0 and W1 (empty if no cell has a mask)
    internal::Array<unsigned short>       hanging_masks;
    internal::Array<unsigned int>         hanging_local_to_global;
    internal::Array<Number>               hanging_weights;
    std::pair<unsigned int, unsigned int> hanging_node_cells{0, 0};
    /// Per color: the ends of CellRange::interior_first and CellRange::boundary.
    std::vector<unsigned int> interior_split, boundary_end;
    bool                      overlap = false;
    /// The faces (AdditionalData::mapping_update_flags_inner_faces, _boundary_faces).
    internal::FaceArrays<dim, Number> face_arrays;
    bool                              discontinuous = false;
    /// DoFHandlers 1, 2, ... of reinit() with several (dof_part()); empty with one.
    std::vector<std::unique_ptr<MatrixFree>> other_dof_parts;
    /// Quadratures 1, 2, ... of reinit() with several: [(q - 1) * n_dof_handlers() + k] holds
    /// DoFHandler k's 1D tables on quadrature q (and, for k = 0, the quadrature's geometry and
    /// n_q_points_1d); empty with one.
    std::vector<std::unique_ptr<MatrixFree>> other_quadrature_parts;
    /// Data::quadrature_data, in the backend's memory and on the host (empty with one quadrature).
    internal::Array<Data> quadrature_data;
    std::vector<Data>     quadrature_data_host;
    /// Data::dof_handler_data: each DoFHandler's Data, in the backend's memory (empty with one).
    internal::Array<Data> dof_handler_data;
    /// face_ghost_subset() of values and of gradients, once made
    mutable std::shared_ptr<const internal::GhostSubset> ghost_subsets[3];
    mutable bool                                         ghost_subsets_made[3] = {false, false, false};
  };

  /**
   * Shared memory of one cell, as deal.II's CUDAWrappers::SharedData: quadrature-point
   * values and gradients, plus gpumf's copies of the 1D tables. Each thread of a cell has its
   * own copy of this object (pointing to the cell's one scratch).
   *
   * Several FEEvaluation objects in one functor: the scratch holds n_slots sets of arrays, one
   * per FEEvaluation (constructed in the same order by every thread; each takes the next set).
   * A functor that constructs k > 1 of them declares `static constexpr unsigned int
   * n_fe_evaluations = k;`: the loops then give each cell k sets. One more FEEvaluation than
   * sets throws on the host backend and stops the kernel with a message on the GPU.
   */
  template <int dim, typename Number>
  struct SharedData
  {
    __host__ __device__
    SharedData(Number *vd, Number *gq[dim])
      : values(vd)
    {
      for (unsigned int d = 0; d < dim; ++d)
        gradients[d] = gq[d];
    }

    /// Values at the points (DoF values before evaluate() and after integrate() on the GPU),
    /// of the first set.
    Number *values;
    /// Gradient components at the quadrature points, of the first set (on the GPU not
    /// usable by a functor that declares a smaller device_scratch_per_cell).
    Number *gradients[dim];
    /// 1D tables (see MatrixFree) in fast memory.
    const Number *shape_values       = nullptr;
    const Number *shape_gradients    = nullptr;
    const Number *co_shape_gradients = nullptr;
    /// Host backend only: the cell's DoF values, kept apart from the point values (first set).
    Number *dof_values = nullptr;
    /// Host backend only: who last wrote and read each point's values and gradients
    /// ([q]) and DoF values ([array_size + q]) of the first set (the host's race check).
    internal::PointAccess *host_access = nullptr;
    /// Sets of arrays (one per FEEvaluation) in the scratch, and the Numbers between two sets.
    unsigned int n_slots     = 1;
    unsigned int slot_stride = 0;
    /// Numbers per array of a set (values; each gradient component): n_components * n_q^dim of the functor.
    unsigned int array_size = 0;
    /// The next set an FEEvaluation takes.
    unsigned int next_slot = 0;
    /// The cell (number in its color) the loop gave the functor: what deal.II 9.5+'s
    /// FEEvaluation(gpu_data, shared_data) constructor works on.
    unsigned int cell = 0;
    /// In a face functor of MatrixFree::loop(): the face it received (FEFaceEvaluation's
    /// constructor without a face argument works on it).
    unsigned int face = 0;
    /// Set by MatrixFree::loop(): its scratch has room for FEFaceEvaluation and its face
    /// argument is a face (in cell_loop() FEFaceEvaluation is refused).
    bool face_loop = false;
    /// Set by MatrixFree::loop_diagonal(): the running cell's local DoF (component-major,
    /// lexicographic) whose unit vector every read_dof_values() reads and whose entry alone
    /// distribute_local_to_global() adds; no_unit_dof in every other loop.
    unsigned int                  unit_dof    = no_unit_dof;
    static constexpr unsigned int no_unit_dof = ~0u;
    /// The cell's threads (deal.II 9.5/9.6: SharedData::team_member, a Kokkos team handle;
    /// gpumf/kokkos.h loops over it); set by every loop.
    Portable::TeamHandle team_member;
    /// False for the padding cells of a CUDA block (see MatrixFree::AdditionalData::cells_per_block):
    /// FEEvaluation's distribute functions then add nothing. A functor that writes into its
    /// output without FEEvaluation checks it.
    bool writes = true;
  };

  /**
   * The vectors of a MatrixFree::cell_loop() with several sources (or destinations), as the
   * functor receives them: `src[i]` is the data of the i-th vector, on the loop's backend.
   * @p Number is `const Number` for sources.
   */
  template <typename Number>
  struct VectorPointers
  {
    /// The most vectors one loop takes.
    static constexpr unsigned int max_size = 8;

    Number      *pointers[max_size] = {};
    unsigned int n                  = 0;

    /// The number of vectors.
    __host__ __device__ unsigned int
    size() const
    {
      return n;
    }

    /// The data of vector @p i (< size()).
    __host__ __device__ Number *
    operator[](const unsigned int i) const
    {
      internal::require(i < n, "gpumf::VectorPointers: index beyond the vectors passed to cell_loop().");
      return pointers[i];
    }
  };

  template <int dim, typename Number>
  template <typename Functor>
  __host__ __device__ void
  MatrixFree<dim, Number>::Data::for_each_quad_point(const Functor &func) const
  {
    const internal::CellLayout<dim> layout{n_q_points_1d, thread_per_column};
    const auto                      thread = internal::thread_index(layout);
    for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
      {
        const int q = internal::owned_point(layout, thread, s);
        func(q);
      }
    syncthreads();
  }

  /**
   * Position of the calling thread's (first) quadrature point in an array with @p n_q_points
   * entries per cell over all cells of @p data's object (as deal.II's
   * CUDAWrappers::local_q_point_id). With @p q given, the position of point q of the cell.
   */
  template <int dim, typename Number>
  __host__ __device__ inline unsigned int
  local_q_point_id(const unsigned int                            cell,
                   const typename MatrixFree<dim, Number>::Data *data,
                   const unsigned int                            n_q_points_1d,
                   const unsigned int                            n_q_points,
                   const unsigned int                            q = dealii::numbers::invalid_unsigned_int)
  {
#ifndef __CUDA_ARCH__
    AssertThrow(q != dealii::numbers::invalid_unsigned_int || dim == 2 || internal::host_block_z() == n_q_points_1d,
                ExcNotSupported("local_q_point_id() without a point: each thread owns several points when "
                                "n_q_points_1d^3 > 1024 or with thread_per_column; pass the point q of "
                                "the quadrature functor."));
#endif
    return (data->row_start + cell) * n_q_points +
           (q != dealii::numbers::invalid_unsigned_int ?
              q :
              internal::owned_point(internal::CellLayout<dim>{n_q_points_1d},
                                    internal::thread_index(internal::CellLayout<dim>{n_q_points_1d}),
                                    0));
  }

  /// The calling thread's quadrature point in real space (deal.II: CUDAWrappers::get_quadrature_point).
  template <int dim, typename Number>
  __host__ __device__ inline typename MatrixFree<dim, Number>::point_type
           get_quadrature_point(const unsigned int                            cell,
                                const typename MatrixFree<dim, Number>::Data *data,
                                const unsigned int                            n_q_points_1d)
  {
    return data->q_points[local_q_point_id<dim, Number>(cell, data, n_q_points_1d, internal::ipow(n_q_points_1d, dim))];
  }

  /**
   * Host copies of the arrays of one color's MatrixFree::Data, for host-side work on the
   * cells of a color (coefficients at the quadrature points, say), as deal.II 9.4's
   * CUDAWrappers::DataHost. Per point of the color's cells, `padding_length` = n_q_points
   * apart (gpumf does not pad):
   * @verbatim
   *   q_points     [cell * padding_length + q]
   *   JxW          [cell * padding_length + q]           (also for affine geometry)
   *   inv_jacobian [(cell * padding_length + q) * dim * dim + e * dim + d]   d xi_e / d x_d
   *   local_to_global [cell * dofs_per_cell + i]         gpumf's DoF codes (internal/dof_access.h)
   * @endverbatim
   */
  template <int dim, typename Number>
  struct DataHost
  {
    std::vector<dealii::Point<dim, Number>> q_points;
    std::vector<unsigned int>               local_to_global;
    std::vector<Number>                     inv_jacobian;
    std::vector<Number>                     JxW;
    unsigned int                            id             = 0;
    unsigned int                            n_cells        = 0;
    unsigned int                            padding_length = 0;
    /// Position of the color's first cell among all cells (as MatrixFree::Data::row_start).
    unsigned int row_start    = 0;
    bool         use_coloring = false;

    /// Position of point @p q of cell @p cell of the color in an array with @p n_q_points entries
    /// per cell over all cells (deal.II 9.5+'s DataHost::local_q_point_id()).
    unsigned int
    local_q_point_id(const unsigned int cell, const unsigned int n_q_points, const unsigned int q) const
    {
      return (row_start + cell) * n_q_points + q;
    }

    /// Point @p q of cell @p cell of the color (deal.II 9.5+'s DataHost::get_quadrature_point()).
    dealii::Point<dim, Number>
    get_quadrature_point(const unsigned int cell, const unsigned int q) const
    {
      AssertThrow(!q_points.empty(),
                  dealii::ExcMessage("gpumf::DataHost::get_quadrature_point: the DataHost has no quadrature points; "
                                     "pass update_quadrature_points to copy_mf_data_to_host()."));
      return q_points[cell * padding_length + q];
    }
  };

  /**
   * The host copies of @p data's arrays (deal.II 9.4: CUDAWrappers::copy_mf_data_to_host):
   * q_points with update_quadrature_points, JxW with update_JxW_values, inv_jacobian with
   * update_gradients in @p update_flags; local_to_global always.
   */
  template <int dim, typename Number>
  DataHost<dim, Number>
  copy_mf_data_to_host(const typename MatrixFree<dim, Number>::Data &data, const dealii::UpdateFlags &update_flags);

  /// The position of point @p i of cell @p cell of @p data's color in an array with @p n_q_points
  /// entries per cell over all cells, as local_q_point_id() (deal.II 9.4: local_q_point_id_host).
  template <int dim, typename Number>
  inline unsigned int
  local_q_point_id_host(const unsigned int           cell,
                        const DataHost<dim, Number> &data,
                        const unsigned int           n_q_points,
                        const unsigned int           i)
  {
    return (data.row_start + cell) * n_q_points + i;
  }

  /// Point @p i of cell @p cell of @p data's color (deal.II 9.4: get_quadrature_point_host).
  template <int dim, typename Number>
  inline dealii::Point<dim, Number>
  get_quadrature_point_host(const unsigned int cell, const DataHost<dim, Number> &data, const unsigned int i)
  {
    AssertThrow(!data.q_points.empty(),
                ExcNotSupported("gpumf::get_quadrature_point_host: the DataHost has no quadrature points; pass "
                                "update_quadrature_points to copy_mf_data_to_host()."));
    return data.q_points[data.padding_length * cell + i];
  }

  /// "atomics", "cartesian coloring", "graph coloring" or "none".
  template <int dim, typename Number>
  std::string
  to_string(const typename MatrixFree<dim, Number>::ConflictStrategy strategy)
  {
    using S = typename MatrixFree<dim, Number>::ConflictStrategy;
    return strategy == S::atomics            ? "atomics" :
           strategy == S::cartesian_coloring ? "cartesian coloring" :
           strategy == S::graph_coloring     ? "graph coloring" :
                                               "none";
  }

} // namespace gpumf

#include <gpumf/internal/cell_loop.h>
#include <gpumf/internal/face_loop.h>

#endif
