// The assembled-matrix baselines of the benchmark: the global sparse matrix of a
// form assembled by deal.II on the host (FEValues, WorkStream, AffineConstraints), applied
//  - by gpumf::SparseMatrix (cuSPARSE CSR SpMV on the GPU, the naive loop on the host backend)
//    in gpumf_benchmark, one rank, with the host's cores assembling it;
//  - by Trilinos (TrilinosWrappers::SparseMatrix, Epetra) on the MPI ranks of dealii_benchmark.
// Constrained rows and columns hold deal.II's diagonal entry only (distribute_local_to_global),
// as the matrix-free operators treat constrained DoFs as the identity.
#include <gpumf/sparse_matrix.h>

#include <deal.II/base/multithread_info.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/work_stream.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/lac/vector.h>

#include <fstream>
#include <random>

#include "benchmark.h"
#include "cg_timing.h"

namespace bench
{
  using namespace dealii;

  namespace
  {
    /**
     * The form's global matrix into @p matrix (its sparsity pattern set up), on the locally
     * owned cells, with the threads MultithreadInfo allows: the cell matrix as B^T B with
     * B = [sqrt(JxW) phi; sqrt(JxW) grad phi] (a dense product, BLAS where deal.II has it),
     * then AffineConstraints::distribute_local_to_global.
     */
    template <int dim, typename MatrixType>
    void
    assemble(const Problem<dim> &problem, const Form form, const unsigned int degree, MatrixType &matrix)
    {
      const auto           &dof = problem.dof_handler;
      const Quadrature<dim> quad(quadrature(form, degree));
      const bool            mass = form == Form::bp1 || form == Form::helmholtz, laplace = form != Form::bp1;
      const unsigned int    n = dof.get_fe().n_dofs_per_cell(), stride = (mass ? 1 : 0) + (laplace ? dim : 0);
      const UpdateFlags     flags =
        (mass ? update_values : update_default) | (laplace ? update_gradients : update_default) | update_JxW_values;
      struct Scratch
      {
        FEValues<dim>      values;
        FullMatrix<double> B;
        Scratch(const Mapping<dim>       &mapping,
                const FiniteElement<dim> &fe,
                const Quadrature<dim>    &q,
                const UpdateFlags         flags,
                const unsigned int        rows)
          : values(mapping, fe, q, flags)
          , B(rows, fe.n_dofs_per_cell())
        {}
        Scratch(const Scratch &other)
          : values(other.values.get_mapping(),
                   other.values.get_fe(),
                   other.values.get_quadrature(),
                   other.values.get_update_flags())
          , B(other.B)
        {}
      };
      struct Copy
      {
        FullMatrix<double>                   cell;
        std::vector<types::global_dof_index> indices;
      };
      const auto worker = [&](const typename DoFHandler<dim>::active_cell_iterator &cell, Scratch &s, Copy &c) {
        c.indices.clear();
        if (!cell->is_locally_owned())
          return;
        s.values.reinit(cell);
        for (unsigned int q = 0; q < quad.size(); ++q)
          {
            const double w = std::sqrt(s.values.JxW(q));
            for (unsigned int i = 0; i < n; ++i)
              {
                unsigned int row = q * stride;
                if (mass)
                  s.B(row++, i) = w * s.values.shape_value(i, q);
                if (laplace)
                  for (unsigned int d = 0; d < dim; ++d)
                    s.B(row++, i) = w * s.values.shape_grad(i, q)[d];
              }
          }
        s.B.Tmmult(c.cell, s.B);
        c.indices.resize(n);
        cell->get_dof_indices(c.indices);
      };
      const auto copier = [&](const Copy &c) {
        if (!c.indices.empty())
          problem.constraints.distribute_local_to_global(c.cell, c.indices, matrix);
      };
      WorkStream::run(dof.begin_active(),
                      typename DoFHandler<dim>::active_cell_iterator(dof.end()),
                      worker,
                      copier,
                      Scratch(*problem.mapping, dof.get_fe(), quad, flags, quad.size() * stride),
                      Copy{FullMatrix<double>(n, n), {}});
      matrix.compress(VectorOperation::add);
    }
    /// MemAvailable of /proc/meminfo in bytes (0 where unknown).
    double
    host_memory_available()
    {
      std::ifstream meminfo("/proc/meminfo");
      std::string   key, unit;
      double        kb = 0;
      while (meminfo >> key >> kb >> unit)
        if (key == "MemAvailable:")
          return kb * 1024.;
      return 0;
    }
  } // namespace

