/**
 * @file gpumf/internal/cell_layout.h
 * How the threads of one cell map to its points, on the GPU and in the host emulation.
 */
#ifndef gpumf_internal_cell_layout_h
#define gpumf_internal_cell_layout_h

#include <gpumf/config.h>

#include <cstddef>

/// On the GPU the first expression, on the host the second: the one-line dispatch of a function
/// that has a device path and a host reference (FEEvaluation, FEFaceEvaluation keep each path
/// together, the device one in their __CUDA_ARCH__ block, the host one in the other).
#ifdef __CUDA_ARCH__
#  define GPUMF_DEVICE_OR_HOST(device, host) device
#else
#  define GPUMF_DEVICE_OR_HOST(device, host) host
#endif

namespace gpumf
{
  namespace internal
  {
    constexpr unsigned int
    ipow(const unsigned int base, const int exponent)
    {
      return exponent == 0 ? 1u : base * ipow(base, exponent - 1);
    }

    /// The m with m^dim == n_points (0 if there is none).
    constexpr unsigned int
    root(const unsigned int n_points, const int dim, const unsigned int guess = 1)
    {
      return ipow(guess, dim) == n_points ? guess : ipow(guess, dim) > n_points ? 0 : root(n_points, dim, guess + 1);
    }

    /**
     * Thread layout of a cell with n_q = n_q_points_1d points per direction (n_q >= n_dofs_1d,
     * so the quadrature grid is the larger one and holds the DoF grid in its corner).
     *
     * Per-point arrays of a cell are stored padded to n_q^dim, x fastest:
     * @verbatim
     *   p = i + n_q*j + n_q*n_q*k      DoF (i, j, k < n_dofs_1d) or quadrature point (i, j, k < n_q)
     * @endverbatim
     * Threads: (n_q, n_q, block_z). In 3D, block_z = n_q (one thread per point) when n_q^3 <=
     * 1024, else 1: each thread owns a column of n_q points along z (degree 10 and higher, or
     * at every degree with `columns`: the 2D thread blocks of high-order GPU kernels, whose
     * threads each reuse a 1D matrix entry for a whole column).
     * A thread (tx, ty, tz) owns the points (tx, ty, tz + s*block_z), s < points_per_thread.
     *
     * A CUDA block may hold several cells (low degree), stacked along z:
     * @verbatim
     *   threadIdx = (tx, ty, local_cell * block_z + tz),  local_cell < cells_per_block
     * @endverbatim
     */
    template <int dim>
    struct CellLayout
    {
      unsigned int n_q;
      /// 3D: a column of points per thread at every n_q (see FEEvaluation's thread_per_column)
      bool columns = false;

      constexpr unsigned int
      block_z() const
      {
        return dim == 3 ? (!columns && n_q * n_q * n_q <= 1024 ? n_q : 1) : 1;
      }

      constexpr unsigned int
      points_per_thread() const
      {
        return dim == 3 ? n_q / block_z() : 1;
      }

      constexpr unsigned int
      n_threads() const
      {
        return n_q * (dim > 1 ? n_q : 1) * block_z();
      }

      constexpr unsigned int
      n_points() const
      {
        return ipow(n_q, dim);
      }

      /// Threads a block may have: 256, or one cell's threads where that is more.
      static constexpr unsigned int max_block_threads_for_many = 256;

      /**
       * Most cells one block takes: where a cell has fewer threads than a warp (with columns:
       * at most 128 threads), as many as fit in 256 threads and in blockDim.z <= 64; else one.
       * Measured on an H200 (doc/perf/history.md, "Several cells per block"): 3.6x for BP5 at
       * degree 1 (8 threads per cell), +13% for BP3 at degree 1 (27 threads), but 2-6% slower
       * than one cell per block from 64 threads on with a thread per point. With columns
       * (n_q^2 threads a cell, the ready operators' kernel) blocks of one cell would leave warps
       * part-empty (36 or 49 threads) and SMs short of blocks.
       */
      constexpr unsigned int
      max_cells_per_block() const
      {
        if (n_threads() >= (columns ? max_block_threads_for_many / 2 + 1 : 32))
          return 1;
        const unsigned int by_threads = max_block_threads_for_many / n_threads();
        const unsigned int by_z       = 64 / block_z();
        const unsigned int k          = by_threads < by_z ? by_threads : by_z;
        return k > 1 ? k : 1;
      }

      /// The __launch_bounds__ of the cell kernels.
      constexpr unsigned int
      max_block_threads() const
      {
        return max_cells_per_block() * n_threads();
      }
    };

