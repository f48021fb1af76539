// deal.II 9.8's step-64 with deal.II's CPU MatrixFree in place of Portable::MatrixFree: the
// third program of benchmarks/step64.sh (doc/performance.md, "Whole programs against deal.II"). The same
// problem (-laplace u + a(x) u = 1 on the unit cube, a(x) = 10 / (0.05 + 2 |x|^2), zero Dirichlet
// values), the same discretization (FE_Q(3), MappingQ(3), QGauss(4), global refinement), the same
// solver (CG preconditioned by Chebyshev of degree 5 around the inverse diagonal from
// MatrixFreeTools::compute_diagonal, smoothing range 15, 10 CG steps to estimate eigenvalues), the
// same output (VTU files and the solution's L2 norm), and the timings that step64-bench.sed adds to
// deal.II's step-64 and to its gpumf port:
//   Time setup <s>                      setup_system(): DoFs, constraints, the operator
//   Time solve (<n> iterations) <s>     the diagonal, the preconditioner and CG
//   Time vmult <s>                      one operator application (the mean of 20)
// GPUMF_STEP64_CYCLES sets the number of cycles (default step-64's 7 - dim = 4).
// Builds against every deal.II gpumf supports; the cell kernel is compiled for degree 3, with
// FEEvaluation's even-odd tensor-product kernels, vectorized as deal.II was built (Debian's:
// one lane).
#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>
#include <deal.II/numerics/data_out.h>
#include <deal.II/numerics/vector_tools.h>

#include <cstdlib>
#include <iostream>
#include <memory>

using namespace dealii;

namespace
{
  using VectorType = LinearAlgebra::distributed::Vector<double>;

#if DEAL_II_VERSION_GTE(9, 7, 0)
  using ObservedBase = EnableObserverPointer; // (PreconditionChebyshev observes the operator)
#else
  using ObservedBase = Subscriptor;
#endif

  template <int dim, int fe_degree>
  class HelmholtzOperator : public ObservedBase
  {
  public:
    using Evaluation = FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double>;

    HelmholtzOperator(const DoFHandler<dim> &dof_handler, const AffineConstraints<double> &constraints)
    {
      typename MatrixFree<dim, double>::AdditionalData additional_data;
      additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
      additional_data.mapping_update_flags =
        update_values | update_gradients | update_JxW_values | update_quadrature_points;
      const MappingQ<dim> mapping(fe_degree);
      matrix_free.reinit(mapping, dof_handler, constraints, QGauss<1>(fe_degree + 1), additional_data);

      // a(x) = 10 / (0.05 + 2 |x|^2) at every quadrature point, as step-64's coefficient functor
      Evaluation phi(matrix_free);
      coefficient.reinit(matrix_free.n_cell_batches(), phi.n_q_points);
      for (unsigned int cell = 0; cell < matrix_free.n_cell_batches(); ++cell)
        {
          phi.reinit(cell);
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            {
              const Point<dim, VectorizedArray<double>> p = phi.quadrature_point(q);
              coefficient(cell, q)                        = 10. / (0.05 + 2. * p.norm_square());
            }
        }
    }

    void
    initialize_dof_vector(VectorType &vector) const
    {
      matrix_free.initialize_dof_vector(vector);
    }

    void
    local_apply(Evaluation &phi) const
    {
      const unsigned int cell = phi.get_current_cell_index();
      phi.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
      for (unsigned int q = 0; q < phi.n_q_points; ++q)
        {
          phi.submit_value(coefficient(cell, q) * phi.get_value(q), q);
          phi.submit_gradient(phi.get_gradient(q), q);
        }
      phi.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
    }

    void
    local_apply_range(const MatrixFree<dim, double>               &data,
                      VectorType                                  &dst,
                      const VectorType                            &src,
                      const std::pair<unsigned int, unsigned int> &range) const
    {
      Evaluation phi(data);
      for (unsigned int cell = range.first; cell < range.second; ++cell)
        {
          phi.reinit(cell);
          phi.read_dof_values(src);
          local_apply(phi);
          phi.distribute_local_to_global(dst);
        }
    }

    // dst = A src; the constrained entries copied from src, as step-64's vmult does
    void
    vmult(VectorType &dst, const VectorType &src) const
    {
      matrix_free.cell_loop(&HelmholtzOperator::local_apply_range, this, dst, src, true);
      for (const unsigned int i : matrix_free.get_constrained_dofs())
        dst.local_element(i) = src.local_element(i);
    }

