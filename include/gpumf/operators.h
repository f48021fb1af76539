/**
 * @file gpumf/operators.h
 * Ready-made matrix-free operators on gpumf::MatrixFree: mass, Laplace and Helmholtz
 * (-div(kappa grad u) + a u), scalar or vector-valued, with their diagonal computed on the
 * backend. deal.II equivalents: MatrixFreeOperators::MassOperator, LaplaceOperator
 * (matrix_free/operators.h). Include from a .cu file (the kernels are instantiated there).
 */
#ifndef gpumf_operators_h
#define gpumf_operators_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/diagonal.h>
#include <gpumf/internal/tensor_product_kernels.cuh>
#include <gpumf/local_matrix_operator.h>
#include <gpumf/matrix_free.h>
#include <gpumf/operator_base.h>
#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/lac/diagonal_matrix.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace gpumf
{
  namespace internal
  {
    /**
     * The cell operation of CoefficientOperator: a cell_loop() functor (apply) and a
     * diagonal_loop() functor (one column of the cell matrix). Coefficients are arrays over
     * all quadrature points (local_q_point_id order); nullptr stands for 1.
     *
     * With @p columns (the ready operators in 3D) a thread owns a column of points; on the
     * GPU the cell operation then runs register-tiled (internal/tensor_product_kernels.cuh),
     * reading the merged geometry @p metric on curved meshes (make() requires it there). Without
     * @p columns, and on the host, it
     * runs FEEvaluation (a thread per point up to n_q = 10 without @p columns): the host
     * reference, and the path of user functors the benchmark compares with.
     */
    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components_,
              typename Number,
              bool with_values,
              bool with_gradients,
              bool columns = (dim == 3)>
    struct CoefficientCellOperator
    {
      using FEEval = FEEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number, columns>;

      static constexpr bool thread_per_column = columns;

      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;
      static constexpr unsigned int n_q_points   = FEEval::n_q_points;
      static constexpr unsigned int n_components = n_components_;

      /**
       * Shared memory of a cell on the GPU, in Numbers (cell_loop()'s scratch), for the
       * register-tiled path: its three buffers, or the DoF values of all components where more
       * (the diagonal), and a padding that keeps the cells sharing a warp off each other's
       * shared-memory banks: 4 Numbers at n_q = 3, else 2. Measured with the kernel lab
       * (doc/performance.md, "The kernel lab", H200): FEEvaluation's 4 n_q^3 a cell gave BP5
       * p=4 34.3 against 40.7 GDoF/s; no padding BP3 p=4 16.1 against 17.2, BP5 p=5 42.5 against
       * 44.3; at n_q = 3 (BP5 p=2) a padding of 2 gave 21.0, of 4 23.6.
       */
      static constexpr unsigned int device_scratch_padding = n_q_points_1d == 3 ? 4 : 2;
      static constexpr unsigned int device_scratch_per_cell =
        dim == 3 && columns ? (3 * internal::register_tiled_buffer(n_q_points_1d) >
                                   n_components_ * n_q_points_1d * n_q_points_1d * n_q_points_1d ?
                                 3 * internal::register_tiled_buffer(n_q_points_1d) :
                                 n_components_ * n_q_points_1d * n_q_points_1d * n_q_points_1d) +
                                device_scratch_padding :
                              0;

      const Number *value_coefficient;
      const Number *gradient_coefficient;
      /// Curved meshes, GPU, register-tiled path: the merged geometry (PointData), else nullptr.
      const Number *metric        = nullptr;
      std::size_t   metric_stride = 0;

      /// Numbers of the 1D matrices the register-tiled path carries (1 where unused).
      static constexpr unsigned int n_table = dim == 3 && columns ? n_q_points_1d * (n_dofs_1d + n_q_points_1d) : 1;
      /// The register-tiled path (3D, GPU): the 1D matrices of the MatrixFree object the functor
      /// was made for (make()), shape values then collocation derivative: kernel parameters,
      /// so that the z contractions read them as constants.
      Number tables[n_table] = {};
      /// The register-tiled path: the 1D quadrature weights over the first, w_k / w_0 (the
      /// weight of point (i, j, k) is that of (i, j, 0) times z_weights[k]).
      Number z_weights[dim == 3 && columns ? n_q_points_1d : 1] = {};
      bool   has_tables                                         = false;

      /**
       * The functor for cell_loop() and diagonal_loop() on @p mf (its quadrature: the functor
       * carries the 1D matrices), with the coefficients @p a and @p kappa per quadrature point
       * (local_q_point_id order; nullptr: 1) and the merged geometry @p metric (internal::PointData;
       * needed in 3D on the GPU where the geometry is stored per point: the operator's
       * cell_operator() carries it, a functor made here without it throws ExcNotSupported).
       */
      static CoefficientCellOperator
      make(const MatrixFree<dim, Number> &mf,
           const Number                  *a,
           const Number                  *kappa,
           const Number                  *metric        = nullptr,
           const std::size_t              metric_stride = 0)
      {
        CoefficientCellOperator op{a, kappa, metric, metric_stride};
        if constexpr (dim == 3 && columns)
          AssertThrow(mf.backend() != Backend::cuda || mf.has_affine_geometry() || metric != nullptr ||
                        mf.n_cells() == 0,
                      ExcNotSupported("gpumf: CellOperator::make() on a mesh with geometry per quadrature point "
                                      "(curved cells or GeometryStorage::per_point) needs the merged geometry "
                                      "(metric) on the GPU: use the operator's cell_operator(), which carries it; "
                                      "CellOperator::make(matrix_free, a, kappa) alone serves affine meshes."));
        if constexpr (dim == 3 && columns)
          if (mf.n_colors() > 0)
            {
              const auto data = mf.get_data(0);
              copy(
                Backend::host, op.tables, mf.backend(), data.shape_values, n_q_points_1d * n_dofs_1d * sizeof(Number));
              copy(Backend::host,
                   op.tables + n_q_points_1d * n_dofs_1d,
                   mf.backend(),
                   data.co_shape_gradients,
                   n_q_points_1d * n_q_points_1d * sizeof(Number));
              constexpr unsigned int slab = n_q_points_1d * n_q_points_1d;
              Number                 w[n_q_points_1d * slab];
              copy(Backend::host, w, mf.backend(), data.quadrature_weights, sizeof(w));
              for (unsigned int k = 0; k < n_q_points_1d; ++k)
                op.z_weights[k] = w[k * slab] / w[0];
              op.has_tables = true;
            }
        return op;
      }

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst) const
      {
        check_tables();
#ifdef __CUDA_ARCH__
        if constexpr (dim == 3 && columns)
          {
            // each thread reads and adds its column of DoFs itself, no shared-memory staging; a DoF
            // with a constraint row is read through its row (read_dof) like any other
            const unsigned int  tx = threadIdx.x, ty = threadIdx.y;
            const bool          owner = tx < n_dofs_1d && ty < n_dofs_1d;
            const unsigned int *codes =
              data->local_to_global + std::size_t(data->row_start + cell) * n_components * n_local_dofs;
            constexpr unsigned int slab = n_dofs_1d * n_dofs_1d;
            Number                 u[n_components][n_q_points_1d];
            if (owner)
#  pragma unroll
              for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
                for (unsigned int k = 0; k < n_dofs_1d; ++k)
                  u[c][k] = read_dof(src,
                                     read_only(codes + c * n_local_dofs + tx + n_dofs_1d * ty + k * slab),
                                     data->constraint_rows);
            tiled(cell, *data, *shared, u);
            // written: a DoF without a row at once; a row's entries atomically with atomics, and
            // with colors (no atomics: bitwise repeatable) by the cell's first thread, in DoF order,
            // after every thread's direct writes (a row's master can be a DoF of the cell too)
            const bool atomic = !data->use_coloring;
            if (owner)
#  pragma unroll
              for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
                for (unsigned int k = 0; k < n_dofs_1d; ++k)
                  {
                    const unsigned int code = read_only(codes + c * n_local_dofs + tx + n_dofs_1d * ty + k * slab);
                    if (!is_constraint_row(code))
                      add_value(dst, code, u[c][k], atomic, shared->writes);
                    else if (atomic)
                      distribute_dof(code,
                                     u[c][k],
                                     data->constraint_rows,
                                     [&](const unsigned int index, const Number value) {
                                       add_value(dst, index, value, true, shared->writes);
                                     });
                  }
            if (!atomic && data->has_constraint_rows) // (the same for all cells of the launch)
              {
                constexpr unsigned int nq = n_q_points_1d, P = nq * nq * nq;
                const bool cell_rows = read_only(data->cell_has_constraint_rows + data->row_start + cell) != 0;
                __syncthreads(); // the tiled operation reads the scratch no more
                if (cell_rows && owner)
#  pragma unroll
                  for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      shared->values[c * P + tx + nq * ty + k * nq * nq] = u[c][k];
                __syncthreads();
                if (cell_rows && tx == 0 && ty == 0)
                  for (unsigned int c = 0; c < n_components; ++c)
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      for (unsigned int j = 0; j < n_dofs_1d; ++j)
                        for (unsigned int i = 0; i < n_dofs_1d; ++i)
                          {
                            const unsigned int code =
                              read_only(codes + c * n_local_dofs + i + n_dofs_1d * j + k * slab);
                            if (is_constraint_row(code))
                              distribute_dof(code,
                                             shared->values[c * P + i + nq * j + k * nq * nq],
                                             data->constraint_rows,
                                             [&](const unsigned int index, const Number value) {
                                               add_value(dst, index, value, false, shared->writes);
                                             });
                          }
              }
            return;
          }
#endif
        FEEval phi(cell, data, shared);
        phi.read_dof_values(src);
        apply(phi, cell, data);
        phi.distribute_local_to_global(dst);
      }

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const unsigned int                            i,
                 Number                                       *diagonal) const
      {
        check_tables();
#ifdef __CUDA_ARCH__
        if constexpr (dim == 3 && columns)
          {
            {
              FEEval phi(cell, data, shared);
              phi.set_unit_dof_values(i);
            }
            through_shared(cell, data, shared);
            FEEval phi(cell, data, shared);
            phi.distribute_local_diagonal(i, diagonal);
            return;
          }
#endif
        FEEval phi(cell, data, shared);
        phi.set_unit_dof_values(i);
        apply(phi, cell, data);
        phi.distribute_local_diagonal(i, diagonal);
      }

    private:
      /// The register-tiled path needs the tables of make(); the host says so where they are missing.
      __host__ __device__ void
      check_tables() const
      {
        if constexpr (dim == 3 && columns)
          {
#ifdef __CUDA_ARCH__
            if (!has_tables)
              __trap();
#else
            AssertThrow(has_tables,
                        ExcNotSupported(
                          "gpumf: the cell functor of a ready operator (CoefficientOperator::CellOperator) "
                          "in 3D must be made by CellOperator::make(matrix_free, a, kappa) or by the "
                          "operator's cell_operator(): it carries the 1D matrices of its MatrixFree "
                          "object."));
#endif
          }
      }

#ifdef __CUDA_ARCH__
      /// The register-tiled cell operation on the DoF values @p u of the thread's column (all components).
      __device__ void
      tiled(const unsigned int                            cell,
            const typename MatrixFree<dim, Number>::Data &data,
            const SharedData<dim, Number>                &shared,
            Number (&u)[n_components][n_q_points_1d]) const
      {
        constexpr unsigned int                                          nq = n_q_points_1d;
        const unsigned int                                              tx = threadIdx.x, ty = threadIdx.y;
        const CoefficientPoint<nq, Number, with_values, with_gradients> point(
          data,
          cell,
          PointData<Number>{metric, metric_stride, value_coefficient, gradient_coefficient},
          z_weights,
          tx,
          ty);
#  pragma unroll
        for (unsigned int c = 0; c < n_components; ++c)
          RegisterTiled<n_dofs_1d, nq, Number, with_values, with_gradients>::apply(u[c],
                                                                                   data.collocation,
                                                                                   shared.shape_values,
                                                                                   shared.co_shape_gradients,
                                                                                   tables,
                                                                                   shared.values,
                                                                                   tx,
                                                                                   ty,
                                                                                   point);
      }

      /// The register-tiled operation on the DoF values in shared->values, in place.
      __device__ void
      through_shared(const unsigned int                            cell,
                     const typename MatrixFree<dim, Number>::Data *data,
                     SharedData<dim, Number>                      *shared) const
      {
        constexpr unsigned int nq = n_q_points_1d, P = nq * nq * nq;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y;
        const bool             owner = tx < n_dofs_1d && ty < n_dofs_1d;
        Number                 u[n_components][nq];
        if (owner)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < n_dofs_1d; ++k)
              u[c][k] = shared->values[c * P + tx + nq * ty + k * nq * nq];
        tiled(cell, *data, *shared, u); // (the tiled operation uses all of the scratch)
        __syncthreads();                // the scratch is read no more
        if (owner)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < n_dofs_1d; ++k)
              shared->values[c * P + tx + nq * ty + k * nq * nq] = u[c][k];
        __syncthreads(); // the distribution may read every thread's column
      }
