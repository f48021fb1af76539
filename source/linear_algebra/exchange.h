// How gpumf::Vector's ghost exchange moves its messages (gpumf::ExchangeMethod): the choice
// per communicator and backend, the NCCL path (library loaded at run time, one NCCL
// communicator and one high-priority CUDA stream per MPI communicator, cached on it as an
// MPI attribute), and the ipc path (each rank reads its neighbours' memory, ipc.h).
// Internal to the library.
#ifndef gpumf_source_exchange_h
#define gpumf_source_exchange_h

#include <gpumf/vector.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "linear_algebra/ipc.h"

namespace gpumf
{
  namespace internal
  {
    /// (rank, number of entries) of each message, as Utilities::MPI::Partitioner lists them.
    using Targets = std::vector<std::pair<unsigned int, unsigned int>>;

    /**
     * The method of the next exchange on @p comm for vectors on @p backend: GPUMF_EXCHANGE
     * (read at every call) or the automatic choice, with the fall-backs of
     * gpumf::exchange_method(). Collective over @p comm at its first call for the CUDA
     * backend (the automatic choice asks every rank).
     */
    ExchangeMethod
    resolve_exchange(const MPI_Comm comm, const Backend backend);

    /**
     * One vector's messages through NCCL, ordered on the GPU: post() makes the
     * communicator's stream wait for the work queued so far (the packing), sends and
     * receives the byte ranges as one NCCL group on that stream, and returns at once;
     * finish() makes the later work of the default stream wait for the messages, without
     * blocking the host. Sends and receives of one rank pair match in the order posted.
     */
    class NcclMessages
    {
    public:
      NcclMessages()                     = default;
      NcclMessages(const NcclMessages &) = delete;
      NcclMessages &
      operator=(const NcclMessages &) = delete;
      /// Waits for messages still in flight (their buffers die with the vector).
      ~NcclMessages();

      /// Chunks of @p entry_bytes times count bytes: send consecutive chunks of @p send to
      /// the ranks of @p send_targets, receive consecutive chunks of @p receive.
      void
      post(const MPI_Comm    comm,
           const Targets    &send_targets,
           const void       *send,
           const Targets    &receive_targets,
           void             *receive,
           const std::size_t entry_bytes);

      /// The default stream waits for the last post().
      void
      finish();

    private:
      /// cudaEvent_t recorded on the default stream before each group (the packing is done),
      /// and after the last group; both created at the first post() and reused.
      void *ready = nullptr, *done = nullptr;
    };

    /// How the ranks of an ipc link order their reads of each other's memory (IpcLinks).
    enum class IpcOrdering
    {
      /// empty MPI messages and interprocess CUDA events: the hosts wait for each other
      messages,
      /// counters in each process's memory that its neighbours wait for
      /// (ipc::signal_and_await()): on the CUDA backend the GPU waits, the hosts never do
      counters
    };

    /**
     * The ordering of the ipc links made next on @p comm for vectors on @p backend:
     * GPUMF_IPC_ORDER (auto, counters or messages; read at every call) or the automatic
     * choice: counters where every rank's driver has stream memory operations (always on the
     * host backend), whether the ranks share a GPU or use several; else messages (also when
     * counters were asked for and cannot serve, with a notice). resolve_exchange()
     * must have chosen the ipc method on @p comm before.
     */
    IpcOrdering
    resolve_ipc_ordering(const MPI_Comm comm, const Backend backend);

