// Memory shared between the processes of one node, and its lifetime protocol (ipc.h).
//
// Written here rather than taken from a library: MPI-3 shared windows are allocated
// collectively (vectors are created and freed one rank at a time, in any order), Boost.Interprocess
// names its segments in /dev/shm (64 MiB in many containers, and left behind by a crash), and
// CUDA IPC has no reference counts of its own that a program can query. An anonymous memfd
// mapped by the others through /proc/<pid>/fd is unnamed, sized by the memory limit only, and
// gone with the last process that maps it.
#include "core/device.h"
#include "linear_algebra/ipc.h"
#include "core/run_profile.h"

#include <gpumf/internal/cuda_check.h>
#include <gpumf/internal/memory.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/mpi.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <vector>

#include <thread>

#if GPUMF_WITH_CUDA
#  include <cuda.h> // types of the stream memory operations only: the functions come from the runtime's entry points
#endif

#include <fcntl.h>
#include <signal.h>
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
        /// The counters of one process's exported allocations (one slot each): the
        /// reference counts of the lifetime protocol, then the two ordering counters of
        /// each slot (ready, done; used on the host backend, the CUDA backend has them in
        /// device memory).
        constexpr std::uint32_t mailbox_slots    = 1u << 16;
        constexpr std::size_t   mailbox_counters = 3 * std::size_t(mailbox_slots);
        using Counter                            = std::atomic<std::int64_t>;

        /// Index of the ordering counter @p event of @p slot within a counter array (the
        /// host backend's starts after the reference counts).
        std::size_t
        ordering_index(const std::uint32_t slot, const Event event)
        {
          return 2 * std::size_t(slot) + (event == Event::ready ? 0 : 1);
        }

#if GPUMF_WITH_CUDA
        /// The driver's batch of stream memory operations, from the runtime's entry points
        /// (no link to libcuda: the programs start on machines without a GPU driver).
        struct MemoryOperations
        {
          CUresult (*batch)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int) = nullptr;
          /// Empty when it was found, else why not.
          std::string error;

          MemoryOperations()
          {
            const auto find = [&](auto &function, const char *symbol) {
              void                           *pointer = nullptr;
              cudaDriverEntryPointQueryResult found   = cudaDriverEntryPointSymbolNotFound;
              if (cudaGetDriverEntryPointByVersion(symbol, &pointer, 12000, cudaEnableDefault, &found) != cudaSuccess ||
                  found != cudaDriverEntryPointSuccess || pointer == nullptr)
                {
                  cudaGetLastError();
                  if (error.empty())
                    error = std::string("the CUDA driver has no ") + symbol;
                  return;
                }
              function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(pointer);
            };
            find(batch, "cuStreamBatchMemOp");
          }
        };

        const MemoryOperations &
        memory_operations()
        {
          static const MemoryOperations operations;
          return operations;
        }

        void
        check_driver(const CUresult result, const char *call)
        {
          AssertThrow(result == CUDA_SUCCESS,
                      ExcMessage(std::string("gpumf: the CUDA driver call ") + call + " failed with error " +
                                 std::to_string(static_cast<int>(result))));
        }
#endif
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

        /// At MPI_Finalize() of a process whose GPU waited for counters: see
        /// Registry::ensure_device_counters().
        void
        drain_at_finalize() noexcept;

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

          /// The values signalled so far of each slot's ordering counters (this process
          /// is their only writer; a slot's counters go on counting through the
          /// allocations that use it, so that a neighbour never sees a value go back).
          std::vector<std::uint32_t> signalled = std::vector<std::uint32_t>(2 * std::size_t(mailbox_slots), 0);
          unsigned long long         n_signals = 0;
          /// CUDA: the device array of this process's ordering counters and its handle,
          /// and the neighbours' arrays mapped here (by process).
          std::uint32_t                 *device_counters            = nullptr;
          unsigned char                  device_counters_handle[64] = {};
          std::map<int, std::uint32_t *> peer_device_counters;

          void
          ensure_device_counters()
          {
#if GPUMF_WITH_CUDA
            if (device_counters != nullptr)
              return;
            void             *array = nullptr;
            const std::size_t bytes = 2 * std::size_t(mailbox_slots) * sizeof(std::uint32_t);
            GPUMF_CHECK_CUDA(cudaMalloc(&array, bytes));
            GPUMF_CHECK_CUDA(cudaMemset(array, 0, bytes));
            GPUMF_CHECK_CUDA(cudaDeviceSynchronize()); // zero before any neighbour maps it
            cudaIpcMemHandle_t handle;
            GPUMF_CHECK_CUDA(cudaIpcGetMemHandle(&handle, array));
            static_assert(sizeof(handle) <= 64, "");
            std::memcpy(device_counters_handle, &handle, sizeof(handle));
            device_counters = static_cast<std::uint32_t *>(array);
            // the GPUs may still wait for counters when the program ends: MPI_Finalize()
            // first deletes the attributes of MPI_COMM_SELF, and this one's deletion drains
            // the process (drain_at_finalize())
            int key = MPI_KEYVAL_INVALID;
            AssertThrowMPI(MPI_Comm_create_keyval(
              MPI_COMM_NULL_COPY_FN,
              [](MPI_Comm, int, void *, void *) {
                drain_at_finalize();
                return MPI_SUCCESS;
              },
              &key,
              nullptr));
            AssertThrowMPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr));
