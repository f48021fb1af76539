// The choice of gpumf::ExchangeMethod, and the NCCL path of the ghost exchange (exchange.h).
#include "exchange.h"

#include <gpumf/internal/cuda_check.h>

#include <deal.II/base/mpi.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

#if GPUMF_WITH_CUDA && __has_include(<nccl.h>)
#  include <nccl.h> // types only: the functions come from dlopen()
#  define GPUMF_NCCL_HEADER 1
#else
#  define GPUMF_NCCL_HEADER 0
#endif

namespace gpumf
{
  using namespace dealii;

  std::string
  to_string(const ExchangeMethod method)
  {
    switch (method)
      {
        case ExchangeMethod::mpi:
          return "mpi";
        case ExchangeMethod::staged_mpi:
          return "staged_mpi";
        case ExchangeMethod::nccl:
          return "nccl";
      }
    return "unknown";
  }

  namespace internal
  {
    namespace
    {
#if GPUMF_NCCL_HEADER
      /// The NCCL functions gpumf calls, from the library that GPUMF_NCCL_LIBRARY names
      /// (default libnccl.so.2, found on the loader's path), loaded at the first use.
      struct NcclLibrary
      {
        ncclResult_t (*get_unique_id)(ncclUniqueId *)                                         = nullptr;
        ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int)                  = nullptr;
        ncclResult_t (*comm_destroy)(ncclComm_t)                                              = nullptr;
        ncclResult_t (*group_start)()                                                         = nullptr;
        ncclResult_t (*group_end)()                                                           = nullptr;
        ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
        ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)       = nullptr;
        const char *(*error_string)(ncclResult_t)                                             = nullptr;
        /// Empty when loaded, else why not.
        std::string error;

        NcclLibrary()
        {
          const char *      variable = std::getenv("GPUMF_NCCL_LIBRARY");
          const std::string name     = variable != nullptr && *variable != '\0' ? variable : "libnccl.so.2";
          void *            handle   = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
          if (handle == nullptr)
            {
              const char *why = dlerror();
              error           = "cannot load " + name + " (" + (why != nullptr ? why : "dlopen failed") + ")";
              return;
            }
          const auto find = [&](auto &function, const char *symbol) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, symbol));
            if (function == nullptr && error.empty())
              error = name + " has no " + symbol;
          };
          find(get_unique_id, "ncclGetUniqueId");
          find(comm_init_rank, "ncclCommInitRank");
          find(comm_destroy, "ncclCommDestroy");
          find(group_start, "ncclGroupStart");
          find(group_end, "ncclGroupEnd");
          find(send, "ncclSend");
          find(recv, "ncclRecv");
          find(error_string, "ncclGetErrorString");
        }

        void
        check(const ncclResult_t result, const char *call) const
        {
          AssertThrow(result == ncclSuccess,
                      ExcMessage(std::string("NCCL call ") + call + " failed: " + error_string(result)));
        }
      };

      const NcclLibrary &
      nccl_library()
      {
        static const NcclLibrary library;
        return library;
      }
