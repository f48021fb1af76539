/*
 * The example of README.md: -Laplace u = 1 in the unit cube, u = 0 on its boundary, solved
 * with gpumf's ready-made LaplaceOperator and gpumf::SolverCG on the GPU (on the host reference
 * backend where there is none, or with GPUMF_BACKEND=host). Everything else is plain deal.II.
 *
 * The lines between "README begin" and "README end" are README.md's example word for word
 * (the test readme_excerpt checks that they agree; the test readme_example runs this program).
 *
 * A .cu file: the ready operators' kernels are instantiated in the program that includes
 * gpumf/operators.h, so gpumf_add_executable compiles it with nvcc where gpumf has CUDA, and as
 * C++ (host backend only) where it has not.
 *
 *   readme_example [refinements]     (default 3: 8^3 cells of FE_Q(4), 35937 DoFs)
 */
#include <gpumf/backend.h>
#include <gpumf/operators.h>
#include <gpumf/solver_cg.h>
#include <gpumf/vector.h>
#include <gpumf/vector_tools.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

using namespace dealii;

// The right-hand side f = 1, evaluated at the quadrature points inside the kernel (GPU and host).
struct One
{
  __host__ __device__ double
  value(const Point<3> &) const
  {
    return 1.;
  }
};

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize        mpi(argc, argv, 1);
  const gpumf::Backend                    backend = gpumf::select_device(MPI_COMM_WORLD); // a GPU per rank, or the host
  parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD);
  GridGenerator::hyper_cube(tria);
  tria.refine_global(argc > 1 ? std::atoi(argv[1]) : 3);

  // README begin
  const FE_Q<3> fe(4);
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  AffineConstraints<double> constraints(DoFTools::extract_locally_relevant_dofs(dof_handler));
  VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<3>(), constraints);
  constraints.close();

  gpumf::LaplaceOperator<3, 4> laplace; // (grad u, grad v): its kernels run on the GPU
  laplace.reinit(MappingQ<3>(1), dof_handler, constraints, QGauss<1>(5));
  laplace.compute_diagonal(); // for the Jacobi preconditioner, on the GPU too
  gpumf::Vector<double> u, f;
  laplace.initialize_dof_vector(u);
  gpumf::VectorTools::create_right_hand_side<4>(laplace.matrix_free(), One(), f); // f = 1
  SolverControl control(1000, 1e-10 * f.l2_norm());
  gpumf::SolverCG<double>(control).solve(laplace, u, f, *laplace.get_matrix_diagonal_inverse());
  // README end

  // f_i = (1, phi_i): u . f is the integral of u (0.0201685 for the exact solution)
  const double integral = u * f;
  if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    std::cout << "readme_example: backend " << gpumf::to_string(backend) << ", " << dof_handler.n_dofs() << " DoFs, "
              << control.last_step() << " CG iterations, integral of u " << std::setprecision(6) << integral
              << ", |u|_2 " << u.l2_norm() << std::endl;
}
