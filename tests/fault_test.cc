// A fault on one rank ends every rank, never hangs the job (doc/mpi.md, "When a rank fails").
// Started by fault_test.sh under mpirun with a time limit; each run is one fault in one form of
// main():
//
//   fault_test host|cuda <fault> <form>
//
// fault:
//   none       no fault: the CG solve below runs to its end (exit 0)
//   loop       rank 1 throws inside a cell loop of the solve, its ghost exchange in flight
//              (GPUMF_FAULT_INJECT=loop:1, which fault_test.sh sets)
//   exchange   rank 1 throws between update_ghost_values_start() and _finish() of a vector
//   oom        rank 1 runs out of memory in gpumf::Vector::reinit() (host: its address space
//              limited first; CUDA: its GPU filled first)
//   recovered  every rank throws in a gpumf exchange (compress_finish() without compress_start()),
//              catches it and goes on to the solve; rank 1 then reaches MPI_Finalize() after twice
//              the limit (exit 0: a fault that every rank handles ends nothing)
// form:
//   caught     MPI_InitFinalize before the try: main() catches, prints, returns 1 through
//              MPI_Finalize() (the form that would hang without gpumf's limit)
//   tutorial   MPI_InitFinalize inside the try, as deal.II's step-37
//   uncaught   no catch: std::terminate()
//
// The rank that fails writes "fault_test: rank 1 failed: <what>". The other ranks go on to the
// solve and wait for rank 1 in its reductions and exchanges, until mpirun ends them.
#include <gpumf/internal/memory.h>
#include <gpumf/operators.h>
#include <gpumf/solver_cg.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/solver_control.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "common/test_utils.h"


using namespace dealii;

namespace
{
  constexpr int dim = 2, degree = 2;
  using Op = gpumf::LaplaceOperator<dim, degree>;

  int this_rank = -1;

  /// Rank 1 asks for a vector of 2^28 doubles (2 GiB) of which it owns nearly all, after
  /// making sure it cannot have them; the other ranks own 64 entries each.
  void
  run_out_of_memory(const gpumf::Backend backend)
  {
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
    const std::size_t  big = std::size_t(1) << 28, small = 64;
    IndexSet           owned(big + small * (n_ranks - 1));
    const std::size_t  start = this_rank <= 1 ? this_rank * small : big + (this_rank - 1) * small;
    owned.add_range(start, start + (this_rank == 1 ? big : small));
    auto partitioner = std::make_shared<Utilities::MPI::Partitioner>(owned, IndexSet(owned.size()), MPI_COMM_WORLD);
    gpumf::internal::Array<char> ballast;
    if (this_rank == 1)
      {
        if (backend == gpumf::Backend::host)
          {
            // the address space limited to what is mapped now and 256 MiB, as a batch system does
            rlimit        limit{};
            std::ifstream status("/proc/self/statm");
            std::size_t   pages = 0;
            status >> pages;
            limit.rlim_cur = limit.rlim_max = pages * 4096 + (std::size_t(1) << 28);
            AssertThrow(setrlimit(RLIMIT_AS, &limit) == 0, ExcMessage("setrlimit(RLIMIT_AS) failed"));
          }
        else
          {
            // all but 1 GiB of the GPU taken (half of it where less than 2 GiB is free)
            std::size_t free_bytes = 0, total_bytes = 0;
            gpumf::internal::device_memory_info(free_bytes, total_bytes);
            ballast.reinit(backend, free_bytes - std::min(std::size_t(1) << 30, free_bytes / 2));
          }
      }
    gpumf::Vector<double> v;
    v.reinit(partitioner, backend);
  }

  int
  run(const gpumf::Backend backend, const std::string &fault)
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    test::make_mesh<dim>(tria, test::Domain::unit_cube, 6);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(FE_Q<dim>(degree));
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    AffineConstraints<double> constraints(relevant);
    VectorTools::interpolate_boundary_values(dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    Op::AdditionalData data;
    data.backend                           = backend;
    data.use_coloring                      = true;
    data.overlap_communication_computation = true;
    Op op;
    op.reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(degree + 1), data);
    gpumf::Vector<double> x, b;
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(b);
    b = 1.;

    if (fault == "exchange")
      {
        x.update_ghost_values_start();
        AssertThrow(this_rank != 1,
                    ExcMessage("fault_test: rank 1 throws between update_ghost_values_start() and _finish()"));
        x.update_ghost_values_finish();
        x.zero_out_ghost_values();
      }
    else if (fault == "oom")
      run_out_of_memory(backend);
    else if (fault == "recovered")
      {
        try
          {
            b.compress_finish(VectorOperation::add);
          }
        catch (const std::exception &)
          {
            if (this_rank == 0)
              std::cout << "fault_test: every rank caught the misuse and goes on" << std::endl;
          }
      }
    else
      AssertThrow(fault == "none" || fault == "loop",
                  ExcMessage("fault_test: the faults are none, loop, exchange, oom, recovered, not " + fault));

    // the other ranks' work, which waits for rank 1
    SolverControl           control(2000, 1e-13 * b.l2_norm());
    gpumf::SolverCG<double> cg(control);
    cg.solve(op, x, b, PreconditionIdentity());
    if (this_rank == 0)
      std::cout << "fault_test: solved in " << control.last_step() << " iterations" << std::endl;
    if (fault == "recovered" && this_rank == 1)
      {
        // rank 0 waits in MPI_Finalize() longer than its limit: the solve disarmed it
        const char  *limit   = std::getenv("GPUMF_FINALIZE_TIMEOUT");
        const double seconds = limit != nullptr ? std::atof(limit) : 0.;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(2. * seconds + 1., 10.)));
      }
    return 0;
  }

  int
  report(const std::exception &e)
  {
    std::cerr << "fault_test: rank " << this_rank << " failed: " << e.what() << std::endl;
    return 1;
  }

  int
  start(int argc, char **argv)
  {
    this_rank = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
    gpumf::Backend backend;
    if (!test::backend_from_argument(argc, argv, backend))
      return test::skip_return_code;
    return run(backend, argc > 2 ? argv[2] : "none");
  }
} // namespace

int
main(int argc, char **argv)
{
  const std::string form = argc > 3 ? argv[3] : "caught";
  if (form == "tutorial")
    {
      try
        {
          Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
          return start(argc, argv);
        }
      catch (const std::exception &e)
        {
          return report(e);
        }
    }
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  if (form == "uncaught")
    return start(argc, argv);
  AssertThrow(form == "caught", ExcMessage("fault_test: the forms are caught, tutorial, uncaught, not " + form));
  try
    {
      return start(argc, argv);
    }
  catch (const std::exception &e)
    {
      return report(e);
    }
}