    /**
     * One vector's links to its neighbours for the ipc method: each rank reads what it
     * needs straight from the neighbours' memory (CUDA IPC on one node, shared host memory
     * on the host backend), so that nothing is packed or sent. With IpcOrdering::counters,
     * each exchange adds one to this rank's two counters (start(): ready, finish(): done),
     * and the waits below are waits for the neighbours' counters to reach the number of
     * the exchange, queued on the default stream (CUDA) or made by the host (host
     * backend); all ranks of the communicator take part in every exchange of the vector,
     * so that the numbers agree. With IpcOrdering::messages two empty MPI messages per
     * neighbour and exchange order the reads:
     * - start(): the data this rank offers are final in the order of its default stream
     *   (ready event); it tells its readers so and posts the receives of its sources'
     *   "ready" and its readers' "done".
     * - wait_sources(): waits for the sources' "ready" (the host, for a message that was
     *   sent when the source's host had queued its work), then makes the default stream
     *   wait for their ready events. The caller then reads (gather, scatter_add).
     * - finish(): records the done event after the reads, tells the sources, waits for the
     *   readers' "done" and makes the default stream wait for their done events: afterwards
     *   this rank may write the memory it offered. Each exchange thus ends complete on every
     *   rank, and the host never waits for the GPU.
     * With messages, finish() thus returns only when every reader has reached its own
     * finish() of the exchange (with counters, the GPU waits instead, and on the host
     * backend the host): all ranks must finish a vector's exchanges in the order they start
     * them (as they start them in the same order), and no rank may enter a blocking
     * collective between a start and its finish that another rank enters after it. With
     * counters, a rank's waits also need its neighbours to take part in every exchange of
     * the vector; the messages' way matches messages by rank pair. The messages travel
     * on a duplicate of the vector's communicator, with MPI tags of the link's own, so that
     * they never meet the program's messages or another vector's. connect() exchanges the
     * memory handles, once per vector allocation (collective among neighbours); the
     * destructor closes the handles (ipc.h: the lifetime protocol) and, during an exchange,
     * tells the sources that it is done (a message, or its done counter).
     */
    class IpcLinks
    {
    public:
      /// What a neighbour said about its part of the vector.
      struct Peer
      {
        ipc::Handle handle;
        /// the neighbour's entries (owned, then ghosts), mapped here
        const void *values = nullptr;
        /// its owned range, and this rank's chunk in its ghost range
        std::uint64_t first_owned = 0, n_owned = 0, ghost_offset = 0, ghost_count = 0;
      };

      IpcLinks()                 = default;
      IpcLinks(const IpcLinks &) = delete;
      IpcLinks &
      operator=(const IpcLinks &) = delete;
      /// Closes the neighbours' memory (after messages still in flight).
      ~IpcLinks();

      /// Whether connect() was called for the allocation at @p values.
      bool
      connected(const void *values) const
      {
        return linked && values == connected_values;
      }

      /// Exchanges the handles of @p values (owned entries from global index
      /// @p first_owned on, then the ghosts) with the ranks of both target lists. Every rank
      /// of @p comm connects its vectors in the same order (the link's tags are counted).
      void
      connect(const MPI_Comm      comm,
              const Backend       backend,
              const void         *values,
              const std::uint64_t first_owned,
              const std::uint64_t n_owned,
              const Targets      &import_targets,
              const Targets      &ghost_targets);

      /// The neighbour @p rank.
      const Peer &
      peer(const unsigned int rank) const;

      /// See the class description.
      void
      start(const Backend backend, const Targets &readers, const Targets &sources);

      void
      wait_sources();

      void
      finish(const Backend backend);

    private:
      /// Closes the neighbours' memory opened by connect().
      void
      close_peers() noexcept;

      std::map<unsigned int, Peer> peers;
      bool                         linked   = false;
      IpcOrdering                  ordering = IpcOrdering::messages;
      /// this rank's allocation as its neighbours know it (ordering by counters)
      ipc::Handle own;
      /// the number of exchanges each neighbour's counters will show when it is ready and
      /// done with the exchange under way (ordering by counters)
      std::map<unsigned int, std::pair<std::uint32_t, std::uint32_t>> expected;
      std::vector<ipc::Wait>                                          waits;
      /// between start() and finish()
      bool                      in_flight        = false;
      const void               *connected_values = nullptr;
      MPI_Comm                  comm             = MPI_COMM_NULL;
      int                       tag              = 0;
      std::vector<unsigned int> readers, sources;
      /// the receives of the sources' ready and the readers' done, and the sends
      std::vector<MPI_Request> ready_received, done_received, sent;
    };
  } // namespace internal
} // namespace gpumf

#endif
