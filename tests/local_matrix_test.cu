// gpumf::LocalMatrixOperator against the tensor-product operators: the same bilinear forms
// applied through element matrices (shared, per cell, or computed on the fly from affine or
// per-point geometry; thread-, warp- or block-per-element kernel) and through sum factorization
// must agree, and so must their diagonals. On the fly: Helmholtz with constant coefficients too,
// and a form it cannot compute (coefficients varying in space) refused. Storage is detected (shared on the uniform box
// without coefficients, per cell on the curved shell); a user's non-symmetric form checks Tvmult: (A^T x, y) = (x, A
// y).
//
//   local_matrix_test host|cuda     (cuda: skipped without a GPU)
#include <gpumf/local_matrix_operator.h>
#include <gpumf/operators.h>

#include <deal.II/fe/fe_q.h>

#include "coefficient.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  template <int dim, int degree>
  void
  check(test::Checker &checker, const gpumf::Backend backend, const test::MeshKind mesh)
  {
    using LM                                       = gpumf::LocalMatrixOperator<dim, double>;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, mesh);
    const auto      mapping = test::make_mapping<dim>(mesh);
    const FE_Q<dim> fe(degree);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    test::make_constraints(*mapping, dof, constraints);
    const QGauss<1>        quad(degree + 2);
    const test::Kappa<dim> kappa;
    const std::string name = std::to_string(dim) + "d degree " + std::to_string(degree) + " " + test::to_string(mesh);
    const double      tolerance = 1e-12;

    gpumf::Vector<double> x, y, z;
    // Laplace without coefficient: shared matrix on the box
    {
      typename gpumf::LaplaceOperator<dim, degree, degree + 2>::AdditionalData data;
      data.backend        = backend;
      data.implementation = gpumf::Implementation::tensor_product;
      gpumf::LaplaceOperator<dim, degree, degree + 2> tp;
      tp.reinit(*mapping, dof, constraints, quad, data);
      tp.compute_diagonal();
      tp.initialize_dof_vector(x);
      tp.initialize_dof_vector(y);
      tp.initialize_dof_vector(z);
      test::fill_random(x);
      tp.vmult(y, x);
      using GeometryStorage = typename gpumf::MatrixFree<dim, double>::GeometryStorage;
      for (const auto kernel :
           {LM::Kernel::thread_per_element, LM::Kernel::warp_per_element, LM::Kernel::block_per_element})
        for (const auto storage : {LM::Storage::automatic, LM::Storage::per_cell, LM::Storage::on_the_fly})
          for (const auto geometry : {GeometryStorage::automatic, GeometryStorage::per_point})
            {
              if (kernel == LM::Kernel::thread_per_element && fe.n_dofs_per_cell() > 64)
                continue;
              // stored matrices do not depend on the geometry storage; on the fly: affine and
              // per point on the box, per point on the shell
              if (geometry == GeometryStorage::per_point &&
                  (storage != LM::Storage::on_the_fly || mesh != test::MeshKind::cartesian))
                continue;
              typename LM::AdditionalData lm_data;
              lm_data.matrix_free              = data;
              lm_data.matrix_free.use_coloring = storage != LM::Storage::automatic;
              lm_data.matrix_free.geometry     = geometry;
              lm_data.kernel                   = kernel;
              lm_data.storage                  = storage;
              LM lm;
              lm.reinit(*mapping, dof, constraints, quad, LM::laplace(), lm_data);
              const bool        shared  = lm.storage() == LM::Storage::shared;
              const std::string how     = storage == LM::Storage::on_the_fly ?
                                            std::string("on-the-fly (") +
                                          (lm.matrix_free().has_affine_geometry() ? "affine" : "per-point") +
                                          " geometry)" :
                                          shared ? "shared" :
                                                   "per-cell";
              const std::string variant = name + " laplace " + how + " matrix, " +
                                          (kernel == LM::Kernel::thread_per_element ? "thread" :
                                           kernel == LM::Kernel::warp_per_element   ? "warp" :
                                                                                      "block") +
                                          " per element, " +
                                          (lm_data.matrix_free.use_coloring ? "coloring" : "atomics");
              if (storage == LM::Storage::automatic)
                checker.check(shared == (mesh == test::MeshKind::cartesian),
                              variant + ": storage detected (" + (shared ? "shared" : "per cell") + ")");
              lm.vmult(z, x);
              checker.check_below(test::relative_difference(test::to_rw(z), test::to_rw(y), comm),
                                  tolerance,
                                  variant + " vs tensor product");
              lm.compute_diagonal();
              checker.check_below(test::relative_difference(test::to_rw(lm.get_matrix_diagonal_inverse()->get_vector()),
                                                            test::to_rw(tp.get_matrix_diagonal_inverse()->get_vector()),
                                                            comm),
                                  tolerance,
                                  variant + ": diagonal vs tensor product");
            }
    }
    // Helmholtz with constant coefficients on the fly: kappa = 2, a = 3
    {
      typename gpumf::HelmholtzOperator<dim, degree, degree + 2>::AdditionalData data;
      data.backend        = backend;
      data.implementation = gpumf::Implementation::tensor_product;
      gpumf::HelmholtzOperator<dim, degree, degree + 2> tp;
      tp.reinit(*mapping, dof, constraints, quad, data);
      const Functions::ConstantFunction<dim> two(2.), three(3.);
      tp.set_gradient_coefficient(two);
      tp.set_value_coefficient(three);
      tp.vmult(y, x);
      typename LM::AdditionalData lm_data;
      lm_data.matrix_free         = data;
      lm_data.storage             = LM::Storage::on_the_fly;
      lm_data.laplace_coefficient = 2.;
      lm_data.mass_coefficient    = 3.;
      LM lm;
      lm.reinit(*mapping, dof, constraints, quad, LM::helmholtz(&two, &three), lm_data);
      lm.vmult(z, x);
      checker.check_below(test::relative_difference(test::to_rw(z), test::to_rw(y), comm),
                          tolerance,
                          name + " helmholtz (2 grad u, grad v) + (3 u, v) on the fly vs tensor product");
      lm_data.mass_coefficient  = 1.;
      const std::string message = test::exception_of(
        [&] { LM().reinit(*mapping, dof, constraints, quad, LM::helmholtz(&two, &three), lm_data); });
      checker.check(message.find("differ") != std::string::npos,
                    name +
                      " on the fly with other coefficients than the callback's refused: " + message.substr(0, 100));
    }
    // Helmholtz with kappa(x) and a(x): per cell
    {
      typename gpumf::HelmholtzOperator<dim, degree, degree + 2>::AdditionalData data;
      data.backend        = backend;
      data.implementation = gpumf::Implementation::tensor_product;
      gpumf::HelmholtzOperator<dim, degree, degree + 2> tp;
      tp.reinit(*mapping, dof, constraints, quad, data);
      tp.set_gradient_coefficient(kappa);
      const test::ValueCoefficient<dim> a;
      tp.set_value_coefficient(a);
      tp.vmult(y, x);
      tp.compute_diagonal();

      // the ready-made operator on element matrices: the same results
      data.implementation = gpumf::Implementation::local_matrix;
      gpumf::HelmholtzOperator<dim, degree, degree + 2> on_matrices;
      on_matrices.reinit(*mapping, dof, constraints, quad, data);
      on_matrices.set_gradient_coefficient(kappa);
      on_matrices.set_value_coefficient(a);
      on_matrices.vmult(z, x);
      on_matrices.compute_diagonal();
      checker.check(on_matrices.implementation() == gpumf::Implementation::local_matrix,
                    name + " HelmholtzOperator, implementation local_matrix: in use");
      checker.check_below(test::relative_difference(test::to_rw(z), test::to_rw(y), comm),
                          tolerance,
                          name + " HelmholtzOperator on element matrices vs sum factorization");
      checker.check_below(test::relative_difference(test::to_rw(on_matrices.get_matrix_diagonal()->get_vector()),
                                                    test::to_rw(tp.get_matrix_diagonal()->get_vector()),
                                                    comm),
                          tolerance,
                          name + " HelmholtzOperator on element matrices: diagonal vs sum factorization");

      // automatic choice by the cost model: element matrices for trilinear elements,
      // sum factorization for degree 3 with coefficients in 3D
      data.implementation = gpumf::Implementation::automatic;
      gpumf::HelmholtzOperator<dim, degree, degree + 2> automatic;
      automatic.reinit(*mapping, dof, constraints, quad, data);
      automatic.set_gradient_coefficient(kappa);
      automatic.set_value_coefficient(a);
      automatic.vmult(z, x);
      checker.check_below(test::relative_difference(test::to_rw(z), test::to_rw(y), comm),
                          tolerance,
                          name + " HelmholtzOperator, automatic implementation: same result");
      if (degree == 1 || (dim == 3 && degree == 3))
        {
          const auto expected =
            degree == 1 ? gpumf::Implementation::local_matrix : gpumf::Implementation::tensor_product;
          checker.check(automatic.implementation() == expected,
                        name + " HelmholtzOperator with coefficients, automatic: " +
                          (automatic.implementation() == gpumf::Implementation::local_matrix ? "local matrix" :
                                                                                               "tensor product"));
        }

      typename LM::AdditionalData lm_data;
      lm_data.matrix_free = data;
      LM lm;
      lm.reinit(*mapping, dof, constraints, quad, LM::helmholtz(&kappa, &a), lm_data);
      lm.vmult(z, x);
      checker.check(lm.storage() == LM::Storage::per_cell, name + " helmholtz with coefficients: per-cell storage");
      checker.check_below(test::relative_difference(test::to_rw(z), test::to_rw(y), comm),
                          tolerance,
                          name + " helmholtz with coefficients: local matrix vs tensor product");
      if (mesh == test::MeshKind::curved)
        {
          bool thrown = false;
          try
            {
              lm_data.storage = LM::Storage::shared;
              LM forced;
              forced.reinit(*mapping, dof, constraints, quad, LM::helmholtz(&kappa, &a), lm_data);
            }
          catch (const gpumf::ExcNotSupported &)
            {
              thrown = true;
            }
          checker.check(thrown, name + ": Storage::shared with differing element matrices throws");
        }
    }
    // a non-symmetric user form (b . grad u, v) + (u, v): Tvmult is the adjoint
    {
      typename LM::AdditionalData lm_data;
      lm_data.matrix_free.backend = backend;
      LM lm;
      lm.reinit(
        *mapping,
        dof,
        constraints,
        quad,
        [](const typename LM::cell_iterator &, const FEValues<dim> &fe_values, FullMatrix<double> &matrix) {
          Tensor<1, dim> b;
          for (unsigned int d = 0; d < dim; ++d)
            b[d] = 1. + d;
          for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
            for (unsigned int i = 0; i < matrix.m(); ++i)
              for (unsigned int j = 0; j < matrix.n(); ++j)
                matrix(i, j) += (b * fe_values.shape_grad(j, q) + fe_values.shape_value(j, q)) *
                                fe_values.shape_value(i, q) * fe_values.JxW(q);
        },
        lm_data);
      gpumf::Vector<double> w;
      lm.initialize_dof_vector(w);
      test::fill_random(w, 2);
      lm.vmult(y, x);
      lm.Tvmult(z, w);
      const double wAx = w * y, ATwx = z * x;
      checker.check_below(std::abs(wAx - ATwx) / std::abs(wAx), 1e-13, name + " advection form: (A^T w, x) = (w, A x)");
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    for (const auto mesh : {test::MeshKind::cartesian, test::MeshKind::curved})
      {
        check<2, 1>(checker, backend, mesh);
        check<2, 3>(checker, backend, mesh);
        check<3, 1>(checker, backend, mesh);
        check<3, 2>(checker, backend, mesh);
        check<3, 3>(checker, backend, mesh);
      }
  });
}
