/**
 * @file gpumf/elasticity_operator.h
 * The ready operator of isotropic linear elasticity on gpumf::MatrixFree:
 * (2 mu eps(u), eps(v)) + (lambda div u, div v) for an FESystem of dim equal FE_Q, the Lamé
 * coefficients lambda and mu constant, per cell, per quadrature point or from deal.II Functions,
 * with its exact diagonal computed on the backend. deal.II has no ready elasticity operator; its
 * programs write this form with FEEvaluation's get/submit_symmetric_gradient, which gpumf runs
 * too (gpumf/fe_evaluation.h). Include from a .cu file (the kernels are instantiated there).
 */
#ifndef gpumf_elasticity_operator_h
#define gpumf_elasticity_operator_h

#include <gpumf/internal/ready/cell_operator.h>
#include <gpumf/matrix_free.h>
#include <gpumf/operator_base.h>
#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/fe/fe_q.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace gpumf
{
  /**
   * The operator of the bilinear form (2 mu eps(u), eps(v)) + (lambda div u, div v) (isotropic
   * linear elasticity: the stress 2 mu eps(u) + lambda div(u) I) on a gpumf::MatrixFree of an
   * FESystem of dim equal FE_Q, with Dirichlet rows as the identity (as deal.II's
   * MatrixFreeOperators::Base); lambda = mu = 1 unless set.
   *
   * Works with deal.II's SolverCG, DiagonalMatrix and PreconditionChebyshev on gpumf::Vector,
   * and as a level operator of deal.II's Multigrid (initialize() with the MGConstrainedDoFs of a
   * level, compute_diagonal() for the smoother).
   *
   * Kernel: in 3D on the GPU the ready kernels' cell operation (internal/ready/lines.cuh: a
   * thread per column of points, every 1D contraction in registers), each component to the
   * points, the stress at each point from the gradients of all three (ElasticityPoint), each
   * component back. Elsewhere (2D, the host backend: the reference) FEEvaluation with
   * get/submit_symmetric_gradient().
   */
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, typename Number = double>
  class ElasticityOperator : public MatrixFreeOperators::Base<dim, Vector<Number>>
  {
    using Base = MatrixFreeOperators::Base<dim, Vector<Number>>;

  public:
    using value_type     = Number;
    using VectorType     = Vector<Number>;
    using size_type      = typename VectorType::size_type;
    using AdditionalData = typename MatrixFree<dim, Number>::AdditionalData;
    using CellOperator   = internal::ElasticityCellOperator<dim, fe_degree, n_q_points_1d, Number>;
    using cell_iterator  = typename MatrixFree<dim, Number>::cell_iterator;

    ElasticityOperator() = default;
    /// Not copied or moved: the cell functor points into this object's coefficient arrays.
    ElasticityOperator(const ElasticityOperator &) = delete;
    ElasticityOperator &
    operator=(const ElasticityOperator &) = delete;

    /// Sets up its own MatrixFree object (FESystem(FE_Q(fe_degree), dim), quadrature of
    /// n_q_points_1d points).
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const AdditionalData                    &additional_data = AdditionalData())
    {
      check_element(dof_handler.get_fe());
      auto mf = std::make_shared<MatrixFree<dim, Number>>();
      mf->reinit(mapping, dof_handler, constraints, quad, additional_data);
      initialize(mf);
    }

    /// Works on a MatrixFree object shared with others (deal.II: MatrixFreeOperators::Base::initialize).
    /// Like reinit(), it sets lambda = mu = 1: set the Lamé coefficients after it.
    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free)
    {
      check_element(matrix_free->get_dof_handler().get_fe());
      Base::initialize(matrix_free);
      clear_coefficients();
      update_cell_operator();
    }

    /// Works on a MatrixFree object of multigrid level @p level, the refinement-edge DoFs of
    /// @p mg_constrained_dofs as Dirichlet conditions (see MatrixFreeOperators::Base); lambda =
    /// mu = 1 until set.
    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free,
               const dealii::MGConstrainedDoFs                      &mg_constrained_dofs,
               const unsigned int                                    level)
    {
      check_element(matrix_free->get_dof_handler().get_fe());
      Base::initialize(matrix_free, mg_constrained_dofs, level);
      clear_coefficients();
      update_cell_operator();
    }

    void
    clear() override
    {
      Base::clear();
      clear_coefficients();
      cell_op = CellOperator{};
    }

    /// The cell functor of vmult() and compute_diagonal().
    const CellOperator &
    cell_operator() const
    {
      return cell_op;
    }

    /// lambda and mu, the same everywhere (mu > 0, 3 lambda + 2 mu > 0: the form is then
    /// positive definite on the displacements without rigid-body motions).
    void
    set_lame_coefficients(const Number lambda, const Number mu)
    {
      check_lame(lambda, mu, "");
      clear_coefficients();
      constant_lambda = lambda;
      constant_mu     = mu;
      update_cell_operator();
    }

    /// lambda and mu at the quadrature points, in local_q_point_id() order (one value per point
    /// of this rank's cells each).
    void
    set_lame_coefficients(const std::vector<Number> &lambda, const std::vector<Number> &mu)
    {
      const std::size_t n = std::size_t(this->matrix_free().n_cells()) * this->matrix_free().n_q_points();
      AssertThrow(lambda.size() == n && mu.size() == n,
                  ExcNotSupported("ElasticityOperator::set_lame_coefficients(): lambda and mu need one value per "
                                  "quadrature point of the locally owned cells (" +
                                  std::to_string(n) + " on this rank, local_q_point_id() order), got " +
                                  std::to_string(lambda.size()) + " and " + std::to_string(mu.size()) + "."));
      for (std::size_t p = 0; p < n; ++p)
        check_lame(lambda[p], mu[p], " at quadrature point " + std::to_string(p));
      lambda_values.reinit(this->matrix_free().backend(), lambda);
      mu_values.reinit(this->matrix_free().backend(), mu);
      update_cell_operator();
    }

    /// lambda(x) and mu(x) evaluated at the quadrature points now.
    void
    set_lame_coefficients(const dealii::Function<dim> &lambda, const dealii::Function<dim> &mu)
    {
      const auto          points = this->matrix_free().get_quadrature_points();
      std::vector<Number> l(points.size()), m(points.size());
      for (std::size_t i = 0; i < points.size(); ++i)
        {
          dealii::Point<dim> p;
          for (unsigned int d = 0; d < dim; ++d)
            p[d] = points[i][d];
          l[i] = lambda.value(p);
          m[i] = mu.value(p);
        }
      set_lame_coefficients(l, m);
    }

    /**
     * lambda and mu per cell: @p lame_of(cell) gives the pair (lambda, mu) of a cell of the
     * MatrixFree object (an active cell, or a level cell for a level operator), e.g. by its
     * material_id().
     */
    void
    set_lame_coefficients(const std::function<std::pair<Number, Number>(const cell_iterator &)> &lame_of)
    {
      const unsigned int  n_q = this->matrix_free().n_q_points();
      std::vector<Number> l, m;
      l.reserve(std::size_t(this->matrix_free().n_cells()) * n_q);
      m.reserve(l.capacity());
      for (const auto &color : this->matrix_free().get_colored_graph())
        for (const auto &cell : color)
          {
            const auto lm = lame_of(cell);
            l.insert(l.end(), n_q, lm.first);
            m.insert(m.end(), n_q, lm.second);
          }
      set_lame_coefficients(l, m);
    }

    /// Computes the exact diagonal of the operator on the backend (each cell's matrix column by
    /// column, summed over cells; constrained and refinement-edge rows 1) and its inverse.
    void
    compute_diagonal() override
    {
      VectorType diagonal;
      this->initialize_dof_vector(diagonal);
      this->matrix_free().diagonal_loop(cell_op, diagonal);
      this->set_diagonal(std::move(diagonal));
    }

  protected:
    void
    apply_add(VectorType &dst, const VectorType &src) const override
    {
      this->matrix_free().cell_loop(cell_op, src, dst);
    }

  private:
    CellOperator            cell_op{};
    internal::Array<Number> lambda_values, mu_values;
    Number                  constant_lambda = 1, constant_mu = 1;

    static void
    check_element(const dealii::FiniteElement<dim> &fe)
    {
      AssertThrow(fe.n_components() == dim && fe.n_base_elements() == 1 && fe.base_element(0).degree == fe_degree &&
                    dynamic_cast<const dealii::FE_Q<dim> *>(&fe.base_element(0)) != nullptr,
                  ExcNotSupported(
                    "gpumf::ElasticityOperator<" + std::to_string(dim) + ", " + std::to_string(fe_degree) +
                    "> needs FESystem(FE_Q(" + std::to_string(fe_degree) + "), " + std::to_string(dim) +
                    ") (dim equal components of the operator's degree); the DoFHandler has " + fe.get_name() + "."));
    }

    static void
    check_lame(const Number lambda, const Number mu, const std::string &where)
    {
      AssertThrow(mu > 0 && 3 * lambda + 2 * mu > 0,
                  ExcNotSupported("ElasticityOperator: the Lamé coefficients need mu > 0 and 3 lambda + 2 mu > 0 "
                                  "(positive definite), got lambda = " +
                                  std::to_string(double(lambda)) + ", mu = " + std::to_string(double(mu)) + where +
                                  "."));
    }

    void
    clear_coefficients()
    {
      lambda_values.clear();
      mu_values.clear();
      constant_lambda = constant_mu = 1;
    }

    /// (Re)makes the cell functor with the 1D matrices and the coefficients; the diagonal of the
    /// former coefficients is dropped.
    void
    update_cell_operator()
    {
      this->diagonal_entries.reset();
      this->inverse_diagonal_entries.reset();
      cell_op      = CellOperator::make(this->matrix_free(), nullptr, nullptr);
      cell_op.lame = internal::LameCoefficients<Number>{lambda_values.data(),
                                                        mu_values.data(),
                                                        lambda_values.data() ? Number(0) : constant_lambda,
                                                        mu_values.data() ? Number(0) : constant_mu};
    }
  };
} // namespace gpumf

#endif
