# Benchmark-only changes to deal.II's step-48, applied to BOTH deal.II's CPU program
# (dealii_step48) and the gpumf port (gpumf_step48, after examples/step-48/port-step-48.sed),
# so that benchmarks/step48.sh can time them side by side:
#
# B1. 3D (deal.II's default is 2D), degree 4 as in deal.II.
s|^  const unsigned int dimension = 2;$|  const unsigned int dimension = 3;|
#
# B2. The global refinements from the environment variable GPUMF_STEP48_REFINEMENTS, default 6
#     instead of deal.II's 10 - 2 dim = 4 (then the two local refinements: 1,132,160 cells,
#     73,539,441 DoFs; 5: 141,408 cells, 9,323,953 DoFs; 4: 1,193,881 DoFs).
s|^    , n_global_refinements(10 - 2 \* dim)$|    , n_global_refinements(std::getenv("GPUMF_STEP48_REFINEMENTS") != nullptr ?\
                             std::atoi(std::getenv("GPUMF_STEP48_REFINEMENTS")) :\
                             6)|
1i #include <cstdlib>
#
# B3. A fixed number of time steps from the environment variable GPUMF_STEP48_STEPS (default
#     50) instead of the whole interval [-10, 10] (thousands of steps on these meshes); the time
#     step size stays deal.II's.
/^    unsigned int timestep_number = 1;$/i\
    const unsigned int n_benchmark_steps =\
      std::getenv("GPUMF_STEP48_STEPS") != nullptr ?\
        std::atoi(std::getenv("GPUMF_STEP48_STEPS")) :\
        50;
s|^    for (time += time_step; time <= final_time;$|    for (time += time_step;\
         time <= final_time \&\& timestep_number <= n_benchmark_steps;|
#
# B4. No output files: output_results() prints the norm (at the start and the end: the two
#     programs' results can be compared) but writes no VTU.
/^    DataOut<dim> data_out;$/,/^      "\.\/", "solution", timestep_number, MPI_COMM_WORLD, 3);$/d
#
# B5. Set-up time, printed beside the time per step: make_grid_and_dofs() (mesh, DoFs,
#     constraints, MatrixFree::reinit, vectors; MatrixFree::reinit also on its own) plus the
#     operator's constructor (the inverse mass matrix; in the port followed by a device
#     synchronization, change 11 of port-step-48.sed). The initial interpolation and the first
#     norm, between the two, are not counted.
/^  const unsigned int fe_degree = 4;$/a\
\
  // benchmark: seconds of MatrixFree::reinit in make_grid_and_dofs()\
  double matrix_free_reinit_time = 0;
/^    matrix_free_data\.reinit(mapping,$/i\
    Timer reinit_timer;
/^                            additional_data);$/a\
    matrix_free_reinit_time = reinit_timer.wall_time();
/^    make_grid_and_dofs();$/{
i\
    Timer setup_timer;
a\
    const double grid_and_dofs_time = setup_timer.wall_time();
}
/^    SineGordonOperation<dim, fe_degree> sine_gordon_op(matrix_free_data,$/i\
    setup_timer.restart();
/^    \/\/ Now loop over the time steps\. In each iteration, we shift the solution$/i\
    const double operator_setup_time = setup_timer.wall_time();\
    pcout << "   Setup time: " << grid_and_dofs_time + operator_setup_time\
          << "s (make_grid_and_dofs " << grid_and_dofs_time\
          << "s, of which MatrixFree::reinit " << matrix_free_reinit_time\
          << "s; inverse mass matrix " << operator_setup_time << "s)"\
          << std::endl;\

#
# B6. The time per step over the steps done (deal.II's average divides by the step count plus
#     one), next to the set-up time.
/^          << "s on computations\." << std::endl;$/a\
    pcout << "   Time per step: " << wtime / (timestep_number - 1) << "s ("\
          << timestep_number - 1 << " steps)" << std::endl;
