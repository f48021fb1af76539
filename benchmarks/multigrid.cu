// gpumf_multigrid: time to solution of a step-37-like Poisson problem (3D cube, zero Dirichlet
// values, right-hand side 1) with CG and a float geometric-multigrid V-cycle on the backend, and
// the share of the V-cycle spent in each part (smoothing, residual, restriction, prolongation,
// coarse solve), timed through deal.II's Multigrid signals with the device synchronized at
// each boundary (the synchronization adds a little to every part; --parts 0: no part timers,
// the solve runs as a program's does, without a synchronization inside).
//
//   [mpirun -np R] gpumf_multigrid [--degree 2|4] [--refinements N] [--subdivisions S] [--repeat K]
//                                  [--coarse cg|chebyshev] [--parts 0|1]
//
// The coarse level: Chebyshev (the default) as step-37 does (MGCoarseGridApplySmoother with the degree from
// the eigenvalue estimate, smoothing range 1e-3: no reduction in the V-cycle; its eigenvalue
// estimate is part of the set-up), or CG to a relative residual of 1e-6 (two global reductions
// per iteration).
//
// The mesh: the unit cube as S^3 coarse cells (default 1), refined N times. With several ranks
// (one GPU each) the vectors exchange by gpumf::exchange_method() (printed; GPUMF_EXCHANGE chooses).
//
// Prints the device, DoFs, setup and solve wall times, CG iterations, DoFs x iterations / s, and
// a table of the parts. deal.II's CPU figures for the same problem come from its own step-37
// (tests/step37_dealii), run in the same session (doc/performance.md).
#include <gpumf/mg_transfer.h>
#include <gpumf/operators.h>
#include <gpumf/setup_profile.h>

