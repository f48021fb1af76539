// gpumf_setup: shared declarations of the set-up benchmark (setup.cu: mesh and gpumf side;
// setup_dealii.cc: deal.II's CPU MatrixFree side, compiled by the host compiler).
#ifndef gpumf_benchmarks_setup_h
#define gpumf_benchmarks_setup_h

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

namespace setup_bench
{
  /// deal.II's CPU MatrixFree::reinit() (gradients and JxW, as step-37) and
  /// MatrixFreeTools::compute_diagonal() of the Laplacian, FE_Q(degree) with degree+1 Gauss
  /// points: wall seconds {reinit, diagonal}, the slowest rank's, after a barrier.
  template <int degree>
  std::pair<double, double>
  dealii_setup(const dealii::Mapping<3>                &mapping,
               const dealii::DoFHandler<3>             &dof,
               const dealii::AffineConstraints<double> &constraints);
} // namespace setup_bench

#endif
