# Test-only changes to deal.II's step-48, applied to BOTH deal.II's CPU program and the gpumf
# port (after port-step-48.sed), so that tests/compare_step48.py can compare their outputs:
#
# T1. The dimension from the environment variable STEP48_DIM (2, deal.II's default, or 3):
#     both are compiled, so that one program tests the 2D and the 3D kernels.
s|^      SineGordonProblem<dimension> sg_problem;$|      if (std::getenv("STEP48_DIM") != nullptr \&\& std::atoi(std::getenv("STEP48_DIM")) == 3)\
        {\
          SineGordonProblem<3> sg_problem_3d;\
          sg_problem_3d.run();\
          return 0;\
        }\
      SineGordonProblem<dimension> sg_problem;|
1i #include <cstdlib>
#
# T2. A coarser mesh, two global refinements fewer than deal.II's 10 - 2 dim (2D: 16 x 16 cells
#     before the two local refinements, 964 cells, 16,033 DoFs; 3D: 4 x 4 x 4, 176 cells, 14,001
#     DoFs), so that the test runs in well under a minute on 2 cores with the host backend (the
#     hanging nodes of the two local refinements stay).
s|^    , n_global_refinements(10 - 2 \* dim)$|    , n_global_refinements(8 - 2 * dim)|
#
# T3. The first half of deal.II's time interval, [-10, 0] (2D: 853 steps, 3D: 213), with output
#     every 50 steps instead of 200 (more norms to compare).
s|^    , final_time(10\.)$|    , final_time(0.)|
s|^    , output_timestep_skip(200)$|    , output_timestep_skip(50)|
#
# T4. The solution norm with 16 digits instead of 5, from cell norms in double instead of float
#     (float would round the sum's terms to 7 digits, where the programs may differ in the last).
s|<< ", solution norm: " << std::setprecision(5) << std::setw(7)|<< ", solution norm: " << std::setprecision(16)|
s|^    Vector<float> norm_per_cell(triangulation\.n_active_cells());$|    Vector<double> norm_per_cell(triangulation.n_active_cells());|
