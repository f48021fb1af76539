// Backend selection and device queries.
#include <gpumf/backend.h>
#include <gpumf/cost_model.h>
#include <gpumf/internal/cuda_check.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>
#include <unistd.h>
#include <iostream>
#include <sstream>
#include <mutex>
#include <thread>

#include "core/device.h"
#include "core/run_profile.h"
#include "core/executor.h"

namespace gpumf
{
  std::string
  to_string(const Backend backend)
  {
    return backend == Backend::host ? "host" : "cuda";
  }

  namespace
  {
    // Why the CUDA backend cannot be used, or "" when it can.
    std::string
    why_no_cuda()
    {
#if GPUMF_WITH_CUDA
      int               n_devices = 0;
      const cudaError_t error     = cudaGetDeviceCount(&n_devices);
      if (error != cudaSuccess)
        {
          cudaGetLastError(); // clear the sticky error state
          return std::string("no CUDA device is usable (") + cudaGetErrorString(error) + ")";
        }
      if (n_devices == 0)
        return "the machine has no CUDA device";
      return "";
#else
      return "gpumf was built without CUDA (GPUMF_WITH_CUDA=OFF)";
#endif
    }

#if GPUMF_WITH_CUDA
    /**
     * The CUDA start-up of an MPI rank (the driver, then the primary context of its GPU) takes
     * 0.2 s alone and 0.8 s with 8 ranks on a node starting together (they queue in the driver:
     * doc/performance.md, "Start-up"). A rank started by Open MPI's or MPICH's launcher knows its
     * place on the node from the environment before MPI_Init(): this object, made when the
     * program is loaded, starts that work on a thread of its own for the GPU select_device()
     * will pick, so that it runs while the program loads its libraries and MPI starts.
     * select_device() waits for it, and so does the program's exit. A GPU picked otherwise
     * (another communicator) gets its own context; the early one stays. CUDA's environment
     * (CUDA_VISIBLE_DEVICES, CUDA_MPS_PIPE_DIRECTORY) is read before main(): a program that sets
     * it in main() turns this off with GPUMF_EARLY_CUDA=0 (as GPUMF_BACKEND=host does).
     */
    class EarlyCudaStart
    {
    public:
      EarlyCudaStart()
      {
        const auto env = [](const char *name) -> const char * { return std::getenv(name); };
        if ((env("GPUMF_EARLY_CUDA") != nullptr && std::string(env("GPUMF_EARLY_CUDA")) == "0") ||
            (env("GPUMF_BACKEND") != nullptr && std::string(env("GPUMF_BACKEND")) == "host"))
          return;
        const char *rank =
          env("OMPI_COMM_WORLD_LOCAL_RANK") != nullptr ? env("OMPI_COMM_WORLD_LOCAL_RANK") : env("MPI_LOCALRANKID");
        const char *size =
          env("OMPI_COMM_WORLD_LOCAL_SIZE") != nullptr ? env("OMPI_COMM_WORLD_LOCAL_SIZE") : env("MPI_LOCALNRANKS");
        if (rank == nullptr || size == nullptr || std::atoi(rank) < 0 || std::atoi(rank) >= std::atoi(size))
          return;
        const unsigned int node_rank = std::atoi(rank), node_ranks = std::atoi(size);
        thread = std::thread([node_rank, node_ranks]() {
          try
            {
              int n_devices = 0;
              if (cudaGetDeviceCount(&n_devices) != cudaSuccess || n_devices == 0)
                {
                  cudaGetLastError();
                  return;
                }
              // the CUDA run-time has registered its clean-up at exit by now: a handler
              // registered after it runs before it, and lets this thread finish first
              std::atexit([]() { early_cuda_start_wait(); });
              const int device = internal::device_of_node_rank(node_rank, node_ranks, n_devices);
              if (cudaSetDevice(device) == cudaSuccess)
                cudaFree(nullptr); // the primary context
              cudaGetLastError();
            }
          catch (...)
            {
              // select_device() does it again and reports what fails
            }
        });
      }

      /// Waits for the start-up.
      void
      wait()
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (thread.joinable() && thread.get_id() != std::this_thread::get_id())
          thread.join();
      }

      ~EarlyCudaStart()
      {
        wait();
      }

    private:
      static void
      early_cuda_start_wait();

      std::mutex  mutex;
      std::thread thread;
    };

    EarlyCudaStart early_cuda_start;

