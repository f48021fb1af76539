#include "cantilever.h"

#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

namespace cantilever
{
  Problem::Problem(const unsigned int n_refinements)
    : triangulation(MPI_COMM_WORLD,
                    Triangulation<dim>::limit_level_difference_at_vertices,
                    parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy)
    , fe(FE_Q<dim>(degree), dim)
    , dof_handler(triangulation)
  {
    Timer timer;
    // 8 x 1 x 1 cells; colorized: the face x = 0 has boundary id 0
    GridGenerator::subdivided_hyper_rectangle(
      triangulation, {8u, 1u, 1u}, Point<dim>(), Point<dim>(length, 1., 1.), true);
    triangulation.refine_global(n_refinements);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof_handler));
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    VectorTools::interpolate_boundary_values(mapping, dof_handler, 0, Functions::ZeroFunction<dim>(dim), constraints);
    constraints.close();
    setup_seconds = timer.wall_time();
  }

  void
  make_mg_constrained_dofs(const Problem &problem, MGConstrainedDoFs &mg_constrained_dofs)
  {
    mg_constrained_dofs.initialize(problem.dof_handler);
    mg_constrained_dofs.make_zero_boundary_constraints(problem.dof_handler, {types::boundary_id(0)});
  }

  AffineConstraints<float>
  level_constraints(const Problem &problem, const MGConstrainedDoFs &mg_constrained_dofs, const unsigned int level)
  {
    AffineConstraints<float> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_level_dofs(problem.dof_handler, level));
    constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
    constraints.close();
    return constraints;
  }

  double
  largest_sag(const Problem &problem, const double *owned_values)
  {
    // the z component's DoFs among the owned ones
    const ComponentMask z = problem.fe.component_mask(FEValuesExtractors::Scalar(2));
    const IndexSet z_dofs = DoFTools::extract_dofs(problem.dof_handler, z) & problem.dof_handler.locally_owned_dofs();
    double         sag    = 0;
    for (const auto i : z_dofs)
      sag = std::max(sag, -owned_values[problem.dof_handler.locally_owned_dofs().index_within_set(i)]);
    return Utilities::MPI::max(sag, MPI_COMM_WORLD);
  }
} // namespace cantilever
