/**
 * @file gpumf/fe_evaluation.h
 * gpumf::FEEvaluation: values and gradients of a finite element function at the
 * quadrature points of one cell, inside a MatrixFree::cell_loop() functor.
 * deal.II equivalent: CUDAWrappers::FEEvaluation (deal.II 9.4, cuda_fe_evaluation.h).
 */
#ifndef gpumf_fe_evaluation_h
#define gpumf_fe_evaluation_h

#include <gpumf/device_vector.h>
#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/host_block.h>
#include <gpumf/internal/tensor_contractions.h>
#include <gpumf/matrix_free.h>

#include <deal.II/base/symmetric_tensor.h>
#include <deal.II/base/tensor.h>

#include <deal.II/matrix_free/evaluation_flags.h>

#include <type_traits>

namespace gpumf
{
  /**
   * deal.II's EvaluationFlags (the same values), combinable in device code. deal.II's own
   * `operator|` on its flags is a host function (deal.II 9.4: inline; 9.5+: DEAL_II_HOST_DEVICE,
   * which marks host functions only where deal.II's Kokkos has no CUDA), so
   * `dealii::EvaluationFlags::values | dealii::EvaluationFlags::gradients` inside a functor would
   * call host code on the GPU; gpumf's compile options make that a compile-time error ("calling a
   * __host__ function from a __host__ __device__ function"). Write
   * `gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients` there; FEEvaluation's
   * evaluate() and integrate() take either kind (a single deal.II flag needs no operator).
   */
  namespace EvaluationFlags
  {
    enum EvaluationFlags : unsigned int
    {
      nothing   = 0,
      values    = dealii::EvaluationFlags::values,
      gradients = dealii::EvaluationFlags::gradients,
      hessians  = dealii::EvaluationFlags::hessians
    };

    __host__ __device__ constexpr EvaluationFlags
    operator|(const EvaluationFlags f1, const EvaluationFlags f2)
    {
      return static_cast<EvaluationFlags>(static_cast<unsigned int>(f1) | static_cast<unsigned int>(f2));
    }

    __host__ __device__ constexpr EvaluationFlags
    operator&(const EvaluationFlags f1, const EvaluationFlags f2)
    {
      return static_cast<EvaluationFlags>(static_cast<unsigned int>(f1) & static_cast<unsigned int>(f2));
    }
  } // namespace EvaluationFlags

  template <int dim, int fe_degree, int n_components, typename Number, bool thread_per_column>
  class CellwiseInverseMassMatrix;
  template <int dim, typename Number>
  struct TensorProductMatrixSymmetricSumView;

  /**
   * Evaluation of an FE_Q function (or an FESystem of @p n_components_ equal FE_Q) on one
   * cell with @p n_q_points_1d >= fe_degree + 1 points per direction (Gauss, or
   * Gauss-Lobatto collocation).
   *
   * Threads: see internal::CellLayout. Up to degree 9 (3D, n_q_points_1d <= 10) each thread
   * owns one quadrature point, so code written for deal.II 9.4 (one thread = one point,
   * get_value() without argument, coefficients at local_q_point_id()) works unchanged. Above
   * that each thread owns a column of points; then write the quadrature functor with the
   * point argument, `operator()(FEEvaluation *phi, unsigned int q)`, and use get_value(q) etc.
   * (the interface of deal.II's later Portable::FEEvaluation), which works for every degree.
   *
   * GPU (sum factorization in shared memory): evaluate() interpolates the DoF values to the
   * quadrature points one direction at a time (an n_q x n_dofs_1d matrix per direction;
   * skipped for collocation, where that matrix is the identity), then
   * takes reference gradients with the collocation derivative matrix on the quadrature points
   * and maps them with the stored inverse Jacobian; integrate() is the transpose.
   *
   * Host reference: evaluate() and integrate() sum over all DoFs and points with the full
   * tensor-product basis, O(n^(2 dim)) per cell: deliberately naive and independent of the
   * GPU's factorization.
   *
   * @p thread_per_column_ (gpumf's extension, 3D): each thread owns a column of points along z
   * at every degree, the 2D thread blocks of high-order GPU kernels; the functor that creates
   * the FEEvaluation declares `static constexpr bool thread_per_column = true;` so that the
   * loops launch that layout, and uses the point-indexed interface. With it evaluate() and
   * integrate() take a whole 1D line a thread in registers (line_pass());
   * measured against a thread per point on an H200 (doc/performance.md, "Vector-valued
   * programs", gpumf_stokes): a Stokes functor of step-104's shape 1.25x faster at Q2-Q1
   * (n_q = 3), 0.75-0.80x at Q3-Q2 to Q5-Q4; the ready-made operators use this layout with their own kernel
   * (internal/ready/: the 1D matrices as constant operands, fused gather and geometry).
   *
   * Order of calls, as in deal.II: read_dof_values() (or set_unit_dof_values()), evaluate(),
   * quadrature-point work, integrate(), distribute_local_to_global() (or
   * distribute_local_diagonal()). Every thread of the cell calls each of these (they contain
   * barriers); the host backend throws where the threads diverge.
   *
   * Several objects in one functor (two vectors read in one loop, as deal.II's step-48 does):
   * each object alive at the same time has its own scratch in the cell's shared memory; the
   * functor declares how many live at once, `static constexpr unsigned int n_fe_evaluations = 2;`
   * (default 1). One more throws on the host backend and stops the kernel with a message on the
   * GPU. The objects of one functor have the functor's element and quadrature (the MatrixFree
   * object's); a mismatch is reported the same way.
   */
  template <int dim,
            int fe_degree,
            int n_q_points_1d       = fe_degree + 1,
            int n_components_       = 1,
            typename Number         = double,
            bool thread_per_column_ = false>
  class FEEvaluation
  {
    static_assert(dim == 2 || dim == 3, "gpumf::FEEvaluation supports dim 2 and 3.");
    static_assert(fe_degree >= 1, "gpumf::FEEvaluation supports fe_degree >= 1.");
    static_assert(n_q_points_1d >= fe_degree + 1, "gpumf::FEEvaluation needs n_q_points_1d >= fe_degree + 1.");
    static_assert(n_components_ >= 1, "gpumf::FEEvaluation needs n_components >= 1.");
    static_assert(n_q_points_1d * n_q_points_1d <= 1024,
                  "gpumf::FEEvaluation: n_q_points_1d^2 threads must fit a block (n_q_points_1d <= 32).");

    static constexpr unsigned int              nd = fe_degree + 1;
    static constexpr unsigned int              nq = n_q_points_1d;
    static constexpr internal::CellLayout<dim> layout{nq, thread_per_column_};
    /// 3D with a column of points per thread asked for (thread_per_column): the passes of
    /// evaluate() and integrate() take a whole 1D line a thread in registers (line_pass()).
    /// (Above n_q = 10, where that layout is the default, the passes are still those of a thread
    /// per point applied to each point of the column; with a thread per point the line passes on
    /// n_q^2 of the n_q^3 threads measured slower on an H200: 0.92x at Q2-Q1, 0.87x at Q4-Q3,
    /// doc/log.md.)
    static constexpr bool by_lines = dim == 3 && thread_per_column_;
    /// Padded points per component in shared memory.
    static constexpr unsigned int P = internal::ipow(nq, dim);

  public:
    using value_type = std::conditional_t<n_components_ == 1, Number, dealii::Tensor<1, n_components_, Number>>;
    /// As deal.II's: a vector for one component, a rank-2 tensor (component, direction) for dim
    /// components, else a vector of vectors.
    using gradient_type =
      std::conditional_t<n_components_ == 1,
                         dealii::Tensor<1, dim, Number>,
                         std::conditional_t<n_components_ == dim,
                                            dealii::Tensor<2, dim, Number>,
                                            dealii::Tensor<1, n_components_, dealii::Tensor<1, dim, Number>>>>;
    /// The curl of a dim-component field: one component in 2D, three in 3D (as deal.II's).
    using curl_type = dealii::Tensor<1, dim == 2 ? 1 : dim, Number>;
    using data_type = typename MatrixFree<dim, Number>::Data;

    static constexpr unsigned int dimension            = dim;
    static constexpr unsigned int n_components         = n_components_;
    static constexpr unsigned int n_q_points           = internal::ipow(nq, dim);
    static constexpr unsigned int tensor_dofs_per_cell = internal::ipow(nd, dim);
    static constexpr unsigned int dofs_per_cell        = n_components * tensor_dofs_per_cell;

