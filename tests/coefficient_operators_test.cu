// The ready-made coefficient operators (gpumf::CoefficientOperator: MassOperator,
// LaplaceOperator, HelmholtzOperator) against a matrix assembled by deal.II's FEValues, and their
// diagonals (compute_diagonal) against the assembled diagonal; high degrees in 3D against
// deal.II's CPU MatrixFree. Random inputs, Dirichlet constraints, Cartesian and curved meshes,
// Gauss (p+1, p+2) and Gauss-Lobatto (p+1, collocation) quadrature, scalar and vector-valued
// elements, dim 2 and 3.
//
//   coefficient_operators_test host   host backend vs deal.II: relative max difference <= 1e-12
//                                     (float operators: 1000 float ulps)
//   coefficient_operators_test cuda   CUDA (coloring, atomics) vs host, operator and diagonal,
//                                     500 ulps of the number type; skipped without a GPU
#include <gpumf/operators.h>

#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>

#include "coefficient.h"
#include "common/dealii_reference.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  // cell_loop() instantiates the ready kernel once per form in 3D: with gradients where n_q >
  // n_dofs_1d once per form of the 1D matrices (even-odd or not), else once per geometry (affine
  // branching per launch, per point); in 2D once; a wrapper that declares its own operator() gets
  // one kernel
  template <typename Op>
  constexpr unsigned int forms =
    gpumf::internal::FormsOf<Op::FEEval::dimension, double, Op, const double *, double *>::value;
  using ReadyQ4 = gpumf::internal::CoefficientCellOperator<3, 4, 6, 1, double, false, true>;
  struct WrappedQ4 : ReadyQ4
  {
    __host__ __device__ void
    operator()(const unsigned int                        cell,
               const gpumf::MatrixFree<3, double>::Data *data,
               gpumf::SharedData<3, double>             *shared,
               const double                             *src,
               double                                   *dst) const
    {
      ReadyQ4::operator()(cell, data, shared, src, dst);
    }
  };
  // two forms of the 1D matrices without collocation (BP3), else two of the geometry (affine
  // branching per launch, and per point) in 3D; one in 2D
  static_assert(forms<ReadyQ4> == 2 && !ReadyQ4::geometry_forms);
  static_assert(forms<gpumf::internal::CoefficientCellOperator<3, 4, 5, 1, double, false, true>> == 2);
  static_assert(gpumf::internal::CoefficientCellOperator<3, 4, 5, 1, double, false, true>::geometry_forms);
  static_assert(forms<gpumf::internal::CoefficientCellOperator<2, 4, 6, 1, double, false, true>> == 1);
  static_assert(forms<gpumf::internal::CoefficientCellOperator<3, 4, 6, 1, double, true, false>> == 2);
  static_assert(forms<WrappedQ4> == 1);
  // the energy functor of vmult_and_dot() keeps its cell operator's forms
  static_assert(forms<gpumf::internal::CellEnergyOperator<ReadyQ4>> == 2);
  static_assert(
    forms<
      gpumf::internal::CellEnergyOperator<gpumf::internal::CoefficientCellOperator<3, 4, 5, 1, double, false, true>>> ==
    2);

  enum class QuadKind
  {
    gauss,
    gauss_lobatto,
    warped_gauss,  // Gauss points x moved to x^2 (weights 2 x w): not symmetric about the cell's centre
    warped_lobatto // the same of Gauss-Lobatto points, and FE_Q's nodes there: collocation, not symmetric
  };

  enum class Reference
  {
    assembled_matrix,  // FEValues + SparseMatrix, kappa(x) and a(x), and the diagonal
    dealii_matrix_free // deal.II's CPU MatrixFree Helmholtz operator (kappa = 1, a(x)), for high degrees
  };

  template <int  dim,
            int  degree,
            int  n_q_1d,
            int  n_components,
            bool with_values,
            bool with_gradients,
            typename Number = double>
  void
  check(test::Checker       &checker,
        const gpumf::Backend backend,
        const test::MeshKind mesh,
        const QuadKind       quad_kind,
        const Reference      reference,
        const bool           check_diagonal,
        const bool           discontinuous = false)
  {
    using Operator = gpumf::CoefficientOperator<dim, degree, n_q_1d, n_components, Number, with_values, with_gradients>;
    constexpr bool is_double = std::is_same_v<Number, double>;
    AssertThrow(is_double || reference == Reference::assembled_matrix,
                ExcMessage("float operators are checked against the assembled matrix"));
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    // (a side of 0.7: cell sizes not exact in float, which affine detection must survive)
    if (mesh == test::MeshKind::cartesian)
      test::make_mesh(tria, test::Domain::inexact_cube, dim == 2 ? 2 : 1);
    else
      test::make_mesh(tria, test::Domain::shell, 0);
    const auto    mapping = test::make_mapping<dim>(mesh);
    const bool    lobatto = quad_kind == QuadKind::gauss_lobatto || quad_kind == QuadKind::warped_lobatto;
    const bool    warped  = quad_kind == QuadKind::warped_gauss || quad_kind == QuadKind::warped_lobatto;
    Quadrature<1> quad    = lobatto ? Quadrature<1>(QGaussLobatto<1>(n_q_1d)) : Quadrature<1>(QGauss<1>(n_q_1d));
    if (warped)
      {
        std::vector<Point<1>> points;
        std::vector<double>   weights;
        for (unsigned int q = 0; q < quad.size(); ++q)
          {
            const double x = quad.point(q)[0];
            points.emplace_back(x * x);
            weights.push_back(2 * x * quad.weight(q));
          }
        quad = Quadrature<1>(points, weights);
      }
    std::unique_ptr<FiniteElement<dim>> fe;
    if (discontinuous && n_components == 1)
      fe = std::make_unique<FE_DGQ<dim>>(degree);
    else if (discontinuous)
      fe = std::make_unique<FESystem<dim>>(FE_DGQ<dim>(degree), n_components);
    else if (quad_kind == QuadKind::warped_lobatto)
      {
        AssertThrow(n_components == 1 && n_q_1d == degree + 1, ExcMessage("warped collocation: FE_Q on the points"));
        fe = std::make_unique<FE_Q<dim>>(quad); // the nodes are the quadrature points
      }
    else if (n_components == 1)
      fe = std::make_unique<FE_Q<dim>>(degree);
    else
      fe = std::make_unique<FESystem<dim>>(FE_Q<dim>(degree), n_components);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(*fe);
    AffineConstraints<double> constraints;
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      constraints.reinit(relevant);
      if (!discontinuous) // (no DoF of a discontinuous element lies on the boundary)
        VectorTools::interpolate_boundary_values(
          *mapping, dof, 0, Functions::ZeroFunction<dim>(n_components), constraints);
      constraints.close();
    }
    AffineConstraints<Number> number_constraints; // (the operator's number type)
    number_constraints.copy_from(constraints);
    const test::Kappa<dim>            kappa;
    const test::ValueCoefficient<dim> a;

    const std::string name =
      std::string(discontinuous ? "FE_DGQ, cell terms: " : "") +
      std::string(with_values && with_gradients ? "helmholtz" :
                  with_values                   ? "mass" :
                                                  "laplace") +
      " " + std::to_string(dim) + "d degree " + std::to_string(degree) + " " +
      (quad_kind == QuadKind::gauss         ? "gauss " :
       quad_kind == QuadKind::gauss_lobatto ? "gauss-lobatto " :
       quad_kind == QuadKind::warped_gauss  ? "warped gauss " :
                                              "warped gauss-lobatto, FE_Q on its points, ") +
      std::to_string(n_q_1d) + (n_components > 1 ? " components " + std::to_string(n_components) : std::string()) +
      " " + test::to_string(mesh) + (is_double ? "" : " float") + " (" + std::to_string(dof.n_dofs()) + " DoFs)";

    // y = A x and the diagonal, on a backend
    using Geometry   = typename gpumf::MatrixFree<dim, Number>::GeometryStorage;
    const auto apply = [&](const gpumf::Backend        b,
                           const bool                  coloring,
                           const Geometry              geometry        = Geometry::automatic,
                           const unsigned int          cells_per_block = 0,
                           const bool                  from_vectors    = false,
                           const gpumf::Implementation implementation  = gpumf::Implementation::tensor_product) {
      typename Operator::AdditionalData data;
      data.backend         = b;
      data.use_coloring    = coloring;
      data.geometry        = geometry;
      data.cells_per_block = cells_per_block;
      data.implementation  = implementation; // local matrices: local_matrix_test
      Operator op;
      op.reinit(*mapping, dof, number_constraints, quad, data);
      AssertThrow(op.matrix_free().has_affine_geometry() ==
                    (mesh == test::MeshKind::cartesian && geometry != Geometry::per_point),
                  ExcMessage("affine geometry detected on a non-affine mesh or missed on an affine one"));
      // the GPU's 3D kernel takes the even-odd forms of the 1D matrices exactly where these are
      // symmetric about the cell's centre (FE_Q and FE_DGQ on Gauss and Gauss-Lobatto points)
      if constexpr (dim == 3)
        AssertThrow(op.cell_operator().even_odd == !warped,
                    ExcMessage("the even-odd forms of the 1D matrices chosen where they are not symmetric, or "
                               "missed where they are"));
      if (reference == Reference::assembled_matrix && from_vectors)
        {
          // the same coefficients handed over in the backend's memory (serial vectors in
          // local_q_point_id() order), as a coefficient computed there would be
          const auto points     = op.matrix_free().get_quadrature_points();
          const auto on_backend = [&](const Function<dim> &f) {
            LinearAlgebra::ReadWriteVector<Number> rw(complete_index_set(points.size()));
            for (std::size_t i = 0; i < points.size(); ++i)
              {
                Point<dim> p;
                for (unsigned int d = 0; d < dim; ++d)
                  p[d] = points[i][d];
                rw[i] = f.value(p);
              }
            gpumf::Vector<Number> v(std::make_shared<Utilities::MPI::Partitioner>(points.size()), b);
            v.import(rw, VectorOperation::insert);
            return v;
          };
          if constexpr (with_values)
            op.set_value_coefficient(on_backend(a));
          if constexpr (with_gradients)
            op.set_gradient_coefficient(on_backend(kappa));
        }
      else if (reference == Reference::assembled_matrix)
        {
          if constexpr (with_values)
            op.set_value_coefficient(a);
          if constexpr (with_gradients)
            op.set_gradient_coefficient(kappa);
        }
      else if constexpr (with_values)
        op.set_value_coefficient(a);
      gpumf::Vector<Number> x, y;
      op.initialize_dof_vector(x);
      op.initialize_dof_vector(y);
      test::fill_random(x);
      op.vmult(y, x);
      test::check_vmult_and_dot(checker,
                                op,
                                x,
                                y,
                                name + (b == gpumf::Backend::cuda ? " cuda" : " host") +
                                  (coloring ? " coloring" : " atomics"));
      LinearAlgebra::ReadWriteVector<Number> diagonal;
      if (check_diagonal)
        {
          op.compute_diagonal();
          diagonal = test::to_rw(op.get_matrix_diagonal()->get_vector());
        }
      return std::make_pair(test::to_rw(y), diagonal);
    };

    const auto host = apply(gpumf::Backend::host, false);
    if (reference == Reference::assembled_matrix)
      {
        // coefficients from vectors on the backend give the same operator, bitwise (coloring)
        const auto from_functions = backend == gpumf::Backend::host ? host : apply(backend, true);
        const auto from_vectors   = apply(backend, backend != gpumf::Backend::host, Geometry::automatic, 0, true);
        checker.check_below(test::relative_difference(from_vectors.first, from_functions.first, comm),
                            0.,
                            name + ": coefficients from backend vectors vs from functions");
        if (check_diagonal)
          checker.check_below(test::relative_difference(from_vectors.second, from_functions.second, comm),
                              0.,
                              name + ": diagonal, coefficients from backend vectors vs from functions");
        // element matrices read a host copy of the backend vectors' coefficients
        if constexpr (is_double && n_components == 1 && degree <= 3)
          {
            const auto lm           = gpumf::Implementation::local_matrix;
            const bool colors       = backend != gpumf::Backend::host;
            const auto lm_functions = apply(backend, colors, Geometry::automatic, 0, false, lm);
            const auto lm_vectors   = apply(backend, colors, Geometry::automatic, 0, true, lm);
            checker.check_below(test::relative_difference(lm_vectors.first, lm_functions.first, comm),
                                0.,
                                name + ": element matrices, coefficients from backend vectors vs from functions");
            checker.check_below(test::relative_difference(lm_functions.first, from_functions.first, comm),
                                1e-12,
                                name + ": element matrices vs sum factorization");
          }
      }
    if (backend == gpumf::Backend::host)
      {
        if (mesh == test::MeshKind::cartesian)
          {
            // geometry per point (as on curved meshes) vs per cell computed in the loop
            const auto per_point = apply(gpumf::Backend::host, false, Geometry::per_point);
            checker.check_below(test::relative_difference(per_point.first, host.first, comm),
                                is_double ? 1e-13 : 500 * std::numeric_limits<Number>::epsilon(),
                                name + ": host geometry per point vs affine per cell");
          }
        const double host_tolerance = is_double ? 1e-12 : 1000 * std::numeric_limits<Number>::epsilon();
        LinearAlgebra::ReadWriteVector<Number> expected(host.first.get_stored_elements());
        if (reference == Reference::assembled_matrix)
          {
            AssertThrow(Utilities::MPI::n_mpi_processes(comm) == 1, ExcMessage("the assembled reference is serial"));
            test::AssembledOperator<dim> matrix;
            matrix.assemble(
              *mapping, dof, constraints, quad, with_values ? &a : nullptr, with_gradients ? &kappa : nullptr);
            Vector<double> x(dof.n_dofs()), y(dof.n_dofs());
            for (unsigned int i = 0; i < dof.n_dofs(); ++i)
              x(i) = test::random_value(i);
            matrix.vmult(y, x);
            for (const auto i : expected.get_stored_elements())
              expected(i) = y(i);
            checker.check_below(test::relative_difference(host.first, expected, comm),
                                host_tolerance,
                                name + ": host vs assembled matrix");
            if (check_diagonal)
              {
                for (const auto i : expected.get_stored_elements())
                  expected(i) = matrix.diagonal(i);
                checker.check_below(test::relative_difference(host.second, expected, comm),
                                    host_tolerance,
                                    name + ": host diagonal vs assembled diagonal");
              }
          }
        else if constexpr (is_double)
          {
            test::DealiiHelmholtzOperator<dim> op;
            op.reinit(*mapping, dof, constraints, n_q_1d);
            LinearAlgebra::distributed::Vector<double> x, y;
            op.initialize_dof_vector(x);
            op.initialize_dof_vector(y);
            test::fill_random(x);
            op.vmult(y, x);
            checker.check_below(test::relative_difference(host.first, test::to_rw(y), comm),
                                1e-12,
                                name + ": host vs deal.II CPU MatrixFree");
          }
        return;
      }

    const double tolerance = 500 * std::numeric_limits<Number>::epsilon();
    for (const bool coloring : {true, false})
      {
        const auto        device  = apply(gpumf::Backend::cuda, coloring);
        const std::string variant = coloring ? " cuda coloring" : " cuda atomics";
        checker.check_below(test::relative_difference(device.first, host.first, comm),
                            tolerance,
                            name + variant + " vs host");
        if (check_diagonal)
          checker.check_below(test::relative_difference(device.second, host.second, comm),
                              tolerance,
                              name + variant + " diagonal vs host");
      }
    // one cell per block and geometry per point (the benchmark's baseline variant)
    const auto device = apply(gpumf::Backend::cuda, false, Geometry::per_point, 1);
    checker.check_below(test::relative_difference(device.first, host.first, comm),
                        tolerance,
                        name + " cuda atomics, one cell per block, geometry per point vs host");
  }

  /// Every mesh and the given quadratures for one operator.
  template <int  dim,
            int  degree,
            int  n_q_1d,
            int  n_components,
            bool with_values,
            bool with_gradients,
            typename Number = double>
  void
  check_meshes(test::Checker               &checker,
               const gpumf::Backend         backend,
               const std::vector<QuadKind> &quads,
               const Reference              reference      = Reference::assembled_matrix,
               const bool                   check_diagonal = true,
               const bool                   discontinuous  = false)
  {
    for (const auto mesh : {test::MeshKind::cartesian, test::MeshKind::curved})
      for (const auto quad : quads)
        check<dim, degree, n_q_1d, n_components, with_values, with_gradients, Number>(
          checker, backend, mesh, quad, reference, check_diagonal, discontinuous);
  }

  template <int dim, int degree>
  void
  check_helmholtz(test::Checker &checker, const gpumf::Backend backend)
  {
    // q = p+1 Gauss and Gauss-Lobatto (collocation), q = p+2 Gauss
    check_meshes<dim, degree, degree + 1, 1, true, true>(checker, backend, {QuadKind::gauss, QuadKind::gauss_lobatto});
    check_meshes<dim, degree, degree + 2, 1, true, true>(checker, backend, {QuadKind::gauss});
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    const std::vector<QuadKind> gauss{QuadKind::gauss}, lobatto{QuadKind::gauss_lobatto};
    // Helmholtz with kappa(x), a(x): degrees 1-4 and 6, 10, 15 in 2D; 1-3 in 3D
    check_helmholtz<2, 1>(checker, backend);
    check_helmholtz<2, 2>(checker, backend);
    check_helmholtz<2, 3>(checker, backend);
    check_helmholtz<2, 4>(checker, backend);
    check_helmholtz<2, 6>(checker, backend);
    check_meshes<2, 10, 12, 1, true, true>(checker, backend, gauss);
    check_meshes<2, 15, 16, 1, true, true>(checker, backend, lobatto);
    check_helmholtz<3, 1>(checker, backend);
    check_helmholtz<3, 2>(checker, backend);
    check_helmholtz<3, 3>(checker, backend);
    // the benchmark problems: BP1 mass q = p+2, BP3 Laplace q = p+2, BP5 Laplace collocation
    check_meshes<2, 4, 6, 1, true, false>(checker, backend, gauss);
    check_meshes<2, 4, 6, 1, false, true>(checker, backend, gauss);
    check_meshes<2, 4, 5, 1, false, true>(checker, backend, lobatto);
    check_meshes<3, 4, 6, 1, true, false>(checker, backend, gauss);
    check_meshes<3, 4, 6, 1, false, true>(checker, backend, gauss);
    check_meshes<3, 4, 5, 1, false, true>(checker, backend, lobatto);
    // 1D matrices not symmetric about the cell's centre (the GPU kernel's general form), with
    // n_q = n_dofs_1d (no collocation) and n_q > n_dofs_1d
    const std::vector<QuadKind> warped{QuadKind::warped_gauss};
    check_meshes<3, 2, 3, 1, true, true>(checker, backend, warped);
    check_meshes<3, 3, 5, 1, false, true>(checker, backend, warped);
    // and with collocation (FE_Q on warped Gauss-Lobatto points, the quadrature on the same points)
    const std::vector<QuadKind> warped_nodes{QuadKind::warped_lobatto};
    check_meshes<3, 3, 4, 1, false, true>(checker, backend, warped_nodes);
    check_meshes<3, 2, 3, 1, true, true>(checker, backend, warped_nodes);
    // float (the benchmark's float figures): BP3, BP5 and Helmholtz in 3D
    check_meshes<3, 4, 6, 1, false, true, float>(checker, backend, gauss);
    check_meshes<3, 4, 5, 1, false, true, float>(checker, backend, lobatto);
    check_meshes<3, 3, 5, 1, true, true, float>(checker, backend, gauss);
    // vector-valued: mass and vector Laplacian, FESystem(FE_Q(p), dim)
    check_meshes<2, 2, 4, 2, true, false>(checker, backend, gauss);
    check_meshes<2, 3, 4, 2, false, true>(checker, backend, lobatto);
    check_meshes<3, 2, 4, 3, true, false>(checker, backend, gauss);
    check_meshes<3, 2, 3, 3, false, true>(checker, backend, gauss);
    check_meshes<3, 1, 2, 3, true, true>(checker, backend, lobatto);
    // discontinuous elements (FE_DGQ), the cell terms: mass, Laplace, Helmholtz
    {
      const Reference matrix = Reference::assembled_matrix;
      check_meshes<2, 1, 2, 1, true, true>(checker, backend, gauss, matrix, true, true);
      check_meshes<2, 3, 4, 1, true, false>(checker, backend, gauss, matrix, true, true);
      check_meshes<2, 4, 5, 1, false, true>(checker, backend, lobatto, matrix, true, true);
      check_meshes<3, 2, 3, 1, true, true>(checker, backend, gauss, matrix, true, true);
      check_meshes<3, 2, 4, 3, true, false>(checker, backend, gauss, matrix, true, true);
    }
    // high degrees in 3D (one thread per point up to n_q = 10, columns of points above)
    const Reference cpu_mf = Reference::dealii_matrix_free;
    check_meshes<3, 7, 9, 1, true, true>(checker, backend, gauss, cpu_mf, false);
    check_meshes<3, 9, 11, 1, true, true>(checker, backend, gauss, cpu_mf, false);
    check_meshes<3, 12, 14, 1, true, true>(checker, backend, gauss, cpu_mf, false);
    check_meshes<3, 15, 16, 1, true, true>(checker, backend, gauss, cpu_mf, false);
  });
}
