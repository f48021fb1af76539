// Memory shared between the processes of one node, and its lifetime protocol (ipc.h).
//
// Written here rather than taken from a library: MPI-3 shared windows are allocated
// collectively (vectors are created and freed one rank at a time, in any order), Boost.Interprocess
// names its segments in /dev/shm (64 MiB in many containers, and left behind by a crash), and
// CUDA IPC has no reference counts of its own that a program can query. An anonymous memfd
// mapped by the others through /proc/<pid>/fd is unnamed, sized by the memory limit only, and
// gone with the last process that maps it.
#include "linear_algebra/ipc.h"
#include "core/run_profile.h"

#include <gpumf/internal/cuda_check.h>
#include <gpumf/internal/memory.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/mpi.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

namespace gpumf
{
  namespace internal
  {
    namespace ipc
    {
      using namespace dealii;

      namespace
      {
        /// The counters of one process's exported allocations (one slot each).
        constexpr std::uint32_t mailbox_slots = 1u << 16;
        using Counter                         = std::atomic<std::int64_t>;
        static_assert(Counter::is_always_lock_free, "counters shared between processes must be lock-free");

        std::size_t
        page_rounded(const std::size_t bytes)
        {
          const std::size_t page = sysconf(_SC_PAGESIZE);
          return (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
        }

        /// A new memfd of @p bytes (rounded up to pages), mapped read-write; @p fd receives it.
        void *
        map_new_memfd(const std::size_t bytes, int &fd)
        {
          fd = memfd_create("gpumf", MFD_CLOEXEC);
          if (fd < 0 && errno == EMFILE)
            {
              // each shareable host allocation keeps its descriptor (its neighbours open it
              // through /proc): allow as many as the hard limit does
              rlimit limit;
              if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
                {
                  limit.rlim_cur = limit.rlim_max;
                  setrlimit(RLIMIT_NOFILE, &limit);
                  fd = memfd_create("gpumf", MFD_CLOEXEC);
                }
            }
          AssertThrow(fd >= 0,
                      ExcMessage(std::string("gpumf: memfd_create for shareable host memory failed: ") +
                                 std::strerror(errno)));
          void *ptr = ftruncate(fd, page_rounded(bytes)) == 0 ?
                        mmap(nullptr, page_rounded(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
                        MAP_FAILED;
          if (ptr == MAP_FAILED)
            {
              ::close(fd);
              AssertThrow(false, ExcHostOutOfMemory(bytes));
            }
          return ptr;
        }

        /// Maps @p bytes of the descriptor @p fd of process @p pid; nullptr and @p error if
        /// that fails.
        void *
        map_peer_fd(const int pid, const int fd, const std::size_t bytes, std::string &error)
        {
          const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
          const int         mine = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
          if (mine < 0)
            {
              error = "cannot open " + path + " (" + std::strerror(errno) + ")";
              return nullptr;
            }
          void     *ptr   = mmap(nullptr, page_rounded(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
          const int saved = errno;
          ::close(mine); // the mapping keeps the memory
          if (ptr == MAP_FAILED)
            {
              error = "cannot map " + path + " (" + std::strerror(saved) + ")";
              return nullptr;
            }
          return ptr;
        }

        /// An allocation of this process from allocate_shareable().
        struct Allocation
        {
          Backend       backend  = Backend::host;
          std::size_t   bytes    = 0;
          int           fd       = -1; // host backend: the memfd
          bool          exported = false, released = false;
          std::uint32_t slot            = 0;
          std::uint64_t id              = 0;
          unsigned char cuda_handle[64] = {};
        };

        /// A neighbour's allocation mapped here.
        struct Import
        {
          void        *base  = nullptr;
          unsigned int opens = 0;
        };

        /// The protocol's state of this process (one, never destroyed: vectors may die in
        /// static destructors after any other object).
        struct Registry
        {
          std::mutex mutex;

          int      mailbox_fd = -1;
          Counter *mailbox    = nullptr;
          /// Slot 0 of the mailbox: a random number that names this process, so that a
          /// mailbox mapped through /proc/<pid> is known to be the exporter's (PID namespaces
          /// can give two processes of one host name the same pid)
          std::uint64_t              mailbox_id = 0;
          std::vector<std::uint32_t> free_slots;
          std::uint32_t              next_slot = 1;
          std::uint64_t              next_id   = 1;

          std::map<const void *, Allocation>              allocations;
          std::map<std::pair<int, std::uint64_t>, Import> imports;
          std::map<int, Counter *>                        peer_mailboxes;

          /// CUDA: this process's interprocess events, and the neighbours' opened here.
          void                                    *ready = nullptr, *done = nullptr;
          unsigned char                            ready_handle[64] = {}, done_handle[64] = {};
          std::map<int, std::pair<void *, void *>> peer_events;

          void
          ensure_mailbox()
          {
            if (mailbox != nullptr)
              return;
            mailbox = static_cast<Counter *>(map_new_memfd(mailbox_slots * sizeof(Counter), mailbox_fd));
            std::random_device random;
            mailbox_id = (std::uint64_t(random()) << 32 | random()) ^ std::uint64_t(getpid());
            mailbox[0].store(static_cast<std::int64_t>(mailbox_id));
          }

          /// The mailbox of process @p pid, whose slot 0 holds @p id, mapped at the first call;
          /// nullptr and @p error if it cannot be mapped or is another process's.
          Counter *
          peer_mailbox(const int pid, const int fd, const std::uint64_t id, std::string &error)
          {
            const auto found = peer_mailboxes.find(pid);
            if (found != peer_mailboxes.end() && static_cast<std::uint64_t>(found->second[0].load()) == id)
              return found->second;
            if (found != peer_mailboxes.end())
              {
                error = "process " + std::to_string(pid) + " seen here is not the one that exported";
                return nullptr;
              }
            void *ptr = map_peer_fd(pid, fd, mailbox_slots * sizeof(Counter), error);
            if (ptr == nullptr)
              return nullptr;
            Counter *mapped = static_cast<Counter *>(ptr);
            if (static_cast<std::uint64_t>(mapped[0].load()) != id)
              {
                munmap(ptr, page_rounded(mailbox_slots * sizeof(Counter)));
                error = "/proc/" + std::to_string(pid) +
                        " is another process than the rank's (different PID "
                        "namespaces?)";
                return nullptr;
              }
            return peer_mailboxes[pid] = mapped;
          }

          void
          ensure_events()
          {
#if GPUMF_WITH_CUDA
            if (ready != nullptr)
              return;
            cudaEvent_t events[2];
            for (cudaEvent_t &event : events)
              GPUMF_CHECK_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventInterprocess));
            cudaIpcEventHandle_t handles[2];
            GPUMF_CHECK_CUDA(cudaIpcGetEventHandle(&handles[0], events[0]));
            GPUMF_CHECK_CUDA(cudaIpcGetEventHandle(&handles[1], events[1]));
            static_assert(sizeof(cudaIpcEventHandle_t) <= 64, "");
            std::memcpy(ready_handle, &handles[0], sizeof(cudaIpcEventHandle_t));
            std::memcpy(done_handle, &handles[1], sizeof(cudaIpcEventHandle_t));
            ready = events[0];
            done  = events[1];
#endif
          }

          /// Frees @p allocation now (no process has it open); no throw.
          void
          free_now(const void *ptr, const Allocation &allocation)
          {
            if (allocation.backend == Backend::host && allocation.fd < 0)
              std::free(const_cast<void *>(ptr)); // memfd failed: ordinary memory
            else if (allocation.backend == Backend::host)
              {
                munmap(const_cast<void *>(ptr), page_rounded(allocation.bytes));
                ::close(allocation.fd);
              }
            else
              deallocate(allocation.backend, const_cast<void *>(ptr));
            if (allocation.exported)
              free_slots.push_back(allocation.slot);
          }

          /// Frees the deferred allocations that no other process has open any more (a
          /// deferred allocation was exported, so the mailbox exists).
          void
          reclaim()
          {
            for (auto it = allocations.begin(); it != allocations.end();)
              if (it->second.released && mailbox[it->second.slot].load() == 0)
                {
                  free_now(it->first, it->second);
                  it = allocations.erase(it);
                }
              else
                ++it;
          }
        };

        Registry &
        registry()
        {
          static Registry *const instance = new Registry;
          return *instance;
        }

        /// Where each rank of @p comm runs: its host name, followed on the CUDA backend by
        /// "/" and the PCI address of its GPU. Collective.
        std::vector<std::string>
        placements(const MPI_Comm comm, const Backend backend)
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
          const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
          std::vector<char>  all(size * n_ranks);
          AssertThrowMPI(MPI_Allgather(mine, size, MPI_CHAR, all.data(), size, MPI_CHAR, comm));
          std::vector<std::string> names;
          for (unsigned int r = 0; r < n_ranks; ++r)
            names.emplace_back(all.data() + r * size);
          return names;
        }
      } // namespace

      bool
      usable(const MPI_Comm comm, const Backend backend, std::string &why_not)
      {
        const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
        const unsigned int rank    = Utilities::MPI::this_mpi_process(comm);
        std::string        mine;
        // one host for all
        const std::vector<std::string> names = placements(comm, backend);
        std::set<std::string>          distinct;
        for (const std::string &name : names)
          distinct.insert(name.substr(0, name.find('/')));
        if (distinct.size() > 1)
          {
            why_not = "the ranks run on " + std::to_string(distinct.size()) + " hosts";
            return false;
          }
        // every rank maps every other's mailbox
        Registry &state = registry();
        try
          {
            std::lock_guard<std::mutex> lock(state.mutex);
            state.ensure_mailbox();
          }
        catch (const std::exception &error)
          {
            mine = "shared memory cannot be created (" + std::string(error.what()).substr(0, 120) + ")";
          }
        const std::uint64_t        me[3] = {std::uint64_t(getpid()),
                                            std::uint64_t(std::int64_t(state.mailbox_fd)),
                                            state.mailbox_id};
        std::vector<std::uint64_t> all(3 * n_ranks);
        AssertThrowMPI(MPI_Allgather(me, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, comm));
        {
          std::lock_guard<std::mutex> lock(state.mutex);
          for (unsigned int r = 0; r < n_ranks && mine.empty(); ++r)
            if (r != rank)
              state.peer_mailbox(int(all[3 * r]), int(std::int64_t(all[3 * r + 1])), all[3 * r + 2], mine);
        }
        // the GPUs: the same or with peer access
#if GPUMF_WITH_CUDA
        if (backend == Backend::cuda)
          {
            int device = 0;
            GPUMF_CHECK_CUDA(cudaGetDevice(&device));
            for (unsigned int r = 0; r < n_ranks && mine.empty(); ++r)
              if (names[r] != names[rank])
                {
                  const std::string pci   = names[r].substr(names[r].find('/') + 1);
                  int               other = 0, can = 0;
                  if (cudaDeviceGetByPCIBusId(&other, pci.c_str()) != cudaSuccess)
                    {
                      cudaGetLastError();
                      mine = "the GPU " + pci + " of rank " + std::to_string(r) + " is not visible to rank " +
                             std::to_string(rank);
                    }
                  else if (cudaDeviceCanAccessPeer(&can, device, other) != cudaSuccess || can == 0)
                    {
                      cudaGetLastError();
                      mine = "the GPUs of ranks " + std::to_string(rank) + " and " + std::to_string(r) +
                             " have no peer access";
                    }
                }
          }
#else
        (void)backend;
#endif
        // the first rank with a reason tells the others
        const int failed = mine.empty() ? static_cast<int>(n_ranks) : static_cast<int>(rank);
        int       first  = 0;
        AssertThrowMPI(MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, comm));
        if (first == static_cast<int>(n_ranks))
          return true;
        char reason[256] = {};
        if (static_cast<int>(rank) == first)
          std::strncpy(reason, mine.c_str(), sizeof(reason) - 1);
        AssertThrowMPI(MPI_Bcast(reason, sizeof(reason), MPI_CHAR, first, comm));
        why_not = reason;
        return false;
      }

