// The state of a gpumf::Vector's ghost exchange between its _start() and _finish() halves, and
// the message buffers the vector's exchanges reuse: internal::GhostExchange. Vector's exchange
// functions (ghost_exchange.cc) drive it; vector.cc makes it with the vector. Internal to the
// library.
#ifndef gpumf_source_linear_algebra_ghost_exchange_h
#define gpumf_source_linear_algebra_ghost_exchange_h

#include <gpumf/vector.h>

#include <deal.II/base/partitioner.h>

#include <mpi.h>

#include <string>
#include <vector>

#include "core/faults.h"
#include "core/run_profile.h"
#include "linear_algebra/exchange.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace internal
  {
    /// The MPI tags of the two exchanges (the ipc method's links have tags of their own).
    constexpr int ghost_update_tag = 1, compress_tag = 2;

    /// Which exchange of a vector is under way.
    enum class Phase
    {
      idle,
      ghost_update,
      compress
    };

    /**
     * A Vector's ghost exchange between its _start() and _finish(), and the message
     * buffers that every exchange of the vector reuses. Each buffer is sized at the first
     * exchange that needs it and freed with the vector (or at its next reinit()).
     */
    template <typename Number>
    struct GhostExchange
    {
      /// The exchange under way, and the operation of a compress under way.
      Phase                   phase     = Phase::idle;
      VectorOperation::values operation = VectorOperation::unknown;
      /// How the exchange under way travels (set by prepare()).
      ExchangeMethod method = ExchangeMethod::mpi;
      /// The owned entries that other ranks import, in import_targets() order, in the
      /// vector's memory: packed and sent by a ghost update, received by compress.
      Array<Number> import_values;
      /// Host copies of import_values and of the ghost range, when staged (page-locked).
      Array<Number>            host_import, host_ghosts;
      std::vector<MPI_Request> requests;
      /// The messages of the nccl method.
      NcclMessages nccl;
      /// The ipc method's links to the neighbours' memory, and the index of each ghost
      /// entry in its owner's local entries (in the order of the ghost range).
      IpcLinks            ipc;
      Array<unsigned int> ipc_ghost_indices;
      /// One kernel for all neighbours where there are at most PeerEntries::max_peers: the
      /// sources' entries of a ghost update and of a compress, and the compress's sums by
      /// owned entry (rows, where each row's positions in the import list start, the
      /// positions in rank order).
      bool                ipc_one_kernel = false;
      PeerEntries<Number> ipc_ghost_sources, ipc_import_sources;
      Array<unsigned int> ipc_rows, ipc_row_starts, ipc_positions;
      /// The entries of a ghost subset as received (update_ghost_values(subset)), before they
      /// move to their positions in the ghost range.
      Array<Number> subset_receive;

      GhostExchange()                      = default;
      GhostExchange(const GhostExchange &) = delete;
      GhostExchange &
      operator=(const GhostExchange &) = delete;

      /// A vector destroyed with an exchange under way waits for its messages, so that
      /// MPI never writes to freed memory; its neighbours may wait for the rest of the exchange
      /// (an exception left the program between _start() and _finish(): note_interrupted()).
      ~GhostExchange()
      {
        if (phase != Phase::idle)
          note_interrupted("a gpumf::Vector's exchange (the vector was destroyed between its _start() and _finish())",
                           2);
        int finalized = 1;
        MPI_Finalized(&finalized);
        if (!requests.empty() && !finalized)
          MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE);
      }

      /// Throws unless no exchange is under way; @p function is the caller's name (a
      /// C string: no allocation unless it throws).
      void
      check_idle(const char *function) const
      {
        const bool ghosts = phase == Phase::ghost_update;
        AssertThrow(phase == Phase::idle,
                    ExcMessage(std::string("gpumf::Vector::") + function + " was called while " +
                               (ghosts ? "update_ghost_values_start()" : "compress_start()") +
                               " of this vector is not finished: call " +
                               (ghosts ? "update_ghost_values_finish()" : "compress_finish()") + " first."));
      }

      /// Throws unless no exchange is under way, then marks @p next as under way
      /// (method mpi until prepare() says otherwise).
      void
      begin(const Phase next, const char *function, const VectorOperation::values op = VectorOperation::unknown)
      {
        check_idle(function);
        phase     = next;
        operation = op;
        method    = ExchangeMethod::mpi; // until prepare() decides
      }

      /// Throws unless the exchange @p expected is under way; @p function is the caller's name.
      void
      check_phase(const Phase expected, const char *function) const
      {
        AssertThrow(phase == expected,
                    ExcMessage(std::string("gpumf::Vector::") + function + " was called without " +
                               (expected == Phase::ghost_update ? "update_ghost_values_start()" : "compress_start()") +
                               " before it (each _finish() needs its own _start())."));
      }

      /// Whether the exchange under way goes through the host buffers (method staged_mpi).
      bool
      staged() const
      {
        return method == ExchangeMethod::staged_mpi;
      }

      /// The tables of the ipc method's one-kernel reads (ipc_one_kernel), after connect().
      void
      link_one_kernel(const Backend backend, const Utilities::MPI::Partitioner &p)
      {
        using Entries = PeerEntries<Number>;
        ipc_one_kernel =
          p.ghost_targets().size() <= Entries::max_peers && p.import_targets().size() <= Entries::max_peers;
        if (!ipc_one_kernel)
          return;
        ipc_ghost_sources = Entries();
        for (const auto &[rank, count] : p.ghost_targets())
          {
            const unsigned int s            = ipc_ghost_sources.n_peers++;
            ipc_ghost_sources.values[s]     = static_cast<const Number *>(ipc.peer(rank).values);
            ipc_ghost_sources.starts[s + 1] = ipc_ghost_sources.starts[s] + count;
          }
        ipc_import_sources = Entries();
        for (const auto &[rank, count] : p.import_targets())
          {
            const IpcLinks::Peer &peer   = ipc.peer(rank);
            const unsigned int    s      = ipc_import_sources.n_peers++;
            ipc_import_sources.values[s] = static_cast<const Number *>(peer.values) + peer.n_owned + peer.ghost_offset;
            ipc_import_sources.starts[s + 1] = ipc_import_sources.starts[s] + count;
          }
        // the import list's positions by owned entry, in rank order (positions ascend)
        std::vector<std::pair<unsigned int, unsigned int>> by_entry; // (owned entry, position)
        by_entry.reserve(p.n_import_indices());
        unsigned int position = 0;
        for (const auto &range : p.import_indices())
          for (unsigned int i = range.first; i < range.second; ++i)
            by_entry.emplace_back(i, position++);
        std::sort(by_entry.begin(), by_entry.end());
        std::vector<unsigned int> rows, row_starts, positions;
        positions.reserve(by_entry.size());
        for (std::size_t k = 0; k < by_entry.size(); ++k)
          {
            if (k == 0 || by_entry[k].first != by_entry[k - 1].first) // a new owned entry
              {
                rows.push_back(by_entry[k].first);
                row_starts.push_back(k);
              }
            positions.push_back(by_entry[k].second);
          }
        row_starts.push_back(by_entry.size());
        ipc_rows.reinit(backend, rows);
        ipc_row_starts.reinit(backend, row_starts);
        ipc_positions.reinit(backend, positions);
      }

      /// Decides how this exchange travels (exchange_method()) and sizes the buffers for @p p;
      /// for the ipc method, links the vector's memory at @p values to the neighbours'
      /// (once per allocation: the first exchange of every rank comes here).
      void
      prepare(const Backend backend, const Utilities::MPI::Partitioner &p, const void *values)
      {
        method = resolve_exchange(p.get_mpi_communicator(), backend);
        if (method == ExchangeMethod::ipc)
          {
            if (!ipc.connected(values))
              {
                ipc.connect(p.get_mpi_communicator(),
                            backend,
                            values,
                            p.local_range().first,
                            p.locally_owned_size(),
                            p.import_targets(),
                            p.ghost_targets());
                std::vector<unsigned int> indices;
                indices.reserve(p.n_ghost_indices());
                auto ghost = p.ghost_indices().begin();
                for (const auto &[rank, count] : p.ghost_targets())
                  {
                    const IpcLinks::Peer &peer = ipc.peer(rank);
                    for (unsigned int i = 0; i < count; ++i, ++ghost)
                      {
                        AssertThrow(*ghost >= peer.first_owned && *ghost - peer.first_owned < peer.n_owned,
                                    ExcMessage("gpumf::Vector: ghost index " + std::to_string(*ghost) +
                                               " is not owned by rank " + std::to_string(rank) +
                                               " as that rank's partitioner says: the ranks' partitioners do "
                                               "not match."));
                        indices.push_back(*ghost - peer.first_owned);
                      }
                  }
                ipc_ghost_indices.reinit(backend, indices);
                for (const auto &[rank, count] : p.import_targets())
                  AssertThrow(ipc.peer(rank).ghost_count == count,
                              ExcMessage("gpumf::Vector, ipc exchange: rank " + std::to_string(rank) + " has " +
                                         std::to_string(ipc.peer(rank).ghost_count) +
                                         " ghosts of this rank's entries, and this rank's partitioner expects " +
                                         std::to_string(count) + ": the ranks' partitioners do not match."));
                link_one_kernel(backend, p);
              }
            return;
          }
        import_values.reinit(backend, p.n_import_indices());
        if (staged() && backend == Backend::cuda)
          {
            host_import.reinit_pinned(p.n_import_indices());
            host_ghosts.reinit_pinned(p.n_ghost_indices());
          }
        else if (staged()) // the host backend's copies: the staging path without a GPU
          {
            host_import.reinit(Backend::host, p.n_import_indices());
            host_ghosts.reinit(Backend::host, p.n_ghost_indices());
          }
      }

      /// What MPI sends of the @p n entries at @p data: their host copy in @p host when
      /// staged, else @p data itself once the GPU has finished writing it (the GPU orders
      /// the nccl method's messages itself).
      const Number *
      outgoing(const Backend backend, const Number *data, Array<Number> &host, const std::size_t n)
      {
        if (method == ExchangeMethod::nccl)
          return data;
        if (!staged())
          {
            synchronize(backend);
            return data;
          }
        copy(Backend::host, host.data(), backend, data, n * sizeof(Number));
        return host.data();
      }

      /// Posts the receives of consecutive chunks of @p receive from the (rank, count)
      /// pairs of @p receive_targets, and the sends of consecutive chunks of @p send.
      void
      post(const Targets &send_targets,
           const Number  *send,
           const Targets &receive_targets,
           Number        *receive,
           const int      tag,
           const MPI_Comm comm)
      {
        if (method == ExchangeMethod::nccl)
          return nccl.post(comm, send_targets, send, receive_targets, receive, sizeof(Number));
        requests.reserve(send_targets.size() + receive_targets.size());
        std::size_t offset = 0;
        for (const auto &[rank, count] : receive_targets)
          {
            requests.emplace_back();
            const int ierr = MPI_Irecv(
              receive + offset, count, Utilities::MPI::mpi_type_id_for_type<Number>, rank, tag, comm, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
        offset = 0;
        for (const auto &[rank, count] : send_targets)
          {
            requests.emplace_back();
            const int ierr = MPI_Isend(
              send + offset, count, Utilities::MPI::mpi_type_id_for_type<Number>, rank, tag, comm, &requests.back());
            AssertThrowMPI(ierr);
            offset += count;
          }
      }

      /// Waits for the posted messages (if any: a serial program may not have
      /// initialized MPI); afterwards no exchange is under way.
      void
      wait()
      {
        phase = Phase::idle;
        if (method == ExchangeMethod::nccl)
          return nccl.finish();
        if (requests.empty())
          return;
        RunTimer  timer(RunPart::exchange_wait_messages);
        const int ierr = MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE);
        requests.clear();
        AssertThrowMPI(ierr);
      }

      std::size_t
      memory_consumption() const
      {
        return sizeof(*this) + import_values.memory_consumption() + host_import.memory_consumption() +
               host_ghosts.memory_consumption() + ipc_ghost_indices.memory_consumption() +
               subset_receive.memory_consumption();
      }
    };
  } // namespace internal
} // namespace gpumf

#endif
