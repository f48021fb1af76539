// gpumf_setup: the set-up a matrix-free solver needs before its first vmult — MatrixFree::reinit()
// and the diagonal (for Jacobi/Chebyshev) — by gpumf on the backend and by deal.II's CPU
// MatrixFree, on the same mesh (doc/performance.md, "Set-up").
//
//   [mpirun -np R] gpumf_setup [--side gpumf|dealii] [--degree 2|4] [--dofs N] [--mesh cartesian|curved]
//
// 3D box of cubes refined to about N DoFs (default 2e6) of FE_Q(degree) (default 2), degree+1
// Gauss points, zero Dirichlet values on the boundary. cartesian: MappingQ1 (affine cells);
// curved: the benchmarks' smooth displacement of the box (deformed_mapping.h, MappingQCache(3):
// per-point geometry).
// --side gpumf (default): LaplaceOperator::reinit() + compute_diagonal() on gpumf's default
// backend with deal.II's threads (run one rank per GPU, mpirun --bind-to none), and the parts of
// gpumf::setup_profile(); --side dealii: deal.II's MatrixFree::reinit() +
// MatrixFreeTools::compute_diagonal() (run one rank per core; no SIMD in Debian's deal.II).
// Prints seconds (slowest rank), DoFs, host memory (resident, all ranks) and gpumf's data per DoF.
#include <gpumf/operators.h>
#include <gpumf/setup_profile.h>

#include <deal.II/base/multithread_info.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>

