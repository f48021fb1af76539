// The choice of gpumf::ExchangeMethod, and the NCCL path of the ghost exchange (exchange.h).
#include "linear_algebra/exchange.h"
#include "core/device.h"
#include "core/run_profile.h"

#include <gpumf/internal/cuda_check.h>

#include <deal.II/base/mpi.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <string>

#include <dlfcn.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#  include <mpi-ext.h> // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support()
#endif

#if GPUMF_WITH_CUDA && __has_include(<nccl.h>)
#  include <nccl.h> // types only: the functions come from dlopen()
#  define GPUMF_NCCL_HEADER 1
#else
#  define GPUMF_NCCL_HEADER 0
#endif

namespace gpumf
{
  using namespace dealii;

  bool
  cuda_aware_mpi()
  {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    static const bool supported = MPIX_Query_cuda_support() == 1;
    return supported;
#else
    return false;
#endif
  }

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
        case ExchangeMethod::ipc:
          return "ipc";
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
        ncclResult_t (*get_unique_id)(ncclUniqueId *)                                             = nullptr;
        ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int)                      = nullptr;
        ncclResult_t (*comm_destroy)(ncclComm_t)                                                  = nullptr;
        ncclResult_t (*group_start)()                                                             = nullptr;
        ncclResult_t (*group_end)()                                                               = nullptr;
        ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = nullptr;
        ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)       = nullptr;
        const char *(*error_string)(ncclResult_t)                                                 = nullptr;
        /// Empty when loaded, else why not.
        std::string error;

        NcclLibrary()
        {
          const char       *variable = std::getenv("GPUMF_NCCL_LIBRARY");
          const std::string name     = variable != nullptr && *variable != '\0' ? variable : "libnccl.so.2";
          void             *handle   = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
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
        /// Whether NCCL's preconditions were asked (collective), and their answer.
        bool probed      = false;
        bool nccl_usable = false;
        bool shares_gpu  = false;
        /// the number of distinct GPUs of the ranks (CUDA builds; asked with the probe)
        unsigned int n_gpus = 0;
        std::string  why_not_nccl;
        /// Whether ipc::usable() was asked for each backend (collective), and its answer.
        bool ipc_probed[2] = {false, false};
        /// A duplicate of the communicator for the ipc method's messages (made with the first
        /// probe), so that they never meet the program's or deal.II's messages.
        MPI_Comm    ipc_comm      = MPI_COMM_NULL;
        bool        ipc_usable[2] = {false, false};
        std::string why_not_ipc[2];
        /// Whether the ipc links can be ordered by counters on each backend (asked with
        /// the ipc probe), and if not, why.
        bool        counters_usable[2] = {false, false};
        std::string why_not_counters[2];
        /// The notices written so far (each once per communicator).
        std::set<std::string> notices;
        /// The ipc links connected so far (each link's MPI tags are taken from it).
        unsigned int n_ipc_links = 0;
        /// Whether the automatic choice of the CUDA backend was written (once per communicator).
        bool announced = false;
#if GPUMF_NCCL_HEADER
        ncclComm_t   nccl   = nullptr;
        cudaStream_t stream = nullptr;
#endif

        ~CommunicatorState()
        {
          int finalized = 1;
          MPI_Finalized(&finalized);
          if (ipc_comm != MPI_COMM_NULL && !finalized)
            MPI_Comm_free(&ipc_comm);
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
        const std::string &error      = nccl_library().error;
        int                loaded     = error.empty() ? 1 : 0;
        int                all_loaded = 0;
        AssertThrowMPI(MPI_Allreduce(&loaded, &all_loaded, 1, MPI_INT, MPI_MIN, comm));
        state.n_gpus     = internal::n_gpus(comm);
        state.shares_gpu = state.n_gpus < Utilities::MPI::n_mpi_processes(comm);
        if (!all_loaded)
          state.why_not_nccl =
            loaded ? "NCCL could not be loaded on another rank" : "NCCL could not be loaded: " + error;
        else if (state.shares_gpu)
          state.why_not_nccl = "NCCL needs a GPU of its own for each rank, and ranks of this communicator share one";
        state.nccl_usable = state.why_not_nccl.empty();
#else
        state.n_gpus       = GPUMF_WITH_CUDA ? internal::n_gpus(comm) : 0;
        state.shares_gpu   = GPUMF_WITH_CUDA && state.n_gpus < Utilities::MPI::n_mpi_processes(comm);
        state.why_not_nccl = GPUMF_WITH_CUDA ? "gpumf was built without nccl.h" : "gpumf was built without CUDA";
#endif
      }

      /// Whether the ipc method can serve vectors on @p backend (collective at the first call).
      bool
      ipc_usable(const MPI_Comm comm, CommunicatorState &state, const Backend backend)
      {
        const unsigned int b = backend == Backend::host ? 0 : 1;
        Assert(backend == Backend::host || state.probed, ExcInternalError()); // (n_gpus below)
        if (!state.ipc_probed[b])
          {
            state.ipc_probed[b] = true;
            state.ipc_usable[b] = ipc::usable(comm, backend, state.why_not_ipc[b]);
            if (state.ipc_comm == MPI_COMM_NULL)
              AssertThrowMPI(MPI_Comm_dup(comm, &state.ipc_comm));
            // ordering by counters: the stream memory operations on every rank (a GPU waits for a
            // counter in its own memory or in another GPU's; tested over NVLink)
            std::string why_not;
            const int   supported  = ipc::counters_supported(backend, why_not) ? 1 : 0;
            int         everywhere = 0;
            AssertThrowMPI(MPI_Allreduce(&supported, &everywhere, 1, MPI_INT, MPI_MIN, comm));
            if (!everywhere)
              state.why_not_counters[b] =
                supported ? "another rank's CUDA driver has no stream memory operations" : why_not;
            state.counters_usable[b] = state.why_not_counters[b].empty();
          }
        return state.ipc_usable[b];
      }

      /// The best method without NCCL and ipc on the CUDA backend.
      ExchangeMethod
      without_nccl()
      {
        return cuda_aware_mpi() ? ExchangeMethod::mpi : ExchangeMethod::staged_mpi;
      }
    } // namespace

    ExchangeMethod
    resolve_exchange(const MPI_Comm comm, const Backend backend)
    {
      const char       *variable = std::getenv("GPUMF_EXCHANGE");
      const std::string choice   = variable != nullptr && *variable != '\0' ? variable : "auto";
      AssertThrow(choice == "auto" || choice == "nccl" || choice == "mpi" || choice == "staged_mpi" || choice == "ipc",
                  ExcMessage("GPUMF_EXCHANGE must be auto, ipc, nccl, mpi or staged_mpi, not \"" + choice + "\"."));
      if (choice == "mpi")
        return ExchangeMethod::mpi;
      if (choice == "staged_mpi")
        return ExchangeMethod::staged_mpi;
      CommunicatorState &state = state_of(comm);
      if (backend == Backend::host)
        {
          if (choice == "nccl")
            notice(comm,
                   state,
                   "GPUMF_EXCHANGE=nccl: vectors on the host backend exchange through MPI (NCCL moves GPU "
                   "memory only)");
          if (choice == "ipc")
            {
              if (ipc_usable(comm, state, backend))
                return ExchangeMethod::ipc;
              notice(comm,
                     state,
                     "GPUMF_EXCHANGE=ipc, but " + state.why_not_ipc[0] + "; the ghost exchange uses mpi instead");
            }
          return ExchangeMethod::mpi;
        }
      probe(comm, state);
      const bool           ipc       = ipc_usable(comm, state, backend);
      const ExchangeMethod automatic = state.shares_gpu  ? (ipc ? ExchangeMethod::ipc : without_nccl()) :
                                       state.nccl_usable ? ExchangeMethod::nccl :
                                       ipc               ? ExchangeMethod::ipc :
                                                           without_nccl();
      if (choice == "nccl" && !state.nccl_usable)
        notice(comm,
               state,
               "GPUMF_EXCHANGE=nccl, but " + state.why_not_nccl + "; the ghost exchange uses " + to_string(automatic) +
                 " instead");
      else if (choice == "nccl")
        return ExchangeMethod::nccl;
      if (choice == "ipc" && !ipc)
        notice(comm,
               state,
               "GPUMF_EXCHANGE=ipc, but " + state.why_not_ipc[1] + "; the ghost exchange uses " + to_string(automatic) +
                 " instead");
      else if (choice == "ipc")
        return ExchangeMethod::ipc;
      if (!state.announced && Utilities::MPI::n_mpi_processes(comm) > 1)
        {
          // what the automatic choice picked, and why, once
          state.announced          = true;
          const unsigned int ranks = Utilities::MPI::n_mpi_processes(comm);
          std::string        text  = "ghost exchange of " + std::to_string(ranks) + " ranks on " +
                             std::to_string(state.n_gpus) + " GPU" + (state.n_gpus == 1 ? "" : "s") + ": " +
                             to_string(automatic);
          if (automatic == ExchangeMethod::nccl)
            text += " (a GPU for each rank)";
          else if (automatic == ExchangeMethod::ipc)
            text += std::string(" (") + (state.shares_gpu ? "ranks share GPUs" : "NCCL: " + state.why_not_nccl) +
                    "), ordered by " +
                    (resolve_ipc_ordering(comm, backend) == IpcOrdering::counters ?
                       "counters on the GPUs" :
                       "MPI messages: " + (state.why_not_counters[1].empty() ? std::string("GPUMF_IPC_ORDER=messages") :
                                                                               state.why_not_counters[1]));
          else
            text += " (NCCL: " + state.why_not_nccl + "; ipc: " + state.why_not_ipc[1] + ")";
          notice(comm, state, text + "; GPUMF_EXCHANGE chooses another");
        }
      return automatic;
    }

    IpcOrdering
    resolve_ipc_ordering(const MPI_Comm comm, const Backend backend)
    {
      const char       *variable = std::getenv("GPUMF_IPC_ORDER");
      const std::string choice   = variable != nullptr && *variable != '\0' ? variable : "auto";
      AssertThrow(choice == "auto" || choice == "counters" || choice == "messages",
                  ExcMessage("GPUMF_IPC_ORDER must be auto, counters or messages, not \"" + choice + "\"."));
      if (choice == "messages")
        return IpcOrdering::messages;
      CommunicatorState &state = state_of(comm);
      const unsigned int b     = backend == Backend::host ? 0 : 1;
      Assert(state.ipc_probed[b], ExcInternalError()); // resolve_exchange() chose ipc
      if (state.counters_usable[b])
        return IpcOrdering::counters;
      if (choice == "counters")
        notice(comm,
               state,
               "GPUMF_IPC_ORDER=counters, but " + state.why_not_counters[b] +
                 "; the ipc exchange is ordered by messages instead");
      return IpcOrdering::messages;
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
                       const Targets    &send_targets,
                       const void       *send,
                       const Targets    &receive_targets,
                       void             *receive,
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
          nccl.check(nccl.comm_init_rank(
                       &state.nccl, Utilities::MPI::n_mpi_processes(comm), id, Utilities::MPI::this_mpi_process(comm)),
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
          nccl.check(
            nccl.recv(
              static_cast<char *>(receive) + offset, count * entry_bytes, ncclUint8, rank, state.nccl, state.stream),
            "ncclRecv");
          offset += count * entry_bytes;
        }
      offset = 0;
      for (const auto &[rank, count] : send_targets)
        {
          nccl.check(
            nccl.send(
              static_cast<const char *>(send) + offset, count * entry_bytes, ncclUint8, rank, state.nccl, state.stream),
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

    namespace
    {
      /// The first of the two MPI tags of the ipc link number @p link on a communicator (the
      /// other exchanges and connect() use the tags below 16).
      int
      link_tag(const unsigned int link)
      {
        return 16 + 2 * static_cast<int>(link % 16000); // MPI_TAG_UB >= 32767
      }

      /// What connect() sends each neighbour (plain bytes).
      struct PeerMessage
      {
        ipc::Handle   handle;
        std::uint64_t first_owned, n_owned, ghost_offset, ghost_count;
        std::int32_t  ordering;
      };

      /// The tag of connect()'s messages.
      constexpr int connect_tag = 7;

      /// An empty message's buffer.
      char empty_message = 0;
    } // namespace

    IpcLinks::~IpcLinks()
    {
      int finalized = 1;
      MPI_Finalized(&finalized);
      if (!finalized)
        {
          // a vector destroyed during an exchange: its sources are told that it is done (its
          // memory outlives it while readers have it open), its receives are dropped
          if (in_flight && ordering == IpcOrdering::counters)
            try
              {
                ipc::signal_and_await(&own, ipc::Event::done, {}, ipc::Event::done);
              }
            catch (...)
              {}
          else if (in_flight)
            for (const unsigned int rank : sources)
              {
                sent.emplace_back();
                MPI_Isend(&empty_message, 0, MPI_BYTE, rank, tag + 1, comm, &sent.back());
              }
          for (std::vector<MPI_Request> *requests : {&ready_received, &done_received})
            for (MPI_Request &request : *requests)
              {
                MPI_Cancel(&request);
                MPI_Wait(&request, MPI_STATUS_IGNORE);
              }
          if (!sent.empty())
            MPI_Waitall(sent.size(), sent.data(), MPI_STATUSES_IGNORE);
        }
      close_peers();
    }

    void
    IpcLinks::close_peers() noexcept
    {
      for (const auto &[rank, peer] : peers)
        if (peer.values != nullptr)
          ipc::close(peer.handle);
      peers.clear();
    }

    void
    IpcLinks::connect(const MPI_Comm      comm,
                      const Backend       backend,
                      const void         *values,
                      const std::uint64_t first_owned,
                      const std::uint64_t n_owned,
                      const Targets      &import_targets,
                      const Targets      &ghost_targets)
    {
      close_peers();
      linked                   = false;
      CommunicatorState &state = state_of(comm);
      Assert(state.ipc_comm != MPI_COMM_NULL, ExcInternalError()); // resolve_exchange() made it
      this->comm = state.ipc_comm;
      tag        = link_tag(state.n_ipc_links++);
      // each neighbour learns where its chunk lies in this rank's ghost range
      std::map<unsigned int, PeerMessage> outgoing;
      for (const auto &[rank, count] : import_targets)
        outgoing[rank];
      std::uint64_t offset = 0;
      for (const auto &[rank, count] : ghost_targets)
        {
          outgoing[rank].ghost_offset = offset;
          outgoing[rank].ghost_count  = count;
          offset += count;
        }
      connected_values = values;
      expected.clear();
      // asked on every rank before anything is exported: a wrong GPUMF_IPC_ORDER throws everywhere
      const IpcOrdering wanted = resolve_ipc_ordering(comm, backend);
      if (outgoing.empty()) // no neighbours (e.g. no cells of this level here): nothing to map
        {
          ordering = IpcOrdering::messages; // nothing to order
          linked   = true;
          return;
        }
      RunTimer timer(RunPart::ipc_connect);
      ordering = wanted;
      const ipc::Handle handle =
        ipc::export_memory(backend, values, outgoing.size(), ordering == IpcOrdering::counters);
      own = handle;
      std::vector<PeerMessage> incoming(outgoing.size());
      std::vector<MPI_Request> requests;
      unsigned int             i = 0;
      for (auto &[rank, message] : outgoing)
        {
          message.handle      = handle;
          message.first_owned = first_owned;
          message.n_owned     = n_owned;
          message.ordering    = static_cast<std::int32_t>(ordering);
          requests.emplace_back();
          AssertThrowMPI(
            MPI_Irecv(&incoming[i++], sizeof(PeerMessage), MPI_BYTE, rank, connect_tag, this->comm, &requests.back()));
          requests.emplace_back();
          AssertThrowMPI(
            MPI_Isend(&message, sizeof(PeerMessage), MPI_BYTE, rank, connect_tag, this->comm, &requests.back()));
        }
      AssertThrowMPI(MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE));
      // every message checked before any memory is opened: on a mismatch nothing stays open
      // here, and the handles given out are taken back (the neighbours throw too)
      i = 0;
      for (const auto &[rank, message] : outgoing)
        {
          const PeerMessage &received = incoming[i++];
          std::string        error;
          if (static_cast<Backend>(received.handle.backend) != backend)
            error = "gpumf: the ipc exchange links vectors of one backend only: rank " + std::to_string(rank) +
                    " has its part of the vector on another";
          else if (static_cast<IpcOrdering>(received.ordering) != ordering)
            error = "gpumf: the ipc exchange of rank " + std::to_string(rank) +
                    " is ordered another way than this rank's: set GPUMF_IPC_ORDER alike on all ranks";
          if (!error.empty())
            {
              ipc::withdraw(handle, outgoing.size());
              AssertThrow(false, ExcMessage(error));
            }
        }
      i = 0;
      for (const auto &[rank, message] : outgoing)
        {
          const PeerMessage &received = incoming[i++];
          Peer              &peer     = peers[rank];
          peer.handle                 = received.handle;
          peer.first_owned            = received.first_owned;
          peer.n_owned                = received.n_owned;
          peer.ghost_offset           = received.ghost_offset;
          peer.ghost_count            = received.ghost_count;
          peer.values                 = ipc::open(received.handle);
          if (ordering == IpcOrdering::counters)
            ipc::map_counters(received.handle); // before any exchange waits for them
          expected[rank] = {received.handle.ready_count, received.handle.done_count};
        }
      linked = true;
    }

    const IpcLinks::Peer &
    IpcLinks::peer(const unsigned int rank) const
    {
      const auto found = peers.find(rank);
      AssertThrow(found != peers.end(),
                  ExcMessage("gpumf: the ipc exchange has no link to rank " + std::to_string(rank) +
                             " (its vector and this rank's were not connected)"));
      return found->second;
    }

    void
    IpcLinks::start(const Backend backend, const Targets &readers_, const Targets &sources_)
    {
      readers.clear();
      sources.clear();
      for (const auto &[rank, count] : readers_)
        readers.push_back(rank);
      for (const auto &[rank, count] : sources_)
        sources.push_back(rank);
      if (ordering == IpcOrdering::counters)
        {
          // every neighbour takes part in every exchange of the vector, reader or not
          for (auto &[rank, counts] : expected)
            ++counts.first, ++counts.second;
          if (!expected.empty())
            ipc::signal_and_await(&own, ipc::Event::ready, {}, ipc::Event::ready);
          in_flight = true;
          return;
        }
      ipc::record(backend, ipc::Event::ready);
      in_flight = true;
      for (const unsigned int rank : sources)
        {
          ready_received.emplace_back();
          AssertThrowMPI(MPI_Irecv(&empty_message, 0, MPI_BYTE, rank, tag, comm, &ready_received.back()));
        }
      for (const unsigned int rank : readers)
        {
          done_received.emplace_back();
          AssertThrowMPI(MPI_Irecv(&empty_message, 0, MPI_BYTE, rank, tag + 1, comm, &done_received.back()));
          sent.emplace_back();
          AssertThrowMPI(MPI_Isend(&empty_message, 0, MPI_BYTE, rank, tag, comm, &sent.back()));
        }
    }

    void
    IpcLinks::wait_sources()
    {
      RunTimer timer(RunPart::exchange_wait_sources);
      if (ordering == IpcOrdering::counters)
        {
          waits.clear();
          for (const unsigned int rank : sources)
            waits.push_back({&peer(rank).handle, expected.at(rank).first});
          ipc::signal_and_await(nullptr, ipc::Event::ready, waits, ipc::Event::ready);
          return;
        }
      const int ierr = MPI_Waitall(ready_received.size(), ready_received.data(), MPI_STATUSES_IGNORE);
      ready_received.clear();
      AssertThrowMPI(ierr);
      for (const unsigned int rank : sources)
        ipc::wait(peer(rank).handle, ipc::Event::ready);
    }

    void
    IpcLinks::finish(const Backend backend)
    {
      in_flight = false;
      if (ordering == IpcOrdering::counters)
        {
          if (expected.empty())
            return;
          RunTimer timer(RunPart::exchange_wait_readers);
          waits.clear();
          for (const unsigned int rank : readers)
            waits.push_back({&peer(rank).handle, expected.at(rank).second});
          ipc::signal_and_await(&own, ipc::Event::done, waits, ipc::Event::done);
          return;
        }
      ipc::record(backend, ipc::Event::done);
      for (const unsigned int rank : sources)
        {
          sent.emplace_back();
          AssertThrowMPI(MPI_Isend(&empty_message, 0, MPI_BYTE, rank, tag + 1, comm, &sent.back()));
        }
      RunTimer timer(RunPart::exchange_wait_readers);
      int      ierr = MPI_Waitall(done_received.size(), done_received.data(), MPI_STATUSES_IGNORE);
      done_received.clear();
      AssertThrowMPI(ierr);
      for (const unsigned int rank : readers)
        ipc::wait(peer(rank).handle, ipc::Event::done);
      ierr = MPI_Waitall(sent.size(), sent.data(), MPI_STATUSES_IGNORE);
      sent.clear();
      AssertThrowMPI(ierr);
    }
  } // namespace internal

  ExchangeMethod
  exchange_method(const MPI_Comm comm, const Backend backend)
  {
    return internal::resolve_exchange(comm, backend);
  }
} // namespace gpumf
