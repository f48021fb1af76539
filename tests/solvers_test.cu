// deal.II's solvers and preconditioners driving gpumf operators on gpumf vectors:
// SolverCG with PreconditionIdentity, with the operator's inverse diagonal (Jacobi through
// DiagonalMatrix) and with PreconditionChebyshev around it; SolverGMRES. All must reach the
// same solution; Jacobi and Chebyshev must need fewer iterations. Also: twelve MatrixFree
// objects alive at once (deal.II 9.4's CUDA version allowed five). gpumf::SolverCG (fused
// vector updates) against deal.II's SolverCG: same iteration counts (+-1), same solution,
// NoConvergence when the steps run out.
//
//   solvers_test host|cuda      (cuda: skipped without a GPU)
#include <gpumf/operators.h>
#include <gpumf/solver_cg.h>

#include <deal.II/fe/fe_q.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_gmres.h>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3, degree = 3;
  using Operator   = gpumf::LaplaceOperator<dim, degree, degree + 2>;
  using VectorType = gpumf::Vector<double>;

  /// Solves A x = b; returns the iteration count.
  template <typename Solver, typename Preconditioner>
  unsigned int
  solve(const Operator &op, VectorType &x, const VectorType &b, const Preconditioner &preconditioner)
  {
    SolverControl control(2000, 1e-10 * b.l2_norm());
    Solver        solver(control);
    x = 0.;
    solver.solve(op, x, b, preconditioner);
    return control.last_step();
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, test::Domain::shell, 1);
    const MappingQ<dim> mapping(3);
    const FE_Q<dim>     fe(degree);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    test::make_constraints(mapping, dof, constraints);

    Operator::AdditionalData data;
    data.backend = backend;
    Operator op;
    op.reinit(mapping, dof, constraints, QGauss<1>(degree + 2), data);
    op.compute_diagonal();

    VectorType b, x_reference, x;
    op.initialize_dof_vector(b);
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(x_reference);
    test::fill_random(b);
    op.matrix_free().set_constrained_values(0., b);

    const unsigned int n_plain   = solve<SolverCG<VectorType>>(op, x_reference, b, PreconditionIdentity());
    const auto         reference = test::to_rw(x_reference);
    const auto         same      = [&](const std::string &what) {
      checker.check_below(test::relative_difference(test::to_rw(x), reference, comm),
                          1e-7,
                          what + ": same solution as plain CG");
    };

    const unsigned int n_jacobi = solve<SolverCG<VectorType>>(op, x, b, *op.get_matrix_diagonal_inverse());
    same("CG + Jacobi (DiagonalMatrix of the inverse diagonal)");
    checker.check(n_jacobi < n_plain,
                  "CG + Jacobi: " + std::to_string(n_jacobi) + " < " + std::to_string(n_plain) +
                    " iterations of plain CG");

    // gpumf's fused CG: the same algorithm as deal.II's SolverCG
    const auto         near = [](const unsigned int a, const unsigned int b) { return a + 1 >= b && b + 1 >= a; };
    const unsigned int n_fused_plain = solve<gpumf::SolverCG<double>>(op, x, b, PreconditionIdentity());
    same("gpumf::SolverCG");
    checker.check(near(n_fused_plain, n_plain),
                  "gpumf::SolverCG: " + std::to_string(n_fused_plain) + " iterations, deal.II SolverCG " +
                    std::to_string(n_plain));
    const unsigned int n_fused_jacobi = solve<gpumf::SolverCG<double>>(op, x, b, *op.get_matrix_diagonal_inverse());
    same("gpumf::SolverCG + Jacobi");
    checker.check(near(n_fused_jacobi, n_jacobi),
                  "gpumf::SolverCG + Jacobi: " + std::to_string(n_fused_jacobi) +
                    " iterations, deal.II SolverCG + Jacobi " + std::to_string(n_jacobi));
    {
      SolverControl           control(n_fused_jacobi / 2, 1e-10 * b.l2_norm());
      gpumf::SolverCG<double> solver(control);
      bool                    thrown = false;
      try
        {
          x = 0.;
          solver.solve(op, x, b, *op.get_matrix_diagonal_inverse());
        }
      catch (const SolverControl::NoConvergence &e)
        {
          thrown = e.last_step == n_fused_jacobi / 2;
        }
      checker.check(thrown, "gpumf::SolverCG: NoConvergence after the allowed steps");
    }

    using Chebyshev = PreconditionChebyshev<Operator, VectorType, DiagonalMatrix<VectorType>>;
    Chebyshev::AdditionalData chebyshev_data;
    chebyshev_data.preconditioner  = op.get_matrix_diagonal_inverse();
    chebyshev_data.degree          = 4;
    chebyshev_data.smoothing_range = 30.;
    Chebyshev chebyshev;
    chebyshev.initialize(op, chebyshev_data);
    const unsigned int n_chebyshev = solve<SolverCG<VectorType>>(op, x, b, chebyshev);
    same("CG + Chebyshev(4)");
    checker.check(n_chebyshev < n_jacobi,
                  "CG + Chebyshev(4): " + std::to_string(n_chebyshev) + " < " + std::to_string(n_jacobi) +
                    " iterations of CG + Jacobi");

    const unsigned int n_gmres = solve<SolverGMRES<VectorType>>(op, x, b, *op.get_matrix_diagonal_inverse());
    same("GMRES + Jacobi (" + std::to_string(n_gmres) + " iterations)");

    // twelve MatrixFree objects at once, each with its own tables: all give the same result
    std::vector<Operator> operators(12);
    data.use_coloring = true;
    for (auto &o : operators)
      o.reinit(mapping, dof, constraints, QGauss<1>(degree + 2), data);
    VectorType y0, y;
    op.initialize_dof_vector(y0);
    op.initialize_dof_vector(y);
    operators[0].vmult(y0, b);
    bool all_equal = true;
    for (auto &o : operators)
      {
        o.vmult(y, b);
        all_equal = all_equal && test::bitwise_equal(test::to_rw(y), test::to_rw(y0), comm);
      }
    checker.check(all_equal, "12 MatrixFree objects alive, colored: bitwise equal results");
  });
}