      bool
      ranks_share_gpu(const MPI_Comm comm)
      {
        const std::vector<std::string> names = placements(comm, Backend::cuda);
        return std::set<std::string>(names.begin(), names.end()).size() < names.size();
      }

      Handle
      export_memory(const Backend backend, const void *base, const unsigned int n_importers)
      {
        RunTimer                    timer(RunPart::ipc_export);
        Registry                   &state = registry();
        std::lock_guard<std::mutex> lock(state.mutex);
        state.ensure_mailbox();
        const auto found = state.allocations.find(base);
        AssertThrow(found != state.allocations.end() && found->second.backend == backend,
                    ExcMessage("gpumf: only memory from allocate_shareable() can be exported to other processes"));
        Allocation &allocation = found->second;
        AssertThrow(backend == Backend::cuda || allocation.fd >= 0,
                    ExcMessage("gpumf: the ipc exchange needs this vector in shared memory, and memfd_create or mmap "
                               "failed when it was allocated; choose another method (GPUMF_EXCHANGE=mpi)"));
        if (!allocation.exported)
          {
            if (!state.free_slots.empty())
              {
                allocation.slot = state.free_slots.back();
                state.free_slots.pop_back();
              }
            else
              {
                AssertThrow(state.next_slot < mailbox_slots,
                            ExcMessage("gpumf: more than " + std::to_string(mailbox_slots) +
                                       " vectors of this process are shared with other processes at once"));
                allocation.slot = state.next_slot++;
              }
            state.mailbox[allocation.slot].store(0);
            allocation.id = state.next_id++;
#if GPUMF_WITH_CUDA
            if (backend == Backend::cuda)
              {
                cudaIpcMemHandle_t handle;
                GPUMF_CHECK_CUDA(cudaIpcGetMemHandle(&handle, const_cast<void *>(base)));
                static_assert(sizeof(handle) <= 64, "");
                std::memcpy(allocation.cuda_handle, &handle, sizeof(handle));
              }
#endif
            allocation.exported = true;
          }
        // counted before the handle leaves: the owner cannot free it before every importer closed it
        state.mailbox[allocation.slot].fetch_add(n_importers);
        Handle handle;
        handle.pid        = getpid();
        handle.mailbox_fd = state.mailbox_fd;
        handle.mailbox_id = state.mailbox_id;
        handle.slot       = allocation.slot;
        handle.backend    = static_cast<std::int32_t>(backend);
        handle.fd         = allocation.fd;
        handle.id         = allocation.id;
        handle.bytes      = allocation.bytes;
        std::memcpy(handle.memory, allocation.cuda_handle, sizeof(handle.memory));
        if (backend == Backend::cuda)
          {
            state.ensure_events();
            std::memcpy(handle.ready, state.ready_handle, sizeof(handle.ready));
            std::memcpy(handle.done, state.done_handle, sizeof(handle.done));
          }
        state.reclaim();
        return handle;
      }

