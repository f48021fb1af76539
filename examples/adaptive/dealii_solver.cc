/**
 * @file examples/adaptive/dealii_solver.cc
 * The same solve as solve_with_gpumf() in adaptive.cu, with deal.II's CPU MatrixFree: the
 * reference for `adaptive --solver dealii` and `--solver both`. Compiled by g++ (deal.II's
 * matrix_free headers are not meant for nvcc), reached through dealii_solver.h.
 *
 * Step for step the inhomogeneous-Dirichlet recipe of adaptive.cu; only the names differ:
 * MatrixFreeOperators::LaplaceOperator for gpumf::LaplaceOperator, deal.II's distributed vector
 * for gpumf::Vector, MatrixFree::get_constrained_dofs() for set_constrained_values().
 */
#include "dealii_solver.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/matrix_free/tools.h>

#include <functional>
#include <memory>

namespace adaptive
{
  namespace
  {
    /**
     * deal.II's LaplaceOperator with the exact diagonal. LaplaceOperator::compute_diagonal()
     * sums the cell matrices' diagonals without the hanging-node constraints, an approximation
     * at hanging nodes; MatrixFreeTools::compute_diagonal() applies them, as gpumf's
     * compute_diagonal() does. With the same Jacobi preconditioner the two CG runs take the
     * same steps, and their solutions agree to round-off rather than to the tolerance.
     */
    template <int dim, int degree>
    class LaplaceOperator : public MatrixFreeOperators::LaplaceOperator<dim, degree, degree + 1, 1, VectorType>
    {
    public:
      void
      compute_diagonal() override
      {
        this->diagonal_entries         = std::make_shared<DiagonalMatrix<VectorType>>();
        this->inverse_diagonal_entries = std::make_shared<DiagonalMatrix<VectorType>>();
        VectorType &diagonal           = this->diagonal_entries->get_vector();
        VectorType &inverse            = this->inverse_diagonal_entries->get_vector();
        this->initialize_dof_vector(diagonal);
        using FEEval                                       = FEEvaluation<dim, degree, degree + 1, 1, double>;
        const std::function<void(FEEval &)> cell_operation = [](FEEval &phi) {
          phi.evaluate(EvaluationFlags::gradients);
          for (const unsigned int q : phi.quadrature_point_indices())
            phi.submit_gradient(phi.get_gradient(q), q);
          phi.integrate(EvaluationFlags::gradients);
        };
        MatrixFreeTools::compute_diagonal<dim, degree, degree + 1, 1, double, VectorizedArray<double>, VectorType>(
          *this->get_matrix_free(), diagonal, cell_operation);
        this->set_constrained_entries_to_one(diagonal);
        inverse = diagonal;
        for (unsigned int i = 0; i < inverse.locally_owned_size(); ++i)
          inverse.local_element(i) = 1. / inverse.local_element(i);
      }
    };

    template <int dim, int degree>
    SolverResult
    solve(const Problem<dim> &problem, VectorType &solution)
    {
      Timer        timer;
      SolverResult result;
      double       last = 0;
      const auto   lap  = [&]() {
        const double now = timer.wall_time(), seconds = now - last;
        last = now;
        return seconds;
      };

      // 1. The MatrixFree object and its Laplace operator with all constraints.
      using Operator = LaplaceOperator<dim, degree>;
      typename MatrixFree<dim, double>::AdditionalData data;
      data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
      data.mapping_update_flags  = update_gradients | update_JxW_values | update_quadrature_points;
      auto mf                    = std::make_shared<MatrixFree<dim, double>>();
      mf->reinit(problem.mapping, problem.dof_handler, problem.constraints, QGauss<1>(degree + 1), data);
      Operator op;
      op.initialize(mf);
      result.setup = lap();
      op.compute_diagonal(); // exact, also at hanging nodes (see above)
      result.diagonal = lap();

      // 2. The lift u0 (host, shared with the gpumf path), in the operator's vector layout.
      VectorType u0_host, u0, rhs, x;
      problem.dirichlet_lift(u0_host);
      op.initialize_dof_vector(u0);
      op.initialize_dof_vector(rhs);
      op.initialize_dof_vector(x);
      u0.copy_locally_owned_data_from(u0_host);

      // 3. rhs = b - A u0 in one cell loop: f tested by the shape functions, minus grad u0 (read
      //    with read_dof_values_plain(): its boundary values) tested by their gradients, through
      //    the constraints homogeneously; zero on every constrained DoF.
      using FEEval = FEEvaluation<dim, degree, degree + 1, 1, double>;
      const std::function<void(const MatrixFree<dim, double> &,
                               VectorType &,
                               const VectorType &,
                               const std::pair<unsigned int, unsigned int> &)>
        lifted_rhs = [](const MatrixFree<dim, double>               &matrix_free,
                        VectorType                                  &dst,
                        const VectorType                            &src,
                        const std::pair<unsigned int, unsigned int> &cells) {
          FEEval                          phi(matrix_free);
          const RightHandSideFormula<dim> f;
          for (unsigned int cell = cells.first; cell < cells.second; ++cell)
            {
              phi.reinit(cell);
              phi.read_dof_values_plain(src);
              phi.evaluate(EvaluationFlags::gradients);
              for (const unsigned int q : phi.quadrature_point_indices())
                {
                  const auto              points = phi.quadrature_point(q);
                  VectorizedArray<double> value;
                  for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
                    {
                      Point<dim> p;
                      for (unsigned int d = 0; d < dim; ++d)
                        p[d] = points[d][v];
                      value[v] = f.value(p);
                    }
                  phi.submit_gradient(-phi.get_gradient(q), q);
                  phi.submit_value(value, q);
                }
              phi.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
            }
        };
      mf->cell_loop(lifted_rhs, rhs, u0, true);
      for (const unsigned int i : mf->get_constrained_dofs())
        rhs.local_element(i) = 0;
      result.rhs = lap();

      // 4. op x = rhs by CG with the Jacobi preconditioner.
      SolverControl        control(10000, relative_tolerance * rhs.l2_norm());
      SolverCG<VectorType> cg(control);
      cg.solve(op, x, rhs, *op.get_matrix_diagonal_inverse());
      result.cg = lap();

      // 5. u = x + u0, then the constraints (host, shared).
      problem.add_lift_and_distribute(x, u0_host, solution);
      result.iterations = control.last_step();
      result.seconds    = timer.wall_time();
      return result;
    }
  } // namespace

  template <int dim>
  SolverResult
  solve_with_dealii(const Problem<dim> &problem, VectorType &solution)
  {
    switch (problem.fe.degree)
      {
        case 1:
          return solve<dim, 1>(problem, solution);
        case 2:
          return solve<dim, 2>(problem, solution);
        case 3:
          return solve<dim, 3>(problem, solution);
        case 4:
          return solve<dim, 4>(problem, solution);
        default:
          AssertThrow(false, ExcMessage("adaptive: FE_Q degrees 1 to 4 are instantiated"));
          return {};
      }
  }

  template SolverResult
  solve_with_dealii<2>(const Problem<2> &, VectorType &);
  template SolverResult
  solve_with_dealii<3>(const Problem<3> &, VectorType &);
} // namespace adaptive
