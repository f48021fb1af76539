// The variable coefficient of the Helmholtz problem, a(x) = 10 / (0.05 + 2|x|^2)
// (the one of deal.II's step-64), shared by the example, the tests and their deal.II reference.
#ifndef gpumf_examples_coefficient_h
#define gpumf_examples_coefficient_h

#include <gpumf/config.h>

#include <deal.II/base/point.h>

template <int dim, typename Number>
__host__ __device__ inline Number
helmholtz_coefficient(const dealii::Point<dim, Number> &p)
{
  Number r2 = 0;
  for (unsigned int d = 0; d < dim; ++d)
    r2 += p[d] * p[d];
  return Number(10.) / (Number(0.05) + Number(2.) * r2);
}

#endif
