// deal.II's own CPU MatrixFree applying isotropic elasticity, (2 mu eps(u), eps(v)) +
// (lambda div u, div v) with constant lambda and mu, as a deal.II user writes it
// (FEEvaluation<dim, degree, degree + 1, dim>, get/submit_symmetric_gradient): the CPU side of
// gpumf_elasticity's timings. Compiled by g++ only (elasticity_dealii.cc).
#ifndef gpumf_benchmarks_elasticity_dealii_h
#define gpumf_benchmarks_elasticity_dealii_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <memory>

namespace bench
{
  /// Degrees 2 and 4 in 3D (explicitly instantiated).
  template <int dim, int degree>
  class DealiiElasticity
  {
  public:
    using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

    DealiiElasticity();
    ~DealiiElasticity();

    /// deal.II MatrixFree with QGauss<1>(degree + 1) on the active cells.
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<double> &constraints,
           double                                   lambda,
           double                                   mu);

    void
    initialize_dof_vector(VectorType &v) const;

    /// dst = A src (constrained entries read as zero and receive nothing).
    void
    vmult(VectorType &dst, const VectorType &src) const;

  private:
    struct Implementation;
    std::unique_ptr<Implementation> implementation;
  };
} // namespace bench

#endif