#include "deformed_mapping.h"
#include "setup.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  /// Resident host memory of this process (VmRSS) and its peak (VmHWM), bytes.
  std::pair<double, double>
  host_memory()
  {
    std::ifstream status("/proc/self/status");
    std::string   line;
    double        rss = 0, peak = 0;
    while (std::getline(status, line))
      {
        if (line.rfind("VmRSS:", 0) == 0)
          rss = std::atof(line.c_str() + 6) * 1024;
        if (line.rfind("VmHWM:", 0) == 0)
          peak = std::atof(line.c_str() + 6) * 1024;
      }
    return {rss, peak};
  }

  template <int degree>
  void
  run(const std::string &side, const double target_dofs, const std::string &mesh)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    const bool                                root = Utilities::MPI::this_mpi_process(comm) == 0;
    Timer                                     timer;
    parallel::distributed::Triangulation<dim> tria(comm);
    // n x n x n cubes of FE_Q(degree): (n degree + 1)^3 ~ target DoFs, a coarse box refined
    const unsigned int n      = std::max(1., std::round((std::cbrt(target_dofs) - 1) / degree));
    const unsigned int levels = n >= 16 ? unsigned(std::floor(std::log2(n / 8.))) : 0;
    GridGenerator::subdivided_hyper_cube(tria, std::max(1u, unsigned(std::round(double(n) / (1u << levels)))));
    tria.refine_global(levels);
    std::unique_ptr<Mapping<dim>> mapping;
    if (mesh == "cartesian")
      mapping = std::make_unique<MappingQ1<dim>>();
    else
      mapping = bench::deformed_mapping(tria);
    const FE_Q<dim> fe(degree);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    VectorTools::interpolate_boundary_values(*mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    const double mesh_seconds = Utilities::MPI::max(timer.wall_time(), comm);

    double         reinit = 0, diagonal = 0, data_bytes = 0;
    gpumf::Backend backend = gpumf::Backend::host;
    // keeps the objects alive until the memory is measured
    std::shared_ptr<void> keep;
    if (side == "dealii")
      std::tie(reinit, diagonal) = setup_bench::dealii_setup<degree>(*mapping, dof, constraints);
    else
      {
        backend        = gpumf::default_backend();
        using Operator = gpumf::LaplaceOperator<dim, degree, degree + 1, 1, double>;
        typename Operator::AdditionalData data;
        data.backend        = backend;
        data.implementation = gpumf::Implementation::tensor_product;
        gpumf::reset_setup_profile();
        auto op = std::make_shared<Operator>();
        MPI_Barrier(comm);
        timer.restart();
        op->reinit(*mapping, dof, constraints, QGauss<1>(degree + 1), data);
        gpumf::synchronize(backend);
        MPI_Barrier(comm);
        reinit = timer.wall_time();
        timer.restart();
        op->compute_diagonal();
        gpumf::synchronize(backend);
        MPI_Barrier(comm);
        diagonal   = timer.wall_time();
        data_bytes = Utilities::MPI::sum(double(op->matrix_free().memory_consumption()), comm);
        keep       = op;
      }
    const auto [rss, peak] = host_memory();
    const double rss_sum = Utilities::MPI::sum(rss, comm), peak_sum = Utilities::MPI::sum(peak, comm);
    if (root)
      {
        std::cout << (side == "dealii" ?
                        "deal.II CPU MatrixFree (no SIMD)" :
                        "gpumf, backend " + gpumf::to_string(backend) + ", device " + gpumf::device_name())
                  << "; " << Utilities::MPI::n_mpi_processes(comm) << " MPI ranks x " << MultithreadInfo::n_threads()
                  << " threads\n"
                  << "3D FE_Q(" << degree << "), " << mesh << " mesh, " << dof.n_dofs() << " DoFs, "
                  << tria.n_global_active_cells() << " cells; mesh, DoFs and constraints " << mesh_seconds << " s\n"
                  << "reinit " << reinit << " s, diagonal " << diagonal << " s, set-up " << reinit + diagonal << " s\n"
                  << "host memory after set-up " << rss_sum / 1e9 << " GB resident (peak " << peak_sum / 1e9
                  << " GB), all ranks\n";
        if (side != "dealii")
          {
            std::cout << "gpumf data " << data_bytes / dof.n_dofs() << " bytes per DoF"
                      << (backend == gpumf::Backend::cuda ? " (device memory)" : "") << "\nparts (rank 0):\n";
            gpumf::print_setup_profile(std::cout, "  ");
          }
        std::cout << "CSV side,ranks,threads,degree,mesh,dofs,reinit_s,diagonal_s,setup_s,host_gb,bytes_per_dof\n"
                  << "CSV " << side << ',' << Utilities::MPI::n_mpi_processes(comm) << ','
                  << MultithreadInfo::n_threads() << ',' << degree << ',' << mesh << ',' << dof.n_dofs() << ','
                  << reinit << ',' << diagonal << ',' << reinit + diagonal << ',' << rss_sum / 1e9 << ','
                  << data_bytes / dof.n_dofs() << std::endl;
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  // deal.II's threads: all cores of the node, shared by its ranks
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, numbers::invalid_unsigned_int);
  std::string                      side = "gpumf", mesh = "cartesian";
  unsigned int                     degree = 2;
  double                           dofs   = 2e6;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (std::strcmp(argv[i], "--side") == 0)
        side = argv[i + 1];
      else if (std::strcmp(argv[i], "--degree") == 0)
        degree = std::atoi(argv[i + 1]);
      else if (std::strcmp(argv[i], "--dofs") == 0)
        dofs = std::atof(argv[i + 1]);
      else if (std::strcmp(argv[i], "--mesh") == 0)
        mesh = argv[i + 1];
    }
  if ((side != "gpumf" && side != "dealii") || (degree != 2 && degree != 4) ||
      (mesh != "cartesian" && mesh != "curved"))
    {
      std::cerr << "usage: gpumf_setup [--side gpumf|dealii] [--degree 2|4] [--dofs N] [--mesh cartesian|curved]"
                << std::endl;
      return 1;
    }
  if (side == "gpumf")
    gpumf::select_device(MPI_COMM_WORLD);
  if (degree == 2)
    run<2>(side, dofs, mesh);
  else
    run<4>(side, dofs, mesh);
  return 0;
}