    /**
     * For cell number @p cell_id of the color described by @p data, on the next free scratch of
     * @p shdata, reading and writing the vectors of DoFHandler @p dof_index of a MatrixFree object
     * with several (MatrixFree::reinit() with a vector of DoFHandlers; that DoFHandler's element,
     * which the template arguments name), on quadrature @p quad_index of an object with several
     * (reinit() with a vector of quadratures; n_q_points_1d of the template arguments is that
     * quadrature's, and its number of points the loop's: MatrixFree::launch_quadrature()).
     */
    __host__ __device__
    FEEvaluation(const unsigned int       cell_id,
                 const data_type         *data_in,
                 SharedData<dim, Number> *shdata,
                 const unsigned int       dof_index  = 0,
                 const unsigned int       quad_index = 0)
      : data(of_parts(*data_in, dof_index, quad_index))
      , slot(shdata->next_slot)
      , shared(take_scratch(*shdata))
      , owner(shdata)
      , cell(data_in->row_start + cell_id)
      , thread(internal::thread_index(layout))
      , current_q(internal::owned_point(layout, thread, 0))
    {
      // another DoFHandler or quadrature than the launch's: its 1D tables from their own memory
      // (the launch staged its own)
      if (data.dof_index != data_in->dof_index || data.quad_index != data_in->quad_index)
        {
          shared.shape_values    = data.shape_values;
          shared.shape_gradients = data.shape_gradients;
        }
      if (data.quad_index != data_in->quad_index)
        shared.co_shape_gradients = data.co_shape_gradients;
        // the launch follows the functor's thread_per_column and sizes; a mismatch would compute garbage
#ifdef __CUDA_ARCH__
      if (data.quad_index != data_in->quad_index)
        internal::require(data_in->n_q_points == n_q_points,
                          "gpumf::FEEvaluation: its quadrature (quad_index) has another number of points than "
                          "the loop runs on (the functor's n_q_points): all FEEvaluation objects of a functor "
                          "need quadratures of the functor's number of points.");
      internal::require(blockDim.z == data.cells_per_block * layout.block_z(),
                        "gpumf::FEEvaluation: its thread_per_column differs from the functor's (declare `static "
                        "constexpr bool thread_per_column` in the functor as in its FEEvaluation).");
      internal::require(data.n_q_points_1d == nq && data.n_dofs_1d == nd && data.n_components == n_components,
                        "gpumf::FEEvaluation: its degree, n_q_points_1d or n_components do not match the MatrixFree "
                        "object of the loop (the DoFHandler of its dof_index, the quadrature of its quad_index).");
#else
      if (data.quad_index != data_in->quad_index)
        AssertThrow(data_in->n_q_points == n_q_points,
                    ExcNotSupported("gpumf::FEEvaluation on quadrature " + std::to_string(quad_index) + " with " +
                                    std::to_string(n_q_points) + " points per cell in a loop that runs on " +
                                    std::to_string(data_in->n_q_points) +
                                    " (the functor's n_q_points): all FEEvaluation objects of a functor need "
                                    "quadratures of the functor's number of points."));
      AssertThrow(internal::host_block_z() == layout.block_z(),
                  ExcNotSupported("gpumf::FEEvaluation with thread_per_column = " + std::to_string(thread_per_column_) +
                                  " inside a functor whose thread_per_column differs: declare "
                                  "`static constexpr bool thread_per_column = " +
                                  std::string(thread_per_column_ ? "true" : "false") + ";` in the functor."));
      AssertThrow(data.n_q_points_1d == nq && data.n_dofs_1d == nd && data.n_components == n_components,
                  ExcNotSupported(
                    "gpumf::FEEvaluation<dim, " + std::to_string(fe_degree) + ", " + std::to_string(nq) + ", " +
                    std::to_string(n_components) + "> does not match its MatrixFree object (DoFHandler " +
                    std::to_string(dof_index) + ": degree " + std::to_string(data.n_dofs_1d - 1) + ", " +
                    std::to_string(data.n_components) + " components; quadrature " + std::to_string(quad_index) + ": " +
                    std::to_string(data.n_q_points_1d) + " points per direction" +
                    (data_in->n_quadratures > 1 ? ". Name the quadrature: FEEvaluation(cell, data, "
                                                  "shared, dof_index, quad_index)" :
                                                  "") +
                    ")."));
#endif
    }

    /// deal.II 9.5 and 9.6's Portable::FEEvaluation constructor: the cell is the one the loop gave
    /// @p shdata (SharedData::cell), the cell argument of the functor.
    __host__ __device__
    FEEvaluation(const data_type         *data_in,
                 SharedData<dim, Number> *shdata,
                 const unsigned int       dof_index  = 0,
                 const unsigned int       quad_index = 0)
      : FEEvaluation(shdata->cell, data_in, shdata, dof_index, quad_index)
    {}

    /**
     * deal.II 9.7+'s Portable::FEEvaluation constructor, in a cell functor of the form
     * `operator()(const Data *data, const Portable::DeviceVector<Number> &src,
     * Portable::DeviceVector<Number> &dst)`: the cell and its scratch travel in @p data_in
     * (Data::cell_index, Data::shared_data). @p dof_index selects the DoFHandler of a MatrixFree
     * object with several (0 with one), @p quad_index the quadrature of one with several (an
     * addition to deal.II's form, as in its CPU FEEvaluation).
     */
    template <typename Index = unsigned int, std::enable_if_t<std::is_integral_v<Index>, int> = 0>
    __host__
      __device__ explicit FEEvaluation(const data_type *data_in, const Index dof_index = 0, const Index quad_index = 0)
      : FEEvaluation(checked_cell(data_in), data_in, data_in->shared_data, dof_index, quad_index)
    {}

    /// Gives the scratch back: a later FEEvaluation of the functor reuses it. Objects end in the
    /// reverse order of their creation (as local variables do).
    __host__ __device__ ~FEEvaluation() noexcept(false)
    {
      --owner->next_slot;
      internal::require(owner->next_slot == slot,
                        "gpumf::FEEvaluation: objects of one cell functor destroyed out of the reverse order of "
                        "their creation: a later object would share the scratch of one still alive.");
    }

    FEEvaluation(const FEEvaluation &) = delete;
    FEEvaluation &
    operator=(const FEEvaluation &) = delete;

    /// read_dof_values() from the vector of a deal.II 9.7+ functor's `src` argument.
    __host__ __device__ void
    read_dof_values(const Portable::DeviceVector<Number> &src)
    {
      read_dof_values(static_cast<const Number *>(src.data()));
    }

    /// read_dof_values_plain() from the vector of a deal.II 9.7+ functor's `src` argument.
    __host__ __device__ void
    read_dof_values_plain(const Portable::DeviceVector<Number> &src)
    {
      read_dof_values_plain(static_cast<const Number *>(src.data()));
    }

    /// distribute_local_to_global() into the vector of a deal.II 9.7+ functor's `dst` argument.
    __host__ __device__ void
    distribute_local_to_global(const Portable::DeviceVector<Number> &dst) const
    {
      distribute_local_to_global(dst.data());
    }

    /// Reads the cell's DoF values from @p src (constrained DoFs read as zero). In
    /// MatrixFree::loop_diagonal() the unit vector of the loop's DoF instead.
    __host__ __device__ void
    read_dof_values(const Number *src)
    {
      if (shared.unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          set_unit_dof_values(shared.unit_dof);
          return;
        }
      GPUMF_DEVICE_OR_HOST(device_read_dof_values(src), host_read_dof_values(src));
    }

    /**
     * Reads the cell's DoF values from @p src as they are, constrained DoFs included (deal.II's
     * read_dof_values_plain()): the entries of a vector whose constrained DoFs hold their values
     * (Dirichlet values, AffineConstraints::distribute() after a solve). For a solution in a
     * nonlinear term or a norm; read_dof_values() instead reads Dirichlet DoFs as zero and
     * hanging nodes from their masters, the homogeneous form an operator applies. Needs
     * MatrixFree::AdditionalData::store_plain_indices (the default), and all the ghost values of
     * @p src (the loops exchange them).
     */
    __host__ __device__ void
    read_dof_values_plain(const Number *src)
    {
      if (shared.unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          set_unit_dof_values(shared.unit_dof); // MatrixFree::loop_diagonal()
          return;
        }
      internal::require(data.plain_local_to_global != nullptr,
                        "gpumf::FEEvaluation::read_dof_values_plain: the MatrixFree object keeps no plain "
                        "indices; set AdditionalData::store_plain_indices = true (the default) before reinit().");
      GPUMF_DEVICE_OR_HOST(device_read_dof_values_plain(src), host_read_dof_values_plain(src));
    }

    /// Sets the cell's DoF values to the unit vector of local DoF @p i (component-major,
    /// lexicographic within a component): one column of the cell matrix, for diagonals.
    __host__ __device__ void
    set_unit_dof_values(const unsigned int i)
    {
      GPUMF_DEVICE_OR_HOST(device_set_unit_dof_values(i), host_set_unit_dof_values(i));
    }

