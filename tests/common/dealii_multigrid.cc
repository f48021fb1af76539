#include "dealii_multigrid.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/matrix_free/tools.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>

namespace test
{
  using namespace dealii;

  template <int dim>
  struct DealiiMultigrid<dim>::Impl
  {
    using LevelOperator = MatrixFreeOperators::LaplaceOperator<dim, -1, 0, 1, VectorType>;
    MGTransferMatrixFree<dim, double>                     transfer;
    MGLevelObject<LevelOperator>                          operators;
    std::vector<std::shared_ptr<MatrixFree<dim, double>>> mf;
    const DoFHandler<dim>                                *dof                 = nullptr;
    const MGConstrainedDoFs                              *mg_constrained_dofs = nullptr;
  };

  template <int dim>
  DealiiMultigrid<dim>::DealiiMultigrid()
    : impl(std::make_unique<Impl>())
  {}

  template <int dim>
  DealiiMultigrid<dim>::~DealiiMultigrid() = default;

  template <int dim>
  void
  DealiiMultigrid<dim>::reinit(const Mapping<dim>      &mapping,
                               const DoFHandler<dim>   &dof,
                               const MGConstrainedDoFs &mg_constrained_dofs)
  {
    impl->dof                 = &dof;
    impl->mg_constrained_dofs = &mg_constrained_dofs;
    impl->transfer.initialize_constraints(mg_constrained_dofs);
    impl->transfer.build(dof);
    const unsigned int n_levels = dof.get_triangulation().n_global_levels();
    impl->operators.resize(0, n_levels - 1);
    impl->mf.resize(n_levels);
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        AffineConstraints<double> level_constraints;
        level_constraints.reinit(DoFTools::extract_locally_relevant_level_dofs(dof, level));
        level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
        level_constraints.close();
        typename MatrixFree<dim, double>::AdditionalData data;
        data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
        data.mapping_update_flags  = update_gradients | update_JxW_values;
        data.mg_level              = level;
        auto mf                    = std::make_shared<MatrixFree<dim, double>>();
        mf->reinit(mapping, dof, level_constraints, QGauss<1>(dof.get_fe().degree + 1), data);
        impl->operators[level].initialize(mf, mg_constrained_dofs, level);
        impl->mf[level] = mf;
      }
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::initialize_level_vector(const unsigned int level, VectorType &v) const
  {
    impl->operators[level].initialize_dof_vector(v);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const
  {
    impl->transfer.prolongate(to_level, dst, src);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::restrict_and_add(const unsigned int from_level, VectorType &dst, const VectorType &src) const
  {
    impl->transfer.restrict_and_add(from_level, dst, src);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::copy_to_mg(const VectorType &global, MGLevelObject<VectorType> &levels) const
  {
    impl->transfer.copy_to_mg(*impl->dof, levels, global);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::interpolate_to_mg(const VectorType &global, MGLevelObject<VectorType> &levels) const
  {
    impl->transfer.interpolate_to_mg(*impl->dof, levels, global);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::copy_from_mg(VectorType &global, const MGLevelObject<VectorType> &levels) const
  {
    impl->transfer.copy_from_mg(*impl->dof, global, levels);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::vmult(const unsigned int level, VectorType &dst, const VectorType &src) const
  {
    impl->operators[level].vmult(dst, src);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::vmult_interface_down(const unsigned int level, VectorType &dst, const VectorType &src) const
  {
    impl->operators[level].vmult_interface_down(dst, src);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::vmult_interface_up(const unsigned int level, VectorType &dst, const VectorType &src) const
  {
    impl->operators[level].vmult_interface_up(dst, src);
  }

  template <int dim>
  void
  DealiiMultigrid<dim>::diagonal(const unsigned int level, VectorType &diagonal) const
  {
    // MatrixFreeTools::compute_diagonal (LaplaceOperator::compute_diagonal() of the installed
    // deal.II 9.4.1 leaves entries uninitialized on levels with refinement edges), then the rows
    // the level operator keeps as the identity
    const std::function<void(FEEvaluation<dim, -1, 0, 1, double> &)> laplace =
      [](FEEvaluation<dim, -1, 0, 1, double> &phi) {
        phi.evaluate(EvaluationFlags::gradients);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          phi.submit_gradient(phi.get_gradient(q), q);
        phi.integrate(EvaluationFlags::gradients);
      };
    impl->mf[level]->initialize_dof_vector(diagonal);
    MatrixFreeTools::compute_diagonal(*impl->mf[level], diagonal, laplace);
    for (const unsigned int i : impl->mf[level]->get_constrained_dofs())
      diagonal.local_element(i) = 1.;
    for (const auto i : impl->mg_constrained_dofs->get_refinement_edge_indices(level))
      if (diagonal.locally_owned_elements().is_element(i))
        diagonal(i) = 1.;
  }

  template class DealiiMultigrid<2>;
  template class DealiiMultigrid<3>;
} // namespace test
