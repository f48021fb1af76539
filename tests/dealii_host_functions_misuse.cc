// Compiled only by the test dealii_host_functions.message (never built by default): deal.II's
// host functions called on a gpumf::Vector must stop the compilation with a message that names
// gpumf's call (gpumf/internal/dealii_host_functions.h), not fail to link minutes later.
#include <gpumf/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

using namespace dealii;

void
misuse(const DoFHandler<2> &dof_handler, const Function<2> &function, const AffineConstraints<double> &constraints)
{
  const MappingQ1<2>    mapping;
  gpumf::Vector<double> vector;
  Vector<float>         cellwise;
  VectorTools::interpolate(mapping, dof_handler, function, vector);
  VectorTools::integrate_difference(
    mapping, dof_handler, vector, function, cellwise, QGauss<2>(2), VectorTools::L2_norm);
  VectorTools::interpolate(dof_handler, function, vector);
  VectorTools::integrate_difference(dof_handler, vector, function, cellwise, QGauss<2>(2), VectorTools::H1_norm);
  constraints.distribute(vector);
  KellyErrorEstimator<2>::estimate(mapping, dof_handler, QGauss<1>(2), {}, vector, cellwise);
}

int
main()
{}
