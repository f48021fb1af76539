// deal.II's CPU MatrixFree with two DoFHandlers (a vector-valued FE_Q system and a scalar FE_Q)
// applying the vector-valued forms the systems test checks gpumf against.
#ifndef gpumf_tests_dealii_systems_reference_h
#define gpumf_tests_dealii_systems_reference_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/read_write_vector.h>

namespace test
{
  /// The forms, for u, v in the vector-valued space (DoFHandler 0) and p, q in the scalar one (1):
  enum class SystemForm
  {
    /// (grad u, grad v) - (p, div v) and -(div u, q): step-104's Stokes operator
    stokes,
    /// -(p, div v) alone (step-104's B^T, tested through submit_divergence())
    divergence_transpose,
    /// (2 eps(u) + 3 div u I, eps(v)): isotropic elasticity (mu = 1, lambda = 3)
    elasticity,
    /// (curl u, curl v) + (u, v)
    curl_curl,
    /// (p, q) alone
    pressure_mass
  };

  /**
   * dst_u and dst_p (the owned entries of the DoFHandlers' DoFs) of @p form applied to u and p
   * by deal.II's CPU MatrixFree with QGauss<1>(@p n_q_points_1d), FEEvaluation's dof_no 0 and 1
   * and its vector-valued functions; constrained entries read as zero and receive nothing.
   */
  template <int dim>
  void
  system_form(const SystemForm                                      form,
              const dealii::Mapping<dim>                           &mapping,
              const dealii::DoFHandler<dim>                        &dof_u,
              const dealii::AffineConstraints<double>              &constraints_u,
              const dealii::DoFHandler<dim>                        &dof_p,
              const dealii::AffineConstraints<double>              &constraints_p,
              const unsigned int                                    n_q_points_1d,
              const dealii::LinearAlgebra::ReadWriteVector<double> &u,
              const dealii::LinearAlgebra::ReadWriteVector<double> &p,
              dealii::LinearAlgebra::ReadWriteVector<double>       &dst_u,
              dealii::LinearAlgebra::ReadWriteVector<double>       &dst_p);
} // namespace test

#endif
