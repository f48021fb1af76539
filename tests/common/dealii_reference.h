// deal.II's own CPU MatrixFree applying the Helmholtz operator of helmholtz_operator.h:
// the reference the gpumf backends are checked against. Compiled by g++ only
// (dealii_reference.cc); the interface keeps deal.II's MatrixFree out of nvcc's sight.
#ifndef gpumf_tests_dealii_reference_h
#define gpumf_tests_dealii_reference_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>

#include <functional>
#include <memory>

namespace test
{
  template <int dim>
  class DealiiHelmholtzOperator
  {
  public:
    using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

    DealiiHelmholtzOperator();
    ~DealiiHelmholtzOperator();

    /// deal.II MatrixFree with QGauss<1>(n_q_points_1d), FEEvaluation<dim, -1> (any degree).
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<double> &constraints,
           const unsigned int                       n_q_points_1d);

    /// dst = A src on the unconstrained DoFs, dst = src on the constrained ones.
    void
    vmult(VectorType &dst, const VectorType &src) const;

    /// The diagonal (deal.II's MatrixFreeTools::compute_diagonal), 1 on the constrained DoFs.
    void
    compute_diagonal(VectorType &diagonal) const;

    void
    initialize_dof_vector(VectorType &v) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl;
  };

  /**
   * dst = (u v + a u, phi) + (grad v, grad phi) for the test functions phi, from two fields u
   * and v read in one cell loop by two FEEvaluation objects (as deal.II's step-48 reads two
   * old solutions), with deal.II's CPU MatrixFree and QGauss<1>(n_q_points_1d); constrained
   * rows receive nothing. The reference for gpumf's cell loops with several sources.
   */
  template <int dim>
  void
  two_field_form(const dealii::Mapping<dim>                           &mapping,
                 const dealii::DoFHandler<dim>                        &dof_handler,
                 const dealii::AffineConstraints<double>              &constraints,
                 const unsigned int                                    n_q_points_1d,
                 const dealii::LinearAlgebra::ReadWriteVector<double> &u,
                 const dealii::LinearAlgebra::ReadWriteVector<double> &v,
                 const double                                          a,
                 dealii::LinearAlgebra::ReadWriteVector<double>       &dst);

  /**
   * The matrix of (kappa grad u, grad v) + (a u, v), component by component, assembled from
   * FEValues element matrices (those of gpumf::LocalMatrixOperator's built-in forms) into a
   * deal.II SparseMatrix on one rank, constrained rows and columns condensed and the
   * constrained diagonal set to 1: the reference for the tensor-product operators. A null
   * coefficient leaves its term out.
   */
  template <int dim>
  class AssembledOperator
  {
  public:
    AssembledOperator();
    ~AssembledOperator();

    void
    assemble(const dealii::Mapping<dim>              &mapping,
             const dealii::DoFHandler<dim>           &dof_handler,
             const dealii::AffineConstraints<double> &constraints,
             const dealii::Quadrature<1>             &quad,
             const dealii::Function<dim>             *value_coefficient,
             const dealii::Function<dim>             *gradient_coefficient);

    /// The matrix of isotropic elasticity, (2 mu eps(u), eps(v)) + (lambda div u, div v), for
    /// an FESystem of dim components (FEValuesExtractors::Vector), otherwise as assemble().
    void
    assemble_elasticity(const dealii::Mapping<dim>              &mapping,
                        const dealii::DoFHandler<dim>           &dof_handler,
                        const dealii::AffineConstraints<double> &constraints,
                        const dealii::Quadrature<1>             &quad,
                        const dealii::Function<dim>             &lambda,
                        const dealii::Function<dim>             &mu);

    void
    vmult(dealii::Vector<double> &dst, const dealii::Vector<double> &src) const;

    double
    diagonal(const unsigned int i) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl;

    void
    assemble_form(const dealii::Mapping<dim>                              &mapping,
                  const dealii::DoFHandler<dim>                           &dof_handler,
                  const dealii::AffineConstraints<double>                 &constraints,
                  const dealii::Quadrature<1>                             &quad,
                  const std::function<void(const typename dealii::DoFHandler<dim>::active_cell_iterator &,
                                           const dealii::FEValues<dim> &,
                                           dealii::FullMatrix<double> &)> &form);
  };

  /**
   * deal.II's SparseMatrix of the Laplacian (grad u, grad v), with QGauss<dim>(n_q_points_1d),
   * on the active cells or (@p level other than numbers::invalid_unsigned_int) on a multigrid
   * level; one rank only (global = local indices). The pattern couples all DoFs of each cell; the
   * entries of the rows and columns that @p constraints constrains are left out, and their
   * diagonal entries set to 1. The assembled reference of the Laplace tests.
   */
  template <int dim, typename Number>
  void
  assemble_laplace_matrix(const dealii::Mapping<dim>              &mapping,
                          const dealii::DoFHandler<dim>           &dof_handler,
                          const unsigned int                       level,
                          const dealii::AffineConstraints<Number> &constraints,
                          const unsigned int                       n_q_points_1d,
                          dealii::SparsityPattern                 &pattern,
                          dealii::SparseMatrix<double>            &matrix);
} // namespace test

#endif
