// dealii_benchmark: deal.II's CPU MatrixFree (and the assembled Trilinos matrix) on gpumf_benchmark's problems, on MPI
// ranks (mpirun -np N dealii_benchmark ...; the mesh distributed by p4est): the CPU comparison at full strength that
// gpumf_benchmark --cpu-ranks N launches. One rank per core and one thread per rank by default, as deal.II users run
// it. Debian's deal.II has no SIMD (VectorizedArray<double> width 1): the CSV says so in simd_width;
// dealii_benchmark_native is the same program at full SIMD width (cmake/dealiiNativeSimd.cmake).
// Each run first measures the host's copy roofline on its ranks (copy_gb_per_s).
#include <deal.II/base/mpi.h>
#include <deal.II/base/vectorization.h>

#include <fstream>
#include <iomanip>
#include <iostream>

#include "benchmark.h"

namespace
{
  const char *usage = R"(dealii_benchmark [options]: deal.II's CPU MatrixFree on the ranks of mpirun
  --dim D            2 or 3 (default 3)
  --forms LIST       bp1,bp3,bp5,helmholtz (default bp5)
  --degrees LIST     e.g. 1-8 (default 4; at most GPUMF_BENCH_MAX_CPU_DEGREE)
  --dofs LIST        approximate DoF counts (default 1e6)
  --mesh LIST        cartesian,deformed,cube-adaptive,shell-adaptive (default cartesian)
  --what LIST        vmult,cg,sweep (default vmult): the operator, deal.II's SolverCG with Jacobi, or
                     one Gauss-Seidel sweep (TrilinosWrappers::PreconditionSOR, omega 1: Ifpack's
                     point Gauss-Seidel on each rank's rows, csr only)
  --matrices LIST    matrix-free,csr (default matrix-free): deal.II's MatrixFree (degrees up to
                     GPUMF_BENCH_MAX_CPU_DEGREE), or the assembled TrilinosWrappers::SparseMatrix
  --repeat N         timed runs after one warm-up, median (default 20; CG: N/10 solves)
  --cg-iterations N  CG iterations per solve (default 50)
  --threads N        threads per rank (default 1)
  --csv FILE         the results (written by rank 0)
)";

  template <int dim>
  void
  run_all(const std::map<std::string, std::string> &args, std::ofstream &csv)
  {
    using namespace bench;
    const auto get = [&](const std::string &key, const std::string &fallback) {
      const auto it = args.find(key);
      return it == args.end() ? fallback : it->second;
    };
    Options options;
    options.backend          = gpumf::Backend::host;
    options.repeat           = std::stoul(get("repeat", "20"));
    options.cg_iterations    = std::stoul(get("cg-iterations", "50"));
    options.cpu_threads      = std::stoul(get("threads", "1"));
    const MPI_Comm     comm  = MPI_COMM_WORLD;
    const unsigned int ranks = dealii::Utilities::MPI::n_mpi_processes(comm);
    const bool         root  = dealii::Utilities::MPI::this_mpi_process(comm) == 0;
    const auto         whats = split(get("what", "vmult")), meshes = split(get("mesh", "cartesian"));
    const auto         matrices = split(get("matrices", "matrix-free"));
    for (const auto &m : matrices)
      check_choice("--matrices", m, {"matrix-free", "csr"});
    for (const auto &w : whats)
      check_choice("--what", w, {"vmult", "cg", "sweep"});
    for (const auto &m : meshes)
      check_choice("--mesh", m, Problem<3>::meshes);
    std::vector<Form> forms;
    for (const auto &f : split(get("forms", "bp5")))
      forms.push_back(parse_form(f));
    // the host's copy roofline, once, on this job's ranks: deal.II's figures as a fraction of it
    const double copy = host_copy_bandwidth(comm, 10);
    if (root)
      std::cout << "host copy roofline: " << fmt(copy * 1e-9) << " GB/s on " << ranks
                << " ranks (memcpy of max(128 MiB, 1 GiB / ranks) a rank, bytes read + written)" << std::endl;
    for (const auto &s : split(get("dofs", "1e6")))
      for (const unsigned int degree : parse_degrees(get("degrees", "4")))
        for (const auto &mesh : meshes)
          {
            const double size = std::stod(s);
            Problem<dim> problem;
            problem.reinit(mesh, degree, size, comm);
            for (const Form form : forms)
              for (const auto &what : whats)
                for (const auto &matrix : matrices)
                  {
                    const bool assembled = matrix == "csr";
                    if (!assembled && (!compiled_in(false, dim, degree) || what == "sweep"))
                      continue;
                    Case c;
                    c.form = form, c.degree = degree, c.what = what;
                    const CpuResult   r = assembled ?
                                            run_sparse_cpu<dim>(problem, c, options) :
                                            dispatch_degree<GPUMF_BENCH_MAX_CPU_DEGREE>(
                                            degree, "the CPU comparison", [&](auto p) -> CpuResult {
                                              if constexpr (compiled_in(false, dim, decltype(p)::value))
                                                return run_dealii<dim, decltype(p)::value>(problem, c, options);
                                              else
                                                throw std::invalid_argument(not_compiled(false, dim, p));
                                            });
                    const double n = problem.dof_handler.n_dofs();
                    const std::string row =
                      std::to_string(dim) + "," + to_string(form) + "," + std::to_string(degree) + "," + mesh + "," +
                      fmt(size) + "," + what + "," + std::to_string(ranks) + "," + std::to_string(options.cpu_threads) +
                      "," + std::to_string(dealii::VectorizedArray<double>::size()) + "," + fmt(n, 12) + "," +
                      fmt(r.seconds, 6) + "," + fmt(n / r.seconds * 1e-9) + "," + fmt(r.setup_seconds, 4) + "," +
                      fmt(problem.mesh_seconds, 4) + "," + matrix + "," + fmt(copy * 1e-9) + "," +
                      cpu_key(dim, form, degree, mesh, size, what, assembled);
                    if (root)
                      {
                        std::cout << "deal.II CPU " << (assembled ? "Trilinos matrix" : "MatrixFree") << ", " << ranks
                                  << " ranks: " << row << std::endl;
                        if (r.result_norm > 0)
                          std::cout << "  |A x| = " << std::setprecision(16) << r.result_norm << std::endl;
                        if (csv.is_open())
                          csv << row << std::endl;
                      }
                  }
          }
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
    {
      const auto args = bench::parse_arguments(
        argc,
        argv,
        {"dim", "forms", "degrees", "dofs", "mesh", "what", "matrices", "repeat", "cg-iterations", "threads", "csv"});
      if (args.count("help"))
        {
          std::cout << usage;
          return 0;
        }
      std::ofstream csv;
      if (args.count("csv") && dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
        {
          csv.open(args.at("csv"));
          csv << "dim,form,degree,mesh,size,what,ranks,threads,simd_width,dofs,seconds,gdofs_per_s,setup_seconds,"
                 "mesh_seconds,matrix,copy_gb_per_s,key"
              << std::endl;
        }
      const std::string dim = args.count("dim") ? args.at("dim") : "3";
      bench::check_choice("--dim", dim, {"2", "3"});
      if (dim == "2")
        run_all<2>(args, csv);
      else
        run_all<3>(args, csv);
    }
  catch (const std::exception &e)
    {
      std::cerr << "dealii_benchmark: " << e.what() << "\n(see --help)\n";
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  return 0;
}
