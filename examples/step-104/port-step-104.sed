# Ports deal.II 9.8's step-104 (libdeal.ii-doc 9.8: examples/step-104/step-104.cc: a 3D Stokes
# flow, Q2 velocity and Q1 pressure in two DoFHandlers of one Portable::MatrixFree, a block
# vector, GMRES with a block-triangular preconditioner: geometric multigrid on meshes coarsened
# by create_geometric_coarsening_sequence() with Chebyshev smoothers for the velocity, Chebyshev
# on the pressure mass matrix) to gpumf. Applied at build time by examples/step-104/CMakeLists.txt
# (before deal.II 9.7 together with port-step-104-before-9.7.sed); every change is explained in
# doc/porting.md ("step-104").
# Usage: sed -f port-step-104.sed step-104.cc > step-104-gpumf.cu

# 1. Headers: gpumf's Portable dialect instead of deal.II's Portable headers.
s|<deal.II/matrix_free/portable_fe_evaluation.h>|<gpumf/portable.h>|
s|<deal.II/matrix_free/portable_matrix_free.h>|<gpumf/portable.h>|
s|<deal.II/multigrid/portable_mg_transfer_global_coarsening.h>|<gpumf/portable.h>|

# 2. Vector types: gpumf's for deal.II's distributed (block) vector in the default (device)
#    memory space; the multigrid transfer of Portable::MGTwoLevelTransfer objects.
s|LinearAlgebra::distributed::Vector<Number, MemorySpace::Default>|gpumf::Vector<Number>|g
s|LinearAlgebra::distributed::BlockVector<Number, MemorySpace::Default>|gpumf::BlockVector<Number>|g
s|MGTransferMatrixFree<dim, Number, MemorySpace::Default>|gpumf::MGTransferGlobalCoarsening<dim, Number>|g

# 3. Namespaces: gpumf's Portable dialect, and gpumf's stand-ins for the Kokkos calls.
s|Portable::|gpumf::Portable::|g
s|\([^:]\)Kokkos::|\1gpumf::Kokkos::|g

# 4. Functors and lambdas run on the GPU and, on the host backend, on the host.
s|DEAL_II_HOST_DEVICE|__host__ __device__|g
s|KOKKOS_LAMBDA|[=] __host__ __device__|g

# 5. Flags in functors: deal.II's EvaluationFlags operators are host functions; gpumf's work on both.
s|\([^:]\)EvaluationFlags::|\1gpumf::EvaluationFlags::|g

# 6. deal.II's import_elements() knows deal.II's vector types only; the reverse call on
#    gpumf::Vector does the same.
s|solution_host\.block(\([01]\))\.import_elements(solution\.block(\([01]\)),|solution.block(\2).export_to(solution_host.block(\1),|

# 7. Device selection (deal.II's Kokkos chooses one in MPI_InitFinalize): one call, which falls
#    back to the host backend without a GPU.
/Utilities::MPI::MPI_InitFinalize mpi_initialization(argc, argv);/a\
  gpumf::select_device(MPI_COMM_WORLD);
