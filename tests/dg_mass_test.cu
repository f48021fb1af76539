// The discontinuous Galerkin mass matrix, its inverse and the diagonals against deal.II's CPU
// MatrixFree (tests/common/dealii_dg_reference.cc):
//   - InverseMassOperator (CellwiseInverseMassMatrix::apply()) against deal.II's
//     CellwiseInverseMassMatrix on random vectors, MassOperator against deal.II's cell loop,
//     and M^-1 M x = x;
//   - the inverse mass in place: MatrixFree::cell_loop() with one vector as source and
//     destination and FEEvaluation::set_dof_values(), bitwise the operator's;
//   - step-67's one object of two quadratures with faces: SIPG on the first, the inverse mass
//     on the second, each bitwise an object of that quadrature alone;
//   - CellwiseInverseMassMatrix::transform_from_q_points_to_basis() (step-67's projection)
//     against deal.II's;
//   - the diagonals of SIPGLaplaceOperator (MatrixFree::loop_diagonal(): cells and faces),
//     InverseMassOperator and MassOperator against deal.II's operators applied to every unit
//     vector.
// Meshes of tests/common/dg_meshes.h (Cartesian, distorted, curved, adaptive, rotated); FE_DGQ,
// FE_DGQHermite, FE_DGQLegendre, and an FESystem of two FE_DGQ.
//
//   dg_mass_test host   host backend vs deal.II: relative max difference <= 1e-11 (float 1e-5)
//   dg_mass_test cuda   CUDA backend vs deal.II, the same bounds; skipped without a GPU
#include <gpumf/cellwise_inverse_mass_matrix.h>
#include <gpumf/dg_operators.h>
#include <gpumf/matrix_free.h>
#include <gpumf/operators.h>
#include <gpumf/tensor_product_matrix.h>

#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>

#include <cctype>

