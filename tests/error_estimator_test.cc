// gpumf::KellyErrorEstimator against deal.II's KellyErrorEstimator on the same solution, cell by
// cell: 2D and 3D; serial and distributed meshes; hanging nodes; curved cells (MappingQ on a
// ball); the eight face orientations of 3D meshes (GridGenerator::non_standard_orientation_mesh);
// FE_Q of degrees 1 to 4 and an FESystem with a component mask; Neumann functions; the three
// strategies; a float solution. The solutions are smooth functions interpolated with their
// hanging nodes distributed, plus a random perturbation. Bad input is refused with a message.
//
//   error_estimator_test host   host backend
//   error_estimator_test cuda   CUDA backend; skipped without a GPU
//
// Indicators are floats in both (deal.II's Vector<float>, into which deal.II sums the faces):
// for double solutions at least 99 % must be bitwise deal.II's (gpumf forms the sums in deal.II's
// order; the rest may round the other way: FMA on the GPU) and all agree to 5e-7 relative to the
// largest; deal.II computes a float solution's gradients in float, so 2e-4 there.
#include <gpumf/error_estimator.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/manifold_lib.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>
#include <random>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  /// A smooth function of dim components (the first used for scalar elements).
  template <int dim>
  class Smooth : public Function<dim>
  {
  public:
    explicit Smooth(const unsigned int n_components = 1)
      : Function<dim>(n_components)
    {}
    double
    value(const Point<dim> &p, const unsigned int c = 0) const override
    {
      double v = std::sin(1.3 * p[0] + 0.4 * c) * std::cos(0.7 * p[1]) + 0.3 * p[0] * p[1];
      if (dim == 3)
        v *= std::exp(0.5 * p[dim - 1]);
      return v;
    }
  };

  /// Neumann data of @p n components.
  template <int dim, typename Number>
  class Flux : public Function<dim, Number>
  {
  public:
    explicit Flux(const unsigned int n_components)
      : Function<dim, Number>(n_components)
    {}
    Number
    value(const Point<dim> &p, const unsigned int c = 0) const override
    {
      return 1. + p[0] * p[0] - 0.5 * p[1] + 0.25 * c;
    }
  };

  /// Random refinement of about a third of the active cells (the same on every rank: by CellId).
  template <int dim>
  void
  refine_some(Triangulation<dim> &tria, const unsigned int seed)
  {
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          std::hash<std::string> hash;
          if ((hash(cell->id().to_string()) + seed) % 3 == 0)
            cell->set_refine_flag();
        }
    tria.execute_coarsening_and_refinement();
  }

  /**
   * Both estimators on @p dof's solution (the interpolant of Smooth, random perturbation of
   * 5 %, hanging nodes distributed), compared cell by cell.
   */
  template <int dim, typename Number>
  void
  compare(test::Checker                                                     &checker,
          const gpumf::Backend                                               backend,
          const Mapping<dim>                                                &mapping,
          const DoFHandler<dim>                                             &dof,
          const unsigned int                                                 n_q,
          const std::map<types::boundary_id, const Function<dim, Number> *> &neumann,
          const ComponentMask                                               &mask,
          const typename dealii::KellyErrorEstimator<dim>::Strategy          strategy,
          const std::string                                                 &name)
  {
    const MPI_Comm            comm     = dof.get_communicator();
    const IndexSet            relevant = DoFTools::extract_locally_relevant_dofs(dof);
    AffineConstraints<double> constraints;
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    constraints.close();
    LinearAlgebra::distributed::Vector<double> u(dof.locally_owned_dofs(), relevant, comm);
    VectorTools::interpolate(mapping, dof, Smooth<dim>(dof.get_fe().n_components()), u);
    std::mt19937                           random(17 + Utilities::MPI::this_mpi_process(comm));
    std::uniform_real_distribution<double> perturbation(-0.05, 0.05);
    for (const auto i : dof.locally_owned_dofs())
      u[i] += perturbation(random);
    constraints.distribute(u);
    u.update_ghost_values();

    LinearAlgebra::distributed::Vector<Number> u_n(dof.locally_owned_dofs(), relevant, comm);
    for (const auto i : dof.locally_owned_dofs())
      u_n[i] = u[i];
    u_n.update_ghost_values();
    Vector<float> expected(dof.get_triangulation().n_active_cells());
    dealii::KellyErrorEstimator<dim>::estimate(mapping,
                                               dof,
                                               QGauss<dim - 1>(n_q),
                                               neumann,
                                               u_n,
                                               expected,
                                               mask,
                                               nullptr,
                                               numbers::invalid_unsigned_int,
                                               numbers::invalid_subdomain_id,
                                               numbers::invalid_material_id,
                                               strategy);

    gpumf::Vector<Number> v(std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_dofs(), comm), backend);
    v.import_elements(u_n, VectorOperation::insert);
    Vector<float> error;
    gpumf::KellyErrorEstimator<dim>::estimate(mapping,
                                              dof,
                                              QGauss<dim - 1>(n_q),
                                              neumann,
                                              v,
                                              error,
                                              mask,
                                              nullptr,
                                              numbers::invalid_unsigned_int,
                                              numbers::invalid_subdomain_id,
                                              numbers::invalid_material_id,
                                              strategy);

    double       largest = 0, difference = 0;
    unsigned int n_cells = 0, n_equal = 0;
    bool         sizes = error.size() == expected.size();
    for (const auto &cell : dof.active_cell_iterators())
      if (cell->is_locally_owned() && sizes)
        {
          const unsigned int i = cell->active_cell_index();
          largest              = std::max(largest, double(expected[i]));
          difference           = std::max(difference, std::abs(double(error[i]) - double(expected[i])));
          ++n_cells;
          n_equal += error[i] == expected[i];
        }
      else if (sizes)
        sizes = error[cell->active_cell_index()] == 0.f;
    largest              = Utilities::MPI::max(largest, comm);
    difference           = Utilities::MPI::max(difference, comm);
    n_cells              = Utilities::MPI::sum(n_cells, comm);
    n_equal              = Utilities::MPI::sum(n_equal, comm);
    const bool all_sizes = Utilities::MPI::min(sizes ? 1 : 0, comm) == 1;
    checker.check(all_sizes && largest > 0,
                  name + ": n_active_cells() indicators, zero off this rank's cells, some nonzero");
    const double tolerance = std::is_same_v<Number, float> ? 2e-4 : 5e-7;
    checker.check_below(difference / largest,
                        tolerance,
                        name + " (" + std::to_string(n_cells) + " cells): max |gpumf - deal.II| / max deal.II");
    // deal.II's refinement marks cells by these floats: the same floats, the same marks (a cell whose
    // float differs by an ulp at the threshold may be marked otherwise)
    if (!std::is_same_v<Number, float>)
      checker.check(n_equal >= 0.99 * n_cells,
                    name + ": " + std::to_string(n_equal) + " of " + std::to_string(n_cells) +
                      " indicators bitwise deal.II's (at least 99 %)");
  }

  template <int dim>
  using Strategy = typename dealii::KellyErrorEstimator<dim>::Strategy;

  /// 2D: the L-shaped domain refined adaptively (hanging nodes), FE_Q(1..3), MappingQ1; with a
  /// Neumann function on part of the boundary (colorized rectangle) and every strategy.
  void
  test_2d(test::Checker &checker, const gpumf::Backend backend, const MPI_Comm comm)
  {
    constexpr int                             dim = 2;
    parallel::distributed::Triangulation<dim> tria(comm);
    GridGenerator::hyper_L(tria);
    tria.refine_global(2);
    refine_some(tria, 1);
    refine_some(tria, 2);
    const MappingQ1<dim> mapping;
    for (unsigned int degree = 1; degree <= 3; ++degree)
      {
        const FE_Q<dim> fe(degree);
        DoFHandler<dim> dof(tria);
        dof.distribute_dofs(fe);
        compare<dim, double>(checker,
                             backend,
                             mapping,
                             dof,
                             degree + 1,
                             {},
                             ComponentMask(),
                             dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                             "2D hyper_L adaptive, FE_Q(" + std::to_string(degree) + ")");
      }
    // a rectangle with ids 0-3 on its sides: Neumann data on ids 1 and 3, FESystem of two
    // components with a mask, each strategy
    parallel::distributed::Triangulation<dim> rect(comm);
    GridGenerator::hyper_rectangle(rect, Point<dim>(0, 0), Point<dim>(2, 1), true);
    rect.refine_global(3);
    refine_some(rect, 3);
    const FESystem<dim> fe(FE_Q<dim>(2), 2);
    DoFHandler<dim>     dof(rect);
    dof.distribute_dofs(fe);
    const Flux<dim, double>                                           flux(2);
    const std::map<types::boundary_id, const Function<dim, double> *> neumann      = {{1, &flux}, {3, &flux}};
    const std::pair<Strategy<dim>, std::string>                       strategies[] = {
                            {dealii::KellyErrorEstimator<dim>::cell_diameter_over_24, "cell_diameter_over_24"},
                            {dealii::KellyErrorEstimator<dim>::cell_diameter, "cell_diameter"},
                            {dealii::KellyErrorEstimator<dim>::face_diameter_over_twice_max_degree, "face_diameter_over_twice_max_degree"}};
    for (const auto &[strategy, name] : strategies)
      compare<dim, double>(checker,
                           backend,
                           mapping,
                           dof,
                           3,
                           neumann,
                           ComponentMask(std::vector<bool>{true, false}),
                           strategy,
                           "2D rectangle, FESystem(FE_Q(2), 2), mask {1, 0}, Neumann on ids 1 and 3, " + name);
    compare<dim, double>(checker,
                         backend,
                         mapping,
                         dof,
                         3,
                         neumann,
                         ComponentMask(),
                         dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                         "2D rectangle, FESystem(FE_Q(2), 2), both components, Neumann on ids 1 and 3");
    // a float solution (deal.II computes its gradients in float)
    const Flux<dim, float>                                           flux_f(2);
    const std::map<types::boundary_id, const Function<dim, float> *> neumann_f = {{1, &flux_f}};
    compare<dim, float>(checker,
                        backend,
                        mapping,
                        dof,
                        3,
                        neumann_f,
                        ComponentMask(),
                        dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                        "2D rectangle, float solution");
  }

  /// 3D: a ball (curved, MappingQ(2) and MappingQ(3)) refined adaptively, FE_Q(2) and FE_Q(4);
  /// the eight orientations of the two-cell mesh (serial) with FE_Q(3).
  void
  test_3d(test::Checker &checker, const gpumf::Backend backend, const MPI_Comm comm)
  {
    constexpr int                             dim = 3;
    parallel::distributed::Triangulation<dim> tria(comm);
    GridGenerator::hyper_ball(tria);
    tria.refine_global(1);
    refine_some(tria, 4);
    for (const unsigned int degree : {2u, 4u})
      {
        const MappingQ<dim> mapping(degree == 2 ? 2 : 3);
        const FE_Q<dim>     fe(degree);
        DoFHandler<dim>     dof(tria);
        dof.distribute_dofs(fe);
        compare<dim, double>(checker,
                             backend,
                             mapping,
                             dof,
                             degree + 1,
                             {},
                             ComponentMask(),
                             dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                             "3D ball adaptive, MappingQ(" + std::to_string(mapping.get_degree()) + "), FE_Q(" +
                               std::to_string(degree) + ")");
      }
    {
      // a Neumann function on the curved boundary, FESystem(FE_Q(2), 3)
      const MappingQ<dim>                                               mapping(2);
      const FESystem<dim>                                               fe(FE_Q<dim>(2), 3);
      DoFHandler<dim>                                                   dof(tria);
      const Flux<dim, double>                                           flux(3);
      const std::map<types::boundary_id, const Function<dim, double> *> neumann = {{0, &flux}};
      dof.distribute_dofs(fe);
      compare<dim, double>(
        checker,
        backend,
        mapping,
        dof,
        3,
        neumann,
        ComponentMask(std::vector<bool>{true, false, true}),
        dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
        "3D ball adaptive, MappingQ(2), FESystem(FE_Q(2), 3), mask {1, 0, 1}, Neumann on the sphere");
    }
    {
      // examples/adaptive's shell: 6 cells around the hole, spherical manifold, MappingQ(2)
      parallel::distributed::Triangulation<dim> shell(comm);
      GridGenerator::hyper_shell(shell, Point<dim>(), 0.5, 1.0);
      shell.refine_global(1);
      refine_some(shell, 5);
      const MappingQ<dim> mapping(2);
      const FE_Q<dim>     fe(2);
      DoFHandler<dim>     dof(shell);
      dof.distribute_dofs(fe);
      compare<dim, double>(checker,
                           backend,
                           mapping,
                           dof,
                           3,
                           {},
                           ComponentMask(),
                           dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                           "3D shell adaptive, MappingQ(2), FE_Q(2)");
    }
    if (Utilities::MPI::n_mpi_processes(comm) == 1)
      for (unsigned int orientation = 0; orientation < 8; ++orientation)
        {
          Triangulation<dim> mesh;
          GridGenerator::non_standard_orientation_mesh(mesh, orientation & 1, orientation & 2, orientation & 4, false);
          mesh.refine_global(1);
          for (auto &cell : mesh.active_cell_iterators())
            if (cell->center()[0] > 0.6 && cell->center()[1] < 0.5)
              cell->set_refine_flag();
          mesh.execute_coarsening_and_refinement();
          const MappingQ1<dim> mapping;
          const FE_Q<dim>      fe(3);
          DoFHandler<dim>      dof(mesh);
          dof.distribute_dofs(fe);
          compare<dim, double>(checker,
                               backend,
                               mapping,
                               dof,
                               4,
                               {},
                               ComponentMask(),
                               dealii::KellyErrorEstimator<dim>::cell_diameter_over_24,
                               "3D two-cell mesh, orientation/flip/rotation " + std::to_string(orientation & 1) +
                                 std::to_string((orientation >> 1) & 1) + std::to_string((orientation >> 2) & 1) +
                                 ", refined, hanging, FE_Q(3)");
        }
  }

  /// What is not supported is refused with a message naming it.
  void
  test_refusals(test::Checker &checker, const gpumf::Backend backend, const MPI_Comm comm)
  {
    constexpr int                             dim = 2;
    parallel::distributed::Triangulation<dim> tria(comm);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(3);
    const FE_Q<dim> fe(1);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    const MappingQ1<dim>  mapping;
    gpumf::Vector<double> v(std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_dofs(), comm), backend);
    Vector<float>         error;
    const Functions::ConstantFunction<dim> coefficient(2.);
    checker.check(test::exception_of([&] {
                    gpumf::KellyErrorEstimator<dim>::estimate(
                      mapping, dof, QGauss<dim - 1>(2), {}, v, error, ComponentMask(), &coefficient);
                  }).find("a coefficient is not supported") != std::string::npos,
                  "a coefficient is refused with a message");
    checker.check(test::exception_of([&] {
                    gpumf::KellyErrorEstimator<dim>::estimate(
                      mapping, dof, QGauss<dim - 1>(2), {}, v, error, ComponentMask(std::vector<bool>{true, true}));
                  }).find("the component mask has 2 entries") != std::string::npos,
                  "a component mask of the wrong size is refused with a message");
    gpumf::Vector<double> other(std::make_shared<Utilities::MPI::Partitioner>(7), backend);
    checker.check(test::exception_of([&] {
                    gpumf::KellyErrorEstimator<dim>::estimate(mapping, dof, QGauss<dim - 1>(2), {}, other, error);
                  }).find("locally owned entries are not the DoFHandler's") != std::string::npos,
                  "a vector of another layout is refused with a message");
    {
      // owned ranges that differ from the DoFHandler's on the last two ranks only: every rank
      // throws (the others must not wait in the estimator's exchange)
      const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm), rank = Utilities::MPI::this_mpi_process(comm);
      const IndexSet    &owned = dof.locally_owned_dofs();
      IndexSet           shifted(owned.size());
      if (n_ranks == 1 || owned.n_elements() == 0)
        shifted.add_range(0, owned.size() - 1);
      else
        {
          const types::global_dof_index first = owned.nth_index_in_set(0), last = first + owned.n_elements();
          shifted.add_range(rank == n_ranks - 1 ? first - 1 : first, rank == n_ranks - 2 ? last - 1 : last);
        }
      gpumf::Vector<double> moved(std::make_shared<Utilities::MPI::Partitioner>(shifted, comm), backend);
      checker.check(test::exception_of([&] {
                      gpumf::KellyErrorEstimator<dim>::estimate(mapping, dof, QGauss<dim - 1>(2), {}, moved, error);
                    }).find("locally owned entries are not the DoFHandler's") != std::string::npos,
                    "owned entries other than the DoFHandler's on some ranks: every rank throws, none waits");
    }
    const std::vector<Point<dim - 1>> points = {Point<dim - 1>(0.1), Point<dim - 1>(0.5)};
    const Quadrature<dim - 1>         skewed(points, std::vector<double>{0.5, 0.5});
    checker.check(test::exception_of([&] {
                    gpumf::KellyErrorEstimator<dim>::estimate(mapping, dof, skewed, {}, v, error);
                  }).find("symmetric about 1/2") != std::string::npos,
                  "a face quadrature that is not symmetric is refused with a message");
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    test_2d(checker, backend, MPI_COMM_WORLD);
    test_3d(checker, backend, MPI_COMM_WORLD);
    test_refusals(checker, backend, MPI_COMM_WORLD);
  });
}