#endif

      /// FEEvaluation's cell operation: the host reference, 2D, and the thread-per-point functor.
      __host__ __device__ void
      apply(FEEval &phi, const unsigned int cell, const typename MatrixFree<dim, Number>::Data *data) const
      {
        phi.evaluate(with_values, with_gradients);
        const unsigned int first = (data->row_start + cell) * n_q_points;
        phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
          if constexpr (with_values)
            {
              auto value = p->get_value(q);
              if (value_coefficient != nullptr)
                value *= value_coefficient[first + q];
              p->submit_value(value, q);
            }
          if constexpr (with_gradients)
            {
              auto gradient = p->get_gradient(q);
              if (gradient_coefficient != nullptr)
                gradient *= gradient_coefficient[first + q];
              p->submit_gradient(gradient, q);
            }
        });
        phi.integrate(with_values, with_gradients);
      }
    };
  } // namespace internal

  /**
   * The operator of the bilinear form (kappa grad u, grad v) + (a u, v) (terms selected by
   * @p with_gradients, @p with_values) on a gpumf::MatrixFree, with Dirichlet rows as the
   * identity (as deal.II's MatrixFreeOperators::Base). kappa and a are 1 unless set, per
   * quadrature point or from a deal.II Function. Use through the aliases MassOperator,
   * LaplaceOperator and HelmholtzOperator. With n_components > 1 it acts on each component
   * (vector mass matrix, vector Laplacian).
   *
   * Works with deal.II's SolverCG/SolverGMRES, DiagonalMatrix and PreconditionChebyshev on
   * gpumf::Vector: vmult(), Tvmult(), m(), n(), and the diagonal from compute_diagonal().
   *
   * Implementation (AdditionalData::implementation): sum factorization on the MatrixFree
   * object, or element matrices through a LocalMatrixOperator; `automatic` takes the one
   * gpumf::CostModel predicts to be faster (element matrices where one matrix serves all
   * cells or the degree is low). Element matrices that differ among cells are computed on the
   * fly (LocalMatrixOperator::Storage::on_the_fly) instead of stored where the coefficients are
   * constant and the model predicts that faster (affine geometry). implementation() says which
   * is in use.
   */
  template <int dim,
            int fe_degree,
            int n_q_points_1d,
            int n_components,
            typename Number,
            bool with_values,
            bool with_gradients>
  class CoefficientOperator : public MatrixFreeOperators::Base<dim, Vector<Number>>
  {
    using Base = MatrixFreeOperators::Base<dim, Vector<Number>>;

  public:
    using value_type     = Number;
    using VectorType     = Vector<Number>;
    using size_type      = typename VectorType::size_type;
    using AdditionalData = typename MatrixFree<dim, Number>::AdditionalData;
    using CellOperator   = internal::
      CoefficientCellOperator<dim, fe_degree, n_q_points_1d, n_components, Number, with_values, with_gradients>;

    /// Sets up its own MatrixFree object.
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const AdditionalData                    &additional_data = AdditionalData())
    {
      auto mf = std::make_shared<MatrixFree<dim, Number>>();
      mf->reinit(mapping, dof_handler, constraints, quad, additional_data);
      initialize(mf);
      setup              = std::make_unique<Setup>();
      setup->mapping     = mapping.clone();
      setup->dof_handler = &dof_handler;
      setup->constraints.copy_from(constraints);
      setup->quad = quad;
      setup->data = additional_data;
      choose_implementation();
    }

    /// Works on a MatrixFree object shared with others (deal.II: MatrixFreeOperators::Base::initialize).
    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free)
    {
      Base::initialize(matrix_free);
      clear_own();
      update_cell_operator();
    }

    /**
     * Works on a MatrixFree object of multigrid level @p level, the refinement-edge DoFs of
     * @p mg_constrained_dofs as Dirichlet conditions (see MatrixFreeOperators::Base).
     * Level operators use sum factorization.
     */
    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free,
               const dealii::MGConstrainedDoFs                      &mg_constrained_dofs,
               const unsigned int                                    level)
    {
      Base::initialize(matrix_free, mg_constrained_dofs, level);
      clear_own();
      update_cell_operator();
    }

    void
    clear() override
    {
      Base::clear();
      clear_own();
    }

    /// The cell functor of vmult() and compute_diagonal() (tensor-product implementation).
    const CellOperator &
    cell_operator() const
    {
      return cell_op;
    }

    /// tensor_product or local_matrix: what vmult() uses.
    Implementation
    implementation() const
    {
      return local_matrix ? Implementation::local_matrix : Implementation::tensor_product;
    }

    /// The element-matrix operator in use, or null.
    const LocalMatrixOperator<dim, Number> *
    local_matrix_operator() const
    {
      return local_matrix.get();
    }

    /// a at the quadrature points, in local_q_point_id() order.
    void
    set_value_coefficient(const std::vector<Number> &values)
    {
      static_assert(with_values, "this operator has no value term");
      set(value_coefficient, values);
      value_host = values;
      update_cell_operator();
      choose_implementation();
    }

    /// a(x) evaluated at the quadrature points now.
    void
    set_value_coefficient(const dealii::Function<dim> &a)
    {
      set_value_coefficient(evaluate(a));
    }

    /**
     * a at the quadrature points from the backend's memory: @p values holds n_cells() ×
     * n_q_points() entries of this rank in local_q_point_id() order (a serial gpumf::Vector, e.g.
     * filled by MatrixFree::evaluate_coefficients(f, src) from a solution: the Jacobian of a
     * Newton step). Copied on the backend; no host round trip unless element matrices
     * (AdditionalData::implementation other than tensor_product) need a host copy.
     */
    void
    set_value_coefficient(const VectorType &values)
    {
      static_assert(with_values, "this operator has no value term");
      set(value_coefficient, values);
      value_host = host_values_if_needed(value_coefficient);
      update_cell_operator();
      choose_implementation();
    }

    /// kappa at the quadrature points from the backend's memory (as set_value_coefficient(const VectorType &)).
    void
    set_gradient_coefficient(const VectorType &values)
    {
      static_assert(with_gradients, "this operator has no gradient term");
      set(gradient_coefficient, values);
      gradient_host = host_values_if_needed(gradient_coefficient);
      update_cell_operator();
      choose_implementation();
    }

    /// kappa at the quadrature points, in local_q_point_id() order.
    void
    set_gradient_coefficient(const std::vector<Number> &values)
    {
      static_assert(with_gradients, "this operator has no gradient term");
      set(gradient_coefficient, values);
      gradient_host = values;
      update_cell_operator();
      choose_implementation();
    }

    /// kappa(x) evaluated at the quadrature points now.
    void
    set_gradient_coefficient(const dealii::Function<dim> &kappa)
    {
      set_gradient_coefficient(evaluate(kappa));
    }

    /// dst += A src (constrained rows: dst += src), by element matrices or sum factorization.
    void
    vmult_add(VectorType &dst, const VectorType &src) const override
    {
      if (local_matrix)
        return local_matrix->vmult_add(dst, src);
      Base::vmult_add(dst, src);
    }

    /**
     * Computes the exact diagonal of the operator on the backend (each cell's matrix column
     * by column, summed over cells; constrained and refinement-edge rows 1) and its inverse.
     */
    void
    compute_diagonal() override
    {
      if (local_matrix)
        {
          local_matrix->compute_diagonal();
          this->diagonal_entries         = local_matrix->get_matrix_diagonal();
          this->inverse_diagonal_entries = local_matrix->get_matrix_diagonal_inverse();
          return;
        }
      VectorType diagonal;
      this->initialize_dof_vector(diagonal);
      this->matrix_free().diagonal_loop(cell_operator(), diagonal);
      this->set_diagonal(std::move(diagonal));
    }

  protected:
    void
    apply_add(VectorType &dst, const VectorType &src) const override
    {
      this->matrix_free().cell_loop(cell_operator(), src, dst);
    }

  private:
    /// What reinit() was given, for building element matrices.
    struct Setup
    {
      std::unique_ptr<dealii::Mapping<dim>> mapping;
      const dealii::DoFHandler<dim>        *dof_handler = nullptr;
      dealii::AffineConstraints<Number>     constraints;
      dealii::Quadrature<1>                 quad;
      AdditionalData                        data;
    };

    std::unique_ptr<Setup>                            setup;
    std::shared_ptr<LocalMatrixOperator<dim, Number>> local_matrix;
    std::vector<Number>                               value_host, gradient_host;

    /// Element matrices or sum factorization, as asked or as the cost model predicts.
    void
    choose_implementation()
    {
      local_matrix.reset();
      this->diagonal_entries.reset();
      this->inverse_diagonal_entries.reset();
      const Implementation asked = setup ? setup->data.implementation : Implementation::tensor_product;
      AssertThrow(setup || asked != Implementation::local_matrix,
                  ExcNotSupported("local-matrix operators need reinit() with a mapping, not initialize()."));
      if (asked == Implementation::tensor_product)
        return;
      const CostModel model = CostModel::of(this->matrix_free().backend());
      CellTraffic     cell{dim,
                       fe_degree,
                       n_q_points_1d,
                       n_components,
                       with_values,
                       with_gradients,
                       unsigned(!value_host.empty() + !gradient_host.empty()),
                       this->matrix_free().has_affine_geometry(),
                       CellOperator::thread_per_column};
      // The storages the element matrices can have, predicted before any is computed (computing
      // them costs a FEValues pass per cell): one shared matrix only where every cell has the
      // same Jacobian and each coefficient is one number, on the fly only without coefficients
      // (the kernel knows the constant form only), per cell always.
      const bool constant_coefficients = value_host.empty() && gradient_host.empty();
      // one number for the coefficient at every point of every rank (none stored: 1 everywhere)
      const MPI_Comm comm            = this->matrix_free().get_vector_partitioner()->get_mpi_communicator();
      const auto     same_everywhere = [comm](const std::vector<Number> &values) {
        double low = std::numeric_limits<double>::max(), high = -low;
        for (const Number v : values)
          {
            low  = std::min(low, double(v));
            high = std::max(high, double(v));
          }
        return !(dealii::Utilities::MPI::min(low, comm) < dealii::Utilities::MPI::max(high, comm));
      };
      const bool may_share =
        this->matrix_free().has_uniform_geometry() && same_everywhere(value_host) && same_everywhere(gradient_host);
      const double tensor_product = model.tensor_product(cell);
      const double per_cell       = model.local_matrix(cell, false);
      const double shared         = may_share ? model.local_matrix(cell, true) : std::numeric_limits<double>::max();
      const double on_the_fly     = constant_coefficients ? model.on_the_fly(cell) : std::numeric_limits<double>::max();
      if (asked == Implementation::automatic && std::min({per_cell, shared, on_the_fly}) > tensor_product)
        return;

      // element matrices of the same form, coefficients at the same quadrature points
      using LM = LocalMatrixOperator<dim, Number>;
      std::vector<unsigned int> position(setup->dof_handler->get_triangulation().n_active_cells());
      unsigned int              c = 0;
      for (const auto &color : this->matrix_free().get_colored_graph())
        for (const auto &cell : color)
          position[cell->active_cell_index()] = c++;
      const unsigned int n_q = this->matrix_free().n_q_points();
      const auto         at  = [&position, n_q](const std::vector<Number> &values) -> typename LM::PointCoefficient {
        return [&position, &values, n_q](const typename LM::cell_iterator &cell,
                                         const unsigned int                q,
                                         const dealii::Point<dim> &) {
          return values.empty() ? 1. : double(values[position[cell->active_cell_index()] * n_q + q]);
        };
      };
      typename LM::AdditionalData data;
      data.matrix_free = setup->data;
      const auto build = [&]() {
        local_matrix = std::make_shared<LM>();
        local_matrix->reinit(*setup->mapping,
                             *setup->dof_handler,
                             setup->constraints,
                             setup->quad,
                             LM::coefficient_form(with_gradients ? at(gradient_host) : typename LM::PointCoefficient(),
                                                  with_values ? at(value_host) : typename LM::PointCoefficient()),
                             data);
      };
      const auto use_on_the_fly = [&]() {
        data.storage             = LM::Storage::on_the_fly;
        data.laplace_coefficient = with_gradients ? 1. : 0.;
        data.mass_coefficient    = with_values ? 1. : 0.;
        build();
      };
      // on the fly where it beats both stored matrices, else stored (shared where the matrices
      // agree), and on the fly after all where they did not agree and it beats per-cell matrices
      if (on_the_fly < std::min(per_cell, shared))
        use_on_the_fly();
      else
        {
          build();
          if (local_matrix->storage() == LM::Storage::per_cell && on_the_fly < per_cell)
            use_on_the_fly();
        }
      const double chosen = local_matrix->storage() == LM::Storage::on_the_fly ?
                              model.on_the_fly(cell) :
                              model.local_matrix(cell, local_matrix->storage() == LM::Storage::shared);
      if (asked == Implementation::automatic && chosen > tensor_product)
        local_matrix.reset();
    }

    internal::Array<Number> value_coefficient, gradient_coefficient;
    /// The merged geometry and coefficients of the register-tiled path (internal::PointData):
    /// CUDA, 3D, geometry per point; else empty.
    internal::Array<Number> metric;

    void
    clear_own()
    {
      value_coefficient.clear();
      gradient_coefficient.clear();
      metric.clear();
      value_host.clear();
      gradient_host.clear();
      setup.reset();
      local_matrix.reset();
    }

    /// The cell functor, with the 1D matrices (copied from the MatrixFree object's memory).
    CellOperator cell_op{};

    /// (Re)makes the cell functor and the merged geometry where the register-tiled path reads it.
    void
    update_cell_operator()
    {
      metric.clear();
#ifdef __CUDACC__
      if constexpr (dim == 3 && CellOperator::thread_per_column)
        if (this->matrix_free().backend() == Backend::cuda && !this->matrix_free().has_affine_geometry())
          internal::compute_metric(this->matrix_free(),
                                   with_values,
                                   with_gradients,
                                   gradient_coefficient.data(),
                                   value_coefficient.data(),
                                   metric);
#endif
      cell_op = CellOperator::make(this->matrix_free(),
                                   value_coefficient.data(),
                                   gradient_coefficient.data(),
                                   metric.data(),
                                   std::size_t(this->matrix_free().n_cells()) * this->matrix_free().n_q_points());
    }

    std::vector<Number>
    evaluate(const dealii::Function<dim> &f) const
    {
      const auto          points = this->matrix_free().get_quadrature_points();
      std::vector<Number> values(points.size());
      for (std::size_t i = 0; i < points.size(); ++i)
        {
          dealii::Point<dim> p;
          for (unsigned int d = 0; d < dim; ++d)
            p[d] = points[i][d];
          values[i] = f.value(p);
        }
      return values;
    }

    /// The number of coefficient values of this rank (one per quadrature point of its cells);
    /// throws where @p given differs, with @p hint on how to make them.
    std::size_t
    coefficient_size(const std::size_t given, const std::string &hint) const
    {
      const std::size_t n = std::size_t(this->matrix_free().n_cells()) * this->matrix_free().n_q_points();
      AssertThrow(given == n,
                  ExcNotSupported("a coefficient needs one value per quadrature point of the locally owned cells (" +
                                  std::to_string(n) + " on this rank), got " + std::to_string(given) + hint + "."));
      return n;
    }

    void
    set(internal::Array<Number> &coefficient, const std::vector<Number> &values)
    {
      coefficient_size(values.size(), "");
      coefficient.reinit(this->matrix_free().backend(), values);
    }

    void
    set(internal::Array<Number> &coefficient, const VectorType &values)
    {
      const std::size_t n = coefficient_size(values.locally_owned_size(),
                                             " local entries of a vector: reinit(n_cells() * n_q_points()) it, fill "
                                             "it in local_q_point_id() order");
      AssertThrow(values.backend() == this->matrix_free().backend(),
                  ExcNotSupported("the coefficient vector lives on another backend than the operator's MatrixFree "
                                  "object: make it with the same backend."));
      coefficient.reinit(this->matrix_free().backend(), n);
      internal::copy(
        coefficient.backend(), coefficient.data(), values.backend(), values.get_values(), n * sizeof(Number));
    }

    /// The host copy choose_implementation() reads for element matrices; none (empty) where only
    /// sum factorization can be chosen, which reads the backend's copy.
    std::vector<Number>
    host_values_if_needed(const internal::Array<Number> &coefficient) const
    {
      if (setup && setup->data.implementation != Implementation::tensor_product)
        return coefficient.to_host();
      return {};
    }
  };

  /// The mass operator (a u, v), a = 1 unless set (deal.II: MatrixFreeOperators::MassOperator).
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components = 1, typename Number = double>
  using MassOperator = CoefficientOperator<dim, fe_degree, n_q_points_1d, n_components, Number, true, false>;

  /// The Laplace operator (kappa grad u, grad v), kappa = 1 unless set (deal.II: MatrixFreeOperators::LaplaceOperator).
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components = 1, typename Number = double>
  using LaplaceOperator = CoefficientOperator<dim, fe_degree, n_q_points_1d, n_components, Number, false, true>;

  /// The Helmholtz operator (kappa grad u, grad v) + (a u, v).
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components = 1, typename Number = double>
  using HelmholtzOperator = CoefficientOperator<dim, fe_degree, n_q_points_1d, n_components, Number, true, true>;
} // namespace gpumf

#endif
