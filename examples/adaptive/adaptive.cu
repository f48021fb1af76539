/*
 * gpumf tutorial: an adaptive Poisson solver whose linear systems are solved on the GPU.
 *
 * We solve  -laplace u = f  with the inhomogeneous Dirichlet condition u = g on the whole
 * boundary, on a mesh refined adaptively by an error estimator, in the classical loop of a
 * deal.II tutorial program:
 *
 *   solve -> estimate -> mark -> refine -> solve -> ...
 *
 * - 2D (default): the L-shaped domain (-1,1)^2 \ [0,1)^2 and the exact solution
 *   u = r^{2/3} sin(2 phi / 3), singular at the re-entrant corner (f = 0, g = u);
 * - 3D (`--dim 3`): the spherical shell 0.5 < |x| < 1, curved, with a smooth u.
 *
 * The mesh work is plain deal.II on the host and lives in problem.{h,cc}: the
 * parallel::distributed::Triangulation, FE_Q(p), MappingQ(p), hanging-node and Dirichlet
 * constraints, Kelly's error estimator and parallel::distributed::GridRefinement, and the VTU
 * output (and, for deal.II's solver, the L2 and H1 errors by VectorTools::integrate_difference).
 * This file holds the GPU solve with
 * gpumf::LaplaceOperator and deal.II's SolverCG, where the right-hand side (one cell loop with
 * the Dirichlet lift read by read_dof_values_plain(), see the recipe below) and the errors
 * (gpumf::VectorTools::integrate_difference) are computed on the GPU too, and the main loop. With
 * `--solver dealii` the same problem is solved by deal.II's CPU MatrixFree
 * (dealii_solver.cc), with `--solver both` by both on the same mesh (refined from gpumf's
 * solution), and the column rel.diff shows how far their errors differ. Both run CG to the
 * same relative tolerance (1e-10) with the same exact Jacobi preconditioner, so they take the
 * same iterations and the errors agree to ~1e-9; only where the discretization error falls to
 * the size of CG's algebraic error (L2 errors near 1e-9 at degrees 3 and 4) do the L2 errors
 * part, as both are then mostly the algebraic error.
 *
 * Each cycle's line: the mesh (cells, DoFs), the CG iterations, the errors and the wall seconds
 * of set-up, solve and errors (s: operator set-up, diagonal, right-hand side, CG, errors) of each solver,
 * and the observed convergence rates with respect to the number of DoFs N: the slope of
 * log(error) over log(N) between this cycle and the previous. Adaptive refinement recovers the
 * rates of a smooth solution, N^{-(p+1)/dim} in L2 and N^{-p/dim} in H1, where uniform
 * refinement (`--uniform`) of the L-shape is stuck at N^{-1/3} in H1 and N^{-2/3} in L2.
 * Below it, a line per solver with the phases of s: the operator's set-up, the diagonal,
 * the right-hand side, CG (and its time per iteration), the errors, and the rest (moves to and
 * from the host, the constraints' distribute()); with the CUDA backend each phase ends with a
 * device synchronization, so that the kernels are counted in the phase that launched them.
 * At the end, where the whole run went (deal.II's TimerOutput: mesh, DoFs and constraints, the
 * solves, the estimator, output) and the program's wall time.
 *
 *   adaptive [--dim 2|3] [--degree 1..4] [--cycles N] [--solver gpumf|dealii|both]
 *            [--uniform] [--output] [--profile]
 *
 * `--profile` prints, below each cycle, where gpumf's set-up time went (gpumf::print_setup_profile():
 * the parts of MatrixFree::reinit() and compute_diagonal()).
 *
 * The backend comes from the environment: GPUMF_BACKEND=cuda|host|auto (default auto: the GPU
 * when there is one). Without a GPU the gpumf solve runs on gpumf's host reference backend,
 * correct but slow.
 */
#include <gpumf/backend.h>
#include <gpumf/error_estimator.h>
#include <gpumf/operators.h>
#include <gpumf/setup_profile.h>
#include <gpumf/vector.h>
#include <gpumf/vector_tools.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/read_write_vector.h>
#include <deal.II/lac/solver_cg.h>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>

