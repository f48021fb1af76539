// gpumf_stokes: the Stokes operator of deal.II 9.8's step-104 (Q(p+1)^3 velocity and Q(p)
// pressure in two DoFHandlers of one MatrixFree, a block vector, Gauss points p + 2) as a user's
// functor in deal.II 9.8's Portable form (two FEEvaluation objects by dof_index, the kernel every
// user functor gets), beside the velocity block alone (one FEEvaluation) and gpumf's ready vector
// Laplacian on the velocity DoFs (the ready-kernel bound for this element), against the copy
// roofline of the same run. The functors are written here in the shape of step-104's, not taken
// from it. With --dealii: deal.II's own CPU MatrixFree with the same form (FEEvaluation by dof_no,
// a BlockVector; stokes_dealii.cc) on this run's MPI ranks instead.
//
//   gpumf_stokes [--degree-p 1-4] [--refinements r] [--repeat n] [--cells-per-block k]
//   mpirun -np 16 gpumf_stokes [--degree-p 1-4] [--refinements r] [--repeat n] --dealii
//
// The mesh: [0,1]^3 refined r times (step-104's: MappingQ(1), affine), velocity zero on the
// boundary (step-104's constraints), the pressure unconstrained. Figures: the MatrixFree set-up once
// (wall seconds), median seconds of n applications after a warm-up (each with dst = 0 as step-104's
// vmult), DoFs (both blocks) per second, and |A b| so that runs of different kernels and of deal.II
// can be compared.
#include <gpumf/block_vector.h>
#include <gpumf/operators.h>
#include <gpumf/portable.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

