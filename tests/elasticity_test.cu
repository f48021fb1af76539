// gpumf::ElasticityOperator: the host backend against the matrix of isotropic elasticity
// assembled by deal.II's FEValues (one rank), with lambda and mu constant, from Functions (per
// quadrature point) and per cell; the GPU (the ready 3D kernel: every component to the points,
// the stress, every component back) against the host on random inputs, with coloring and
// atomics, geometry per cell and per point; the diagonal against the assembled one and across
// the backends; a box, a sheared box (affine cells with full inverse Jacobians) and a shell
// (MappingQ(3)) with hanging nodes and Dirichlet rows; 2D and 3D, degrees 1, 2, 4; Gauss,
// Gauss-Lobatto and warped points (not symmetric: the kernel's 1D matrices unfolded); on one or
// several ranks (the GPU against the host there). Then conjugate gradients with the
// operator's Jacobi preconditioner, and the messages of misuse.
//
// elasticity_test host|cuda
#include <gpumf/elasticity_operator.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include "common/dealii_reference.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  /// lambda(x): positive, varying in every direction.
  template <int dim>
  struct Lambda : Function<dim>
  {
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      return 2. + p[0] * p[0] + 0.5 * std::sin(3. * p[dim - 1]);
    }
  };

  /// mu(x): positive, varying in every direction.
  template <int dim>
  struct Mu : Function<dim>
  {
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      return 1. + 0.3 * std::cos(2. * p[1]) + 0.2 * p[0];
    }
  };

  /// The meshes: the box (affine, axis-aligned), the box sheared (affine cells whose inverse
  /// Jacobian is full), the shell (curved, MappingQ(3)); each with hanging nodes.
  enum class Mesh
  {
    box,
    sheared,
    shell
  };

  std::string
  to_string(const Mesh m)
  {
    return m == Mesh::box ? "box" : m == Mesh::sheared ? "sheared box" : "shell";
  }

  /// Gauss, Gauss-Lobatto, or Gauss points x moved to x^2 (weights 2 x w): not symmetric about the
  /// cell's centre, so that the GPU kernel takes the 1D matrices themselves (not the even-odd forms).
  enum class Points
  {
    gauss,
    lobatto,
    warped
  };

  Quadrature<1>
  quadrature(const Points kind, const unsigned int n)
  {
    if (kind == Points::lobatto)
      return QGaussLobatto<1>(n);
    const QGauss<1> gauss(n);
    if (kind == Points::gauss)
      return gauss;
    std::vector<Point<1>> points;
    std::vector<double>   weights;
    for (unsigned int q = 0; q < n; ++q)
      {
        const double x = gauss.point(q)[0];
        points.emplace_back(x * x);
        weights.push_back(2 * x * gauss.weight(q));
      }
    return Quadrature<1>(points, weights);
  }

  enum class Coefficients
  {
    constant,
    functions,
    per_cell
  };

  std::string
  to_string(const Coefficients c)
  {
    return c == Coefficients::constant ? "constant" : c == Coefficients::functions ? "functions" : "per cell";
  }

  /// The per-cell coefficients of the test: by the cell's center, on either side of x = 0.5.
  template <int dim, typename Iterator>
  std::pair<double, double>
  lame_of_cell(const Iterator &cell)
  {
    return cell->center()[0] < 0.5 ? std::make_pair(4., 0.5) : std::make_pair(1., 2.);
  }

  template <int dim, int degree, int n_q_1d>
  void
  check(test::Checker       &checker,
        const gpumf::Backend backend,
        const Mesh           mesh,
        const Points         points,
        const Coefficients   coefficients)
  {
    using Operator                                 = gpumf::ElasticityOperator<dim, degree, n_q_1d, double>;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    // hanging nodes: one more refinement near a corner
    const test::RefineWhere<dim> near_corner = [](const Point<dim> &p) { return p[0] < 0.4 && p[1] < 0.6; };
    if (mesh != Mesh::shell)
      test::make_mesh(tria, test::Domain::box, dim == 2 ? 1 : 0, {near_corner});
    else
      test::make_mesh(tria, test::Domain::shell, 0, {near_corner});
    if (mesh == Mesh::sheared)
      GridTools::transform(
        [](const Point<dim> &p) {
          Point<dim> q = p;
          q[0] += 0.3 * p[1] + (dim == 3 ? 0.2 * p[dim - 1] : 0.);
          q[1] += 0.25 * p[dim - 1];
          return q;
        },
        tria);
    const auto mapping =
      test::make_mapping<dim>(mesh == Mesh::shell ? test::MeshKind::curved : test::MeshKind::cartesian);
    const Quadrature<1> quad = quadrature(points, n_q_1d);
    const FESystem<dim> element(FE_Q<dim>{degree}, dim);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(element);
    AffineConstraints<double> constraints;
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof, constraints);
      VectorTools::interpolate_boundary_values(*mapping, dof, 0, Functions::ZeroFunction<dim>(dim), constraints);
      constraints.close();
    }
    const Lambda<dim> lambda;
    const Mu<dim>     mu;
    const std::string name = "elasticity " + std::to_string(dim) + "d degree " + std::to_string(degree) +
                             (points == Points::gauss   ? " gauss " :
                              points == Points::lobatto ? " gauss-lobatto " :
                                                          " warped gauss ") +
                             std::to_string(n_q_1d) + " " + to_string(mesh) + " coefficients " +
                             to_string(coefficients) + " (" + std::to_string(dof.n_dofs()) + " DoFs, " +
                             std::to_string(tria.n_global_active_cells()) + " cells)";

    using Geometry   = typename gpumf::MatrixFree<dim, double>::GeometryStorage;
    const auto apply = [&](const gpumf::Backend b, const bool coloring, const Geometry geometry = Geometry::automatic) {
      typename Operator::AdditionalData data;
      data.backend      = b;
      data.use_coloring = coloring;
      data.geometry     = geometry;
      Operator op;
      op.reinit(*mapping, dof, constraints, quad, data);
      AssertThrow(op.matrix_free().has_affine_geometry() == (mesh != Mesh::shell && geometry != Geometry::per_point),
                  ExcMessage("affine geometry detected on a curved mesh or missed on an affine one"));
      if constexpr (dim == 3)
        AssertThrow(op.cell_operator().even_odd == (points != Points::warped),
                    ExcMessage("the even-odd forms of the 1D matrices chosen where they are not symmetric, or "
                               "missed where they are"));
      if (coefficients == Coefficients::constant)
        op.set_lame_coefficients(3., 1.5);
      else if (coefficients == Coefficients::functions)
        op.set_lame_coefficients(lambda, mu);
      else
        op.set_lame_coefficients([](const typename Operator::cell_iterator &cell) { return lame_of_cell<dim>(cell); });
      gpumf::Vector<double> x, y;
      op.initialize_dof_vector(x);
      op.initialize_dof_vector(y);
      test::fill_random(x);
      op.vmult(y, x);
      op.compute_diagonal();
      return std::make_pair(test::to_rw(y), test::to_rw(op.get_matrix_diagonal()->get_vector()));
    };

    const auto host = apply(gpumf::Backend::host, false);
    if (backend == gpumf::Backend::host)
      {
        if (Utilities::MPI::n_mpi_processes(comm) == 1)
          {
            // the assembled matrix with the same coefficients at the same points
            struct Constant : Function<dim>
            {
              double c;
              explicit Constant(const double c)
                : c(c)
              {}
              double
              value(const Point<dim> &, const unsigned int = 0) const override
              {
                return c;
              }
            };
            // per cell: the side of x = 0.5 of the cell the point lies in, found by the point
            // (the quadrature points lie inside their cell: the cell's center decides)
            struct PerCell : Function<dim>
            {
              const DoFHandler<dim> &dof;
              const Mapping<dim>    &mapping;
              bool                   lambda;
              PerCell(const DoFHandler<dim> &dof, const Mapping<dim> &mapping, const bool lambda)
                : dof(dof)
                , mapping(mapping)
                , lambda(lambda)
              {}
              double
              value(const Point<dim> &p, const unsigned int = 0) const override
              {
                const auto cell = GridTools::find_active_cell_around_point(mapping, dof, p).first;
                const auto lm   = lame_of_cell<dim>(cell);
                return lambda ? lm.first : lm.second;
              }
            };
            test::AssembledOperator<dim> matrix;
            if (coefficients == Coefficients::constant)
              matrix.assemble_elasticity(*mapping, dof, constraints, quad, Constant(3.), Constant(1.5));
            else if (coefficients == Coefficients::functions)
              matrix.assemble_elasticity(*mapping, dof, constraints, quad, lambda, mu);
            else
              matrix.assemble_elasticity(
                *mapping, dof, constraints, quad, PerCell(dof, *mapping, true), PerCell(dof, *mapping, false));
            Vector<double> x(dof.n_dofs()), y(dof.n_dofs());
            for (unsigned int i = 0; i < dof.n_dofs(); ++i)
              x(i) = test::random_value(i);
            matrix.vmult(y, x);
            LinearAlgebra::ReadWriteVector<double> expected(host.first.get_stored_elements());
            for (const auto i : expected.get_stored_elements())
              expected(i) = y(i);
            checker.check_below(test::relative_difference(host.first, expected, comm),
                                1e-12,
                                name + ": host vs assembled matrix");
            for (const auto i : expected.get_stored_elements())
              expected(i) = matrix.diagonal(i);
            checker.check_below(test::relative_difference(host.second, expected, comm),
                                1e-12,
                                name + ": host diagonal vs assembled diagonal");
          }
        if (mesh != Mesh::shell)
          {
            const auto per_point = apply(gpumf::Backend::host, false, Geometry::per_point);
            checker.check_below(test::relative_difference(per_point.first, host.first, comm),
                                1e-13,
                                name + ": host geometry per point vs affine per cell");
          }
        return;
      }

    const double tolerance = 500 * std::numeric_limits<double>::epsilon();
    for (const bool coloring : {true, false})
      {
        const auto        gpu  = apply(gpumf::Backend::cuda, coloring);
        const std::string kind = coloring ? " coloring" : " atomics";
        checker.check_below(test::relative_difference(gpu.first, host.first, comm),
                            tolerance,
                            name + ": cuda vs host" + kind);
        checker.check_below(test::relative_difference(gpu.second, host.second, comm),
                            tolerance,
                            name + ": cuda diagonal vs host" + kind);
      }
    if (mesh != Mesh::shell)
      {
        // the kernel of geometry per point on an affine mesh's points
        const auto gpu = apply(gpumf::Backend::cuda, true, Geometry::per_point);
        checker.check_below(test::relative_difference(gpu.first, host.first, comm),
                            tolerance,
                            name + ": cuda geometry per point vs host");
      }
  }

  /// Conjugate gradients on the operator with its Jacobi preconditioner: a body force on the
  /// box clamped at its boundary; the same iterations and solution on the backend as on the host.
  template <int dim, int degree>
  void
  check_solver(test::Checker &checker, const gpumf::Backend backend)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, test::Domain::box, dim == 2 ? 2 : 1);
    const MappingQ<dim> mapping(1);
    const FESystem<dim> element(FE_Q<dim>{degree}, dim);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(element);
    AffineConstraints<double> constraints;
    test::make_constraints(mapping, dof, constraints);
    const auto solve = [&](const gpumf::Backend b) {
      using Operator = gpumf::ElasticityOperator<dim, degree, degree + 1, double>;
      typename Operator::AdditionalData data;
      data.backend = b;
      Operator op;
      op.reinit(mapping, dof, constraints, QGauss<1>(degree + 1), data);
      op.set_lame_coefficients(2., 1.);
      op.compute_diagonal();
      gpumf::Vector<double> u, f;
      op.initialize_dof_vector(u);
      op.initialize_dof_vector(f);
      test::fill_random(f);
      op.matrix_free().set_constrained_values(0., f);
      SolverControl                   control(2000, 1e-10 * f.l2_norm());
      SolverCG<gpumf::Vector<double>> cg(control);
      cg.solve(op, u, f, *op.get_matrix_diagonal_inverse());
      gpumf::Vector<double> r;
      op.initialize_dof_vector(r);
      op.vmult(r, u);
      r.add(-1., f);
      return std::make_tuple(control.last_step(), r.l2_norm() / f.l2_norm(), test::to_rw(u));
    };
    const auto        host = solve(gpumf::Backend::host);
    const std::string name = "elasticity " + std::to_string(dim) + "d degree " + std::to_string(degree) + " CG";
    checker.check_below(std::get<1>(host), 1e-9, name + ": host residual");
    checker.check(std::get<0>(host) > 5, name + ": host took " + std::to_string(std::get<0>(host)) + " iterations");
    if (backend == gpumf::Backend::host)
      return;
    const auto gpu = solve(backend);
    checker.check_below(std::get<1>(gpu), 1e-9, name + ": cuda residual");
    checker.check_below(std::abs(double(std::get<0>(gpu)) - std::get<0>(host)),
                        2,
                        name + ": cuda iterations " + std::to_string(std::get<0>(gpu)) + " vs host " +
                          std::to_string(std::get<0>(host)));
    checker.check_below(test::relative_difference(std::get<2>(gpu), std::get<2>(host), comm),
                        1e-8,
                        name + ": cuda solution vs host");
  }

  /// Misuse stops with a message naming what is supported.
  void
  check_misuse(test::Checker &checker, const gpumf::Backend backend)
  {
    const MPI_Comm                          comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<3> tria(comm);
    test::make_mesh(tria, test::Domain::unit_cube, 1);
    const MappingQ<3>         mapping(1);
    AffineConstraints<double> none;
    none.close();
    const auto message = [&](const auto &what) {
      try
        {
          what();
        }
      catch (const std::exception &e)
        {
          // deal.II folds the text of its exceptions: one space for each run of white space
          std::string text;
          for (const char c : std::string(e.what()))
            if (!std::isspace(static_cast<unsigned char>(c)))
              text += c;
            else if (!text.empty() && text.back() != ' ')
              text += ' ';
          return text;
        }
      return std::string();
    };
    gpumf::ElasticityOperator<3, 2>::AdditionalData data;
    data.backend = backend;
    {
      DoFHandler<3> dof(tria);
      dof.distribute_dofs(FE_Q<3>(2));
      const std::string m = message([&] {
        gpumf::ElasticityOperator<3, 2> op;
        op.reinit(mapping, dof, none, QGauss<1>(3), data);
      });
      checker.check(m.find("needs FESystem(FE_Q(2), 3)") != std::string::npos &&
                      m.find("FE_Q<3>(2)") != std::string::npos,
                    "elasticity misuse: a scalar element is refused with a message naming FESystem(FE_Q(2), 3)");
    }
    {
      DoFHandler<3> dof(tria);
      dof.distribute_dofs(FESystem<3>(FE_DGQ<3>(2), 3));
      const std::string m = message([&] {
        gpumf::ElasticityOperator<3, 2> op;
        op.reinit(mapping, dof, none, QGauss<1>(3), data);
      });
      checker.check(m.find("needs FESystem(FE_Q(2), 3)") != std::string::npos,
                    "elasticity misuse: FESystem(FE_DGQ(2), 3) is refused with a message");
    }
    DoFHandler<3> dof(tria);
    dof.distribute_dofs(FESystem<3>(FE_Q<3>(2), 3));
    gpumf::ElasticityOperator<3, 2> op;
    op.reinit(mapping, dof, none, QGauss<1>(3), data);
    checker.check(message([&] { op.set_lame_coefficients(1., 0.); }).find("mu > 0") != std::string::npos,
                  "elasticity misuse: mu = 0 is refused with a message");
    const std::string wrong_size =
      message([&] { op.set_lame_coefficients(std::vector<double>(3, 1.), std::vector<double>(3, 1.)); });
    checker.check(wrong_size.find("one value per quadrature point") != std::string::npos,
                  "elasticity misuse: coefficients of the wrong size are refused with a message");
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  gpumf::Backend                   backend;
  if (!test::backend_from_argument(argc, argv, backend))
    return 77;
  test::Checker checker(MPI_COMM_WORLD);
  for (const auto mesh : {Mesh::box, Mesh::sheared, Mesh::shell})
    for (const auto coefficients : {Coefficients::constant, Coefficients::functions, Coefficients::per_cell})
      check<3, 2, 3>(checker, backend, mesh, Points::gauss, coefficients);
  for (const auto mesh : {Mesh::sheared, Mesh::shell})
    {
      check<3, 2, 3>(checker, backend, mesh, Points::lobatto, Coefficients::functions);
      check<3, 2, 3>(checker, backend, mesh, Points::warped, Coefficients::functions);
      check<3, 2, 4>(checker, backend, mesh, Points::gauss, Coefficients::functions);
      check<3, 2, 4>(checker, backend, mesh, Points::warped, Coefficients::functions);
      check<3, 4, 5>(checker, backend, mesh, Points::gauss, Coefficients::functions);
      check<3, 1, 2>(checker, backend, mesh, Points::gauss, Coefficients::per_cell);
      check<2, 2, 3>(checker, backend, mesh, Points::gauss, Coefficients::functions);
    }
  check_solver<3, 2>(checker, backend);
  check_solver<2, 2>(checker, backend);
  check_misuse(checker, backend);
  return checker.finish();
}