#include "dealii_solver.h"
#include "problem.h"

namespace adaptive
{
  /**
   * @section recipe Inhomogeneous Dirichlet conditions with matrix-free operators
   *
   * A matrix-free operator applies its constraints homogeneously: a constrained DoF is read as
   * zero (Dirichlet) or as the interpolation of its masters (hanging node), and its row is the
   * identity. This is how deal.II's MatrixFreeOperators work, and gpumf's operators do the
   * same. The inhomogeneous boundary values therefore go to the right-hand side, through a
   * lift u0 that carries them:
   *
   * 1. One operator `op` with all constraints (hanging nodes and Dirichlet): the system matrix.
   * 2. The lift u0: zero except the boundary values, and the hanging nodes interpolated from
   *    them: `gpumf::VectorTools::distribute_constraints(mf, constraints, u0)` on a vector of
   *    zeros, on the backend (deal.II's program: `constraints.distribute(u0)` on the host,
   *    Problem::dirichlet_lift()).
   * 3. rhs = b - A u0 in one cell loop on op's MatrixFree (LiftedRightHandSide below): per cell,
   *    f at the points tested by the shape functions, minus grad u0 tested by their gradients,
   *    with u0 read by read_dof_values_plain() (its boundary values as they are: read_dof_values()
   *    would read them as zero) and the result distributed through op's constraints
   *    (homogeneously: nothing into Dirichlet DoFs, hanging nodes into their masters).
   * 4. Solve op x = rhs (CG, Jacobi). x is zero on the constrained DoFs.
   * 5. u = x + u0 (on the unconstrained DoFs; x adds nothing elsewhere), then
   *    `distribute_constraints(mf, constraints, u)` on the backend writes the boundary values and
   *    the hanging nodes; the errors and Kelly's estimate (gpumf::KellyErrorEstimator, deal.II's
   *    arguments) are computed there, and `gpumf::host_copy()` gives the output u with its ghost
   *    values, only where there is output (deal.II's program: Problem::add_lift_and_distribute(),
   *    Problem::estimate() on the host).
   */
  template <int dim, int degree>
  struct LiftedRightHandSide
  {
    using FEEval = gpumf::FEEvaluation<dim, degree, degree + 1, 1, double>;

    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double                                        *u0,
               double                                              *dst) const
    {
      FEEval phi(cell, data, shared);
      phi.read_dof_values_plain(u0);
      phi.evaluate(false, true);
      phi.apply_for_each_quad_point([](FEEval *p, const unsigned int q) {
        p->submit_gradient(-p->get_gradient(q), q);
        p->submit_value(RightHandSideFormula<dim>().value(p->quadrature_point(q)), q);
      });
      phi.integrate(true, true);
      phi.distribute_local_to_global(dst);
    }
  };

  template <int dim>
  using MatrixFree = gpumf::MatrixFree<dim, double>;

  template <int dim, int degree>
  SolverResult
  solve_with_gpumf(const Problem<dim>    &problem,
                   gpumf::Vector<double> &solution,
                   Errors                &errors,
                   const gpumf::Backend   backend)
  {
    Timer        timer;
    SolverResult result;
    // the wall seconds since the last call (the device synchronized first: kernels run asynchronously)
    double     last = 0;
    const auto lap  = [&]() {
      gpumf::synchronize(backend);
      const double now = timer.wall_time(), seconds = now - last;
      last = now;
      return seconds;
    };
    const auto detail = [&](const char *name) {
      const double seconds = lap();
      result.details.emplace_back(name, seconds);
      return seconds;
    };

    // 1. The operator. reinit() computes the geometry with deal.II's FEValues and the
    //    MappingQ and copies it, with the DoF indices and constraints, to the backend.
    typename gpumf::MatrixFree<dim, double>::AdditionalData data;
    data.backend = backend;
    const QGauss<1>                                 quadrature(degree + 1);
    gpumf::LaplaceOperator<dim, degree, degree + 1> op;
    op.reinit(problem.mapping, problem.dof_handler, problem.constraints, quadrature, data);
    result.setup = lap();
    op.compute_diagonal(); // exact, also at hanging nodes
    result.diagonal = lap();

    // 2. The lift u0 on the backend: the constraints' values distributed into a zero vector.
    const MatrixFree<dim> &mf = op.matrix_free();
    gpumf::Vector<double>  u0, rhs, x;
    mf.initialize_dof_vector(u0);
    mf.initialize_dof_vector(rhs);
    mf.initialize_dof_vector(x);
    result.rhs = detail("rhs: three vectors on the backend");
    gpumf::VectorTools::distribute_constraints(mf, problem.constraints, u0);
    result.rhs += detail("rhs: the lift u0 (distribute_constraints)");

    // 3. rhs = b - A u0 in one cell loop on the backend, zero where op is constrained.
    mf.cell_loop(LiftedRightHandSide<dim, degree>(), u0, rhs, true);
    mf.set_constrained_values(0., rhs);
    result.rhs += detail("rhs: b - A u0 (cell loop)");

    // 4. deal.II's CG on gpumf vectors, preconditioned with the inverse diagonal.
    SolverControl                   control(10000, relative_tolerance * rhs.l2_norm());
    SolverCG<gpumf::Vector<double>> cg(control);
    cg.solve(op, x, rhs, *op.get_matrix_diagonal_inverse());
    result.cg = lap();

    // 5. u = x + u0 and the constraints, on the backend.
    x += u0;
    gpumf::VectorTools::distribute_constraints(mf, problem.constraints, x);
    result.iterations = control.last_step();
    detail("rest: u = x + u0, distribute_constraints");

    // 6. The errors on the backend: the distributed solution (constrained DoFs with their
    //    values) against the exact solution at op's quadrature points, as
    //    Problem::compute_errors() does on the host.
    errors.l2     = gpumf::VectorTools::integrate_difference<degree, degree + 1>(mf,
                                                                             x,
                                                                             ExactFormula<dim>(),
                                                                             gpumf::VectorTools::L2_norm);
    errors.h1     = gpumf::VectorTools::integrate_difference<degree, degree + 1>(mf,
                                                                             x,
                                                                             ExactFormula<dim>(),
                                                                             gpumf::VectorTools::H1_seminorm);
    result.errors = lap();

    // 7. u for Kelly's estimator on the backend and the output on the host.
    solution.swap(x);
    result.seconds = timer.wall_time();
    return result;
  }

  /// The operator's degree is a template argument: one instantiation per degree.
  template <int dim>
  SolverResult
  solve_with_gpumf(const Problem<dim>    &problem,
                   gpumf::Vector<double> &solution,
                   Errors                &errors,
                   const gpumf::Backend   backend)
  {
    switch (problem.fe.degree)
      {
        case 1:
          return solve_with_gpumf<dim, 1>(problem, solution, errors, backend);
        case 2:
          return solve_with_gpumf<dim, 2>(problem, solution, errors, backend);
        case 3:
          return solve_with_gpumf<dim, 3>(problem, solution, errors, backend);
        case 4:
          return solve_with_gpumf<dim, 4>(problem, solution, errors, backend);
        default:
          AssertThrow(false, ExcMessage("adaptive: FE_Q degrees 1 to 4 are instantiated"));
          return {};
      }
  }

  // @sect3{Options and the table}

  struct Options
  {
    unsigned int dim     = 2;
    unsigned int degree  = 2;
    unsigned int cycles  = 8;
    bool         gpumf   = true;
    bool         dealii  = false;
    bool         uniform = false;
    bool         output  = false;
    bool         profile = false;
  };

  Options
  parse(int argc, char **argv)
  {
    const char *usage = "usage: adaptive [--dim 2|3] [--degree 1..4] [--cycles N] [--solver gpumf|dealii|both] "
                        "[--uniform] [--output] [--profile]";
    Options     options;
    for (int i = 1; i < argc; ++i)
      {
        const std::string arg   = argv[i];
        const bool        value = i + 1 < argc;
        if (arg == "--dim" && value)
          options.dim = std::atoi(argv[++i]);
        else if (arg == "--degree" && value)
          options.degree = std::atoi(argv[++i]);
        else if (arg == "--cycles" && value)
          options.cycles = std::atoi(argv[++i]);
        else if (arg == "--solver" && value)
          {
            const std::string solver = argv[++i];
            AssertThrow(solver == "gpumf" || solver == "dealii" || solver == "both", ExcMessage(usage));
            options.gpumf  = solver != "dealii";
            options.dealii = solver != "gpumf";
          }
        else if (arg == "--uniform")
          options.uniform = true;
        else if (arg == "--output")
          options.output = true;
        else if (arg == "--profile")
          options.profile = true;
        else
          AssertThrow(false, ExcMessage(usage));
      }
    AssertThrow(options.dim == 2 || options.dim == 3, ExcMessage(usage));
    AssertThrow(options.degree >= 1 && options.degree <= 4, ExcMessage(usage));
    AssertThrow(options.cycles >= 1, ExcMessage(usage));
    return options;
  }

  /// One line of the table (single-word column names, so that scripts find them by name).
  std::string
  header(const Options &options)
  {
    std::ostringstream line;
    line << std::setw(5) << "cycle" << std::setw(9) << "cells" << std::setw(10) << "DoFs";
    for (const std::string name : {"gpumf", "deal.II"})
      if ((name == "gpumf" && options.gpumf) || (name == "deal.II" && options.dealii))
        line << std::setw(13) << "its(" + name + ")" << std::setw(15) << "L2(" + name + ")" << std::setw(15)
             << "H1(" + name + ")" << std::setw(13) << "s(" + name + ")";
    if (options.gpumf && options.dealii)
      line << std::setw(10) << "rel.diff";
    line << std::setw(10) << "rate(L2)" << std::setw(10) << "rate(H1)";
    return line.str();
  }

  /// The phases of one solve, a line below the table's row (the first word is not a number).
  std::string
  phases(const std::string &name, const SolverResult &result)
  {
    std::ostringstream line;
    line << std::fixed << std::setprecision(4) << "      " << name << " seconds: setup " << result.setup
         << ", diagonal " << result.diagonal << ", rhs " << result.rhs << ", CG " << result.cg << " ("
         << std::setprecision(3) << 1e3 * result.cg / std::max(result.iterations, 1u) << " ms/iteration), errors "
         << std::setprecision(4) << result.errors << ", other "
         << result.seconds - result.setup - result.diagonal - result.rhs - result.cg - result.errors;
    return line.str();
  }

  // @sect3{The adaptive loop}

  template <int dim>
  void
  run(const Options &options, const gpumf::Backend backend, ConditionalOStream &pcout)
  {
    // Where the whole run goes, by phase (a table at the end): deal.II's own host work (mesh,
    // DoFs and constraints, the host right-hand side and errors of deal.II's solver, Kelly's
    // estimator, output) beside the solves.
    TimerOutput  timer(pcout, TimerOutput::summary, TimerOutput::wall_times);
    Problem<dim> problem(MPI_COMM_WORLD, options.degree);
    pcout << "-laplace u = f on "
          << (dim == 2 ? "the L-shaped domain, u = r^(2/3) sin(2 phi/3)" :
                         "the shell 0.5 < |x| < 1, u = sin(pi x) cos(pi y) exp(z)")
          << ", FE_Q(" << options.degree << "), MappingQ(" << options.degree << "), "
          << (options.uniform ? "uniform" : "adaptive") << " refinement" << std::endl
          << std::fixed << std::setprecision(3) << "expected rates vs DoFs with adaptivity: L2 "
          << -(options.degree + 1.) / dim << ", H1 " << -double(options.degree) / dim << std::defaultfloat << std::endl
          << header(options) << std::endl;

    Errors previous;
    double previous_dofs = 0, gpumf_seconds = 0, dealii_seconds = 0;
    for (unsigned int cycle = 0; cycle < options.cycles; ++cycle)
      {
        // with --profile: deal.II's host phases of this cycle, fastest and slowest rank
        std::vector<std::pair<std::string, double>> host_phases;
        Timer                                       phase_timer;
        {
          TimerOutput::Scope scope(timer, "mesh: make_grid(), refine() (deal.II, host)");
          if (cycle == 0)
            problem.make_grid();
          else
            problem.refine(options.uniform);
        }
        host_phases.emplace_back("deal.II host: mesh", phase_timer.wall_time());
        phase_timer.restart();
        {
          TimerOutput::Scope scope(timer, "DoFs and constraints (deal.II, host)");
          problem.setup_system();
        }
        host_phases.emplace_back("deal.II host: DoFs and constraints", phase_timer.wall_time());

        // Solve with one or both; the solution of the first drives the refinement.
        std::ostringstream line;
        line << std::setw(5) << cycle << std::setw(9) << problem.triangulation.n_global_active_cells() << std::setw(10)
             << problem.dof_handler.n_dofs();
        VectorType                                  solution;
        gpumf::Vector<double>                       gpumf_solution;
        Errors                                      errors, gpumf_errors;
        std::string                                 phase_lines;
        std::vector<std::pair<std::string, double>> gpumf_details;
        if (options.gpumf)
          {
            gpumf::reset_setup_profile();
            TimerOutput::Scope scope(timer, "gpumf: set-up, solve, rhs and errors on the backend");
            const SolverResult result = solve_with_gpumf(problem, gpumf_solution, gpumf_errors, backend);
            errors                    = gpumf_errors;
            gpumf_details             = result.details;
            gpumf_seconds += result.seconds;
            phase_lines += phases("gpumf", result) + "\n";
            line << std::setw(13) << result.iterations << std::scientific << std::setprecision(6) << std::setw(15)
                 << errors.l2 << std::setw(15) << errors.h1 << std::defaultfloat << std::setprecision(4)
                 << std::setw(13) << result.seconds;
          }
        if (options.dealii)
          {
            VectorType   dealii_solution;
            SolverResult result;
            {
              TimerOutput::Scope scope(timer, "deal.II CPU MatrixFree: set-up and solve");
              result = solve_with_dealii(problem, dealii_solution);
            }
            Errors dealii_errors;
            {
              TimerOutput::Scope scope(timer, "errors for deal.II's solver (host)");
              Timer              errors_timer;
              dealii_errors = problem.compute_errors(dealii_solution);
              result.errors = errors_timer.wall_time();
              result.seconds += result.errors;
            }
            dealii_seconds += result.seconds;
            phase_lines += phases("deal.II", result) + "\n";
            line << std::setw(13) << result.iterations << std::scientific << std::setprecision(6) << std::setw(15)
                 << dealii_errors.l2 << std::setw(15) << dealii_errors.h1 << std::defaultfloat << std::setprecision(4)
                 << std::setw(13) << result.seconds;
            if (options.gpumf)
              {
                // relative difference of the two solvers' errors, the larger of L2 and H1
                const double difference = std::max(std::abs(gpumf_errors.l2 - dealii_errors.l2) / dealii_errors.l2,
                                                   std::abs(gpumf_errors.h1 - dealii_errors.h1) / dealii_errors.h1);
                line << std::setprecision(2) << std::setw(10) << difference;
              }
            else
              {
                errors   = dealii_errors;
                solution = dealii_solution;
              }
            line << std::defaultfloat;
          }

        // Rates: slope of log(error) over log(DoFs) since the previous cycle.
        const double dofs = problem.dof_handler.n_dofs();
        line << std::fixed << std::setprecision(3);
        if (cycle == 0)
          line << std::setw(10) << "-" << std::setw(10) << "-";
        else
          line << std::setw(10) << std::log(errors.l2 / previous.l2) / std::log(dofs / previous_dofs) << std::setw(10)
               << std::log(errors.h1 / previous.h1) / std::log(dofs / previous_dofs);
        pcout << line.str() << std::endl << phase_lines << std::flush;
        if (options.profile && options.gpumf)
          {
            // the parts of the rhs phase and of the rest, fastest and slowest rank
            for (const auto &[name, seconds] : gpumf_details)
              {
                const Utilities::MPI::MinMaxAvg spread = Utilities::MPI::min_max_avg(seconds, MPI_COMM_WORLD);
                pcout << "      " << std::setw(48) << std::left << name << std::right << std::fixed
                      << std::setprecision(4) << " min " << spread.min << " s, max " << spread.max << " s"
                      << std::defaultfloat << std::endl;
              }
          }
        previous      = errors;
        previous_dofs = dofs;

        phase_timer.restart();
        if (options.gpumf)
          {
            // deal.II's arguments, on the backend
            TimerOutput::Scope scope(timer, "Kelly error estimator (gpumf, backend)");
            gpumf::KellyErrorEstimator<dim>::estimate(problem.mapping,
                                                      problem.dof_handler,
                                                      QGauss<dim - 1>(problem.fe.degree + 1),
                                                      {},
                                                      gpumf_solution,
                                                      problem.estimated_error);
            host_phases.emplace_back("gpumf: Kelly's estimator", phase_timer.wall_time());
          }
        else
          {
            TimerOutput::Scope scope(timer, "Kelly error estimator (deal.II, host)");
            problem.estimate(solution);
            host_phases.emplace_back("deal.II host: Kelly's estimator", phase_timer.wall_time());
          }
        if (options.profile)
          {
            for (const auto &[name, seconds] : host_phases)
              {
                const Utilities::MPI::MinMaxAvg spread = Utilities::MPI::min_max_avg(seconds, MPI_COMM_WORLD);
                pcout << "      " << std::setw(48) << std::left << name << std::right << std::fixed
                      << std::setprecision(4) << " min " << spread.min << " s, max " << spread.max << " s"
                      << std::defaultfloat << std::endl;
              }
            // the operator's set-up and Kelly's estimator, by part
            if (options.gpumf)
              gpumf::print_setup_profile(std::cout, "      set-up ", MPI_COMM_WORLD);
          }
        if (options.output)
          {
            TimerOutput::Scope scope(timer, "output (deal.II, host)");
            if (options.gpumf)
              solution = gpumf::host_copy(gpumf_solution, problem.locally_relevant_dofs);
            problem.output(solution, cycle);
          }
      }
    if (options.gpumf)
      pcout << "gpumf (" << gpumf::to_string(backend) << ") setup + solve + errors: " << gpumf_seconds << " s"
            << std::endl;
    if (options.dealii)
      pcout << "deal.II CPU MatrixFree setup + solve + errors: " << dealii_seconds << " s" << std::endl;
  }
} // namespace adaptive

