// gpumf_benchmark's --implementations stencil-constant, stencil-semi, stencil-variable,
// stencil-general: the FE_Q(1) Laplacian of the Cartesian benchmark mesh as gpumf::StencilOperator
// with the given storage (vmult), or one forward sweep of gpumf::MultiColorGaussSeidel on it (sweep;
// general: its ELL rows). Its own DoFHandler (renumbered lexicographically) on the
// problem's mesh.
#include <gpumf/cost_model.h>
#include <gpumf/multicolor_gauss_seidel.h>
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
                  (c.what == "vmult" || c.what == "sweep") && c.number == "double",
                ExcMessage("the stencil is measured for the vmult and the Gauss-Seidel sweep of the FE_Q(1) Laplacian "
                           "(bp3 or bp5 at degree 1) on the cartesian mesh  in double"));
    const std::string           name    = c.implementation;
    const gpumf::StencilStorage storage = name == "stencil-constant" ? gpumf::StencilStorage::constant :
                                          name == "stencil-semi"     ? gpumf::StencilStorage::semi_constant :
                                          name == "stencil-variable" ? gpumf::StencilStorage::variable :
                                                                       gpumf::StencilStorage::general;
    const bool                  general = storage == gpumf::StencilStorage::general;
    gpumf::synchronize(options.backend);
    Timer           setup_timer;
    DoFHandler<dim> dof(*problem.tria);
    dof.distribute_dofs(FE_Q<dim>(1));
    gpumf::renumber_lexicographic(dof);
    AffineConstraints<double> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    VectorTools::interpolate_boundary_values(MappingQ1<dim>(), dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    gpumf::StencilOperator<dim, double>                op;
    gpumf::MultiColorGaussSeidel<dim, double>          gs;
    const bool                                         sweep = c.what == "sweep";
    std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
    {
      // the MatrixFree object gives the layout and constraints; the operators keep none of its data
      typename gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend = options.backend;
      gpumf::MatrixFree<dim, double> mf;
      mf.reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(2), data);
      partitioner = mf.get_vector_partitioner();
      if (sweep || general)
        {
          typename gpumf::MultiColorGaussSeidel<dim, double>::AdditionalData gs_data(1., false);
          gs_data.storage = storage;
          gs.reinit(mf, gs_data);
        }
      else
        {
          typename gpumf::StencilOperator<dim, double>::AdditionalData stencil_data;
          stencil_data.storage = storage;
          op.reinit(mf, stencil_data);
        }
    }
    gpumf::synchronize(options.backend);
    result.setup_seconds             = setup_timer.wall_time();
    result.implementation            = c.implementation; // the storage forced: op.storage(), gs.storage()
    result.geometry                  = "grid";
    result.n_cells                   = problem.tria->n_active_cells();
    const double           n         = dof.n_locally_owned_dofs();
    constexpr unsigned int n_entries = gpumf::StencilOperator<dim, double>::n_entries;
    // bytes of the stored stencils per point: variable 3^dim numbers; general (ELL): a value and a
    // column index per slot, the row index and the inverse diagonal
    const double stored = storage == gpumf::StencilStorage::variable ? n_entries * 8. :
                          general                                    ? gs.get_stencil().n_slots * 12. + 12. :
                                                                       0.;
    result.data_bytes   = sweep || general ? gs.memory_consumption() : op.memory_consumption();
    const gpumf::RowTraffic traffic{n, n_entries * n, stored * n};
    result.bytes = sweep ? traffic.sweep_bytes(1u << dim) : traffic.vmult_bytes();
    result.flops = traffic.flops();
    gpumf::Vector<double> x(partitioner, options.backend), y(partitioner, options.backend);
    x = 1.;
    y = 0.;
    if (sweep)
      result.seconds = median_seconds(options.backend, options.repeat, [&]() { gs.forward_sweep(y, x); });
    else if (general)
      result.seconds = median_seconds(options.backend, options.repeat, [&]() { gs.stencil_vmult(y, x); });
    else
      result.seconds = median_seconds(options.backend, options.repeat, [&]() { op.vmult(y, x); });
    return result;
  }

  template Result
  run_stencil<2>(const Problem<2> &, const Case &, const Options &);
  template Result
  run_stencil<3>(const Problem<3> &, const Case &, const Options &);
} // namespace bench
