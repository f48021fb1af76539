// The problem of deal.II's step-64 (-laplace u + a(x) u = 1 on the unit cube, zero
// Dirichlet values, FE_Q(3), four cycles of global refinement) solved with deal.II's
// own CPU MatrixFree: the reference for the gpumf port. Prints what step-64 prints,
// with 16 digits.
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/vector_tools.h>

#include <iomanip>

#include "common/dealii_reference.h"

using namespace dealii;

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize          mpi(argc, argv, 1);
  constexpr int                             dim = 3, degree = 3;
  const MPI_Comm                            comm = MPI_COMM_WORLD;
  ConditionalOStream                        pcout(std::cout, Utilities::MPI::this_mpi_process(comm) == 0);
  parallel::distributed::Triangulation<dim> tria(comm);
  FE_Q<dim>                                 fe(degree);
  DoFHandler<dim>                           dof(tria);
  GridGenerator::hyper_cube(tria, 0., 1.);
  for (unsigned int cycle = 0; cycle < 7 - dim; ++cycle)
    {
      pcout << "Cycle " << cycle << std::endl;
      tria.refine_global(1);
      dof.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      AffineConstraints<double> constraints(relevant);
      DoFTools::make_hanging_node_constraints(dof, constraints);
      VectorTools::interpolate_boundary_values(dof, 0, Functions::ZeroFunction<dim>(), constraints);
      constraints.close();
      pcout << "   Number of active cells:       " << tria.n_global_active_cells() << std::endl
            << "   Number of degrees of freedom: " << dof.n_dofs() << std::endl;

      test::DealiiHelmholtzOperator<dim> op;
      op.reinit(MappingQ<dim>(degree), dof, constraints, degree + 1);
      LinearAlgebra::distributed::Vector<double> rhs, solution;
      op.initialize_dof_vector(rhs);
      op.initialize_dof_vector(solution);

      // right-hand side f = 1, assembled as step-64 does
      LinearAlgebra::distributed::Vector<double> rhs_host(dof.locally_owned_dofs(), relevant, comm);
      const QGauss<dim>                          quadrature(degree + 1);
      FEValues<dim>                              fe_values(fe, quadrature, update_values | update_JxW_values);
      Vector<double>                             cell_rhs(fe.n_dofs_per_cell());
      std::vector<types::global_dof_index>       indices(fe.n_dofs_per_cell());
      for (const auto &cell : dof.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            cell_rhs = 0;
            fe_values.reinit(cell);
            for (unsigned int q = 0; q < quadrature.size(); ++q)
              for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
                cell_rhs(i) += fe_values.shape_value(i, q) * 1.0 * fe_values.JxW(q);
            cell->get_dof_indices(indices);
            constraints.distribute_local_to_global(cell_rhs, indices, rhs_host);
          }
      rhs_host.compress(VectorOperation::add);
      rhs.copy_locally_owned_data_from(rhs_host);

      SolverControl control(rhs.size(), 1e-12 * rhs.l2_norm());
      SolverCG<LinearAlgebra::distributed::Vector<double>>(control).solve(op, solution, rhs, PreconditionIdentity());
      pcout << "  Solved in " << control.last_step() << " iterations." << std::endl;

      LinearAlgebra::distributed::Vector<double> ghosted(dof.locally_owned_dofs(), relevant, comm);
      ghosted.copy_locally_owned_data_from(solution);
      constraints.distribute(ghosted);
      ghosted.update_ghost_values();
      Vector<float> cellwise_norm(tria.n_active_cells());
      VectorTools::integrate_difference(
        dof, ghosted, Functions::ZeroFunction<dim>(), cellwise_norm, QGauss<dim>(fe.degree + 2), VectorTools::L2_norm);
      const double norm = VectorTools::compute_global_error(tria, cellwise_norm, VectorTools::L2_norm);
      pcout << "  solution norm: " << std::setprecision(16) << norm << std::endl << std::endl;
    }
}