    /**
     * Adds the cell's DoF values into @p dst through the constraints (internal/dof_access.h):
     * atomically without coloring; with coloring each thread adds its unconstrained DoFs and,
     * after a barrier, one thread per cell adds the constrained ones into their masters in a
     * fixed order (two DoFs of a cell may share a master).
     */
    __host__ __device__ void
    distribute_local_to_global(Number *dst) const
    {
      if (shared.unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          // MatrixFree::loop_diagonal(): the loop's DoF alone, into the diagonal
          distribute_local_diagonal(shared.unit_dof, dst);
          return;
        }
      const auto add_to = [&](const unsigned int index, const Number value) { add(dst, index, value); };
      GPUMF_DEVICE_OR_HOST(device_distribute_local_to_global(dst, add_to),
                           host_distribute_local_to_global(dst, add_to));
    }

    /**
     * Writes the cell's DoF values into @p dst, overwriting the entries (deal.II's
     * FEEvaluation::set_dof_values()): each DoF that is not constrained gets the cell's value;
     * constrained DoFs (Dirichlet, hanging nodes, other constraint lines) are skipped. Meant for
     * loops where each cell owns its DoFs (a discontinuous element: the inverse mass in place,
     * MatrixFree::cell_loop() with the same vector as source and destination); where cells share
     * a DoF, each of them writes it. In MatrixFree::loop_diagonal() as
     * distribute_local_to_global().
     */
    __host__ __device__ void
    set_dof_values(Number *dst) const
    {
      if (shared.unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          distribute_local_diagonal(shared.unit_dof, dst);
          return;
        }
      GPUMF_DEVICE_OR_HOST(device_set_dof_values(dst), host_set_dof_values(dst));
    }

    /// set_dof_values() into the vector of a deal.II 9.7+ functor's `dst` argument.
    __host__ __device__ void
    set_dof_values(const Portable::DeviceVector<Number> &dst) const
    {
      set_dof_values(dst.data());
    }

    /**
     * Adds what column @p i of the cell matrix (the cell's DoF values after set_unit_dof_values(i)
     * and the cell operation) contributes to the diagonal of the constrained operator:
     * entry i for a cell without constraint rows, else sum_l C_lg (A e_i)_l w_ig for each vector
     * entry g of DoF i (internal::distribute_diagonal_column(), one thread per cell).
     */
    __host__ __device__ void
    distribute_local_diagonal(const unsigned int i, Number *diagonal) const
    {
      const auto add_column = [&]() {
        internal::distribute_diagonal_column<Number>(
          i,
          dofs_per_cell,
          [&](const unsigned int l) { return code(l); },
          [&](const unsigned int l) { return dof_values()[(l / tensor_dofs_per_cell) * P + point_of(l)]; },
          data.constraint_rows,
          [&](const unsigned int index, const Number value) { add(diagonal, index, value); });
      };
      GPUMF_DEVICE_OR_HOST(device_distribute_local_diagonal(i, diagonal, add_column),
                           host_distribute_local_diagonal(i, diagonal, add_column));
    }

    /// Values (and gradients) at the quadrature points from the DoF values.
    __host__ __device__ void
    evaluate(const bool evaluate_val, const bool evaluate_grad)
    {
      GPUMF_DEVICE_OR_HOST(device_evaluate(evaluate_val, evaluate_grad), host_evaluate(evaluate_val, evaluate_grad));
    }

    /// evaluate() with gpumf's flags (gpumf::EvaluationFlags::values, gradients, or both; hessians
    /// are not supported and stop the loop with a message).
    __host__ __device__ void
    evaluate(const EvaluationFlags::EvaluationFlags flags)
    {
      check_flags(flags, "evaluate");
      evaluate((flags & EvaluationFlags::values) != 0, (flags & EvaluationFlags::gradients) != 0);
    }

    /// evaluate() with one of deal.II's flags, or deal.II's flags combined in host code.
    __host__ __device__ void
    evaluate(const dealii::EvaluationFlags::EvaluationFlags flags)
    {
      evaluate(static_cast<EvaluationFlags::EvaluationFlags>(static_cast<unsigned int>(flags)));
    }

    /// integrate() with gpumf's flags (values, gradients, or both).
    __host__ __device__ void
    integrate(const EvaluationFlags::EvaluationFlags flags)
    {
      check_flags(flags, "integrate");
      integrate((flags & EvaluationFlags::values) != 0, (flags & EvaluationFlags::gradients) != 0);
    }

    /// integrate() with one of deal.II's flags, or deal.II's flags combined in host code.
    __host__ __device__ void
    integrate(const dealii::EvaluationFlags::EvaluationFlags flags)
    {
      integrate(static_cast<EvaluationFlags::EvaluationFlags>(static_cast<unsigned int>(flags)));
    }

    /// DoF values from the submitted values (and gradients): the transpose of evaluate().
    __host__ __device__ void
    integrate(const bool integrate_val, const bool integrate_grad)
    {
      GPUMF_DEVICE_OR_HOST(device_integrate(integrate_val, integrate_grad),
                           host_integrate(integrate_val, integrate_grad));
    }

    /// The value at quadrature point @p q (lexicographic index).
    __host__ __device__ value_type
    get_value(const unsigned int q) const
    {
      note(false, q, "the value");
      value_type value;
      for (unsigned int c = 0; c < n_components; ++c)
        component(value, c) = shared.values[c * P + q];
      return value;
    }

    /// Submits the value at quadrature point @p q (multiplied by JxW).
    __host__ __device__ void
    submit_value(const value_type &val_in, const unsigned int q)
    {
      note(true, q, "the value");
      const Number jxw = JxW(q);
      for (unsigned int c = 0; c < n_components; ++c)
        shared.values[c * P + q] = component(val_in, c) * jxw;
    }

    /// The gradient in real space at quadrature point @p q.
    __host__ __device__ gradient_type
    get_gradient(const unsigned int q) const
    {
      note(false, shared.array_size + q, "the gradient");
      gradient_type gradient;
      for (unsigned int c = 0; c < n_components; ++c)
        for (unsigned int d = 0; d < dim; ++d)
          component(gradient, c)[d] = shared.gradients[d][c * P + q];
      return gradient;
    }

    /// @name Vector-valued fields (n_components == dim), as deal.II's FEEvaluation
    /// @{
    /// The divergence at quadrature point @p q: the trace of get_gradient(q).
    __host__ __device__ Number
    get_divergence(const unsigned int q) const
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::get_divergence needs n_components == dim.");
      note(false, shared.array_size + q, "the gradient");
      Number divergence = 0;
      for (unsigned int d = 0; d < dim; ++d)
        divergence += shared.gradients[d][d * P + q];
      return divergence;
    }