    void
    compute_inverse_diagonal()
    {
      inverse_diagonal     = std::make_shared<DiagonalMatrix<VectorType>>();
      VectorType &diagonal = inverse_diagonal->get_vector();
      initialize_dof_vector(diagonal);
      MatrixFreeTools::compute_diagonal(matrix_free, diagonal, &HelmholtzOperator::local_apply, this);
      // the constrained rows are the identity (vmult copies them), as Portable's compute_diagonal
      // sets them; the CPU one leaves zero there
      for (const unsigned int i : matrix_free.get_constrained_dofs())
        diagonal.local_element(i) = 1.;
      for (unsigned int i = 0; i < diagonal.locally_owned_size(); ++i)
        {
          AssertThrow(diagonal.local_element(i) > 0.,
                      ExcMessage("No diagonal entry in a positive definite operator should be zero"));
          diagonal.local_element(i) = 1. / diagonal.local_element(i);
        }
    }

    std::shared_ptr<DiagonalMatrix<VectorType>>
    get_matrix_diagonal_inverse() const
    {
      return inverse_diagonal;
    }

    types::global_dof_index
    m() const
    {
      return matrix_free.get_dof_handler().n_dofs();
    }

    types::global_dof_index
    n() const
    {
      return m();
    }

    double
    el(const types::global_dof_index row, const types::global_dof_index col) const
    {
      return row == col ? 1. / (*inverse_diagonal)(row, row) : 0.;
    }

  private:
    MatrixFree<dim, double>                     matrix_free;
    Table<2, VectorizedArray<double>>           coefficient;
    std::shared_ptr<DiagonalMatrix<VectorType>> inverse_diagonal;
  };

  template <int dim, int fe_degree>
  class HelmholtzProblem
  {
  public:
    HelmholtzProblem()
      : comm(MPI_COMM_WORLD)
      , pcout(std::cout, Utilities::MPI::this_mpi_process(comm) == 0)
      , triangulation(comm)
      , fe(fe_degree)
      , dof_handler(triangulation)
    {}

    void
    run()
    {
      const char        *cycles_variable = std::getenv("GPUMF_STEP64_CYCLES");
      const unsigned int n_cycles        = cycles_variable != nullptr ? std::atoi(cycles_variable) : 7 - dim;
      for (unsigned int cycle = 0; cycle < n_cycles; ++cycle)
        {
          pcout << "Cycle " << cycle << std::endl;
          if (cycle == 0)
            GridGenerator::hyper_cube(triangulation, 0., 1.);
          triangulation.refine_global(1);

          Timer setup_timer;
          setup_system();
          pcout << "  Time setup " << setup_timer.wall_time() << " s" << std::endl;
          pcout << "   Number of active cells:       " << triangulation.n_global_active_cells() << std::endl
                << "   Number of degrees of freedom: " << dof_handler.n_dofs() << std::endl;
          assemble_rhs();
          solve();
          output_results(cycle);
          pcout << std::endl;
        }
    }

  private:
    void
    setup_system()
    {
      dof_handler.distribute_dofs(fe);
      const IndexSet &locally_owned_dofs = dof_handler.locally_owned_dofs();
#if DEAL_II_VERSION_GTE(9, 5, 0)
      const IndexSet locally_relevant_dofs = DoFTools::extract_locally_relevant_dofs(dof_handler);
      constraints.clear();
      constraints.reinit(locally_owned_dofs, locally_relevant_dofs);
#else
      IndexSet locally_relevant_dofs;
      DoFTools::extract_locally_relevant_dofs(dof_handler, locally_relevant_dofs);
      constraints.clear();
      constraints.reinit(locally_relevant_dofs);
#endif
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      VectorTools::interpolate_boundary_values(dof_handler, 0, Functions::ZeroFunction<dim>(), constraints);
      constraints.close();
      system_matrix = std::make_unique<HelmholtzOperator<dim, fe_degree>>(dof_handler, constraints);
      ghost_solution.reinit(locally_owned_dofs, locally_relevant_dofs, comm);
      system_matrix->initialize_dof_vector(solution);
      system_matrix->initialize_dof_vector(system_rhs);
    }

