// gpumf::Vector's ghost exchange (update_ghost_values() and compress(), whole, in halves and for a
// ghost subset): the message paths of each exchange method over internal::GhostExchange
// (ghost_exchange.h). The choice of method and the NCCL and ipc channels: exchange.{h,cc}.
#include <gpumf/vector.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <string>

#include <mpi.h>

#include "core/run_profile.h"
#include "linear_algebra/exchange.h"
#include "linear_algebra/ghost_exchange.h"
#include "linear_algebra/ghost_subset.h"
#include "linear_algebra/layout.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

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
    internal::RunTimer          timer(internal::RunPart::exchange_host);
    internal::InterruptionGuard guard("gpumf::Vector::update_ghost_values_start()", partitioner->n_mpi_processes());
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
    internal::RunTimer          timer(internal::RunPart::exchange_host);
    internal::InterruptionGuard guard("gpumf::Vector::update_ghost_values_finish()", partitioner->n_mpi_processes());
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
    internal::InterruptionGuard        guard("gpumf::Vector::update_ghost_values()", partitioner->n_mpi_processes());
    const Utilities::MPI::Partitioner &p = *partitioner;
    AssertThrow(subset.larger && subset.partitioner && internal::same_layout(*subset.larger, p),
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
    internal::InterruptionGuard      guard("gpumf::Vector::compress_start()", partitioner->n_mpi_processes());
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
    internal::InterruptionGuard      guard("gpumf::Vector::compress_finish()", partitioner->n_mpi_processes());
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
#define GPUMF_INSTANTIATE(Number)                                                         \
  template void Vector<Number>::update_ghost_values() const;                              \
  template void Vector<Number>::update_ghost_values_start() const;                        \
  template void Vector<Number>::update_ghost_values_finish() const;                       \
  template void Vector<Number>::update_ghost_values(const internal::GhostSubset &) const; \
  template void Vector<Number>::compress(const VectorOperation::values);                  \
  template void Vector<Number>::compress_start(const VectorOperation::values);            \
  template void Vector<Number>::compress_finish(const VectorOperation::values);           \
  template void Vector<Number>::zero_out_ghost_values() const;                            \
  template bool Vector<Number>::has_ghost_elements() const;
  GPUMF_INSTANTIATE(float)
  GPUMF_INSTANTIATE(double)
#undef GPUMF_INSTANTIATE
} // namespace gpumf
