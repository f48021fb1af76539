// The host backend's thread block: one fiber per emulated thread (Boost.Context), a scheduler
// that resumes them in thread order until each has reached a barrier, and checks that all
// reached the same one. Boost.Context provides the context switch; the stacks come from a pool
// of our own (one mmap per stack with a guard page below it, reused across loops: a loop runs
// up to 1024 threads many times per second).
#include <gpumf/internal/host_block.h>

#include <deal.II/base/exceptions.h>

#include <boost/context/fiber.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <exception>
#include <string>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    namespace
    {
      namespace context = boost::context;

      /// Stack of an emulated thread: room for a functor's FEEvaluation objects and deal.II's
      /// small tensors; touched pages only are backed by memory.
      constexpr std::size_t stack_size = 256 * 1024;

      /// Released stacks of this OS thread, for the next loop.
      struct StackPool
      {
        std::vector<context::stack_context> free;

        ~StackPool()
        {
          const std::size_t page = ::sysconf(_SC_PAGESIZE);
          for (const context::stack_context &s : free)
            ::munmap(static_cast<char *>(s.sp) - s.size - page, s.size + page);
        }
      };

      StackPool &
      stack_pool()
      {
        static thread_local StackPool pool;
        return pool;
      }

      /// Boost.Context's StackAllocator concept over the pool.
      struct PooledStack
      {
        context::stack_context
        allocate()
        {
          StackPool &pool = stack_pool();
          if (!pool.free.empty())
            {
              const context::stack_context s = pool.free.back();
              pool.free.pop_back();
              return s;
            }
          const std::size_t page   = ::sysconf(_SC_PAGESIZE);
          void             *memory = ::mmap(
            nullptr, stack_size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
          AssertThrow(memory != MAP_FAILED,
                      dealii::ExcMessage("gpumf host backend: cannot map a stack for an emulated thread."));
          // a guard page below the stack turns an overflow into a fault instead of corruption
          ::mprotect(memory, page, PROT_NONE);
          context::stack_context s;
          s.size = stack_size;
          s.sp   = static_cast<char *>(memory) + page + stack_size;
          return s;
        }

        void
        deallocate(context::stack_context &s) noexcept
        {
          stack_pool().free.push_back(s);
        }
      };

      /// Where an emulated thread stopped.
      enum class Stop
      {
        running,
        barrier,
        cell_end,
        done,
        failed
      };

      struct Block
      {
        unsigned int                n_q     = 1;
        unsigned int                current = 0;
        std::vector<context::fiber> threads; ///< suspended emulated threads
        std::vector<context::fiber> back;    ///< per thread: the scheduler, to return to
        std::vector<Stop>           stops;
        std::exception_ptr          error;
      };

      Block *&
      active_block()
      {
        static thread_local Block *block = nullptr;
        return block;
      }

      /// The barrier interval the running threads are in; grows over all loops of the OS
      /// thread, from 1 (records of 0 are stale).
      unsigned long long &
      epoch()
      {
        static thread_local unsigned long long e = 1;
        return e;
      }

      /// The linear index of the running emulated thread (no block: 0, a host loop's only thread).
      unsigned int
      running_thread()
      {
        return active_block() != nullptr ? active_block()->current : 0;
      }

      /// PointAccess::reader after reads by several threads.
      constexpr unsigned int numbers_many_readers = ~0u;

      ThreadIndex
      index_of(const unsigned int t, const unsigned int n_q)
      {
        return ThreadIndex{t % n_q, (t / n_q) % n_q, t / (n_q * n_q)};
      }

      std::string
      to_string(const ThreadIndex t)
      {
        return "(" + std::to_string(t.x) + ", " + std::to_string(t.y) + ", " + std::to_string(t.z) + ")";
      }

      /// Switches from the running emulated thread back to the scheduler.
      void
      suspend(Block &block, const Stop stop)
      {
        const unsigned int t = block.current;
        block.stops[t]       = stop;
        block.back[t]        = std::move(block.back[t]).resume();
      }

      /// Ends the block: the active block is reset and suspended threads unwind (when the
      /// fibers are destroyed) even when a check throws.
      struct Activation
      {
        Block &block;
        explicit Activation(Block &b)
          : block(b)
        {
          active_block() = &block;
        }
        ~Activation()
        {
          active_block() = nullptr;
          block.threads.clear();
        }
      };
    } // namespace

    void
    host_barrier()
    {
      Block *block = active_block();
      AssertThrow(block != nullptr,
                  dealii::ExcMessage("gpumf::syncthreads() called outside a cell functor: it is the "
                                     "barrier of the threads of a cell inside MatrixFree's loops."));
      suspend(*block, Stop::barrier);
    }

    void
    host_read(PointAccess &access, const char *what, const unsigned int q)
    {
      const unsigned int t   = running_thread();
      const unsigned int n_q = active_block() != nullptr ? active_block()->n_q : 1;
      AssertThrow(access.written != epoch() || access.writer == t,
                  dealii::ExcMessage(std::string("gpumf host backend: a race between the threads of a cell: thread ") +
                                     to_string(index_of(t, n_q)) + " reads " + what + " at point " + std::to_string(q) +
                                     ", which thread " + to_string(index_of(access.writer, n_q)) +
                                     " wrote after the last barrier. On the GPU the read may see the old or the new "
                                     "value: put gpumf::syncthreads() between the write and the read."));
      access.reader = access.read == epoch() && access.reader != t ? numbers_many_readers : t;
      access.read   = epoch();
    }

    void
    host_write(PointAccess &access, const char *what, const unsigned int q)
    {
      const unsigned int t     = running_thread();
      const unsigned int n_q   = active_block() != nullptr ? active_block()->n_q : 1;
      const bool         other = access.read == epoch() && access.reader != t;
      AssertThrow(!other && (access.written != epoch() || access.writer == t),
                  dealii::ExcMessage(std::string("gpumf host backend: a race between the threads of a cell: thread ") +
                                     to_string(index_of(t, n_q)) + " writes " + what + " at point " +
                                     std::to_string(q) + ", which another thread " + (other ? "read" : "wrote") +
                                     " after the last barrier. On the GPU the order of the two is undefined: put "
                                     "gpumf::syncthreads() between them."));
      access.writer  = t;
      access.written = epoch();
    }

    void
    run_host_block(const unsigned int                       n_threads,
                   const unsigned int                       n_q,
                   const unsigned int                       n_cells,
                   const std::function<void(unsigned int)> &body)
    {
      AssertThrow(active_block() == nullptr,
                  dealii::ExcMessage("gpumf host backend: a cell loop was started inside a cell functor."));
      if (n_cells == 0)
        return;
      Block block;
      block.n_q = n_q;
      block.back.resize(n_threads);
      block.stops.assign(n_threads, Stop::running);
      Activation activation(block);
      for (unsigned int t = 0; t < n_threads; ++t)
        block.threads.emplace_back(std::allocator_arg,
                                   PooledStack(),
                                   [&block, &body, t, n_cells](context::fiber &&scheduler) {
                                     block.back[t] = std::move(scheduler);
                                     try
                                       {
                                         for (unsigned int cell = 0; cell < n_cells; ++cell)
                                           {
                                             body(cell);
                                             suspend(block, Stop::cell_end);
                                           }
                                         block.stops[t] = Stop::done;
                                       }
                                     catch (const context::detail::forced_unwind &)
                                       {
                                         throw; // the block is being torn down
                                       }
                                     catch (...)
                                       {
                                         block.error    = std::current_exception();
                                         block.stops[t] = Stop::failed;
                                       }
                                     return std::move(block.back[t]);
                                   });

      for (;;)
        {
          for (unsigned int t = 0; t < n_threads; ++t)
            {
              host_thread_index() = index_of(t, n_q);
              block.current       = t;
              block.stops[t]      = Stop::running;
              block.threads[t]    = std::move(block.threads[t]).resume();
              if (block.stops[t] == Stop::failed)
                std::rethrow_exception(block.error);
            }
          // all threads stopped: at the same place, or the cell's threads diverged
          const Stop stop = block.stops[0];
          for (unsigned int t = 1; t < n_threads; ++t)
            if (block.stops[t] != stop)
              {
                const auto where = [](const Stop s) {
                  return s == Stop::barrier ? std::string("waits at a barrier (gpumf::syncthreads(), or one "
                                                          "inside an FEEvaluation function)") :
                                              std::string("has reached the end of the cell");
                };
                AssertThrow(false,
                            dealii::ExcMessage(
                              "gpumf host backend: the threads of a cell diverged at a barrier: thread " +
                              to_string(index_of(0, n_q)) + " " + where(stop) + ", thread " +
                              to_string(index_of(t, n_q)) + " " + where(block.stops[t]) +
                              ". Every thread of a cell must call the same FEEvaluation functions and "
                              "barriers (on the GPU this hangs or computes garbage)."));
              }
          ++epoch(); // all passed a barrier (or the end of a cell)
          if (stop == Stop::done)
            return;
        }
    }
  } // namespace internal
} // namespace gpumf