    /**
     * The shared-memory carve-out, in percent of an SM's @p shared_per_sm bytes (CUDA's
     * cudaFuncAttributePreferredSharedMemoryCarveout; the driver rounds it up to a configuration
     * it has, the rest is L1 cache), that holds @p blocks blocks of @p bytes_per_block bytes each
     * (dynamic and static shared memory and the driver's reserve), rounded up; 100 where they
     * need all of it or none fits (@p blocks 0).
     */
    constexpr int
    shared_carveout_percent(const unsigned int blocks,
                            const std::size_t  bytes_per_block,
                            const std::size_t  shared_per_sm)
    {
      const std::size_t needed = std::size_t(blocks) * bytes_per_block;
      return shared_per_sm == 0 || blocks == 0 || needed >= shared_per_sm ?
               100 :
               int((100 * needed + shared_per_sm - 1) / shared_per_sm);
    }

    /**
     * The least carve-out at which @p blocks_at(percent) (the blocks a kernel keeps on an SM at
     * that carve-out: CUDA's occupancy calculator, which follows it) is still @p blocks: from
     * shared_carveout_percent() up while it holds fewer (the driver's allocation granularity),
     * then down while it holds as many (a configuration the estimate skipped); 100 for @p blocks
     * 0. The kernels with a column per thread run with it (cell_loop.h, column_launch_plan()), the kernel lab's too.
     */
    template <typename BlocksAt>
    constexpr int
    least_carveout_percent(const unsigned int blocks,
                           const std::size_t  bytes_per_block,
                           const std::size_t  shared_per_sm,
                           const BlocksAt    &blocks_at)
    {
      if (blocks == 0) // none fits: the driver decides
        return 100;
      int percent = shared_carveout_percent(blocks, bytes_per_block, shared_per_sm);
      while (percent < 100 && blocks_at(percent) < blocks)
        ++percent;
      while (percent > 0 && blocks_at(percent - 1) >= blocks)
        --percent;
      return percent;
    }

    /// *p through the read-only data cache on the GPU (the arrays are not written during a loop).
    template <typename T>
    __host__ __device__ inline T
    read_only(const T *p)
    {
#ifdef __CUDA_ARCH__
      return __ldg(p);
#else
      return *p;
#endif
    }

#ifdef __CUDA_ARCH__
    /**
     * @p p, a pointer into the block's dynamic shared memory, rebuilt from the shared-memory
     * symbol and its offset there: loads and stores through the result compile to shared-memory
     * instructions (LDS, STS), where a pointer read back from local memory (a struct the loops
     * pass by address, such as SharedData) compiles to generic ones, which wait as global loads do
     * (measured in FEEvaluation's kernels: no ld.shared in their PTX without it, doc/performance.md).
     */
    template <typename T>
    __device__ inline T *
    in_shared_space(T *p)
    {
      extern __shared__ __align__(16) unsigned char shared_memory[];
      const unsigned int                            offset = static_cast<unsigned int>(__cvta_generic_to_shared(p)) -
                                  static_cast<unsigned int>(__cvta_generic_to_shared(shared_memory));
      return reinterpret_cast<T *>(shared_memory + offset);
    }
#endif

    /// The calling thread's index within its cell: threadIdx on the GPU, set by the loops on the host.
    struct ThreadIndex
    {
      unsigned int x, y, z;
    };

    /// The host backend's stand-in for threadIdx.
    inline ThreadIndex &
    host_thread_index()
    {
      static thread_local ThreadIndex index{0, 0, 0};
      return index;
    }

    /// The host backend's stand-in for blockDim.z of one cell: the block_z() of the running
    /// functor's layout (FEEvaluation checks that its own layout agrees).
    inline unsigned int &
    host_block_z()
    {
      static thread_local unsigned int block_z = 0;
      return block_z;
    }

    /// The calling thread's index within its cell (threadIdx.z taken modulo the cell's block_z).
    template <int dim>
    __host__ __device__ inline ThreadIndex
    thread_index(const CellLayout<dim> layout)
    {
#ifdef __CUDA_ARCH__
      return ThreadIndex{threadIdx.x, threadIdx.y, threadIdx.z % layout.block_z()};
#else
      (void)layout;
      return host_thread_index();
#endif
    }

    /// CUDA: position of the calling thread's cell within its block.
    template <int dim>
    __host__ __device__ inline unsigned int
    local_cell(const CellLayout<dim> layout)
    {
#ifdef __CUDA_ARCH__
      return threadIdx.z / layout.block_z();
#else
      (void)layout;
      return 0;
#endif
    }

    /// Padded storage index of the point that thread @p t owns as its @p s-th.
    template <int dim>
    __host__ __device__ constexpr unsigned int
    owned_point(const CellLayout<dim> layout, const ThreadIndex t, const unsigned int s)
    {
      return t.x + layout.n_q * (t.y + layout.n_q * (t.z + s * layout.block_z()));
    }
  } // namespace internal
} // namespace gpumf

#endif
