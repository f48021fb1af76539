/**
 * @file gpumf/backend.h
 * Where gpumf objects keep their data and run their loops: on a CUDA GPU, or on the
 * host through the naive reference backend. The deal.II equivalent is the MemorySpace
 * template argument (MemorySpace::Host, MemorySpace::CUDA); gpumf chooses at run time.
 */
#ifndef gpumf_backend_h
#define gpumf_backend_h

#include <gpumf/config.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/mpi.h>

#include <string>

namespace gpumf
{
  /**
   * The two backends. Every object (Vector, MatrixFree) has one, fixed at reinit().
   */
  enum class Backend
  {
    /// Plain loops on the host: the reference every GPU result is compared with.
    host,
    /// CUDA kernels on the GPU selected by select_device().
    cuda
  };

  /// "host" or "cuda".
  std::string
  to_string(const Backend backend);

  /**
   * True when the library has its CUDA backend and a CUDA device can be used.
   */
  bool
  cuda_available();

  /**
   * The backend that objects use unless told otherwise: the value of the environment
   * variable GPUMF_BACKEND ("host", "cuda" or "auto"), where "auto" (the default) means
   * "cuda" when cuda_available() and "host" otherwise. GPUMF_BACKEND=cuda without a usable
   * GPU throws ExcNoGPU.
   */
  Backend
  default_backend();

  /**
   * Picks the GPU for this MPI rank and returns default_backend(). The node's ranks are spread
   * evenly over its GPUs, consecutive node-local ranks on one GPU (16 ranks on 4 GPUs: ranks 0-3
   * on GPU 0, 4-7 on GPU 1, ...; with 6 ranks GPUs 0 and 1 take two): p4est gives consecutive
   * ranks neighbouring parts of the mesh, so that most ghost exchanges stay on one GPU. With
   * several ranks on the node rank 0 writes the placement in one line to std::cerr, and says
   * whether CUDA MPS runs where ranks share a GPU; when the host backend results, one line saying
   * so. Replaces step-64's cudaGetDeviceCount()/cudaSetDevice().
   */
  Backend
  select_device(const MPI_Comm comm);

  /// Name of the current CUDA device, or "host (no GPU)".
  std::string
  device_name();

  /// Blocks until all work on the GPU is done (no-op on the host backend).
  void
  synchronize(const Backend backend);

  /// synchronize(default_backend()): deal.II 9.5+'s Kokkos::fence() in a ported program.
  void
  synchronize();

  /**
   * @name Exceptions
   * @{
   */
  /// A CUDA runtime call failed.
  DeclException2(ExcCudaError, std::string, std::string, << "CUDA call " << arg1 << " failed: " << arg2);
  /// The CUDA backend was requested where it does not exist.
  DeclException1(ExcNoGPU,
                 std::string,
                 << "The CUDA backend was requested but " << arg1
                 << ". Use the host backend (GPUMF_BACKEND=host or auto).");
  /// An input outside what gpumf supports; the message says what is supported.
  DeclException1(ExcNotSupported, std::string, << arg1);
  /// cudaMalloc failed.
  DeclException3(ExcDeviceOutOfMemory,
                 std::size_t,
                 std::size_t,
                 std::size_t,
                 << "Out of GPU memory: requested " << arg1 << " bytes while " << arg2 << " of " << arg3
                 << " bytes are free on the device.");
  /// malloc failed on the host backend.
  DeclException1(ExcHostOutOfMemory,
                 std::size_t,
                 << "Out of host memory: requested " << arg1 << " bytes for the host backend.");
  /** @} */
} // namespace gpumf

#endif
