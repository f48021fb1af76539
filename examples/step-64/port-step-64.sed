# Ports deal.II 9.4.1's step-64 (libdeal.ii-doc: examples/step-64/step-64.cu) to gpumf.
# Applied at build time by examples/step-64/CMakeLists.txt; every change is explained in
# doc/porting.md. Usage: sed -f port-step-64.sed step-64.cu > step-64-gpumf.cu

# 1. Headers: gpumf's MatrixFree and FEEvaluation instead of deal.II's CUDAWrappers ones.
s|<deal.II/matrix_free/cuda_fe_evaluation.h>|<gpumf/fe_evaluation.h>|
s|<deal.II/matrix_free/cuda_matrix_free.h>|<gpumf/matrix_free.h>|

# 2. Vector types: one gpumf::Vector for the distributed CUDA vector and the CUDA vector.
s|LinearAlgebra::distributed::Vector<double, MemorySpace::CUDA>|gpumf::Vector<double>|g
s|LinearAlgebra::CUDAWrappers::Vector<double>|gpumf::Vector<double>|g

# 3. Namespace.
s|CUDAWrappers::|gpumf::|g

# 4. Functors run on the GPU and, on the host backend, on the host.
s|__device__|__host__ __device__|g

# 5. deal.II's ReadWriteVector::import() knows deal.II's vector types only; the
#    reverse call on gpumf::Vector does the same.
s|rw_vector\.import(solution_dev, VectorOperation::insert);|solution_dev.export_to(rw_vector, VectorOperation::insert);|

# 6. Device selection: one call, which falls back to the host backend without a GPU.
/int  *n_devices  *= 0;/,/cudaSetDevice(device_id);/c\
      gpumf::select_device(MPI_COMM_WORLD);
/^ *AssertCuda(cuda_error_code);$/d