#endif

      /// What gpumf keeps per MPI communicator (an MPI attribute, freed with it).
      struct CommunicatorState
      {
        /// Whether the automatic choice and NCCL's preconditions were asked (collective).
        bool        probed = false;
        bool        nccl_usable = false;
        std::string why_not_nccl;
        /// The notices written so far (each once per communicator).
        std::set<std::string> notices;
#if GPUMF_NCCL_HEADER
        ncclComm_t   nccl   = nullptr;
        cudaStream_t stream = nullptr;
#endif

        ~CommunicatorState()
        {
#if GPUMF_NCCL_HEADER
          if (stream != nullptr)
            cudaStreamSynchronize(stream); // no throw from destructors
          if (nccl != nullptr)
            nccl_library().comm_destroy(nccl);
          if (stream != nullptr)
            cudaStreamDestroy(stream);
#endif
        }
      };

      int
      delete_state(MPI_Comm, int, void *state, void *)
      {
        delete static_cast<CommunicatorState *>(state);
        return MPI_SUCCESS;
      }

      /// The state of @p comm, created at the first call.
      CommunicatorState &
      state_of(const MPI_Comm comm)
      {
        static int key = MPI_KEYVAL_INVALID;
        if (key == MPI_KEYVAL_INVALID)
          AssertThrowMPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &key, nullptr));
        void *value = nullptr;
        int   found = 0;
        AssertThrowMPI(MPI_Comm_get_attr(comm, key, &value, &found));
        if (found)
          return *static_cast<CommunicatorState *>(value);
        auto *state = new CommunicatorState;
        AssertThrowMPI(MPI_Comm_set_attr(comm, key, state));
        return *state;
      }

      /// Writes @p text on rank 0 of @p comm, once per communicator.
      void
      notice(const MPI_Comm comm, CommunicatorState &state, const std::string &text)
      {
        if (state.notices.insert(text).second && Utilities::MPI::this_mpi_process(comm) == 0)
          std::cerr << "gpumf: " << text << std::endl;
      }

      /// Asks every rank whether NCCL can carry this communicator's messages: the library
      /// loads everywhere and no two ranks share a GPU (NCCL refuses that).
      void
      probe(const MPI_Comm comm, CommunicatorState &state)
      {
        if (state.probed)
          return;
        state.probed = true;
#if GPUMF_NCCL_HEADER
        const std::string &error  = nccl_library().error;
        int                loaded = error.empty() ? 1 : 0;
        int                all_loaded = 0;
        AssertThrowMPI(MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_MIN, comm));
        // the GPU of each rank: host name and PCI address
        constexpr int size = 192;
        char          mine[size] = {};
        int           device     = 0;
        GPUMF_CHECK_CUDA(cudaGetDevice(&device));
        gethostname(mine, 120);
        const std::size_t length = std::strlen(mine);
        mine[length]             = '/';
        GPUMF_CHECK_CUDA(cudaDeviceGetPCIBusId(mine + length + 1, size - length - 2, device));
        const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
        std::vector<char>  all(size * n_ranks);
        AssertThrowMPI(MPI_Allgather(mine, size, MPI_CHAR, all.data(), size, MPI_CHAR, comm));
        std::set<std::string> gpus;
        for (unsigned int r = 0; r < n_ranks; ++r)
          gpus.insert(std::string(all.data() + r * size));
        if (!all_loaded)
          state.why_not_nccl = loaded ? "NCCL could not be loaded on another rank"
                                      : "NCCL could not be loaded: " + error;
        else if (gpus.size() < n_ranks)
          state.why_not_nccl = "NCCL needs a GPU of its own for each rank, and " + std::to_string(n_ranks) +
                               " ranks share " + std::to_string(gpus.size()) + " GPU(s)";
        state.nccl_usable = state.why_not_nccl.empty();
#else
        (void)comm;
        state.why_not_nccl = GPUMF_WITH_CUDA ? "gpumf was built without nccl.h" : "gpumf was built without CUDA";