#endif
          }

          void
          ensure_mailbox()
          {
            if (mailbox != nullptr)
              return;
            mailbox = static_cast<Counter *>(map_new_memfd(mailbox_counters * sizeof(Counter), mailbox_fd));
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
            void *ptr = map_peer_fd(pid, fd, mailbox_counters * sizeof(Counter), error);
            if (ptr == nullptr)
              return nullptr;
            Counter *mapped = static_cast<Counter *>(ptr);
            if (static_cast<std::uint64_t>(mapped[0].load()) != id)
              {
                munmap(ptr, page_rounded(mailbox_counters * sizeof(Counter)));
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

        /// Waits for this process's GPU, so that it leaves no neighbour waiting for a value
        /// it never wrote; then says so in its mailbox (the first slot's ready counter, a slot
        /// no allocation takes) and stays until every neighbour whose counters it mapped has
        /// said the same (at most 10 s), so that no neighbour's GPU still waits for this
        /// process's counters when its memory goes with it.
        void
        drain_at_finalize() noexcept
        {
#if GPUMF_WITH_CUDA
          if (cudaDeviceSynchronize() != cudaSuccess)
            cudaGetLastError();
#endif
          Registry              &state = registry();
          std::vector<Counter *> neighbours;
          {
            std::lock_guard<std::mutex> lock(state.mutex);
            state.mailbox[mailbox_slots + ordering_index(0, Event::ready)].store(1, std::memory_order_release);
            for (const auto &[pid, counters] : state.peer_device_counters)
              {
                const auto found = state.peer_mailboxes.find(pid);
                if (found != state.peer_mailboxes.end())
                  neighbours.push_back(found->second);
              }
          }
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          for (const Counter *neighbour : neighbours)
            while (neighbour[mailbox_slots + ordering_index(0, Event::ready)].load(std::memory_order_acquire) == 0 &&
                   std::chrono::steady_clock::now() < deadline)
              std::this_thread::sleep_for(std::chrono::microseconds(100));
        }

      } // namespace

      bool
      usable(const MPI_Comm comm, const Backend backend, std::string &why_not)
      {
        const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(comm);
        const unsigned int rank    = Utilities::MPI::this_mpi_process(comm);
        std::string        mine;
        // one host for all
        const std::vector<std::string> names = rank_placements(comm, backend);
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

      Handle
      export_memory(const Backend backend, const void *base, const unsigned int n_importers, const bool counters)
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
        handle.ready_count = state.signalled[ordering_index(allocation.slot, Event::ready)];
        handle.done_count  = state.signalled[ordering_index(allocation.slot, Event::done)];
        if (backend == Backend::cuda)
          {
            state.ensure_events();
            std::memcpy(handle.ready, state.ready_handle, sizeof(handle.ready));
            std::memcpy(handle.done, state.done_handle, sizeof(handle.done));
            if (counters)
              {
                state.ensure_device_counters();
                std::memcpy(handle.counters, state.device_counters_handle, sizeof(handle.counters));
              }
          }
        state.reclaim();
        return handle;
      }

      void
      withdraw(const Handle &handle, const unsigned int n_importers) noexcept
      {
        Registry                   &state = registry();
        std::lock_guard<std::mutex> lock(state.mutex);
        state.mailbox[handle.slot].fetch_sub(n_importers);
        state.reclaim();
      }

      void
      map_counters(const Handle &peer)
      {
#if GPUMF_WITH_CUDA
        if (static_cast<Backend>(peer.backend) != Backend::cuda)
          return;
        Registry                   &state = registry();
        std::lock_guard<std::mutex> lock(state.mutex);
        std::uint32_t             *&mapped = state.peer_device_counters[peer.pid];
        if (mapped != nullptr)
          return;
        cudaIpcMemHandle_t handle;
        std::memcpy(&handle, peer.counters, sizeof(handle));
        void *base = nullptr;
        GPUMF_CHECK_CUDA(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess));
        mapped = static_cast<std::uint32_t *>(base);
#else
        (void)peer;
#endif
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

      bool
      counters_supported(const Backend backend, std::string &why_not)
      {
#if GPUMF_WITH_CUDA
        if (backend == Backend::cuda)
          {
            why_not = memory_operations().error;
            return why_not.empty();
          }
#endif
        (void)backend;
        why_not.clear();
        return true;
      }

      void
      signal_and_await(const Handle            *own,
                       const Event              signal_event,
                       const std::vector<Wait> &waits,
                       const Event              wait_event)
      {
        RunTimer      timer(RunPart::ipc_order_counters);
        Registry     &state = registry();
        std::uint32_t value = 0;
        if (own != nullptr)
          {
            std::lock_guard<std::mutex> lock(state.mutex);
            Assert(own->pid == getpid(), ExcInternalError());
            value = ++state.signalled[ordering_index(own->slot, signal_event)];
            ++state.n_signals;
          }
        const Backend backend = own != nullptr ? static_cast<Backend>(own->backend) :
                                !waits.empty() ? static_cast<Backend>(waits.front().peer->backend) :
                                                 Backend::host;
#if GPUMF_WITH_CUDA
        if (backend == Backend::cuda)
          {
            // one driver call for the signal and all waits, in this order
            std::vector<CUstreamBatchMemOpParams> operations;
            operations.reserve(waits.size() + 1);
            if (own != nullptr)
              {
                CUstreamBatchMemOpParams write{};
                write.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
                write.writeValue.address =
                  reinterpret_cast<CUdeviceptr>(state.device_counters + ordering_index(own->slot, signal_event));
                write.writeValue.value = value;
                // flags 0: a memory fence before the write, so that a neighbour that sees the
                // value also sees this process's earlier writes
                write.writeValue.flags = 0;
                operations.push_back(write);
              }
            for (const Wait &wait : waits)
              {
                std::uint32_t *counters = nullptr;
                {
                  std::lock_guard<std::mutex> lock(state.mutex);
                  const auto                  found = state.peer_device_counters.find(wait.peer->pid);
                  AssertThrow(found != state.peer_device_counters.end(),
                              ExcMessage("gpumf: the ipc exchange waits for the counters of process " +
                                         std::to_string(wait.peer->pid) + ", which it has not mapped"));
                  counters = found->second;
                }
                CUstreamBatchMemOpParams operation{};
                operation.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
                operation.waitValue.address =
                  reinterpret_cast<CUdeviceptr>(counters + ordering_index(wait.peer->slot, wait_event));
                operation.waitValue.value = wait.count;
                operation.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
                operations.push_back(operation);
              }
            for (std::size_t first = 0; first < operations.size(); first += 255) // at most 255 a call
              check_driver(memory_operations().batch(CU_STREAM_LEGACY,
                                                     std::min<std::size_t>(255, operations.size() - first),
                                                     operations.data() + first,
                                                     0),
                           "cuStreamBatchMemOp");
            return;
          }
#endif
        (void)backend;
        if (own != nullptr)
          state.mailbox[mailbox_slots + ordering_index(own->slot, signal_event)].store(value,
                                                                                       std::memory_order_release);
        for (const Wait &wait : waits)
          {
            const Counter *counter = nullptr;
            {
              std::lock_guard<std::mutex> lock(state.mutex);
              const auto                  found = state.peer_mailboxes.find(wait.peer->pid);
              AssertThrow(found != state.peer_mailboxes.end(),
                          ExcMessage("gpumf: the ipc exchange waits for process " + std::to_string(wait.peer->pid) +
                                     ", whose memory it has not mapped"));
              counter = &found->second[mailbox_slots + ordering_index(wait.peer->slot, wait_event)];
            }
            // the neighbour's host reaches its signal soon (it is a rank of the same
            // exchange): spin, then yield the core (more ranks than cores), then sleep briefly
            // and let MPI progress (a neighbour may first wait for a message of this rank's);
            // after 10 s, check every second that the neighbour still runs
            const auto start = std::chrono::steady_clock::now();
            auto       check = start + std::chrono::seconds(10);
            for (unsigned long long round = 0;; ++round)
              {
                const auto current = static_cast<std::uint32_t>(counter->load(std::memory_order_acquire));
                if (static_cast<std::int32_t>(current - wait.count) >= 0)
                  break;
                if (round > 100000)
                  {
                    std::this_thread::sleep_for(std::chrono::microseconds(20));
                    int flag = 0;
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
                    if (std::chrono::steady_clock::now() > check)
                      {
                        AssertThrow(kill(wait.peer->pid, 0) == 0 || errno != ESRCH,
                                    ExcMessage("gpumf: the ipc exchange waits for process " +
                                               std::to_string(wait.peer->pid) + " (counter " +
                                               std::to_string(wait.count) + "), which has ended"));
                        check += std::chrono::seconds(1);
                      }
                  }
                else if (round > 100)
                  std::this_thread::yield();
              }
          }
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
      result.signals  = state.n_signals;
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
