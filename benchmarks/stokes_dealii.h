// deal.II's own CPU MatrixFree applying step-104's Stokes operator, (grad u, grad v) - (p, div v)
// - (div u, q), as a deal.II user writes it: one MatrixFree over the velocity and pressure
// DoFHandlers, FEEvaluation<dim, p + 1, p + 2, dim> with dof_no 0 and FEEvaluation<dim, p, p + 2, 1>
// with dof_no 1, a LinearAlgebra::distributed::BlockVector; and the velocity block alone. The CPU
// side of gpumf_stokes's timings. Compiled by g++ only (stokes_dealii.cc).
#ifndef gpumf_benchmarks_stokes_dealii_h
#define gpumf_benchmarks_stokes_dealii_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_block_vector.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <memory>

namespace bench
{
  /// Pressure degrees 1 to 4 in 3D (explicitly instantiated); the velocity's is one more.
  template <int dim, int degree_p>
  class DealiiStokes
  {
  public:
    using VectorType      = dealii::LinearAlgebra::distributed::Vector<double>;
    using BlockVectorType = dealii::LinearAlgebra::distributed::BlockVector<double>;

    DealiiStokes();
    ~DealiiStokes();

    /// deal.II MatrixFree with QGauss<1>(degree_p + 2) on the active cells of both DoFHandlers.
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_u,
           const dealii::DoFHandler<dim>           &dof_p,
           const dealii::AffineConstraints<double> &constraints_u,
           const dealii::AffineConstraints<double> &constraints_p);

    /// Block 0 the velocity, block 1 the pressure.
    void
    initialize_dof_vector(BlockVectorType &v) const;

    /// dst = A src (constrained entries read as zero and receive nothing).
    void
    vmult(BlockVectorType &dst, const BlockVectorType &src) const;

    /// dst = A_uu src on the velocity block alone: (grad u, grad v).
    void
    vmult_velocity(VectorType &dst, const VectorType &src) const;

  private:
    struct Implementation;
    std::unique_ptr<Implementation> implementation;
  };
} // namespace bench

#endif