      void *
      open(const Handle &handle)
      {
        RunTimer                    timer(RunPart::ipc_open);
        Registry                   &state = registry();
        std::lock_guard<std::mutex> lock(state.mutex);
        Import                     &import = state.imports[{handle.pid, handle.id}];
        if (import.opens == 0)
          {
            std::string error;
            AssertThrow(state.peer_mailbox(handle.pid, handle.mailbox_fd, handle.mailbox_id, error) != nullptr,
                        ExcMessage("gpumf: the ipc exchange cannot reach process " + std::to_string(handle.pid) + ": " +
                                   error));
            if (static_cast<Backend>(handle.backend) == Backend::host)
              {
                import.base = map_peer_fd(handle.pid, handle.fd, handle.bytes, error);
                AssertThrow(import.base != nullptr,
                            ExcMessage("gpumf: the ipc exchange cannot map a vector of process " +
                                       std::to_string(handle.pid) + ": " + error));
              }
            else
              {
#if GPUMF_WITH_CUDA
                cudaIpcMemHandle_t memory;
                std::memcpy(&memory, handle.memory, sizeof(memory));
                GPUMF_CHECK_CUDA(cudaIpcOpenMemHandle(&import.base, memory, cudaIpcMemLazyEnablePeerAccess));
#endif
              }
          }
        ++import.opens;
        return import.base;
      }

