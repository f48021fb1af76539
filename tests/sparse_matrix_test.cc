// gpumf::SparseMatrix (the assembled-matrix baseline) against deal.II's SparseMatrix:
// kernel: vmult of random non-symmetric matrices with the sparsity of FE_Q meshes (2D and 3D,
// degrees 1 and 3, double and float, 32- and 64-bit indices) against deal.II's vmult in double;
// solver: deal.II's SolverCG with Jacobi on gpumf vectors against the same solve on deal.II's
// vectors; bad input: the exceptions. `sparse_matrix_test host|cuda` (cuda: cuSPARSE).
#include <gpumf/sparse_matrix.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>

#include <limits>

#include "common/dealii_reference.h"
#include "common/test_utils.h"

namespace
{
  using namespace dealii;

  /// The sparsity of FE_Q(degree) on the test's Cartesian mesh with zero Dirichlet constraints.
  template <int dim>
  struct Mesh
  {
    parallel::distributed::Triangulation<dim> tria{MPI_COMM_SELF};
    std::unique_ptr<Mapping<dim>>             mapping = test::make_mapping<dim>(test::MeshKind::cartesian);
    DoFHandler<dim>                           dof{tria};
    AffineConstraints<double>                 constraints;
    SparsityPattern                           pattern;

    explicit Mesh(const unsigned int degree)
    {
      test::make_mesh(tria, test::MeshKind::cartesian);
      dof.distribute_dofs(FE_Q<dim>(degree));
      test::make_constraints(*mapping, dof, constraints);
      DynamicSparsityPattern dsp(dof.n_dofs());
      DoFTools::make_sparsity_pattern(dof, dsp, constraints, false);
      pattern.copy_from(dsp);
    }
  };

  template <typename Number>
  gpumf::Vector<Number>
  vector_of(const dealii::Vector<double> &v, const gpumf::Backend backend)
  {
    gpumf::Vector<Number>                  result(std::make_shared<Utilities::MPI::Partitioner>(v.size()), backend);
    LinearAlgebra::ReadWriteVector<Number> rw(result.locally_owned_elements());
    for (unsigned int i = 0; i < v.size(); ++i)
      rw(i) = v(i);
    result.import(rw, VectorOperation::insert);
    return result;
  }

  /// max_i |a_i - b_i| / max_i |b_i|
  template <typename Number>
  double
  difference(const gpumf::Vector<Number> &a, const dealii::Vector<double> &b)
  {
    const auto rw   = test::to_rw(a);
    double     diff = 0, size = 0;
    for (unsigned int i = 0; i < b.size(); ++i)
      diff = test::max_or_inf(diff, std::abs(double(rw(i)) - b(i))), size = std::max(size, std::abs(b(i)));
    return diff / size;
  }

  template <typename Number, int dim>
  void
  check_vmult(test::Checker                                         &checker,
              const gpumf::Backend                                   backend,
              const unsigned int                                     degree,
              const typename gpumf::SparseMatrix<Number>::IndexWidth width)
  {
    Mesh<dim>            mesh(degree);
    SparseMatrix<Number> matrix(mesh.pattern);
    SparseMatrix<double> exact(mesh.pattern); // the same (rounded) entries, applied in double
    std::uint64_t        k = 0;
    for (unsigned int i = 0; i < matrix.m(); ++i)
      for (auto it = matrix.begin(i); it != matrix.end(i); ++it, ++k)
        {
          it->value() = Number(test::random_value(k, 7));
          exact.set(i, it->column(), double(it->value()));
        }
    dealii::Vector<double> x(matrix.m()), y(matrix.m());
    for (unsigned int i = 0; i < x.size(); ++i)
      x(i) = double(Number(test::random_value(i, 3)));
    exact.vmult(y, x);

    gpumf::SparseMatrix<Number> A;
    A.reinit(matrix, backend, width);
    auto src = vector_of<Number>(x, backend), dst = vector_of<Number>(x, backend);
    A.vmult(dst, src);
    const bool        wide = width == gpumf::SparseMatrix<Number>::IndexWidth::bits64;
    const double      ulps = 300. * std::numeric_limits<Number>::epsilon();
    const std::string name = std::to_string(dim) + "d degree " + std::to_string(degree) + " " +
                             (std::is_same_v<Number, double> ? "double" : "float") + (wide ? " 64-bit" : " 32-bit") +
                             " indices (" + std::to_string(A.m()) + " rows, " + std::to_string(A.n_nonzero_elements()) +
                             " nonzeros)";
    checker.check_below(difference(dst, y), ulps, "vmult " + name + " vs deal.II");
    const std::size_t index = wide ? 8 : 4;
    checker.check(A.n_nonzero_elements() == matrix.n_nonzero_elements() && A.m() == matrix.m() &&
                    A.memory_consumption() >= A.n_nonzero_elements() * (sizeof(Number) + index) &&
                    gpumf::SparseMatrix<Number>::memory_needed(A.m(), A.n_nonzero_elements(), width) ==
                      A.n_nonzero_elements() * (sizeof(Number) + index) + (A.m() + 1) * index,
                  "sizes and bytes " + name);
  }

