#include "dealii_solver.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/matrix_free/tools.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>

namespace cantilever
{
  namespace
  {
    /// (2 mu eps(u), eps(v)) + (lambda div u, div v), as a deal.II user writes it.
    template <typename Number>
    class ElasticityOperator : public MatrixFreeOperators::Base<dim, LinearAlgebra::distributed::Vector<Number>>
    {
    public:
      using VectorType = LinearAlgebra::distributed::Vector<Number>;
      using FEEval     = FEEvaluation<dim, degree, degree + 1, dim, Number>;

      void
      compute_diagonal() override
      {
        this->inverse_diagonal_entries.reset(new DiagonalMatrix<VectorType>());
        VectorType &inverse = this->inverse_diagonal_entries->get_vector();
        this->data->initialize_dof_vector(inverse);
        MatrixFreeTools::compute_diagonal(*this->data, inverse, &ElasticityOperator::local_cell, this);
        this->set_constrained_entries_to_one(inverse);
        for (auto &d : inverse)
          d = Number(1) / d;
      }

    private:
      void
      local_cell(FEEval &phi) const
      {
        phi.evaluate(EvaluationFlags::gradients);
        for (const unsigned int q : phi.quadrature_point_indices())
          {
            const auto eps   = phi.get_symmetric_gradient(q);
            auto       sigma = Number(2 * mu) * eps;
            const auto div   = Number(lambda) * trace(eps);
            for (unsigned int d = 0; d < dim; ++d)
              sigma[d][d] += div;
            phi.submit_symmetric_gradient(sigma, q);
          }
        phi.integrate(EvaluationFlags::gradients);
      }

      void
      local_apply(const MatrixFree<dim, Number>               &data,
                  VectorType                                  &dst,
                  const VectorType                            &src,
                  const std::pair<unsigned int, unsigned int> &range) const
      {
        FEEval phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.read_dof_values(src);
            local_cell(phi);
            phi.distribute_local_to_global(dst);
          }
      }

      void
      apply_add(VectorType &dst, const VectorType &src) const override
      {
        this->data->cell_loop(&ElasticityOperator::local_apply, this, dst, src);
      }
    };
  } // namespace

  Result
  solve_with_dealii(const Problem &problem)
  {
    Result             result;
    Timer              timer;
    const auto        &dof      = problem.dof_handler;
    const unsigned int n_levels = problem.triangulation.n_global_levels();
    using SystemMatrix          = ElasticityOperator<double>;
    using LevelMatrix           = ElasticityOperator<float>;
    using LevelVector           = LinearAlgebra::distributed::Vector<float>;

    SystemMatrix system_matrix;
    {
      typename MatrixFree<dim, double>::AdditionalData data;
      data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
      data.mapping_update_flags  = update_gradients | update_JxW_values;
      auto mf                    = std::make_shared<MatrixFree<dim, double>>();
      mf->reinit(problem.mapping, dof, problem.constraints, QGauss<1>(degree + 1), data);
      system_matrix.initialize(mf);
    }
    MGConstrainedDoFs mg_constrained_dofs;
    make_mg_constrained_dofs(problem, mg_constrained_dofs);
    MGLevelObject<LevelMatrix> mg_matrices(0, n_levels - 1);
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        typename MatrixFree<dim, float>::AdditionalData data;
        data.tasks_parallel_scheme = MatrixFree<dim, float>::AdditionalData::none;
        data.mapping_update_flags  = update_gradients | update_JxW_values;
        data.mg_level              = level;
        auto mf                    = std::make_shared<MatrixFree<dim, float>>();
        mf->reinit(
          problem.mapping, dof, level_constraints(problem, mg_constrained_dofs, level), QGauss<1>(degree + 1), data);
        mg_matrices[level].initialize(mf, mg_constrained_dofs, level);
      }
    MGTransferMatrixFree<dim, float> mg_transfer(mg_constrained_dofs);
    mg_transfer.build(dof);

    using Smoother = PreconditionChebyshev<LevelMatrix, LevelVector>;
    mg::SmootherRelaxation<Smoother, LevelVector> mg_smoother;
    mg_smoother.initialize(mg_matrices, cantilever::smoother_data<Smoother>(mg_matrices));
    MGCoarseGridApplySmoother<LevelVector> mg_coarse;
    mg_coarse.initialize(mg_smoother);
    mg::Matrix<LevelVector> mg_matrix(mg_matrices);
    Multigrid<LevelVector>  mg(mg_matrix, mg_coarse, mg_transfer, mg_smoother, mg_smoother);
    PreconditionMG<dim, LevelVector, MGTransferMatrixFree<dim, float>> preconditioner(dof, mg, mg_transfer);
    result.setup_seconds = timer.wall_time();

    timer.restart();
    LinearAlgebra::distributed::Vector<double> rhs, solution;
    system_matrix.initialize_dof_vector(rhs);
    system_matrix.initialize_dof_vector(solution);
    using VectorType = LinearAlgebra::distributed::Vector<double>;
    system_matrix.get_matrix_free()->template cell_loop<VectorType, VectorType>(
      [](const MatrixFree<dim, double>              &data,
         LinearAlgebra::distributed::Vector<double> &dst,
         const LinearAlgebra::distributed::Vector<double> &,
         const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, degree, degree + 1, dim, double> phi(data);
        Tensor<1, dim, VectorizedArray<double>>            f;
        f[2] = -weight;
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            for (const unsigned int q : phi.quadrature_point_indices())
              phi.submit_value(f, q);
            phi.integrate_scatter(EvaluationFlags::values, dst);
          }
      },
      rhs,
      solution,
      true);
    result.rhs_seconds = timer.wall_time();

    timer.restart();
    SolverControl                                        control(200, 1e-8 * rhs.l2_norm());
    SolverCG<LinearAlgebra::distributed::Vector<double>> cg(control);
    cg.solve(system_matrix, solution, rhs, preconditioner);
    result.solve_seconds = timer.wall_time();
    result.iterations    = control.last_step();
    result.l2_norm       = solution.l2_norm();
    result.sag           = largest_sag(problem, solution.begin());
    return result;
  }
} // namespace cantilever