    void
    EarlyCudaStart::early_cuda_start_wait()
    {
      early_cuda_start.wait();
    }
#endif
  } // namespace

  bool
  cuda_available()
  {
    static const bool available = why_no_cuda().empty();
    return available;
  }

  Backend
  default_backend()
  {
    const char       *env    = std::getenv("GPUMF_BACKEND");
    const std::string choice = env == nullptr ? "auto" : env;
    if (choice == "host")
      return Backend::host;
    if (choice == "cuda")
      {
        AssertThrow(cuda_available(), ExcNoGPU(why_no_cuda()));
        return Backend::cuda;
      }
    AssertThrow(choice == "auto" || choice.empty(),
                dealii::ExcMessage("GPUMF_BACKEND='" + choice + "' is not one of host, cuda, auto."));
    return cuda_available() ? Backend::cuda : Backend::host;
  }

  namespace internal
  {
    std::vector<std::string>
    rank_placements(const MPI_Comm comm, const Backend backend)
    {
      constexpr int size       = 192;
      char          mine[size] = {};
      gethostname(mine, 120);
#if GPUMF_WITH_CUDA
      if (backend == Backend::cuda)
        {
          int device = 0;
          GPUMF_CHECK_CUDA(cudaGetDevice(&device));
          const std::size_t length = std::strlen(mine);
          mine[length]             = '/';
          GPUMF_CHECK_CUDA(cudaDeviceGetPCIBusId(mine + length + 1, size - length - 2, device));
        }
#else
      (void)backend;
#endif
      const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(comm);
      std::vector<char>  all(size * n_ranks);
      AssertThrowMPI(MPI_Allgather(mine, size, MPI_CHAR, all.data(), size, MPI_CHAR, comm));
      std::vector<std::string> names;
      for (unsigned int r = 0; r < n_ranks; ++r)
        names.emplace_back(all.data() + r * size);
      return names;
    }

    unsigned int
    n_gpus(const MPI_Comm comm)
    {
      const std::vector<std::string> names = rank_placements(comm, Backend::cuda);
      return std::set<std::string>(names.begin(), names.end()).size();
    }

    bool
    ranks_share_gpu(const MPI_Comm comm)
    {
      return n_gpus(comm) < dealii::Utilities::MPI::n_mpi_processes(comm);
    }
  } // namespace internal

  namespace internal
  {
    unsigned int
    device_of_node_rank(const unsigned int node_rank, const unsigned int node_ranks, const unsigned int n_devices)
    {
      AssertThrow(n_devices > 0 && node_rank < node_ranks, dealii::ExcInternalError());
      // the first (node_ranks % n_devices) GPUs take one rank more than the others
      const unsigned int per_device = node_ranks / n_devices, larger = node_ranks % n_devices;
      const unsigned int in_larger = larger * (per_device + 1);
      return node_rank < in_larger ? node_rank / (per_device + 1) : larger + (node_rank - in_larger) / per_device;
    }

    std::string
    placement_summary(const unsigned int node_ranks, const unsigned int n_devices, const bool mps)
    {
      std::ostringstream text;
      text << node_ranks << " MPI ranks on this node's " << n_devices << " GPU" << (n_devices == 1 ? "" : "s") << ": ";
      unsigned int first = 0;
      for (unsigned int device = 0; device < n_devices && first < node_ranks; ++device)
        {
          unsigned int last = first;
          while (last + 1 < node_ranks && device_of_node_rank(last + 1, node_ranks, n_devices) == device)
            ++last;
          text << (device > 0 ? ", " : "") << "GPU " << device << (first == last ? " rank " : " ranks ") << first;
          if (last > first)
            text << "-" << last;
          first = last + 1;
        }
      if (node_ranks + 1 == n_devices)
        text << " (GPU " << node_ranks << " unused)";
      else if (node_ranks < n_devices)
        text << " (GPUs " << node_ranks << "-" << n_devices - 1 << " unused)";
      if (node_ranks > n_devices)
        text << (mps ? "; CUDA MPS runs" : "; CUDA MPS does not run");
      return text.str();
    }
  } // namespace internal

  namespace
  {
    /// Whether the CUDA MPS control daemon of this node runs (for the message of select_device()).
    [[maybe_unused]] bool
    mps_running()
    {
      // the MPS control daemon listens on the pipe "control" in its pipe directory, where the
      // CUDA runtime of every client looks for it
      const char       *directory = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
      const std::string control   = std::string(directory != nullptr ? directory : "/tmp/nvidia-mps") + "/control";
      return access(control.c_str(), F_OK) == 0;
    }
  } // namespace

  Backend
  select_device(const MPI_Comm comm)
  {
    const Backend backend = default_backend();
#if GPUMF_WITH_CUDA
    if (backend == Backend::cuda)
      {
        early_cuda_start.wait();
        int n_devices = 0;
        GPUMF_CHECK_CUDA(cudaGetDeviceCount(&n_devices));
        MPI_Comm node_comm;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
        const unsigned int node_rank  = dealii::Utilities::MPI::this_mpi_process(node_comm);
        const unsigned int node_ranks = dealii::Utilities::MPI::n_mpi_processes(node_comm);
        // consecutive ranks on one GPU: p4est hands consecutive ranks neighbouring parts of the
        // mesh (its space-filling curve), so that most of a rank's ghost exchange stays on its GPU
        // (where the early start-up made another GPU's context, for a communicator other than the
        // launcher's, that context stays: releasing it could free what the program made there)
        GPUMF_CHECK_CUDA(cudaSetDevice(internal::device_of_node_rank(node_rank, node_ranks, n_devices)));
        // ranks that see one device each (CUDA_VISIBLE_DEVICES set per rank) may still have a GPU
        // each: compare the GPUs' PCI addresses
        const bool shared = node_ranks > 1 && internal::ranks_share_gpu(node_comm);
        MPI_Comm_free(&node_comm);
        if (node_ranks > 1 && dealii::Utilities::MPI::this_mpi_process(comm) == 0)
          std::cerr << "gpumf: select_device: "
                    << (node_ranks > n_devices && !shared ?
                          // each rank sees other GPUs than its neighbours (CUDA_VISIBLE_DEVICES per rank)
                          std::to_string(node_ranks) + " MPI ranks on this node, each seeing " +
                            std::to_string(n_devices) + " GPU(s), a GPU of its own" :
                          internal::placement_summary(node_ranks, n_devices, shared && mps_running()))
                    << std::endl;
        if (shared && !mps_running() && dealii::Utilities::MPI::this_mpi_process(comm) == 0)
          std::cerr << "gpumf: " << node_ranks << " MPI ranks share this node's " << n_devices
                    << " GPU(s) without CUDA MPS: the GPU runs one process at a time, so every rank "
                       "added slows the others' kernels and launches (doc/performance.md, \"Several MPI ranks "
                       "per GPU\"). Start MPS before mpirun (nvidia-cuda-mps-control -d; stop it with "
                       "echo quit | nvidia-cuda-mps-control), or run one rank per GPU."
                    << std::endl;
      }
#endif
    // asked for the host: say so, without probing CUDA (whose reason would mislead)
    const char *env = std::getenv("GPUMF_BACKEND");
    if (backend == Backend::host && dealii::Utilities::MPI::this_mpi_process(comm) == 0)
      std::cerr << "gpumf: "
                << (env != nullptr && std::string(env) == "host" ? std::string("GPUMF_BACKEND=host") : why_no_cuda())
                << ": running on the host reference backend" << std::endl;
    return backend;
  }

  std::string
  device_name()
  {
#if GPUMF_WITH_CUDA
    if (cuda_available())
      {
        int device = 0;
        GPUMF_CHECK_CUDA(cudaGetDevice(&device));
        cudaDeviceProp properties;
        GPUMF_CHECK_CUDA(cudaGetDeviceProperties(&properties, device));
        return properties.name;
      }
#endif
    return "host (no GPU)";
  }

  void
  synchronize(const Backend backend)
  {
#if GPUMF_WITH_CUDA
    if (backend == Backend::cuda)
      {
        internal::RunTimer timer(internal::RunPart::device_synchronize);
        GPUMF_CHECK_CUDA(cudaDeviceSynchronize());
      }
#else
    (void)backend;
#endif
  }

  void
  synchronize()
  {
    synchronize(default_backend());
  }

  CostModel
  CostModel::of(const Backend backend)
  {
    CostModel model;
#if GPUMF_WITH_CUDA
    if (backend == Backend::cuda)
      {
        int device = 0, major = 0, minor = 0, n_sm = 0, clock_khz = 0, memory_khz = 0, bus_bits = 0;
        GPUMF_CHECK_CUDA(cudaGetDevice(&device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
        // FP64 units per multiprocessor: the data-centre architectures (6.0, 7.0, 8.0, 9.0, 10.0)
        // have 32 (Pascal to Ampere) or 64 (Hopper, Blackwell), the others 2
        const bool data_centre = minor == 0 && major >= 6 && major <= 10;
        const int  fp64_units  = data_centre ? (major >= 9 ? 64 : 32) : 2;
        if (memory_khz > 0 && bus_bits > 0)
          model.bandwidth = 2. * memory_khz * 1e3 * bus_bits / 8.;
        if (n_sm > 0 && clock_khz > 0)
          model.peak = 2. * n_sm * clock_khz * 1e3 * fp64_units;
      }
#else
    (void)backend;
#endif
    return model;
  }

  namespace internal
  {
    std::size_t
    max_shared_memory_per_block()
    {
#if GPUMF_WITH_CUDA
      int device = 0, max_shared = 0;
      GPUMF_CHECK_CUDA(cudaGetDevice(&device));
      GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      return max_shared;
#else
      throw_no_cuda();
#endif
    }

    void
    throw_no_cuda()
    {
      AssertThrow(false, ExcNoGPU("gpumf was built without CUDA (GPUMF_WITH_CUDA=OFF)"));
      std::abort(); // not reached: AssertThrow throws
    }
  } // namespace internal
} // namespace gpumf