    /// The symmetric gradient (grad u + grad u^T) / 2 at quadrature point @p q.
    __host__ __device__ dealii::SymmetricTensor<2, dim, Number>
                        get_symmetric_gradient(const unsigned int q) const
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::get_symmetric_gradient needs n_components == dim.");
      note(false, shared.array_size + q, "the gradient");
      // deal.II's storage: the diagonal, then the entries above it row by row (access_raw_entry())
      dealii::SymmetricTensor<2, dim, Number> result;
      for (unsigned int c = 0; c < dim; ++c)
        result.access_raw_entry(c) = shared.gradients[c][c * P + q];
      for (unsigned int c = 0, k = dim; c < dim; ++c)
        for (unsigned int d = c + 1; d < dim; ++d, ++k)
          result.access_raw_entry(k) = Number(0.5) * (shared.gradients[d][c * P + q] + shared.gradients[c][d * P + q]);
      return result;
    }

    /// The curl at quadrature point @p q: d u_1/dx - d u_0/dy in 2D (one component), the
    /// vector curl in 3D.
    __host__ __device__ curl_type
    get_curl(const unsigned int q) const
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::get_curl needs n_components == dim.");
      note(false, shared.array_size + q, "the gradient");
      // du_c/dx_d
      const auto du = [&](const unsigned int c, const unsigned int d) { return shared.gradients[d][c * P + q]; };
      curl_type  curl;
      if constexpr (dim == 2)
        curl[0] = du(1, 0) - du(0, 1);
      else
        {
          curl[0] = du(2, 1) - du(1, 2);
          curl[1] = du(0, 2) - du(2, 0);
          curl[2] = du(1, 0) - du(0, 1);
        }
      return curl;
    }

    /// Submits @p div_in at quadrature point @p q, tested by the divergence of the shape functions
    /// (as submit_gradient(div_in * identity); replaces what submit_gradient() submitted there).
    __host__ __device__ void
    submit_divergence(const Number div_in, const unsigned int q)
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::submit_divergence needs n_components == dim.");
      note(true, shared.array_size + q, "the gradient");
      Number jinv[dim][dim];
      inverse_jacobian(q, jinv);
      const Number scaled = div_in * JxW(q);
      for (unsigned int c = 0; c < dim; ++c)
        for (unsigned int e = 0; e < dim; ++e)
          shared.gradients[e][c * P + q] = jinv[e][c] * scaled;
    }

    /// Submits @p sym_in at quadrature point @p q, tested by the symmetric gradient of the shape functions.
    __host__ __device__ void
    submit_symmetric_gradient(const dealii::SymmetricTensor<2, dim, Number> &sym_in, const unsigned int q)
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::submit_symmetric_gradient needs n_components == dim.");
      gradient_type gradient;
      for (unsigned int c = 0; c < dim; ++c)
        gradient[c][c] = sym_in.access_raw_entry(c);
      for (unsigned int c = 0, k = dim; c < dim; ++c)
        for (unsigned int d = c + 1; d < dim; ++d, ++k)
          gradient[c][d] = gradient[d][c] = sym_in.access_raw_entry(k);
      submit_gradient(gradient, q);
    }

    /// Submits @p curl_in at quadrature point @p q, tested by the curl of the shape functions.
    __host__ __device__ void
    submit_curl(const curl_type &curl_in, const unsigned int q)
    {
      static_assert(n_components_ == dim, "gpumf::FEEvaluation::submit_curl needs n_components == dim.");
      // c . curl(phi) written as G : grad(phi), G[component][direction]
      gradient_type gradient;
      if constexpr (dim == 2)
        {
          gradient[1][0] = curl_in[0];
          gradient[0][1] = -curl_in[0];
        }
      else
        {
          gradient[2][1] = curl_in[0];
          gradient[1][2] = -curl_in[0];
          gradient[0][2] = curl_in[1];
          gradient[2][0] = -curl_in[1];
          gradient[1][0] = curl_in[2];
          gradient[0][1] = -curl_in[2];
        }
      submit_gradient(gradient, q);
    }
    /// @}

    /// Submits a real-space gradient at quadrature point @p q, tested by the shape gradients (times JxW).
    __host__ __device__ void
    submit_gradient(const gradient_type &grad_in, const unsigned int q)
    {
      note(true, shared.array_size + q, "the gradient");
      Number jinv[dim][dim];
      inverse_jacobian(q, jinv);
      const Number jxw = JxW(q);
      for (unsigned int c = 0; c < n_components; ++c)
        for (unsigned int e = 0; e < dim; ++e)
          {
            Number sum = 0;
            for (unsigned int d = 0; d < dim; ++d)
              sum += jinv[e][d] * component(grad_in, c)[d];
            shared.gradients[e][c * P + q] = sum * jxw;
          }
    }

    /// The real-space position of quadrature point @p q.
    __host__ __device__ typename MatrixFree<dim, Number>::point_type
             quadrature_point(const unsigned int q) const
    {
      return data.q_points[cell * n_q_points + q];
    }

    /**
     * The cell's number in the loop's launch (its color), as deal.II's Portable::FEEvaluation
     * returns it: the cell argument of the functor, what Data::local_q_point_id(cell, q) and
     * Data::get_quadrature_point(cell, q) take. For the cell's index among all cells of the
     * object, get_cell_index_in_object().
     */
    __host__ __device__ unsigned int
    get_current_cell_index() const
    {
      return cell - data.row_start;
    }

    /// The cell's index among all cells of the MatrixFree object, 0 <= c < MatrixFree::n_cells()
    /// (MatrixFree::get_cell_iterator(c)), for data stored per cell of the object.
    __host__ __device__ unsigned int
    get_cell_index_in_object() const
    {
      return cell;
    }

    /// The data of the loop's launch this object reads (deal.II 9.7+'s get_matrix_free_data()):
    /// Data::local_q_point_id(get_current_cell_index(), q) is the cell's point q.
    __host__ __device__ const data_type *
    get_matrix_free_data() const
    {
      return &data;
    }

    /// JxW at quadrature point @p q: stored, or det J times the weight (affine geometry); deal.II's
    /// FEEvaluation::JxW().
    __host__ __device__ Number
    JxW(const unsigned int q) const
    {
      return data.affine ? internal::read_only(data.JxW + cell) * internal::read_only(data.quadrature_weights + q) :
                           internal::read_only(data.JxW + cell * n_q_points + q);
    }

    /**
     * deal.II's inverse_jacobian(q): J^{-T} at point @p q, entry [d][e] = d xi_e / d x_d (rows
     * real coordinates, columns reference ones), so that the real gradient is
     * inverse_jacobian(q) times the reference gradient (per cell on affine meshes).
     */
    __host__ __device__ dealii::Tensor<2, dim, Number>
                        inverse_jacobian(const unsigned int q) const
    {
      Number jinv[dim][dim];
      inverse_jacobian(q, jinv);
      dealii::Tensor<2, dim, Number> t;
      for (unsigned int d = 0; d < dim; ++d)
        for (unsigned int e = 0; e < dim; ++e)
          t[d][e] = jinv[e][d];
      return t;
    }

    /// @name deal.II 9.4's per-thread interface: the point the thread works on
    /// (its only point up to degree 9 in 3D; the current one inside apply_for_each_quad_point()).
    /// @{
    __host__ __device__ value_type
    get_value() const
    {
      return get_value(current_q);
    }

    __host__ __device__ void
    submit_value(const value_type &val_in)
    {
      submit_value(val_in, current_q);
    }

    __host__ __device__ gradient_type
    get_gradient() const
    {
      return get_gradient(current_q);
    }

    __host__ __device__ void
    submit_gradient(const gradient_type &grad_in)
    {
      submit_gradient(grad_in, current_q);
    }

    /// The divergence at the thread's point (deal.II 9.4's form without a point).
    __host__ __device__ Number
    get_divergence() const
    {
      return get_divergence(current_q);
    }

    __host__ __device__ dealii::SymmetricTensor<2, dim, Number>
                        get_symmetric_gradient() const
    {
      return get_symmetric_gradient(current_q);
    }

    __host__ __device__ curl_type
    get_curl() const
    {
      return get_curl(current_q);
    }

    __host__ __device__ void
    submit_divergence(const Number div_in)
    {
      submit_divergence(div_in, current_q);
    }

    __host__ __device__ void
    submit_symmetric_gradient(const dealii::SymmetricTensor<2, dim, Number> &sym_in)
    {
      submit_symmetric_gradient(sym_in, current_q);
    }

    __host__ __device__ void
    submit_curl(const curl_type &curl_in)
    {
      submit_curl(curl_in, current_q);
    }

    /// The DoF value of the thread's point (before evaluate()).
    __host__ __device__ value_type
    get_dof_value() const
    {
      return get_dof_value(current_q);
    }

    __host__ __device__ void
    submit_dof_value(const value_type &val_in)
    {
      submit_dof_value(val_in, current_q);
    }
    /// @}

    /// The DoF value at the position of point @p q, one of the calling thread's points
    /// (before evaluate(); deal.II 9.5+'s form of get_dof_value()).
    __host__ __device__ value_type
    get_dof_value(const unsigned int q) const
    {
      note(false, q, "the DoF value");
      value_type value;
      for (unsigned int c = 0; c < n_components; ++c)
        component(value, c) = dof_values()[c * P + q];
      return value;
    }

    /// Sets the DoF value at the position of point @p q, one of the calling thread's points.
    __host__ __device__ void
    submit_dof_value(const value_type &val_in, const unsigned int q)
    {
      note(true, q, "the DoF value");
      for (unsigned int c = 0; c < n_components; ++c)
        dof_values()[c * P + q] = component(val_in, c);
    }

    /**
     * Calls @p func for each quadrature point of this thread: `func(this, q)` when the
     * functor takes the point index, else `func(this)` with the per-thread interface
     * pointing at q.
     */
    template <typename Functor>
    __host__ __device__ void
    apply_for_each_quad_point(const Functor &func)
    {
      static_assert(std::is_invocable_v<const Functor &, FEEvaluation *, unsigned int> ||
                      layout.points_per_thread() == 1,
                    "gpumf::FEEvaluation: with n_q_points_1d^3 > 1024 each thread owns several points; write the "
                    "quadrature functor as operator()(FEEvaluation *phi, unsigned int q) and use get_value(q) etc.");
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          current_q = internal::owned_point(layout, thread, s);
          if constexpr (std::is_invocable_v<const Functor &, FEEvaluation *, unsigned int>)
            func(this, current_q);
          else
            func(this);
        }
      current_q = internal::owned_point(layout, thread, 0);
      syncthreads();
    }

  private:
    /// The cell of a deal.II 9.7+ functor's @p data (stops with a message where the data has no cell).
    __host__ __device__ static unsigned int
    checked_cell(const data_type *data)
    {
      internal::require(data->shared_data != nullptr,
                        "gpumf::FEEvaluation(data): this data has no cell; the constructor without shared data "
                        "serves cell functors of deal.II 9.7's form operator()(const Data *data, const "
                        "DeviceVector<Number> &src, DeviceVector<Number> &dst). In a functor of the 9.4/9.6 form "
                        "write FEEvaluation(cell, data, shared_data) or FEEvaluation(data, shared_data).");
      return data->cell_index;
    }

    /// @p launch with the DoF fields of DoFHandler @p dof_index (Data::dof_handler_data) and the
    /// fields of quadrature @p quad_index (Data::quadrature_data).
    __host__ __device__ static data_type
    of_parts(const data_type &launch, const unsigned int dof_index, const unsigned int quad_index)
    {
      if (dof_index == launch.dof_index && quad_index == launch.quad_index)
        return launch;
      internal::require(dof_index < launch.n_dof_handlers,
                        "gpumf::FEEvaluation: dof_index beyond the DoFHandlers of the MatrixFree object (reinit() "
                        "with a vector of DoFHandlers takes their positions in it as indices).");
      internal::require(quad_index < launch.n_quadratures,
                        "gpumf::FEEvaluation: quad_index beyond the quadratures of the MatrixFree object (reinit() "
                        "with a vector of quadratures takes their positions in it as indices).");
      const data_type &other = launch.quadrature_data != nullptr ?
                                 launch.quadrature_data[quad_index * launch.n_dof_handlers + dof_index] :
                                 launch.dof_handler_data[dof_index];
      data_type        data  = launch;
      if (quad_index != launch.quad_index)
        {
          data.q_points           = other.q_points;
          data.inv_jacobian       = other.inv_jacobian;
          data.JxW                = other.JxW;
          data.jacobian_stride    = other.jacobian_stride;
          data.affine             = other.affine;
          data.co_shape_gradients = other.co_shape_gradients;
          data.quadrature_weights = other.quadrature_weights;
          data.n_q_points_1d      = other.n_q_points_1d;
          data.n_q_points         = other.n_q_points;
          data.quad_index         = quad_index;
        }
      data.local_to_global          = other.local_to_global;
      data.plain_local_to_global    = other.plain_local_to_global;
      data.constraint_rows          = other.constraint_rows;
      data.cell_has_constraint_rows = other.cell_has_constraint_rows;
      data.has_constraint_rows      = other.has_constraint_rows;
      data.hanging_masks            = other.hanging_masks;
      data.hanging_local_to_global  = other.hanging_local_to_global;
      data.hanging_weights          = other.hanging_weights;
      data.shape_values             = other.shape_values;
      data.shape_gradients          = other.shape_gradients;
      data.inverse_shape_values     = other.inverse_shape_values;
      data.n_dofs_1d                = other.n_dofs_1d;
      data.n_components             = other.n_components;
      data.collocation              = other.collocation;
      data.dof_index                = dof_index;
      return data;
    }

    template <int, int, int, typename, bool>
    friend class CellwiseInverseMassMatrix;
    template <int, typename>
    friend struct TensorProductMatrixSymmetricSumView;

    /// Stops the loop with a message where @p flags asks for more than values and gradients.
    __host__ __device__ static void
    check_flags(const EvaluationFlags::EvaluationFlags flags, const char *what)
    {
      (void)what;
      const unsigned int     bits      = flags;
      constexpr unsigned int supported = EvaluationFlags::values | EvaluationFlags::gradients;
#ifdef __CUDA_ARCH__
      internal::require((bits & ~supported) == 0,
                        "gpumf::FEEvaluation: evaluate()/integrate() support EvaluationFlags::values and "
                        "gradients only (no hessians).");
#else
      AssertThrow((bits & ~supported) == 0,
                  ExcNotSupported(std::string("gpumf::FEEvaluation::") + what + "() was given EvaluationFlags " +
                                  std::to_string(bits) +
                                  ": supported are EvaluationFlags::values and EvaluationFlags::gradients "
                                  "(either or both), no hessians."));
#endif
    }

    // Copies (kept in registers on the GPU) of the object's data and the cell's scratch
    // pointers: measured faster than reading them through pointers (doc/performance.md).
    const data_type data;
    /// the set of arrays of the cell's scratch this object took
    const unsigned int      slot;
    SharedData<dim, Number> shared;
    /// the thread's SharedData the scratch was taken from (given back by the destructor)
    SharedData<dim, Number>    *owner;
    const unsigned int          cell;
    const internal::ThreadIndex thread;
    unsigned int                current_q;

    /// Host: records a read or write of the scratch entries of record @p index (a point's values,
    /// which on the GPU are also its DoF values; array_size + a point: its gradient) for the race
    /// check between the emulated threads; nothing on the GPU.
    __host__ __device__ void
    note(const bool write, const unsigned int index, const char *what) const
    {
#ifndef __CUDA_ARCH__
      if (shared.host_access != nullptr)
        (write ? internal::host_write : internal::host_read)(shared.host_access[index], what, index % P);
#else
      (void)write, (void)index, (void)what;
#endif
    }

    /// evaluate() and integrate() on the GPU use the values and the dim gradient arrays of the
    /// cell's scratch: a functor that declares a smaller device_scratch_per_cell (the ready
    /// operators' cell functor, or a class derived from it) cannot run them.
    __device__ void
    require_full_scratch() const
    {
      internal::require(shared.slot_stride >= (dim + 1) * shared.array_size,
                        "gpumf::FEEvaluation: evaluate() or integrate() in a functor whose cell scratch "
                        "(device_scratch_per_cell, e.g. inherited from a ready operator's CellOperator) has no room "
                        "for the gradients: such a functor cannot run FEEvaluation's passes.");
    }

    /// The next free set of arrays of @p s (taken: s.next_slot advances), as a SharedData of its own.
    __host__ __device__ static SharedData<dim, Number>
             take_scratch(SharedData<dim, Number> &s)
    {
      internal::require(s.next_slot < s.n_slots,
                        "gpumf::FEEvaluation: more FEEvaluation objects alive in one cell functor than the cell's "
                        "scratch holds. A functor with k of them at once declares `static constexpr unsigned int "
                        "n_fe_evaluations = k;`.");
      internal::require(n_components * P <= s.array_size,
                        "gpumf::FEEvaluation: the cell's scratch was sized for fewer components or points than this "
                        "FEEvaluation has: the functor's n_q_points (and n_components) must be its FEEvaluation's.");
      SharedData<dim, Number> mine   = s;
      const unsigned int      offset = s.next_slot++ * s.slot_stride;
      mine.values += offset;
      for (unsigned int d = 0; d < dim; ++d)
        mine.gradients[d] += offset;
#ifdef __CUDA_ARCH__
      // (the loops' scratch is the block's dynamic shared memory: shared-memory instructions)
      internal::require(__isShared(mine.values),
                        "gpumf::FEEvaluation: its scratch (SharedData) is not in the block's shared memory: "
                        "FEEvaluation runs inside the loops of MatrixFree, which give it that scratch.");
      mine.values = internal::in_shared_space(mine.values);
      for (unsigned int d = 0; d < dim; ++d)
        mine.gradients[d] = internal::in_shared_space(mine.gradients[d]);
#endif
#ifndef __CUDA_ARCH__
      mine.dof_values += offset;
      mine.host_access += (s.next_slot - 1) * 2 * s.array_size;
#endif
      return mine;
    }

    /// Component @p c of a value or gradient (the object itself for a scalar element).
    template <typename T>
    __host__ __device__ static decltype(auto)
             component(T &v, const unsigned int c)
    {
      if constexpr (n_components_ == 1)
        return (v);
      else
        return (v[c]);
    }

    /// True when padded point @p p lies in the DoF grid (all coordinates < n_dofs_1d).
    __host__ __device__ static bool
    is_dof(const unsigned int p)
    {
      unsigned int rest = p;
      for (int d = 0; d < dim; ++d, rest /= nq)
        if (rest % nq >= nd)
          return false;
      return true;
    }

    /// Local DoF number (component-major, lexicographic) of component @p c at padded point @p p.
    __host__ __device__ static unsigned int
    local_dof(const unsigned int c, const unsigned int p)
    {
      unsigned int i = 0, factor = 1, rest = p;
      for (int d = 0; d < dim; ++d, rest /= nq, factor *= nd)
        i += (rest % nq) * factor;
      return c * tensor_dofs_per_cell + i;
    }

    /// Padded point of local DoF @p l (component-major, lexicographic): the inverse of local_dof().
    __host__ __device__ static unsigned int
    point_of(const unsigned int l)
    {
      unsigned int p = 0, factor = 1, rest = l % tensor_dofs_per_cell;
      for (int d = 0; d < dim; ++d, rest /= nd, factor *= nq)
        p += (rest % nd) * factor;
      return p;
    }

    /// Calls f(c, p) for every DoF of the cell (padded point p in the DoF grid), in local DoF order.
    template <typename F>
    __host__ __device__ static void
    for_each_dof(const F &f)
    {
      for (unsigned int l = 0; l < dofs_per_cell; ++l)
        f(l / tensor_dofs_per_cell, point_of(l));
    }

    /// True when a DoF of this cell is a row of the constraint table.
    __host__ __device__ bool
    has_constraint_rows() const
    {
      return data.has_constraint_rows && internal::read_only(data.cell_has_constraint_rows + cell) != 0;
    }

    __host__ __device__ bool
    is_first_thread() const
    {
      return thread.x == 0 && thread.y == 0 && thread.z == 0;
    }

    /// The code of the DoF of component @p c at padded point @p p (internal/dof_access.h).
    __host__ __device__ unsigned int
    dof_index(const unsigned int c, const unsigned int p) const
    {
      return code(local_dof(c, p));
    }

    /// The code of local DoF @p l (component-major, lexicographic).
    __host__ __device__ unsigned int
    code(const unsigned int l) const
    {
      return internal::read_only(data.local_to_global + cell * dofs_per_cell + l);
    }

    /// The code read_dof_values() and distribute_local_to_global() use for local DoF @p l: on
    /// the fine side of a hanging face the coarse side's DoF (internal/hanging_nodes.h).
    __host__ __device__ unsigned int
    apply_code(const unsigned int l) const
    {
      return internal::read_only(
        (data.hanging_local_to_global != nullptr ? data.hanging_local_to_global : data.local_to_global) +
        cell * dofs_per_cell + l);
    }

    /// The cell's hanging-node mask (internal/hanging_nodes.h), 0 if none.
    __host__ __device__ unsigned short
    hanging_mask() const
    {
      return data.hanging_masks != nullptr ? internal::read_only(data.hanging_masks + cell) : 0;
    }

    /// True when a code of apply_code() is a row of the constraint table.
    __host__ __device__ bool
    applied_codes_have_rows() const
    {
      const unsigned short mask = hanging_mask();
      return mask != 0 ? (mask & internal::hanging::has_rows) != 0 : has_constraint_rows();
    }


    /// The vector index of local DoF @p l, constrained or not (MatrixFree::Data::plain_local_to_global).
    __host__ __device__ unsigned int
    plain_index(const unsigned int l) const
    {
      return internal::read_only(data.plain_local_to_global + cell * dofs_per_cell + l);
    }

    /// The inverse Jacobian d xi_e / d x_d at quadrature point @p q (per point or per cell).
    __host__ __device__ void
    inverse_jacobian(const unsigned int q, Number (&jinv)[dim][dim]) const
    {
      const unsigned int k = data.affine ? cell : cell * n_q_points + q;
      for (unsigned int e = 0; e < dim; ++e)
        for (unsigned int d = 0; d < dim; ++d)
          jinv[e][d] = internal::read_only(data.inv_jacobian + (e * dim + d) * data.jacobian_stride + k);
    }

    __host__ __device__ void
    add(Number *dst, const unsigned int index, const Number value) const
    {
      internal::add_value(dst, index, value, !data.use_coloring, shared.writes);
    }

    __host__ __device__ Number *
    dof_values() const
    {
#ifdef __CUDA_ARCH__
      return shared.values;
#else
      return shared.dof_values;
#endif
    }

    /// gradients[d][c, q] = sum_e reference[e] * d xi_e / d x_d at point q of the cell
    __host__ __device__ void
    store_real_gradient(const unsigned int c, const unsigned int q, const Number (&reference)[dim])
    {
      Number jinv[dim][dim];
      inverse_jacobian(q, jinv);
      for (unsigned int d = 0; d < dim; ++d)
        {
          Number sum = 0;
          for (unsigned int e = 0; e < dim; ++e)
            sum += reference[e] * jinv[e][d];
          shared.gradients[d][c * P + q] = sum;
        }
    }

