// gpumf_benchmark's --implementations stencil-constant, stencil-semi, stencil-variable: the FE_Q(1)
// Laplacian of the Cartesian benchmark mesh as gpumf::StencilOperator with the given storage
// (issue #16). Its own DoFHandler (renumbered lexicographically) on the problem's mesh.
#include <gpumf/stencil_operator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/numerics/vector_tools.h>

#include "benchmark.h"

namespace bench
{
  using namespace dealii;

  template <int dim>
  Result
  run_stencil(const Problem<dim> &problem, const Case &c, const Options &options)
  {
    Result result;
    AssertThrow(c.degree == 1 && problem.mesh == "cartesian" && (c.form == Form::bp3 || c.form == Form::bp5) &&
                  c.what == "vmult" && c.number == "double",
                ExcMessage("the stencil is measured for the vmult of the FE_Q(1) Laplacian (bp3 or bp5 at degree 1) "
                           "on the cartesian mesh  in double"));
    const std::string           name    = c.implementation;
    const gpumf::StencilStorage storage = name == "stencil-constant" ? gpumf::StencilStorage::constant :
                                          name == "stencil-semi"     ? gpumf::StencilStorage::semi_constant :
                                                                       gpumf::StencilStorage::variable;
    gpumf::synchronize(options.backend);
    Timer           setup_timer;
    DoFHandler<dim> dof(*problem.tria);
    dof.distribute_dofs(FE_Q<dim>(1));
    gpumf::renumber_lexicographic(dof);
    AffineConstraints<double> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    VectorTools::interpolate_boundary_values(MappingQ1<dim>(), dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    gpumf::StencilOperator<dim, double> op;
    {
      // the MatrixFree object gives the layout and constraints; the operator keeps none of its data
      typename gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend = options.backend;
      gpumf::MatrixFree<dim, double> mf;
      mf.reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(2), data);
      typename gpumf::StencilOperator<dim, double>::AdditionalData stencil_data;
      stencil_data.storage = storage;
      op.reinit(mf, stencil_data);
    }
    gpumf::synchronize(options.backend);
    result.setup_seconds  = setup_timer.wall_time();
    result.implementation = c.implementation; // the storage forced: op.storage()
    result.geometry       = "grid";
    result.n_cells        = problem.tria->n_active_cells();
    result.data_bytes     = op.memory_consumption();
    result.bytes          = op.memory_traffic();
    result.flops          = 2. * gpumf::StencilOperator<dim, double>::n_entries * dof.n_locally_owned_dofs();
    gpumf::Vector<double> x, y;
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(y);
    x = 1.;
    result.seconds = median_seconds(options.backend, options.repeat, [&]() { op.vmult(y, x); });
    return result;
  }

  template Result
  run_stencil<2>(const Problem<2> &, const Case &, const Options &);
  template Result
  run_stencil<3>(const Problem<3> &, const Case &, const Options &);
} // namespace bench
