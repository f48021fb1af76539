# Ports deal.II's step-66 (9.4.1 and 9.6.2; libdeal.ii-doc: examples/step-66/step-66.cc) to gpumf: the Gelfand
# problem -Laplace u = exp(u) by Newton's method on a curved ball (MappingQ of degree 4), each
# Newton step's Jacobian -Laplace - exp(u) on every multigrid level from the solution interpolated
# to the levels, float geometric multigrid inside a double CG. The residual, the Jacobian and its
# level coefficients, the transfer, the smoothers, the constraints and the solution norm run on the
# GPU (or gpumf's host backend). Applied at build time by examples/step-66/CMakeLists.txt; every
# change is numbered as in the table of doc/porting.md, which says why.
# Usage: sed -f port-step-66.sed step-66.cc > step-66.cu

# 1. Headers: gpumf's MatrixFree, FEEvaluation, operators, vectors, norms and multigrid transfer
#    instead of deal.II's CPU ones (MatrixFreeTools' diagonal is the operator's).
s|^#include <deal.II/multigrid/mg_transfer_matrix_free.h>|#include <gpumf/mg_transfer.h>|
s|^#include <deal.II/matrix_free/matrix_free.h>|#include <gpumf/matrix_free.h>|
s|^#include <deal.II/matrix_free/operators.h>|#include <gpumf/operator_base.h>|
/^#include <deal.II\/matrix_free\/tools.h>$/d
s|^#include <deal.II/matrix_free/fe_evaluation.h>|#include <gpumf/fe_evaluation.h>\
#include <gpumf/operators.h>\
#include <gpumf/vector.h>\
#include <gpumf/vector_tools.h>\
\
#include <deal.II/lac/la_parallel_vector.h>|

# 2. Vector types (not in comments): gpumf::Vector, in GPU memory, for the level vectors
#    (float), the solution, the Newton update and the right-hand side (double).
/^ *\/\//!s/LinearAlgebra::distributed::Vector<\(number\|float\|double\)>/gpumf::Vector<\1>/g

# 3. Namespaces (not in comments): gpumf's MatrixFree, MatrixFreeOperators (MGInterfaceOperator)
#    and MGTransferMatrixFree.
/^ *\/\//!s/\bMatrixFreeOperators::/gpumf::MatrixFreeOperators::/g
/^ *\/\//!s/\bMatrixFree</gpumf::MatrixFree</g
/^ *\/\//!s/\bMGTransferMatrixFree</gpumf::MGTransferMatrixFree</g

# 4. gpumf's MatrixFree has no task parallelism on the host: no tasks_parallel_scheme.
/^ *additional_data\.tasks_parallel_scheme =$/{
N
d
}

# 5. JacobianOperator: gpumf's ready Helmholtz operator (grad u, grad v) + (a u, v) with the value
#    coefficient a = -exp(u) at every quadrature point, set on the device each Newton step (6).
#    Its vmult (the ready kernel in 3D on the GPU, the curved geometry merged with a) and its
#    diagonal (compute_diagonal(): each cell matrix's diagonal on the device, constrained entries
#    one, inverted) replace local_apply(), apply_add(), local_compute_diagonal() and
#    compute_diagonal(); the coefficient table becomes a vector on the device.
/^    : public gpumf::MatrixFreeOperators::$/,/^        Base<dim, gpumf::Vector<number>>$/c\
    : public gpumf::HelmholtzOperator<dim, fe_degree, fe_degree + 1, 1, number>
s|^      FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;$|      gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;|
/^    virtual void compute_diagonal() override;$/,/^    Table<2, VectorizedArray<number>> nonlinear_values;$/c\
  private:\
    // -exp(u) at the quadrature points of the cells, local_q_point_id() order (6)\
    gpumf::Vector<number> nonlinear_values;
/^  JacobianOperator<dim, fe_degree, number>::JacobianOperator()$/,/^  {}$/c\
  JacobianOperator<dim, fe_degree, number>::JacobianOperator()\
  {}
/^    nonlinear_values\.reinit(0, 0);$/,/^      clear();$/c\
    nonlinear_values.reinit(0);\
    gpumf::HelmholtzOperator<dim, fe_degree, fe_degree + 1, 1, number>::clear();

# 6. evaluate_newton_step(): a device functor reads the Newton iterate (read_dof_values_plain(),
#    boundary values as they are), evaluates it at the quadrature points and stores -exp(u) there,
#    through MatrixFree::evaluate_coefficients(functor, src) (a loop over the cells without a
#    destination); the result becomes the operator's value coefficient on the device.
/^  void JacobianOperator<dim, fe_degree, number>::evaluate_newton_step($/,/^  }$/c\
  struct NonlinearValues\
  {\
    using FECellIntegrator =\
      gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
\
    static constexpr unsigned int n_dofs_1d = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs =\
      FECellIntegrator::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points = FECellIntegrator::n_q_points;\
\
    number *values;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                    cell,\
               const typename gpumf::MatrixFree<dim, number>::Data *data,\
               gpumf::SharedData<dim, number> *                      shared,\
               const number *newton_step) const\
    {\
      FECellIntegrator phi(cell, data, shared);\
      phi.read_dof_values_plain(newton_step);\
      phi.evaluate(true, false);\
      number *const out = values;\
      phi.apply_for_each_quad_point(\
        [out, cell, data](FECellIntegrator *p, const unsigned int q) {\
          out[data->local_q_point_id(cell, n_q_points, q)] =\
            -std::exp(p->get_value(q));\
        });\
    }\
  };\
