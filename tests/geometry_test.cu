// MatrixFree's geometry (source/matrix_free/geometry.cc and its kernels): the quadrature points,
// JxW and inverse Jacobians it stores, against deal.II's FEValues on the same cells, for
// dim 2 and 3, float and double:
//   - polynomial mappings, evaluated by the backend's geometry kernel from the support points:
//     MappingQ1 on a box (affine and uniform), MappingQ1 and MappingQ(2) on a cube with randomly
//     moved vertices (every cell non-affine), MappingQ(3) on a shell (curved; the active cells
//     and the cells of level 0), MappingQCache(2) with a displacement, GeometryStorage::per_point
//     on the box;
//   - another mapping (MappingCartesian on a box with hanging nodes: affine, not uniform),
//     through FEValues on the host;
//   - inverted cells (a mirrored cube: det J < 0) refused by the kernel's path with a message
//     naming the cell (MappingQ1, MappingQ(2)).
// FEEvaluation::inverse_jacobian(q) read in a functor against FEValues too.
// Tolerances: 1e-12 relative for double, 16 float epsilons for float (FEValues computes in
// double; gpumf computes in double and rounds once). With the cuda backend, the GPU's arrays are
// also compared with the host backend's (the naive reference), cell by cell.
//
//   geometry_test host|cuda     (cuda: skipped without a GPU)
#include <gpumf/fe_evaluation.h>
#include <gpumf/matrix_free.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>

