// gpumf_robin: what a Robin (impedance) boundary term costs next to the cell operator. BP5 (FE_Q,
// Gauss-Lobatto collocation, HelmholtzOperator) on the unit ball with MappingQ1, vmult without and
// with set_boundary_coefficient() on the whole sphere (MatrixFree::loop() with the boundary face
// functor after the cells), the boundary term alone (the same loop without cells), and the copy
// roofline of the vectors in the same run. 3D, double, degrees 2 to 6.
//
//   gpumf_robin --degree p [--refinements r] [--repeat n]
//
// The ball (7 cells) refined r times: 7 * 8^r cells, about 7 * 8^r * p^3 DoFs.
#include <gpumf/operators.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

#include "benchmark.h"

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  template <int degree>
  void
  run(const unsigned int refinements, const unsigned int repeat)
  {
    const MPI_Comm                            comm    = MPI_COMM_WORLD;
    const gpumf::Backend                      backend = gpumf::select_device(comm);
    parallel::distributed::Triangulation<dim> tria(comm);
    GridGenerator::hyper_ball(tria);
    tria.refine_global(refinements);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(FE_Q<dim>(degree));
    AffineConstraints<double> constraints;
    constraints.close();
    using Operator = gpumf::HelmholtzOperator<dim, degree, degree + 1>;
    typename Operator::AdditionalData data;
    data.backend                             = backend;
    data.mapping_update_flags_boundary_faces = update_values | update_JxW_values | update_quadrature_points;
    const auto start                         = std::chrono::steady_clock::now();
    Operator   op;
    op.reinit(MappingQ1<dim>(), dof, constraints, QGaussLobatto<1>(degree + 1), data);
    const double          setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gpumf::Vector<double> src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    src                     = 1.;
    const double cells_only = bench::median_seconds(backend, repeat, [&] { op.vmult(dst, src); });
    op.set_boundary_coefficient(0, 2.);
    const double with_robin    = bench::median_seconds(backend, repeat, [&] { op.vmult(dst, src); });
    using Robin                = gpumf::internal::RobinFaceOperator<dim, degree, degree + 1, 1, double>;
    const std::size_t n_points = std::size_t(op.matrix_free().n_faces()) * op.matrix_free().n_face_points();
    gpumf::internal::Array<double> beta_values;
    beta_values.reinit(backend, std::vector<double>(n_points, 2.));
    const Robin  robin{beta_values.data(), 1u};
    const double robin_only =
      bench::median_seconds(backend, repeat, [&] { op.matrix_free().loop(nullptr, nullptr, robin, dst, src, true); });
    const double n_dofs   = dof.n_dofs();
    const double bytes    = 2. * 8. * n_dofs; // src read, dst written
    const double roofline = bench::copy_bandwidth(backend, bytes, repeat);
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      std::cout << std::setprecision(4) << "device " << gpumf::device_name() << ", "
                << Utilities::MPI::n_mpi_processes(comm) << " rank(s); BP5 degree " << degree << " on the ball, "
                << tria.n_global_active_cells() << " cells, " << n_dofs << " DoFs, " << op.matrix_free().n_faces()
                << " faces on rank 0; set-up " << setup << " s\n"
                << "  vmult, cells only:          " << cells_only * 1e3 << " ms = " << n_dofs / cells_only * 1e-9
                << " GDoF/s\n"
                << "  vmult with the Robin term:  " << with_robin * 1e3 << " ms (+"
                << (with_robin / cells_only - 1) * 100 << " %)\n"
                << "  the Robin loop alone:       " << robin_only * 1e3 << " ms (" << robin_only / cells_only * 100
                << " % of the cells)\n"
                << "  copy roofline:              " << roofline * 1e-9 << " GB/s, " << bytes / roofline * 1e3
                << " ms for the vectors' bytes" << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  unsigned int                     degree = 4, refinements = 3, repeat = 20;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      const std::string arg = argv[i];
      if (arg == "--degree")
        degree = std::stoi(argv[i + 1]);
      else if (arg == "--refinements")
        refinements = std::stoi(argv[i + 1]);
      else if (arg == "--repeat")
        repeat = std::stoi(argv[i + 1]);
      else
        {
          std::cerr << "usage: gpumf_robin --degree p [--refinements r] [--repeat n]" << std::endl;
          return 1;
        }
    }
  switch (degree)
    {
      case 2:
        run<2>(refinements, repeat);
        break;
      case 3:
        run<3>(refinements, repeat);
        break;
      case 4:
        run<4>(refinements, repeat);
        break;
      case 6:
        run<6>(refinements, repeat);
        break;
      default:
        std::cerr << "gpumf_robin: degrees 2, 3, 4 and 6 are compiled" << std::endl;
        return 1;
    }
  return 0;
}
