// The Helmholtz operator of the example (examples/helmholtz) against deal.II's CPU MatrixFree
// (host backend), and the CUDA backend against the host backend (coloring and atomics) in one
// program. Random input vectors (constrained entries included), Dirichlet constraints, dim 2
// and 3, FE_Q degree 1 to 9, a Cartesian and a curved (shell, MappingQ(3)) mesh.
//
//   helmholtz_example_test host   host backend vs deal.II CPU MatrixFree: relative max
//                                 difference <= 1e-12
//   helmholtz_example_test cuda   CUDA (coloring, atomics) vs host: <= 500 ulps relative;
//                                 coloring bitwise reproducible; skipped (exit 77) without a GPU
//   helmholtz_example_test <backend> <max degree>   only degrees up to <max degree> (for
//                                                   compute-sanitizer)
#include <deal.II/fe/fe_q.h>

#include <set>

#include "common/dealii_reference.h"
#include "helmholtz_operator.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  template <int dim, int degree>
  void
  check_case(test::Checker &checker, const gpumf::Backend backend, const test::MeshKind mesh)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, mesh);
    const auto      mapping = test::make_mapping<dim>(mesh);
    FE_Q<dim>       fe(degree);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    test::make_constraints(*mapping, dof, constraints);

    const std::string name = std::to_string(dim) + "d degree " + std::to_string(degree) + " " + test::to_string(mesh) +
                             " (" + std::to_string(dof.n_dofs()) + " DoFs)";

    // the host result
    helmholtz::HelmholtzOperator<dim, degree> host_op;
    host_op.reinit(*mapping, dof, constraints, false, gpumf::Backend::host);
    gpumf::Vector<double> src, dst;
    host_op.initialize_dof_vector(src);
    host_op.initialize_dof_vector(dst);
    test::fill_random(src);
    host_op.vmult(dst, src);
    const auto host_result = test::to_rw(dst);

    if (backend == gpumf::Backend::host)
      {
        // coloring: Cartesian parity colors on the cube, graph coloring on the shell;
        // no unconstrained DoF (the entries the cells write) shared by two cells of one color
        using MF = gpumf::MatrixFree<dim, double>;
        typename MF::AdditionalData data;
        data.use_coloring = true;
        data.backend      = gpumf::Backend::host;
        MF colored;
        colored.reinit(*mapping, dof, constraints, QGauss<1>(degree + 1), data);
        bool                                 disjoint = true;
        std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
        for (const auto &color : colored.get_colored_graph())
          {
            std::set<types::global_dof_index> seen;
            for (const auto &cell : color)
              {
                cell->get_dof_indices(indices);
                for (const auto i : indices)
                  if (!constraints.is_constrained(i))
                    disjoint = seen.insert(i).second && disjoint;
              }
          }
        const auto expected = mesh == test::MeshKind::cartesian ? MF::ConflictStrategy::cartesian_coloring :
                                                                  MF::ConflictStrategy::graph_coloring;
        checker.check(Utilities::MPI::min(int(disjoint), comm) == 1 && colored.conflict_strategy() == expected &&
                        (mesh != test::MeshKind::cartesian || colored.n_colors() == (1u << dim)),
                      name + ": " + gpumf::to_string<dim, double>(colored.conflict_strategy()) + ", " +
                        std::to_string(colored.n_colors()) + " colors, no unconstrained DoF shared within a color");

        test::DealiiHelmholtzOperator<dim> reference;
        reference.reinit(*mapping, dof, constraints, degree + 1);
        LinearAlgebra::distributed::Vector<double> ref_src, ref_dst;
        reference.initialize_dof_vector(ref_src);
        reference.initialize_dof_vector(ref_dst);
        test::fill_random(ref_src);
        reference.vmult(ref_dst, ref_src);
        checker.check_below(test::relative_difference(host_result, test::to_rw(ref_dst), comm),
                            1e-12,
                            name + ": host vs deal.II CPU MatrixFree");
        return;
      }

    const double tolerance = 500 * std::numeric_limits<double>::epsilon();
    for (const bool coloring : {true, false})
      {
        helmholtz::HelmholtzOperator<dim, degree> op;
        op.reinit(*mapping, dof, constraints, coloring, gpumf::Backend::cuda);
        gpumf::Vector<double> d_src, d_dst;
        op.initialize_dof_vector(d_src);
        op.initialize_dof_vector(d_dst);
        test::fill_random(d_src);
        op.vmult(d_dst, d_src);
        const auto        result  = test::to_rw(d_dst);
        const std::string variant = coloring ?
                                      " cuda " + gpumf::to_string<dim, double>(op.matrix_free().conflict_strategy()) +
                                        " (" + std::to_string(op.matrix_free().n_colors()) + " colors)" :
                                      " cuda atomics";
        checker.check_below(test::relative_difference(result, host_result, comm),
                            tolerance,
                            name + variant + " vs host");
        if (coloring)
          {
            op.vmult(d_dst, d_src);
            checker.check(test::bitwise_equal(test::to_rw(d_dst), result, comm),
                          name + variant + ": second application bitwise identical");
          }
      }
  }

  template <int dim, int degree>
  void
  check_degrees(test::Checker &checker, const gpumf::Backend backend, const int max_degree)
  {
    if (degree > max_degree)
      return;
    for (const auto mesh : {test::MeshKind::cartesian, test::MeshKind::curved})
      check_case<dim, degree>(checker, backend, mesh);
    if constexpr (degree < 9)
      check_degrees<dim, degree + 1>(checker, backend, max_degree);
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    const int max_degree = argc > 2 ? std::atoi(argv[2]) : 9;
    check_degrees<2, 1>(checker, backend, max_degree);
    check_degrees<3, 1>(checker, backend, max_degree);
  });
}
