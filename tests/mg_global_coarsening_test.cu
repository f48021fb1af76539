// Multigrid transfer between meshes: gpumf::MGTwoLevelTransfer against deal.II's
// MGTwoLevelTransfer (reinit_geometric_transfer() between meshes of
// MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence()) on random vectors:
// prolongate_and_add(), restrict_and_add(), interpolate(); FE_Q of degree 1-3 and FESystem with
// dim components, with and without zero Dirichlet constraints, 2D and 3D, vectors of the
// transfer's layout and of another (the DoFHandler's locally relevant DoFs); then
// gpumf::MGTransferGlobalCoarsening against deal.II's MGTransferGlobalCoarsening over a
// hierarchy (prolongate(), restrict_and_add(), copy_to_mg(), copy_from_mg(),
// interpolate_to_mg()), and the message for a pair of meshes that are not one refinement apart.
//
// mg_global_coarsening_test host|cuda            the checks
// mg_global_coarsening_test host|cuda misuse     prints the exception of the mesh misuse
#include <gpumf/mg_transfer_global_coarsening.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_transfer_global_coarsening.h>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  using DealVector = LinearAlgebra::distributed::Vector<double>;

  /// The DoFs and constraints of one mesh of the hierarchy.
  template <int dim>
  struct Level
  {
    explicit Level(const Triangulation<dim> &tria, const FiniteElement<dim> &fe, const bool dirichlet)
      : dof(tria)
    {
      dof.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      constraints.reinit(relevant);
      if (dirichlet)
        DoFTools::make_zero_boundary_constraints(dof, constraints);
      constraints.close();
      partitioner =
        std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_dofs(), relevant, tria.get_communicator());
    }

    DoFHandler<dim>                                    dof;
    AffineConstraints<double>                          constraints;
    std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
  };

  /// A gpumf vector with the values of @p v (layout @p partitioner, or the transfer's where null).
  gpumf::Vector<double>
  to_gpumf(const DealVector                                         &v,
           const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
           const gpumf::Backend                                      backend)
  {
    gpumf::Vector<double> result;
    result.reinit(partitioner, backend);
    result.import_elements(v, VectorOperation::insert);
    return result;
  }

  template <int dim>
  void
  check_two_level(test::Checker       &checker,
                  const gpumf::Backend backend,
                  const unsigned int   degree,
                  const unsigned int   n_components,
                  const bool           dirichlet,
                  const unsigned int   n_refinements)
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria, -1, 1);
    tria.refine_global(n_refinements);
    const auto          trias = MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence(tria);
    const FESystem<dim> fe(FE_Q<dim>(degree), n_components);
    const unsigned int  top = trias.size() - 1;
    Level<dim>          fine(*trias[top], fe, dirichlet), coarse(*trias[top - 1], fe, dirichlet);

    MGTwoLevelTransfer<dim, DealVector> reference;
    reference.reinit_geometric_transfer(fine.dof, coarse.dof, fine.constraints, coarse.constraints);
    gpumf::MGTwoLevelTransfer<dim, double> transfer;
    transfer.reinit_geometric_transfer(fine.dof,
                                       coarse.dof,
                                       fine.constraints,
                                       coarse.constraints,
                                       numbers::invalid_unsigned_int,
                                       numbers::invalid_unsigned_int,
                                       backend);
    const std::string what = std::to_string(dim) + "D " + fe.get_name() + (dirichlet ? ", Dirichlet" : "") + ", " +
                             std::to_string(fine.dof.n_dofs()) + " fine DoFs";
    // tolerances: a few roundings of each of the (2p+1)^dim terms, relative to the largest entry
    const double tolerance = 1e-13;
    for (const bool own_layout : {true, false})
      {
        const auto        fine_layout   = own_layout ? transfer.get_partitioner_fine() : fine.partitioner;
        const auto        coarse_layout = own_layout ? transfer.get_partitioner_coarse() : coarse.partitioner;
        const std::string layout        = own_layout ? " (the transfer's layout)" : " (another layout)";

        DealVector coarse_src(coarse.partitioner), fine_dst(fine.partitioner);
        test::fill_random(coarse_src, 3);
        test::fill_random(fine_dst, 4);
        gpumf::Vector<double> g_coarse = to_gpumf(coarse_src, coarse_layout, backend),
                              g_fine   = to_gpumf(fine_dst, fine_layout, backend);
        reference.prolongate_and_add(fine_dst, coarse_src);
        transfer.prolongate_and_add(g_fine, g_coarse);
        checker.check_below(test::relative_difference(test::to_rw(g_fine), test::to_rw(fine_dst), MPI_COMM_WORLD),
                            tolerance,
                            "prolongate_and_add, " + what + layout);

        DealVector fine_src(fine.partitioner), coarse_dst(coarse.partitioner);
        test::fill_random(fine_src, 5);
        test::fill_random(coarse_dst, 6);
        gpumf::Vector<double> g_fine_src   = to_gpumf(fine_src, fine_layout, backend),
                              g_coarse_dst = to_gpumf(coarse_dst, coarse_layout, backend);
        reference.restrict_and_add(coarse_dst, fine_src);
        transfer.restrict_and_add(g_coarse_dst, g_fine_src);
        checker.check_below(test::relative_difference(test::to_rw(g_coarse_dst),
                                                      test::to_rw(coarse_dst),
                                                      MPI_COMM_WORLD),
                            tolerance,
                            "restrict_and_add, " + what + layout);

        // interpolation of a continuous function: the fine vector of a prolongated coarse one
        DealVector smooth(fine.partitioner), interpolated(coarse.partitioner);
        reference.prolongate_and_add(smooth, coarse_src);
        fine.constraints.distribute(smooth);
        reference.interpolate(interpolated, smooth);
        gpumf::Vector<double> g_smooth = to_gpumf(smooth, fine_layout, backend), g_interpolated;
        g_interpolated.reinit(coarse_layout, backend);
        transfer.interpolate(g_interpolated, g_smooth);
        checker.check_below(test::relative_difference(test::to_rw(g_interpolated),
                                                      test::to_rw(interpolated),
                                                      MPI_COMM_WORLD),
                            tolerance,
                            "interpolate, " + what + layout);
      }
  }

  /// MGTransferGlobalCoarsening over the whole hierarchy against deal.II's.
  template <int dim>
  void
  check_hierarchy(test::Checker &checker, const gpumf::Backend backend, const unsigned int degree)
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(dim == 2 ? 4 : 3);
    const auto          trias = MGTransferGlobalCoarseningTools::create_geometric_coarsening_sequence(tria);
    const FESystem<dim> fe(FE_Q<dim>(degree), dim);
    const unsigned int  min_level = 1, max_level = trias.size() - 1;
    std::vector<std::unique_ptr<Level<dim>>> levels(max_level + 1);
    for (unsigned int l = min_level; l <= max_level; ++l)
      levels[l] = std::make_unique<Level<dim>>(*trias[l], fe, true);
    MGLevelObject<MGTwoLevelTransfer<dim, DealVector>>    reference_transfers(min_level, max_level);
    MGLevelObject<gpumf::MGTwoLevelTransfer<dim, double>> transfers(min_level, max_level);
    for (unsigned int l = min_level + 1; l <= max_level; ++l)
      {
        reference_transfers[l].reinit_geometric_transfer(levels[l]->dof,
                                                         levels[l - 1]->dof,
                                                         levels[l]->constraints,
                                                         levels[l - 1]->constraints);
        transfers[l].reinit_geometric_transfer(levels[l]->dof,
                                               levels[l - 1]->dof,
                                               levels[l]->constraints,
                                               levels[l - 1]->constraints,
                                               numbers::invalid_unsigned_int,
                                               numbers::invalid_unsigned_int,
                                               backend);
      }
    MGTransferGlobalCoarsening<dim, DealVector>    reference(reference_transfers,
                                                          [&](const unsigned int l, DealVector &v) {
                                                            v.reinit(levels[l]->partitioner);
                                                          });
    gpumf::MGTransferGlobalCoarsening<dim, double> transfer(transfers,
                                                            [&](const unsigned int l, gpumf::Vector<double> &v) {
                                                              v.reinit(levels[l]->partitioner, backend);
                                                            });
    const std::string what = std::to_string(dim) + "D " + fe.get_name() + ", levels " + std::to_string(min_level) +
                             ".." + std::to_string(max_level);
    const double tolerance = 1e-13;

    DealVector global(levels[max_level]->partitioner);
    test::fill_random(global, 7);
    gpumf::Vector<double>                g_global = to_gpumf(global, levels[max_level]->partitioner, backend);
    MGLevelObject<DealVector>            mg(min_level, max_level);
    MGLevelObject<gpumf::Vector<double>> g_mg(min_level, max_level);
    reference.copy_to_mg(levels[max_level]->dof, mg, global);
    transfer.copy_to_mg(levels[max_level]->dof, g_mg, g_global);
    double difference = 0;
    for (unsigned int l = min_level; l <= max_level; ++l)
      difference =
        test::max_or_inf(difference,
                         test::relative_difference(test::to_rw(g_mg[l]), test::to_rw(mg[l]), MPI_COMM_WORLD));
    checker.check_below(difference, 0., "copy_to_mg, " + what);
    bool layouts = true;
    for (unsigned int l = min_level; l <= max_level; ++l)
      layouts = layouts && g_mg[l].get_partitioner() == levels[l]->partitioner;
    checker.check(layouts, "copy_to_mg gives the level vectors of initialize_dof_vector, " + what);

    // down the hierarchy by restriction, up by prolongation
    for (unsigned int l = max_level; l > min_level; --l)
      {
        reference.restrict_and_add(l, mg[l - 1], mg[l]);
        transfer.restrict_and_add(l, g_mg[l - 1], g_mg[l]);
      }
    difference = 0;
    for (unsigned int l = min_level; l <= max_level; ++l)
      difference =
        test::max_or_inf(difference,
                         test::relative_difference(test::to_rw(g_mg[l]), test::to_rw(mg[l]), MPI_COMM_WORLD));
    checker.check_below(difference, tolerance, "restrict_and_add down the levels, " + what);
    for (unsigned int l = min_level + 1; l <= max_level; ++l)
      {
        reference.prolongate(l, mg[l], mg[l - 1]);
        transfer.prolongate(l, g_mg[l], g_mg[l - 1]);
      }
    difference = 0;
    for (unsigned int l = min_level; l <= max_level; ++l)
      difference =
        test::max_or_inf(difference,
                         test::relative_difference(test::to_rw(g_mg[l]), test::to_rw(mg[l]), MPI_COMM_WORLD));
    checker.check_below(difference, tolerance, "prolongate up the levels, " + what);

    reference.copy_from_mg(levels[max_level]->dof, global, mg);
    transfer.copy_from_mg(levels[max_level]->dof, g_global, g_mg);
    checker.check_below(test::relative_difference(test::to_rw(g_global), test::to_rw(global), MPI_COMM_WORLD),
                        tolerance,
                        "copy_from_mg (of the prolongated levels), " + what);

    // interpolate_to_mg of a continuous function (the prolongation of a coarse one)
    levels[max_level]->constraints.distribute(global);
    g_global.import_elements(global, VectorOperation::insert);
    reference.interpolate_to_mg(levels[max_level]->dof, mg, global);
    transfer.interpolate_to_mg(levels[max_level]->dof, g_mg, g_global);
    difference = 0;
    for (unsigned int l = min_level; l <= max_level; ++l)
      difference =
        test::max_or_inf(difference,
                         test::relative_difference(test::to_rw(g_mg[l]), test::to_rw(mg[l]), MPI_COMM_WORLD));
    checker.check_below(difference, tolerance, "interpolate_to_mg, " + what);
  }

  /// A fine mesh two refinements above the coarse one.
  void
  misuse(const gpumf::Backend backend)
  {
    parallel::distributed::Triangulation<2> coarse(MPI_COMM_WORLD), fine(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(coarse);
    GridGenerator::hyper_cube(fine);
    coarse.refine_global(1);
    fine.refine_global(3);
    const FE_Q<2> fe(1);
    DoFHandler<2> dof_coarse(coarse), dof_fine(fine);
    dof_coarse.distribute_dofs(fe);
    dof_fine.distribute_dofs(fe);
    gpumf::MGTwoLevelTransfer<2, double> transfer;
    transfer.reinit_geometric_transfer(dof_fine, dof_coarse, backend);
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  gpumf::Backend                   backend;
  if (!test::backend_from_argument(argc, argv, backend))
    return test::skip_return_code;
  if (argc > 2)
    {
      try
        {
          misuse(backend);
        }
      catch (const std::exception &e)
        {
          std::cout << e.what() << std::endl;
          return 0;
        }
      return 1;
    }
  test::Checker checker(MPI_COMM_WORLD);
  check_two_level<2>(checker, backend, 1, 1, false, 3);
  check_two_level<2>(checker, backend, 2, 1, true, 4);
  check_two_level<2>(checker, backend, 3, 2, true, 3);
  check_two_level<3>(checker, backend, 1, 1, true, 2);
  check_two_level<3>(checker, backend, 2, 3, true, 2);
  check_hierarchy<2>(checker, backend, 2);
  check_hierarchy<3>(checker, backend, 2);
  return checker.finish();
}
