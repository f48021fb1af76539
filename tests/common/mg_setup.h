// The multigrid set-up of a step-37-like program, shared by the tests that build it (multigrid,
// setup): DoFs, constraints and MGConstrainedDoFs, and gpumf's level Laplace operators.
#ifndef gpumf_tests_mg_setup_h
#define gpumf_tests_mg_setup_h

#include <gpumf/operators.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/numerics/vector_tools.h>

#include <memory>
#include <vector>

namespace test
{
  using namespace dealii;

  /// DoFs on the active cells and on the levels of @p dof's mesh, hanging-node constraints and
  /// zero Dirichlet values on boundary id 0 (active cells and levels), as step-37 sets them up.
  template <int dim>
  void
  distribute_mg_dofs(const Mapping<dim>        &mapping,
                     const FiniteElement<dim>  &fe,
                     DoFHandler<dim>           &dof,
                     AffineConstraints<double> &constraints,
                     MGConstrainedDoFs         &mg_constrained_dofs)
  {
    dof.distribute_dofs(fe);
    dof.distribute_mg_dofs();
    constraints.clear();
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    DoFTools::make_hanging_node_constraints(dof, constraints);
    VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    mg_constrained_dofs.initialize(dof);
    mg_constrained_dofs.make_zero_boundary_constraints(dof, {0});
  }

  /// Level Laplace operators of @p degree on every level, with their diagonals, as step-37 sets
  /// them up (cells colored with @p use_coloring, else atomics).
  template <int dim, int degree, typename Number>
  void
  make_level_operators(const Mapping<dim>                                                        &mapping,
                       const DoFHandler<dim>                                                     &dof,
                       const MGConstrainedDoFs                                                   &mg_constrained_dofs,
                       const gpumf::Backend                                                       backend,
                       const bool                                                                 use_coloring,
                       MGLevelObject<gpumf::LaplaceOperator<dim, degree, degree + 1, 1, Number>> &operators)
  {
    const unsigned int n_levels = dof.get_triangulation().n_global_levels();
    operators.resize(0, n_levels - 1);
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        AffineConstraints<Number> level_constraints;
        level_constraints.reinit(DoFTools::extract_locally_relevant_level_dofs(dof, level));
        level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
        level_constraints.close();
        typename gpumf::MatrixFree<dim, Number>::AdditionalData data;
        data.backend      = backend;
        data.mg_level     = level;
        data.use_coloring = use_coloring;
        auto mf           = std::make_shared<gpumf::MatrixFree<dim, Number>>();
        mf->reinit(mapping, dof, level_constraints, QGauss<1>(degree + 1), data);
        operators[level].initialize(mf, mg_constrained_dofs, level);
        operators[level].compute_diagonal();
      }
  }

  /// The level layouts of @p operators (for MGTransferMatrixFree::build()).
  template <typename OperatorType>
  std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
  partitioners(const MGLevelObject<OperatorType> &operators)
  {
    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> result;
    for (unsigned int l = operators.min_level(); l <= operators.max_level(); ++l)
      result.push_back(operators[l].get_matrix_free()->get_vector_partitioner());
    return result;
  }
} // namespace test

#endif
