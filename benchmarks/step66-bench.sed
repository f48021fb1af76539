# Benchmark-only changes to deal.II's step-66, applied to BOTH deal.II's CPU program
# (dealii_step66) and the gpumf port (gpumf_step66, after port-step-66.sed), so that
# benchmarks/step66.sh can time them side by side (doc/performance.md, "Whole programs against deal.II"):
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
#
# B4. Where the set-up and the rest of a cycle go: TimerOutput sections (nested in step-66's own
#     "setup system") for the DoFs, the constraints, the active cells' MatrixFree (the port: with
#     its second one, of the norm), the multigrid constraints and transfer, the levels'
#     MatrixFree objects; and for the refinement, the norm and the output.
s|^    dof_handler\.distribute_dofs(fe);$|    computing_timer.enter_subsection("setup: DoFs");\
    dof_handler.distribute_dofs(fe);|
s|^    dof_handler\.distribute_mg_dofs();$|    dof_handler.distribute_mg_dofs();\
    computing_timer.leave_subsection("setup: DoFs");\
    computing_timer.enter_subsection("setup: constraints");|
s|^    constraints\.close();$|    constraints.close();\
    computing_timer.leave_subsection("setup: constraints");\
    computing_timer.enter_subsection("setup: MatrixFree, active cells");|
s|^    system_matrix\.initialize_dof_vector(solution);$|    computing_timer.leave_subsection("setup: MatrixFree, active cells");\
    system_matrix.initialize_dof_vector(solution);|
s|^    mg_constrained_dofs\.initialize(dof_handler);$|    computing_timer.enter_subsection("setup: MG constraints, transfer");\
    mg_constrained_dofs.initialize(dof_handler);|
s|^    mg_transfer\.build(dof_handler);$|    mg_transfer.build(dof_handler);\
    computing_timer.leave_subsection("setup: MG constraints, transfer");\
    computing_timer.enter_subsection("setup: MatrixFree, levels");|
/^        mg_matrices\[level\]\.initialize_dof_vector(mg_solution\[level\]);$/{
n
a\
    computing_timer.leave_subsection("setup: MatrixFree, levels");
}
s|^            triangulation\.refine_global(1);$|            TimerOutput::Scope t(computing_timer, "refine");\
            triangulation.refine_global(1);|
s|^        const double norm = compute_solution_norm();$|        computing_timer.enter_subsection("norm");\
        const double norm = compute_solution_norm();\
        computing_timer.leave_subsection("norm");\
        computing_timer.enter_subsection("output");|
s|^        output_results(cycle);$|        output_results(cycle);\
        computing_timer.leave_subsection("output");|