#include <limits>
#include <map>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  template <int dim>
  using Tria = parallel::distributed::Triangulation<dim>;

  template <typename Number>
  double
  tolerance()
  {
    return std::is_same_v<Number, double> ? 1e-12 : 16. * std::numeric_limits<float>::epsilon();
  }

  /// A cell's stored values: points, JxW, inverse Jacobians ([q * dim * dim + e * dim + d]).
  template <int dim>
  struct CellGeometry
  {
    std::vector<Point<dim>> points;
    std::vector<double>     JxW, inverse;
  };

  /// Every locally owned cell's stored geometry by cell id.
  template <int dim, typename Number>
  std::map<CellId, CellGeometry<dim>>
  stored(const gpumf::MatrixFree<dim, Number> &mf)
  {
    std::map<CellId, CellGeometry<dim>> result;
    const unsigned int                  n_q = mf.n_q_points();
    for (unsigned int color = 0; color < mf.n_colors(); ++color)
      {
        const auto host =
          gpumf::copy_mf_data_to_host<dim, Number>(mf.get_data(color),
                                                   update_quadrature_points | update_JxW_values | update_gradients);
        for (unsigned int cell = 0; cell < host.n_cells; ++cell)
          {
            CellGeometry<dim> &g = result[mf.get_colored_graph()[color][cell]->id()];
            for (unsigned int q = 0; q < n_q; ++q)
              {
                const std::size_t k = std::size_t(cell) * n_q + q;
                Point<dim>        p;
                for (unsigned int d = 0; d < dim; ++d)
                  p[d] = host.q_points[k][d];
                g.points.push_back(p);
                g.JxW.push_back(host.JxW[k]);
                for (unsigned int ed = 0; ed < dim * dim; ++ed)
                  g.inverse.push_back(host.inv_jacobian[k * dim * dim + ed]);
              }
          }
      }
    return result;
  }

  /// The largest differences (points; JxW relative to the cell's largest; inverse Jacobians
  /// relative to the cell's largest entry) between two sets of cells, over all ranks.
  template <int dim>
  std::array<double, 3>
  differences(const std::map<CellId, CellGeometry<dim>> &a,
              const std::map<CellId, CellGeometry<dim>> &b,
              bool                                      &same_cells)
  {
    std::array<double, 3> error{{0, 0, 0}};
    same_cells = a.size() == b.size();
    for (const auto &[id, ga] : a)
      {
        const auto found = b.find(id);
        if (found == b.end() || found->second.points.size() != ga.points.size())
          {
            same_cells = false;
            continue;
          }
        const CellGeometry<dim> &gb      = found->second;
        double                   max_jxw = 0, max_inverse = 0;
        for (unsigned int k = 0; k < ga.JxW.size(); ++k)
          max_jxw = std::max(max_jxw, std::abs(ga.JxW[k]));
        for (unsigned int k = 0; k < ga.inverse.size(); ++k)
          max_inverse = std::max(max_inverse, std::abs(ga.inverse[k]));
        for (unsigned int q = 0; q < ga.points.size(); ++q)
          error[0] = test::max_or_inf(error[0], ga.points[q].distance(gb.points[q]));
        for (unsigned int k = 0; k < ga.JxW.size(); ++k)
          error[1] = test::max_or_inf(error[1], std::abs(ga.JxW[k] - gb.JxW[k]) / max_jxw);
        for (unsigned int k = 0; k < ga.inverse.size(); ++k)
          error[2] = test::max_or_inf(error[2], std::abs(ga.inverse[k] - gb.inverse[k]) / max_inverse);
      }
    for (double &e : error)
      e = Utilities::MPI::max(e, MPI_COMM_WORLD);
    same_cells = Utilities::MPI::min(int(same_cells), MPI_COMM_WORLD) == 1;
    return error;
  }

  /// deal.II's FEValues on the same cells.
  template <int dim, typename Number>
  std::map<CellId, CellGeometry<dim>>
  reference(const gpumf::MatrixFree<dim, Number> &mf, const Mapping<dim> &mapping, const Quadrature<1> &quad)
  {
    std::map<CellId, CellGeometry<dim>> result;
    const FE_Q<dim>                     fe(1);
    FEValues<dim>                       fe_values(mapping,
                            fe,
                            Quadrature<dim>(quad),
                            update_quadrature_points | update_JxW_values | update_inverse_jacobians);
    for (const auto &color : mf.get_colored_graph())
      for (const auto &cell : color)
        {
          fe_values.reinit(typename Triangulation<dim>::cell_iterator(cell));
          CellGeometry<dim> &g = result[cell->id()];
          for (const unsigned int q : fe_values.quadrature_point_indices())
            {
              g.points.push_back(fe_values.quadrature_point(q));
              g.JxW.push_back(fe_values.JxW(q));
              for (unsigned int e = 0; e < dim; ++e)
                for (unsigned int d = 0; d < dim; ++d)
                  g.inverse.push_back(fe_values.inverse_jacobian(q)[e][d]);
            }
        }
    return result;
  }

  /// FEEvaluation::inverse_jacobian(q) entry [d][e] at every point, into out[local_q_point_id()].
  template <int dim, typename Number>
  struct InverseJacobianEntry
  {
    using FEEval = gpumf::FEEvaluation<dim, 2, 3, 1, Number>;

    static constexpr unsigned int n_dofs_1d    = 3;
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;

    unsigned int d, e;
    Number      *out;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number *) const
    {
      FEEval phi(cell, data, shared);
      phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
        out[data->local_q_point_id(cell, n_q_points, q)] = p->inverse_jacobian(q)[d][e];
      });
    }
  };

  enum class Expect
  {
    affine_uniform,
    affine,
    per_point
  };

  template <int dim, typename Number>
  void
  check(test::Checker                                                 &checker,
        const gpumf::Backend                                           backend,
        const std::string                                             &name,
        const Mapping<dim>                                            &mapping,
        const DoFHandler<dim>                                         &dof,
        const Expect                                                   expect,
        const typename gpumf::MatrixFree<dim, Number>::GeometryStorage storage = {},
        const unsigned int                                             level   = numbers::invalid_unsigned_int)
  {
    const std::string label = std::to_string(dim) + "D " + (std::is_same_v<Number, double> ? "double" : "float") + " " +
                              name + (level == numbers::invalid_unsigned_int ? "" : " level " + std::to_string(level));
    const QGauss<1>                                         quad(3);
    AffineConstraints<Number>                               constraints;
    typename gpumf::MatrixFree<dim, Number>::AdditionalData data;
    data.backend      = backend;
    data.geometry     = storage;
    data.mg_level     = level;
    data.use_coloring = true;
    gpumf::MatrixFree<dim, Number> mf;
    constraints.close();
    mf.reinit(mapping, dof, constraints, quad, data);

    const bool affine  = mf.has_affine_geometry();
    const bool uniform = mf.has_uniform_geometry();
    checker.check(affine == (expect != Expect::per_point) && uniform == (expect == Expect::affine_uniform),
                  label + ": " + (affine ? "affine" : "per point") + (uniform ? ", uniform" : "") + " as expected");
    const auto            values = stored(mf);
    bool                  same   = false;
    std::array<double, 3> error  = differences(values, reference(mf, mapping, quad), same);
    checker.check(same, label + ": the cells of FEValues");
    checker.check_below(error[0], tolerance<Number>(), label + ": points against FEValues");
    checker.check_below(error[1], tolerance<Number>(), label + ": JxW against FEValues (relative)");
    checker.check_below(error[2], tolerance<Number>(), label + ": inverse Jacobians against FEValues (relative)");
    {
      // FEEvaluation::inverse_jacobian(q) in a functor: deal.II's J^{-T}, [d][e] = d xi_e / d x_d
      const auto            geometry = reference(mf, mapping, quad);
      std::vector<Number>   zero(std::size_t(mf.n_cells()) * mf.n_q_points());
      gpumf::Vector<Number> none;
      mf.initialize_dof_vector(none);
      double deviation = 0, largest = 0;
      for (unsigned int d = 0; d < dim; ++d)
        for (unsigned int e = 0; e < dim; ++e)
          {
            gpumf::internal::Array<Number> out;
            out.reinit(backend, zero);
            mf.evaluate_coefficients(InverseJacobianEntry<dim, Number>{d, e, out.data()}, none);
            const std::vector<Number> values = out.to_host();
            std::size_t               k      = 0;
            for (const auto &color : mf.get_colored_graph())
              for (const auto &cell : color)
                for (unsigned int q = 0; q < mf.n_q_points(); ++q, ++k)
                  {
                    const double expected = geometry.at(cell->id()).inverse[q * dim * dim + e * dim + d];
                    deviation             = test::max_or_inf(deviation, std::abs(values[k] - expected));
                    largest               = std::max(largest, std::abs(expected));
                  }
          }
      checker.check_below(Utilities::MPI::max(deviation, MPI_COMM_WORLD) /
                            std::max(Utilities::MPI::max(largest, MPI_COMM_WORLD), 1e-300),
                          tolerance<Number>(),
                          label + ": FEEvaluation::inverse_jacobian(q) against FEValues' J^{-1} transposed");
    }
    if (backend == gpumf::Backend::cuda)
      {
        data.backend = gpumf::Backend::host;
        gpumf::MatrixFree<dim, Number> host;
        host.reinit(mapping, dof, constraints, quad, data);
        checker.check(host.has_affine_geometry() == affine && host.has_uniform_geometry() == uniform,
                      label + ": the same storage as the host reference");
        error = differences(values, stored(host), same);
        checker.check(same, label + ": the cells of the host reference");
        checker.check_below(error[0], tolerance<Number>(), label + ": points against the host reference");
        checker.check_below(error[1], tolerance<Number>(), label + ": JxW against the host reference");
        checker.check_below(error[2], tolerance<Number>(), label + ": inverse Jacobians against the host reference");
      }
  }

  /// reinit() on @p mapping of @p dof throws a message about a distorted cell.
  template <int dim, typename Number>
  void
  check_distorted(test::Checker         &checker,
                  const gpumf::Backend   backend,
                  const std::string     &name,
                  const Mapping<dim>    &mapping,
                  const DoFHandler<dim> &dof)
  {
    AffineConstraints<Number> constraints;
    constraints.close();
    typename gpumf::MatrixFree<dim, Number>::AdditionalData data;
    data.backend = backend;
    gpumf::MatrixFree<dim, Number> mf;
    const std::string message = test::exception_of([&]() { mf.reinit(mapping, dof, constraints, QGauss<1>(3), data); });
    checker.check(message.find("Jacobian determinant is zero or negative") != std::string::npos &&
                    message.find("locally owned cell") != std::string::npos,
                  std::to_string(dim) + "D " + name + ": inverted cells refused (\"" +
                    message.substr(std::min(message.find("gpumf::MatrixFree:"), message.size()), 110) + "...\")");
  }

  template <int dim, typename Number>
  void
  run(test::Checker &checker, const gpumf::Backend backend)
  {
    using G = typename gpumf::MatrixFree<dim, Number>::GeometryStorage;
    const FE_Q<dim> fe(2);
    {
      Tria<dim> tria(MPI_COMM_WORLD);
      test::make_mesh(tria, test::Domain::box, 2);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      check<dim, Number>(checker, backend, "box, MappingQ1", MappingQ<dim>(1), dof, Expect::affine_uniform);
      check<dim, Number>(
        checker, backend, "box, MappingQ1, per_point", MappingQ<dim>(1), dof, Expect::per_point, G::per_point);
    }
    {
      Tria<dim> tria(MPI_COMM_WORLD);
      test::make_mesh<dim>(tria, test::Domain::box, 1, {[](const Point<dim> &p) { return p[0] < 0.5; }});
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      check<dim, Number>(
        checker, backend, "box with hanging nodes, MappingCartesian", MappingCartesian<dim>(), dof, Expect::affine);
      check<dim, Number>(checker, backend, "box with hanging nodes, MappingQ1", MappingQ<dim>(1), dof, Expect::affine);
    }
    {
      Tria<dim> tria(MPI_COMM_WORLD);
      test::make_mesh(tria, test::Domain::distorted_cube, 1);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      check<dim, Number>(checker, backend, "distorted cube, MappingQ1", MappingQ<dim>(1), dof, Expect::per_point);
      check<dim, Number>(checker, backend, "distorted cube, MappingQ(2)", MappingQ<dim>(2), dof, Expect::per_point);
    }
    {
      Tria<dim> tria(MPI_COMM_WORLD,
                     Triangulation<dim>::limit_level_difference_at_vertices,
                     Tria<dim>::construct_multigrid_hierarchy);
      test::make_mesh(tria, test::Domain::shell, 1);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      dof.distribute_mg_dofs();
      const MappingQ<dim> mapping(3);
      check<dim, Number>(checker, backend, "shell, MappingQ(3)", mapping, dof, Expect::per_point);
      check<dim, Number>(checker, backend, "shell, MappingQ(3)", mapping, dof, Expect::per_point, G::automatic, 0);
      MappingQCache<dim> cache(2);
      cache.initialize(
        MappingQ<dim>(2),
        tria,
        [](const typename Triangulation<dim>::cell_iterator &, const Point<dim> &p) {
          Point<dim> displacement;
          for (unsigned int d = 0; d < dim; ++d)
            displacement[d] = 0.05 * std::sin(3. * p[(d + 1) % dim]);
          return displacement;
        },
        true);
      check<dim, Number>(checker, backend, "shell, MappingQCache(2) displaced", cache, dof, Expect::per_point);
    }
    {
      // every cell mirrored: det J < 0 everywhere, on every rank
      Tria<dim> tria(MPI_COMM_WORLD);
      GridGenerator::hyper_cube(tria);
      GridTools::transform(
        [](const Point<dim> &p) {
          Point<dim> q = p;
          q[0]         = -q[0];
          return q;
        },
        tria);
      tria.refine_global(2);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      check_distorted<dim, Number>(checker, backend, "mirrored cube, MappingQ1", MappingQ<dim>(1), dof);
      check_distorted<dim, Number>(checker, backend, "mirrored cube, MappingQ(2)", MappingQ<dim>(2), dof);
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    run<2, double>(checker, backend);
    run<2, float>(checker, backend);
    run<3, double>(checker, backend);
    run<3, float>(checker, backend);
  });
}
