# Ports deal.II 9.4.1's matrix-free tests (tests/cuda/*.cu and the headers they include)
# to gpumf: the substitutions of doc/porting.md's step-64 table, written for any number type
# and variable name, plus the CUDA runtime calls that deal.II's tests make outside the
# matrix-free classes (7-9). Usage: sed -f port.sed test.cu > test-gpumf.cu (run.sh applies it).

# 1. Headers (step-64 #1). The .templates.h header declares the same classes; cuda_vector.h
#    held LinearAlgebra::CUDAWrappers::Vector, which is gpumf::Vector now (#2).
s|<deal.II/matrix_free/cuda_fe_evaluation.h>|<gpumf/fe_evaluation.h>|
s|<deal.II/matrix_free/cuda_matrix_free.h>|<gpumf/matrix_free.h>|
s|<deal.II/matrix_free/cuda_matrix_free.templates.h>|<gpumf/matrix_free.h>|
s|<deal.II/lac/cuda_vector.h>|<gpumf/vector.h>|

# 2. Vector types (step-64 #2), for any number type.
s/LinearAlgebra::distributed::Vector<\([A-Za-z_][A-Za-z_0-9]*\), *MemorySpace::CUDA>/gpumf::Vector<\1>/g
s/LinearAlgebra::CUDAWrappers::Vector<\([A-Za-z_][A-Za-z_0-9]*\)>/gpumf::Vector<\1>/g

# 3. Namespace (step-64 #3); after #2, which names LinearAlgebra::CUDAWrappers.
s/CUDAWrappers::/gpumf::/g

# 4. Functors also run on the host backend (step-64 #4); an existing __host__ stays single.
s/\(__host__  *\)\{0,1\}__device__/__host__ __device__/g

# 5. Block barrier inside user functors: gpumf's works on both backends.
s/__syncthreads()/gpumf::syncthreads()/g

# 6. ReadWriteVector::import(device vector) (step-64 #5): deal.II's ReadWriteVector imports
#    deal.II's vector types only; the reverse call on gpumf::Vector does the same. The tests
#    name their device vectors *_dev / *_device (step-64: solution_dev).
s/\([A-Za-z_][A-Za-z_0-9]*\)\.import(\([A-Za-z_][A-Za-z_0-9]*_dev\(ice\)\{0,1\}\), *\(VectorOperation::[a-z]*\))/\2.export_to(\1, \4)/g

# 7. Device selection (step-64 #6): tests.h's init_cuda() exists only where deal.II has CUDA
#    (DEAL_II_COMPILER_CUDA_AWARE). With MPI: gpumf::select_device() picks the GPU of the rank
#    or the host backend. Without (init_cuda(), in tests that do not initialize MPI, where
#    select_device() cannot run): init_cuda() selects device 0, which is CUDA's default, so
#    only the backend check remains (default_backend() throws ExcNoGPU for GPUMF_BACKEND=cuda
#    without a GPU, as init_cuda() fails without one).
s/init_cuda(true)/gpumf::select_device(MPI_COMM_WORLD)/
s/init_cuda()/gpumf::default_backend()/

# 8. Waiting for the GPU: the CUDA runtime is absent from a host-only gpumf (GPUMF_WITH_CUDA=OFF);
#    gpumf::synchronize() waits for the backend and throws ExcCudaError on a failed kernel, which
#    is what the tests' AssertCuda(cudaDeviceSynchronize()) checks.
s/AssertCuda(cudaDeviceSynchronize())/gpumf::synchronize(gpumf::default_backend())/
s/cudaDeviceSynchronize()/gpumf::synchronize(gpumf::default_backend())/

# 9. AssertCuda(cudaPeekAtLastError()) checks the launch of the kernel just started: gpumf's
#    cell_loop() checks its launches itself (GPUMF_CHECK_CUDA), so the line goes.
/^ *AssertCuda(cudaPeekAtLastError());$/d
