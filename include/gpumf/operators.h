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
#include <gpumf/internal/ready/boundary_face.h>
#include <gpumf/internal/ready/cell_operator.h>
#include <gpumf/local_matrix_operator.h>
#include <gpumf/matrix_free.h>
#include <gpumf/operator_base.h>
#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/lac/diagonal_matrix.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <set>
#include <typeinfo>

namespace gpumf
{
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
   *
   * Boundary terms (set_boundary_coefficient()): a Robin (impedance, absorbing) term
   * (beta u, v) on the boundary faces of chosen ids, beta constant per id or per face point,
   * added by MatrixFree::loop() with a boundary face functor after the cells (element matrices
   * too), its exact diagonal included in compute_diagonal(). The MatrixFree object needs faces
   * (AdditionalData::mapping_update_flags_boundary_faces) of its continuous element.
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

    /**
     * The Robin term (beta u, v) on the boundary faces with id @p id (0 to 31), beta = @p beta
     * there (replacing what was set for @p id before; 0 removes it).
     */
    void
    set_boundary_coefficient(const dealii::types::boundary_id id, const Number beta)
    {
      set_boundary_values(id, [beta](const dealii::Point<dim> &) { return beta; });
    }

    /// The Robin term with beta(x) of a deal.II Function at the face points of id @p id (evaluated now).
    void
    set_boundary_coefficient(const dealii::types::boundary_id id, const dealii::Function<dim> &beta)
    {
      set_boundary_values(id, [&beta](const dealii::Point<dim> &p) { return Number(beta.value(p)); });
    }

    /**
     * The Robin term with beta given at every face point of this rank: @p values holds
     * n_faces() * n_face_points() entries in the order of MatrixFree::get_face_quadrature_points()
     * (FEFaceEvaluation::face_index() * n_face_points() + q; values on inner faces are not read),
     * on the boundary faces with an id in @p boundary_ids. In the backend's memory (a serial
     * gpumf::Vector, e.g. filled by a face loop on the GPU) or on the host.
     */
    void
    set_boundary_coefficient(const VectorType &values, const std::set<dealii::types::boundary_id> &boundary_ids)
    {
      const std::size_t n = boundary_size();
      AssertThrow(values.locally_owned_size() == n && values.backend() == this->matrix_free().backend(),
                  ExcNotSupported("set_boundary_coefficient: a vector of n_faces() * n_face_points() = " +
                                  std::to_string(n) + " values on the MatrixFree object's backend is needed, got " +
                                  std::to_string(values.locally_owned_size()) + "."));
      boundary_coefficient.reinit(this->matrix_free().backend(), n);
      internal::copy(boundary_coefficient.backend(),
                     boundary_coefficient.data(),
                     values.backend(),
                     values.get_values(),
                     n * sizeof(Number));
      boundary_host = boundary_coefficient.to_host();
      robin_op.mask = mask_of(boundary_ids);
      robin_op.beta = boundary_coefficient.data();
      this->diagonal_entries.reset();
      this->inverse_diagonal_entries.reset();
    }

    /// The host form of set_boundary_coefficient(const VectorType &, ...).
    void
    set_boundary_coefficient(const std::vector<Number>                  &values,
                             const std::set<dealii::types::boundary_id> &boundary_ids)
    {
      AssertThrow(values.size() == boundary_size(),
                  ExcNotSupported(
                    "set_boundary_coefficient: n_faces() * n_face_points() = " + std::to_string(boundary_size()) +
                    " values are needed, got " + std::to_string(values.size()) + "."));
      boundary_host = values;
      robin_op.mask = mask_of(boundary_ids);
      upload_boundary();
    }

    /// True where a Robin term is set.
    bool
    has_boundary_terms() const
    {
      return robin_op.mask != 0;
    }

    /// dst += A src (constrained rows: dst += src), by element matrices or sum factorization.
    void
    vmult_add(VectorType &dst, const VectorType &src) const override
    {
      if (local_matrix)
        {
          local_matrix->vmult_add(dst, src);
          add_boundary_terms(dst, src);
          return;
        }
      Base::vmult_add(dst, src);
    }

