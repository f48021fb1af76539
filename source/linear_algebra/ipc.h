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
      };

      /**
       * Whether the processes of @p comm can map each other's memory on @p backend: all
       * on one host, each can map the others' mailboxes, and on the CUDA backend each
       * GPU is the same as, or has peer access to, every other rank's. Collective. On
       * false, @p why_not says why in a few words.
       */
      bool
      usable(const MPI_Comm comm, const Backend backend, std::string &why_not);

      /// Whether two ranks of @p comm use the same GPU (host name and PCI address).
      /// Collective; CUDA backend only.
      bool
      ranks_share_gpu(const MPI_Comm comm);

      /**
       * The handle of the allocation at @p base (from allocate_shareable() of this
       * process) for @p n_importers neighbours, each of which must open() it once and
       * close() it once.
       */
      Handle
      export_memory(const Backend backend, const void *base, const unsigned int n_importers);

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
    } // namespace ipc
  }   // namespace internal
} // namespace gpumf

#endif
