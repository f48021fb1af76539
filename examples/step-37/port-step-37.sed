# Ports deal.II 9.4.1's step-37 (libdeal.ii-doc: examples/step-37/step-37.cc) to gpumf: the
# Laplace operator of every multigrid level, the transfer, the smoothers and the double CG run
# on the GPU (or gpumf's host backend). Applied at build time by examples/step-37/CMakeLists.txt;
# every change is numbered as in the table of doc/porting.md, which says why.
# Usage: sed -f port-step-37.sed step-37.cc > step-37.cu

# 1. Headers: gpumf's MatrixFree, FEEvaluation, operator base class and multigrid transfer
#    instead of deal.II's CPU ones.
s|^#include <deal.II/multigrid/mg_transfer_matrix_free.h>|#include <gpumf/mg_transfer.h>|
s|^#include <deal.II/matrix_free/matrix_free.h>|#include <gpumf/matrix_free.h>|
s|^#include <deal.II/matrix_free/operators.h>|#include <gpumf/operator_base.h>|
s|^#include <deal.II/matrix_free/fe_evaluation.h>|#include <gpumf/fe_evaluation.h>\
#include <gpumf/operators.h>\
#include <gpumf/vector.h>\
#include <gpumf/vector_tools.h>\
\
#include <deal.II/dofs/dof_tools.h>\
#include <deal.II/lac/read_write_vector.h>|

# 2. Vector types (not in comments): gpumf::Vector, in GPU memory, for the level vectors
#    (float), the solution and the right-hand side (double).
/^ *\/\//!s/LinearAlgebra::distributed::Vector<\(number\|float\|double\)>/gpumf::Vector<\1>/g

# 3. Namespaces (not in comments): gpumf's MatrixFree, MatrixFreeOperators::Base,
#    MGInterfaceOperator and MGTransferMatrixFree.
/^ *\/\//!s/\bMatrixFreeOperators::/gpumf::MatrixFreeOperators::/g
/^ *\/\//!s/\bMatrixFree</gpumf::MatrixFree</g
/^ *\/\//!s/\bMGTransferMatrixFree</gpumf::MGTransferMatrixFree</g

# 4. gpumf's MatrixFree has no task parallelism on the host: no tasks_parallel_scheme.
/^ *additional_data\.tasks_parallel_scheme =$/{
N
d
}

# 5. The coefficient is evaluated at the quadrature points on the device: its templated value()
#    becomes a static __host__ __device__ function (it uses no member), with Tensor's constexpr
#    norm_square() (deal.II's Point::square() is host-only in a build without CUDA).
s|^    number value(const Point<dim, number> &p,$|    static __host__ __device__ number value(const Point<dim, number> \&p,|
s|^\(                 const unsigned int        component = 0)\) const;$|\1;|
s|^  number Coefficient<dim>::value(const Point<dim, number> &p,$|  __host__ __device__ number Coefficient<dim>::value(const Point<dim, number> \&p,|
s|^\( *const unsigned int /\*component\*/)\) const$|\1|
s|return 1\. / (0\.05 + 2\. \* p\.square());|return 1. / (0.05 + 2. * p.norm_square());|

# 6. LaplaceOperator: the cell work of local_apply() and local_compute_diagonal() moves into a
#    device functor (7, 8), a member; the member functions go, the coefficient table becomes an
#    array on the device (one entry per quadrature point of each cell).
/^      const gpumf::Vector<number> &src) const override;$/,/^    Table<2, VectorizedArray<number>> coefficient;$/c\
      const gpumf::Vector<number> &src) const override;\
\
    gpumf::Vector<number> coefficient;\
    // the cell work (8), made with the coefficient in evaluate_coefficient()\
    typename gpumf::LaplaceOperator<dim, fe_degree, fe_degree + 1, 1, number>::CellOperator cell_operator;
s|^    coefficient\.reinit(0, 0);$|    coefficient.reinit(0);|

# 7. evaluate_coefficient(): a functor fills the coefficient at every quadrature point on the
#    device (as step-64's VaryingCoefficientFunctor).
/^  void LaplaceOperator<dim, fe_degree, number>::evaluate_coefficient($/,/^  }$/c\
  struct CoefficientFunctor\
  {\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = Utilities::pow(n_dofs_1d, dim);\
    static constexpr unsigned int n_q_points   = Utilities::pow(n_dofs_1d, dim);\
\
    number *coefficient;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                    cell,\
               const typename gpumf::MatrixFree<dim, number>::Data *data) const\
    {\
      const unsigned int q =\
        gpumf::local_q_point_id<dim, number>(cell, data, n_dofs_1d, n_q_points);\
      coefficient[q] = Coefficient<dim>::template value<number>(\
        gpumf::get_quadrature_point<dim, number>(cell, data, n_dofs_1d));\
    }\
  };\
\
\
\
  // gpumf: the functor above evaluates Coefficient<dim>::value() (static) at every\
  // quadrature point of the cells on the device.\
  template <int dim, int fe_degree, typename number>\
  void LaplaceOperator<dim, fe_degree, number>::evaluate_coefficient(\
    const Coefficient<dim> & /*coefficient_function*/)\
  {\
    using Functor = CoefficientFunctor<dim, fe_degree, number>;\
    coefficient.reinit(this->data->n_cells() * Functor::n_q_points);\
    this->data->evaluate_coefficients(Functor{coefficient.get_values()});\
    cell_operator = decltype(cell_operator)::make(\
      *this->data, nullptr, coefficient.get_values());\
  }

