// How gpumf::Vector's ghost exchange moves its messages (gpumf::ExchangeMethod): the choice
// per communicator and backend, and the NCCL path (library loaded at run time, one NCCL
// communicator and one high-priority CUDA stream per MPI communicator, cached on it as an
// MPI attribute). Internal to the library.
#ifndef gpumf_source_exchange_h
#define gpumf_source_exchange_h

#include <gpumf/vector.h>

#include <cstddef>
#include <utility>
#include <vector>

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
      NcclMessages() = default;
      NcclMessages(const NcclMessages &) = delete;
      NcclMessages &
      operator=(const NcclMessages &) = delete;
      /// Waits for messages still in flight (their buffers die with the vector).
      ~NcclMessages();

      /// Chunks of @p entry_bytes times count bytes: send consecutive chunks of @p send to
      /// the ranks of @p send_targets, receive consecutive chunks of @p receive.
      void
      post(const MPI_Comm     comm,
           const Targets &    send_targets,
           const void *       send,
           const Targets &    receive_targets,
           void *             receive,
           const std::size_t  entry_bytes);

      /// The default stream waits for the last post().
      void
      finish();

    private:
      /// cudaEvent_t recorded on the default stream before each group (the packing is done),
      /// and after the last group; both created at the first post() and reused.
      void *ready = nullptr, *done = nullptr;
    };
  } // namespace internal
} // namespace gpumf

#endif