#ifdef __CUDA_ARCH__
    // The device path of each function of the interface (GPUMF_DEVICE_OR_HOST dispatches).

    /// read_dof_values() on the GPU.
    __device__ void
    device_read_dof_values(const Number *src)
    {
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p = internal::owned_point(layout, thread, s);
          if (is_dof(p))
            for (unsigned int c = 0; c < n_components; ++c)
              shared.values[c * P + p] = internal::read_dof(src, apply_code(local_dof(c, p)), data.constraint_rows);
        }
      if (data.hanging_masks == nullptr)
        __syncthreads();
      else if (__syncthreads_or(hanging_mask() != 0)) // (a barrier too) some cell of the block
        resolve_hanging_nodes<false>();
    }

    /// read_dof_values_plain() on the GPU.
    __device__ void
    device_read_dof_values_plain(const Number *src)
    {
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p = internal::owned_point(layout, thread, s);
          if (is_dof(p))
            for (unsigned int c = 0; c < n_components; ++c)
              shared.values[c * P + p] = internal::read_only(src + plain_index(local_dof(c, p)));
        }
      __syncthreads();
    }

    /// set_unit_dof_values() on the GPU.
    __device__ void
    device_set_unit_dof_values(const unsigned int i)
    {
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p = internal::owned_point(layout, thread, s);
          if (is_dof(p))
            for (unsigned int c = 0; c < n_components; ++c)
              shared.values[c * P + p] = local_dof(c, p) == i ? Number(1) : Number(0);
        }
      __syncthreads();
    }

    /// distribute_local_to_global() on the GPU.
    template <typename F0>
    __device__ void
    device_distribute_local_to_global(Number *dst, const F0 &add_to) const
    {
      // a cell on the fine side of a hanging face adds the transposed interpolation into the
      // coarse DoFs it read (in place: the values are spent after this)
      if (data.hanging_masks != nullptr && __syncthreads_or(hanging_mask() != 0))
        resolve_hanging_nodes<true>();
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p = internal::owned_point(layout, thread, s);
          if (is_dof(p))
            for (unsigned int c = 0; c < n_components; ++c)
              {
                const unsigned int code = apply_code(local_dof(c, p));
                if (!data.use_coloring)
                  internal::distribute_dof(code, shared.values[c * P + p], data.constraint_rows, add_to);
                else if (!internal::is_constraint_row(code))
                  add(dst, code, shared.values[c * P + p]);
              }
        }
      if (data.use_coloring && data.has_constraint_rows)
        {
          __syncthreads();
          if (is_first_thread() && applied_codes_have_rows())
            for_each_dof([&](const unsigned int c, const unsigned int p) {
              const unsigned int code = apply_code(local_dof(c, p));
              if (internal::is_constraint_row(code))
                internal::distribute_dof(code, shared.values[c * P + p], data.constraint_rows, add_to);
            });
          __syncthreads(); // the scratch may be reused after this
        }
    }

    /// set_dof_values() on the GPU: each thread its DoFs.
    __device__ void
    device_set_dof_values(Number *dst) const
    {
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p = internal::owned_point(layout, thread, s);
          if (is_dof(p))
            for (unsigned int c = 0; c < n_components; ++c)
              {
                const unsigned int index = code(local_dof(c, p));
                if (shared.writes && index != internal::no_dof && !internal::is_constraint_row(index))
                  dst[index] = shared.values[c * P + p];
              }
        }
    }

    /// distribute_local_diagonal() on the GPU.
    template <typename F0>
    __device__ void
    device_distribute_local_diagonal(const unsigned int i, Number *diagonal, const F0 &add_column) const
    {
      if (has_constraint_rows())
        {
          if (is_first_thread())
            add_column();
        }
      else
        for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
          {
            const unsigned int p = internal::owned_point(layout, thread, s);
            if (is_dof(p))
              for (unsigned int c = 0; c < n_components; ++c)
                if (local_dof(c, p) == i)
                  add(diagonal, dof_index(c, p), shared.values[c * P + p]);
          }
      __syncthreads();
    }

    /// evaluate() on the GPU.
    __device__ void
    device_evaluate(const bool evaluate_val, const bool evaluate_grad)
    {
      require_full_scratch();
      if constexpr (by_lines)
        {
          lines_evaluate(evaluate_val, evaluate_grad);
          return;
        }
      if ((evaluate_val || evaluate_grad) && !data.collocation)
        {
          pass<0, false>(shared.shape_values);
          if constexpr (dim > 1)
            pass<1, false>(shared.shape_values);
          if constexpr (dim > 2)
            pass<2, false>(shared.shape_values);
        }
      if (evaluate_grad)
        {
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            {
              const unsigned int q = internal::owned_point(layout, thread, s);
              for (unsigned int c = 0; c < n_components; ++c)
                {
                  Number reference[dim];
#  pragma unroll
                  for (unsigned int e = 0; e < dim; ++e)
                    {
                      const unsigned int stride = internal::ipow(nq, e);
                      const unsigned int i_e    = (q / stride) % nq;
                      const Number      *line   = shared.values + c * P + q - i_e * stride;
                      reference[e]              = internal::tensor::line_dot<nq, false, nq>(
                        shared.co_shape_gradients, i_e, [&](const unsigned int l) { return line[l * stride]; });
                    }
                  store_real_gradient(c, q, reference);
                }
            }
          __syncthreads();
        }
    }

    /// integrate() on the GPU.
    __device__ void
    device_integrate(const bool integrate_val, const bool integrate_grad)
    {
      require_full_scratch();
      __syncthreads();
      if constexpr (by_lines)
        {
          lines_integrate(integrate_val, integrate_grad);
          return;
        }
      if (integrate_grad)
        {
          Number sum[layout.points_per_thread()][n_components];
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            {
              const unsigned int q = internal::owned_point(layout, thread, s);
              for (unsigned int c = 0; c < n_components; ++c)
                {
                  Number t = integrate_val ? shared.values[c * P + q] : Number();
#  pragma unroll
                  for (unsigned int e = 0; e < dim; ++e)
                    {
                      const unsigned int stride = internal::ipow(nq, e);
                      const unsigned int i_e    = (q / stride) % nq;
                      const Number      *line   = shared.gradients[e] + c * P + q - i_e * stride;
                      t                         = internal::tensor::line_dot<nq, true, nq>(
                        shared.co_shape_gradients, i_e, [&](const unsigned int l) { return line[l * stride]; }, t);
                    }
                  sum[s][c] = t;
                }
            }
          __syncthreads();
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            for (unsigned int c = 0; c < n_components; ++c)
              shared.values[c * P + internal::owned_point(layout, thread, s)] = sum[s][c];
          __syncthreads();
        }
      if ((integrate_val || integrate_grad) && !data.collocation)
        {
          if constexpr (dim > 2)
            pass<2, true>(shared.shape_values);
          if constexpr (dim > 1)
            pass<1, true>(shared.shape_values);
          pass<0, true>(shared.shape_values);
        }
    }

    /**
     * The first point of the line along @p direction that thread (a, b) of a cell with a column of
     * points per thread takes in a line pass: along x the line at (y, z) = (a, b), along y the one
     * at (x, z) = (a, b), along z its own column (x, y) = (a, b).
     */
    template <unsigned int direction>
    __device__ unsigned int
    line_start() const
    {
      const unsigned int a = thread.x, b = thread.y;
      return direction == 0 ? nq * (a + nq * b) : direction == 1 ? a + nq * nq * b : a + nq * b;
    }

    /**
     * The n_out x n_in matrix of a line pass (@p transpose: the transpose of the table at @p M, of
     * leading dimension @p ld), in registers where it has at most 25 entries: read once for all
     * components (and, the derivative, all three directions), where the loads through @p M would
     * repeat after every store to the scratch (the tables may lie in global memory: the compiler
     * cannot keep them); larger ones are read through @p M.
     */
    template <unsigned int n_out, unsigned int n_in, bool transpose, unsigned int ld>
    struct LineMatrix
    {
      static constexpr bool in_registers = n_out * n_in <= 25;
      const Number         *M;
      Number                entries[in_registers ? n_out * n_in : 1];

      __device__ explicit LineMatrix(const Number *M_)
        : M(M_)
      {
        if constexpr (in_registers)
#  pragma unroll
          for (unsigned int o = 0; o < n_out; ++o)
#  pragma unroll
            for (unsigned int l = 0; l < n_in; ++l)
              entries[o * n_in + l] = M[internal::tensor::entry<transpose, ld>(o, l)];
      }

      __device__ void
      apply(const Number (&in)[n_in], Number (&out)[n_out]) const
      {
        if constexpr (in_registers)
          internal::tensor::apply_line<n_in, n_out, false, n_in>(entries, in, out);
        else
          internal::tensor::apply_line<n_in, n_out, transpose, ld>(M, in, out);
      }
    };

    /**
     * One direction of sum factorization by lines (by_lines): each thread loads the whole line
     * along @p direction that line_start() gives it, of each component, into registers, applies
     * the 1D matrix and stores the line in place; a point lies on one line of the pass, so no
     * other thread reads or writes it until the barrier at the end. One shared-memory load and
     * store a point and pass, where the earlier passes loaded a whole line (and the matrix row)
     * for each point.
     */
    template <unsigned int direction, bool transpose>
    __device__ void
    line_pass(const Number *matrix, Number *array)
    {
      constexpr unsigned int stride = internal::ipow(nq, direction);
      constexpr unsigned int n_in = transpose ? nq : nd, n_out = transpose ? nd : nq;
      const unsigned int     start = line_start<direction>();
      // the directions after this one hold the DoF grid (n_dofs_1d) until the passes reach them
      const bool active = direction == 0 ? thread.x < nd && thread.y < nd : direction == 1 ? thread.y < nd : true;
      const LineMatrix<n_out, n_in, transpose, nd> m(matrix);
      if (active)
#  pragma unroll
        for (unsigned int c = 0; c < n_components; ++c)
          {
            Number in[n_in], out[n_out];
#  pragma unroll
            for (unsigned int l = 0; l < n_in; ++l)
              in[l] = array[c * P + start + l * stride];
            m.apply(in, out);
#  pragma unroll
            for (unsigned int i = 0; i < n_out; ++i)
              array[c * P + start + i * stride] = out[i];
          }
      __syncthreads();
    }

    /**
     * The reference derivatives (@p transpose: their transposes) by lines: for each direction e,
     * each thread's line along e (line_start()) of the array from(e), all components, through
     * the 1D derivative matrix into the same line of gradient array e. A point lies on one line
     * of each direction: no other thread touches it until the caller's barrier.
     */
    template <bool transpose, typename From>
    __device__ void
    derivative_lines(const From &from)
    {
      const LineMatrix<nq, nq, transpose, nq> derivative(shared.co_shape_gradients);
      const unsigned int                      start[3] = {line_start<0>(), line_start<1>(), line_start<2>()};
#  pragma unroll
      for (unsigned int e = 0; e < dim; ++e)
#  pragma unroll
        for (unsigned int c = 0; c < n_components; ++c)
          {
            const unsigned int stride = internal::ipow(nq, e);
            const Number      *line   = from(e) + c * P + start[e];
            Number             in[nq], out[nq];
#  pragma unroll
            for (unsigned int l = 0; l < nq; ++l)
              in[l] = line[l * stride];
            derivative.apply(in, out);
#  pragma unroll
            for (unsigned int i = 0; i < nq; ++i)
              shared.gradients[e][c * P + start[e] + i * stride] = out[i];
          }
    }

    /// evaluate() by lines (by_lines): the interpolation by line passes; the reference
    /// derivatives along x, y and z by lines (line_start()) into the three gradient arrays, then
    /// each thread maps its own column's points to real space.
    __device__ void
    lines_evaluate(const bool evaluate_val, const bool evaluate_grad)
    {
      // (the lines cross the other threads' points: their last reads, e.g. get_value(q) after
      // an integrate(), come first)
      __syncthreads();
      if ((evaluate_val || evaluate_grad) && !data.collocation)
        {
          line_pass<0, false>(shared.shape_values, shared.values);
          line_pass<1, false>(shared.shape_values, shared.values);
          line_pass<2, false>(shared.shape_values, shared.values);
        }
      if (!evaluate_grad)
        return;
      derivative_lines<false>([&](unsigned int) { return shared.values; });
      __syncthreads();
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int q = internal::owned_point(layout, thread, s);
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
            {
              Number reference[dim];
#  pragma unroll
              for (unsigned int e = 0; e < dim; ++e)
                reference[e] = shared.gradients[e][c * P + q];
              store_real_gradient(c, q, reference);
            }
        }
      __syncthreads();
    }

    /// integrate() by lines (by_lines): the transposed reference derivatives by lines in place in
    /// the three gradient arrays (a point lies on one line of each), then each thread sums them
    /// into the values of its own column's points; the transposed interpolation by line passes.
    __device__ void
    lines_integrate(const bool integrate_val, const bool integrate_grad)
    {
      if (integrate_grad)
        {
          derivative_lines<true>([&](const unsigned int e) { return shared.gradients[e]; });
          __syncthreads();
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            {
              const unsigned int q = internal::owned_point(layout, thread, s);
#  pragma unroll
              for (unsigned int c = 0; c < n_components; ++c)
                {
                  Number sum = integrate_val ? shared.values[c * P + q] : Number(0);
#  pragma unroll
                  for (unsigned int e = 0; e < dim; ++e)
                    sum += shared.gradients[e][c * P + q];
                  shared.values[c * P + q] = sum;
                }
            }
          __syncthreads();
        }
      if ((integrate_val || integrate_grad) && !data.collocation)
        {
          line_pass<2, true>(shared.shape_values, shared.values);
          line_pass<1, true>(shared.shape_values, shared.values);
          line_pass<0, true>(shared.shape_values, shared.values);
        }
    }

    /**
     * The interpolation of internal/hanging_nodes.h on the cell's DoF values in shared memory
     * (@p transpose: its transpose), a sweep per direction, each thread on its own points.
     * Called by all threads of the block (barriers); cells without a mask keep their values.
     */
    template <bool transpose>
    __device__ void
    resolve_hanging_nodes() const
    {
      constexpr unsigned int max_points = dim == 3 ? nq : 1;
      const unsigned short   mask       = hanging_mask();
      const bool             active     = (mask & internal::hanging::kind_bits) != 0;
      for (int sweep = 0; sweep < dim; ++sweep)
        {
          const unsigned int d        = transpose ? dim - 1 - sweep : sweep;
          const unsigned int d_stride = d == 0 ? 1 : d == 1 ? nq : nq * nq;
          const Number      *W        = data.hanging_weights + (internal::mask_bit(mask, d) ? 0 : nd * nd);
          Number             result[n_components][max_points];
          bool               on[max_points];
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            {
              const unsigned int p    = internal::owned_point(layout, thread, s);
              const unsigned int i[3] = {p % nq, (p / nq) % nq, dim > 2 ? p / (nq * nq) : 0};
              on[s]                   = active && is_dof(p) && internal::hanging_in_sweep<dim>(mask, d, i, nd);
              if (on[s])
                for (unsigned int c = 0; c < n_components; ++c)
                  result[c][s] = internal::hanging_line_value<transpose>(
                    W, shared.values + c * P + p - i[d] * d_stride, i[d], nd, d_stride);
            }
          __syncthreads();
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            if (on[s])
              for (unsigned int c = 0; c < n_components; ++c)
                shared.values[c * P + internal::owned_point(layout, thread, s)] = result[c][s];
          __syncthreads();
        }
    }

    /**
     * One direction of sum factorization, in place on shared.values (all components):
     * along @p direction, n_dofs_1d -> n_q values with the n_q x n_dofs_1d matrix @p matrix,
     * or n_q -> n_dofs_1d with its transpose. Directions before it hold n_q points, after it
     * n_dofs_1d.
     */
    template <unsigned int direction, bool transpose>
    __device__ void
    pass(const Number *matrix)
    {
      constexpr unsigned int stride = internal::ipow(nq, direction);
      constexpr unsigned int n_in = transpose ? nq : nd, n_out = transpose ? nd : nq;
      Number                 result[layout.points_per_thread()][n_components];
      bool                   active[layout.points_per_thread()];
#  pragma unroll
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        {
          const unsigned int p    = internal::owned_point(layout, thread, s);
          unsigned int       rest = p;
          active[s]               = true;
#  pragma unroll
          for (unsigned int e = 0; e < dim; ++e, rest /= nq)
            if (e > direction && rest % nq >= nd)
              active[s] = false;
          const unsigned int i = (p / stride) % nq;
          active[s]            = active[s] && i < n_out;
          if (active[s])
#  pragma unroll
            for (unsigned int c = 0; c < n_components; ++c)
              {
                const Number *line = shared.values + c * P + p - i * stride;
                result[s][c] = internal::tensor::line_dot<n_in, transpose, nd>(matrix, i, [&](const unsigned int l) {
                  return line[l * stride];
                });
              }
        }
      __syncthreads();
#  pragma unroll
      for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
        if (active[s])
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
            shared.values[c * P + internal::owned_point(layout, thread, s)] = result[s][c];
      __syncthreads();
    }
