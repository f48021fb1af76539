// deal.II's own multigrid pieces (CPU) as the reference for gpumf's: MGTransferMatrixFree and the
// level Laplace operators (MatrixFreeOperators::LaplaceOperator on MatrixFree with mg_level and
// MGConstrainedDoFs), on the same DoFHandler. Compiled by g++ into gpumf_test_reference.
#ifndef gpumf_tests_dealii_multigrid_h
#define gpumf_tests_dealii_multigrid_h

#include <deal.II/base/mg_level_object.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <memory>

namespace test
{
  template <int dim>
  class DealiiMultigrid
  {
  public:
    using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

    DealiiMultigrid();
    ~DealiiMultigrid();

    /// Transfer and level operators (-Laplace, zero Dirichlet values on the MGConstrainedDoFs'
    /// boundary indices) on every level, with Gauss quadrature of degree + 1 points.
    void
    reinit(const dealii::Mapping<dim>      &mapping,
           const dealii::DoFHandler<dim>   &dof_handler,
           const dealii::MGConstrainedDoFs &mg_constrained_dofs);

    /// The layout of the level operator.
    void
    initialize_level_vector(const unsigned int level, VectorType &v) const;

    void
    prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const;
    void
    restrict_and_add(const unsigned int from_level, VectorType &dst, const VectorType &src) const;
    void
    copy_to_mg(const VectorType &global, dealii::MGLevelObject<VectorType> &levels) const;
    void
    copy_from_mg(VectorType &global, const dealii::MGLevelObject<VectorType> &levels) const;
    /// deal.II's interpolate_to_mg() of @p global (its hanging nodes set) onto every level.
    void
    interpolate_to_mg(const VectorType &global, dealii::MGLevelObject<VectorType> &levels) const;

    void
    vmult(const unsigned int level, VectorType &dst, const VectorType &src) const;
    void
    vmult_interface_down(const unsigned int level, VectorType &dst, const VectorType &src) const;
    void
    vmult_interface_up(const unsigned int level, VectorType &dst, const VectorType &src) const;
    /// The diagonal of the level operator (constrained and refinement-edge rows 1).
    void
    diagonal(const unsigned int level, VectorType &diagonal) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl;
  };
} // namespace test

#endif
