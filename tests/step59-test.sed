# Test-only changes to deal.II's step-59, applied to BOTH deal.II's CPU program and the gpumf
# port (after port-step-59.sed), so that tests/compare_step59.py can compare their outputs:
#
# T1. The dimension from the environment variable STEP59_DIM (3, deal.II's default, or 2): both
#     are compiled, so that one program tests the 2D and the 3D kernels.
s|^      LaplaceProblem<dimension, degree_finite_element> laplace_problem;$|      if (std::getenv("STEP59_DIM") != nullptr \&\& std::atoi(std::getenv("STEP59_DIM")) == 2)\
        {\
          LaplaceProblem<2, degree_finite_element> laplace_problem_2d;\
          laplace_problem_2d.run();\
          return 0;\
        }\
      LaplaceProblem<dimension, degree_finite_element> laplace_problem;|
1i #include <cstdlib>
#
# T2. Degree 3 instead of 8 (the host backend evaluates a cell naively, O(n^(2 dim)) per cell)
#     and three cycles fewer (3D: 8^3 cells, 32,768 DoFs at the last; 2D: 64^2 cells, 65,536
#     DoFs), so that the test runs in about a minute on 2 cores with the host backend.
s|^  const unsigned int degree_finite_element = 8;$|  const unsigned int degree_finite_element = 3;|
s|^    for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)$|    for (unsigned int cycle = 0; cycle < 6 - dim; ++cycle)|
#
# T3. The L2 error with 12 digits instead of 6 (the stream's precision, set before the first
#     line run() prints).
/^    pcout << "Running with " << n_ranks << " MPI process"$/i\
    pcout.get_stream().precision(12);
#
# T4. deal.II's L2 error from cell errors in double instead of float (float rounds each cell's
#     error to 7 digits, 1e-7 of the sum; the port's integrate_difference() sums in double).
s|^    Vector<float> error_per_cell(triangulation.n_active_cells());$|    Vector<double> error_per_cell(triangulation.n_active_cells());|
