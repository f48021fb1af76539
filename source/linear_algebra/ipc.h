// Memory shared between the processes of one node, for the ipc exchange method: exporting a
// rank's allocation to its neighbours, mapping theirs, ordering the GPU work of several
// processes with interprocess events, and the lifetime protocol that keeps an allocation
// alive while another process has it open. Internal to the library.
//
// Lifetime protocol (reference counts in shared memory): every process owns a mailbox, a
// memfd mapping of counters that the other processes of the node map too. Exporting an
// allocation to n neighbours adds n to the allocation's counter before the handles leave;
// a neighbour that closes the handle (when its vector dies or is reinitialized) unmaps the
// memory first and then subtracts one. Freeing an exported allocation whose counter is
// not zero moves it to a list of deferred frees, which every later allocation, free and
// export of the process revisits. Nothing waits for another rank: vectors may die in any
// order on any rank.
#ifndef gpumf_source_ipc_h
#define gpumf_source_ipc_h

#include <gpumf/backend.h>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    namespace ipc
    {
      /// What a process tells a neighbour about one of its allocations and its events
      /// (plain bytes: sent with MPI).
      struct Handle
      {
        /// The exporting process and its mailbox (a file descriptor there).
        std::int32_t  pid = 0, mailbox_fd = -1;
        std::uint64_t mailbox_id = 0;
        /// The allocation: its counter in the mailbox, its number within the process,
        /// its size, its backend, and its memfd (host) or cudaIpcMemHandle_t (CUDA).
        std::uint32_t slot    = 0;
        std::int32_t  backend = 0, fd = -1;
        std::uint64_t id = 0, bytes = 0;
        unsigned char memory[64] = {};
        /// The exporter's two interprocess events (cudaIpcEventHandle_t; CUDA only):
        /// recorded when its data are ready to be read, and when it has read its
        /// neighbours' data.
        unsigned char ready[64] = {}, done[64] = {};
        /// The ordering by counters: the values of the allocation's two counters (ready,
        /// done) when this handle was made, and the exporter's counter array
        /// (cudaIpcMemHandle_t; CUDA only; on the host backend the counters are in the
        /// mailbox).
        std::uint32_t ready_count = 0, done_count = 0;
        unsigned char counters[64] = {};
      };

      /**
       * Whether the processes of @p comm can map each other's memory on @p backend: all
       * on one host, each can map the others' mailboxes, and on the CUDA backend each
       * GPU is the same as, or has peer access to, every other rank's. Collective. On
       * false, @p why_not says why in a few words.
       */
      bool
      usable(const MPI_Comm comm, const Backend backend, std::string &why_not);


      /**
       * The handle of the allocation at @p base (from allocate_shareable() of this
       * process) for @p n_importers neighbours, each of which must open() it once and
       * close() it once. With @p counters, the handle also carries this process's
       * ordering counters (CUDA: their device array, created at the first such export).
       */
      Handle
      export_memory(const Backend backend, const void *base, const unsigned int n_importers, const bool counters);

      /// Takes back the @p n_importers handles given out by export_memory() when the
      /// neighbours will not open them (a failed connect).
      void
      withdraw(const Handle &handle, const unsigned int n_importers) noexcept;

      /// Maps the ordering counters of @p peer's process here (once per process), so that
      /// signal_and_await() can wait for them. CUDA only; nothing on the host backend.
      void
      map_counters(const Handle &peer);

      /// Maps the allocation of @p handle into this process (once per process; later
      /// opens count) and returns its base address.
      void *
      open(const Handle &handle);

      /// Undoes one open() of @p handle; the last unmaps and tells the exporter.
      void
      close(const Handle &handle) noexcept;

      /// This process's two interprocess events: its data are ready to be read, and it has
      /// read its neighbours' data.
      enum class Event
      {
        ready,
        done
      };

      /// Records this process's @p event (CUDA: on the default stream; nothing on the host
      /// backend, whose work is done when the call returns).
      void
      record(const Backend backend, const Event event);

      /// Makes the later work of the default stream wait for the last record of @p event
      /// that the exporter of @p peer had made when it sent the message that the caller
      /// received. Nothing on the host backend.
      void
      wait(const Handle &peer, const Event event);

      /**
       * Ordering by counters, the other way to order the reads of a link: each exported
       * allocation has two counters in its process's memory (ready, done) that only that
       * process writes, and that its neighbours map. signal_and_await() adds one to a
       * counter of this process's allocation and waits until neighbours' counters have
       * reached given values. On the CUDA backend these are stream memory operations of
       * the default stream (the host only queues them: no message, no host wait); on the
       * host backend the signal is stored at once and the calling thread waits.
       *
       * Whether this process can: on CUDA the driver's stream memory operations
       * (cuStreamWriteValue32, cuStreamWaitValue32) must be there; @p why_not says why
       * not. The host backend always can.
       */
      bool
      counters_supported(const Backend backend, std::string &why_not);

      /// A neighbour's counter to wait for: until it has reached @p count (cyclic
      /// comparison: the counters may wrap around).
      struct Wait
      {
        const Handle *peer  = nullptr;
        std::uint32_t count = 0;
      };

      /**
       * Adds one to the counter @p signal_event of this process's allocation of @p own (a
       * handle from export_memory() of this process; nullptr: no signal), after the work
       * queued so far; then the later work of the default stream (host backend: the
       * calling thread) waits until each neighbour's counter @p wait_event in @p waits has
       * reached its count (its counters mapped by map_counters()). CUDA: one driver call
       * (cuStreamBatchMemOp) for up to 255 operations.
       */
      void
      signal_and_await(const Handle            *own,
                       const Event              signal_event,
                       const std::vector<Wait> &waits,
                       const Event              wait_event);
    } // namespace ipc
  }   // namespace internal
} // namespace gpumf

#endif