#else
    // The host reference of each function of the interface (GPUMF_DEVICE_OR_HOST dispatches).

    /// read_dof_values() on the host: the naive reference.
    void
    host_read_dof_values(const Number *src)
    {
      host_collective([&]() {
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          shared.dof_values[c * P + p] = internal::read_dof(src, apply_code(local_dof(c, p)), data.constraint_rows);
        });
        for (unsigned int c = 0; c < n_components; ++c)
          internal::resolve_hanging_nodes_reference<dim, false>(
            hanging_mask(), nd, nq, data.hanging_weights, shared.dof_values + c * P);
      });
    }

    /// read_dof_values_plain() on the host: the naive reference.
    void
    host_read_dof_values_plain(const Number *src)
    {
      host_collective([&]() {
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          shared.dof_values[c * P + p] = src[plain_index(local_dof(c, p))];
        });
      });
    }

    /// set_unit_dof_values() on the host: the naive reference.
    void
    host_set_unit_dof_values(const unsigned int i)
    {
      host_collective([&]() {
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          shared.dof_values[c * P + p] = local_dof(c, p) == i ? Number(1) : Number(0);
        });
      });
    }

    /// distribute_local_to_global() on the host: the naive reference.
    template <typename F0>
    void
    host_distribute_local_to_global(Number *dst, const F0 &add_to) const
    {
      host_collective([&]() {
        // a cell with a hanging face on a copy: the cell's values stay as they are
        const unsigned short mask = hanging_mask() & internal::hanging::kind_bits;
        std::vector<Number> copy(mask != 0 ? shared.dof_values : nullptr,
                                 mask != 0 ? shared.dof_values + n_components * P : nullptr);
        for (unsigned int c = 0; c < n_components && mask != 0; ++c)
          internal::resolve_hanging_nodes_reference<dim, true>(mask, nd, nq, data.hanging_weights, copy.data() + c * P);
        const Number *values = mask != 0 ? copy.data() : shared.dof_values;
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          internal::distribute_dof(apply_code(local_dof(c, p)), values[c * P + p], data.constraint_rows, add_to);
        });
      });
    }

    /// distribute_local_diagonal() on the host: the naive reference.
    template <typename F0>
    void
    host_distribute_local_diagonal(const unsigned int i, Number *diagonal, const F0 &add_column) const
    {
      host_collective(add_column);
    }

    /// evaluate() on the host: the naive reference.
    void
    host_evaluate(const bool evaluate_val, const bool evaluate_grad)
    {
      if (!(evaluate_val || evaluate_grad))
        return;
      host_collective([&]() {
        for (unsigned int q = 0; q < n_q_points; ++q)
          for (unsigned int c = 0; c < n_components; ++c)
            {
              Number value = 0, reference[dim] = {};
              for_each_dof_of_component([&](const unsigned int p) {
                Number phi, grad_phi[dim];
                host_basis(p, q, phi, grad_phi);
                const Number u = shared.dof_values[c * P + p];
                value += phi * u;
                for (unsigned int e = 0; e < dim; ++e)
                  reference[e] += grad_phi[e] * u;
              });
              shared.values[c * P + q] = value;
              store_real_gradient(c, q, reference);
            }
      });
    }

    /// integrate() on the host: the naive reference.
    void
    host_integrate(const bool integrate_val, const bool integrate_grad)
    {
      if (!(integrate_val || integrate_grad))
        {
          internal::host_barrier(); // the GPU's integrate() starts with one in any case
          return;
        }
      host_collective([&]() {
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          Number sum = 0;
          for (unsigned int q = 0; q < n_q_points; ++q)
            {
              Number phi, grad_phi[dim];
              host_basis(p, q, phi, grad_phi);
              if (integrate_val)
                sum += phi * shared.values[c * P + q];
              if (integrate_grad)
                for (unsigned int e = 0; e < dim; ++e)
                  sum += grad_phi[e] * shared.gradients[e][c * P + q];
            }
          shared.dof_values[c * P + p] = sum;
        });
      });
    }

    template <typename F>
    static void
    for_each_dof_of_component(const F &f)
    {
      for (unsigned int p = 0; p < P; ++p)
        if (is_dof(p))
          f(p);
    }

    /// Tensor-product basis function at padded DoF point @p p and its reference gradient at
    /// quadrature point @p q.
    void
    host_basis(const unsigned int p, const unsigned int q, Number &phi, Number (&grad_phi)[dim]) const
    {
      phi = 1;
      for (unsigned int e = 0; e < dim; ++e)
        grad_phi[e] = 1;
      unsigned int pp = p, qq = q;
      for (unsigned int d = 0; d < dim; ++d, pp /= nq, qq /= nq)
        {
          const unsigned int entry = (qq % nq) * nd + pp % nq;
          const Number value = shared.shape_values[entry];
          phi *= value;
          for (unsigned int e = 0; e < dim; ++e)
            grad_phi[e] *= (e == d ? shared.shape_gradients[entry] : value);
        }
    }

    /// set_dof_values() on the host.
    void
    host_set_dof_values(Number *dst) const
    {
      host_collective([&]() {
        for_each_dof([&](const unsigned int c, const unsigned int p) {
          const unsigned int index = code(local_dof(c, p));
          if (index != internal::no_dof && !internal::is_constraint_row(index))
            dst[index] = shared.dof_values[c * P + p];
        });
      });
    }

    /// A step of the whole cell: between two barriers of the cell's threads, on its first thread.
    template <typename F>
    void
    host_collective(const F &f) const
    {
      internal::host_barrier();
      if (is_first_thread())
        f();
      internal::host_barrier();
    }
#endif
  };
} // namespace gpumf

#endif