  template <int dim>
  Result
  run_sparse(const Problem<dim> &problem, const Case &c, const Options &options)
  {
    Result result;
    if (c.number != "double")
      {
        result.skipped = true;
        result.note    = "the assembled matrix is measured in double";
        return result;
      }
    const auto                   &dof = problem.dof_handler;
    const types::global_dof_index n   = dof.n_dofs();
    gpumf::synchronize(options.backend);
    Timer setup_timer;
    // the host holds the sparsity pattern, deal.II's matrix and its copy while assembling: about
    // 24 bytes per nonzero; refuse what cannot fit before allocating (at most dofs_per_cell^2
    // nonzeros per cell)
    const double dofs_per_cell = dof.get_fe().n_dofs_per_cell();
    const double host_bound    = 24. * problem.tria->n_active_cells() * dofs_per_cell * dofs_per_cell;
    const double available     = host_memory_available();
    AssertThrow(available == 0 || host_bound < available,
                ExcMessage("the assembled matrix would need up to " + fmt(host_bound, 3) +
                           " bytes of host memory to assemble (24 bytes per nonzero  at most " +
                           fmt(dofs_per_cell * dofs_per_cell, 6) + " per cell)  but " + fmt(available, 3) +
                           " bytes are available: a smaller problem or a matrix-free operator"));
    SparsityPattern pattern;
    {
      DynamicSparsityPattern dsp(n);
      DoFTools::make_sparsity_pattern(dof, dsp, problem.constraints, false);
      // refuse before assembling what the GPU cannot hold (the vectors of the solve included)
      const unsigned int n_vectors  = c.what == "vmult" ? 2 : 6;
      std::size_t        free_bytes = 0, total_bytes = 0;
      if (device_memory(options.backend, free_bytes, total_bytes))
        {
          const std::size_t needed =
            gpumf::SparseMatrix<double>::memory_needed(n, dsp.n_nonzero_elements()) + n_vectors * sizeof(double) * n;
          AssertThrow(needed < free_bytes,
                      gpumf::ExcMatrixDoesNotFit(n, dsp.n_nonzero_elements(), needed, free_bytes, total_bytes));
        }
      pattern.copy_from(dsp);
    }
    // the assembly in deal.II's threads (gpumf_benchmark allows all cores), as a user's program does it
    SparseMatrix<double> host_matrix(pattern);
    assemble(problem, c.form, c.degree, host_matrix);
    gpumf::SparseMatrix<double> A;
    A.reinit(host_matrix, options.backend);
    const auto                             partitioner = std::make_shared<Utilities::MPI::Partitioner>(n);
    gpumf::Vector<double>                  x(partitioner, options.backend), y(partitioner, options.backend);
    DiagonalMatrix<gpumf::Vector<double>>  inverse_diagonal;
    LinearAlgebra::ReadWriteVector<double> rw(x.locally_owned_elements());
    if (c.what != "vmult")
      {
        for (types::global_dof_index i = 0; i < n; ++i)
          rw(i) = 1. / host_matrix.diag_element(i);
        inverse_diagonal.get_vector().reinit(partitioner, options.backend);
        inverse_diagonal.get_vector().import(rw, VectorOperation::insert);
      }
    gpumf::synchronize(options.backend);
    result.setup_seconds  = setup_timer.wall_time();
    result.implementation = "csr";
    result.geometry       = "assembled";
    result.n_cells        = problem.tria->n_active_cells();
    result.data_bytes     = A.memory_consumption();
    result.bytes          = A.bytes_per_vmult();
    result.flops          = 2. * A.n_nonzero_elements();

    std::mt19937                           generator(42);
    std::uniform_real_distribution<double> uniform(-1., 1.);
    for (types::global_dof_index i = 0; i < n; ++i)
      rw(i) = problem.constraints.is_constrained(i) && c.what != "vmult" ? 0. : uniform(generator);
    x.import(rw, VectorOperation::insert);
    if (c.what == "vmult")
      {
        result.seconds = median_seconds(options.backend, options.repeat, [&]() { A.vmult(y, x); });
        return result;
      }
    time_cg(A, inverse_diagonal, x, y, c, options, result);
    return result;
  }

