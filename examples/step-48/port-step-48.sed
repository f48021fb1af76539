# Ports deal.II 9.4.1's step-48 (libdeal.ii-doc: examples/step-48/step-48.cc) to gpumf: the
# sine-Gordon time step (the nonlinear cell operator on the current and the old solution, the
# inverse lumped mass matrix), the inverse mass matrix itself and the vectors of the time
# stepping live on the GPU (or gpumf's host backend), and so do the norm of the output steps
# and the distribution of the hanging nodes before it; the initial interpolation and the VTU
# output stay deal.II's, on host copies. Applied at build time by examples/step-48/CMakeLists.txt;
# every change is numbered as in the table of doc/porting.md, which says why. Later scripts
# (tests/step48-test.sed, benchmarks/step48-bench.sed) run in the same sed call: lines this
# script writes with a, i or c are not seen by them, so they address deal.II's own lines.
# Usage: sed -f port-step-48.sed step-48.cc > step-48.cu

# 1. Headers: gpumf's MatrixFree, FEEvaluation and Vector instead of deal.II's CPU MatrixFree
#    and FEEvaluation, plus what deal.II's matrix-free headers brought in (ReadWriteVector for
#    the host copies, VectorizedArray and MultithreadInfo for the lines run() prints).
s|^#include <deal.II/matrix_free/matrix_free.h>|#include <gpumf/matrix_free.h>|
s|^#include <deal.II/matrix_free/fe_evaluation.h>|#include <gpumf/fe_evaluation.h>\
#include <gpumf/vector.h>\
#include <gpumf/vector_tools.h>\
\
#include <deal.II/base/multithread_info.h>\
#include <deal.II/base/vectorization.h>\
#include <deal.II/lac/read_write_vector.h>|

# 2. Vector type (not in comments): gpumf::Vector, in GPU memory, for the three solutions, the
#    inverse mass matrix and the operator's arguments.
/^ *\/\//!s/LinearAlgebra::distributed::Vector<double>/gpumf::Vector<double>/g

# 3. Namespace (not in comments): gpumf's MatrixFree.
/^ *\/\//!s/\bMatrixFree</gpumf::MatrixFree</g

# 4. gpumf's MatrixFree has no task parallelism on the host: no tasks_parallel_scheme.
/^    additional_data\.tasks_parallel_scheme =$/{
N
d
}

# 5. delta_t^2 is a plain double (one cell per thread block on the GPU, no SIMD batches):
#    VectorizedArray<double> and make_vectorized_array() go.
s|^    const VectorizedArray<double>              delta_t_sqr;$|    const double                               delta_t_sqr;|
s|^    , delta_t_sqr(make_vectorized_array(time_step \* time_step))$|    , delta_t_sqr(time_step * time_step)|

# 6. The member local_apply() goes: its work moves into a device functor (8).
/^    void local_apply($/,/^      const std::pair<unsigned int, unsigned int> &cell_range) const;$/d

# 7. The inverse lumped mass matrix: the loop over cell batches (submit 1 at every point,
#    integrate values, distribute) becomes a device functor for cell_loop() (which also does
#    the compress(); its source vector is not read), and the loop over the owned entries
#    (1/x where x > 1e-15, else 1: the constrained DoFs) a Vector::transform() on the device.
/^  \/\/ @sect4{SineGordonOperation::SineGordonOperation}$/i\
  // gpumf: the cell work of the mass matrix diagonal below, for\
  // gpumf::MatrixFree::cell_loop(): the function 1 integrated against every test\
  // function of the cell.\
  template <int dim, int fe_degree>\
  struct MassMatrixDiagonal\
  {\
    using FEEval = gpumf::FEEvaluation<dim, fe_degree>;\
\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
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
      FEEval fe_eval(cell, data, shared);\
      fe_eval.apply_for_each_quad_point(\
        [](FEEval *phi, const unsigned int q) { phi->submit_value(1., q); });\
      fe_eval.integrate(true, false);\
      fe_eval.distribute_local_to_global(dst);\
    }\
  };\
\
\
\
  // gpumf: the inversion of the mass matrix diagonal, entry by entry on the\
  // device (gpumf::Vector::transform()).\
  struct InverseOrOne\
  {\
    __host__ __device__ double\
    operator()(const double x) const\
    {\
      return x > 1e-15 ? 1. / x : 1.;\
    }\
  };\
\
\

/^    FEEvaluation<dim, fe_degree> fe_eval(data);$/,/^        inv_mass_matrix\.local_element(k) = 1;$/c\
    gpumf::Vector<double> unused_src;\
    data.initialize_dof_vector(unused_src);\
    data.cell_loop(MassMatrixDiagonal<dim, fe_degree>(),\
                   unused_src,\
                   inv_mass_matrix);\
    inv_mass_matrix.transform(InverseOrOne());

