# Benchmark-only changes to deal.II's step-59, applied to BOTH deal.II's CPU program
# (dealii_step59) and the gpumf port (gpumf_step59, after examples/step-59/port-step-59.sed),
# so that benchmarks/step59.sh can time them side by side. Degree 8 and 3D stay deal.II's.
#
# B1. The number of cycles from the environment variable GPUMF_STEP59_CYCLES, default 5
#     instead of deal.II's 9 - dim = 6: the last cycle has 32^3 cells, 23,887,872 DoFs (6: 64^3
#     cells, 1.9e8 DoFs, more than one GPU's memory with the levels).
s|^    for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)$|    const unsigned int n_cycles =\
      std::getenv("GPUMF_STEP59_CYCLES") != nullptr ? std::atoi(std::getenv("GPUMF_STEP59_CYCLES")) : 5;\
    for (unsigned int cycle = 0; cycle < n_cycles; ++cycle)|
1i #include <cstdlib>
