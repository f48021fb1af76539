// CG timing shared by the gpumf cases (gpumf_cases.cu) and the assembled matrix (sparse.cc).
#ifndef gpumf_benchmarks_cg_timing_h
#define gpumf_benchmarks_cg_timing_h

#include <gpumf/solver_cg.h>
#include <gpumf/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/solver_cg.h>

#include "benchmark.h"

namespace bench
{
  /// An operator seen through its vmult() only: gpumf::SolverCG then takes p.Ap in a pass of
  /// its own instead of the operator's vmult_and_dot() (cg-fused-unfolded).
  template <typename MatrixType>
  struct VmultOnly
  {
    const MatrixType &A;

    void
    vmult(gpumf::Vector<double> &dst, const gpumf::Vector<double> &src) const
    {
      A.vmult(dst, src);
    }
  };

  /// Seconds per iteration of CG with Jacobi on @p A, a fixed number of iterations (the
  /// tolerance is never met): deal.II's SolverCG (cg) or gpumf's (cg-fused; cg-fused-unfolded
  /// with p.Ap in a pass of its own), @p b as the
  /// right-hand side, @p x the solution; into result.seconds and result.iterations.
  template <typename MatrixType>
  void
  time_cg(const MatrixType                                    &A,
          const dealii::DiagonalMatrix<gpumf::Vector<double>> &inverse_diagonal,
          const gpumf::Vector<double>                         &b,
          gpumf::Vector<double>                               &x,
          const Case                                          &c,
          const Options                                       &options,
          Result                                              &result)
  {
    const auto solve = [&]() {
      dealii::SolverControl control(options.cg_iterations, 1e-300);
      x = 0.;
      try
        {
          if (c.what == "cg-fused")
            gpumf::SolverCG<double>(control).solve(A, x, b, inverse_diagonal);
          else if (c.what == "cg-fused-unfolded")
            gpumf::SolverCG<double>(control).solve(VmultOnly<MatrixType>{A}, x, b, inverse_diagonal);
          else
            dealii::SolverCG<gpumf::Vector<double>>(control).solve(A, x, b, inverse_diagonal);
        }
      catch (const dealii::SolverControl::NoConvergence &)
        {}
    };
    result.iterations = options.cg_iterations;
    result.seconds = median_seconds(options.backend, std::max(1u, options.repeat / 10), solve) / options.cg_iterations;
  }
} // namespace bench

#endif