# 8. local_apply(): a device functor for cell_loop(), the same work per cell: read the current
#    and the old solution (src[0], src[1]), values and gradients of the current one, values of
#    the old one, at each point 2 u - u_old - dt^2 sin(u) as value and -dt^2 grad u as
#    gradient, integrate, distribute. It declares n_fe_evaluations = 2 (two FEEvaluation
#    objects, each with its own scratch); the point loop runs over the thread's points.
/^  void SineGordonOperation<dim, fe_degree>::local_apply($/,/^  }$/c\
  struct SineGordonCellOperation\
  {\
    using FEEval = gpumf::FEEvaluation<dim, fe_degree>;\
\
    static constexpr unsigned int n_dofs_1d        = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs     = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points       = FEEval::n_q_points;\
    static constexpr unsigned int n_fe_evaluations = 2;\
\
    double delta_t_sqr;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                    cell,\
               const typename gpumf::MatrixFree<dim, double>::Data *data,\
               gpumf::SharedData<dim, double> *                      shared,\
               const gpumf::VectorPointers<const double>             src,\
               double *                                              dst) const\
    {\
      FEEval current(cell, data, shared), old(cell, data, shared);\
\
      current.read_dof_values(src[0]);\
      old.read_dof_values(src[1]);\
\
      current.evaluate(true, true);\
      old.evaluate(true, false);\
\
      current.apply_for_each_quad_point([&](FEEval *phi, const unsigned int q) {\
        const double current_value = phi->get_value(q);\
        const double old_value     = old.get_value(q);\
\
        phi->submit_value(2. * current_value - old_value -\
                            delta_t_sqr * std::sin(current_value),\
                          q);\
        phi->submit_gradient(-delta_t_sqr * phi->get_gradient(q), q);\
      });\
\
      current.integrate(true, true);\
      current.distribute_local_to_global(dst);\
    }\
  };

# 9. apply(): gpumf's cell_loop(functor, src, dst, zero_dst) with the functor of (8); src is
#    the std::vector of the two previous solutions, as in deal.II (ghost exchange of both,
#    compress and zeroing of dst done by the loop).
s|^      &SineGordonOperation<dim, fe_degree>::local_apply, this, dst, src, true);$|      SineGordonCellOperation<dim, fe_degree>{delta_t_sqr}, src, dst, true);|

# 10. Output on the GPU: a second gpumf::MatrixFree (norm_data) with the norm's quadrature,
#     QGauss(fe_degree + 1) as in deal.II; constraints.distribute() becomes
#     gpumf::VectorTools::distribute_constraints() (step-48's hanging nodes, on the device),
#     the norm gpumf::VectorTools::integrate_difference() (integrate_difference() and
#     compute_global_error() in one call, on the device); DataOut gets the host copy
#     gpumf::host_copy(). The initial values stay deal.II's host interpolation, through
#     gpumf::VectorTools::interpolate() (a host Function, copied to the GPU).
/^    gpumf::MatrixFree<dim, double> matrix_free_data;$/a\
    // gpumf: the cells with the quadrature of the norm in output_results()\
    gpumf::MatrixFree<dim, double> norm_data;
/^    matrix_free_data\.initialize_dof_vector(solution);$/i\
    norm_data.reinit(\
      mapping, dof_handler, constraints, QGauss<1>(fe_degree + 1));
s|^    VectorTools::interpolate(mapping,$|    gpumf::VectorTools::interpolate(mapping,|
s|^    constraints\.distribute(solution);$|    gpumf::VectorTools::distribute_constraints(norm_data, constraints, solution);|
/^    solution\.update_ghost_values();$/d
/^    solution\.zero_out_ghost_values();$/d
/^    VectorTools::integrate_difference(mapping,$/,/^                                        VectorTools::L2_norm);$/c\
    const double solution_norm =\
      gpumf::VectorTools::integrate_difference<fe_degree, fe_degree + 1>(\
        norm_data,\
        solution,\
        gpumf::VectorTools::ZeroFunction<dim>(),\
        gpumf::VectorTools::L2_norm,\
        &norm_per_cell);
s|^    data_out\.attach_dof_handler(dof_handler);$|    const LinearAlgebra::distributed::Vector<double> solution_host =\
      gpumf::host_copy(solution, constraints);\
    data_out.attach_dof_handler(dof_handler);|
s|^    data_out\.add_data_vector(solution, "solution");$|    data_out.add_data_vector(solution_host, "solution");|

# 11. The time per step includes the GPU's work: the device is synchronized before the clock
#     is read (the loops return when their work is queued), and after the operator's set-up
#     (the inverse mass matrix), whose work would otherwise count in the first step.
/^        wtime += timer\.wall_time();$/i\
        gpumf::synchronize(matrix_free_data.backend());
/^                                                       time_step);$/a\
    gpumf::synchronize(matrix_free_data.backend());

# 12. One GPU per MPI rank (or the host backend, with a notice, where there is none), in
#     main()'s try block before the problem is created.
/^      SineGordonProblem<dimension> sg_problem;$/i\
      gpumf::select_device(MPI_COMM_WORLD);
