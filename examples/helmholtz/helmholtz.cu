/*
 * gpumf tutorial: a Helmholtz problem on the GPU, driven by deal.II.
 *
 * We solve  -laplace u + a(x) u = f  in the unit ball, u = 0 on the sphere, with the
 * variable coefficient a(x) = 10 / (0.05 + 2|x|^2) (that of deal.II's step-64) and f
 * chosen so that the exact solution is u(x) = cos(pi |x| / 2). The mesh, the FE_Q
 * element, the MappingQ that follows the curved boundary, the constraints, the right-hand
 * side and the error are all plain deal.II on the host. Only the operator and the
 * vectors of the conjugate gradient solver live on the GPU: gpumf::MatrixFree holds the
 * geometry, gpumf::Vector the DoF values, and deal.II's own SolverCG does the rest.
 *
 * With --impedance the upper half of the sphere (z > 0) is an impedance boundary,
 * du/dn + beta u = g (beta = 2), and the exact solution u = cos(pi r / 2) + max(z, 0)^5 is
 * nonzero there: the operator adds the term (beta u, v) on those faces with a boundary face
 * functor of gpumf::MatrixFree::loop(), and the right-hand side the Neumann data (g, v) with
 * gpumf::VectorTools::create_boundary_right_hand_side() on the GPU.
 *
 * Without a GPU the same program runs on gpumf's host reference backend (much slower).
 *
 *   helmholtz [--cycles N] [--coloring] [--impedance] [--check]
 *
 * --check: exit 1 unless the L2 error of the last cycle converges at the optimal rate
 * (at least degree + 1 - 0.3).
 */
#include <gpumf/backend.h>
#include <gpumf/vector.h>
#include <gpumf/vector_tools.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>
#include <cstring>
#include <iomanip>

// The operator: a cell functor run by gpumf::MatrixFree::cell_loop (see this header).
#include "helmholtz_operator.h"

namespace
{
  using namespace dealii;
  constexpr int dim = 3, degree = 3;

  constexpr double impedance_beta = 2.;

  // u(x) = cos(pi r / 2) vanishes on the unit sphere; with the impedance boundary
  // u + max(z, 0)^5, which vanishes on its lower half only.
  class ExactSolution : public Function<dim>
  {
  public:
    explicit ExactSolution(const bool impedance)
      : impedance(impedance)
    {}
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      const double z = std::max(p[dim - 1], 0.);
      return std::cos(numbers::PI * p.norm() / 2) + (impedance ? std::pow(z, 5) : 0.);
    }

