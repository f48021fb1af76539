/**
 * @file gpumf/internal/host_block.h
 * The host backend's emulation of the threads of a CUDA block: each emulated thread of a cell
 * is a fiber (Boost.Context) that runs until it reaches a barrier, so that the threads of a
 * cell run in step as on the GPU (gpumf::syncthreads(), and the barriers inside FEEvaluation).
 */
#ifndef gpumf_internal_host_block_h
#define gpumf_internal_host_block_h

#include <gpumf/internal/cell_layout.h>

#include <functional>

namespace gpumf
{
  namespace internal
  {
    /**
     * Runs @p body(cell) for cell = 0, ..., @p n_cells - 1 on @p n_threads emulated threads, the
     * threads of a cell in lockstep between barriers: each runs (in thread order) until it
     * reaches host_barrier() or the end of the cell, and no thread passes a barrier before all
     * have reached it; the next cell starts when all threads have finished the current one.
     * While a thread runs, host_thread_index() is its index (x fastest over @p n_q, then y,
     * then z). Throws when the threads of a cell do not all reach the same barriers (a thread
     * waits at a barrier that another has left the cell without reaching: on the GPU that hangs
     * or computes garbage), and rethrows the first exception of a thread.
     */
    void
    run_host_block(const unsigned int                       n_threads,
                   const unsigned int                       n_q,
                   const unsigned int                       n_cells,
                   const std::function<void(unsigned int)> &body);

    /// The barrier of the threads of the running host block (see run_host_block()); throws
    /// outside one.
    void
    host_barrier();

    /**
     * The last write and read of one point's scratch entries by the emulated threads, for
     * host_read()/host_write(): numbers of the barrier intervals ("epochs", counted over all
     * loops of the OS thread, so that a zero record is stale) and the threads.
     */
    struct PointAccess
    {
      unsigned long long written = 0, read = 0;
      unsigned int       writer = 0, reader = 0;
    };

    /// Records that the running emulated thread reads the entries of @p access (@p what, at
    /// point @p q); throws when another thread wrote them since the last barrier: on the GPU
    /// the read could see either value.
    void
    host_read(PointAccess &access, const char *what, const unsigned int q);

    /// Records a write; throws when another thread read or wrote the entries since the last barrier.
    void
    host_write(PointAccess &access, const char *what, const unsigned int q);
  } // namespace internal

  /**
   * A barrier of the threads of a cell, for cell functors: __syncthreads() on the GPU, the
   * emulated threads' barrier on the host backend. Every thread of the cell must reach it.
   * Porting: write gpumf::syncthreads() where deal.II code calls __syncthreads() (the host
   * compiler knows no __syncthreads()).
   */
  __host__ __device__ inline void
  syncthreads()
  {
#ifdef __CUDA_ARCH__
    __syncthreads();
#else
    internal::host_barrier();
#endif
  }
} // namespace gpumf

#endif