\
\
\
  template <int dim, int fe_degree, typename number>\
  void JacobianOperator<dim, fe_degree, number>::evaluate_newton_step(\
    const gpumf::Vector<number> &newton_step)\
  {\
    using Functor = NonlinearValues<dim, fe_degree, number>;\
    nonlinear_values.reinit(this->get_matrix_free()->n_cells() *\
                            Functor::n_q_points);\
    this->get_matrix_free()->evaluate_coefficients(\
      Functor{nonlinear_values.get_values()}, newton_step);\
    this->set_value_coefficient(nonlinear_values);\
  }

# (5, 7) The member functions whose work moved into the base class or a functor go, with their
#     template line (sed reads it with the next line): local_apply() leaves a note.
/^  template <int dim, int fe_degree\(, typename number\)\?>$/{
N
/\n  void \(JacobianOperator<dim, fe_degree, number>::\(local_apply(\|apply_add(\|local_compute_diagonal(\|compute_diagonal()\)\|GelfandProblem<dim, fe_degree>::local_evaluate_residual(\)$/{
:gone
N
/\n  }$/!bgone
/::local_apply(/c\
  // gpumf: local_apply(), apply_add(), local_compute_diagonal() and compute_diagonal() are the\
  // cell work and the diagonal of gpumf::HelmholtzOperator, the base class.
/::local_evaluate_residual(/c\
  // gpumf: the cell work of local_evaluate_residual() is the functor Residual above.
d
}
P
D
}

# 7. evaluate_residual(): the cell loop of local_evaluate_residual() becomes a device functor for
#    cell_loop() (zero_dst as in deal.II's call; the loop also does the compress()).
/^    void local_evaluate_residual($/,/^      const std::pair<unsigned int, unsigned int> *& *cell_range) const;$/d
/^  void GelfandProblem<dim, fe_degree>::evaluate_residual($/i\
  struct Residual\
  {\
    using FEEval = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double>;\
\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                    cell,\
               const typename gpumf::MatrixFree<dim, double>::Data *data,\
               gpumf::SharedData<dim, double> *                      shared,\
               const double *                                        src,\
               double *                                              dst) const\
    {\
      FEEval phi(cell, data, shared);\
      phi.read_dof_values_plain(src);\
      phi.evaluate(true, true);\
      phi.apply_for_each_quad_point([](FEEval *p, const unsigned int q) {\
        p->submit_value(-std::exp(p->get_value(q)), q);\
        p->submit_gradient(p->get_gradient(q), q);\
      });\
      phi.integrate(true, true);\
      phi.distribute_local_to_global(dst);\
    }\
  };\
\
\
\
  template <int dim, int fe_degree>
s|^      &GelfandProblem::local_evaluate_residual, this, dst, src, true);$|      Residual<dim, fe_degree>{}, src, dst, true);|

# 8. The level MatrixFree<dim, float> takes AffineConstraints<float> (deal.II's converts).
#    (deal.II 9.4: default-constructed, then reinit(); 9.6: constructed from the index sets)
s|^        AffineConstraints<double> level_constraints\([;(]\)$|        AffineConstraints<float> level_constraints\1|

# 9. The Newton update's hanging nodes (and zero boundary values) on the device.
s|^    constraints\.distribute(newton_update);$|    gpumf::VectorTools::distribute_constraints(*system_matrix.get_matrix_free(),\
                                               constraints,\
                                               newton_update);|

# 10. compute_solution_norm(): the H1 seminorm on the device, on a second gpumf::MatrixFree
#     (norm_data) with the norm's quadrature QGauss(fe.degree + 2) as in deal.II;
#     integrate_difference() and compute_global_error() in one call.
/^    SystemMatrixType system_matrix;$/a\
    // gpumf: the cells with the quadrature of compute_solution_norm()\
    gpumf::MatrixFree<dim, double> norm_data;
/^      system_matrix\.initialize(system_mf_storage);$/a\
      norm_data.reinit(\
        mapping, dof_handler, constraints, QGauss<1>(fe.degree + 2));
/^  double GelfandProblem<dim, fe_degree>::compute_solution_norm() const$/,/^  }$/c\
  double GelfandProblem<dim, fe_degree>::compute_solution_norm() const\
  {\
    return gpumf::VectorTools::integrate_difference<fe_degree, fe_degree + 2>(\
      norm_data,\
      solution,\
      gpumf::VectorTools::ZeroFunction<dim>(),\
      gpumf::VectorTools::H1_seminorm);\
  }

# 11. output_results(): DataOut takes deal.II's vectors: the ghosted host copy of the solution.
/output_results(const unsigned int cycle) const$/,/^  }$/{
/^    solution\.update_ghost_values();$/d
/^    solution\.zero_out_ghost_values();$/d
s|^    data_out\.attach_dof_handler(dof_handler);$|    const LinearAlgebra::distributed::Vector<double> solution_host =\
      gpumf::host_copy(solution, constraints);\
    data_out.attach_dof_handler(dof_handler);|
s|^    data_out\.add_data_vector(solution, "solution");$|    data_out.add_data_vector(solution_host, "solution");|
}

# 12. One GPU per rank (or the host backend with a notice); gpumf's set-up runs in deal.II's
#     threads: no limit of one thread per rank.
s|^      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);$|      Utilities::MPI::MPI_InitFinalize mpi_init(argc,\
                                                argv,\
                                                numbers::invalid_unsigned_int);\
      gpumf::select_device(MPI_COMM_WORLD);|

# 13. gpumf's set-up profile (doc/performance.md; rank 0's) with GPUMF_SETUP_PROFILE set, after
#     each cycle's set-up, from the unchanged program flow.
s|^        setup_system();$|        gpumf::reset_setup_profile();\
        setup_system();\
        if (std::getenv("GPUMF_SETUP_PROFILE") != nullptr \&\&\
            Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)\
          gpumf::print_setup_profile(std::cout, "   gpumf set-up: ");|
1i #include <gpumf/setup_profile.h>\n\n#include <cstdlib>
