// gpumf_dg: the interior-penalty Laplacian of deal.II's step-59 (gpumf::SIPGLaplaceOperator: its
// fused GPU kernel, and MatrixFree::loop with its functors) against gpumf's continuous Laplacian at the same degree
// (BP5: FE_Q, Gauss- Lobatto collocation, the ready operator) on the same mesh, the DG operator's cell
// term alone, the inverse mass matrix (InverseMassOperator), the copy roofline of the vectors, and deal.II's CPU
// MatrixFree::loop with the same operator on this run's MPI ranks
// (--dealii). Set-up times (MatrixFree::reinit with faces, the SIPG diagonal up to degree 5) once
// each. 3D, double, degrees 2 to 8.
//
//   gpumf_dg --degree p [--repetitions k] [--refinements r] [--mesh cube|curved] [--repeat n]
//   mpirun -np 16 gpumf_dg --degree p ... --dealii
//   gpumf_dg --copy-roofline n        only the copy roofline of two vectors of n doubles
//
// The mesh: k^3 cells of [0,1]^3 refined r times (curved: under bench::deformed_mapping).
// Figures: median seconds of n applications after a warm-up, and DoFs per second (DG DoFs for
// the DG operator and the cell term, FE_Q DoFs for BP5).
#include <gpumf/dg_operators.h>
#include <gpumf/operators.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "benchmark.h"
#include "common/dealii_dg_reference.h"
#include "deformed_mapping.h"
#include "linear_algebra/ghost_subset.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  struct Arguments
  {
    unsigned int degree = 4, repetitions = 3, refinements = 3, repeat = 20;
    bool         curved = false, dealii = false;
    /// --copy-roofline n: only the copy roofline of vectors of n doubles (for benchmarks/step59.sh)
    unsigned long long roofline_dofs = 0;
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
        else if (arg == "--copy-roofline")
          a.roofline_dofs = std::stoull(next());
        else
          throw std::invalid_argument("unknown argument " + arg +
                                      " (--degree p --repetitions k --refinements r --mesh cube|curved --repeat n "
                                      "--dealii)");
      }
    return a;
  }

  void
  report(const std::string &what, const double seconds, const types::global_dof_index n_dofs, const double bytes = 0)
  {
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) != 0)
      return;
    std::cout << std::left << std::setw(34) << what << std::right << std::setw(12) << n_dofs << " DoFs "
              << std::setw(11) << std::scientific << std::setprecision(3) << seconds << " s " << std::fixed
              << std::setprecision(3) << std::setw(8) << n_dofs / seconds * 1e-9 << " GDoF/s";
    if (bytes > 0)
      std::cout << std::setw(9) << std::setprecision(1) << bytes / seconds * 1e-9 << " GB/s";
    std::cout << std::endl;
  }

  /// Seconds @p f takes on the slowest rank (between barriers): a set-up step, once.
  template <typename F>
  double
  wall_seconds(const MPI_Comm comm, const F &f)
  {
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    f();
    gpumf::synchronize(gpumf::default_backend());
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Utilities::MPI::max(t, comm);
  }

  void
  report_setup(const std::string &what, const double seconds)
  {
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
      std::cout << std::left << std::setw(40) << what << std::right << std::fixed << std::setprecision(3)
                << std::setw(10) << seconds << " s (set-up, once)" << std::endl;
  }

  template <int degree>
  void
  run(const Arguments &a, const Triangulation<dim> &tria, const Mapping<dim> &mapping)
  {
    const MPI_Comm     comm = MPI_COMM_WORLD;
    FE_DGQHermite<dim> fe(degree);
    DoFHandler<dim>    dof(tria);
    dof.distribute_dofs(fe);
    const types::global_dof_index n_dofs = dof.n_dofs();
    if (a.dealii)
      {
        test::DealiiSIPG<dim> op;
        const double          t_setup = wall_seconds(comm, [&] { op.reinit(mapping, dof, degree + 1); });
        report_setup("deal.II MatrixFree::reinit with faces", t_setup);
        LinearAlgebra::distributed::Vector<double> src, dst;
        op.initialize_dof_vector(src);
        op.initialize_dof_vector(dst);
        for (auto &v : src)
          v = 1.;
        const double t = bench::median_seconds_all_ranks(comm, a.repeat, [&] { op.vmult(dst, src); });
        report("deal.II CPU SIPG (MatrixFree::loop, " + std::to_string(Utilities::MPI::n_mpi_processes(comm)) +
                 " ranks)",
               t,
               n_dofs);
        return;
      }
    const gpumf::Backend backend = gpumf::default_backend();
    using MF                     = gpumf::MatrixFree<dim, double>;
    typename MF::AdditionalData data;
    data.backend                             = backend;
    data.mapping_update_flags_inner_faces    = update_gradients | update_JxW_values | update_normal_vectors;
    data.mapping_update_flags_boundary_faces = update_gradients | update_JxW_values | update_normal_vectors;
    AffineConstraints<double> empty;
    empty.close();
    auto         mf      = std::make_shared<MF>();
    const double t_setup = wall_seconds(comm, [&] { mf->reinit(mapping, dof, empty, QGauss<1>(degree + 1), data); });
    report_setup("gpumf MatrixFree::reinit with faces", t_setup);
    gpumf::SIPGLaplaceOperator<dim, degree, degree + 1, double> sipg;
    sipg.initialize(mf, {0});
    gpumf::Vector<double> src, dst;
    sipg.initialize_dof_vector(src);
    sipg.initialize_dof_vector(dst);
    src                   = 1.;
    const double bytes_dg = 2. * 8 * n_dofs; // one read, one write per DoF: the least a vmult moves
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      std::cout << "copy roofline on " << gpumf::device_name() << ": " << std::fixed << std::setprecision(1)
                << bench::copy_bandwidth(backend, bytes_dg, a.repeat) * 1e-9 << " GB/s" << std::endl;
    const bool   fused  = sipg.uses_fused_kernel();
    const double t_sipg = bench::median_seconds(backend, a.repeat, [&] { sipg.vmult(dst, src); });
    report(fused ? "gpumf SIPG (fused kernel)" : "gpumf SIPG (loop, faces)", t_sipg, n_dofs, bytes_dg);
    if (fused)
      {
        sipg.use_fused_kernel(false);
        const double t_loop = bench::median_seconds(backend, a.repeat, [&] { sipg.vmult(dst, src); });
        sipg.use_fused_kernel(true);
        report("gpumf SIPG (loop, faces)", t_loop, n_dofs, bytes_dg);
      }
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      {
        // the ghost exchange of vmult(): only the DoFs the faces read travel (FE_DGQHermite:
        // two layers of each ghost cell for gradients), against all ghost entries of the layout
        using Access = typename MF::DataAccessOnFaces;
        const unsigned long long
          narrow = Utilities::MPI::sum<unsigned long long>(mf->n_exchanged_ghost_entries(Access::gradients), comm),
          all    = Utilities::MPI::sum<unsigned long long>(mf->n_exchanged_ghost_entries(Access::unspecified), comm);
        if (Utilities::MPI::this_mpi_process(comm) == 0)
          std::cout << "ghost entries per vmult, all ranks: " << narrow << " (DataAccessOnFaces::gradients) of " << all
                    << " (" << std::setprecision(1) << 100. * narrow / std::max(all, 1ull) << " %)" << std::endl;
        const gpumf::internal::GhostSubset *subset = mf->face_ghost_subset(Access::gradients);
        // the exchange alone, by each method that can serve (GPUMF_EXCHANGE), and the automatic one
        for (const std::string method : {"staged_mpi", "ipc", "nccl", ""})
          {
            setenv("GPUMF_EXCHANGE", method.c_str(), 1);
            const std::string name = gpumf::to_string(gpumf::exchange_method(comm, backend));
            if (!method.empty() && name != method)
              continue; // not available here (exchange_method() said which instead)
            const double      t_narrow = bench::median_seconds(backend, a.repeat, [&] {
              if (subset != nullptr)
                src.update_ghost_values(*subset);
              else
                src.update_ghost_values();
              src.zero_out_ghost_values();
            });
            const double      t_all    = bench::median_seconds(backend, a.repeat, [&] {
              src.update_ghost_values();
              src.zero_out_ghost_values();
            });
            const std::string label    = method.empty() ? "automatic: " + name : name;
            report("ghost exchange, gradients only (" + label + ")", t_narrow, n_dofs);
            report("ghost exchange, all ghosts (" + label + ")", t_all, n_dofs);
          }
        unsetenv("GPUMF_EXCHANGE");
        const double t_sipg_all = bench::median_seconds(backend, a.repeat, [&] {
          src.update_ghost_values();
          sipg.vmult(dst, src);
          src.zero_out_ghost_values();
        });
        report(std::string("gpumf SIPG ") + (fused ? "(fused kernel)" : "(loop, faces)") + ", all ghosts sent",
               t_sipg_all,
               n_dofs,
               bytes_dg);
      }
    const double t_cell = bench::median_seconds(backend, a.repeat, [&] {
      mf->loop(sipg.cell_operation(), nullptr, nullptr, dst, src, true);
    });
    report("gpumf DG cell term only", t_cell, n_dofs, bytes_dg);
    {
      // explicit DG time stepping's other operator: the inverse mass matrix, cell by cell
      gpumf::InverseMassOperator<dim, degree, 1, double> inverse;
      inverse.initialize(mf);
      const double t_inverse = bench::median_seconds(backend, a.repeat, [&] { inverse.vmult(dst, src); });
      report("gpumf inverse mass (cellwise)", t_inverse, n_dofs, bytes_dg);
      // (dofs_per_cell loops: minutes at high degrees on large meshes)
      if (degree <= 5)
        {
          const double t_diagonal = wall_seconds(comm, [&] { sipg.compute_diagonal(); });
          report_setup("gpumf SIPG compute_diagonal()", t_diagonal);
        }
    }
    {
      // BP5: the continuous Laplacian, FE_Q(p), Gauss-Lobatto collocation, on the same mesh
      FE_Q<dim>       fe_q(degree);
      DoFHandler<dim> dof_q(tria);
      dof_q.distribute_dofs(fe_q);
      gpumf::LaplaceOperator<dim, degree, degree + 1, 1, double> bp5;
      typename MF::AdditionalData                                data_q;
      data_q.backend        = backend;
      data_q.use_coloring   = true; // as gpumf_benchmark's BP5 (doc/performance.md)
      data_q.implementation = gpumf::Implementation::tensor_product;
      bp5.reinit(mapping, dof_q, empty, QGaussLobatto<1>(degree + 1), data_q);
      gpumf::Vector<double> u, v;
      bp5.initialize_dof_vector(u);
      bp5.initialize_dof_vector(v);
      u                = 1.;
      const double t_q = bench::median_seconds(backend, a.repeat, [&] { bp5.vmult(v, u); });
      report("gpumf BP5 (FE_Q, LaplaceOperator)", t_q, dof_q.n_dofs(), 2. * 8 * dof_q.n_dofs());
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        std::cout << "SIPG / BP5 (DoFs per second): " << std::setprecision(3)
                  << (n_dofs / t_sipg) / (dof_q.n_dofs() / t_q) << std::endl;
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
        gpumf::select_device(MPI_COMM_WORLD); // a GPU per rank where there are several
      if (a.roofline_dofs > 0)
        {
          std::cout << "copy roofline on " << gpumf::device_name() << ": " << std::fixed << std::setprecision(1)
                    << bench::copy_bandwidth(gpumf::default_backend(), 2. * 8 * a.roofline_dofs, a.repeat) * 1e-9
                    << " GB/s (vectors of " << a.roofline_dofs << " doubles)" << std::endl;
          return 0;
        }
      parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
      GridGenerator::subdivided_hyper_cube(tria, a.repetitions, 0., 1.);
      tria.refine_global(a.refinements);
      std::unique_ptr<Mapping<dim>> mapping;
      if (a.curved)
        mapping = bench::deformed_mapping(tria);
      else
        mapping = std::make_unique<MappingQ1<dim>>();
      if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
        std::cout << "gpumf_dg: 3D, FE_DGQHermite(" << a.degree << "), " << tria.n_global_active_cells() << " cells, "
                  << (a.curved ? "curved (MappingQCache(3))" : "affine (MappingQ1)") << ", double, "
                  << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " MPI ranks"
                  << (a.dealii ? " (deal.II " DEAL_II_PACKAGE_VERSION " CPU, VectorizedArray<double> width " +
                                   std::to_string(bench::dealii_simd_width()) + ")" :
                                 std::string())
                  << std::endl;
      bench::dispatch_degree<8, 2>(a.degree, "gpumf_dg", [&](auto p) {
        run<decltype(p)::value>(a, tria, *mapping);
        return 0;
      });
    }
  catch (std::exception &e)
    {
      std::cerr << "gpumf_dg: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
