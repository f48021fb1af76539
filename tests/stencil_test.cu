// gpumf::StencilOperator: the FE_Q(1) operator as a stencil on the grid.
//
// For dim 2 and 3, double and float, on 1 or 2 ranks (the mesh is 2 coarse cells along the last
// direction, so that p4est gives each of 2 ranks a box), DoFs renumbered lexicographically:
//  1. uniform mesh (constant stencil), mesh graded along the last direction (semi-constant),
//     randomly deformed mesh (variable); zero Dirichlet values on all faces, on one face, none:
//     the storage the automatic choice takes, and A x for random x equal to
//     gpumf::LaplaceOperator<dim, 1, 2> (independent: sum factorization over cells);
//  2. every storage that can hold the operator gives the same A x; one that cannot is refused;
//  3. CUDA: A x equal to the host backend's (<= 500 ulps of the max-norm);
//  4. gpumf::MultiColorGaussSeidel on each grid storage (automatic: the grid's lightest): the same
//     colors as on its general (ELL) storage, and a forward sweep (omega 1) and a symmetric sweep
//     (omega 1.3) from a random x for a random b equal to the ELL sweeps (300 ulps), which
//     gauss_seidel_test checks against a sequential Gauss-Seidel; CUDA: equal to the host's.
// And: FE_Q(2), hanging nodes and a numbering that is not lexicographic are refused with messages
// that say what is supported.
//
//   stencil_test host|cuda      (cuda: skipped without a GPU)
#include <gpumf/multicolor_gauss_seidel.h>
#include <gpumf/operators.h>
#include <gpumf/stencil_operator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  const MPI_Comm comm = MPI_COMM_WORLD;

  enum class Mesh
  {
    uniform,
    graded,
    deformed
  };

  std::string
  to_string(const Mesh mesh)
  {
    return mesh == Mesh::uniform ? "uniform" : mesh == Mesh::graded ? "graded" : "deformed";
  }

  /// The meshes are the column (2 coarse cells along the last direction: a box per rank on 2
  /// ranks) refined (2D 4 times, 3D 3 times); this moves its vertices: graded, the last
  /// coordinate squared; deformed, every vertex moved smoothly in every direction.
  template <int dim>
  void
  deform(parallel::distributed::Triangulation<dim> &tria, const Mesh mesh)
  {
    if (mesh == Mesh::graded)
      GridTools::transform(
        [](const Point<dim> &p) {
          Point<dim> q = p;
          q[dim - 1]   = 0.5 * p[dim - 1] * p[dim - 1];
          return q;
        },
        tria);
    else if (mesh == Mesh::deformed)
      GridTools::transform(
        [](const Point<dim> &p) {
          Point<dim> q = p;
          for (unsigned int d = 0; d < dim; ++d)
            q[d] += 0.03 * std::sin(3. * p[(d + 1) % dim] + d);
          return q;
        },
        tria);
  }

  /// Which faces get zero Dirichlet values: all, the first (boundary id 0 with colorize), none.
  enum class Dirichlet
  {
    all,
    one_face,
    none
  };

  std::string
  to_string(const Dirichlet dirichlet)
  {
    return dirichlet == Dirichlet::all      ? "Dirichlet on all faces" :
           dirichlet == Dirichlet::one_face ? "Dirichlet on one face" :
                                              "no Dirichlet";
  }

  template <int dim, typename Number>
  void
  run_case(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh, const Dirichlet dirichlet)
  {
    using Stencil               = gpumf::StencilOperator<dim, Number>;
    using S                     = gpumf::StencilStorage;
    const bool        is_double = std::is_same_v<Number, double>;
    const std::string name =
      std::to_string(dim) + "D " + (is_double ? "double " : "float ") + to_string(mesh) + ", " + to_string(dirichlet);
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, test::Domain::column, dim == 2 ? 4 : 3);
    deform(tria, mesh);
    const FE_Q<dim> fe(1);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    gpumf::renumber_lexicographic(dof);
    AffineConstraints<Number> constraints;
    constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
    const MappingQ<dim> mapping(1);
    for (types::boundary_id id = 0; id < 2 * dim; ++id)
      if (dirichlet == Dirichlet::all || (dirichlet == Dirichlet::one_face && id == 0))
        VectorTools::interpolate_boundary_values(mapping, dof, id, Functions::ZeroFunction<dim, Number>(), constraints);
    constraints.close();

    typename gpumf::MatrixFree<dim, Number>::AdditionalData data;
    data.backend = backend;
    auto mf      = std::make_shared<gpumf::MatrixFree<dim, Number>>();
    mf->reinit(mapping, dof, constraints, QGauss<1>(2), data);
    gpumf::LaplaceOperator<dim, 1, 2, 1, Number> laplace;
    laplace.initialize(mf);
    // the same MatrixFree object on the host backend (the reference of the CUDA kernels)
    const auto host_matrix_free = [&]() {
      typename gpumf::MatrixFree<dim, Number>::AdditionalData host_data;
      host_data.backend = gpumf::Backend::host;
      auto host_mf      = std::make_unique<gpumf::MatrixFree<dim, Number>>();
      host_mf->reinit(mapping, dof, constraints, QGauss<1>(2), host_data);
      return host_mf;
    };

    Stencil stencil;
    stencil.reinit(*mf);
    const S expected = mesh == Mesh::uniform ? S::constant : mesh == Mesh::graded ? S::semi_constant : S::variable;
    checker.check(stencil.storage() == expected &&
                    (expected != S::semi_constant || stencil.varying_direction() == dim - 1),
                  name + ": automatic storage " + gpumf::to_string(stencil.storage()));

    gpumf::Vector<Number> x, y, z;
    stencil.initialize_dof_vector(x);
    stencil.initialize_dof_vector(y);
    stencil.initialize_dof_vector(z);
    test::fill_random(x, 5);
    laplace.vmult(z, x);
    const double tolerance = is_double ? 1e-12 : 2e-5;
    for (const S storage : {S::constant, S::semi_constant, S::variable})
      {
        typename Stencil::AdditionalData options;
        options.storage  = storage;
        const bool holds = storage == S::variable || (storage == S::semi_constant && mesh != Mesh::deformed) ||
                           (storage == S::constant && mesh == Mesh::uniform);
        if (!holds)
          {
            const std::string message = test::exception_of([&] { Stencil().reinit(*mf, options); });
            checker.check(message.find("cannot hold this operator") != std::string::npos,
                          name + ": storage " + gpumf::to_string(storage) + " refused");
            continue;
          }
        Stencil forced;
        forced.reinit(*mf, options);
        forced.vmult(y, x);
        checker.check_below(test::relative_difference(test::to_rw(y), test::to_rw(z), comm),
                            tolerance,
                            name + ", storage " + gpumf::to_string(storage) + ": A x vs LaplaceOperator<dim, 1, 2>");
        if (backend == gpumf::Backend::cuda)
          {
            // the host backend's application of the same operator
            const auto host_mf = host_matrix_free();
            Stencil    host;
            host.reinit(*host_mf, options);
            gpumf::Vector<Number> hx, hy;
            host.initialize_dof_vector(hx);
            host.initialize_dof_vector(hy);
            hx = x;
            host.vmult(hy, hx);
            checker.check_below(test::relative_difference(test::to_rw(y), test::to_rw(hy), comm),
                                500 * std::numeric_limits<Number>::epsilon(),
                                name + ", storage " + gpumf::to_string(storage) + ": CUDA vs host (500 ulps)");
          }
      }

    // 4. Gauss-Seidel on the grid storages against the ELL rows
    using GaussSeidel         = gpumf::MultiColorGaussSeidel<dim, Number>;
    const double          eps = std::numeric_limits<Number>::epsilon();
    gpumf::Vector<Number> b;
    stencil.initialize_dof_vector(b);
    test::fill_random(b, 7);
    const auto sweeps = [&](const gpumf::MatrixFree<dim, Number> &matrix_free,
                            const S                               storage,
                            const double                          omega,
                            const bool                            symmetric,
                            GaussSeidel                          &gs) {
      typename GaussSeidel::AdditionalData options(omega, symmetric);
      options.storage = storage;
      gs.reinit(matrix_free, options);
      gpumf::Vector<Number> xs, bs;
      matrix_free.initialize_dof_vector(xs);
      matrix_free.initialize_dof_vector(bs);
      xs = x; // the same values on either backend
      bs = b;
      gs.step(xs, bs);
      return test::to_rw(xs);
    };
    // every exchange method gives bitwise the same stencil product (halo of the vector) and
    // symmetric Gauss-Seidel sweep (halos after each color)
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      {
        const auto apply = [&](const gpumf::ExchangeMethod method) {
          return test::with_exchange(gpumf::to_string(method), [&] {
            stencil.vmult(y, x);
            GaussSeidel gs;
            return std::make_pair(test::to_rw(y), sweeps(*mf, expected, 1.3, true, gs));
          });
        };
        const std::vector<gpumf::ExchangeMethod> methods   = test::exchange_methods(backend, comm);
        const auto                               reference = apply(methods.front());
        for (unsigned int m = 1; m < methods.size(); ++m)
          {
            const auto result = apply(methods[m]);
            checker.check(test::bitwise_equal(result.first, reference.first, comm) &&
                            test::bitwise_equal(result.second, reference.second, comm),
                          name + ", GPUMF_EXCHANGE=" + gpumf::to_string(methods[m]) +
                            ": A x and a symmetric Gauss-Seidel sweep bitwise those of " +
                            gpumf::to_string(methods.front()));
          }
      }
    {
      GaussSeidel automatic;
      automatic.reinit(*mf);
      checker.check(automatic.storage() == expected,
                    name + ": Gauss-Seidel automatic storage " + gpumf::to_string(automatic.storage()));
    }
    for (const auto &[omega, symmetric] : {std::pair<double, bool>{1., false}, std::pair<double, bool>{1.3, true}})
      {
        GaussSeidel       ell;
        const auto        reference = sweeps(*mf, S::general, omega, symmetric, ell);
        const std::string sweep =
          std::string(symmetric ? "symmetric sweep" : "forward sweep") + ", omega " + (omega == 1. ? "1" : "1.3");
        for (const S storage : {S::constant, S::semi_constant, S::variable})
          {
            const bool holds = storage == S::variable || (storage == S::semi_constant && mesh != Mesh::deformed) ||
                               (storage == S::constant && mesh == Mesh::uniform);
            if (!holds)
              continue;
            GaussSeidel       on_grid;
            const auto        result = sweeps(*mf, storage, omega, symmetric, on_grid);
            const std::string what   = name + ", Gauss-Seidel on " + gpumf::to_string(storage) + ", " + sweep;
            checker.check(on_grid.colored_rows() == ell.colored_rows(), what + ": the colors of the ELL rows");
            checker.check_below(test::relative_difference(result, reference, comm), 300 * eps, what + " vs ELL rows");
            if (backend == gpumf::Backend::cuda)
              {
                GaussSeidel host;
                checker.check_below(
                  test::relative_difference(result, sweeps(*host_matrix_free(), storage, omega, symmetric, host), comm),
                  300 * eps,
                  what + ": CUDA vs host (300 ulps)");
              }
          }
      }
  }

  void
  run_refusals(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int dim  = 2;
    const auto    says = [&](const std::string &message, const std::string &text, const std::string &what) {
      checker.check(message.find(text) != std::string::npos, what + " refused: " + message.substr(0, 140));
    };
    const MappingQ<dim>                             mapping(1);
    typename gpumf::MatrixFree<dim>::AdditionalData data;
    data.backend = backend;
    {
      parallel::distributed::Triangulation<dim> tria(comm);
      test::make_mesh(tria, test::Domain::column, dim == 2 ? 4 : 3);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(FE_Q<dim>(2));
      AffineConstraints<double> constraints;
      constraints.close();
      gpumf::MatrixFree<dim> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(3), data);
      says(test::exception_of([&] { gpumf::StencilOperator<dim>().reinit(mf); }), "scalar FE_Q(1)", "FE_Q(2)");
    }
    {
      // deal.II's own numbering (cell by cell) is not lexicographic on a refined mesh
      parallel::distributed::Triangulation<dim> tria(comm);
      test::make_mesh(tria, test::Domain::column, dim == 2 ? 4 : 3);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(FE_Q<dim>(1));
      AffineConstraints<double> constraints;
      constraints.close();
      gpumf::MatrixFree<dim> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(2), data);
      says(test::exception_of([&] { gpumf::StencilOperator<dim>().reinit(mf); }),
           "renumber_lexicographic",
           "deal.II's numbering");
      // Gauss-Seidel: the automatic storage falls back to the ELL rows, a grid storage forced is refused
      gpumf::MultiColorGaussSeidel<dim> gs;
      gs.reinit(mf);
      checker.check(gs.storage() == gpumf::StencilStorage::general,
                    "deal.II's numbering: Gauss-Seidel takes the general (ELL) storage");
      typename gpumf::MultiColorGaussSeidel<dim>::AdditionalData forced;
      forced.storage = gpumf::StencilStorage::constant;
      says(test::exception_of([&] { gpumf::MultiColorGaussSeidel<dim>().reinit(mf, forced); }),
           "renumber_lexicographic",
           "Gauss-Seidel forced on the grid with deal.II's numbering");
      typename gpumf::StencilOperator<dim>::AdditionalData general;
      general.storage = gpumf::StencilStorage::general;
      says(test::exception_of([&] { gpumf::StencilOperator<dim>().reinit(mf, general); }),
           "MultiColorGaussSeidel",
           "StencilOperator with general storage");
    }
    {
      parallel::distributed::Triangulation<dim> tria(comm);
      test::make_mesh(tria, test::Domain::column, dim == 2 ? 4 : 3);
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned() && cell->center()[0] < 0.2 && cell->center()[1] < 0.2)
          cell->set_refine_flag();
      tria.execute_coarsening_and_refinement();
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(FE_Q<dim>(1));
      AffineConstraints<double> constraints;
      constraints.reinit(DoFTools::extract_locally_relevant_dofs(dof));
      DoFTools::make_hanging_node_constraints(dof, constraints);
      constraints.close();
      gpumf::MatrixFree<dim> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(2), data);
      says(test::exception_of([&] { gpumf::StencilOperator<dim>().reinit(mf); }), "hanging nodes", "hanging nodes");
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    for (const Mesh mesh : {Mesh::uniform, Mesh::graded, Mesh::deformed})
      for (const Dirichlet dirichlet : {Dirichlet::all, Dirichlet::one_face, Dirichlet::none})
        {
          run_case<2, double>(checker, backend, mesh, dirichlet);
          run_case<3, double>(checker, backend, mesh, dirichlet);
          if (dirichlet == Dirichlet::all)
            {
              run_case<2, float>(checker, backend, mesh, dirichlet);
              run_case<3, float>(checker, backend, mesh, dirichlet);
            }
        }
    run_refusals(checker, backend);
  });
}
