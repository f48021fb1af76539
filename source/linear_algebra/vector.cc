// gpumf::Vector: layout, MPI ghost exchange and data exchange with deal.II.
#include <gpumf/vector.h>

#include <deal.II/lac/affine_constraints.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/vector_memory.templates.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#  include <mpi-ext.h> // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support()
#endif

#include "linear_algebra/exchange.h"
#include "linear_algebra/ghost_subset.h"
#include "core/run_profile.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    /// The sum over the ranks of the vector's reductions (timed in the run profile).
    template <typename T>
    T
    sum_over_ranks(const T local, const MPI_Comm comm)
    {
      internal::RunTimer timer(internal::RunPart::reduction_mpi);
      return Utilities::MPI::sum(local, comm);
    }

    /// The maximum over the ranks (timed in the run profile).
    template <typename T>
    T
    max_over_ranks(const T local, const MPI_Comm comm)
    {
      internal::RunTimer timer(internal::RunPart::reduction_mpi);
      return Utilities::MPI::max(local, comm);
    }
  } // namespace

  template <typename Number>
  Vector<Number>::Vector()
  {
    reinit(0);
  }

  template <typename Number>
  Vector<Number>::Vector(const Vector &other)
    : internal::EnableObserverPointer()
    , partitioner(other.partitioner)
    , values(other.values)
    , import_indices(other.import_indices)
    , ghosts_valid(other.ghosts_valid)
    , exchange(std::make_shared<internal::GhostExchange<Number>>())
  {}

  template <typename Number>
  Vector<Number>::Vector(const size_type size)
  {
    reinit(size);
  }

  template <typename Number>
  Vector<Number>::Vector(const IndexSet &locally_owned, const MPI_Comm comm)
  {
    reinit(locally_owned, comm);
  }

  template <typename Number>
  Vector<Number>::Vector(const IndexSet &locally_owned, const IndexSet &ghost, const MPI_Comm comm)
  {
    reinit(locally_owned, ghost, comm);
  }

  template <typename Number>
  Vector<Number>::Vector(const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner, const Backend backend)
  {
    reinit(partitioner, backend);
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Vector &other)
  {
    if (this == &other)
      return *this;
    if (partitioner.get() != other.partitioner.get() && !(partitioner->is_compatible(*other.partitioner)))
      reinit(other.partitioner, backend());
    // copies between backends too: assignment is how data move host <-> device
    internal::copy(
      values.backend(), values.data(), other.values.backend(), other.values.data(), values.size() * sizeof(Number));
    ghosts_valid = other.ghosts_valid;
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Number s)
  {
    GPUMF_DISPATCH(backend(), fill(values.data(), s == Number() ? values.size() : locally_owned_size(), s));
    if (s == Number())
      ghosts_valid = false;
    return *this;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const size_type size, const bool omit_zeroing_entries)
  {
    reinit(std::make_shared<Utilities::MPI::Partitioner>(size), default_backend());
    (void)omit_zeroing_entries;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const IndexSet &locally_owned, const MPI_Comm comm)
  {
    reinit(locally_owned, IndexSet(locally_owned.size()), comm);
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const IndexSet &locally_owned, const IndexSet &ghost, const MPI_Comm comm)
  {
    reinit(std::make_shared<Utilities::MPI::Partitioner>(locally_owned, ghost, comm), default_backend());
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const std::shared_ptr<const Utilities::MPI::Partitioner> &new_partitioner,
                         const Backend                                             backend)
  {
    Assert(new_partitioner, ExcNotInitialized());
    if (exchange)
      exchange->check_idle("reinit()");
    exchange    = std::make_shared<internal::GhostExchange<Number>>();
    partitioner = new_partitioner;
    // several ranks: memory that the neighbours can map (the ipc exchange method)
    if (partitioner->n_mpi_processes() > 1)
      values.reinit_shareable(backend, partitioner->locally_owned_size() + partitioner->n_ghost_indices());
    else
      values.reinit(backend, partitioner->locally_owned_size() + partitioner->n_ghost_indices());
    internal::zero(backend, values.data(), values.memory_consumption());
    std::vector<unsigned int> indices;
    indices.reserve(partitioner->n_import_indices());
    for (const auto &range : partitioner->import_indices())
      for (unsigned int i = range.first; i < range.second; ++i)
        indices.push_back(i);
    import_indices.reinit(backend, indices);
    ghosts_valid = false;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const Vector &other, const bool omit_zeroing_entries)
  {
    if (partitioner.get() == other.partitioner.get() && backend() == other.backend())
      {
        if (!omit_zeroing_entries)
          internal::zero(backend(), values.data(), values.memory_consumption());
        ghosts_valid = false;
        return;
      }
    reinit(other.partitioner, other.backend());
  }

  template <typename Number>
  void
  Vector<Number>::swap(Vector &other)
  {
    std::swap(partitioner, other.partitioner);
    values.swap(other.values);
    import_indices.swap(other.import_indices);
    std::swap(ghosts_valid, other.ghosts_valid);
    std::swap(exchange, other.exchange);
  }

  template <typename Number>
  void
  Vector<Number>::check_compatible(const Vector &v) const
  {
    AssertThrow(v.backend() == backend(),
                ExcVectorMismatch("backend " + to_string(backend()), "backend " + to_string(v.backend())));
    AssertThrow(
      v.locally_owned_size() == locally_owned_size() && v.size() == size(),
      ExcVectorMismatch(std::to_string(locally_owned_size()) + " owned of " + std::to_string(size()) + " entries",
                        std::to_string(v.locally_owned_size()) + " owned of " + std::to_string(v.size()) + " entries"));
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator*=(const Number factor)
  {
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), factor, true, 0, nullptr, 0, nullptr, 0));
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator/=(const Number factor)
  {
    AssertThrow(factor != Number(), ExcDivideByZero());
    return operator*=(Number(1) / factor);
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator+=(const Vector &v)
  {
    add(Number(1), v);
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator-=(const Vector &v)
  {
    add(Number(-1), v);
    return *this;
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a)
  {
    GPUMF_DISPATCH(backend(), update<Number>(values.data(), locally_owned_size(), 1, true, 0, nullptr, 0, nullptr, a));
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v)
  {
    check_compatible(v);
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), 1, true, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v, const Number b, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    GPUMF_DISPATCH(
      backend(), update<Number>(values.data(), locally_owned_size(), 1, true, a, v.get_values(), b, w.get_values(), 0));
  }

  template <typename Number>
  void
  Vector<Number>::sadd(const Number s, const Vector &v)
  {
    sadd(s, Number(1), v);
  }

  template <typename Number>
  void
  Vector<Number>::sadd(const Number s, const Number a, const Vector &v)
  {
    check_compatible(v);
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), s, true, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::equ(const Number a, const Vector &v)
  {
    check_compatible(v);
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), 0, false, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::reciprocal()
  {
    zero_out_ghost_values(); // they would no longer match
    GPUMF_DISPATCH(backend(), reciprocal(values.data(), locally_owned_size()));
  }

  template <typename Number>
  void
  Vector<Number>::scale(const Vector &scaling_factors)
  {
    check_compatible(scaling_factors);
    GPUMF_DISPATCH(backend(), scale(values.data(), locally_owned_size(), scaling_factors.get_values()));
  }

  template <typename Number>
  Number
  Vector<Number>::operator*(const Vector &v) const
  {
    check_compatible(v);
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), reduce(internal::Reduction::dot, get_values(), v.get_values(), locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::add_and_dot(const Number a, const Vector &v, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), add_and_dot(values.data(), locally_owned_size(), a, v.get_values(), w.get_values())),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::l1_norm() const
  {
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(),
                     reduce<Number>(internal::Reduction::abs_sum, get_values(), nullptr, locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::norm_sqr() const
  {
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), reduce(internal::Reduction::dot, get_values(), get_values(), locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::l2_norm() const
  {
    return std::sqrt(norm_sqr());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::linfty_norm() const
  {
    return max_over_ranks(
      GPUMF_DISPATCH(backend(),
                     reduce<Number>(internal::Reduction::abs_max, get_values(), nullptr, locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::mean_value() const
  {
    AssertThrow(size() > 0, ExcEmptyObject());
    return sum_over_ranks(
             GPUMF_DISPATCH(backend(),
                            reduce<Number>(internal::Reduction::sum, get_values(), nullptr, locally_owned_size())),
             get_mpi_communicator()) /
           Number(size());
  }

  template <typename Number>
  bool
  Vector<Number>::all_zero() const
  {
    return linfty_norm() == real_type();
  }

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
      /// MPI never writes to freed memory.
      ~GhostExchange()
      {
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

  // Ghost exchange, in two halves. The owned entries that other ranks import are packed
  // on the backend (internal::gather) into a send buffer that the vector keeps; NCCL or
  // MPI on the vector's memory (exchange_method() nccl or mpi) send from it and receive
  // straight into the ghost range, which holds the ghosts of each source rank contiguously
  // in the order of ghost_targets(). NCCL runs on a stream of its own, ordered after the
  // packing by an event, and the default stream waits for its messages in _finish(): the
  // host never blocks. With staged_mpi the messages go through page-locked host buffers:
  // copied to the host before the sends are posted, copied back to the device after the
  // receives complete. compress(add) sends the ghost range the same ways, and adds what
  // it receives one sending rank after the other (scatter_add: the indices within one
  // rank are unique), in rank order, so the result depends neither on message timing
  // nor on the method. One rank: nothing to send.
  template <typename Number>
  void
  Vector<Number>::update_ghost_values() const
  {
    update_ghost_values_start();
    update_ghost_values_finish();
  }

  template <typename Number>
  void
  Vector<Number>::update_ghost_values_start() const
  {
    internal::RunTimer               timer(internal::RunPart::exchange_host);
    internal::GhostExchange<Number> &ex = *exchange;
    ex.begin(internal::Phase::ghost_update, "update_ghost_values_start()");
    const Utilities::MPI::Partitioner &p = *partitioner;
    if (p.n_mpi_processes() > 1)
      {
        ex.prepare(backend(), p, values.data());
        if (ex.method == ExchangeMethod::ipc)
          return ex.ipc.start(backend(), p.import_targets(), p.ghost_targets());
        GPUMF_DISPATCH(backend(),
                       gather(ex.import_values.data(), get_values(), import_indices.data(), p.n_import_indices()));
        const Number *send    = ex.outgoing(backend(), ex.import_values.data(), ex.host_import, p.n_import_indices());
        Number       *receive = ex.staged() ? ex.host_ghosts.data() : get_values() + locally_owned_size();
        ex.post(
          p.import_targets(), send, p.ghost_targets(), receive, internal::ghost_update_tag, p.get_mpi_communicator());
      }
  }

  template <typename Number>
  void
  Vector<Number>::update_ghost_values_finish() const
  {
    internal::RunTimer               timer(internal::RunPart::exchange_host);
    internal::GhostExchange<Number> &ex = *exchange;
    ex.check_phase(internal::Phase::ghost_update, "update_ghost_values_finish()");
    if (ex.method == ExchangeMethod::ipc)
      {
        // each source's entries read from its memory, in the source's local numbering
        ex.ipc.wait_sources();
        std::size_t offset = 0;
        {
          internal::RunTimer launch_timer(internal::RunPart::exchange_launch);
          if (ex.ipc_one_kernel)
            GPUMF_DISPATCH(backend(),
                           gather_from_peers(get_values() + locally_owned_size(),
                                             ex.ipc_ghost_sources,
                                             ex.ipc_ghost_indices.data()));
          else
            for (const auto &[rank, count] : partitioner->ghost_targets())
              {
                GPUMF_DISPATCH(backend(),
                               gather(get_values() + locally_owned_size() + offset,
                                      static_cast<const Number *>(ex.ipc.peer(rank).values),
                                      ex.ipc_ghost_indices.data() + offset,
                                      count));
                offset += count;
              }
        }
        ex.ipc.finish(backend());
      }
    ex.wait();
    if (ex.staged())
      internal::copy(backend(),
                     get_values() + locally_owned_size(),
                     Backend::host,
                     ex.host_ghosts.data(),
                     partitioner->n_ghost_indices() * sizeof(Number));
    ghosts_valid = true;
  }

  // A ghost subset travels as the full exchange does, with the subset's partitioner (its
  // import list and targets): packed, sent by NCCL or MPI (staged or not) into a buffer of the
  // subset's size, then moved to the entries' positions in the ghost range; or, by the ipc
  // method, read from the neighbours' memory at the subset's positions only, with the full
  // exchange's ordering (every neighbour takes part, as its counters expect).
  template <typename Number>
  void
  Vector<Number>::update_ghost_values(const internal::GhostSubset &subset) const
  {
    internal::RunTimer                 timer(internal::RunPart::exchange_host);
    const Utilities::MPI::Partitioner &p = *partitioner;
    AssertThrow(subset.larger && subset.partitioner &&
                  (subset.larger.get() == partitioner.get() || subset.larger->is_compatible(p)),
                ExcMessage("gpumf::Vector::update_ghost_values(subset): the ghost subset was made for another "
                           "layout than this vector's (owned and ghost entries must match)."));
    AssertThrow(subset.backend == backend(),
                ExcMessage("gpumf::Vector::update_ghost_values(subset): the ghost subset lives on the " +
                           to_string(subset.backend) + " backend, this vector on the " + to_string(backend()) +
                           " backend."));
    internal::GhostExchange<Number> &ex = *exchange;
    ex.begin(internal::Phase::ghost_update, "update_ghost_values(subset)");
    Number *ghosts = get_values() + locally_owned_size();
    internal::zero(backend(), ghosts, p.n_ghost_indices() * sizeof(Number));
    ghosts_valid                         = false;
    const Utilities::MPI::Partitioner &s = *subset.partitioner;
    if (p.n_mpi_processes() > 1)
      {
        ex.prepare(backend(), p, values.data());
        if (ex.method == ExchangeMethod::ipc)
          {
            ex.ipc.start(backend(), p.import_targets(), p.ghost_targets());
            ex.ipc.wait_sources();
            std::size_t offset = 0;
            for (const auto &[rank, count] : s.ghost_targets())
              {
                GPUMF_DISPATCH(backend(),
                               copy_to_positions(ghosts,
                                                 subset.positions.data() + offset,
                                                 static_cast<const Number *>(ex.ipc.peer(rank).values),
                                                 ex.ipc_ghost_indices.data(),
                                                 count));
                offset += count;
              }
            ex.ipc.finish(backend());
          }
        else
          {
            GPUMF_DISPATCH(
              backend(),
              gather(ex.import_values.data(), get_values(), subset.import_indices.data(), s.n_import_indices()));
            const Number *send = ex.outgoing(backend(), ex.import_values.data(), ex.host_import, s.n_import_indices());
            if (ex.subset_receive.size() < s.n_ghost_indices())
              ex.subset_receive.reinit(backend(), s.n_ghost_indices());
            Number *receive = ex.staged() ? ex.host_ghosts.data() : ex.subset_receive.data();
            ex.post(s.import_targets(),
                    send,
                    s.ghost_targets(),
                    receive,
                    internal::ghost_update_tag,
                    s.get_mpi_communicator());
          }
      }
    ex.wait();
    if (p.n_mpi_processes() > 1 && ex.method != ExchangeMethod::ipc)
      {
        if (ex.staged())
          internal::copy(backend(),
                         ex.subset_receive.data(),
                         Backend::host,
                         ex.host_ghosts.data(),
                         s.n_ghost_indices() * sizeof(Number));
        GPUMF_DISPATCH(
          backend(),
          copy_to_positions(ghosts, subset.positions.data(), ex.subset_receive.data(), nullptr, s.n_ghost_indices()));
      }
  }

  template <typename Number>
  void
  Vector<Number>::compress(const VectorOperation::values operation)
  {
    compress_start(operation);
    compress_finish(operation);
  }

  template <typename Number>
  void
  Vector<Number>::compress_start(const VectorOperation::values operation)
  {
    internal::RunTimer               timer(internal::RunPart::exchange_host);
    internal::GhostExchange<Number> &ex = *exchange;
    ex.begin(internal::Phase::compress, "compress_start()", operation);
    const Utilities::MPI::Partitioner &p = *partitioner;
    if (p.n_mpi_processes() > 1 && operation == VectorOperation::add)
      {
        ex.prepare(backend(), p, values.data());
        if (ex.method == ExchangeMethod::ipc)
          return ex.ipc.start(backend(), p.ghost_targets(), p.import_targets());
        const Number *send =
          ex.outgoing(backend(), get_values() + locally_owned_size(), ex.host_ghosts, p.n_ghost_indices());
        Number *receive = ex.staged() ? ex.host_import.data() : ex.import_values.data();
        ex.post(p.ghost_targets(), send, p.import_targets(), receive, internal::compress_tag, p.get_mpi_communicator());
      }
  }

  template <typename Number>
  void
  Vector<Number>::compress_finish(const VectorOperation::values operation)
  {
    internal::RunTimer               timer(internal::RunPart::exchange_host);
    internal::GhostExchange<Number> &ex = *exchange;
    ex.check_phase(internal::Phase::compress, "compress_finish()");
    AssertThrow(operation == ex.operation,
                ExcMessage("gpumf::Vector::compress_finish() was called with another VectorOperation than "
                           "compress_start()."));
    const Utilities::MPI::Partitioner &p         = *partitioner;
    const bool                         exchanged = p.n_mpi_processes() > 1 && operation == VectorOperation::add;
    if (exchanged && ex.method == ExchangeMethod::ipc)
      {
        // each source's ghost entries of this rank's indices, read from its memory
        ex.ipc.wait_sources();
        std::size_t offset = 0;
        {
          internal::RunTimer launch_timer(internal::RunPart::exchange_launch);
          if (ex.ipc_one_kernel)
            GPUMF_DISPATCH(backend(),
                           scatter_add_from_peers(values.data(),
                                                  import_indices.data(),
                                                  ex.ipc_import_sources,
                                                  ex.ipc_rows.data(),
                                                  ex.ipc_row_starts.data(),
                                                  ex.ipc_positions.data(),
                                                  ex.ipc_rows.size()));
          else
            for (const auto &[rank, count] : p.import_targets())
              {
                const internal::IpcLinks::Peer &peer = ex.ipc.peer(rank);
                GPUMF_DISPATCH(backend(),
                               scatter_add(values.data(),
                                           import_indices.data() + offset,
                                           static_cast<const Number *>(peer.values) + peer.n_owned + peer.ghost_offset,
                                           count));
                offset += count;
              }
        }
        ex.ipc.finish(backend()); // the sources may zero their ghosts after this
      }
    ex.wait();
    if (exchanged && ex.method != ExchangeMethod::ipc)
      {
        if (ex.staged())
          internal::copy(backend(),
                         ex.import_values.data(),
                         Backend::host,
                         ex.host_import.data(),
                         p.n_import_indices() * sizeof(Number));
        std::size_t offset = 0;
        for (const auto &[rank, count] : p.import_targets())
          {
            GPUMF_DISPATCH(
              backend(),
              scatter_add(values.data(), import_indices.data() + offset, ex.import_values.data() + offset, count));
            offset += count;
          }
      }
    zero_out_ghost_values();
  }

  template <typename Number>
  void
  Vector<Number>::zero_out_ghost_values() const
  {
    internal::zero(backend(), get_values() + locally_owned_size(), partitioner->n_ghost_indices() * sizeof(Number));
    ghosts_valid = false;
  }

  template <typename Number>
  bool
  Vector<Number>::has_ghost_elements() const
  {
    return ghosts_valid;
  }

  namespace
  {
    /// Throws unless deal.II's vector (owning @p theirs) and a gpumf::Vector (@p ours) own the same indices.
    void
    check_same_owned(const IndexSet &theirs, const IndexSet &ours, const std::string &function)
    {
      AssertThrow(theirs == ours,
                  ExcMessage("gpumf::Vector::" + function + ": deal.II's vector has other locally owned indices (" +
                             std::to_string(theirs.n_elements()) + " of " + std::to_string(theirs.size()) +
                             ") than this one (" + std::to_string(ours.n_elements()) + " of " +
                             std::to_string(ours.size()) + "); make both from the same locally owned IndexSet."));
    }
  } // namespace

  template <typename Number>
  template <typename MemorySpace>
  void
  Vector<Number>::import_from_dealii(const LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                                     const VectorOperation::values                                  operation)
  {
    check_same_owned(v.locally_owned_elements(), locally_owned_elements(), "import_elements");
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    internal::import_elements(rw, v, VectorOperation::insert);
    import(rw, operation);
  }

  template <typename Number>
  template <typename MemorySpace>
  void
  Vector<Number>::export_to_dealii(LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                                   const VectorOperation::values                            operation) const
  {
    check_same_owned(v.locally_owned_elements(), locally_owned_elements(), "export_to");
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::export_to supports VectorOperation::insert and add."));
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    export_to(rw, VectorOperation::insert);
    internal::import_elements(v, rw, operation);
  }

  template <typename Number>
  void
  Vector<Number>::import(const LinearAlgebra::ReadWriteVector<Number> &rw,
                         const VectorOperation::values                 operation,
                         const std::shared_ptr<const Utilities::MPI::CommunicationPatternBase> &)
  {
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::import supports VectorOperation::insert and add."));
    const IndexSet owned = locally_owned_elements();
    AssertThrow((owned & rw.get_stored_elements()) == owned,
                ExcMessage("gpumf::Vector::import needs a ReadWriteVector that stores every locally owned "
                           "index of the vector (e.g. one made from locally_owned_elements())."));
    std::vector<Number> host(locally_owned_size());
    if (operation == VectorOperation::add)
      internal::copy(Backend::host, host.data(), backend(), get_values(), host.size() * sizeof(Number));
    unsigned int i = 0;
    for (const auto g : owned)
      {
        host[i] = (operation == VectorOperation::add ? host[i] : Number()) + rw(g);
        ++i;
      }
    internal::copy(backend(), values.data(), Backend::host, host.data(), host.size() * sizeof(Number));
  }

  template <typename Number>
  void
  Vector<Number>::export_to(LinearAlgebra::ReadWriteVector<Number> &rw, const VectorOperation::values operation) const
  {
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::export_to supports VectorOperation::insert and add."));
    const IndexSet owned = locally_owned_elements();
    AssertThrow((owned & rw.get_stored_elements()) == rw.get_stored_elements(),
                ExcMessage("gpumf::Vector::export_to needs a ReadWriteVector whose stored indices are "
                           "locally owned by the vector."));
    std::vector<Number> host(locally_owned_size());
    internal::copy(Backend::host, host.data(), backend(), get_values(), host.size() * sizeof(Number));
    for (const auto g : rw.get_stored_elements())
      {
        const Number v = host[owned.index_within_set(g)];
        rw(g)          = operation == VectorOperation::insert ? v : rw(g) + v;
      }
  }

  template <typename Number>
  Number
  Vector<Number>::get_entry(const unsigned int local_index) const
  {
    AssertIndexRange(local_index, values.size());
    Number value;
    internal::copy(Backend::host, &value, backend(), get_values() + local_index, sizeof(Number));
    return value;
  }

  template <typename Number>
  void
  Vector<Number>::set_entry(const unsigned int local_index, const Number value)
  {
    AssertIndexRange(local_index, values.size());
    internal::copy(backend(), get_values() + local_index, Backend::host, &value, sizeof(Number));
  }

  template <typename Number>
  typename Vector<Number>::size_type
  Vector<Number>::size() const
  {
    return partitioner->size();
  }

  template <typename Number>
  typename Vector<Number>::size_type
  Vector<Number>::locally_owned_size() const
  {
    return partitioner->locally_owned_size();
  }

  template <typename Number>
  IndexSet
  Vector<Number>::locally_owned_elements() const
  {
    return partitioner->locally_owned_range();
  }

  template <typename Number>
  bool
  Vector<Number>::in_local_range(const size_type global_index) const
  {
    return partitioner->in_local_range(global_index);
  }

  template <typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  Vector<Number>::get_partitioner() const
  {
    return partitioner;
  }

  template <typename Number>
  MPI_Comm
  Vector<Number>::get_mpi_communicator() const
  {
    return partitioner->get_mpi_communicator();
  }

  template <typename Number>
  Backend
  Vector<Number>::backend() const
  {
    return values.backend();
  }

  template <typename Number>
  Number *
  Vector<Number>::get_values() const
  {
    return values.data();
  }

  template <typename Number>
  std::size_t
  Vector<Number>::memory_consumption() const
  {
    return sizeof(*this) + values.memory_consumption() + import_indices.memory_consumption() +
           exchange->memory_consumption() + partitioner->memory_consumption();
  }

  template <typename Number>
  LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const IndexSet &ghosts)
  {
    LinearAlgebra::distributed::Vector<Number> host(v.locally_owned_elements(), ghosts, v.get_mpi_communicator());
    v.export_to(host, VectorOperation::insert);
    host.update_ghost_values();
    return host;
  }

  template <typename Number>
  LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const AffineConstraints<Number> &constraints)
  {
    // (constraints made without an IndexSet of lines: the vector's own ghosts, which in a
    // MatrixFree layout hold the locally relevant DoFs)
    const IndexSet                            &lines = constraints.get_local_lines();
    LinearAlgebra::distributed::Vector<Number> host(v.locally_owned_elements(),
                                                    lines.size() > 0 ? lines : v.get_partitioner()->ghost_indices(),
                                                    v.get_mpi_communicator());
    v.export_to(host, VectorOperation::insert);
    constraints.distribute(host);
    host.update_ghost_values();
    return host;
  }

  template class Vector<float>;
  template class Vector<double>;
  template LinearAlgebra::distributed::Vector<float>
  host_copy(const Vector<float> &, const IndexSet &);
  template LinearAlgebra::distributed::Vector<double>
  host_copy(const Vector<double> &, const IndexSet &);
  template LinearAlgebra::distributed::Vector<float>
  host_copy(const Vector<float> &, const AffineConstraints<float> &);
  template LinearAlgebra::distributed::Vector<double>
  host_copy(const Vector<double> &, const AffineConstraints<double> &);

#define GPUMF_INSTANTIATE(space)                                                                              \
  template void Vector<float>::import_from_dealii(const LinearAlgebra::distributed::Vector<float, space> &,   \
                                                  const VectorOperation::values);                             \
  template void Vector<double>::import_from_dealii(const LinearAlgebra::distributed::Vector<double, space> &, \
                                                   const VectorOperation::values);                            \
  template void Vector<float>::export_to_dealii(LinearAlgebra::distributed::Vector<float, space> &,           \
                                                const VectorOperation::values) const;                         \
  template void Vector<double>::export_to_dealii(LinearAlgebra::distributed::Vector<double, space> &,         \
                                                 const VectorOperation::values) const;
  GPUMF_DEAL_II_MEMORY_SPACES(GPUMF_INSTANTIATE)
#undef GPUMF_INSTANTIATE

  namespace internal
  {
    template <typename Number>
    void
    chebyshev_initial_guess(gpumf::Vector<Number> &vector)
    {
      const IndexSet                        &owned = vector.locally_owned_elements();
      const types::global_dof_index          first = owned.is_empty() ? 0 : owned.nth_index_in_set(0);
      LinearAlgebra::ReadWriteVector<Number> entries(owned);
      for (unsigned int i = 0; i < vector.locally_owned_size(); ++i)
        entries.local_element(i) = (i + first) % 11;
      vector.import(entries, VectorOperation::insert);
      const Number mean = vector.mean_value();
      vector.add(-mean);
    }

    template void
    chebyshev_initial_guess(gpumf::Vector<float> &);
    template void
    chebyshev_initial_guess(gpumf::Vector<double> &);
  } // namespace internal
} // namespace gpumf

// deal.II's solvers take their temporary vectors from a GrowingVectorMemory.
template class dealii::VectorMemory<gpumf::Vector<float>>;
template class dealii::VectorMemory<gpumf::Vector<double>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<float>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<double>>;

// DiagonalMatrix<gpumf::Vector>::operator()(i, j), declared in vector.h.
namespace dealii
{
  namespace
  {
    template <typename Number>
    Number &
    diagonal_entry(const gpumf::Vector<Number>  &diagonal,
                   const types::global_dof_index i,
                   const types::global_dof_index j)
    {
      AssertThrow(i == j, ExcIndexRange(j, i, i + 1));
      AssertThrow(diagonal.backend() == gpumf::Backend::host,
                  gpumf::ExcNotSupported("DiagonalMatrix<gpumf::Vector>::operator()(i, j) (a matrix's el(i, i), "
                                         "called by deal.II's PreconditionChebyshev when it is given no "
                                         "preconditioner): the entries live in GPU memory, which hands out no "
                                         "reference. Give PreconditionChebyshev the inverse diagonal "
                                         "(AdditionalData::preconditioner), as deal.II's step-64 does."));
      return const_cast<Number *>(diagonal.get_values())[diagonal.get_partitioner()->global_to_local(i)];
    }
  } // namespace

  template <>
  gpumf::Vector<double>::value_type &
  DiagonalMatrix<gpumf::Vector<double>>::operator()(const size_type i, const size_type j)
  {
    return diagonal_entry(get_vector(), i, j);
  }


  template <>
  gpumf::Vector<float>::value_type &
  DiagonalMatrix<gpumf::Vector<float>>::operator()(const size_type i, const size_type j)
  {
    return diagonal_entry(get_vector(), i, j);
  }

} // namespace dealii

// AffineConstraints::set_zero(), which deal.II's PreconditionChebyshev and the tutorials call:
// one scatter of zeros on the vector's backend (deal.II's generic version writes entry by entry).
namespace dealii
{
  namespace internal
  {
    namespace AffineConstraintsImplementation
    {
      namespace
      {
        template <typename Number>
        void
        set_zero_on_backend(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<Number> &vec)
        {
          const auto               &partitioner = *vec.get_partitioner();
          std::vector<unsigned int> local;
          for (const auto index : constrained)
            if (partitioner.in_local_range(index))
              local.push_back(partitioner.global_to_local(index));
          gpumf::internal::Array<unsigned int> indices;
          indices.reinit(vec.backend(), local);
          GPUMF_DISPATCH(
            vec.backend(),
            set_indexed<Number>(vec.get_values(), indices.data(), nullptr, Number(0), false, local.size()));
        }
      } // namespace

      template <>
      void
      set_zero_all(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<float> &vec)
      {
        set_zero_on_backend(constrained, vec);
      }

      template <>
      void
      set_zero_all(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<double> &vec)
      {
        set_zero_on_backend(constrained, vec);
      }
    } // namespace AffineConstraintsImplementation
  }   // namespace internal
} // namespace dealii
