// deal.II's CPU reference of the systems test: tests/common/dealii_systems_reference.h.
#include "dealii_systems_reference.h"

#include <gpumf/internal/dealii_compat.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/lac/la_parallel_block_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

namespace test
{
  using namespace dealii;

  template <int dim>
  void
  system_form(const SystemForm                              form,
              const Mapping<dim>                           &mapping,
              const DoFHandler<dim>                        &dof_u,
              const AffineConstraints<double>              &constraints_u,
              const DoFHandler<dim>                        &dof_p,
              const AffineConstraints<double>              &constraints_p,
              const unsigned int                            n_q_points_1d,
              const LinearAlgebra::ReadWriteVector<double> &u,
              const LinearAlgebra::ReadWriteVector<double> &p,
              LinearAlgebra::ReadWriteVector<double>       &dst_u,
              LinearAlgebra::ReadWriteVector<double>       &dst_p)
  {
    MatrixFree<dim, double>                          mf;
    typename MatrixFree<dim, double>::AdditionalData data;
    data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    data.mapping_update_flags  = update_values | update_gradients | update_JxW_values;
    mf.reinit(mapping,
              std::vector<const DoFHandler<dim> *>{&dof_u, &dof_p},
              std::vector<const AffineConstraints<double> *>{&constraints_u, &constraints_p},
              std::vector<QGauss<1>>{QGauss<1>(n_q_points_1d)},
              data);
    LinearAlgebra::distributed::BlockVector<double> src(2), dst(2);
    for (unsigned int b = 0; b < 2; ++b)
      {
        mf.initialize_dof_vector(src.block(b), b);
        mf.initialize_dof_vector(dst.block(b), b);
      }
    src.collect_sizes();
    dst.collect_sizes();
    gpumf::internal::import_elements(src.block(0), u, VectorOperation::insert);
    gpumf::internal::import_elements(src.block(1), p, VectorOperation::insert);
    using BlockVector = LinearAlgebra::distributed::BlockVector<double>;
    const std::function<void(const MatrixFree<dim, double> &,
                             BlockVector &,
                             const BlockVector &,
                             const std::pair<unsigned int, unsigned int> &)>
      operation = [&](const MatrixFree<dim, double>                         &data,
                      LinearAlgebra::distributed::BlockVector<double>       &out,
                      const LinearAlgebra::distributed::BlockVector<double> &in,
                      const std::pair<unsigned int, unsigned int>           &range) {
        FEEvaluation<dim, -1, 0, dim, double> phi_u(data, 0);
        FEEvaluation<dim, -1, 0, 1, double>   phi_p(data, 1);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi_u.reinit(cell);
            phi_p.reinit(cell);
            phi_u.read_dof_values(in.block(0));
            phi_p.read_dof_values(in.block(1));
            phi_u.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
            phi_p.evaluate(EvaluationFlags::values);
            for (unsigned int q = 0; q < phi_u.n_q_points; ++q)
              {
                const auto pressure = phi_p.get_value(q);
                switch (form)
                  {
                    case SystemForm::stokes:
                      {
                        // (submit_gradient() overwrites what get_divergence() reads)
                        auto       gradient   = phi_u.get_gradient(q);
                        const auto divergence = phi_u.get_divergence(q);
                        for (unsigned int d = 0; d < dim; ++d)
                          gradient[d][d] -= pressure;
                        phi_u.submit_gradient(gradient, q);
                        phi_p.submit_value(-divergence, q);
                        break;
                      }
                    case SystemForm::divergence_transpose:
                      phi_u.submit_divergence(-pressure, q);
                      phi_p.submit_value(0., q);
                      break;
                    case SystemForm::elasticity:
                      {
                        auto       eps = phi_u.get_symmetric_gradient(q);
                        const auto div = trace(eps);
                        eps *= 2.;
                        for (unsigned int d = 0; d < dim; ++d)
                          eps[d][d] += 3. * div;
                        phi_u.submit_symmetric_gradient(eps, q);
                        phi_p.submit_value(0., q);
                        break;
                      }
                    case SystemForm::curl_curl:
                      phi_u.submit_curl(phi_u.get_curl(q), q);
                      phi_u.submit_value(phi_u.get_value(q), q);
                      phi_p.submit_value(0., q);
                      break;
                    case SystemForm::pressure_mass:
                      phi_u.submit_gradient(Tensor<2, dim, VectorizedArray<double>>(), q);
                      phi_p.submit_value(pressure, q);
                      break;
                  }
              }
            phi_u.integrate(form == SystemForm::curl_curl ? EvaluationFlags::values | EvaluationFlags::gradients :
                                                            EvaluationFlags::gradients);
            phi_p.integrate(EvaluationFlags::values);
            phi_u.distribute_local_to_global(out.block(0));
            phi_p.distribute_local_to_global(out.block(1));
          }
      };
    mf.cell_loop(operation, dst, src, true);
    dst_u.reinit(dof_u.locally_owned_dofs());
    dst_p.reinit(dof_p.locally_owned_dofs());
    gpumf::internal::import_elements(dst_u, dst.block(0), VectorOperation::insert);
    gpumf::internal::import_elements(dst_p, dst.block(1), VectorOperation::insert);
  }

  template void
  system_form<2>(SystemForm,
                 const Mapping<2> &,
                 const DoFHandler<2> &,
                 const AffineConstraints<double> &,
                 const DoFHandler<2> &,
                 const AffineConstraints<double> &,
                 unsigned int,
                 const LinearAlgebra::ReadWriteVector<double> &,
                 const LinearAlgebra::ReadWriteVector<double> &,
                 LinearAlgebra::ReadWriteVector<double> &,
                 LinearAlgebra::ReadWriteVector<double> &);
  template void
  system_form<3>(SystemForm,
                 const Mapping<3> &,
                 const DoFHandler<3> &,
                 const AffineConstraints<double> &,
                 const DoFHandler<3> &,
                 const AffineConstraints<double> &,
                 unsigned int,
                 const LinearAlgebra::ReadWriteVector<double> &,
                 const LinearAlgebra::ReadWriteVector<double> &,
                 LinearAlgebra::ReadWriteVector<double> &,
                 LinearAlgebra::ReadWriteVector<double> &);
} // namespace test