# 8. local_apply() and local_compute_diagonal(): one device functor, gpumf's ready Laplace cell
#    operation (LaplaceCellOperator, a member made in (7) with the coefficient per quadrature
#    point in local_q_point_id() order): its first operator() is local_apply() on one cell (read,
#    gradients, coefficient times gradient, integrate, distribute; for gpumf::MatrixFree::
#    cell_loop()), its second adds column i of the cell matrix to the diagonal (for
#    diagonal_loop()). In 3D it runs the ready kernel on the GPU (doc/performance.md); the same
#    work written with gpumf::FEEvaluation compiles and runs on the slower general path.
/^  void LaplaceOperator<dim, fe_degree, number>::local_apply($/,/^  }$/c\
  using LaplaceCellOperator =\
    typename gpumf::LaplaceOperator<dim, fe_degree, fe_degree + 1, 1, number>::CellOperator;
s|^    this->data->cell_loop(&LaplaceOperator::local_apply, this, dst, src);$|    this->data->cell_loop(\
      cell_operator,\
      src,\
      dst);|

# 9. compute_diagonal(): the diagonal from the functor's second operator() (8), summed over the
#    cells on the device; Base::set_diagonal() sets the constrained and refinement-edge entries
#    to one and inverts (what the loop over local_element() did on the host).
/^    this->inverse_diagonal_entries\.reset($/,/^  }$/c\
    gpumf::Vector<number> diagonal;\
    this->data->initialize_dof_vector(diagonal);\
    this->data->diagonal_loop(\
      cell_operator,\
      diagonal);\
    this->set_diagonal(std::move(diagonal));\
  }
/^  \/\/ In the local compute loop, we compute the diagonal by a loop over all$/,/^  }$/d

# 10. The level MatrixFree<dim, float> takes AffineConstraints<float> (deal.II's converts).
s|^        AffineConstraints<double> level_constraints;$|        AffineConstraints<float> level_constraints;|

# 11. assemble_rhs(): the loop over cell batches becomes a device functor for cell_loop()
#     (which also does the compress()); its source vector is not read.
/^  void LaplaceProblem<dim>::assemble_rhs()$/c\
  struct RightHandSide\
  {\
    using FEEval = gpumf::FEEvaluation<dim, degree_finite_element>;\
\
    static constexpr unsigned int n_dofs_1d    = degree_finite_element + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                    cell,\
               const typename gpumf::MatrixFree<dim, double>::Data *data,\
               gpumf::SharedData<dim, double> *                      shared,\
               const double * /*src*/,\
               double *dst) const\
    {\
      FEEval phi(cell, data, shared);\
      phi.apply_for_each_quad_point(\
        [](FEEval *p, const unsigned int q) { p->submit_value(1.0, q); });\
      phi.integrate(true, false);\
      phi.distribute_local_to_global(dst);\
    }\
  };\
\
\
\
  template <int dim>\
  void LaplaceProblem<dim>::assemble_rhs()
/^    FEEvaluation<dim, degree_finite_element> phi($/,/^    system_rhs\.compress(VectorOperation::add);$/c\
    system_matrix.get_matrix_free()->cell_loop(RightHandSide<dim>(),\
                                               solution,\
                                               system_rhs);

# 12. AffineConstraints::distribute() becomes gpumf::VectorTools::distribute_constraints() on
#     the system operator's MatrixFree (on the device; step-37's constraints, hanging nodes and
#     zero Dirichlet values, are homogeneous), and DataOut gets the host copy gpumf::host_copy().
s|^    constraints\.distribute(solution);$|    gpumf::VectorTools::distribute_constraints(*system_matrix.get_matrix_free(),\
                                               constraints,\
                                               solution);|
/^    solution\.update_ghost_values();$/c\
    const LinearAlgebra::distributed::Vector<double> solution_host =\
      gpumf::host_copy(solution, constraints);
s|^    data_out\.add_data_vector(solution, "solution");$|    data_out.add_data_vector(solution_host, "solution");|

# 13. One GPU per MPI rank (or the host backend, with a notice, where there is none).
/^      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);$/a\
      gpumf::select_device(MPI_COMM_WORLD);

# 14. Threads: gpumf's set-up (MatrixFree::reinit, MGTransferMatrixFree::build) runs in deal.II's
#     threads. deal.II's step-37 limits each rank to one thread (one rank per core); with one rank
#     per GPU the cores of the node are shared by the ranks on it (MPI_InitFinalize's default).
s|^      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);$|      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv,\
                                                numbers::invalid_unsigned_int);|

# 15. Set-up profile: with the environment variable GPUMF_SETUP_PROFILE set, step-37's own
#     detailed timings (time_details) and gpumf's parts of them (gpumf/setup_profile.h) are
#     printed after each "Total setup time".
s|^                   false &&$|                   std::getenv("GPUMF_SETUP_PROFILE") \&\&|
/^    pcout << "Total setup time               (wall) " << setup_time << "s\\n";$/a\
    if (std::getenv("GPUMF_SETUP_PROFILE") != nullptr &&\
        Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)\
      gpumf::print_setup_profile(std::cout, "  gpumf ");\
    gpumf::reset_setup_profile();
s|^#include <gpumf/mg_transfer.h>$|&\
#include <gpumf/setup_profile.h>|
