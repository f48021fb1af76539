# Test-only changes to deal.II's step-66, applied to BOTH deal.II's CPU program and the gpumf
# port (after port-step-66.sed), so that tests/compare_step66.py can compare their outputs:
#
# T1. 3 cycles fewer than deal.II's 9 - dim (2D: up to 20,609 DoFs, 3D: up to 29,521), so that
#     the test runs within minutes on 2 cores with the host backend.
s|for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)|for (unsigned int cycle = 0; cycle < 6 - dim; ++cycle)|
#
# T2. The H1 seminorm of the solution with 16 digits (deal.II's program sums float per-cell norms:
#     its value is accurate to float round-off), and after the Newton solve the l2 norm of the
#     solution vector with 16 digits (double).
1i #include <iomanip>
s|^        solve();$|        solve();\
        pcout << "   Solution l2 norm: " << std::setprecision(16)\
              << solution.l2_norm() << std::setprecision(6) << std::endl;|
s|^        pcout << "  H1 seminorm: " << norm << std::endl;$|        pcout << "  H1 seminorm: " << std::setprecision(16) << norm\
              << std::setprecision(6) << std::endl;|