#include <deal.II/base/multithread_info.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  /// Seconds per V-cycle part, from Multigrid's signals (start/stop with the device synchronized).
  struct PartTimer
  {
    gpumf::Backend                backend;
    std::map<std::string, double> seconds;
    std::map<std::string, Timer>  running;

    std::function<void(const bool, const unsigned int)>
    slot(const std::string &part)
    {
      return [this, part](const bool start, const unsigned int) {
        gpumf::synchronize(backend);
        if (start)
          running[part].restart();
        else
          seconds[part] += running[part].wall_time();
      };
    }
  };

  template <int degree>
  void
  run(const unsigned int   subdivisions,
      const unsigned int   refinements,
      const unsigned int   repeat,
      const bool           chebyshev_coarse,
      const bool           time_parts,
      const gpumf::Backend backend)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    gpumf::reset_setup_profile();
    Timer                                     setup_timer;
    parallel::distributed::Triangulation<dim> tria(
      comm,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
    GridGenerator::subdivided_hyper_cube(tria, subdivisions, 0., 1.);
    tria.refine_global(refinements);
    const double         mesh_seconds = setup_timer.wall_time();
    const FE_Q<dim>      fe(degree);
    const MappingQ1<dim> mapping;
    DoFHandler<dim>      dof(tria);
    dof.distribute_dofs(fe);
    dof.distribute_mg_dofs();
    AffineConstraints<double> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    MGConstrainedDoFs mg_constrained_dofs;
    mg_constrained_dofs.initialize(dof);
    mg_constrained_dofs.make_zero_boundary_constraints(dof, {0});
    const double dealii_seconds = setup_timer.wall_time() - mesh_seconds;

    using SystemOperator = gpumf::LaplaceOperator<dim, degree, degree + 1, 1, double>;
    using LevelOperator  = gpumf::LaplaceOperator<dim, degree, degree + 1, 1, float>;
    using LevelVector    = gpumf::Vector<float>;
    using VectorType     = gpumf::Vector<double>;
    typename SystemOperator::AdditionalData system_data;
    system_data.backend        = backend;
    system_data.implementation = gpumf::Implementation::tensor_product;
    SystemOperator system;
    system.reinit(mapping, dof, constraints, QGauss<1>(degree + 1), system_data);

    const unsigned int                                              n_levels = tria.n_global_levels();
    MGLevelObject<LevelOperator>                                    operators(0, n_levels - 1);
    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> partitioners;
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        AffineConstraints<float> level_constraints;
        level_constraints.reinit(DoFTools::extract_locally_relevant_level_dofs(dof, level));
        level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
        level_constraints.close();
        typename gpumf::MatrixFree<dim, float>::AdditionalData data;
        data.backend  = backend;
        data.mg_level = level;
        auto mf       = std::make_shared<gpumf::MatrixFree<dim, float>>();
        mf->reinit(mapping, dof, level_constraints, QGauss<1>(degree + 1), data);
        operators[level].initialize(mf, mg_constrained_dofs, level);
        operators[level].compute_diagonal();
        partitioners.push_back(mf->get_vector_partitioner());
      }
    gpumf::MGTransferMatrixFree<dim, float> transfer(mg_constrained_dofs);
    transfer.build(dof, partitioners, backend);
    std::size_t gpumf_device_bytes = system.matrix_free().memory_consumption() + transfer.memory_consumption();
    for (unsigned int level = 0; level < n_levels; ++level)
      gpumf_device_bytes += operators[level].get_matrix_free()->memory_consumption();

    using Chebyshev = PreconditionChebyshev<LevelOperator, LevelVector>;
    MGLevelObject<typename Chebyshev::AdditionalData> smoother_data(0, n_levels - 1);
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        smoother_data[level].smoothing_range     = 15.;
        smoother_data[level].degree              = 5;
        smoother_data[level].eig_cg_n_iterations = 10;
        smoother_data[level].preconditioner      = operators[level].get_matrix_diagonal_inverse();
      }
    if (chebyshev_coarse)
      {
        // step-37's coarse solver: Chebyshev on level 0 to a residual reduction of 1e-3
        smoother_data[0].smoothing_range     = 1e-3;
        smoother_data[0].degree              = numbers::invalid_unsigned_int;
        smoother_data[0].eig_cg_n_iterations = operators[0].m();
      }
    mg::SmootherRelaxation<Chebyshev, LevelVector> smoother;
    smoother.initialize(operators, smoother_data);
    ReductionControl      coarse_control(1000, 1e-20, 1e-6, false, false);
    SolverCG<LevelVector> coarse_cg(coarse_control);
    PreconditionIdentity  identity;
    MGCoarseGridIterativeSolver<LevelVector, SolverCG<LevelVector>, LevelOperator, PreconditionIdentity> coarse_by_cg(
      coarse_cg, operators[0], identity);
    MGCoarseGridApplySmoother<LevelVector> coarse_by_chebyshev;
    coarse_by_chebyshev.initialize(smoother);
    const MGCoarseGridBase<LevelVector> &coarse =
      chebyshev_coarse ? static_cast<const MGCoarseGridBase<LevelVector> &>(coarse_by_chebyshev) : coarse_by_cg;
    mg::Matrix<LevelVector> mg_matrix(operators);
    Multigrid<LevelVector>  mg(mg_matrix, coarse, transfer, smoother, smoother);
    PreconditionMG<dim, LevelVector, gpumf::MGTransferMatrixFree<dim, float>> preconditioner(dof, mg, transfer);

    VectorType x, b;
    system.initialize_dof_vector(x);
    system.initialize_dof_vector(b);
    b = 1.; // f = 1 lumped: enough for timing (the iteration count is that of any smooth right-hand side)
    system.matrix_free().set_constrained_values(0., b);
    gpumf::synchronize(backend);
    const double setup = setup_timer.wall_time();

    PartTimer parts{backend, {}, {}};
    if (time_parts)
      {
        mg.connect_pre_smoother_step(parts.slot("pre-smoothing"));
        mg.connect_post_smoother_step(parts.slot("post-smoothing"));
        mg.connect_residual_step(parts.slot("residual"));
        mg.connect_restriction(parts.slot("restriction"));
        mg.connect_prolongation(parts.slot("prolongation"));
        mg.connect_coarse_solve(parts.slot("coarse solve"));
      }

    double              best       = 1e300;
    unsigned int        iterations = 0;
    std::vector<double> times;
    for (unsigned int r = 0; r < repeat; ++r)
      {
        parts.seconds.clear();
        x = 0.;
        gpumf::synchronize(backend);
        Timer                timer;
        SolverControl        control(100, 1e-10 * b.l2_norm());
        SolverCG<VectorType> cg(control);
        cg.solve(system, x, b, preconditioner);
        gpumf::synchronize(backend);
        const double time = timer.wall_time();
        iterations        = control.last_step();
        best              = std::min(best, time);
        times.push_back(time);
      }
    std::sort(times.begin(), times.end());
    const double                median = times[times.size() / 2];
    const gpumf::ExchangeMethod method = gpumf::exchange_method(comm, backend); // collective
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      {
        double parts_total = 0;
        for (const auto &[part, s] : parts.seconds)
          parts_total += s;
        std::cout << "device " << gpumf::device_name() << ", " << Utilities::MPI::n_mpi_processes(comm)
                  << " MPI ranks (exchange " << gpumf::to_string(method) << "); coarse solver "
                  << (chebyshev_coarse ? "Chebyshev" : "CG") << "; 3D FE_Q(" << degree << "), " << dof.n_dofs()
                  << " DoFs, " << n_levels << " levels, " << MultithreadInfo::n_threads() << " threads per rank\n"
                  << "setup " << setup << " s (mesh " << mesh_seconds << " s, deal.II DoFs and constraints "
                  << dealii_seconds << " s, gpumf " << setup - mesh_seconds - dealii_seconds << " s), solve " << best
                  << " s (best of " << repeat << ", median " << median << " s), " << iterations << " CG iterations, "
                  << dof.n_dofs() * double(iterations) / best / 1e9 << " GDoF x iterations / s\n"
                  << "gpumf set-up parts (rank 0):\n";
        gpumf::print_setup_profile(std::cout, "  ");
        std::cout << "gpumf data " << double(gpumf_device_bytes) / dof.n_dofs() << " bytes per DoF (MatrixFree "
                  << "objects of all levels and the transfer; device memory on the GPU backend)\n"
                  << "V-cycle parts (last solve, summed over levels):\n";
        for (const auto &[part, s] : parts.seconds)
          std::cout << "  " << std::setw(15) << std::left << part << std::setw(10) << std::right << std::fixed
                    << std::setprecision(4) << s << " s " << std::setw(6) << std::setprecision(1)
                    << 100. * s / parts_total << " %\n";
        std::cout << std::defaultfloat << "  (parts sum to " << parts_total << " s of the " << best
                  << " s solve; the rest is the outer CG, copy_to_mg/copy_from_mg and the synchronizations)"
                  << std::endl;
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  // gpumf's set-up uses deal.II's threads: all cores of the node, shared by its ranks
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, numbers::invalid_unsigned_int);
  unsigned int                     degree = 2, refinements = 5, subdivisions = 1, repeat = 3;
  bool                             chebyshev_coarse = true; // faster than CG on 1 and on 4 ranks (doc/performance.md)
  bool                             time_parts       = true;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (std::strcmp(argv[i], "--degree") == 0)
        degree = std::atoi(argv[i + 1]);
      else if (std::strcmp(argv[i], "--refinements") == 0)
        refinements = std::atoi(argv[i + 1]);
      else if (std::strcmp(argv[i], "--subdivisions") == 0)
        subdivisions = std::max(1, std::atoi(argv[i + 1]));
      else if (std::strcmp(argv[i], "--repeat") == 0)
        repeat = std::max(1, std::atoi(argv[i + 1]));
      else if (std::strcmp(argv[i], "--coarse") == 0 &&
               (std::strcmp(argv[i + 1], "cg") == 0 || std::strcmp(argv[i + 1], "chebyshev") == 0))
        chebyshev_coarse = std::strcmp(argv[i + 1], "chebyshev") == 0;
      else if (std::strcmp(argv[i], "--parts") == 0)
        time_parts = std::atoi(argv[i + 1]) != 0;
      else
        {
          std::cerr << "usage: gpumf_multigrid [--degree 2|4] [--refinements N] [--subdivisions S] [--repeat K] "
                       "[--coarse cg|chebyshev] [--parts 0|1]"
                    << std::endl;
          return 1;
        }
    }
  const gpumf::Backend backend = gpumf::default_backend();
  if (backend == gpumf::Backend::cuda)
    gpumf::select_device(MPI_COMM_WORLD);
  if (degree == 2)
    run<2>(subdivisions, refinements, repeat, chebyshev_coarse, time_parts, backend);
  else if (degree == 4)
    run<4>(subdivisions, refinements, repeat, chebyshev_coarse, time_parts, backend);
  else
    {
      std::cerr << "gpumf_multigrid: --degree 2 or 4" << std::endl;
      return 1;
    }
  return 0;
}