  template <int dim>
  CpuResult
  run_sparse_cpu(const Problem<dim> &problem, const Case &c, const Options &options)
  {
#if GPUMF_DEAL_II_HAS_EPETRA
    MultithreadInfo::set_thread_limit(options.cpu_threads);
    const MPI_Comm comm = problem.dof_handler.get_communicator();
    const auto    &dof  = problem.dof_handler;
    CpuResult      result;
    MPI_Barrier(comm);
    Timer          setup_timer;
    const IndexSet owned = dof.locally_owned_dofs();
    IndexSet       relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    TrilinosWrappers::SparsityPattern pattern(owned, owned, relevant, comm);
    DoFTools::make_sparsity_pattern(dof, pattern, problem.constraints, false, Utilities::MPI::this_mpi_process(comm));
    pattern.compress();
    TrilinosWrappers::SparseMatrix A;
    A.reinit(pattern);
    assemble(problem, c.form, c.degree, A);
    TrilinosWrappers::MPI::Vector        x(owned, comm), y(owned, comm);
    TrilinosWrappers::PreconditionJacobi jacobi;
    TrilinosWrappers::PreconditionSOR    sor;
    if (c.what == "sweep")
      sor.initialize(A, TrilinosWrappers::PreconditionSOR::AdditionalData(1.));
    else if (c.what != "vmult")
      jacobi.initialize(A);
    MPI_Barrier(comm);
    result.setup_seconds = setup_timer.wall_time();
    std::mt19937                           generator(42 + Utilities::MPI::this_mpi_process(comm));
    std::uniform_real_distribution<double> uniform(-1., 1.);
    for (const auto i : owned)
      x(i) = problem.constraints.is_constrained(i) && c.what != "vmult" ? 0. : uniform(generator);
    x.compress(VectorOperation::insert);
    if (c.what == "vmult")
      {
        result.seconds = median_seconds_all_ranks(comm, options.repeat, [&]() { A.vmult(y, x); });
        return result;
      }
    if (c.what == "sweep")
      {
        // one forward sweep from zero for the right-hand side x
        result.seconds = median_seconds_all_ranks(comm, options.repeat, [&]() { sor.vmult(y, x); });
        return result;
      }
    const auto solve = [&]() {
      SolverControl control(options.cg_iterations, 1e-300);
      y = 0.;
      try
        {
          SolverCG<TrilinosWrappers::MPI::Vector>(control).solve(A, y, x, jacobi);
        }
      catch (const SolverControl::NoConvergence &)
        {}
    };
    result.seconds = median_seconds_all_ranks(comm, std::max(1u, options.repeat / 10), solve) / options.cg_iterations;
    return result;
#else
    (void)problem, (void)c, (void)options;
    throw std::invalid_argument("the assembled CPU baseline uses deal.II's TrilinosWrappers (Epetra), which this "
                                "deal.II lacks (Debian's deal.II 9.8 is built with Trilinos 17, which has no Epetra)");
#endif
  }

  template Result
  run_sparse<2>(const Problem<2> &, const Case &, const Options &);
  template Result
  run_sparse<3>(const Problem<3> &, const Case &, const Options &);
  template CpuResult
  run_sparse_cpu<2>(const Problem<2> &, const Case &, const Options &);
  template CpuResult
  run_sparse_cpu<3>(const Problem<3> &, const Case &, const Options &);
} // namespace bench