int
main(int argc, char **argv)
{
  using namespace dealii;
  // gpumf's set-up runs in deal.II's threads: all cores of the node, shared by its ranks
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, numbers::invalid_unsigned_int);
  Timer                            whole_program;
  try
    {
      const MPI_Comm          comm    = MPI_COMM_WORLD;
      const adaptive::Options options = adaptive::parse(argc, argv);
      ConditionalOStream      pcout(std::cout, Utilities::MPI::this_mpi_process(comm) == 0);
      // The GPU of this rank, or the host backend; only asked for when gpumf solves.
      const gpumf::Backend backend = options.gpumf ? gpumf::select_device(comm) : gpumf::Backend::host;
      pcout << "gpumf " << GPUMF_VERSION << ": adaptive Poisson, " << Utilities::MPI::n_mpi_processes(comm)
            << " MPI rank(s)";
      if (options.gpumf)
        pcout << ", gpumf backend " << gpumf::to_string(backend) << " (" << gpumf::device_name() << ")";
      pcout << std::endl;
      if (options.dim == 2)
        adaptive::run<2>(options, backend, pcout);
      else
        adaptive::run<3>(options, backend, pcout);
      pcout << "whole program (after MPI_Init): " << whole_program.wall_time() << " s" << std::endl;
    }
  catch (std::exception &exc)
    {
      std::cerr << "Exception: " << exc.what() << std::endl;
      return 1;
    }
  return 0;
}
