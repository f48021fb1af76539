# Test-only changes to deal.II's step-37, applied to BOTH deal.II's CPU program and the gpumf
# port (after port-step-37.sed), so that tests/compare_step37.py can compare their outputs:
#
# T1. 5 cycles instead of 6 (3D: up to 274,625 DoFs instead of 2.1 million), so that the test
#     runs within a few minutes on 2 cores with the host backend.
s|for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)|for (unsigned int cycle = 0; cycle < 8 - dim; ++cycle)|
#
# T2. The solution norm with 16 digits, after the line with the solve time (the solution has
#     its constraints distributed there in both programs).
1i #include <iomanip>\n#include <sstream>
/pcout << "Time solve ("/,/;$/{
/;$/a\
    {\
      std::ostringstream norm;\
      norm << std::setprecision(16) << solution.l2_norm();\
      pcout << "Solution norm: " << norm.str() << '\\n';\
    }
}