#include "common/dealii_dg_reference.h"
#include "common/dg_meshes.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  using test::dg::Element;
  using test::dg::Mesh;
  using test::dg::name;

  /// The projection of test::test_function(): its values submitted as the DoF values at the
  /// points, then transform_from_q_points_to_basis().
  template <int dim, int degree, int nc, typename Number>
  struct Projection
  {
    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = nc * gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_q_points   = gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_components = nc;
    using Eval                                 = gpumf::FEEvaluation<dim, degree, degree + 1, nc, Number>;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number *,
               Number *dst) const
    {
      Eval phi(cell, data, shared);
      phi.apply_for_each_quad_point([&](Eval *p, const unsigned int q) {
        const auto                x = p->quadrature_point(q);
        typename Eval::value_type value;
        for (unsigned int c = 0; c < n_components; ++c)
          {
            const Number f = test::test_function<dim>(x, c);
            if constexpr (nc == 1)
              value = f;
            else
              value[c] = f;
          }
        p->submit_dof_value(value, q);
      });
      gpumf::CellwiseInverseMassMatrix<dim, degree, nc, Number> inverse(phi);
      inverse.transform_from_q_points_to_basis();
      phi.distribute_local_to_global(dst);
    }
  };

  /// M_K^-1 on each cell written over the cell's values (FEEvaluation::set_dof_values()): for
  /// MatrixFree::cell_loop() with one vector as source and destination (in place).
  template <int dim, int degree, int nc, typename Number, unsigned int quad = 0>
  struct InverseMassInPlace
  {
    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = nc * gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_q_points   = gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_components = nc;
    using Eval                                 = gpumf::FEEvaluation<dim, degree, degree + 1, nc, Number>;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number                                        *src,
               Number                                              *dst) const
    {
      Eval phi(cell, data, shared, 0, quad);
      phi.read_dof_values(src);
      gpumf::CellwiseInverseMassMatrix<dim, degree, nc, Number> inverse(phi);
      inverse.apply();
      phi.set_dof_values(dst);
    }
  };

  /// A_K^-1 on each cell through TensorProductMatrixSymmetricSumView::apply_inverse().
  template <int dim, int degree, typename Number>
  struct TensorProductInverse
  {
    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_q_points   = gpumf::internal::ipow(degree + 1, dim);
    using Eval                                 = gpumf::FEEvaluation<dim, degree, degree + 1, 1, Number>;

    gpumf::TensorProductMatrixSymmetricSumView<dim, Number> view;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number                                        *src,
               Number                                              *dst) const
    {
      Eval phi(cell, data, shared);
      phi.read_dof_values(src);
      view.apply_inverse(phi);
      phi.distribute_local_to_global(dst);
    }
  };

  template <int dim, typename Number>
  std::shared_ptr<gpumf::MatrixFree<dim, Number>>
  make_matrix_free(const gpumf::Backend   backend,
                   const Mapping<dim>    &mapping,
                   const DoFHandler<dim> &dof,
                   const unsigned int     n_q_1d,
                   const bool             faces)
  {
    using MF = gpumf::MatrixFree<dim, Number>;
    typename MF::AdditionalData additional_data;
    additional_data.backend = backend;
    additional_data.mapping_update_flags =
      update_values | update_gradients | update_JxW_values | update_quadrature_points;
    if (faces)
      {
        additional_data.mapping_update_flags_inner_faces = update_gradients | update_JxW_values | update_normal_vectors;
        additional_data.mapping_update_flags_boundary_faces =
          update_gradients | update_JxW_values | update_normal_vectors;
      }
    AffineConstraints<Number> constraints;
    constraints.close();
    auto mf = std::make_shared<MF>();
    mf->reinit(mapping, dof, constraints, QGauss<1>(n_q_1d), additional_data);
    return mf;
  }

  template <typename Number>
  double
  bound()
  {
    return std::is_same_v<Number, double> ? 1e-11 : 1e-5;
  }

  template <int dim, int n_components>
  std::unique_ptr<FiniteElement<dim>>
  element_of(const Element element, const unsigned int degree)
  {
    std::unique_ptr<FiniteElement<dim>> fe = test::dg::make_element<dim>(element, degree);
    if (n_components == 1)
      return fe;
    return std::make_unique<FESystem<dim>>(*fe, n_components);
  }

  /// InverseMassOperator, MassOperator and the projection against deal.II, and M^-1 M x = x.
  template <int dim, int degree, int n_components = 1, typename Number = double>
  void
  check_mass(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh, const Element element)
  {
    const MPI_Comm              comm = MPI_COMM_WORLD;
    const test::dg::DGMesh<dim> made = test::dg::make_mesh<dim>(mesh, 0, comm);
    const auto                  fe   = element_of<dim, n_components>(element, degree);
    DoFHandler<dim>             dof(*made.tria);
    dof.distribute_dofs(*fe);
    const auto mf = make_matrix_free<dim, Number>(backend, *made.mapping, dof, degree + 1, false);

    gpumf::InverseMassOperator<dim, degree, n_components, Number> inverse;
    inverse.initialize(mf);
    gpumf::MassOperator<dim, degree, degree + 1, n_components, Number> mass;
    mass.initialize(mf);
    gpumf::Vector<Number> src, dst, back;
    inverse.initialize_dof_vector(src);
    inverse.initialize_dof_vector(dst);
    inverse.initialize_dof_vector(back);
    test::fill_random(src);
    test::fill_random(dst, 2); // overwritten
    inverse.vmult(dst, src);
    const std::vector<double> owned = test::owned_values(src);
    // deal.II 9.4's CellwiseInverseMassMatrix crashes for FE_DGQLegendre (no inverse shape
    // tables): there M^-1 M x = x with the mass matrix compared to deal.II's checks the inverse
    const bool   with_dealii_inverse = element != Element::legendre;
    const double d_inverse =
      with_dealii_inverse ?
        test::relative_difference(
          dst, test::dealii_apply(test::DealiiOperator::inverse_mass, *made.mapping, dof, degree + 1, owned), comm) :
        0.;
    mass.vmult(dst, src);
    const double d_mass =
      test::relative_difference(dst,
                                test::dealii_apply(test::DealiiOperator::mass, *made.mapping, dof, degree + 1, owned),
                                comm);
    inverse.vmult(back, dst);
    const double d_back = test::relative_difference(back, owned, comm);

    // in place: M^-1 x written over x, against the operator into another vector
    gpumf::Vector<Number> in_place(src);
    mf->cell_loop(InverseMassInPlace<dim, degree, n_components, Number>(), in_place, in_place);
    inverse.vmult(back, src);
    const bool same_in_place = test::bitwise_equal(test::to_rw(in_place), test::to_rw(back), comm) &&
                               !in_place.has_ghost_elements() && in_place.l2_norm() > 0;

    dst = Number(0);
    mf->cell_loop(Projection<dim, degree, n_components, Number>(), src, dst);
    const double d_project =
      with_dealii_inverse ? test::relative_difference(dst, test::dealii_project(*made.mapping, dof), comm) : 0.;

    const double b = bound<Number>();
    checker.check(d_inverse <= b && d_mass <= b && d_back <= 10 * b && d_project <= b && same_in_place,
                  std::to_string(dim) + "D " + name(mesh) + " " + name(element) + "(" + std::to_string(degree) + ")" +
                    (n_components > 1 ? "^" + std::to_string(n_components) : "") +
                    (std::is_same_v<Number, float> ? " float" : "") + ", " +
                    std::to_string(made.tria->n_global_active_cells()) + " cells: " +
                    (with_dealii_inverse ? "inverse mass vs deal.II " + test::sci(d_inverse) + ", projection " +
                                             test::sci(d_project) + ", " :
                                           "(deal.II's inverse crashes for this element) ") +
                    "mass " + test::sci(d_mass) + " (<= " + test::sci(b) + "); M^-1 M x - x " + test::sci(d_back) +
                    " (<= " + test::sci(10 * b) + "); in place (cell_loop(f, x, x), set_dof_values()) " +
                    (same_in_place ? "bitwise the operator's" : "DIFFERS from the operator's"));
  }

  /// The diagonals of SIPG (cells and faces), of the inverse mass and of the mass against
  /// deal.II's operators on every unit vector.
  template <int dim, int degree, typename Number = double>
  void
  check_diagonals(test::Checker       &checker,
                  const gpumf::Backend backend,
                  const Mesh           mesh,
                  const Element        element,
                  const unsigned int   variant = 0)
  {
    const MPI_Comm              comm = MPI_COMM_WORLD;
    const test::dg::DGMesh<dim> made = test::dg::make_mesh<dim>(mesh, variant, comm);
    const auto                  fe   = test::dg::make_element<dim>(element, degree);
    DoFHandler<dim>             dof(*made.tria);
    dof.distribute_dofs(*fe);
    const auto mf = make_matrix_free<dim, Number>(backend, *made.mapping, dof, degree + 1, true);

    gpumf::SIPGLaplaceOperator<dim, degree, degree + 1, Number> sipg;
    sipg.initialize(mf, {0});
    sipg.compute_diagonal();
    const double d_sipg =
      test::relative_difference(sipg.get_matrix_diagonal()->get_vector(),
                                test::dealii_diagonal(test::DealiiOperator::sipg, *made.mapping, dof, degree + 1),
                                comm);
    gpumf::InverseMassOperator<dim, degree, 1, Number> inverse;
    inverse.initialize(mf);
    inverse.compute_diagonal();
    AssertThrow(element != Element::legendre, ExcNotImplemented()); // deal.II's inverse crashes for it
    const double d_inverse = test::relative_difference(
      inverse.get_matrix_diagonal()->get_vector(),
      test::dealii_diagonal(test::DealiiOperator::inverse_mass, *made.mapping, dof, degree + 1),
      comm);
    gpumf::MassOperator<dim, degree, degree + 1, 1, Number> mass;
    mass.initialize(mf);
    mass.compute_diagonal();
    const double d_mass =
      test::relative_difference(mass.get_matrix_diagonal()->get_vector(),
                                test::dealii_diagonal(test::DealiiOperator::mass, *made.mapping, dof, degree + 1),
                                comm);
    // the inverse of the SIPG diagonal, for Jacobi smoothers
    const auto inv_rw  = test::to_rw(sipg.get_matrix_diagonal_inverse()->get_vector());
    const auto diag_rw = test::to_rw(sipg.get_matrix_diagonal()->get_vector());
    double     product = 0;
    for (const auto i : diag_rw.get_stored_elements())
      product = test::max_or_inf(product, double(std::abs(inv_rw(i) * diag_rw(i) - Number(1))));
    product = Utilities::MPI::max(product, comm);

    const double b = bound<Number>();
    checker.check(d_sipg <= b && d_inverse <= b && d_mass <= b && product <= b,
                  std::to_string(dim) + "D " + name(mesh) +
                    (mesh == Mesh::rotated ? " " + std::to_string(variant) : "") + " " + name(element) + "(" +
                    std::to_string(degree) + ")" + (std::is_same_v<Number, float> ? " float" : "") + ", " +
                    std::to_string(dof.n_dofs()) + " DoFs: diagonals vs deal.II's columns: SIPG " + test::sci(d_sipg) +
                    ", inverse mass " + test::sci(d_inverse) + ", mass " + test::sci(d_mass) + " (<= " + test::sci(b) +
                    "); |D^-1 D - 1| " + test::sci(product));
  }

  /// TensorProductMatrixSymmetricSumCollection (fast diagonalization, one matrix per cell, a
  /// few distinct pairs) against deal.II's TensorProductMatrixSymmetricSum on every cell.
  template <int dim, int degree, typename Number = double>
  void
  check_tensor_product(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh)
  {
    const MPI_Comm              comm = MPI_COMM_WORLD;
    const test::dg::DGMesh<dim> made = test::dg::make_mesh<dim>(mesh, 0, comm);
    DoFHandler<dim>             dof(*made.tria);
    dof.distribute_dofs(FE_DGQ<dim>(degree));
    const auto mf = make_matrix_free<dim, Number>(backend, *made.mapping, dof, degree + 1, false);

    gpumf::TensorProductMatrixSymmetricSumCollection<dim, Number> collection;
    collection.reinit(backend, mf->n_cells());
    for (unsigned int c = 0; c < mf->n_cells(); ++c)
      {
        std::array<FullMatrix<Number>, dim> mass, derivative;
        for (unsigned int d = 0; d < dim; ++d)
          {
            FullMatrix<double> m, k;
            test::matrices_1d(mf->get_cell_iterator(c)->id().to_string(), d, degree + 1, m, k);
            mass[d].reinit(degree + 1, degree + 1);
            derivative[d].reinit(degree + 1, degree + 1);
            mass[d].copy_from(m);
            derivative[d].copy_from(k);
          }
        collection.insert(c, mass, derivative);
      }
    collection.finalize();
    TensorProductInverse<dim, degree, Number> op;
    op.view = collection.get_view();
    gpumf::Vector<Number> src, dst;
    mf->initialize_dof_vector(src);
    mf->initialize_dof_vector(dst);
    test::fill_random(src);
    mf->cell_loop(op, src, dst, true);
    const double d =
      test::relative_difference(dst, test::dealii_tensor_product_inverse(dof, test::owned_values(src)), comm);
    // fast diagonalization loses a factor of the 1D eigenproblems' condition
    const double b = 10 * bound<Number>();
    checker.check(d <= b,
                  std::to_string(dim) + "D " + name(mesh) + " FE_DGQ(" + std::to_string(degree) + ")" +
                    (std::is_same_v<Number, float> ? " float" : "") + ", " + std::to_string(mf->n_cells()) +
                    " cells on rank 0, " + std::to_string(collection.n_pairs()) +
                    " distinct 1D pairs: tensor-product inverse vs deal.II's TensorProductMatrixSymmetricSum " +
                    test::sci(d) + " (<= " + test::sci(b) + ")");
  }

  /// step-67's pattern: one object with faces and two quadratures, Gauss(p + 2) for the faces
  /// and cells of the operator (quadrature 0, the faces') and Gauss(p + 1) for the inverse mass
  /// (quadrature 1), against an object of each quadrature alone.
  template <int dim, int degree>
  void
  check_two_quadratures(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh)
  {
    const MPI_Comm              comm = MPI_COMM_WORLD;
    const test::dg::DGMesh<dim> made = test::dg::make_mesh<dim>(mesh, 0, comm);
    DoFHandler<dim>             dof(*made.tria);
    dof.distribute_dofs(FE_DGQ<dim>(degree));
    using MF = gpumf::MatrixFree<dim, double>;
    typename MF::AdditionalData data;
    data.backend                             = backend;
    data.mapping_update_flags                = update_values | update_gradients | update_JxW_values;
    data.mapping_update_flags_inner_faces    = update_gradients | update_JxW_values | update_normal_vectors;
    data.mapping_update_flags_boundary_faces = update_gradients | update_JxW_values | update_normal_vectors;
    AffineConstraints<double> constraints;
    constraints.close();
    const auto two = std::make_shared<MF>();
    two->reinit(*made.mapping,
                std::vector<const DoFHandler<dim> *>{&dof},
                std::vector<const AffineConstraints<double> *>{&constraints},
                std::vector<QGauss<1>>{QGauss<1>(degree + 2), QGauss<1>(degree + 1)},
                data);
    const auto high = make_matrix_free<dim, double>(backend, *made.mapping, dof, degree + 2, true);
    const auto low  = make_matrix_free<dim, double>(backend, *made.mapping, dof, degree + 1, false);

    gpumf::SIPGLaplaceOperator<dim, degree, degree + 2> sipg_two, sipg_high;
    sipg_two.initialize(two, {0});
    sipg_high.initialize(high, {0});
    gpumf::Vector<double> src, dst, expected;
    two->initialize_dof_vector(src);
    two->initialize_dof_vector(dst);
    two->initialize_dof_vector(expected);
    test::fill_random(src);
    sipg_two.vmult(dst, src);
    sipg_high.vmult(expected, src);
    const bool same_faces = test::bitwise_equal(test::to_rw(dst), test::to_rw(expected), comm) && dst.l2_norm() > 0;

    gpumf::InverseMassOperator<dim, degree> inverse_low;
    inverse_low.initialize(low);
    inverse_low.vmult(expected, src);
    dst = src;
    two->cell_loop(InverseMassInPlace<dim, degree, 1, double, 1>(), dst, dst);
    const bool same_inverse = test::bitwise_equal(test::to_rw(dst), test::to_rw(expected), comm);

    std::string message;
    try
      {
        two->loop(InverseMassInPlace<dim, degree, 1, double, 1>(), nullptr, nullptr, dst, src);
      }
    catch (const std::exception &e)
      {
        message = e.what();
      }
    const bool refused = message.find("runs on quadrature 0") != std::string::npos;
    checker.check(same_faces && same_inverse && refused,
                  std::to_string(dim) + "D " + name(mesh) + " FE_DGQ(" + std::to_string(degree) +
                    "), one object with faces and quadratures Gauss(p + 2), Gauss(p + 1): SIPG (faces, quadrature "
                    "0) " +
                    (same_faces ? "bitwise" : "DIFFERS from") +
                    " the object of Gauss(p + 2), the inverse mass in "
                    "place on quadrature 1 " +
                    (same_inverse ? "bitwise" : "DIFFERS from") +
                    " the object of Gauss(p + 1)'s operator; loop() "
                    "with a functor of quadrature 1 " +
                    (refused ? "refused" : "NOT REFUSED"));
  }

  /// Misuse: the inverse mass matrix needs degree + 1 points and a discontinuous element.
  template <int dim>
  void
  check_misuse(test::Checker &checker, const gpumf::Backend backend)
  {
    const MPI_Comm comm   = MPI_COMM_WORLD;
    const auto     expect = [&](const std::string &what, const std::string &keyword, const auto &f) {
      const std::string message = test::exception_of(f);
      const std::size_t info    = message.find("Additional information: ");
      std::string       flat; // deal.II may wrap long messages
      for (const char c : message)
        if (!std::isspace(static_cast<unsigned char>(c)))
          flat += c;
        else if (!flat.empty() && flat.back() != ' ')
          flat += ' ';
      const bool found = flat.find(keyword) != std::string::npos;
      checker.check(Utilities::MPI::min(int(found), comm) == 1,
                    std::to_string(dim) + "D misuse, " + what + ": \"" +
                      message.substr(info == std::string::npos ? 0 : info + 24, 150) + "...\"");
    };
    const test::dg::DGMesh<dim> made = test::dg::make_mesh<dim>(Mesh::cube, 0, comm);
    {
      DoFHandler<dim> dof(*made.tria);
      dof.distribute_dofs(FE_DGQ<dim>(2));
      const auto mf = make_matrix_free<dim, double>(backend, *made.mapping, dof, 4, false);
      expect("inverse mass with 4 points at degree 2", "needs QGauss<1>(fe_degree + 1)", [&] {
        gpumf::InverseMassOperator<dim, 2> inverse;
        inverse.initialize(mf);
      });
      const auto mf3 = make_matrix_free<dim, double>(backend, *made.mapping, dof, 3, false);
      expect("in place with zero_dst", "would set the source to zero before it is read", [&] {
        gpumf::Vector<double> x;
        mf3->initialize_dof_vector(x);
        mf3->cell_loop(InverseMassInPlace<dim, 2, 1, double>(), x, x, true);
      });
    }
    {
      DoFHandler<dim> dof(*made.tria);
      dof.distribute_dofs(FE_Q<dim>(2));
      const auto mf = make_matrix_free<dim, double>(backend, *made.mapping, dof, 3, false);
      expect("in place with FE_Q", "share DoFs: cells would read entries other cells have already written", [&] {
        gpumf::Vector<double> x;
        mf->initialize_dof_vector(x);
        mf->cell_loop(InverseMassInPlace<dim, 2, 1, double>(), x, x);
      });
    }
    {
      DoFHandler<dim> dof(*made.tria);
      dof.distribute_dofs(FE_Q<dim>(2));
      const auto mf = make_matrix_free<dim, double>(backend, *made.mapping, dof, 3, false);
      expect("inverse mass with FE_Q", "discontinuous element", [&] {
        gpumf::InverseMassOperator<dim, 2> inverse;
        inverse.initialize(mf);
      });
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    for (const Mesh mesh : {Mesh::cube, Mesh::distorted, Mesh::shell, Mesh::adaptive_shell})
      {
        check_mass<2, 1>(checker, backend, mesh, Element::dgq);
        check_mass<2, 3>(checker, backend, mesh, Element::hermite);
        check_mass<2, 5>(checker, backend, mesh, Element::legendre);
        check_mass<3, 2>(checker, backend, mesh, Element::dgq);
        check_mass<3, 4>(checker, backend, mesh, Element::hermite);
      }
    check_mass<2, 2, 2>(checker, backend, Mesh::adaptive, Element::dgq);
    check_mass<3, 3, 2>(checker, backend, Mesh::shell, Element::hermite);
    check_mass<3, 3, 1, float>(checker, backend, Mesh::shell, Element::dgq);

    check_diagonals<2, 1>(checker, backend, Mesh::cube, Element::dgq);
    check_diagonals<2, 3>(checker, backend, Mesh::adaptive, Element::hermite);
    check_diagonals<2, 2>(checker, backend, Mesh::shell, Element::dgq);
    check_diagonals<3, 2>(checker, backend, Mesh::adaptive, Element::hermite);
    check_diagonals<3, 2>(checker, backend, Mesh::shell, Element::dgq);
    check_diagonals<3, 2, float>(checker, backend, Mesh::distorted, Element::dgq);
    // a cell that is its own neighbour across the period: both sides of its periodic faces hold the unit vector
    check_diagonals<2, 3>(checker, backend, Mesh::periodic_cell, Element::hermite);
    check_diagonals<3, 2>(checker, backend, Mesh::periodic_cell, Element::dgq);
    for (const unsigned int variant : {1u, 6u, 17u})
      check_diagonals<3, 3>(checker, backend, Mesh::rotated, Element::hermite, variant);
    check_tensor_product<2, 1>(checker, backend, Mesh::cube);
    check_tensor_product<2, 4>(checker, backend, Mesh::adaptive);
    check_tensor_product<3, 2>(checker, backend, Mesh::cube);
    check_tensor_product<3, 3>(checker, backend, Mesh::shell);
    check_tensor_product<3, 3, float>(checker, backend, Mesh::cube);
    check_two_quadratures<2, 3>(checker, backend, Mesh::adaptive_shell);
    check_two_quadratures<3, 2>(checker, backend, Mesh::shell);
    check_misuse<2>(checker, backend);
    check_misuse<3>(checker, backend);
  });
}
