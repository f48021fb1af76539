// gpumf_benchmark's --implementations lm-cell and lm-otf: gpumf::LocalMatrixOperator
// with the element matrices stored per cell or computed on the fly, for the form of the case, with
// a chosen kernel (suffix -thread, -warp or -block; none: the operator's automatic choice). The
// ready operators' "lm" takes the storage the operator chooses (shared on the cartesian mesh).
#include <gpumf/cost_model.h>
#include <gpumf/local_matrix_operator.h>

#include <deal.II/base/timer.h>

#include <random>

#include "benchmark.h"
#include "cg_timing.h"

namespace bench
{
  using namespace dealii;

  template <int dim>
  Result
  run_local_matrix(const Problem<dim> &problem, const Case &c, const Options &options)
  {
    using LM = gpumf::LocalMatrixOperator<dim, double>;
    Result result;
    if (c.number != "double" || c.conflict == "none" || c.layout != "ready")
      {
        result.skipped = true;
        result.note    = "lm-cell and lm-otf are measured in double with atomics or coloring (layout ready)";
        return result;
      }
    if (c.geometry == "affine" && !problem.affine_mesh())
      {
        result.skipped = true;
        result.note    = "affine geometry needs a mesh of parallelepipeds (cartesian, cube-adaptive)";
        return result;
      }
    // lm-<storage>[-<kernel>]
    const std::string name       = c.implementation.substr(3);
    const bool        on_the_fly = name.rfind("otf", 0) == 0;
    const std::string kernel     = name.find('-') == std::string::npos ? "" : name.substr(name.find('-') + 1);
    const bool        values = c.form == Form::bp1 || c.form == Form::helmholtz, gradients = c.form != Form::bp1;
    typename LM::AdditionalData data;
    data.matrix_free.backend      = options.backend;
    data.matrix_free.use_coloring = c.conflict == "coloring";
    data.matrix_free.geometry     = c.geometry == "affine" ? gpumf::MatrixFree<dim, double>::GeometryStorage::affine :
                                                             gpumf::MatrixFree<dim, double>::GeometryStorage::per_point;
    data.storage                  = on_the_fly ? LM::Storage::on_the_fly : LM::Storage::per_cell;
    data.laplace_coefficient      = gradients ? 1. : 0.;
    data.mass_coefficient         = values ? 1. : 0.;
    data.kernel                   = kernel == "thread" ? LM::Kernel::thread_per_element :
                                    kernel == "warp"   ? LM::Kernel::warp_per_element :
                                    kernel == "block"  ? LM::Kernel::block_per_element :
                                                         LM::Kernel::automatic;
    const Functions::ConstantFunction<dim> one(1.);
    const auto form = values && gradients ? LM::helmholtz(&one, &one) : values ? LM::mass(&one) : LM::laplace(&one);
    // refuse what the GPU cannot hold: the per-cell matrices
    const double n_cells    = problem.tria->n_active_cells();
    const double n_per_cell = problem.dof_handler.get_fe().n_dofs_per_cell();
    std::size_t  free_bytes = 0, total_bytes = 0;
    if (!on_the_fly && device_memory(options.backend, free_bytes, total_bytes))
      AssertThrow(8. * n_cells * n_per_cell * n_per_cell < 0.8 * free_bytes,
                  ExcMessage("the per-cell matrices need " + fmt(8. * n_cells * n_per_cell * n_per_cell, 3) +
                             " bytes  the GPU has " + fmt(double(free_bytes), 3) + " free"));
    gpumf::synchronize(options.backend);
    Timer setup_timer;
    LM    op;
    op.reinit(*problem.mapping, problem.dof_handler, problem.constraints, quadrature(c.form, c.degree), form, data);
    op.compute_diagonal();
    gpumf::synchronize(options.backend);
    result.setup_seconds   = setup_timer.wall_time();
    const auto &mf         = op.matrix_free();
    result.data_bytes      = op.memory_consumption();
    result.n_cells         = mf.n_cells();
    result.n_colors        = mf.n_colors();
    const auto kernel_name = op.kernel() == LM::Kernel::thread_per_element ? "thread" :
                             op.kernel() == LM::Kernel::warp_per_element   ? "warp" :
                                                                             "block";
    result.implementation  = std::string(on_the_fly ? "lm-otf-" : "lm-cell-") + kernel_name;
    result.geometry        = mf.has_affine_geometry() ? "affine" : "stored";
    const gpumf::CellTraffic traffic{
      dim, c.degree, n_q_points_1d(c.form, c.degree), 1, values, gradients, 0, mf.has_affine_geometry()};
    const double n_dofs = problem.dof_handler.n_dofs();
    result.bytes        = 16. * n_dofs + result.n_cells * (on_the_fly ? traffic.on_the_fly_cell_bytes() :
                                                                        traffic.local_matrix_cell_bytes(false));
    result.flops        = result.n_cells * (on_the_fly ? traffic.on_the_fly_flops() : traffic.local_matrix_flops());

    gpumf::Vector<double> x, y;
    op.initialize_dof_vector(x);
    op.initialize_dof_vector(y);
    LinearAlgebra::ReadWriteVector<double> rw(x.locally_owned_elements());
    std::mt19937                           generator(42);
    std::uniform_real_distribution<double> uniform(-1., 1.);
    for (auto &v : rw)
      v = uniform(generator);
    x.import(rw, VectorOperation::insert);
    if (c.what == "vmult")
      result.seconds = median_seconds(options.backend, options.repeat, [&]() { op.vmult(y, x); });
    else
      {
        mf.set_constrained_values(0., x);
        time_cg(op, *op.get_matrix_diagonal_inverse(), x, y, c, options, result);
      }
    return result;
  }

  template Result
  run_local_matrix<2>(const Problem<2> &, const Case &, const Options &);
  template Result
  run_local_matrix<3>(const Problem<3> &, const Case &, const Options &);
} // namespace bench
