# Benchmark-only changes to deal.II 9.8's step-104, applied to BOTH deal.II's own program
# (Portable::MatrixFree through Debian's Kokkos; benchmarks: dealii_step104) and the gpumf port
# (gpumf_step104, after examples/step-104's scripts), for benchmarks/step104.sh:
#
# B1. The refinements from the environment variable GPUMF_STEP104_REFINEMENTS (default the
#     tutorial's 10; 6 ends at refinement 5: 53,070,468 DoFs, the size of deal.II's H100 figures).
s|unsigned int n_refinements = 10;|unsigned int n_refinements =\
      std::getenv("GPUMF_STEP104_REFINEMENTS") != nullptr ?\
        unsigned(std::atoi(std::getenv("GPUMF_STEP104_REFINEMENTS"))) :\
        10;|
#
# B2. Beside the program's own time of its first operator application ("Stokes operator: ..."),
#     the mean of 20 more ("Stokes operator, mean of 20: <s> s, DoFs/s: <x>"; the last ended by a
#     norm, which waits for the device).
/^      solution = 0\.0;$/i\
      {\
        const unsigned int n_products = 20;\
        dealii::Timer      timer;\
        for (unsigned int i = 0; i < n_products; ++i)\
          stokes_operator.vmult(solution, rhs);\
        const double norm = solution.l2_norm();\
        const double mean = timer.wall_time() / n_products;\
        pcout << "Stokes operator, mean of " << n_products << ": " << mean\
              << " s, DoFs/s: " << static_cast<double>(solution.size()) / mean\
              << " (|A b| = " << norm << ")" << std::endl;\
      }
#
# B3. Each refinement's set-up time (setup_dofs(): DoFs, constraints, MatrixFree, right-hand side).
/^        setup_dofs();$/{
i\
        dealii::Timer setup_timer;
a\
        pcout << "Time setup_dofs " << setup_timer.wall_time() << " s" << std::endl;
}
#
# B4. The pressure degree (the velocity's is one more) from the macro GPUMF_STEP104_DEGREE_P at
#     compile time (default the tutorial's 1, Q2-Q1): gpumf_step104_q3q2 ... q5q4 for the rows of
#     deal.II's results table at higher degrees.
s|^  const unsigned int                   degree_p = 1;$|#ifndef GPUMF_STEP104_DEGREE_P\
#  define GPUMF_STEP104_DEGREE_P 1\
#endif\
  const unsigned int                   degree_p = GPUMF_STEP104_DEGREE_P;|
1i #include <cstdlib>
