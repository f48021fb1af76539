// deal.II's own CPU MatrixFree on the benchmark's problems, for one (dim, degree) given by
// BENCH_DIM and BENCH_DEGREE: the comparison the GPU figures are divided by, run by
// dealii_benchmark on MPI ranks (a distributed mesh) or inside gpumf_benchmark with threads.
// Debian's deal.II 9.4 is built without SIMD (VectorizedArray<double> has width 1): each rank's
// Options::cpu_threads threads (TBB, MatrixFree's partition_partition scheme) process one
// cell at a time.
#include <deal.II/base/multithread_info.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>

#include <random>

#include "benchmark.h"

namespace bench
{
  using namespace dealii;

  namespace
  {
    using VectorType = LinearAlgebra::distributed::Vector<double>;

    /// (grad u, grad v) and/or (u, v) on deal.II's MatrixFree; constrained rows are the identity.
    template <int dim, int degree, int n_q, bool values, bool gradients>
    class Operator
    {
    public:
      using FEEval = FEEvaluation<dim, degree, n_q, 1, double>;

      void
      reinit(const Problem<dim> &problem, const Quadrature<1> &quad)
      {
        typename MatrixFree<dim, double>::AdditionalData data;
        data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::partition_partition;
        data.mapping_update_flags  = update_gradients | update_JxW_values;
        mf.reinit(*problem.mapping, problem.dof_handler, problem.constraints, quad, data);
        constrained.clear();
        for (const auto &line : problem.constraints.get_lines())
          if (problem.dof_handler.locally_owned_dofs().is_element(line.index))
            constrained.push_back(line.index);
      }

      void
      vmult(VectorType &dst, const VectorType &src) const
      {
        mf.cell_loop(&Operator::local_apply, this, dst, src, true);
        for (const auto i : constrained)
          dst(i) = src(i);
      }

      void
      compute_inverse_diagonal(DiagonalMatrix<VectorType> &inverse) const
      {
        VectorType &d = inverse.get_vector();
        mf.initialize_dof_vector(d);
        MatrixFreeTools::compute_diagonal<dim, degree, n_q, 1, double, VectorizedArray<double>>(mf, d, [](FEEval &phi) {
          quadrature_work(phi);
        });
        for (const auto i : constrained)
          d(i) = 1.;
        for (auto &x : d)
          x = 1. / x;
      }

      void
      initialize_dof_vector(VectorType &v) const
      {
        mf.initialize_dof_vector(v);
      }

      /// The locally owned constrained rows.
      const std::vector<types::global_dof_index> &
      constrained_dofs() const
      {
        return constrained;
      }

    private:
      MatrixFree<dim, double>              mf;
      std::vector<types::global_dof_index> constrained;

      static void
      quadrature_work(FEEval &phi)
      {
        EvaluationFlags::EvaluationFlags flags = (values ? EvaluationFlags::values : EvaluationFlags::nothing) |
                                                 (gradients ? EvaluationFlags::gradients : EvaluationFlags::nothing);
        phi.evaluate(flags);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          {
            if (values)
              phi.submit_value(phi.get_value(q), q);
            if (gradients)
              phi.submit_gradient(phi.get_gradient(q), q);
          }
        phi.integrate(flags);
      }

      void
      local_apply(const MatrixFree<dim, double>               &mf,
                  VectorType                                  &dst,
                  const VectorType                            &src,
                  const std::pair<unsigned int, unsigned int> &range) const
      {
        FEEval phi(mf);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.read_dof_values(src);
            quadrature_work(phi);
            phi.distribute_local_to_global(dst);
          }
      }
    };

    template <int dim, int degree, int n_q, bool values, bool gradients>
    CpuResult
    run(const Problem<dim> &problem, const Case &c, const Options &options)
    {
      MultithreadInfo::set_thread_limit(options.cpu_threads);
      const MPI_Comm comm = problem.dof_handler.get_communicator();
      CpuResult      result;
      MPI_Barrier(comm);
      Timer                                         setup_timer;
      Operator<dim, degree, n_q, values, gradients> op;
      op.reinit(problem, quadrature(c.form, degree));
      VectorType x, y;
      op.initialize_dof_vector(x);
      op.initialize_dof_vector(y);
      std::mt19937                           generator(42);
      std::uniform_real_distribution<double> uniform(-1., 1.);
      for (auto &v : x)
        v = uniform(generator);
      if (c.what == "vmult")
        {
          MPI_Barrier(comm);
          result.setup_seconds = setup_timer.wall_time();
          result.seconds       = median_seconds_all_ranks(comm, options.repeat, [&]() { op.vmult(y, x); });
          result.result_norm   = y.l2_norm();
          return result;
        }
      DiagonalMatrix<VectorType> inverse_diagonal;
      op.compute_inverse_diagonal(inverse_diagonal);
      MPI_Barrier(comm);
      result.setup_seconds = setup_timer.wall_time();
      for (const auto i : op.constrained_dofs())
        x(i) = 0.;
      const auto solve = [&]() {
        SolverControl control(options.cg_iterations, 1e-300);
        y = 0.;
        try
          {
            SolverCG<VectorType>(control).solve(op, y, x, inverse_diagonal);
          }
        catch (const SolverControl::NoConvergence &)
          {}
      };
      result.seconds = median_seconds_all_ranks(comm, std::max(1u, options.repeat / 10), solve) / options.cg_iterations;
      return result;
    }
  } // namespace

  template <int dim, int degree>
  CpuResult
  run_dealii(const Problem<dim> &problem, const Case &c, const Options &options)
  {
    return with_form<degree>(c.form, [&](auto n_q, auto values, auto gradients) {
      return run<dim, degree, decltype(n_q)::value, decltype(values)::value, decltype(gradients)::value>(problem,
                                                                                                         c,
                                                                                                         options);
    });
  }

  template CpuResult
  run_dealii<BENCH_DIM, BENCH_DEGREE>(const Problem<BENCH_DIM> &, const Case &, const Options &);
} // namespace bench
