// gpumf_elasticity: the isotropic elasticity operator (2 mu eps(u), eps(v)) + (lambda div u,
// div v) in 3D on FESystem(FE_Q(p), 3) with Gauss points (p + 1): gpumf's ElasticityOperator
// (the ready kernel), the same form through FEEvaluation with a thread per point (the code of a
// user's functor), the vector Laplacian (LaplaceOperator with 3 components) and BP5 (the scalar
// LaplaceOperator on Gauss-Lobatto points) on the same mesh, against the copy roofline of the
// same run; and deal.II's CPU MatrixFree with the same form on this run's MPI ranks (--dealii).
//
//   gpumf_elasticity --degree 2|4 [--repetitions k] [--refinements r] [--mesh cube|curved] [--repeat n]
//   mpirun -np 16 gpumf_elasticity --degree p ... --dealii
//
// The mesh: k^3 cells of [0,1]^3 refined r times (curved: under bench::deformed_mapping), no
// constraints. Figures: the set-up once (reinit, compute_diagonal), median seconds of n applications
// after a warm-up, and DoFs (all components) per second.
#include <gpumf/elasticity_operator.h>
#include <gpumf/operators.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "benchmark.h"
#include "deformed_mapping.h"
#include "elasticity_dealii.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  struct Arguments
  {
    unsigned int degree = 2, repetitions = 3, refinements = 3, repeat = 20;
    bool         curved = false, dealii = false;
  };

  Arguments
  parse(int argc, char **argv)
  {
    Arguments a;
    for (int i = 1; i < argc; ++i)
      {
        const std::string arg  = argv[i];
        const auto        next = [&]() -> std::string {
          if (i + 1 >= argc)
            throw std::invalid_argument(arg + " needs a value");
          return argv[++i];
        };
        if (arg == "--degree")
          a.degree = std::stoi(next());
        else if (arg == "--repetitions")
          a.repetitions = std::stoi(next());
        else if (arg == "--refinements")
          a.refinements = std::stoi(next());
        else if (arg == "--repeat")
          a.repeat = std::stoi(next());
        else if (arg == "--mesh")
          {
            const std::string mesh = next();
            if (mesh != "cube" && mesh != "curved")
              throw std::invalid_argument("--mesh cube or curved, got " + mesh);
            a.curved = mesh == "curved";
          }
        else if (arg == "--dealii")
          a.dealii = true;
        else
          throw std::invalid_argument("unknown argument " + arg +
                                      " (--degree 2|4 --repetitions k --refinements r --mesh cube|curved --repeat n "
                                      "--dealii)");
      }
    if (a.degree != 2 && a.degree != 4)
      throw std::invalid_argument("--degree 2 or 4 (the degrees compiled in), got " + std::to_string(a.degree));
    return a;
  }

  void
  report(const std::string &what, const double seconds, const types::global_dof_index n_dofs, const double bytes = 0)
  {
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) != 0)
      return;
    std::cout << std::left << std::setw(46) << what << std::right << std::setw(12) << n_dofs << " DoFs "
              << std::setw(11) << std::scientific << std::setprecision(3) << seconds << " s " << std::fixed
              << std::setprecision(3) << std::setw(8) << n_dofs / seconds * 1e-9 << " GDoF/s";
    if (bytes > 0)
      std::cout << std::setw(9) << std::setprecision(1) << bytes / seconds * 1e-9 << " GB/s";
    std::cout << std::endl;
  }

  template <int degree>
  void
  run(const Arguments &a, const Triangulation<dim> &tria, const Mapping<dim> &mapping)
  {
    const MPI_Comm      comm = MPI_COMM_WORLD;
    const FESystem<dim> element(FE_Q<dim>{degree}, dim);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(element);
    const types::global_dof_index n_dofs = dof.n_dofs();
    AffineConstraints<double>     empty;
    empty.close();
    const double lambda = 2., mu = 1.;
    if (a.dealii)
      {
        bench::DealiiElasticity<dim, degree> op;
        op.reinit(mapping, dof, empty, lambda, mu);
        LinearAlgebra::distributed::Vector<double> src, dst;
        op.initialize_dof_vector(src);
        op.initialize_dof_vector(dst);
        for (auto &v : src)
          v = 1.;
        const double t = bench::median_seconds_all_ranks(comm, a.repeat, [&] { op.vmult(dst, src); });
        report("deal.II CPU elasticity (" + std::to_string(Utilities::MPI::n_mpi_processes(comm)) + " ranks)",
               t,
               n_dofs);
        return;
      }
    const gpumf::Backend backend = gpumf::default_backend();
    using MF                     = gpumf::MatrixFree<dim, double>;
    typename MF::AdditionalData data;
    data.backend       = backend;
    data.use_coloring  = true;            // as gpumf_benchmark's BP5 (doc/performance.md)
    const double bytes = 2. * 8 * n_dofs; // one read, one write per DoF: the least a vmult moves
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      std::cout << "copy roofline on " << gpumf::device_name() << ": " << std::fixed << std::setprecision(1)
                << bench::copy_bandwidth(backend, bytes, a.repeat) * 1e-9 << " GB/s" << std::endl;

    gpumf::ElasticityOperator<dim, degree, degree + 1, double> elasticity;
    {
      // the set-up once: MatrixFree::reinit, the coefficients, the exact diagonal (wall seconds)
      MPI_Barrier(comm);
      const auto start = std::chrono::steady_clock::now();
      elasticity.reinit(mapping, dof, empty, QGauss<1>(degree + 1), data);
      elasticity.set_lame_coefficients(lambda, mu);
      gpumf::synchronize(backend);
      const auto reinit = std::chrono::steady_clock::now();
      elasticity.compute_diagonal();
      gpumf::synchronize(backend);
      const auto diagonal = std::chrono::steady_clock::now();
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        std::cout << "set-up (once): ElasticityOperator::reinit " << std::fixed << std::setprecision(3)
                  << std::chrono::duration<double>(reinit - start).count() << " s, compute_diagonal "
                  << std::chrono::duration<double>(diagonal - reinit).count() << " s" << std::endl;
    }
    gpumf::Vector<double> src, dst;
    elasticity.initialize_dof_vector(src);
    elasticity.initialize_dof_vector(dst);
    {
      // a field that is no rigid-body motion (the operator's kernel), so that the two kernels'
      // results can be compared
      dealii::LinearAlgebra::ReadWriteVector<double> values(src.locally_owned_elements());
      for (const auto i : values.get_stored_elements())
        values(i) = std::sin(0.37 * double(i)) + 0.5;
      src.import(values, VectorOperation::insert);
    }
    const double t_elas = bench::median_seconds(backend, a.repeat, [&] { elasticity.vmult(dst, src); });
    report("gpumf ElasticityOperator (ready kernel)", t_elas, n_dofs, bytes);
    const gpumf::Vector<double> ready_result = dst;
    {
      // the same form through FEEvaluation with a thread per point: a user's functor
      using Points =
        gpumf::internal::CoefficientCellOperator<dim, degree, degree + 1, dim, double, false, true, false, true>;
      Points points         = Points::make(elasticity.matrix_free(), nullptr, nullptr);
      points.lame           = elasticity.cell_operator().lame;
      const double t_points = bench::median_seconds(backend, a.repeat, [&] {
        dst = 0.;
        elasticity.matrix_free().cell_loop(points, src, dst);
      });
      report("gpumf elasticity, FEEvaluation (thread/point)", t_points, n_dofs, bytes);
      gpumf::Vector<double> difference = dst;
      difference.add(-1., ready_result);
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        std::cout << "ready kernel vs thread per point: |difference| / |result| = " << std::scientific
                  << std::setprecision(2) << difference.l2_norm() / ready_result.l2_norm() << std::fixed << std::endl;
    }
    {
      gpumf::LaplaceOperator<dim, degree, degree + 1, dim, double> vector_laplace;
      typename MF::AdditionalData                                  d = data;
      d.implementation                                               = gpumf::Implementation::tensor_product;
      vector_laplace.reinit(mapping, dof, empty, QGauss<1>(degree + 1), d);
      const double t = bench::median_seconds(backend, a.repeat, [&] { vector_laplace.vmult(dst, src); });
      report("gpumf vector Laplacian (LaplaceOperator, 3)", t, n_dofs, bytes);
    }
    {
      FE_Q<dim>       fe_q(degree);
      DoFHandler<dim> dof_q(tria);
      dof_q.distribute_dofs(fe_q);
      gpumf::LaplaceOperator<dim, degree, degree + 1, 1, double> bp5;
      typename MF::AdditionalData                                d = data;
      d.implementation                                             = gpumf::Implementation::tensor_product;
      bp5.reinit(mapping, dof_q, empty, QGaussLobatto<1>(degree + 1), d);
      gpumf::Vector<double> u, v;
      bp5.initialize_dof_vector(u);
      bp5.initialize_dof_vector(v);
      u                = 1.;
      const double t_q = bench::median_seconds(backend, a.repeat, [&] { bp5.vmult(v, u); });
      report("gpumf BP5 (FE_Q, LaplaceOperator)", t_q, dof_q.n_dofs(), 2. * 8 * dof_q.n_dofs());
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        std::cout << "elasticity / BP5 (DoFs per second): " << std::setprecision(3)
                  << (n_dofs / t_elas) / (dof_q.n_dofs() / t_q) << std::endl;
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
    {
      const Arguments a = parse(argc, argv);
      if (!a.dealii)
        gpumf::select_device(MPI_COMM_WORLD);
      parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
      GridGenerator::subdivided_hyper_cube(tria, a.repetitions, 0., 1.);
      tria.refine_global(a.refinements);
      std::unique_ptr<Mapping<dim>> mapping;
      if (a.curved)
        mapping = bench::deformed_mapping(tria);
      else
        mapping = std::make_unique<MappingQ1<dim>>();
      if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
        std::cout << "gpumf_elasticity: 3D, FESystem(FE_Q(" << a.degree << "), 3), " << tria.n_global_active_cells()
                  << " cells, " << (a.curved ? "curved (MappingQCache(3))" : "affine (MappingQ1)") << ", double, "
                  << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " MPI ranks"
                  << (a.dealii ? " (deal.II " DEAL_II_PACKAGE_VERSION " CPU, VectorizedArray<double> width " +
                                   std::to_string(bench::dealii_simd_width()) + ")" :
                                 std::string())
                  << std::endl;
      if (a.degree == 2)
        run<2>(a, tria, *mapping);
      else
        run<4>(a, tria, *mapping);
    }
  catch (std::exception &e)
    {
      std::cerr << "gpumf_elasticity: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