      void
      close(const Handle &handle) noexcept
      {
        RunTimer                    timer(RunPart::ipc_close);
        Registry                   &state = registry();
        std::lock_guard<std::mutex> lock(state.mutex);
        const auto                  found = state.imports.find({handle.pid, handle.id});
        if (found == state.imports.end())
          return;
        if (--found->second.opens == 0)
          {
            if (static_cast<Backend>(handle.backend) == Backend::host)
              munmap(found->second.base, page_rounded(handle.bytes));
#if GPUMF_WITH_CUDA
            // kernels still reading the memory finish first (at exit the runtime may be
            // gone: the driver unmaps then)
            else if (cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess ||
                     cudaIpcCloseMemHandle(found->second.base) != cudaSuccess)
              cudaGetLastError();
#endif
            state.imports.erase(found);
          }
        // after the unmapping: the owner may free it as soon as the count reaches zero
        const auto mailbox = state.peer_mailboxes.find(handle.pid);
        if (mailbox != state.peer_mailboxes.end())
          mailbox->second[handle.slot].fetch_sub(1);
      }

      namespace
      {
#if GPUMF_WITH_CUDA
        /// The events of the exporter of @p handle, opened here at the first call.
        std::pair<void *, void *>
        peer_events(const Handle &handle)
        {
          Registry                   &state = registry();
          std::lock_guard<std::mutex> lock(state.mutex);
          auto                        found = state.peer_events.find(handle.pid);
          if (found != state.peer_events.end())
            return found->second;
          cudaEvent_t          events[2];
          cudaIpcEventHandle_t handles[2];
          std::memcpy(&handles[0], handle.ready, sizeof(handles[0]));
          std::memcpy(&handles[1], handle.done, sizeof(handles[1]));
          GPUMF_CHECK_CUDA(cudaIpcOpenEventHandle(&events[0], handles[0]));
          GPUMF_CHECK_CUDA(cudaIpcOpenEventHandle(&events[1], handles[1]));
          return state.peer_events[handle.pid] = {events[0], events[1]};
        }
#endif
      } // namespace

