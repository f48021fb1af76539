// deal.II's own CPU MatrixFree::loop applying step-59's symmetric interior-penalty Laplacian:
// the reference gpumf's face loops are checked against. Compiled by g++ only
// (dealii_dg_reference.cc), so that deal.II's face evaluators stay out of nvcc's sight.
#ifndef gpumf_tests_dealii_dg_reference_h
#define gpumf_tests_dealii_dg_reference_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <memory>
#include <vector>

namespace test
{
  /**
   * step-59's SIPG Laplacian on deal.II's CPU MatrixFree::loop (the operator of dealii_sipg()),
   * for timings: deal.II MatrixFree with QGauss<1>(n_q_points_1d), FEEvaluation<dim, -1> and
   * FEFaceEvaluation<dim, -1>, DataAccessOnFaces::gradients.
   */
  template <int dim>
  class DealiiSIPG
  {
  public:
    using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

    DealiiSIPG();
    ~DealiiSIPG();

    void
    reinit(const dealii::Mapping<dim> &mapping, const dealii::DoFHandler<dim> &dof_handler, unsigned int n_q_points_1d);

    void
    initialize_dof_vector(VectorType &v) const;

    /// dst = A src.
    void
    vmult(VectorType &dst, const VectorType &src) const;

  private:
    struct Implementation;
    std::unique_ptr<Implementation> implementation;
  };

  /**
   * dst = A src for step-59's SIPG Laplacian with the penalty evaluated at every face point,
   * sigma = p (p + 1) * 1/2 (|(n J^-T_-)[dim-1]| + |(n J^-T_+)[dim-1]|) (one side at the
   * boundary); boundary id 0 Dirichlet (u+ = -u-), others Neumann (u+ = u-). @p src and the
   * result hold the locally owned DoFs in their global order. deal.II MatrixFree with
   * QGauss<1>(n_q_points_1d), FEEvaluation<dim, -1> and FEFaceEvaluation<dim, -1>.
   */
  template <int dim>
  std::vector<double>
  dealii_sipg(const dealii::Mapping<dim>    &mapping,
              const dealii::DoFHandler<dim> &dof_handler,
              const unsigned int             n_q_points_1d,
              const std::vector<double>     &src);
} // namespace test

#endif
