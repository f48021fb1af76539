# Ports deal.II 9.8's step-64 (libdeal.ii-doc 9.8: examples/step-64/step-64.cc, written for
# Portable::MatrixFree in deal.II 9.7's form: functors (data, src, dst) with DeviceVector, a
# Chebyshev preconditioner around MatrixFreeTools::compute_diagonal(), inverted by
# Kokkos::parallel_for) to gpumf. Applied at build time by examples/step-64/CMakeLists.txt when
# gpumf is built against deal.II 9.7 or newer (9.7's step-64 is the same program; untested);
# every change is explained in doc/porting.md ("deal.II 9.7 and 9.8").
# Usage: sed -f port-step-64-9.8.sed step-64.cc > step-64-gpumf.cu

# 1. Headers: gpumf's Portable dialect instead of deal.II's Portable headers.
s|<deal.II/matrix_free/portable_fe_evaluation.h>|<gpumf/portable.h>|
s|<deal.II/matrix_free/portable_matrix_free.h>|<gpumf/portable.h>|

# 2. Vector type: gpumf::Vector for deal.II's distributed vector in the default (device) memory space.
s|LinearAlgebra::distributed::Vector<double, MemorySpace::Default>|gpumf::Vector<double>|g

# 3. Namespaces: gpumf's Portable dialect, and gpumf's stand-ins for the Kokkos calls.
s|Portable::|gpumf::Portable::|g
s|\([^:]\)Kokkos::|\1gpumf::Kokkos::|g

# 4. Functors and lambdas run on the GPU and, on the host backend, on the host (deal.II's
#    DEAL_II_HOST_DEVICE and KOKKOS_LAMBDA mark host code only where its Kokkos has no CUDA).
s|DEAL_II_HOST_DEVICE|__host__ __device__|g
s|KOKKOS_LAMBDA|[=] __host__ __device__|g

# 5. deal.II's ReadWriteVector::import_elements() knows deal.II's vector types only; the
#    reverse call on gpumf::Vector does the same.
s|rw_vector\.import_elements(solution_dev, VectorOperation::insert);|solution_dev.export_to(rw_vector, VectorOperation::insert);|

# 6. Device selection (deal.II's Kokkos chooses one in MPI_InitFinalize): one call, which falls
#    back to the host backend without a GPU.
/Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);/a\
      gpumf::select_device(MPI_COMM_WORLD);

# 7. Flags combined in a functor: deal.II's operator| on EvaluationFlags is a host function
#    (gpumf's compile options make calling it on the GPU an error); gpumf's flags combine on both.
s|\([^:]\)EvaluationFlags::|\1gpumf::EvaluationFlags::|g
