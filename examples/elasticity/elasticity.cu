/*
 * gpumf example: a 3D cantilever beam sagging under its own weight, linear elasticity solved
 * with CG and a geometric-multigrid V-cycle on the GPU, beside the same program on deal.II's CPU
 * MatrixFree.
 *
 * The problem (cantilever.h): the beam [0, 8] x [0, 1] x [0, 1], clamped at x = 0, Young's
 * modulus 1, Poisson's ratio 0.3, the body force (0, 0, -1e-3); FESystem(FE_Q(2), 3). The mesh,
 * DoFs and constraints are deal.II's (cantilever.cc). This file holds the gpumf solve:
 *
 * - gpumf::ElasticityOperator<3, 2, 3, double> on the active cells, and one in float on each
 *   multigrid level (initialize() with the level's MatrixFree and MGConstrainedDoFs), each with
 *   its exact diagonal from compute_diagonal();
 * - the right-hand side (f, v) in one cell loop (FEEvaluation with three components);
 * - gpumf::MGTransferMatrixFree, deal.II's PreconditionChebyshev (degree 5, the levels'
 *   inverse diagonals) as smoother and as coarse solver, Multigrid and PreconditionMG, and
 *   deal.II's SolverCG on gpumf::Vector.
 *
 * dealii_solver.cc solves the same problem in the same way with deal.II's CPU MatrixFree (its
 * own elasticity operator on MatrixFreeOperators::Base, FEEvaluation's symmetric gradient), for
 * the comparison of whole programs: run it on all of a node's cores.
 *
 *   elasticity [--refinements r] [--solver gpumf|dealii|both] [--check]
 *   mpirun -np 16 elasticity --solver dealii ...
 *
 * --check (the test of tests/CMakeLists.txt): exit 1 unless the solvers agree (with --solver
 * both: the same CG iterations +-1, |u| and the sag to 1e-6) and each sag lies within 10 % of
 * Timoshenko's beam theory, q L^4 / (8 E I) + q L^2 / (2 kappa G A) with q = 1e-3, I = 1/12,
 * kappa = 5/6: 6.24.
 *
 * Prints the DoFs, the CG iterations, |u| and the largest sag of each solver, and the wall
 * seconds of the mesh and DoFs, the solver's set-up (operators, levels, diagonals, transfer,
 * smoothers), the right-hand side, CG, and the whole program. With --solver both the two
 * solutions' norms are compared (they differ by the algebraic error, ~1e-8).
 *
 * The backend comes from GPUMF_BACKEND (cuda|host|auto; default: the GPU where there is one).
 */
#include <gpumf/elasticity_operator.h>
#include <gpumf/mg_transfer.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/multigrid.h>

#include <cmath>
#include <iomanip>
#include <iostream>

#include "cantilever.h"
#include "dealii_solver.h"

namespace cantilever
{
  /// (f, v) with the body force f = (0, 0, -weight): the cell functor of the right-hand side.
  struct BodyForce
  {
    using FEEval = gpumf::FEEvaluation<dim, degree, degree + 1, dim, double>;

    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;
    static constexpr unsigned int n_components = dim;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double * /*src*/,
               double *dst) const
    {
      FEEval phi(cell, data, shared);
      phi.apply_for_each_quad_point([](FEEval *p, const unsigned int q) {
        Tensor<1, dim, double> f;
        f[2] = -weight;
        p->submit_value(f, q);
      });
      phi.integrate(gpumf::EvaluationFlags::values);
      phi.distribute_local_to_global(dst);
    }
  };

  Result
  solve_with_gpumf(const Problem &problem, gpumf::Vector<double> &solution)
  {
    Result         result;
    Timer          timer;
    const auto     backend  = gpumf::default_backend();
    const auto    &dof      = problem.dof_handler;
    const unsigned n_levels = problem.triangulation.n_global_levels();

    using SystemMatrix = gpumf::ElasticityOperator<dim, degree, degree + 1, double>;
    using LevelMatrix  = gpumf::ElasticityOperator<dim, degree, degree + 1, float>;
    SystemMatrix system_matrix;
    {
      typename SystemMatrix::AdditionalData data;
      data.backend = backend;
      system_matrix.reinit(problem.mapping, dof, problem.constraints, QGauss<1>(degree + 1), data);
      system_matrix.set_lame_coefficients(lambda, mu);
    }
    MGConstrainedDoFs mg_constrained_dofs;
    make_mg_constrained_dofs(problem, mg_constrained_dofs);
    MGLevelObject<LevelMatrix> mg_matrices(0, n_levels - 1);
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        typename gpumf::MatrixFree<dim, float>::AdditionalData data;
        data.backend  = backend;
        data.mg_level = level;
        auto mf       = std::make_shared<gpumf::MatrixFree<dim, float>>();
        mf->reinit(
          problem.mapping, dof, level_constraints(problem, mg_constrained_dofs, level), QGauss<1>(degree + 1), data);
        mg_matrices[level].initialize(mf, mg_constrained_dofs, level);
        mg_matrices[level].set_lame_coefficients(float(lambda), float(mu));
      }
    gpumf::MGTransferMatrixFree<dim, float> mg_transfer(mg_constrained_dofs);
    mg_transfer.build(dof);

    using Smoother = PreconditionChebyshev<LevelMatrix, gpumf::Vector<float>>;
    mg::SmootherRelaxation<Smoother, gpumf::Vector<float>> mg_smoother;
    mg_smoother.initialize(mg_matrices, cantilever::smoother_data<Smoother>(mg_matrices));
    MGCoarseGridApplySmoother<gpumf::Vector<float>> mg_coarse;
    mg_coarse.initialize(mg_smoother);
    mg::Matrix<gpumf::Vector<float>> mg_matrix(mg_matrices);
    Multigrid<gpumf::Vector<float>>  mg(mg_matrix, mg_coarse, mg_transfer, mg_smoother, mg_smoother);
    PreconditionMG<dim, gpumf::Vector<float>, gpumf::MGTransferMatrixFree<dim, float>> preconditioner(dof,
                                                                                                      mg,
                                                                                                      mg_transfer);
    gpumf::synchronize(backend);
    result.setup_seconds = timer.wall_time();

    timer.restart();
    gpumf::Vector<double> rhs;
    system_matrix.initialize_dof_vector(rhs);
    system_matrix.initialize_dof_vector(solution);
    system_matrix.matrix_free().cell_loop(BodyForce(), solution, rhs);
    gpumf::synchronize(backend);
    result.rhs_seconds = timer.wall_time();

    timer.restart();
    SolverControl                   control(200, 1e-8 * rhs.l2_norm());
    SolverCG<gpumf::Vector<double>> cg(control);
    cg.solve(system_matrix, solution, rhs, preconditioner);
    gpumf::synchronize(backend);
    result.solve_seconds = timer.wall_time();
    result.iterations    = control.last_step();
    result.l2_norm       = solution.l2_norm();
    return result;
  }
} // namespace cantilever