#include "benchmark.h"
#include "stokes_dealii.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  // The Stokes operator (grad u, grad v) - (p, div v) - (div u, q), step-104's form.
  // (columns: gpumf's layout of a column of points per thread, FEEvaluation's last argument)
  template <int degree_u, int degree_p, int n_q_1d, bool columns = false>
  struct StokesFunctor
  {
    static const unsigned int n_q_points        = Utilities::pow(n_q_1d, dim);
    static constexpr bool     thread_per_column = columns;

    __host__ __device__ void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>              &src,
               gpumf::Portable::DeviceBlockVector<double>                    &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, n_q_1d, dim, double, columns> velocity(data, 0);
      gpumf::FEEvaluation<dim, degree_p, n_q_1d, 1, double, columns>   pressure(data, 1);
      velocity.read_dof_values(src.block(0));
      pressure.read_dof_values(src.block(1));
      velocity.evaluate(gpumf::EvaluationFlags::gradients);
      pressure.evaluate(gpumf::EvaluationFlags::values);
      data->for_each_quad_point([&](const int &q) {
        Tensor<2, dim, double> grad_u = velocity.get_gradient(q);
        const double           p      = pressure.get_value(q);
        double                 div_u  = 0;
        for (unsigned int d = 0; d < dim; ++d)
          {
            div_u += grad_u[d][d];
            grad_u[d][d] -= p;
          }
        velocity.submit_gradient(grad_u, q);
        pressure.submit_value(-div_u, q);
      });
      velocity.integrate(gpumf::EvaluationFlags::gradients);
      pressure.integrate(gpumf::EvaluationFlags::values);
      velocity.distribute_local_to_global(dst.block(0));
      pressure.distribute_local_to_global(dst.block(1));
    }
  };

  // The velocity block alone, (grad u, grad v): step-104's operator on the multigrid levels.
  template <int degree_u, int n_q_1d, bool columns = false>
  struct VelocityFunctor
  {
    static const unsigned int n_q_points        = Utilities::pow(n_q_1d, dim);
    static constexpr bool     thread_per_column = columns;

    __host__ __device__ void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>                   &src,
               gpumf::Portable::DeviceVector<double>                         &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, n_q_1d, dim, double, columns> velocity(data, 0);
      velocity.read_dof_values(src);
      velocity.evaluate(gpumf::EvaluationFlags::gradients);
      data->for_each_quad_point([&](const int &q) { velocity.submit_gradient(velocity.get_gradient(q), q); });
      velocity.integrate(gpumf::EvaluationFlags::gradients);
      velocity.distribute_local_to_global(dst);
    }
  };

  // A functor that declares the blocks an SM must hold (0: the compiler's choice of registers;
  // undeclared, cell_loop's rule: two blocks an SM for 3D block-form functors with a thread per
  // point and 129-256 threads a block)
  template <typename Functor, unsigned int blocks>
  struct WithMinBlocks : Functor
  {
    static constexpr unsigned int device_min_blocks_per_sm = blocks;
  };

  void
  report(const std::string &what, const double seconds, const types::global_dof_index n_dofs, const double norm)
  {
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) != 0)
      return;
    std::cout << std::left << std::setw(44) << what << std::right << std::setw(12) << n_dofs << " DoFs "
              << std::setw(11) << std::scientific << std::setprecision(3) << seconds << " s " << std::fixed
              << std::setprecision(3) << std::setw(8) << n_dofs / seconds * 1e-9 << " GDoF/s   |A b| "
              << std::setprecision(12) << norm << std::endl;
  }

  /// src's entries: sin(0.37 i + b) + 0.5 in block b, the same on every backend and rank count
  template <typename VectorType>
  void
  fill(VectorType &v, const unsigned int b)
  {
    dealii::LinearAlgebra::ReadWriteVector<double> values(v.locally_owned_elements());
    for (const auto i : values.get_stored_elements())
      values(i) = std::sin(0.37 * double(i) + b) + 0.5;
    v.import(values, VectorOperation::insert);
  }

  double
  seconds_since(const std::chrono::steady_clock::time_point start)
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// deal.II's CPU MatrixFree on this run's ranks (VectorizedArray width as deal.II was built)
  template <int degree_p>
  void
  run_dealii(const Mapping<dim>              &mapping,
             const DoFHandler<dim>           &dof_u,
             const DoFHandler<dim>           &dof_p,
             const AffineConstraints<double> &constraints_u,
             const AffineConstraints<double> &constraints_p,
             const unsigned int               repeat)
  {
    const MPI_Comm                     comm = MPI_COMM_WORLD;
    bench::DealiiStokes<dim, degree_p> op;
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    op.reinit(mapping, dof_u, dof_p, constraints_u, constraints_p);
    MPI_Barrier(comm);
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      std::cout << "set-up (once): deal.II MatrixFree::reinit " << std::fixed << std::setprecision(3)
                << seconds_since(start) << " s" << std::endl;
    typename bench::DealiiStokes<dim, degree_p>::BlockVectorType src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    for (unsigned int b = 0; b < 2; ++b)
      fill(src.block(b), b);
    const std::string ranks = " (" + std::to_string(Utilities::MPI::n_mpi_processes(comm)) + " ranks)";
    const double      t     = bench::median_seconds_all_ranks(comm, repeat, [&] { op.vmult(dst, src); });
    report("Stokes, deal.II CPU MatrixFree" + ranks, t, dof_u.n_dofs() + dof_p.n_dofs(), dst.l2_norm());
    const double t_u =
      bench::median_seconds_all_ranks(comm, repeat, [&] { op.vmult_velocity(dst.block(0), src.block(0)); });
    report("velocity block, deal.II CPU" + ranks, t_u, dof_u.n_dofs(), dst.block(0).l2_norm());
  }

  template <int degree_p>
  void
  run(const unsigned int refinements, const unsigned int repeat, const unsigned int cells_per_block, const bool dealii)
  {
    constexpr int                             degree_u = degree_p + 1, n_q_1d = degree_p + 2;
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(refinements);
    const MappingQ<dim> mapping(1);
    const FESystem<dim> fe_u(FE_Q<dim>(degree_u), dim);
    const FE_Q<dim>     fe_p(degree_p);
    DoFHandler<dim>     dof_u(tria), dof_p(tria);
    dof_u.distribute_dofs(fe_u);
    dof_p.distribute_dofs(fe_p);
    AffineConstraints<double> constraints_u, constraints_p;
    DoFTools::make_hanging_node_constraints(dof_u, constraints_u);
    VectorTools::interpolate_boundary_values(dof_u, 0, Functions::ZeroFunction<dim>(dim), constraints_u);
    constraints_u.close();
    constraints_p.close();
    const types::global_dof_index n_dofs = dof_u.n_dofs() + dof_p.n_dofs();
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
      std::cout << "gpumf_stokes: 3D, Q" << degree_u << "^3-Q" << degree_p << ", " << tria.n_global_active_cells()
                << " cells, " << n_dofs << " DoFs (" << dof_u.n_dofs() << " + " << dof_p.n_dofs() << "), "
                << (dealii ? "deal.II " DEAL_II_PACKAGE_VERSION " CPU, VectorizedArray<double> width " +
                               std::to_string(bench::dealii_simd_width()) + ", " +
                               std::to_string(Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)) + " MPI ranks" :
                             "on " + gpumf::device_name())
                << std::endl;
    if (dealii)
      {
        run_dealii<degree_p>(mapping, dof_u, dof_p, constraints_u, constraints_p, repeat);
        return;
      }

    const gpumf::Backend backend = gpumf::default_backend();
    using MF                     = gpumf::MatrixFree<dim, double>;
    typename MF::AdditionalData data;
    data.backend              = backend;
    data.mapping_update_flags = update_values | update_gradients;
    data.cells_per_block      = cells_per_block;
    MF         mf;
    const auto start = std::chrono::steady_clock::now();
    mf.reinit(mapping,
              std::vector<const DoFHandler<dim> *>{&dof_u, &dof_p},
              std::vector<const AffineConstraints<double> *>{&constraints_u, &constraints_p},
              QGauss<1>(n_q_1d),
              data);
    gpumf::synchronize(backend);
    std::cout << "set-up (once): gpumf MatrixFree::reinit " << std::fixed << std::setprecision(3)
              << seconds_since(start) << " s" << std::endl;
    std::cout << "copy roofline: " << std::fixed << std::setprecision(1)
              << bench::copy_bandwidth(backend, 16. * n_dofs, repeat) * 1e-9 << " GB/s" << std::endl;

    gpumf::BlockVector<double> src, dst;
    mf.initialize_dof_vector(src);
    mf.initialize_dof_vector(dst);
    for (unsigned int b = 0; b < 2; ++b)
      fill(src.block(b), b);
    const auto stokes = [&](const auto functor, const std::string &what) {
      const double t = bench::median_seconds(backend, repeat, [&] {
        dst = 0.;
        mf.cell_loop(functor, src, dst);
      });
      report(what, t, n_dofs, dst.l2_norm());
    };
    const auto velocity = [&](const auto functor, const std::string &what) {
      const double t = bench::median_seconds(backend, repeat, [&] {
        dst.block(0) = 0.;
        mf.cell_loop(functor, src.block(0), dst.block(0));
      });
      report(what, t, dof_u.n_dofs(), dst.block(0).l2_norm());
    };
    stokes(StokesFunctor<degree_u, degree_p, n_q_1d>(), "Stokes, user functor (thread/point)");
    stokes(WithMinBlocks<StokesFunctor<degree_u, degree_p, n_q_1d>, 0>(), "Stokes, thread/point, compiler's registers");
    stokes(StokesFunctor<degree_u, degree_p, n_q_1d, true>(), "Stokes, user functor (column/thread)");
    velocity(VelocityFunctor<degree_u, n_q_1d>(), "velocity block, user functor (thread/point)");
    velocity(VelocityFunctor<degree_u, n_q_1d, true>(), "velocity block, user functor (column/thread)");
    {
      gpumf::LaplaceOperator<dim, degree_u, n_q_1d, dim, double> laplace;
      typename MF::AdditionalData                                d = data;
      d.implementation                                             = gpumf::Implementation::tensor_product;
      laplace.reinit(mapping, dof_u, constraints_u, QGauss<1>(n_q_1d), d);
      const double t = bench::median_seconds(backend, repeat, [&] { laplace.vmult(dst.block(0), src.block(0)); });
      report("velocity block, ready vector Laplacian", t, dof_u.n_dofs(), dst.block(0).l2_norm());
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
    {
      unsigned int degree_p = 1, refinements = 5, repeat = 20, cells_per_block = 0;
      bool         dealii = false;
      for (int i = 1; i < argc; ++i)
        {
          const std::string arg = argv[i];
          if (arg == "--dealii")
            {
              dealii = true;
              continue;
            }
          if (i + 1 >= argc)
            throw std::invalid_argument(arg + " needs a value");
          if (arg == "--degree-p")
            degree_p = std::stoi(argv[++i]);
          else if (arg == "--refinements")
            refinements = std::stoi(argv[++i]);
          else if (arg == "--repeat")
            repeat = std::stoi(argv[++i]);
          else if (arg == "--cells-per-block")
            cells_per_block = std::stoi(argv[++i]);
          else
            throw std::invalid_argument("unknown argument " + arg +
                                        " (--degree-p 1-4 --refinements r --repeat n --cells-per-block k --dealii)");
        }
      AssertThrow(dealii || Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1,
                  ExcMessage("gpumf_stokes runs gpumf on one rank; deal.II's CPU MatrixFree (--dealii) on any number"));
      if (!dealii)
        gpumf::select_device(MPI_COMM_WORLD);
      if (degree_p == 1)
        run<1>(refinements, repeat, cells_per_block, dealii);
      else if (degree_p == 2)
        run<2>(refinements, repeat, cells_per_block, dealii);
      else if (degree_p == 3)
        run<3>(refinements, repeat, cells_per_block, dealii);
      else if (degree_p == 4)
        run<4>(refinements, repeat, cells_per_block, dealii);
      else
        throw std::invalid_argument("--degree-p 1 to 4 (the degrees compiled in), got " + std::to_string(degree_p));
    }
  catch (std::exception &e)
    {
      std::cerr << "gpumf_stokes: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
