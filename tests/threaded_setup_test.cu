// Set-up in threads: gpumf's set-up (MatrixFree::reinit, the operators' diagonal,
// MGTransferMatrixFree::build) runs in deal.II's threads; with several threads it must build
// the same objects as with one.
//
// For dim 2 and 3, FE_Q(2), on (a) a cube with a refined corner (hanging nodes, refinement
// edges; affine cells, Cartesian coloring on the levels, graph coloring on the active cells) and
// (b) a shell with MappingQ(3) and a refined half (per-point geometry, graph coloring), the
// objects are built three times, with 1, 2 and 4 threads (MultithreadInfo::set_thread_limit):
//   - 1 vs 4 and 2 vs 4 threads: everything bitwise equal: DoF codes, colors and cell order, which
//     cells have constraint rows, the geometry (host backend: the arrays of MatrixFree::Data; both
//     backends: quadrature points), vmult and diagonals (cells colored, so that the GPU result is
//     reproducible), the transfer (prolongate, restrict_and_add, copy_to_mg, copy_from_mg). The
//     geometry comes from each cell's mapping support points alone (MappingQ), whatever thread
//     computed its neighbours.
//
//   threaded_setup_test host|cuda     (cuda: skipped without a GPU)
#include <gpumf/mg_transfer.h>
#include <gpumf/operators.h>

