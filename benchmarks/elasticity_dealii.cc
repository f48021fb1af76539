#include "elasticity_dealii.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

using namespace dealii;

namespace bench
{
  template <int dim, int degree>
  struct DealiiElasticity<dim, degree>::Implementation
  {
    MatrixFree<dim, double> data;
    double                  lambda = 1, mu = 1;
  };

  template <int dim, int degree>
  DealiiElasticity<dim, degree>::DealiiElasticity()
    : implementation(std::make_unique<Implementation>())
  {}

  template <int dim, int degree>
  DealiiElasticity<dim, degree>::~DealiiElasticity() = default;

  template <int dim, int degree>
  void
  DealiiElasticity<dim, degree>::reinit(const Mapping<dim>              &mapping,
                                        const DoFHandler<dim>           &dof_handler,
                                        const AffineConstraints<double> &constraints,
                                        const double                     lambda,
                                        const double                     mu)
  {
    typename MatrixFree<dim, double>::AdditionalData additional_data;
    additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    additional_data.mapping_update_flags  = update_gradients | update_JxW_values;
    implementation->data.reinit(mapping, dof_handler, constraints, QGauss<1>(degree + 1), additional_data);
    implementation->lambda = lambda;
    implementation->mu     = mu;
  }

  template <int dim, int degree>
  void
  DealiiElasticity<dim, degree>::initialize_dof_vector(VectorType &v) const
  {
    implementation->data.initialize_dof_vector(v);
  }

  template <int dim, int degree>
  void
  DealiiElasticity<dim, degree>::vmult(VectorType &dst, const VectorType &src) const
  {
    const double lambda = implementation->lambda, mu = implementation->mu;
    implementation->data.template cell_loop<VectorType, VectorType>(
      [lambda, mu](const MatrixFree<dim, double>               &data,
                   VectorType                                  &dst,
                   const VectorType                            &src,
                   const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, degree, degree + 1, dim, double> phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.gather_evaluate(src, EvaluationFlags::gradients);
            for (const unsigned int q : phi.quadrature_point_indices())
              {
                const auto eps   = phi.get_symmetric_gradient(q);
                auto       sigma = 2. * mu * eps;
                const auto div   = lambda * trace(eps);
                for (unsigned int d = 0; d < dim; ++d)
                  sigma[d][d] += div;
                phi.submit_symmetric_gradient(sigma, q);
              }
            phi.integrate_scatter(EvaluationFlags::gradients, dst);
          }
      },
      dst,
      src,
      true);
  }

  template class DealiiElasticity<3, 2>;
  template class DealiiElasticity<3, 4>;
} // namespace bench
