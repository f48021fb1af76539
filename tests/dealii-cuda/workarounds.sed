# NOT mechanical: the hand changes that take deal.II 9.4.1's matrix-free tests past what
# port.sed alone cannot port, each standing for a gap of gpumf (or a collision of types) that
# run.sh reports. Applied after port.sed only on request, to see what fails after the first
# cause: EXTRA_SED=tests/dealii-cuda/workarounds.sed tests/dealii-cuda/run.sh ...
# Drop a rule once gpumf closes its gap.
# X4. matrix_free_initialize_vector: its two check() overloads (distributed CUDA vector, CUDA
#     vector) are one gpumf type after port.sed #2: the second, size-only one renamed.
s/^check(const gpumf::Vector<Number> &vector,$/check_size(const gpumf::Vector<Number> \&vector,/
# X6. matrix_free_no_index_initialize: DoF vectors instead of empty ones: gpumf's cell_loop()
#     takes DoF vectors and vectors of data per cell (coefficient_eval's n_cells * n_q_points
#     values), and rejects others, empty ones included (ExcVectorMismatch); deal.II 9.4 on a
#     serial Triangulation passes any vector's get_values() to the functor.
s/^\( *\)data\.cell_loop(\*this, src_dummy, dst_dummy);/\1data.initialize_dof_vector(src_dummy);\n\1data.initialize_dof_vector(dst_dummy);\n&/