    // f = 1, assembled with FEValues as step-64 does
    void
    assemble_rhs()
    {
      VectorType     rhs(dof_handler.locally_owned_dofs(), ghost_solution.get_partitioner()->ghost_indices(), comm);
      QGauss<dim>    quadrature(fe_degree + 1);
      FEValues<dim>  fe_values(fe, quadrature, update_values | update_JxW_values);
      Vector<double> cell_rhs(fe.n_dofs_per_cell());
      std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            cell_rhs = 0;
            fe_values.reinit(cell);
            for (unsigned int q = 0; q < quadrature.size(); ++q)
              for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
                cell_rhs(i) += fe_values.shape_value(i, q) * 1.0 * fe_values.JxW(q);
            cell->get_dof_indices(indices);
            constraints.distribute_local_to_global(cell_rhs, indices, rhs);
          }
      rhs.compress(VectorOperation::add);
      system_rhs.copy_locally_owned_data_from(rhs);
    }

    void
    solve()
    {
      Timer solve_timer;
      system_matrix->compute_inverse_diagonal();
      using Preconditioner = PreconditionChebyshev<HelmholtzOperator<dim, fe_degree>, VectorType>;
      typename Preconditioner::AdditionalData additional_data;
      additional_data.smoothing_range     = 15.;
      additional_data.degree              = 5;
      additional_data.eig_cg_n_iterations = 10;
      additional_data.constraints.copy_from(constraints);
      additional_data.preconditioner = system_matrix->get_matrix_diagonal_inverse();
      Preconditioner preconditioner;
      preconditioner.initialize(*system_matrix, additional_data);
      SolverControl        solver_control(system_rhs.size(), 1e-12 * system_rhs.l2_norm());
      SolverCG<VectorType> cg(solver_control);
      cg.solve(*system_matrix, solution, system_rhs, preconditioner);
      pcout << "  Time solve (" << solver_control.last_step() << " iterations) " << solve_timer.wall_time() << " s"
            << std::endl;
      {
        VectorType product;
        system_matrix->initialize_dof_vector(product);
        const unsigned int n_products = 20;
        Timer              vmult_timer;
        for (unsigned int i = 0; i < n_products; ++i)
          system_matrix->vmult(product, solution);
        const double norm = product.l2_norm();
        pcout << "  Time vmult " << vmult_timer.wall_time() / n_products << " s (|A u| = " << norm << ")" << std::endl;
      }
      pcout << "  Solved in " << solver_control.last_step() << " iterations." << std::endl;

      ghost_solution.copy_locally_owned_data_from(solution);
      constraints.distribute(ghost_solution);
      ghost_solution.update_ghost_values();
    }

    void
    output_results(const unsigned int cycle) const
    {
      DataOut<dim> data_out;
      data_out.attach_dof_handler(dof_handler);
      data_out.add_data_vector(ghost_solution, "solution");
      data_out.build_patches();
      DataOutBase::VtkFlags flags;
#if DEAL_II_VERSION_GTE(9, 5, 0)
      flags.compression_level = DataOutBase::CompressionLevel::best_speed;
#else
      flags.compression_level = DataOutBase::VtkFlags::ZlibCompressionLevel::best_speed;
#endif
      data_out.set_flags(flags);
      data_out.write_vtu_with_pvtu_record("./", "solution", cycle, comm, 2);

      Vector<float> cellwise_norm(triangulation.n_active_cells());
      VectorTools::integrate_difference(dof_handler,
                                        ghost_solution,
                                        Functions::ZeroFunction<dim>(),
                                        cellwise_norm,
                                        QGauss<dim>(fe.degree + 2),
                                        VectorTools::L2_norm);
      const double global_norm = VectorTools::compute_global_error(triangulation, cellwise_norm, VectorTools::L2_norm);
      pcout << "  solution norm: " << global_norm << std::endl;
    }

    MPI_Comm                                           comm;
    ConditionalOStream                                 pcout;
    parallel::distributed::Triangulation<dim>          triangulation;
    FE_Q<dim>                                          fe;
    DoFHandler<dim>                                    dof_handler;
    AffineConstraints<double>                          constraints;
    std::unique_ptr<HelmholtzOperator<dim, fe_degree>> system_matrix;
    VectorType                                         ghost_solution, solution, system_rhs;
  };
} // namespace

int
main(int argc, char *argv[])
{
  try
    {
      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);
      HelmholtzProblem<3, 3>           problem;
      problem.run();
    }
  catch (std::exception &exc)
    {
      std::cerr << "Exception: " << exc.what() << std::endl;
      return 1;
    }
  return 0;
}