#include <deal.II/base/multithread_info.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include "common/mg_setup.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  constexpr unsigned int degree = 2;

  template <int dim>
  using Tria = parallel::distributed::Triangulation<dim>;

  /// Everything a step-37-like program sets up with gpumf on one mesh.
  template <int dim>
  struct Setup
  {
    using Operator      = gpumf::LaplaceOperator<dim, degree, degree + 1, 1, double>;
    using LevelOperator = gpumf::LaplaceOperator<dim, degree, degree + 1, 1, float>;

    Operator                                                 op;
    MGLevelObject<LevelOperator>                             levels;
    std::unique_ptr<gpumf::MGTransferMatrixFree<dim, float>> transfer;

    Setup(const Mapping<dim>              &mapping,
          const DoFHandler<dim>           &dof,
          const AffineConstraints<double> &constraints,
          const MGConstrainedDoFs         &mg_constrained_dofs,
          const gpumf::Backend             backend,
          const unsigned int               threads)
    {
      MultithreadInfo::set_thread_limit(threads);
      typename Operator::AdditionalData data;
      data.backend      = backend;
      data.use_coloring = true;
      op.reinit(mapping, dof, constraints, QGauss<1>(degree + 1), data);
      op.compute_diagonal();
      test::make_level_operators<dim, degree>(mapping, dof, mg_constrained_dofs, backend, true, levels);
      transfer = std::make_unique<gpumf::MGTransferMatrixFree<dim, float>>(mg_constrained_dofs);
      transfer->build(dof, test::partitioners(levels), backend);
      MultithreadInfo::set_thread_limit(1);
    }
  };

  template <typename T>
  bool
  same_bytes(const T *a, const T *b, const std::size_t n)
  {
    return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
  }

  /// Largest difference of a and b relative to the largest |b| (0 for empty arrays).
  template <typename T>
  double
  relative_difference(const T *a, const T *b, const std::size_t n)
  {
    double diff = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i)
      {
        diff  = test::max_or_inf(diff, double(std::abs(a[i] - b[i])));
        scale = std::max(scale, double(std::abs(b[i])));
      }
    return scale == 0 ? diff : diff / scale;
  }

  /// Host backend: the arrays behind two MatrixFree objects; true when the integer data are
  /// bitwise equal and the geometry (quadrature points, JxW, inverse Jacobians) is equal to
  /// @p tolerance relative (0: bitwise).
  template <int dim, typename Number>
  bool
  same_arrays(const gpumf::MatrixFree<dim, Number> &a, const gpumf::MatrixFree<dim, Number> &b, const double tolerance)
  {
    if (a.n_colors() != b.n_colors() || a.n_cells() != b.n_cells() ||
        a.has_affine_geometry() != b.has_affine_geometry())
      return false;
    if (a.n_colors() == 0)
      return true;
    const auto        da = a.get_data(0), db = b.get_data(0);
    const std::size_t n_cells = a.n_cells(), n_q = a.n_q_points();
    const std::size_t dofs     = std::size_t(a.n_components()) * Utilities::pow(da.n_dofs_1d, dim);
    const std::size_t geometry = a.has_affine_geometry() ? n_cells : n_cells * n_q;
    bool              same     = da.jacobian_stride == db.jacobian_stride &&
                same_bytes(da.local_to_global, db.local_to_global, n_cells * dofs) &&
                same_bytes(da.cell_has_constraint_rows, db.cell_has_constraint_rows, n_cells);
    for (unsigned int color = 0; color < a.n_colors(); ++color)
      {
        const auto ca = a.get_data(color), cb = b.get_data(color);
        same = same && ca.row_start == cb.row_start && ca.n_cells == cb.n_cells &&
               ca.has_constraint_rows == cb.has_constraint_rows;
      }
    if (!same)
      return false;
    if (tolerance == 0)
      return same_bytes(da.q_points, db.q_points, n_cells * n_q) && same_bytes(da.JxW, db.JxW, geometry) &&
             same_bytes(da.inv_jacobian, db.inv_jacobian, dim * dim * std::size_t(da.jacobian_stride));
    const Number *pa = &da.q_points[0][0], *pb = &db.q_points[0][0];
    return relative_difference(pa, pb, dim * n_cells * n_q) <= tolerance &&
           relative_difference(da.JxW, db.JxW, geometry) <= tolerance &&
           relative_difference(da.inv_jacobian, db.inv_jacobian, dim * dim * std::size_t(da.jacobian_stride)) <=
             tolerance;
  }

  /// a and b bitwise equal (tolerance 0) or equal to @p tolerance relative.
  template <typename Number>
  bool
  same_vectors(const gpumf::Vector<Number> &a, const gpumf::Vector<Number> &b, const double tolerance = 0)
  {
    if (tolerance == 0)
      return test::bitwise_equal(test::to_rw(a), test::to_rw(b), a.get_mpi_communicator());
    return test::relative_difference(test::to_rw(a), test::to_rw(b), a.get_mpi_communicator()) <= tolerance;
  }

  /// The diagonal of an operator.
  template <typename Operator>
  const auto &
  diagonal(const Operator &op)
  {
    return op.get_matrix_diagonal()->get_vector();
  }

  /// @p many built with several threads compared with @p other, built with 1 or with several
  /// threads (@p exact: the quadrature points compared as bytes; else as numbers, equal).
  template <int dim>
  void
  compare(test::Checker         &checker,
          const std::string     &name,
          const DoFHandler<dim> &dof,
          const Setup<dim>      &other,
          const Setup<dim>      &many,
          const gpumf::Backend   backend,
          const bool             exact)
  {
    // the geometry comes from each cell's mapping support points alone (MappingQ): bitwise with
    // any number of threads, and so are the operators built on it (cells colored)
    const double      geometry_double = 0, geometry_float = 0, op_double = 0, op_float = 0;
    const std::string how = " (bitwise)";
    // active cells
    const auto &mf_other = other.op.matrix_free(), &mf_many = many.op.matrix_free();
    checker.check(mf_other.get_colored_graph() == mf_many.get_colored_graph() &&
                    mf_other.conflict_strategy() == mf_many.conflict_strategy(),
                  name + "same colors, cells in the same order (" + std::to_string(mf_other.n_colors()) + " colors)");
    const auto points_other = mf_other.get_quadrature_points(), points_many = mf_many.get_quadrature_points();
    checker.check(points_other.size() == points_many.size() &&
                    (exact ? same_bytes(points_other.data(), points_many.data(), points_other.size()) :
                             relative_difference(&points_other[0][0], &points_many[0][0], dim * points_other.size()) <=
                               geometry_double),
                  name + "same quadrature points" + how);
    if (backend == gpumf::Backend::host)
      checker.check(same_arrays(mf_other, mf_many, geometry_double),
                    name + "same DoF codes and geometry arrays, active cells" + how);
    gpumf::Vector<double> x, y_other, y_many;
    other.op.initialize_dof_vector(x);
    other.op.initialize_dof_vector(y_other);
    many.op.initialize_dof_vector(y_many);
    test::fill_random(x, 3);
    other.op.vmult(y_other, x);
    many.op.vmult(y_many, x);
    checker.check(same_vectors(y_other, y_many, op_double) &&
                    same_vectors(diagonal(other.op), diagonal(many.op), op_double),
                  name + "same vmult and diagonal, active cells" + how);

    // levels and transfer
    bool               same_levels = true, same_level_arrays = true, same_prolongation = true, same_restriction = true;
    const unsigned int n_levels = dof.get_triangulation().n_global_levels();
    for (unsigned int level = 0; level < n_levels; ++level)
      {
        const auto &a = *other.levels[level].get_matrix_free(), &b = *many.levels[level].get_matrix_free();
        same_levels = same_levels && a.get_colored_graph() == b.get_colored_graph();
        if (backend == gpumf::Backend::host)
          same_level_arrays = same_level_arrays && same_arrays(a, b, geometry_float);
        gpumf::Vector<float> u, v_other, v_many;
        other.levels[level].initialize_dof_vector(u);
        other.levels[level].initialize_dof_vector(v_other);
        many.levels[level].initialize_dof_vector(v_many);
        test::fill_random(u, 10 + level);
        other.levels[level].vmult(v_other, u);
        many.levels[level].vmult(v_many, u);
        same_levels = same_levels && same_vectors(v_other, v_many, op_float) &&
                      same_vectors(diagonal(other.levels[level]), diagonal(many.levels[level]), op_float);
        if (level > 0)
          {
            gpumf::Vector<float> coarse, fine_other, fine_many;
            other.levels[level - 1].initialize_dof_vector(coarse);
            test::fill_random(coarse, 20 + level);
            other.levels[level].initialize_dof_vector(fine_other);
            other.levels[level].initialize_dof_vector(fine_many);
            other.transfer->prolongate(level, fine_other, coarse);
            many.transfer->prolongate(level, fine_many, coarse);
            same_prolongation = same_prolongation && same_vectors(fine_other, fine_many);
            gpumf::Vector<float> coarse_other, coarse_many;
            other.levels[level - 1].initialize_dof_vector(coarse_other);
            other.levels[level - 1].initialize_dof_vector(coarse_many);
            other.transfer->restrict_and_add(level, coarse_other, u);
            many.transfer->restrict_and_add(level, coarse_many, u);
            same_restriction = same_restriction && same_vectors(coarse_other, coarse_many);
          }
      }
    checker.check(same_levels, name + "same level colors, vmult and diagonals" + how);
    if (backend == gpumf::Backend::host)
      checker.check(same_level_arrays, name + "same DoF codes and geometry arrays, levels" + how);
    checker.check(same_prolongation && same_restriction, name + "same prolongation and restriction (bitwise)");
    MGLevelObject<gpumf::Vector<float>> mg_other(0, n_levels - 1), mg_many(0, n_levels - 1);
    other.transfer->copy_to_mg(dof, mg_other, x);
    many.transfer->copy_to_mg(dof, mg_many, x);
    bool same_copy = true;
    for (unsigned int level = 0; level < n_levels; ++level)
      same_copy = same_copy && same_vectors(mg_other[level], mg_many[level]);
    gpumf::Vector<double> back_other, back_many;
    other.op.initialize_dof_vector(back_other);
    other.op.initialize_dof_vector(back_many);
    other.transfer->copy_from_mg(dof, back_other, mg_other);
    many.transfer->copy_from_mg(dof, back_many, mg_other);
    checker.check(same_copy && same_vectors(back_other, back_many),
                  name + "same copy_to_mg and copy_from_mg (bitwise)");
  }

  template <int dim>
  void
  check_mesh(test::Checker &checker, const gpumf::Backend backend, const bool curved)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    Tria<dim>      tria(comm,
                   Triangulation<dim>::limit_level_difference_at_vertices,
                   Tria<dim>::construct_multigrid_hierarchy);
    // a refined half of the shell, a refined corner of the cube: hanging nodes and refinement edges
    if (curved)
      test::make_mesh<dim>(tria, test::Domain::shell, dim == 2 ? 4 : 2, {[](const Point<dim> &p) { return p[0] < 0; }});
    else
      test::make_mesh<dim>(tria, test::Domain::cube, dim == 2 ? 5 : 3, {[](const Point<dim> &p) {
                             return p[0] < 0 && p[1] < 0;
                           }});
    const MappingQ<dim>       mapping(curved ? 3 : 1);
    const FE_Q<dim>           fe(degree);
    DoFHandler<dim>           dof(tria);
    AffineConstraints<double> constraints;
    MGConstrainedDoFs         mg_constrained_dofs;
    test::distribute_mg_dofs(mapping, fe, dof, constraints, mg_constrained_dofs);

    const Setup<dim> one(mapping, dof, constraints, mg_constrained_dofs, backend, 1);
    const Setup<dim> two(mapping, dof, constraints, mg_constrained_dofs, backend, 2);
    const Setup<dim> many(mapping, dof, constraints, mg_constrained_dofs, backend, 4);
    MultithreadInfo::set_thread_limit(4);
    const unsigned int threads = MultithreadInfo::n_threads();
    MultithreadInfo::set_thread_limit(1);
    const std::string name = std::to_string(dim) + "D " + (curved ? "shell, MappingQ(3)" : "cube") + ", " +
                             std::to_string(dof.n_dofs()) + " DoFs, " + std::to_string(tria.n_global_levels()) +
                             " levels: ";
    checker.check(threads == 4, name + "4 threads set up the third copy");
    compare(checker, name + "1 vs 4 threads: ", dof, one, many, backend, false);
    compare(checker, name + "2 vs 4 threads: ", dof, two, many, backend, true);
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    for (const bool curved : {false, true})
      {
        check_mesh<2>(checker, backend, curved);
        check_mesh<3>(checker, backend, curved);
      }
  });
}
