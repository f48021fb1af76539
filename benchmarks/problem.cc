// Meshes of the benchmark and the small shared helpers of benchmark.h.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>

#include "benchmark.h"
#include "deformed_mapping.h"

namespace bench
{
  using namespace dealii;

  std::string
  to_string(const Form form)
  {
    switch (form)
      {
        case Form::bp1:
          return "bp1";
        case Form::bp3:
          return "bp3";
        case Form::bp5:
          return "bp5";
        default:
          return "helmholtz";
      }
  }

  unsigned int
  n_q_points_1d(const Form form, const unsigned int degree)
  {
    return form == Form::bp5 ? degree + 1 : degree + 2;
  }

  Quadrature<1>
  quadrature(const Form form, const unsigned int degree)
  {
    if (form == Form::bp5)
      return QGaussLobatto<1>(degree + 1);
    return QGauss<1>(degree + 2);
  }

  template <int dim>
  Problem<dim>::Problem()
    : dof_handler(tria)
  {}

  template <int dim>
  void
  Problem<dim>::reinit(const std::string &mesh_kind, const unsigned int degree, const double target_dofs)
  {
    AssertThrow(mesh_kind == "cartesian" || mesh_kind == "deformed",
                ExcMessage("--mesh takes cartesian or deformed, got " + mesh_kind));
    Timer timer;
    mesh = mesh_kind;
    dof_handler.clear();
    tria.clear();
    // n^(dim-1) m cubes with (n p + 1)^(dim-1) (m p + 1) ~ target DoFs: a coarse box of at
    // most 16 cells per direction, refined globally (large coarse meshes set up slowly)
    const double n = std::max(1., std::round((std::pow(target_dofs, 1. / dim) - 1) / degree));
    const double m = std::max(1., std::round((target_dofs / std::pow(n * degree + 1., dim - 1) - 1) / degree));
    const unsigned int levels = n >= 16 ? unsigned(std::floor(std::log2(n / 8))) : 0;
    std::vector<unsigned int> repetitions(dim, std::max(1., std::round(n / (1u << levels))));
    repetitions[dim - 1] = std::max(1., std::round(m / (1u << levels)));
    Point<dim> corner;
    for (unsigned int d = 0; d < dim; ++d)
      corner[d] = double(repetitions[d]) / repetitions[0];
    GridGenerator::subdivided_hyper_rectangle(tria, repetitions, Point<dim>(), corner);
    tria.refine_global(levels);
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
    if (mesh == "cartesian")
      mapping = std::make_unique<MappingQ1<dim>>();
    else
      mapping = deformed_mapping(tria);
    constraints.clear();
    VectorTools::interpolate_boundary_values(*mapping, dof_handler, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    mesh_seconds = timer.wall_time();
  }

  template struct Problem<2>;
  template struct Problem<3>;
} // namespace bench
