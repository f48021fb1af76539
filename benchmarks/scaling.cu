// gpumf_scaling: strong and weak scaling of the Laplace operator over MPI ranks, one GPU per
// rank (gpumf::select_device; consecutive ranks share a GPU when there are more ranks than GPUs),
// for each exchange method and with and without overlap of
// communication and computation (doc/performance.md, "Several GPUs").
//
//   mpirun -np R gpumf_scaling [--dofs N] [--per-rank] [--repeat K] [--cg-iterations I]
//                              [--methods m1,m2,...] [--csv file]
//
// 3D Cartesian box (subdivided hyper-rectangle, refined twice), FE_Q degree 4, Gauss with 5
// points, LaplaceOperator (tensor product, atomics), homogeneous Dirichlet values on the whole
// boundary. --dofs N: about N DoFs in all (strong scaling), or per rank with --per-rank (weak
// scaling). --methods: the values of GPUMF_EXCHANGE to run (default: every method this machine
// has: nccl where exchange_method() chooses it, ipc where it can serve (ranks of one node), mpi
// where MPI is CUDA-aware, staged_mpi).
//
// Reported per method and overlap setting (the median of K rounds, each between barriers with the
// device synchronized, slowest rank):
// - vmult: one operator application; GDoF/s of the whole machine;
// - the ghost exchange alone (update_ghost_values + compress(add) of one vector);
// - the split of a vmult (gpumf::cell_loop_profile(), one loop per round, on the rank with the
//   most boundary work): interior cells, boundary cells, and what the cells did not hide
//   (packing, messages, waits, and waiting for other ranks);
// - one CG iteration (gpumf::SolverCG with the Jacobi preconditioner, I iterations, time / I), with
//   a new solver for each solve (as a program's solve() makes one) and with one solver for all.
// The copy bandwidth of each rank's GPU (the roofline) is measured in the same run.
#include <gpumf/operators.h>
#include <gpumf/setup_profile.h>
#include <gpumf/solver_cg.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "benchmark.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3, degree = 4;
  using Operator = gpumf::LaplaceOperator<dim, degree, degree + 1>;

  /// Median over @p repeat rounds of the slowest rank's wall time of @p body (barriers and
  /// device synchronization around each round).
  template <typename Body>
  double
  median_time(const MPI_Comm comm, const gpumf::Backend backend, const unsigned int repeat, const Body &body)
  {
    std::vector<double> times;
    for (unsigned int r = 0; r < repeat; ++r)
      {
        gpumf::synchronize(backend);
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        body();
        gpumf::synchronize(backend);
        times.push_back(Utilities::MPI::max(MPI_Wtime() - start, comm));
      }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

  std::vector<std::string>
  split(const std::string &list)
  {
    std::vector<std::string> items;
    std::stringstream        in(list);
    for (std::string item; std::getline(in, item, ',');)
      if (!item.empty())
        items.push_back(item);
    return items;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const MPI_Comm                   comm          = MPI_COMM_WORLD;
  double                           target        = 1e7;
  bool                             per_rank      = false;
  unsigned int                     repeat        = 20;
  unsigned int                     cg_iterations = 50;
  std::string                      csv, methods_list;
  for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      if (arg == "--dofs" && i + 1 < argc)
        target = std::atof(argv[++i]);
      else if (arg == "--per-rank")
        per_rank = true;
      else if (arg == "--repeat" && i + 1 < argc)
        repeat = std::max(1, std::atoi(argv[++i]));
      else if (arg == "--cg-iterations" && i + 1 < argc)
        cg_iterations = std::max(1, std::atoi(argv[++i]));
      else if (arg == "--methods" && i + 1 < argc)
        methods_list = argv[++i];
      else if (arg == "--csv" && i + 1 < argc)
        csv = argv[++i];
      else
        {
          std::cerr << "usage: gpumf_scaling [--dofs N] [--per-rank] [--repeat K] [--cg-iterations I] "
                       "[--methods ipc,nccl,mpi,staged_mpi] [--csv file]"
                    << std::endl;
          return 1;
        }
    }
  const unsigned int   n_ranks = Utilities::MPI::n_mpi_processes(comm);
  const bool           root    = Utilities::MPI::this_mpi_process(comm) == 0;
  const gpumf::Backend backend = gpumf::select_device(comm);
  if (per_rank)
    target *= n_ranks;

  std::vector<std::string> methods = split(methods_list);
  if (methods.empty())
    {
      unsetenv("GPUMF_EXCHANGE");
      if (gpumf::exchange_method(comm, backend) == gpumf::ExchangeMethod::nccl)
        methods.push_back("nccl");
      setenv("GPUMF_EXCHANGE", "ipc", 1);
      if (gpumf::exchange_method(comm, backend) == gpumf::ExchangeMethod::ipc)
        methods.push_back("ipc");
      unsetenv("GPUMF_EXCHANGE");
      if (backend == gpumf::Backend::host || gpumf::cuda_aware_mpi())
        methods.push_back("mpi");
      methods.push_back("staged_mpi");
    }

  // the roofline of every rank's GPU, before the problem takes its memory
  const double bandwidth     = bench::copy_bandwidth(backend, 2e9, 20);
  const double bandwidth_min = Utilities::MPI::min(bandwidth, comm);
  const double bandwidth_max = Utilities::MPI::max(bandwidth, comm);

  // a box of n1 x n2 x n3 coarse cells refined twice, about target DoFs (degree^3 per cell)
  const double              cells = target / std::pow(degree, dim) / 64.;
  const unsigned int        n     = std::max(1u, static_cast<unsigned int>(std::cbrt(cells)));
  std::vector<unsigned int> subdivisions{n, n, std::max(1u, static_cast<unsigned int>(std::round(cells / n / n)))};
  Timer                     setup_timer;
  parallel::distributed::Triangulation<dim> tria(comm);
  GridGenerator::subdivided_hyper_rectangle(tria,
                                            subdivisions,
                                            Point<dim>(),
                                            Point<dim>(subdivisions[0], subdivisions[1], subdivisions[2]));
  tria.refine_global(2);
  DoFHandler<dim> dof(tria);
  dof.distribute_dofs(FE_Q<dim>(degree));
  AffineConstraints<double> constraints;
  constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
  VectorTools::interpolate_boundary_values(MappingQ1<dim>(), dof, 0, Functions::ZeroFunction<dim>(), constraints);
  constraints.close();

  std::ofstream out;
  if (root && !csv.empty())
    {
      out.open(csv, std::ios::app);
      if (out.tellp() == 0)
        out << "device,ranks,mode,method,dofs,overlap,vmult_ms,exchange_ms,interior_ms,boundary_ms,not_hidden_ms,"
               "cg_iteration_ms,gdofs,copy_gbs_min,copy_gbs_max,cg_iteration_reused_ms\n";
    }
  if (root)
    std::cout << "device " << gpumf::device_name() << ", " << n_ranks << " ranks (" << (per_rank ? "weak" : "strong")
              << " scaling), " << dof.n_dofs() << " DoFs, " << tria.n_global_active_cells() << " cells; copy roofline "
              << bandwidth_min * 1e-9 << "-" << bandwidth_max * 1e-9 << " GB/s per GPU; CUDA-aware MPI "
              << (gpumf::cuda_aware_mpi() ? "yes" : "no") << std::endl;

  Operator                          op;
  typename Operator::AdditionalData data;
  data.backend        = backend;
  data.implementation = gpumf::Implementation::tensor_product;
  for (const bool overlap : {false, true})
    {
      data.overlap_communication_computation = overlap;
      op.reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(degree + 1), data);
      op.compute_diagonal();
      gpumf::Vector<double> src, dst, x, b;
      op.initialize_dof_vector(src);
      op.initialize_dof_vector(dst);
      op.initialize_dof_vector(x);
      op.initialize_dof_vector(b);
      src = 1.;
      b   = 1.;
      op.matrix_free().set_constrained_values(0., b);
      for (const std::string &method : methods)
        {
          setenv("GPUMF_EXCHANGE", method.c_str(), 1);
          const std::string used = gpumf::to_string(gpumf::exchange_method(comm, backend));
          for (unsigned int i = 0; i < 5; ++i)
            op.vmult(dst, src);
          const double vmult    = median_time(comm, backend, repeat, [&] { op.vmult(dst, src); });
          const double exchange = median_time(comm, backend, repeat, [&] {
            src.update_ghost_values();
            src.compress(VectorOperation::add);
          });
          gpumf::enable_cell_loop_profile(true);
          for (unsigned int r = 0; r < repeat; ++r)
            op.vmult(dst, src);
          gpumf::CellLoopProfile split = gpumf::cell_loop_profile();
          // the rank with the most boundary work, and its own rest
          const double boundary_max = Utilities::MPI::max(split.boundary, comm);
          const int    busiest      = Utilities::MPI::min(
            split.boundary == boundary_max ? int(Utilities::MPI::this_mpi_process(comm)) : int(n_ranks), comm);
          double parts[3] = {split.interior, split.boundary, split.not_hidden};
          AssertThrowMPI(MPI_Bcast(parts, 3, MPI_DOUBLE, busiest, comm));
          split.interior   = parts[0];
          split.boundary   = parts[1];
          split.not_hidden = parts[2];
          gpumf::enable_cell_loop_profile(false);
          const double cg = median_time(comm,
                                        backend,
                                        3,
                                        [&] {
                                          x = 0.;
                                          IterationNumberControl  control(cg_iterations, 1e-300, false, false);
                                          gpumf::SolverCG<double> solver(control);
                                          solver.solve(op, x, b, *op.get_matrix_diagonal_inverse());
                                        }) /
                            cg_iterations;
          // the same with one solver for all solves: its vectors, and their ipc links, made once
          IterationNumberControl  reused_control(cg_iterations, 1e-300, false, false);
          gpumf::SolverCG<double> reused(reused_control);
          const double            cg_reused = median_time(comm,
                                               backend,
                                               3,
                                               [&] {
                                                 x = 0.;
                                                 reused.solve(op, x, b, *op.get_matrix_diagonal_inverse());
                                               }) /
                                   cg_iterations;
          const double gdofs = dof.n_dofs() / vmult * 1e-9;
          const double per   = 1e3 / std::max(1u, split.loops);
          if (root)
            {
              std::cout << "  " << std::setw(10) << used << " overlap " << (overlap ? "on " : "off") << ": vmult "
                        << std::setprecision(4) << vmult * 1e3 << " ms (" << gdofs << " GDoF/s; interior "
                        << split.interior * per << ", boundary " << split.boundary * per << ", not hidden "
                        << split.not_hidden * per << " ms), exchange alone " << exchange * 1e3 << " ms, CG iteration "
                        << cg * 1e3 << " ms (a new solver each solve; one solver for all " << cg_reused * 1e3 << " ms)"
                        << std::endl;
              if (out)
                out << '"' << gpumf::device_name() << "\"," << n_ranks << ',' << (per_rank ? "weak" : "strong") << ','
                    << used << ',' << dof.n_dofs() << ',' << overlap << ',' << vmult * 1e3 << ',' << exchange * 1e3
                    << ',' << split.interior * per << ',' << split.boundary * per << ',' << split.not_hidden * per
                    << ',' << cg * 1e3 << ',' << gdofs << ',' << bandwidth_min * 1e-9 << ',' << bandwidth_max * 1e-9
                    << ',' << cg_reused * 1e3 << '\n';
            }
        }
      unsetenv("GPUMF_EXCHANGE");
    }
  if (root)
    std::cout << "set-up and runs " << setup_timer.wall_time() << " s" << std::endl;
  return 0;
}
