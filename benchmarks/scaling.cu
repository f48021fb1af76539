// gpumf_scaling: strong and weak scaling of the Laplace operator over MPI ranks, one GPU per
// rank (gpumf::select_device), with and without overlap of communication and computation
// (doc/performance.md, "Several GPUs").
//
//   mpirun -np R gpumf_scaling [--dofs N] [--per-rank] [--repeat K] [--csv file]
//
// 3D Cartesian box (subdivided hyper-rectangle, refined), FE_Q degree 4, Gauss with 5 points,
// LaplaceOperator (tensor product, coloring off: atomics). --dofs N: about N DoFs in all
// (strong scaling), or per rank with --per-rank (weak scaling). Per variant: median over K
// timed rounds of one vmult each (MPI_Barrier around, the device synchronized), the same for
// the ghost exchange alone (update_ghost_values + compress of a vector), GDoF/s of the whole
// machine, and whether MPI reads device memory (CUDA-aware) or stages through the host.
#include <gpumf/operators.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

namespace
{
  constexpr int dim = 3, degree = 4;

  /// Median wall time of @p repeat rounds of @p body, each between two barriers.
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
        MPI_Barrier(comm);
        times.push_back(MPI_Wtime() - start);
      }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const MPI_Comm                   comm = MPI_COMM_WORLD;
  double                           target = 1e7;
  bool                             per_rank = false;
  unsigned int                     repeat   = 20;
  std::string                      csv;
  for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      if (arg == "--dofs" && i + 1 < argc)
        target = std::atof(argv[++i]);
      else if (arg == "--per-rank")
        per_rank = true;
      else if (arg == "--repeat" && i + 1 < argc)
        repeat = std::atoi(argv[++i]);
      else if (arg == "--csv" && i + 1 < argc)
        csv = argv[++i];
      else
        {
          std::cerr << "usage: gpumf_scaling [--dofs N] [--per-rank] [--repeat K] [--csv file]" << std::endl;
          return 1;
        }
    }
  const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
  const bool         root    = Utilities::MPI::this_mpi_process(comm) == 0;
  const gpumf::Backend backend = gpumf::select_device(comm);
  if (per_rank)
    target *= n_ranks;

  // a box of n1 x n2 x n3 coarse cells refined twice, about target DoFs (degree^3 per cell)
  const double       cells = target / std::pow(degree, dim) / 64.;
  const unsigned int n     = std::max(1u, static_cast<unsigned int>(std::cbrt(cells)));
  std::vector<unsigned int> subdivisions{n, n, std::max(1u, static_cast<unsigned int>(std::round(cells / n / n)))};
  Timer                     setup_timer;
  parallel::distributed::Triangulation<dim> tria(comm);
  GridGenerator::subdivided_hyper_rectangle(tria, subdivisions, Point<dim>(),
                                            Point<dim>(subdivisions[0], subdivisions[1], subdivisions[2]));
  tria.refine_global(2);
  DoFHandler<dim> dof(tria);
  dof.distribute_dofs(FE_Q<dim>(degree));
  AffineConstraints<double> constraints;
  constraints.close();

  std::ofstream out;
  if (root && !csv.empty())
    {
      out.open(csv, std::ios::app);
      if (out.tellp() == 0)
        out << "device,ranks,mode,cuda_aware_mpi,dofs,overlap,vmult_ms,exchange_ms,gdofs\n";
    }
  if (root)
    std::cout << "device " << gpumf::device_name() << ", " << n_ranks << " ranks ("
              << (per_rank ? "weak" : "strong") << " scaling), CUDA-aware MPI "
              << (gpumf::cuda_aware_mpi() ? "yes" : "no (host staging)") << ", " << dof.n_dofs() << " DoFs, "
              << tria.n_global_active_cells() << " cells" << std::endl;
  for (const bool overlap : {false, true})
    {
      gpumf::LaplaceOperator<dim, degree, degree + 1> op;
      typename gpumf::LaplaceOperator<dim, degree, degree + 1>::AdditionalData data;
      data.backend                           = backend;
      data.implementation                    = gpumf::Implementation::tensor_product;
      data.overlap_communication_computation = overlap;
      op.reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(degree + 1), data);
      gpumf::Vector<double> src, dst;
      op.initialize_dof_vector(src);
      op.initialize_dof_vector(dst);
      src = 1.;
      for (unsigned int i = 0; i < 5; ++i)
        op.vmult(dst, src);
      const double vmult    = median_time(comm, backend, repeat, [&] { op.vmult(dst, src); });
      const double exchange = median_time(comm, backend, repeat, [&] {
        src.update_ghost_values();
        src.compress(VectorOperation::add);
      });
      const double gdofs = dof.n_dofs() / vmult * 1e-9;
      if (root)
        {
          std::cout << "  overlap " << (overlap ? "on " : "off") << ": vmult " << std::setprecision(4)
                    << vmult * 1e3 << " ms, " << gdofs << " GDoF/s; ghost exchange alone " << exchange * 1e3
                    << " ms (setup " << setup_timer.wall_time() << " s so far)" << std::endl;
          if (out)
            out << '"' << gpumf::device_name() << "\"," << n_ranks << ',' << (per_rank ? "weak" : "strong") << ','
                << gpumf::cuda_aware_mpi() << ',' << dof.n_dofs() << ',' << overlap << ',' << vmult * 1e3 << ','
                << exchange * 1e3 << ',' << gdofs << '\n';
        }
    }
  return 0;
}