    /**
     * dst = A src, and returns src . (A src) summed over all ranks: conjugate gradients' p . Ap
     * (gpumf::SolverCG calls it). In 3D on the GPU with sum factorization the cell kernel sums
     * each cell's energy u_c . (A_c u_c) at its quadrature points and one pass adds the cells and
     * the constrained rows (src[i]^2): the pass over src and dst of a separate dot product is
     * saved. Elsewhere (the host, 2D, element matrices, levels with refinement edges, a class
     * derived from this one, which may override vmult_add() or apply_add()) it is vmult() and
     * the dot product. The two differ by rounding only.
     */
    Number
    vmult_and_dot(VectorType &dst, const VectorType &src) const
    {
      // (a derived class may override vmult_add() or apply_add(): it gets vmult() and the dot)
      if constexpr (CellOperator::lines)
        if (typeid(*this) == typeid(CoefficientOperator) && !local_matrix && !this->has_interface_matrices() &&
            !has_boundary_terms() && this->matrix_free().backend() == Backend::cuda)
          {
            const auto &mf = this->matrix_free();
            if (cell_energy.size() != mf.n_cells())
              cell_energy.reinit(Backend::cuda, mf.n_cells());
            dst = Number();
            internal::CellEnergyOperator<CellOperator> energy_op{cell_op};
            energy_op.cell_energy = cell_energy.data();
            mf.cell_loop(energy_op, src, dst);
            mf.add_constrained_values(src, dst);
            return dealii::Utilities::MPI::sum(mf.energy_with_constrained_values(cell_energy.data(), src),
                                               mf.get_vector_partitioner()->get_mpi_communicator());
          }
      this->vmult(dst, src);
      return src * dst;
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
          if (!has_boundary_terms())
            {
              this->diagonal_entries         = local_matrix->get_matrix_diagonal();
              this->inverse_diagonal_entries = local_matrix->get_matrix_diagonal_inverse();
              return;
            }
          VectorType diagonal(local_matrix->get_matrix_diagonal()->get_vector());
          add_boundary_diagonal(diagonal);
          this->set_diagonal(std::move(diagonal));
          return;
        }
      VectorType diagonal;
      this->initialize_dof_vector(diagonal);
      this->matrix_free().diagonal_loop(cell_operator(), diagonal);
      add_boundary_diagonal(diagonal);
      this->set_diagonal(std::move(diagonal));
    }

  protected:
    void
    apply_add(VectorType &dst, const VectorType &src) const override
    {
      this->matrix_free().cell_loop(cell_operator(), src, dst);
      add_boundary_terms(dst, src);
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

    /// The Robin term: beta per face point (backend and host), and its boundary face functor.
    internal::Array<Number> boundary_coefficient;
    std::vector<Number>     boundary_host;
    using RobinOperator = internal::RobinFaceOperator<dim, fe_degree, n_q_points_1d, n_components, Number>;
    RobinOperator robin_op{};

    std::size_t
    boundary_size() const
    {
      const MatrixFree<dim, Number> &mf = this->matrix_free();
      AssertThrow(mf.has_continuous_faces(),
                  ExcNotSupported("set_boundary_coefficient: the operator's MatrixFree object has no faces of a "
                                  "continuous element; set AdditionalData::mapping_update_flags_boundary_faces (e.g. "
                                  "update_values | update_quadrature_points) before reinit(), on the active cells."));
      return std::size_t(mf.n_faces()) * mf.n_face_points();
    }

    static unsigned int
    mask_of(const std::set<dealii::types::boundary_id> &ids)
    {
      return internal::boundary_mask(ids, "set_boundary_coefficient");
    }

    /// beta = @p value(x) at the points of the faces with id @p id, the others kept.
    template <typename F>
    void
    set_boundary_values(const dealii::types::boundary_id id, const F &value)
    {
      const std::size_t n = boundary_size();
      mask_of({id});
      if (boundary_host.size() != n)
        boundary_host.assign(n, Number(0));
      const MatrixFree<dim, Number>                &mf     = this->matrix_free();
      const std::vector<dealii::Point<dim>>         points = mf.get_face_quadrature_points();
      const std::vector<dealii::types::boundary_id> ids    = mf.get_face_boundary_ids();
      const unsigned int                            n_q    = mf.n_face_points();
      bool                                          zero   = true;
      for (std::size_t f = 0; f < ids.size(); ++f)
        if (ids[f] == id)
          for (unsigned int q = 0; q < n_q; ++q)
            {
              boundary_host[f * n_q + q] = value(points[f * n_q + q]);
              zero                       = zero && boundary_host[f * n_q + q] == Number(0);
            }
      // (every rank agrees on the set of ids, also one without faces of id)
      const MPI_Comm comm = mf.get_vector_partitioner()->get_mpi_communicator();
      zero                = dealii::Utilities::MPI::min(int(zero), comm) == 1;
      robin_op.mask       = zero ? robin_op.mask & ~(1u << id) : robin_op.mask | (1u << id);
      upload_boundary();
    }

    void
    upload_boundary()
    {
      boundary_coefficient.reinit(this->matrix_free().backend(), boundary_host);
      robin_op.beta = boundary_coefficient.data();
      this->diagonal_entries.reset();
      this->inverse_diagonal_entries.reset();
    }

    /// dst += the Robin term of src.
    void
    add_boundary_terms(VectorType &dst, const VectorType &src) const
    {
      if (has_boundary_terms())
        this->matrix_free().loop(nullptr,
                                 nullptr,
                                 robin_op,
                                 dst,
                                 src,
                                 false,
                                 MatrixFree<dim, Number>::DataAccessOnFaces::none,
                                 MatrixFree<dim, Number>::DataAccessOnFaces::none);
    }

    /// diagonal += the Robin term's diagonal.
    void
    add_boundary_diagonal(VectorType &diagonal) const
    {
      if (has_boundary_terms())
        this->matrix_free().loop_diagonal(nullptr, nullptr, robin_op, diagonal);
    }

    internal::Array<Number> value_coefficient, gradient_coefficient;
    /// The merged geometry and coefficients of the lines path (internal::PointData):
    /// CUDA, 3D, geometry per point; else empty.
    internal::Array<Number> metric;
    /// vmult_and_dot()'s energy of each cell (GPU, lines path; made at its first call).
    mutable internal::Array<Number> cell_energy;

    void
    clear_own()
    {
      value_coefficient.clear();
      gradient_coefficient.clear();
      metric.clear();
      cell_energy.clear();
      value_host.clear();
      gradient_host.clear();
      boundary_coefficient.clear();
      boundary_host.clear();
      robin_op = RobinOperator{};
      setup.reset();
      local_matrix.reset();
    }

    /// The cell functor, with the 1D matrices (copied from the MatrixFree object's memory).
    CellOperator cell_op{};

    /// (Re)makes the cell functor and the merged geometry where the lines path reads it.
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