      void
      record(const Backend backend, const Event event)
      {
#if GPUMF_WITH_CUDA
        if (backend == Backend::cuda)
          {
            RunTimer  timer(RunPart::ipc_record_event);
            Registry &state = registry();
            state.ensure_events();
            GPUMF_CHECK_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(event == Event::ready ? state.ready : state.done),
                                             cudaStreamLegacy));
          }
#else
        (void)backend, (void)event;
#endif
      }

      void
      wait(const Handle &peer, const Event event)
      {
#if GPUMF_WITH_CUDA
        if (static_cast<Backend>(peer.backend) == Backend::cuda)
          {
            RunTimer                        timer(RunPart::ipc_wait_event);
            const std::pair<void *, void *> events = peer_events(peer);
            GPUMF_CHECK_CUDA(cudaStreamWaitEvent(
              cudaStreamLegacy, static_cast<cudaEvent_t>(event == Event::ready ? events.first : events.second), 0));
          }
#else
        (void)peer, (void)event;
#endif
      }
    } // namespace ipc

    void *
    allocate_shareable(const Backend backend, const std::size_t bytes)
    {
      ipc::Registry &state = ipc::registry();
      {
        // deferred frees first: their memory may be what this allocation needs
        std::lock_guard<std::mutex> lock(state.mutex);
        state.reclaim();
      }
      ipc::Allocation allocation;
      allocation.backend = backend;
      allocation.bytes   = bytes;
      void *ptr          = nullptr;
      if (backend == Backend::host)
        try
          {
            ptr = ipc::map_new_memfd(bytes, allocation.fd);
          }
        catch (const ExcHostOutOfMemory &)
          {
            throw;
          }
        catch (const std::exception &)
          {
            // no memfd here (e.g. a seccomp filter): ordinary memory, which the other methods
            // exchange as before and the ipc method refuses with a clear message
            allocation.fd = -1;
            ptr           = allocate(backend, bytes);
          }
      else
        ptr = allocate(backend, bytes);
      std::lock_guard<std::mutex> lock(state.mutex);
      state.allocations[ptr] = allocation;
      return ptr;
    }

    ShareableStatistics
    shareable_statistics()
    {
      ipc::Registry              &state = ipc::registry();
      std::lock_guard<std::mutex> lock(state.mutex);
      state.reclaim();
      ShareableStatistics result;
      for (const auto &[ptr, allocation] : state.allocations)
        {
          result.exported += allocation.exported ? 1 : 0;
          result.deferred += allocation.released ? 1 : 0;
        }
      result.imported = state.imports.size();
      return result;
    }

    void
    deallocate_shareable(const Backend backend, void *ptr)
    {
      if (ptr == nullptr)
        return;
      ipc::Registry              &state = ipc::registry();
      std::lock_guard<std::mutex> lock(state.mutex);
      const auto                  found = state.allocations.find(ptr);
      if (found == state.allocations.end())
        return deallocate(backend, ptr); // not reached: every shareable allocation is listed
      if (found->second.exported && state.mailbox[found->second.slot].load() != 0)
        found->second.released = true; // another process still has it open
      else
        {
          state.free_now(ptr, found->second);
          state.allocations.erase(found);
        }
      state.reclaim();
    }
  } // namespace internal
} // namespace gpumf