#endif
      }

      /// The best method without NCCL on the CUDA backend.
      ExchangeMethod
      without_nccl()
      {
        return cuda_aware_mpi() ? ExchangeMethod::mpi : ExchangeMethod::staged_mpi;
      }
    } // namespace

    ExchangeMethod
    resolve_exchange(const MPI_Comm comm, const Backend backend)
    {
      const char *      variable = std::getenv("GPUMF_EXCHANGE");
      const std::string choice   = variable != nullptr && *variable != '\0' ? variable : "auto";
      AssertThrow(choice == "auto" || choice == "nccl" || choice == "mpi" || choice == "staged_mpi",
                  ExcMessage("GPUMF_EXCHANGE must be auto, nccl, mpi or staged_mpi, not \"" + choice + "\"."));
      if (choice == "mpi")
        return ExchangeMethod::mpi;
      if (choice == "staged_mpi")
        return ExchangeMethod::staged_mpi;
      CommunicatorState &state = state_of(comm);
      if (backend == Backend::host)
        {
          if (choice == "nccl")
            notice(comm, state,
                   "GPUMF_EXCHANGE=nccl: vectors on the host backend exchange through MPI (NCCL moves GPU "
                   "memory only)");
          return ExchangeMethod::mpi;
        }
      probe(comm, state);
      if (state.nccl_usable)
        return ExchangeMethod::nccl;
      if (choice == "nccl")
        notice(comm, state,
               "GPUMF_EXCHANGE=nccl, but " + state.why_not_nccl + "; the ghost exchange uses " +
                 to_string(without_nccl()) + " instead");
      return without_nccl();
    }

    NcclMessages::~NcclMessages()
    {
#if GPUMF_NCCL_HEADER
      if (done != nullptr)
        {
          cudaEventSynchronize(static_cast<cudaEvent_t>(done)); // no throw from destructors
          cudaEventDestroy(static_cast<cudaEvent_t>(done));
          cudaEventDestroy(static_cast<cudaEvent_t>(ready));
        }
#endif
    }

    void
    NcclMessages::post(const MPI_Comm    comm,
                       const Targets &   send_targets,
                       const void *      send,
                       const Targets &   receive_targets,
                       void *            receive,
                       const std::size_t entry_bytes)
    {
#if GPUMF_NCCL_HEADER
      const NcclLibrary &nccl  = nccl_library();
      CommunicatorState &state = state_of(comm);
      Assert(state.nccl_usable, ExcInternalError());
      if (state.nccl == nullptr)
        {
          // once per communicator, collective: the first exchange of every rank comes here
          int lowest = 0, highest = 0;
          GPUMF_CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
          // the messages' kernels get SMs ahead of the interior cells they overlap with
          GPUMF_CHECK_CUDA(cudaStreamCreateWithPriority(&state.stream, cudaStreamNonBlocking, highest));
          ncclUniqueId id;
          if (Utilities::MPI::this_mpi_process(comm) == 0)
            nccl.check(nccl.get_unique_id(&id), "ncclGetUniqueId");
          AssertThrowMPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
          nccl.check(nccl.comm_init_rank(&state.nccl, Utilities::MPI::n_mpi_processes(comm), id,
                                         Utilities::MPI::this_mpi_process(comm)),
                     "ncclCommInitRank");
        }
      if (done == nullptr)
        {
          cudaEvent_t events[2];
          for (cudaEvent_t &event : events)
            GPUMF_CHECK_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
          ready = events[0];
          done  = events[1];
        }
      // re-recording ready is safe: cudaStreamWaitEvent captured its previous record at the call
      GPUMF_CHECK_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(ready), cudaStreamLegacy));
      GPUMF_CHECK_CUDA(cudaStreamWaitEvent(state.stream, static_cast<cudaEvent_t>(ready), 0));
      nccl.check(nccl.group_start(), "ncclGroupStart");
      std::size_t offset = 0;
      for (const auto &[rank, count] : receive_targets)
        {
          nccl.check(nccl.recv(static_cast<char *>(receive) + offset, count * entry_bytes, ncclUint8, rank,
                               state.nccl, state.stream),
                     "ncclRecv");
          offset += count * entry_bytes;
        }
      offset = 0;
      for (const auto &[rank, count] : send_targets)
        {
          nccl.check(nccl.send(static_cast<const char *>(send) + offset, count * entry_bytes, ncclUint8, rank,
                               state.nccl, state.stream),
                     "ncclSend");
          offset += count * entry_bytes;
        }
      nccl.check(nccl.group_end(), "ncclGroupEnd");
      GPUMF_CHECK_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(done), state.stream));
#else
      (void)comm, (void)send_targets, (void)send, (void)receive_targets, (void)receive, (void)entry_bytes;
      AssertThrow(false, ExcInternalError());
#endif
    }

    void
    NcclMessages::finish()
    {
#if GPUMF_NCCL_HEADER
      if (done != nullptr)
        GPUMF_CHECK_CUDA(cudaStreamWaitEvent(cudaStreamLegacy, static_cast<cudaEvent_t>(done), 0));
#endif
    }
  } // namespace internal

  ExchangeMethod
  exchange_method(const MPI_Comm comm, const Backend backend)
  {
    return internal::resolve_exchange(comm, backend);
  }
} // namespace gpumf
