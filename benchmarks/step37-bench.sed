# Benchmark-only changes to deal.II's step-37, applied to BOTH deal.II's CPU program
# (benchmarks: dealii_step37) and the gpumf port (gpumf_step37, after port-step-37.sed), so that
# benchmarks/step37.sh can time them side by side (doc/performance.md, "Whole programs against deal.II"):
#
# B1. The number of cycles from the environment variable GPUMF_STEP37_CYCLES (default deal.II's
#     9 - dim = 6 in 3D, last 2.1 million DoFs; 7 gives 17 million DoFs).
s|for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)|for (unsigned int cycle = 0;\
         cycle < (std::getenv("GPUMF_STEP37_CYCLES") != nullptr ?\
                    unsigned(std::atoi(std::getenv("GPUMF_STEP37_CYCLES"))) :\
                    9 - dim);\
         ++cycle)|
#
# B2. deal.II's detailed set-up timings (time_details) with GPUMF_SETUP_PROFILE set, as the
#     port's change 15 does for the port.
s|^                   false &&$|                   std::getenv("GPUMF_SETUP_PROFILE") \&\&|
1i #include <cstdlib>