int
main(int argc, char **argv)
{
  using namespace cantilever;
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
    {
      unsigned int n_refinements = 3;
      std::string  solver        = "gpumf";
      bool         check         = false;
      for (int i = 1; i < argc; ++i)
        {
          const std::string arg = argv[i];
          if (arg == "--refinements" && i + 1 < argc)
            n_refinements = std::stoi(argv[++i]);
          else if (arg == "--solver" && i + 1 < argc)
            solver = argv[++i];
          else if (arg == "--check")
            check = true;
          else
            throw std::invalid_argument("unknown argument " + arg +
                                        " (elasticity [--refinements r] [--solver gpumf|dealii|both] [--check])");
        }
      if (solver != "gpumf" && solver != "dealii" && solver != "both")
        throw std::invalid_argument("--solver gpumf, dealii or both, got " + solver);
      if (solver != "dealii")
        gpumf::select_device(MPI_COMM_WORLD);
      Timer              program;
      ConditionalOStream out(std::cout, Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0);
      Problem            problem(n_refinements);
      out << "cantilever: " << problem.triangulation.n_global_active_cells() << " cells, "
          << problem.dof_handler.n_dofs() << " DoFs, " << problem.triangulation.n_global_levels() << " levels, "
          << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " MPI ranks; mesh and DoFs " << std::fixed
          << std::setprecision(3) << problem.setup_seconds << " s" << std::endl;
      const auto report = [&](const std::string &name, const Result &r) {
        out << std::left << std::setw(28) << name << std::right << " CG " << std::setw(3) << r.iterations
            << " its, |u| " << std::scientific << std::setprecision(8) << r.l2_norm << ", sag " << r.sag << std::fixed
            << std::setprecision(3) << "; set-up " << r.setup_seconds << " s, rhs " << r.rhs_seconds << " s, CG "
            << r.solve_seconds << " s" << std::endl;
      };
      Result gpu, cpu;
      if (solver != "dealii")
        {
          gpumf::Vector<double> u;
          gpu = solve_with_gpumf(problem, u);
          dealii::LinearAlgebra::ReadWriteVector<double> owned(problem.dof_handler.locally_owned_dofs());
          u.export_to(owned, VectorOperation::insert);
          gpu.sag = largest_sag(problem, owned.begin());
          report("gpumf (" + gpumf::to_string(gpumf::default_backend()) + ")", gpu);
        }
      if (solver != "gpumf")
        {
          cpu = solve_with_dealii(problem);
          report("deal.II CPU MatrixFree", cpu);
        }
      bool         agree = true;
      const double beam =
        weight * std::pow(length, 4) / (8 * young / 12.) + weight * length * length / (2 * 5. / 6. * mu);
      out << "beam theory (Timoshenko): sag " << std::setprecision(4) << beam << std::endl;
      for (const Result *r : {&gpu, &cpu})
        if (r->iterations > 0 && std::abs(r->sag - beam) > 0.1 * beam)
          agree = false;
      if (solver == "both")
        {
          const double du = std::abs(gpu.l2_norm - cpu.l2_norm) / cpu.l2_norm,
                       ds = std::abs(gpu.sag - cpu.sag) / cpu.sag;
          out << "relative difference of |u|: " << std::scientific << std::setprecision(2) << du
              << ", of the sag: " << ds << std::endl;
          agree = agree && du < 1e-6 && ds < 1e-6 && std::abs(int(gpu.iterations) - int(cpu.iterations)) <= 1;
        }
      out << "whole program: " << std::fixed << std::setprecision(3) << program.wall_time() << " s" << std::endl;
      if (check)
        {
          out << (agree ? "PASSED" : "FAILED") << " check: the solvers agree and sag as the beam theory says"
              << std::endl;
          if (!agree)
            return 1;
        }
    }
  catch (std::exception &e)
    {
      std::cerr << "elasticity: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