  private:
    const bool impedance;
  };

  // f = -laplace u + a u; for radial u: -laplace u = -u'' - (dim-1)/r u'; -laplace z^5 = -20 z^3.
  class RightHandSide : public Function<dim>
  {
  public:
    explicit RightHandSide(const bool impedance)
      : impedance(impedance)
    {}
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      const double r = p.norm(), k = numbers::PI / 2, z = std::max(p[dim - 1], 0.);
      // sin(k r) / r, continued to r = 0
      const double sinc = r > 1e-12 ? std::sin(k * r) / r : k;
      return k * k * std::cos(k * r) + (dim - 1) * k * sinc + helmholtz_coefficient(p) * std::cos(k * r) +
             (impedance ? -20. * std::pow(z, 3) + helmholtz_coefficient(p) * std::pow(z, 5) : 0.);
    }

  private:
    const bool impedance;
  };

  // The impedance data g = du/dn + beta u on the sphere's upper half (n = x, r = 1):
  // -pi/2 + (5 + beta) z^5; a device functor for create_boundary_right_hand_side().
  struct ImpedanceData
  {
    __host__ __device__ double
    value(const Point<dim, double> &p) const
    {
      const double z = p[dim - 1] > 0 ? p[dim - 1] : 0.;
      return -numbers::PI / 2 + (5. + impedance_beta) * z * z * z * z * z;
    }
  };
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
    {
      // 1. The backend: a GPU per MPI rank, or the host reference backend.
      const MPI_Comm       comm    = MPI_COMM_WORLD;
      const gpumf::Backend backend = gpumf::select_device(comm);
      ConditionalOStream   pcout(std::cout, Utilities::MPI::this_mpi_process(comm) == 0);

      unsigned int n_cycles     = backend == gpumf::Backend::cuda ? 4 : 3;
      bool         use_coloring = false, impedance = false, check = false;
      for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--cycles") == 0 && i + 1 < argc)
          n_cycles = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--coloring") == 0)
          use_coloring = true;
        else if (std::strcmp(argv[i], "--impedance") == 0)
          impedance = true;
        else if (std::strcmp(argv[i], "--check") == 0)
          check = true;
        else
          AssertThrow(false, ExcMessage("usage: helmholtz [--cycles N] [--coloring] [--impedance] [--check]"));

      pcout << "gpumf " << GPUMF_VERSION << ": Helmholtz problem in the unit ball, FE_Q(" << degree << "), MappingQ("
            << degree << ")" << std::endl
            << "backend " << gpumf::to_string(backend) << ", device " << gpumf::device_name() << ", "
            << Utilities::MPI::n_mpi_processes(comm) << " MPI rank(s), "
            << (use_coloring ? "cell coloring" : "atomic additions")
            << (impedance ? ", impedance boundary on z > 0" : "") << std::endl;

      // 2. The mesh and the discretization, all deal.II.
      parallel::distributed::Triangulation<dim> triangulation(comm);
      GridGenerator::hyper_ball(triangulation);
      const MappingQ<dim> mapping(degree);
      const FE_Q<dim>     fe(degree);
      DoFHandler<dim>     dof_handler(triangulation);

      double previous_error = 0, rate = 0;
      for (unsigned int cycle = 0; cycle < n_cycles; ++cycle)
        {
          triangulation.refine_global(1);
          // the impedance boundary: id 1 on the sphere's faces above z = 0 (after a refinement
          // no face of the ball straddles z = 0), id 0 (Dirichlet) below
          if (impedance)
            for (const auto &cell : triangulation.active_cell_iterators())
              for (const auto &face : cell->face_iterators())
                if (face->at_boundary())
                  face->set_boundary_id(face->center()[dim - 1] > 0 ? 1 : 0);
          dof_handler.distribute_dofs(fe);
          IndexSet relevant;
          DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
          AffineConstraints<double> constraints(relevant);
          VectorTools::interpolate_boundary_values(
            mapping, dof_handler, 0, Functions::ZeroFunction<dim>(), constraints);
          constraints.close();

          // 3. The GPU operator. Its MatrixFree object computes the inverse Jacobians and
          //    JxW of every quadrature point with deal.II's FEValues and copies them over.
          Timer                                     setup_timer;
          helmholtz::HelmholtzOperator<dim, degree> op;
          op.reinit(mapping, dof_handler, constraints, use_coloring, backend, impedance ? impedance_beta : 0.);
          gpumf::Vector<double> solution, rhs;
          op.initialize_dof_vector(solution);
          op.initialize_dof_vector(rhs);
          setup_timer.stop();

          // 4. The right-hand side is assembled on the host and imported into the GPU vector.
          LinearAlgebra::distributed::Vector<double> rhs_host(dof_handler.locally_owned_dofs(), relevant, comm);
          const QGauss<dim>                          quadrature(degree + 1);
          FEValues<dim>                              fe_values(mapping,
                                  fe,
                                  quadrature,
                                  update_values | update_quadrature_points | update_JxW_values);
          Vector<double>                             cell_rhs(fe.n_dofs_per_cell());
          std::vector<types::global_dof_index>       dof_indices(fe.n_dofs_per_cell());
          const RightHandSide                        f(impedance);
          for (const auto &cell : dof_handler.active_cell_iterators())
            if (cell->is_locally_owned())
              {
                fe_values.reinit(cell);
                cell_rhs = 0;
                for (unsigned int q = 0; q < quadrature.size(); ++q)
                  for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
                    cell_rhs(i) +=
                      fe_values.shape_value(i, q) * f.value(fe_values.quadrature_point(q)) * fe_values.JxW(q);
                cell->get_dof_indices(dof_indices);
                constraints.distribute_local_to_global(cell_rhs, dof_indices, rhs_host);
              }
          rhs_host.compress(VectorOperation::add);
          rhs.import_elements(rhs_host, VectorOperation::insert);
          //    The impedance data (g, v) on the faces of id 1, computed on the GPU.
          if (impedance)
            {
              gpumf::Vector<double> boundary_rhs;
              gpumf::VectorTools::create_boundary_right_hand_side<degree>(op.matrix_free(),
                                                                          ImpedanceData(),
                                                                          boundary_rhs,
                                                                          {1});
              rhs += boundary_rhs;
            }

          // 5. deal.II's conjugate gradient method on gpumf vectors: every vector operation
          //    and every operator application runs on the GPU.
          Timer         solve_timer;
          SolverControl control(1000, 1e-10 * rhs.l2_norm());
          SolverCG<gpumf::Vector<double>>(control).solve(op, solution, rhs, PreconditionIdentity());
          gpumf::synchronize(backend);
          solve_timer.stop();

          // 6. Back to the host for the error against the exact solution.
          LinearAlgebra::distributed::Vector<double> solution_host(dof_handler.locally_owned_dofs(), relevant, comm);
          solution.export_to(solution_host, VectorOperation::insert);
          constraints.distribute(solution_host);
          solution_host.update_ghost_values();
          Vector<float> cell_errors(triangulation.n_active_cells());
          VectorTools::integrate_difference(mapping,
                                            dof_handler,
                                            solution_host,
                                            ExactSolution(impedance),
                                            cell_errors,
                                            QGauss<dim>(degree + 2),
                                            VectorTools::L2_norm);
          const double error = VectorTools::compute_global_error(triangulation, cell_errors, VectorTools::L2_norm);

          const double dofs = dof_handler.n_dofs();
          pcout << "Cycle " << cycle << ": " << triangulation.n_global_active_cells() << " cells, "
                << dof_handler.n_dofs() << " DoFs, " << control.last_step() << " CG iterations, L2 error "
                << std::scientific << std::setprecision(3) << error;
          if (cycle > 0)
            {
              rate = std::log2(previous_error / error);
              pcout << " (rate " << std::fixed << std::setprecision(2) << rate << ")";
            }
          pcout << std::defaultfloat << std::setprecision(4) << ", setup " << setup_timer.wall_time() << " s, solve "
                << solve_timer.wall_time() << " s = " << dofs * control.last_step() / solve_timer.wall_time() * 1e-9
                << " GDoF*it/s" << std::endl;
          previous_error = error;
        }
      if (check)
        {
          AssertThrow(n_cycles > 1, ExcMessage("--check needs two cycles or more"));
          const bool optimal = rate >= degree + 1 - 0.3;
          pcout << (optimal ? "PASS" : "FAIL") << ": L2 rate of the last cycle " << rate << " >= " << degree + 1 - 0.3
                << std::endl;
          if (!optimal)
            return 1;
        }
    }
  catch (std::exception &exc)
    {
      std::cerr << "Exception: " << exc.what() << std::endl;
      return 1;
    }
  return 0;
}
