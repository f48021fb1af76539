# Benchmark-only changes to deal.II 9.7/9.8's step-64, applied to BOTH deal.II's own program
# (Portable::MatrixFree through Debian's Kokkos; benchmarks: dealii_step64) and the gpumf port
# (gpumf_step64, after examples/step-64/port-step-64-9.8.sed), so that benchmarks/step64.sh can
# time them beside deal.II's CPU MatrixFree (step64_matrixfree.cc prints the same lines):
#
# B1. The number of cycles from the environment variable GPUMF_STEP64_CYCLES (default step-64's
#     7 - dim = 4, last 117,649 DoFs; 5 gives 912,673, 6 gives 7.2 million, 7 gives 57 million).
s|for (unsigned int cycle = 0; cycle < 7 - dim; ++cycle)|for (unsigned int cycle = 0;\
         cycle < (std::getenv("GPUMF_STEP64_CYCLES") != nullptr ?\
                    unsigned(std::atoi(std::getenv("GPUMF_STEP64_CYCLES"))) :\
                    7 - dim);\
         ++cycle)|
#
# B2. "Time setup <s>": setup_system() (DoFs, constraints, the operator's set-up).
s|^        setup_system();$|        Timer setup_timer;\
        setup_system();\
        pcout << "  Time setup " << setup_timer.wall_time() << " s" << std::endl;|
#
# B3. "Time solve (<n> iterations) <s>": the diagonal, the Chebyshev preconditioner and CG, and
#     "Time vmult <s>": one operator application, the mean of 20 (ended by a norm, which waits for
#     the device).
s|^    system_matrix_dev->compute_diagonal();$|    Timer solve_timer;\
    system_matrix_dev->compute_diagonal();|
/^    pcout << "  Solved in " << solver_control.last_step() << " iterations."$/i\
    pcout << "  Time solve (" << solver_control.last_step() << " iterations) "\
          << solve_timer.wall_time() << " s" << std::endl;\
    {\
      auto product = solution_dev;\
      const unsigned int n_products = 20;\
      Timer              vmult_timer;\
      for (unsigned int i = 0; i < n_products; ++i)\
        system_matrix_dev->vmult(product, solution_dev);\
      const double norm = product.l2_norm();\
      pcout << "  Time vmult " << vmult_timer.wall_time() / n_products\
            << " s (|A u| = " << norm << ")" << std::endl;\
    }
1i #include <deal.II/base/timer.h>
1i #include <cstdlib>