  /// CG with Jacobi on the Laplace matrix: gpumf vectors and matrix vs deal.II's.
  template <int dim>
  void
  check_cg(test::Checker &checker, const gpumf::Backend backend)
  {
    Mesh<dim>            mesh(2);
    SparsityPattern      pattern;
    SparseMatrix<double> matrix;
    test::assemble_laplace_matrix(
      *mesh.mapping, mesh.dof, numbers::invalid_unsigned_int, mesh.constraints, 3, pattern, matrix);
    dealii::Vector<double> b(matrix.m()), inverse_diagonal(matrix.m()), x(matrix.m());
    for (unsigned int i = 0; i < b.size(); ++i)
      b(i) = mesh.constraints.is_constrained(i) ? 0. : test::random_value(i, 5);
    for (unsigned int i = 0; i < b.size(); ++i)
      inverse_diagonal(i) = 1. / matrix.diag_element(i);
    DiagonalMatrix<dealii::Vector<double>> jacobi(inverse_diagonal);
    SolverControl                          control(500, 1e-10 * b.l2_norm());
    SolverCG<dealii::Vector<double>>(control).solve(matrix, x, b, jacobi);

    gpumf::SparseMatrix<double> A;
    A.reinit(matrix, backend);
    auto                                  gb = vector_of<double>(b, backend), gx = vector_of<double>(b, backend);
    DiagonalMatrix<gpumf::Vector<double>> gjacobi(vector_of<double>(inverse_diagonal, backend));
    gx = 0.;
    SolverControl gcontrol(500, 1e-10 * b.l2_norm());
    SolverCG<gpumf::Vector<double>>(gcontrol).solve(A, gx, gb, gjacobi);
    const std::string name = "SolverCG + Jacobi, " + std::to_string(dim) + "d Laplace Q2 (" +
                             std::to_string(gcontrol.last_step()) + " iterations, deal.II " +
                             std::to_string(control.last_step()) + ")";
    checker.check(std::abs(int(gcontrol.last_step()) - int(control.last_step())) <= 1, name + ": iterations");
    checker.check_below(difference(gx, x), 1e-8, name + ": solution vs deal.II");
  }

  void
  check_errors(test::Checker &checker, const gpumf::Backend backend)
  {
    SparsityPattern rectangular(3, 4, 2);
    rectangular.add(0, 1);
    rectangular.compress();
    SparseMatrix<double>        r(rectangular);
    gpumf::SparseMatrix<double> A;
    checker.check(test::exception_of([&] { A.reinit(r, backend); }).find("square") != std::string::npos,
                  "a rectangular matrix throws ExcNotSupported (square matrices only)");
    Mesh<2>              mesh(1);
    SparseMatrix<double> matrix(mesh.pattern);
    A.reinit(matrix, backend);
    gpumf::Vector<double> small(std::make_shared<Utilities::MPI::Partitioner>(matrix.m() - 1), backend), x, y;
    x.reinit(std::make_shared<Utilities::MPI::Partitioner>(matrix.m()), backend);
    y.reinit(x);
    checker.check(test::exception_of([&] { A.vmult(y, small); }).find("serial vectors") != std::string::npos,
                  "vmult with a vector of another size throws ExcNotSupported");
    if (backend == gpumf::Backend::cuda)
      {
        // a matrix of 2e7 nonzeros (240 MB), then the GPU filled in chunks of 64 MiB until no
        // chunk fits: reinit refuses with the bytes needed, and works again once they are freed
        const unsigned int rows = 200000, per_row = 100;
        SparsityPattern    big_pattern(rows, rows, per_row);
        for (unsigned int i = 0; i < rows; ++i)
          for (unsigned int k = 0; k < per_row; ++k)
            big_pattern.add(i, (std::size_t(i) * 7919 + std::size_t(k) * 104729) % rows);
        big_pattern.compress();
        SparseMatrix<double> big(big_pattern);
        const std::size_t    needed = gpumf::SparseMatrix<double>::memory_needed(rows, big.n_nonzero_elements());
        std::vector<gpumf::internal::Array<char>> ballast;
        try
          {
            for (;;)
              {
                ballast.emplace_back();
                ballast.back().reinit(gpumf::Backend::cuda, std::size_t(64) << 20);
              }
          }
        catch (const std::exception &)
          {}
        gpumf::SparseMatrix<double> B;
        const std::string           message = test::exception_of([&] { B.reinit(big, backend); });
        checker.check(message.find("needs " + std::to_string(needed) + " bytes of GPU memory") != std::string::npos,
                      "a matrix the GPU cannot hold throws ExcMatrixDoesNotFit with the bytes needed (" +
                        std::to_string(needed) + ")");
        ballast.clear();
        B.reinit(big, backend);
        checker.check(B.n_nonzero_elements() == big.n_nonzero_elements(), "reinit works again after the refusal");
        gpumf::Vector<double> host_x(std::make_shared<Utilities::MPI::Partitioner>(matrix.m()), gpumf::Backend::host);
        checker.check(test::exception_of([&] { A.vmult(y, host_x); }).find("host backend") != std::string::npos,
                      "vmult with a host vector on the cuda matrix throws ExcVectorMismatch");
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    using Width  = gpumf::SparseMatrix<double>::IndexWidth;
    using WidthF = gpumf::SparseMatrix<float>::IndexWidth;
    for (const unsigned int degree : {1u, 3u})
      {
        check_vmult<double, 2>(checker, backend, degree, Width::automatic);
        check_vmult<double, 3>(checker, backend, degree, Width::automatic);
        check_vmult<float, 3>(checker, backend, degree, WidthF::automatic);
      }
    check_vmult<double, 3>(checker, backend, 2, Width::bits64);
    check_vmult<float, 3>(checker, backend, 2, WidthF::bits64);
    check_cg<2>(checker, backend);
    check_cg<3>(checker, backend);
    check_errors(checker, backend);
  });
}
