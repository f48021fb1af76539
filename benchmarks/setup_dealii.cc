// The deal.II side of gpumf_setup (benchmarks/setup.cu): deal.II's CPU MatrixFree set-up.
// Debian's deal.II 9.4 has no SIMD (VectorizedArray<double> of width 1).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>

#include "setup.h"

namespace setup_bench
{
  using namespace dealii;

  template <int degree>
  std::pair<double, double>
  dealii_setup(const Mapping<3> &mapping, const DoFHandler<3> &dof, const AffineConstraints<double> &constraints)
  {
    const MPI_Comm comm = dof.get_communicator();
    MPI_Barrier(comm);
    Timer                                          timer;
    MatrixFree<3, double>                          mf;
    typename MatrixFree<3, double>::AdditionalData data;
    data.mapping_update_flags = update_gradients | update_JxW_values;
    mf.reinit(mapping, dof, constraints, QGauss<1>(degree + 1), data);
    MPI_Barrier(comm);
    const double reinit = timer.wall_time();
    timer.restart();
    LinearAlgebra::distributed::Vector<double> diagonal;
    mf.initialize_dof_vector(diagonal);
    MatrixFreeTools::compute_diagonal<3, degree, degree + 1, 1, double, VectorizedArray<double>>(
      mf, diagonal, [](FEEvaluation<3, degree, degree + 1, 1, double> &phi) {
        phi.evaluate(EvaluationFlags::gradients);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          phi.submit_gradient(phi.get_gradient(q), q);
        phi.integrate(EvaluationFlags::gradients);
      });
    MPI_Barrier(comm);
    return {reinit, timer.wall_time()};
  }

  template std::pair<double, double>
  dealii_setup<2>(const Mapping<3> &, const DoFHandler<3> &, const AffineConstraints<double> &);
  template std::pair<double, double>
  dealii_setup<4>(const Mapping<3> &, const DoFHandler<3> &, const AffineConstraints<double> &);
} // namespace setup_bench
