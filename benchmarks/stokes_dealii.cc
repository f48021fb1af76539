#include "stokes_dealii.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

using namespace dealii;

namespace bench
{
  template <int dim, int degree_p>
  struct DealiiStokes<dim, degree_p>::Implementation
  {
    MatrixFree<dim, double> data;
  };

  template <int dim, int degree_p>
  DealiiStokes<dim, degree_p>::DealiiStokes()
    : implementation(std::make_unique<Implementation>())
  {}

  template <int dim, int degree_p>
  DealiiStokes<dim, degree_p>::~DealiiStokes() = default;

  template <int dim, int degree_p>
  void
  DealiiStokes<dim, degree_p>::reinit(const Mapping<dim>              &mapping,
                                      const DoFHandler<dim>           &dof_u,
                                      const DoFHandler<dim>           &dof_p,
                                      const AffineConstraints<double> &constraints_u,
                                      const AffineConstraints<double> &constraints_p)
  {
    typename MatrixFree<dim, double>::AdditionalData additional_data;
    additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    additional_data.mapping_update_flags  = update_values | update_gradients | update_JxW_values;
    implementation->data.reinit(mapping,
                                std::vector<const DoFHandler<dim> *>{&dof_u, &dof_p},
                                std::vector<const AffineConstraints<double> *>{&constraints_u, &constraints_p},
                                QGauss<1>(degree_p + 2),
                                additional_data);
  }

  template <int dim, int degree_p>
  void
  DealiiStokes<dim, degree_p>::initialize_dof_vector(BlockVectorType &v) const
  {
    v.reinit(2);
    implementation->data.initialize_dof_vector(v.block(0), 0);
    implementation->data.initialize_dof_vector(v.block(1), 1);
    v.collect_sizes();
  }

  template <int dim, int degree_p>
  void
  DealiiStokes<dim, degree_p>::vmult(BlockVectorType &dst, const BlockVectorType &src) const
  {
    implementation->data.template cell_loop<BlockVectorType, BlockVectorType>(
      [](const MatrixFree<dim, double>               &data,
         BlockVectorType                             &dst,
         const BlockVectorType                       &src,
         const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, degree_p + 1, degree_p + 2, dim, double> velocity(data, 0);
        FEEvaluation<dim, degree_p, degree_p + 2, 1, double>       pressure(data, 1);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            velocity.reinit(cell);
            pressure.reinit(cell);
            velocity.gather_evaluate(src.block(0), EvaluationFlags::gradients);
            pressure.gather_evaluate(src.block(1), EvaluationFlags::values);
            for (const unsigned int q : velocity.quadrature_point_indices())
              {
                auto       grad_u = velocity.get_gradient(q);
                const auto p      = pressure.get_value(q);
                auto       div_u  = grad_u[0][0];
                for (unsigned int d = 1; d < dim; ++d)
                  div_u += grad_u[d][d];
                for (unsigned int d = 0; d < dim; ++d)
                  grad_u[d][d] -= p;
                velocity.submit_gradient(grad_u, q);
                pressure.submit_value(-div_u, q);
              }
            velocity.integrate_scatter(EvaluationFlags::gradients, dst.block(0));
            pressure.integrate_scatter(EvaluationFlags::values, dst.block(1));
          }
      },
      dst,
      src,
      true);
  }

  template <int dim, int degree_p>
  void
  DealiiStokes<dim, degree_p>::vmult_velocity(VectorType &dst, const VectorType &src) const
  {
    implementation->data.template cell_loop<VectorType, VectorType>(
      [](const MatrixFree<dim, double>               &data,
         VectorType                                  &dst,
         const VectorType                            &src,
         const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, degree_p + 1, degree_p + 2, dim, double> velocity(data, 0);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            velocity.reinit(cell);
            velocity.gather_evaluate(src, EvaluationFlags::gradients);
            for (const unsigned int q : velocity.quadrature_point_indices())
              velocity.submit_gradient(velocity.get_gradient(q), q);
            velocity.integrate_scatter(EvaluationFlags::gradients, dst);
          }
      },
      dst,
      src,
      true);
  }

  template class DealiiStokes<3, 1>;
  template class DealiiStokes<3, 2>;
  template class DealiiStokes<3, 3>;
  template class DealiiStokes<3, 4>;
} // namespace bench
