# Benchmark-only changes to deal.II's step-66, applied to BOTH deal.II's CPU program
# (dealii_step66) and the gpumf port (gpumf_step66, after port-step-66.sed), so that
# benchmarks/step66.sh can time them side by side (doc/performance.md, "Whole programs"):
#
# B1. Which of the tutorial's two problems run, from GPUMF_STEP66_DIM: 2, 3, or both (unset, as
#     deal.II's main()).
/^        GelfandProblem<2, 4> gelfand_problem;$/,/run();$/s|^        gelfand_problem\.run();$|        if (std::getenv("GPUMF_STEP66_DIM") == nullptr \|\|\
            std::atoi(std::getenv("GPUMF_STEP66_DIM")) == 2)\
          gelfand_problem.run();|
/^        GelfandProblem<3, 4> gelfand_problem;$/,/run();$/s|^        gelfand_problem\.run();$|        if (std::getenv("GPUMF_STEP66_DIM") == nullptr \|\|\
            std::atoi(std::getenv("GPUMF_STEP66_DIM")) == 3)\
          gelfand_problem.run();|
#
# B2. The number of cycles from GPUMF_STEP66_CYCLES (default deal.II's 9 - dim: in 3D the last
#     has 1.5e7 DoFs, in 2D 1.3e6).
s|for (unsigned int cycle = 0; cycle < 9 - dim; ++cycle)|for (unsigned int cycle = 0;\
         cycle < (std::getenv("GPUMF_STEP66_CYCLES") != nullptr ?\
                    unsigned(std::atoi(std::getenv("GPUMF_STEP66_CYCLES"))) :\
                    9 - dim);\
         ++cycle)|
#
# B3. No VTU files with GPUMF_STEP66_OUTPUT=0 (deal.II's program writes them below 10^6 cells).
s|^    if (triangulation\.n_global_active_cells() > 1e6)$|    if (triangulation.n_global_active_cells() > 1e6 \|\|\
        (std::getenv("GPUMF_STEP66_OUTPUT") != nullptr \&\&\
         std::string(std::getenv("GPUMF_STEP66_OUTPUT")) == "0"))|
1i #include <cstdlib>\n#include <string>
