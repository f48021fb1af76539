/**
 * @file gpumf/internal/cell_loop.h
 * The loops behind MatrixFree::cell_loop(), diagonal_loop() and evaluate_coefficients():
 * CUDA kernels (compiled where the user's functor is compiled by nvcc) and the host reference.
 *
 * Host reference: the functor is written for the threads of a cell (internal::CellLayout),
 * so the host runs it on emulated threads of a cell that run in step between barriers
 * (internal/host_block.h), with internal::host_thread_index() in place of threadIdx.
 * FEEvaluation's collective steps run between two barriers on the first emulated thread.
 */
#ifndef gpumf_internal_cell_loop_h
#define gpumf_internal_cell_loop_h

#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/host_block.h>
#include <gpumf/matrix_free.h>
#include <gpumf/setup_profile.h>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>

#  include <map>
#  include <mutex>
#  include <tuple>
#endif

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>
#include <array>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// Functor::n_components where the functor declares it, else 0 (the MatrixFree object's).
    template <typename Functor, typename = void>
    struct DeclaredComponentsOf
    {
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct DeclaredComponentsOf<Functor, std::void_t<decltype(Functor::n_components)>>
    {
      static constexpr unsigned int value = Functor::n_components;
    };

    /// Functor::n_components where the functor declares it, else 1.
    template <typename Functor>
    struct ComponentsOf
    {
      static constexpr unsigned int value =
        DeclaredComponentsOf<Functor>::value > 0 ? DeclaredComponentsOf<Functor>::value : 1;
    };

    /// Functor::n_dofs_1d and Functor::n_local_dofs where the functor declares them (deal.II 9.4
    /// and 9.6 require them), else 0: the MatrixFree object's (deal.II 9.7+ requires n_q_points alone).
    template <typename Functor, typename = void>
    struct Dofs1dOf
    {
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct Dofs1dOf<Functor, std::void_t<decltype(Functor::n_dofs_1d)>>
    {
      static constexpr unsigned int value = Functor::n_dofs_1d;
    };
    template <typename Functor, typename = void>
    struct LocalDofsOf
    {
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct LocalDofsOf<Functor, std::void_t<decltype(Functor::n_local_dofs)>>
    {
      static constexpr unsigned int value = Functor::n_local_dofs;
    };

    template <typename>
    inline constexpr bool always_false = false;

    /// Functor::n_q_points, which every functor of the loops declares (deal.II's requirement too).
    template <typename Functor, typename = void>
    struct QPointsOf
    {
      static_assert(always_false<Functor>,
                    "gpumf: a functor of MatrixFree::cell_loop(), evaluate_coefficients() or loop() declares the "
                    "quadrature points of a cell, `static const unsigned int n_q_points = "
                    "dealii::Utilities::pow(n_q_points_1d, dim);`, as deal.II requires.");
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct QPointsOf<Functor, std::void_t<decltype(Functor::n_q_points)>>
    {
      static constexpr unsigned int value = Functor::n_q_points;
    };

    /// Functor::thread_per_column where the functor declares it, else false.
    template <typename Functor, typename = void>
    struct ColumnsOf
    {
      static constexpr bool value = false;
    };
    template <typename Functor>
    struct ColumnsOf<Functor, std::void_t<decltype(Functor::thread_per_column)>>
    {
      static constexpr bool value = Functor::thread_per_column;
    };

    /// Functor::n_fe_evaluations where the functor declares it, else 0.
    template <typename Functor, typename = void>
    struct DeclaredEvaluationsOf
    {
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct DeclaredEvaluationsOf<Functor, std::void_t<decltype(Functor::n_fe_evaluations)>>
    {
      static constexpr unsigned int value = Functor::n_fe_evaluations;
      static_assert(value >= 1, "gpumf: a functor's n_fe_evaluations must be at least 1.");
    };

    /// Functor::n_fe_evaluations where the functor declares it, else 1.
    template <typename Functor>
    struct EvaluationsOf
    {
      static constexpr unsigned int value =
        DeclaredEvaluationsOf<Functor>::value > 0 ? DeclaredEvaluationsOf<Functor>::value : 1;
    };

    /// The thread layout a functor's FEEvaluation uses (from its n_q_points and thread_per_column).
    template <int dim, typename Functor>
    constexpr CellLayout<dim>
    layout_of()
    {
      return CellLayout<dim>{root(QPointsOf<Functor>::value, dim), ColumnsOf<Functor>::value};
    }

    /// Functor::device_scratch_per_cell where the functor declares it (the Numbers of shared
    /// memory its cell operation needs on the GPU), else 0: FEEvaluation's arrays.
    template <typename Functor, typename = void>
    struct DeviceScratchOf
    {
      static constexpr unsigned int value = 0;
    };
    template <typename Functor>
    struct DeviceScratchOf<Functor, std::void_t<decltype(Functor::device_scratch_per_cell)>>
    {
      static constexpr unsigned int value = Functor::device_scratch_per_cell;
    };

    /// Functor::device_min_blocks_per_sm where the functor declares it (the blocks an SM must
    /// hold: the second argument of the cell kernels' __launch_bounds__, which caps the registers
    /// a thread), else 0 (the compiler's choice).
    template <typename Functor, typename = void>
    struct MinBlocksOf
    {
      static constexpr unsigned int value    = 0;
      static constexpr bool         declared = false;
    };
    template <typename Functor>
    struct MinBlocksOf<Functor, std::void_t<decltype(Functor::device_min_blocks_per_sm)>>
    {
      static constexpr unsigned int value    = Functor::device_min_blocks_per_sm;
      static constexpr bool         declared = true;
    };

    /**
     * The blocks an SM must hold for the cell kernel (the operator's) of @p Functor on @p Src:
     * MinBlocksOf where the functor declares device_min_blocks_per_sm; else two for a functor of
     * deal.II 9.8's block form (Portable::DeviceBlockVector: several FEEvaluation objects, as
     * step-104's Stokes operator) in 3D with a thread per point and 129-256 threads a block, which caps
     * its registers at 128 (146 at n_q = 6); else 0, the compiler's choice. The compiler takes
     * 154-164 registers for such functors, and one block of 8 warps then fits an SM. step-104's
     * Stokes functor, capped against the compiler's choice (an H200, gpumf_stokes,
     * doc/performance.md): Q2-Q1 1.47x (n_q = 3: blocks of 9 cells, 243 threads), Q5-Q4 1.45x
     * (n_q = 6: 216 threads); Q3-Q2 (n_q = 4: one cell, 64 threads) is not capped, nor Q4-Q3
     * (n_q = 5: 125 threads), where asking for two blocks raised the registers from 128 to 167 and
     * cost 12 %. Not for other functors: a bound also moves the registers of kernels that need
     * fewer than 128 (ptxas: helmholtz's 104 to 128, step-48's 80 to 104, the velocity
     * Laplacian's 94 to 117, 73 of 200 kernels of the examples and tests), whose speed was not
     * measured so; nor 2D block functors (not measured).
     */
    template <int dim, typename Number, typename Functor, typename Src>
    constexpr unsigned int
    cell_kernel_min_blocks()
    {
      if constexpr (MinBlocksOf<Functor>::declared)
        return MinBlocksOf<Functor>::value;
      else
        {
          constexpr CellLayout<dim> layout  = layout_of<dim, Functor>();
          constexpr unsigned int    threads = layout.max_block_threads();
          return dim == 3 && std::is_same_v<Src, Portable::DeviceBlockVector<Number>> &&
                     layout.points_per_thread() == 1 && threads > 128 && threads <= 256 ?
                   2 :
                   0;
        }
    }

    /// The tag of a cell functor's device form (see FormsOf).
    template <unsigned int form>
    struct DeviceForm
    {
      static constexpr unsigned int value = form;
    };

    /**
     * Functor::n_device_forms where the functor declares it and takes
     * operator()(cell, data, shared, src, dst, DeviceForm<f>) for f < n_device_forms, else 1: on
     * the GPU cell_loop() instantiates its kernel once per form and launches the one that
     * functor.device_form() names (a choice that is the same for all cells, such as which 1D
     * matrices a cell operation contracts with): each kernel then holds one code path,
     * and its registers are that path's alone. A functor derived from one with forms that declares
     * its own operator() hides the tagged ones and gets one kernel again; one that also brings the
     * base's operators back with a using-declaration would run the base's tagged ones: such a
     * functor overrides both (as the benchmark's Unprotected does) or neither.
     */
    template <int dim, typename Number, typename Functor, typename Src, typename Dst, typename = void>
    struct FormsOf
    {
      static constexpr unsigned int value = 1;
    };
    template <int dim, typename Number, typename Functor, typename Src, typename Dst>
    struct FormsOf<dim,
                   Number,
                   Functor,
                   Src,
                   Dst,
                   std::void_t<decltype(Functor::n_device_forms),
                               decltype(std::declval<const Functor &>()(
                                 0u,
                                 std::declval<const typename MatrixFree<dim, Number>::Data *>(),
                                 std::declval<SharedData<dim, Number> *>(),
                                 std::declval<const Src &>(),
                                 std::declval<const Dst &>(),
                                 DeviceForm<0>{}))>>
    {
      static constexpr unsigned int value = Functor::n_device_forms;
    };

    /**
     * Per-cell scratch, in Numbers: a set of arrays per FEEvaluation of the functor (n_slots),
     * each [values | gradients (dim of them) | dof values (host)], n_components * n_q^dim
     * Numbers per array. On the GPU the 1D tables come first (once per block):
     * [shape_values n_q*n_dofs_1d | co_shape_gradients n_q*n_q]; a functor that declares
     * device_scratch_per_cell (the ready operators' lines cell operation) gets that
     * many Numbers a cell there instead.
     */
    template <int dim, typename Number, typename Functor>
    struct Scratch
    {
      static constexpr CellLayout<dim> layout  = layout_of<dim, Functor>();
      static constexpr unsigned int    size    = ComponentsOf<Functor>::value * layout.n_points();
      static constexpr unsigned int    n_slots = EvaluationsOf<Functor>::value;
      /// Numbers of a cell's scratch on the GPU.
      static constexpr unsigned int device_slot_stride = DeviceScratchOf<Functor>::value > 0 ?
                                                           DeviceScratchOf<Functor>::value :
                                                           (dim + 1) * size;
#ifdef __CUDA_ARCH__
      static constexpr unsigned int slot_stride = device_slot_stride;
#else
      static constexpr unsigned int slot_stride = (dim + 2) * size;
#endif

      /**
       * The scratch of a cell loop (cell_loop(), diagonal_loop(), evaluate_coefficients()) of
       * the functor on @p mf, into @p data's scratch fields: arrays of the functor's
       * n_components, else of the object's most components (max_components()); the functor's
       * n_fe_evaluations sets, else one per DoFHandler of the object.
       */
      static void
      plan(const MatrixFree<dim, Number> &mf, typename MatrixFree<dim, Number>::Data &data)
      {
        const unsigned int components =
          DeclaredComponentsOf<Functor>::value > 0 ? DeclaredComponentsOf<Functor>::value : mf.max_components();
        data.scratch_array_size = components * layout.n_points();
        data.scratch_slots =
          DeclaredEvaluationsOf<Functor>::value > 0 ? DeclaredEvaluationsOf<Functor>::value : mf.n_dof_handlers();
#ifdef __CUDACC__
        data.scratch_stride =
          DeviceScratchOf<Functor>::value > 0 ? DeviceScratchOf<Functor>::value : (dim + 1) * data.scratch_array_size;
#else
        data.scratch_stride = (dim + 1) * data.scratch_array_size;
#endif
      }

      /// Numbers of a cell's scratch on the host (the DoF values apart: dim + 2 arrays a set).
      static std::size_t
      host_numbers(const typename MatrixFree<dim, Number>::Data &data)
      {
        return std::size_t(data.scratch_slots) * (dim + 2) * data.scratch_array_size;
      }

      /// SharedData over the scratch at @p values, with the 1D tables at @p shape_values and
      /// @p co_shape_gradients (shape_gradients stay in the object's memory): the sizes of
      /// @p data's scratch fields where plan() set them, else the functor's declarations.
      __host__ __device__ static SharedData<dim, Number>
               make(Number                                       *values,
                    const Number                                 *shape_values,
                    const Number                                 *co_shape_gradients,
                    const typename MatrixFree<dim, Number>::Data &data,
                    PointAccess                                  *host_access = nullptr)
      {
        const bool         planned = data.scratch_slots > 0;
        const unsigned int array   = planned ? data.scratch_array_size : size;
        Number            *gradients[dim];
        for (unsigned int d = 0; d < dim; ++d)
          gradients[d] = values + (d + 1) * array;
        SharedData<dim, Number> shared(values, gradients);
        shared.shape_values       = shape_values;
        shared.shape_gradients    = data.shape_gradients;
        shared.co_shape_gradients = co_shape_gradients;
        shared.n_slots            = planned ? data.scratch_slots : n_slots;
#ifdef __CUDA_ARCH__
        shared.slot_stride = planned ? data.scratch_stride : slot_stride;
#else
        shared.slot_stride  = planned ? (dim + 2) * array : slot_stride;
#endif
        shared.array_size = array;
#ifndef __CUDA_ARCH__
        shared.dof_values  = values + (dim + 1) * array;
        shared.host_access = host_access;
#else
        (void)host_access;
#endif
        return shared;
      }
    };

    /**
     * One thread's call of an evaluate_coefficients() functor on cell @p cell: deal.II 9.4's
     * `func(cell, &data)` (the thread's point through local_q_point_id()), or deal.II 9.5+'s
     * `func(&data, cell, q)` once for each point q the thread owns.
     */
    template <int dim, typename Number, typename Functor>
    __host__ __device__ void
    call_coefficient_functor(Functor &func, const unsigned int cell, const typename MatrixFree<dim, Number>::Data &data)
    {
      using Data = typename MatrixFree<dim, Number>::Data;
      if constexpr (std::is_invocable_v<Functor &, const Data *, unsigned int, unsigned int>)
        {
          constexpr CellLayout<dim> layout    = layout_of<dim, Functor>();
          const auto                thread    = thread_index(layout);
          Data                      cell_data = data; // deal.II 9.7+'s Data::cell_index
          cell_data.cell_index                = cell;
          cell_data.thread_per_column         = layout.columns;
          cell_data.team_member               = Portable::TeamHandle(layout, cell);
          for (unsigned int s = 0; s < layout.points_per_thread(); ++s)
            func(&cell_data, cell, owned_point(layout, thread, s));
        }
      else
        func(cell, &data);
    }

    /// A cell functor of deal.II 9.7+'s form `operator()(const Data *data, const
    /// Portable::DeviceVector<Number> &src, Portable::DeviceVector<Number> &dst)`.
    template <int dim, typename Number, typename Functor>
    inline constexpr bool is_portable_cell_functor = std::is_invocable_v<const Functor &,
                                                                         const typename MatrixFree<dim, Number>::Data *,
                                                                         const Portable::DeviceVector<Number> &,
                                                                         Portable::DeviceVector<Number> &>;

    /// A cell functor of deal.II 9.8's block form `operator()(const Data *data, const
    /// Portable::DeviceBlockVector<Number> &src, Portable::DeviceBlockVector<Number> &dst)`.
    template <int dim, typename Number, typename Functor>
    inline constexpr bool is_portable_block_functor =
      std::is_invocable_v<const Functor &,
                          const typename MatrixFree<dim, Number>::Data *,
                          const Portable::DeviceBlockVector<Number> &,
                          Portable::DeviceBlockVector<Number> &>;

    /**
     * One thread's call of a cell functor on cell @p cell: deal.II 9.4/9.6's
     * `func(cell, &data, &shared, src, dst)`, or, where @p src is a Portable::DeviceVector (the
     * loop's choice for a functor of deal.II 9.7+'s form), `func(&cell_data, src, dst)` with the
     * cell and its scratch in a copy of @p data (Data::cell_index, Data::shared_data).
     */
    template <int dim, typename Number, typename Functor, typename Src, typename Dst>
    __host__ __device__ inline void
    call_cell_functor(const Functor                                &func,
                      const unsigned int                            cell,
                      const typename MatrixFree<dim, Number>::Data &data,
                      SharedData<dim, Number>                      &shared,
                      const Src                                    &src,
                      const Dst                                    &dst)
    {
      if constexpr (std::is_same_v<Src, Portable::DeviceVector<Number>> ||
                    std::is_same_v<Src, Portable::DeviceBlockVector<Number>>)
        {
          typename MatrixFree<dim, Number>::Data cell_data = data;
          cell_data.cell_index                             = cell;
          cell_data.shared_data                            = &shared;
          cell_data.thread_per_column                      = ColumnsOf<Functor>::value;
          cell_data.team_member                            = shared.team_member;
          Src out                                          = dst;
          func(&cell_data, src, out);
        }
      else
        func(cell, &data, &shared, src, dst);
    }

    /**
     * Runs body(cell, data, shared) for every cell of @p range of every color on the host, on
     * the emulated threads of the functor's layout (run_host_block()), each with its own
     * SharedData over the cell's scratch.
     */
    template <int dim, typename Number, typename Functor, typename Body>
    void
    host_loop(const MatrixFree<dim, Number>                    &mf,
              const typename MatrixFree<dim, Number>::CellRange range,
              const Body                                       &body)
    {
      using S = Scratch<dim, Number, Functor>;
      typename MatrixFree<dim, Number>::Data plan;
      S::plan(mf, plan);
      std::vector<Number>      buffer(S::host_numbers(plan));
      std::vector<PointAccess> access(std::size_t(plan.scratch_slots) * 2 * plan.scratch_array_size);
      host_block_z()          = S::layout.block_z();
      const unsigned int quad = mf.launch_quadrature(QPointsOf<Functor>::value);
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          typename MatrixFree<dim, Number>::Data data = mf.get_data(color, range, quad);
          S::plan(mf, data);
          run_host_block(S::layout.n_threads(), S::layout.n_q, data.n_cells, [&](const unsigned int cell) {
            SharedData<dim, Number> shared =
              S::make(buffer.data(), data.shape_values, data.co_shape_gradients, data, access.data());
            shared.cell        = cell;
            shared.team_member = Portable::TeamHandle(S::layout, cell);
            body(cell, data, shared);
          });
        }
    }

#ifdef __CUDACC__
    // (an inline namespace per compiler: the launchers and their host-compiled stand-ins
    // below have different names, see ThisCompiler)
    inline namespace nvcc_compiled
    {
      /**
       * Copies the 1D tables into the start of the block's shared memory, [shape_values
       * (n_q * n_dofs_1d) | co_shape_gradients (n_q * n_q)], and waits for the block: what every
       * cell and face kernel starts with. Returns that start; the cells' scratch follows the tables.
       */
      template <int dim, typename Number>
      __device__ Number *
      stage_tables(const typename MatrixFree<dim, Number>::Data &data)
      {
        extern __shared__ __align__(16) unsigned char shared_memory[];
        Number                                       *tables   = reinterpret_cast<Number *>(shared_memory);
        const unsigned int                            n_values = data.n_q_points_1d * data.n_dofs_1d;
        const unsigned int                            n_co     = data.n_q_points_1d * data.n_q_points_1d;
        const unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        for (unsigned int i = thread; i < n_values + n_co; i += blockDim.x * blockDim.y * blockDim.z)
          tables[i] = i < n_values ? data.shape_values[i] : data.co_shape_gradients[i - n_values];
        __syncthreads();
        return tables;
      }

      /**
       * Stages the 1D tables in shared memory (once per block) and points SharedData at the
       * scratch of the calling thread's cell. Shared memory of a block:
       * @verbatim
       *   [shape_values | co_shape_gradients | cell 0: values, gradients | cell 1: ... ]
       * @endverbatim
       * (a cell's part is Scratch::slot_stride Numbers a set: the functor's device_scratch_per_cell
       * where it declares one).
       * @p cell becomes the cell's number in the color; the padding cells of the last block
       * repeat the color's last cell with SharedData::writes false, so that they pass the
       * block's barriers without adding anything.
       */
      template <int dim, typename Number, typename Functor>
      __device__ SharedData<dim, Number>
                 device_shared_data(const typename MatrixFree<dim, Number>::Data &data, unsigned int &cell)
      {
        using S                          = Scratch<dim, Number, Functor>;
        Number                 *tables   = stage_tables<dim, Number>(data);
        const unsigned int      n_values = data.n_q_points_1d * data.n_dofs_1d;
        const unsigned int      n_co     = data.n_q_points_1d * data.n_q_points_1d;
        const unsigned int      local    = local_cell(S::layout);
        SharedData<dim, Number> shared   = S::make(
          tables + n_values + n_co + local * data.scratch_slots * data.scratch_stride, tables, tables + n_values, data);
        cell = blockIdx.x * data.cells_per_block + local;
        if (cell >= data.n_cells)
          {
            cell          = data.n_cells - 1;
            shared.writes = false;
          }
        shared.cell        = cell;
        shared.team_member = Portable::TeamHandle(S::layout, cell);
        return shared;
      }

      /// How a kernel with a column per thread is launched: cells per block and shared-memory
      /// carve-out (column_launch_plan()).
      struct ColumnLaunch
      {
        unsigned int cells    = 1;
        int          carveout = 100;
      };

      /**
       * The launch of @p kernel with a column per thread, at most @p k cells of @p threads_per_cell
       * threads and @p shared_bytes(cells) bytes of dynamic shared memory a block:
       * - the cells per block that keep the most cells resident on an SM by CUDA's occupancy
       *   calculator (registers, shared memory, threads), counted with the largest shared-memory
       *   carve-out (the driver's default fitted fewer blocks than the registers allow); on a tie
       *   the larger;
       * - the least carve-out (percent of the SM's shared memory; the rest is L1 cache) that still
       *   holds as many of these blocks (least_carveout_percent(), asking the occupancy
       *   calculator, which follows the carve-out). The L1 left over holds the lines of the
       *   gather and the geometry in flight: with the largest carve-out (28 KB of L1 on Hopper)
       *   the loads waited for L1 (MIO throttle) and BP5 p=4 on stored geometry ran 21.4
       *   GDoF/s, with 164 KB of shared memory and 92 KB of L1 26.4, on an H200
       *   (doc/performance.md, "Techniques and what each gained"; BP5 at p = 3 and 7 on stored geometry lose
       *   4-9 % with it, as with any carve-out below the largest: not understood).
       * Computed under one lock (it sets the kernel's carve-out to count) and cached per kernel
       * and arguments; the caller sets the carve-out it returns.
       */
      template <typename Kernel, typename SharedBytes>
      ColumnLaunch
      column_launch_plan(Kernel             kernel,
                         const unsigned int k,
                         const unsigned int threads_per_cell,
                         const SharedBytes &shared_bytes)
      {
        using Key = std::tuple<const void *, unsigned int, unsigned int, std::size_t>;
        static std::mutex                  mutex;
        static std::map<Key, ColumnLaunch> cache;
        int                                device = 0;
        GPUMF_CHECK_CUDA(cudaGetDevice(&device));
        const Key key{reinterpret_cast<const void *>(kernel), k, unsigned(device), shared_bytes(k)};
        const std::lock_guard<std::mutex> lock(mutex);
        const auto                        found = cache.find(key);
        if (found != cache.end())
          return found->second;
        const auto blocks_at = [&](const int percent, const unsigned int cells) {
          GPUMF_CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
          int blocks = 0;
          GPUMF_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, kernel, static_cast<int>(cells * threads_per_cell), shared_bytes(cells)));
          return unsigned(blocks);
        };
        ColumnLaunch launch;
        unsigned int best_cells = 0;
        for (unsigned int cells = 1; cells <= k; ++cells)
          {
            const unsigned int blocks = blocks_at(int(cudaSharedmemCarveoutMaxShared), cells);
            if (blocks * cells >= best_cells)
              {
                launch.cells = cells;
                best_cells   = blocks * cells;
              }
          }
        int per_sm = 0, reserved = 0;
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
        cudaFuncAttributes attributes{};
        GPUMF_CHECK_CUDA(cudaFuncGetAttributes(&attributes, kernel));
        launch.carveout =
          least_carveout_percent(best_cells / launch.cells,
                                 shared_bytes(launch.cells) + attributes.sharedSizeBytes + std::size_t(reserved),
                                 std::size_t(per_sm),
                                 [&](const int percent) { return blocks_at(percent, launch.cells); });
        cache.emplace(key, launch);
        return launch;
      }

      /// Launches kernel(args...) per color on its cells of @p range, data.cells_per_block cells of the
      /// functor's layout per block (for a column per thread: as many as keep the most cells
      /// resident, with the least shared-memory carve-out that holds them, column_launch_plan()).
      template <int dim, typename Number, typename Functor, typename Kernel, typename... Args>
      void
      launch_per_color(const MatrixFree<dim, Number>                    &mf,
                       const typename MatrixFree<dim, Number>::CellRange range,
                       Kernel                                            kernel,
                       const bool                                        with_scratch,
                       const Args &...args)
      {
        using S                                       = Scratch<dim, Number, Functor>;
        constexpr CellLayout<dim>              layout = layout_of<dim, Functor>();
        typename MatrixFree<dim, Number>::Data plan;
        S::plan(mf, plan);
        const unsigned int n_evals = plan.scratch_slots;
        // the quadrature of the functor's points: its tables and geometry
        const unsigned int quad = mf.launch_quadrature(QPointsOf<Functor>::value);
        unsigned int       k    = mf.cells_per_block(layout, with_scratch ? n_evals : 1, quad);
        // the 1D tables, then the cells' scratch
        const auto shared_for = [&](const unsigned int cells) -> std::size_t {
          return mf.shared_memory_per_block_for(0, n_evals, quad) +
                 std::size_t(cells) * plan.scratch_slots * plan.scratch_stride * sizeof(Number);
        };
        std::size_t shared_bytes = with_scratch ? shared_for(k) : 0;
        // (the kernel's attributes are set per call, outside any lock: one kernel launched from
        // several host threads at once for MatrixFree objects of different block sizes could see
        // another thread's smaller limit here, or another carve-out below; not met in the tests)
        if (shared_bytes > 48 * 1024)
          GPUMF_CHECK_CUDA(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
        // a column per thread: few threads, much shared memory per block (column_launch_plan())
        if (with_scratch && layout.columns)
          {
            const ColumnLaunch launch = column_launch_plan(kernel, k, layout.n_threads(), shared_for);
            k                         = launch.cells;
            shared_bytes              = shared_for(k);
            GPUMF_CHECK_CUDA(
              cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, launch.carveout));
          }
        for (unsigned int color = 0; color < mf.n_colors(); ++color)
          {
            typename MatrixFree<dim, Number>::Data data = mf.get_data(color, range, quad);
            if (data.n_cells == 0)
              continue;
            data.cells_per_block = k;
            S::plan(mf, data);
            kernel<<<(data.n_cells + k - 1) / k,
                     dim3(layout.n_q, dim > 1 ? layout.n_q : 1, k * layout.block_z()),
                     shared_bytes>>>(args..., data);
            GPUMF_CHECK_CUDA(cudaGetLastError());
          }
      }

      // The launch bounds make the compiler fit a block's threads in the registers (and as many
      // blocks on an SM as the functor asks for).
      template <int dim, typename Number, typename Functor, typename Src, typename Dst, unsigned int form>
      __global__ void
      __launch_bounds__(layout_of<dim, Functor>().max_block_threads(),
                        (cell_kernel_min_blocks<dim, Number, Functor, Src>()))
        cell_kernel(Functor func, const Src src, const Dst dst, const typename MatrixFree<dim, Number>::Data data)
      {
        unsigned int            cell;
        SharedData<dim, Number> shared = device_shared_data<dim, Number, Functor>(data, cell);
        if constexpr (FormsOf<dim, Number, Functor, Src, Dst>::value > 1)
          func(cell, &data, &shared, src, dst, DeviceForm<form>{});
        else
          call_cell_functor<dim, Number>(func, cell, data, shared, src, dst);
      }

      /// The cell kernel of form @p form (FormsOf), one of @p forms.
      template <int dim, typename Number, typename Functor, typename Src, typename Dst, unsigned int... forms>
      auto
      cell_kernel_of_form(const unsigned int form, std::integer_sequence<unsigned int, forms...>)
      {
        using Kernel               = decltype(&cell_kernel<dim, Number, Functor, Src, Dst, 0>);
        constexpr Kernel kernels[] = {&cell_kernel<dim, Number, Functor, Src, Dst, forms>...};
        AssertThrow(form < sizeof...(forms),
                    ExcNotSupported("gpumf: a cell functor named a device form it does not declare (device_form() >= "
                                    "n_device_forms)"));
        return kernels[form];
      }

      template <int dim, typename Number, typename Functor, typename Src>
      __global__ void
      __launch_bounds__(layout_of<dim, Functor>().max_block_threads(), MinBlocksOf<Functor>::value)
        source_kernel(Functor func, const Src src, const typename MatrixFree<dim, Number>::Data data)
      {
        unsigned int            cell;
        SharedData<dim, Number> shared = device_shared_data<dim, Number, Functor>(data, cell);
        func(cell, &data, &shared, src);
      }

      template <int dim, typename Number, typename Functor>
      __global__ void
      __launch_bounds__(layout_of<dim, Functor>().max_block_threads(), MinBlocksOf<Functor>::value)
        diagonal_kernel(Functor                                      func,
                        Number                                      *diagonal,
                        const unsigned int                           dofs_per_cell,
                        const typename MatrixFree<dim, Number>::Data data)
      {
        unsigned int            cell;
        SharedData<dim, Number> shared = device_shared_data<dim, Number, Functor>(data, cell);
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          func(cell, &data, &shared, i, diagonal);
      }

      template <int dim, typename Number, typename Functor>
      __global__ void
      __launch_bounds__(layout_of<dim, Functor>().max_block_threads(), MinBlocksOf<Functor>::value)
        coefficient_kernel(Functor func, const typename MatrixFree<dim, Number>::Data data)
      {
        // padding cells write the same values as the last cell: no harm
        const unsigned int cell = blockIdx.x * data.cells_per_block + local_cell(layout_of<dim, Functor>());
        call_coefficient_functor<dim, Number>(func, cell < data.n_cells ? cell : data.n_cells - 1, data);
      }

      template <int dim, typename Number, typename Functor, typename Src, typename Dst>
      void
      cuda_cell_loop(const MatrixFree<dim, Number>                    &mf,
                     const typename MatrixFree<dim, Number>::CellRange range,
                     const Functor                                    &func,
                     const Src                                        &src,
                     const Dst                                        &dst)
      {
        constexpr unsigned int n_forms = FormsOf<dim, Number, Functor, Src, Dst>::value;
        if constexpr (n_forms == 1)
          launch_per_color<dim, Number, Functor>(
            mf, range, cell_kernel<dim, Number, Functor, Src, Dst, 0>, true, func, src, dst);
        else
          launch_per_color<dim, Number, Functor>(
            mf,
            range,
            cell_kernel_of_form<dim, Number, Functor, Src, Dst>(func.device_form(),
                                                                std::make_integer_sequence<unsigned int, n_forms>{}),
            true,
            func,
            src,
            dst);
      }

      template <int dim, typename Number, typename Functor, typename Src>
      void
      cuda_source_loop(const MatrixFree<dim, Number> &mf, const Functor &func, const Src &src)
      {
        launch_per_color<dim, Number, Functor>(
          mf, MatrixFree<dim, Number>::CellRange::all, source_kernel<dim, Number, Functor, Src>, true, func, src);
      }

      template <int dim, typename Number, typename Functor>
      void
      cuda_diagonal_loop(const MatrixFree<dim, Number> &mf,
                         const Functor                 &func,
                         Number                        *diagonal,
                         const unsigned int             dofs_per_cell)
      {
        launch_per_color<dim, Number, Functor>(mf,
                                               MatrixFree<dim, Number>::CellRange::all,
                                               diagonal_kernel<dim, Number, Functor>,
                                               true,
                                               func,
                                               diagonal,
                                               dofs_per_cell);
      }

      template <int dim, typename Number, typename Functor>
      void
      cuda_evaluate_coefficients(const MatrixFree<dim, Number> &mf, const Functor &func)
      {
        launch_per_color<dim, Number, Functor>(
          mf, MatrixFree<dim, Number>::CellRange::all, coefficient_kernel<dim, Number, Functor>, false, func);
      }
    } // namespace nvcc_compiled
#else
    inline namespace host_compiled
    {
      [[noreturn]] inline void
      throw_not_compiled_by_nvcc()
      {
        AssertThrow(false,
                    ExcNotSupported("This MatrixFree object uses the CUDA backend, but the functor was "
                                    "compiled by a host compiler. Compile it in a .cu file with nvcc, or "
                                    "use the host backend (GPUMF_BACKEND=host)."));
        throw;
      }

      template <int dim, typename Number, typename Functor, typename Src, typename Dst>
      void
      cuda_cell_loop(const MatrixFree<dim, Number> &,
                     const typename MatrixFree<dim, Number>::CellRange,
                     const Functor &,
                     const Src &,
                     const Dst &)
      {
        throw_not_compiled_by_nvcc();
      }

      template <int dim, typename Number, typename Functor, typename Src>
      void
      cuda_source_loop(const MatrixFree<dim, Number> &, const Functor &, const Src &)
      {
        throw_not_compiled_by_nvcc();
      }

      template <int dim, typename Number, typename Functor>
      void
      cuda_diagonal_loop(const MatrixFree<dim, Number> &, const Functor &, Number *, const unsigned int)
      {
        throw_not_compiled_by_nvcc();
      }

      template <int dim, typename Number, typename Functor>
      void
      cuda_evaluate_coefficients(const MatrixFree<dim, Number> &, const Functor &)
      {
        throw_not_compiled_by_nvcc();
      }
    } // namespace host_compiled
#endif
  } // namespace internal

  namespace internal
  {
    /// The vector behind an element of a cell_loop() argument (a vector or a pointer to one).
    template <typename Number>
    const Vector<Number> *
    source_of(const Vector<Number> &v)
    {
      return &v;
    }
    template <typename Number>
    const Vector<Number> *
    source_of(const Vector<Number> *v)
    {
      return v;
    }
    template <typename Number>
    Vector<Number> *
    destination_of(Vector<Number> &v)
    {
      return &v;
    }
    template <typename Number>
    Vector<Number> *
    destination_of(Vector<Number> *v)
    {
      return v;
    }

    /// What a cell functor receives for @p vectors: a Portable::DeviceVector of the one vector
    /// (@p portable: deal.II 9.7+'s form), its data (@p single), or VectorPointers of them all.
    template <bool portable, bool single, typename Pointer, typename VectorPointer>
    auto
    functor_argument(const std::vector<VectorPointer> &vectors)
    {
      using Plain = std::remove_const_t<Pointer>;
      if constexpr (portable && single)
        return Portable::DeviceVector<Plain>(const_cast<Plain *>(vectors[0]->get_values()),
                                             vectors[0]->locally_owned_size());
      else if constexpr (portable)
        {
          // the blocks of a BlockVector (deal.II 9.8's block form)
          AssertThrow(vectors.size() <= Portable::DeviceBlockVector<Plain>::max_blocks,
                      ExcNotSupported("gpumf::MatrixFree::cell_loop takes block vectors of at most " +
                                      std::to_string(Portable::DeviceBlockVector<Plain>::max_blocks) + " blocks; got " +
                                      std::to_string(vectors.size()) + "."));
          Portable::DeviceBlockVector<Plain> blocks;
          for (const auto *v : vectors)
            blocks.push_back(
              Portable::DeviceVector<Plain>(const_cast<Plain *>(v->get_values()), v->locally_owned_size()));
          return blocks;
        }
      else if constexpr (single)
        return static_cast<Pointer *>(vectors[0]->get_values());
      else
        {
          VectorPointers<Pointer> pointers;
          AssertThrow(vectors.size() <= VectorPointers<Pointer>::max_size,
                      ExcNotSupported("gpumf::MatrixFree::cell_loop takes at most " +
                                      std::to_string(VectorPointers<Pointer>::max_size) +
                                      " source and destination vectors each; got " + std::to_string(vectors.size()) +
                                      "."));
          for (const auto *v : vectors)
            pointers.pointers[pointers.n++] = v->get_values();
          return pointers;
        }
    }
  } // namespace internal

  template <int dim, typename Number>
  template <typename Functor, typename SrcType, typename DstType, typename Compiler>
  void
  MatrixFree<dim, Number>::cell_loop(const Functor &func, const SrcType &src, DstType &dst, const bool zero_dst) const
  {
    scheduled_cell_loop(func, src, dst, zero_dst, {}, {});
  }

  template <int dim, typename Number>
  template <typename Functor,
            typename SrcType,
            typename DstType,
            typename OperationBefore,
            typename OperationAfter,
            typename Compiler,
            typename>
  void
  MatrixFree<dim, Number>::cell_loop(const Functor         &func,
                                     const SrcType         &src,
                                     DstType               &dst,
                                     const OperationBefore &operation_before_loop,
                                     const OperationAfter  &operation_after_loop,
                                     const unsigned int     dof_handler_index_pre_post) const
  {
    const std::size_t n = n_owned_entries(dof_handler_index_pre_post, "gpumf::MatrixFree::cell_loop");
    scheduled_cell_loop(func,
                        src,
                        dst,
                        false,
                        internal::loop_operation(
                          operation_before_loop, n, backend_, "gpumf::MatrixFree::cell_loop: operation_before_loop"),
                        internal::loop_operation(
                          operation_after_loop, n, backend_, "gpumf::MatrixFree::cell_loop: operation_after_loop"));
  }

  template <int dim, typename Number>
  template <typename Functor, typename SrcType, typename DstType>
  void
  MatrixFree<dim, Number>::scheduled_cell_loop(const Functor               &func,
                                               const SrcType               &src,
                                               DstType                     &dst,
                                               const bool                   zero_dst,
                                               const std::function<void()> &before,
                                               const std::function<void()> &after) const
  {
    constexpr bool single_src = std::is_same_v<SrcType, Vector<Number>>;
    constexpr bool single_dst = std::is_same_v<std::remove_const_t<DstType>, Vector<Number>>;
    constexpr bool block_src  = std::is_same_v<SrcType, BlockVector<Number>>;
    constexpr bool block_dst  = std::is_same_v<std::remove_const_t<DstType>, BlockVector<Number>>;
    // deal.II 9.7+'s form (data, src, dst) with DeviceVector or (9.8) DeviceBlockVector, or
    // 9.4/9.6's (cell, data, shared_data, src, dst)
    constexpr bool portable_single = internal::is_portable_cell_functor<dim, Number, Functor>;
    constexpr bool portable_block  = internal::is_portable_block_functor<dim, Number, Functor>;
    constexpr bool portable        = portable_single || portable_block;
    static_assert(!portable_single || (single_src && single_dst),
                  "gpumf::MatrixFree::cell_loop: a functor of deal.II 9.7's form operator()(const Data *, const "
                  "DeviceVector<Number> &src, DeviceVector<Number> &dst) takes one source and one destination "
                  "gpumf::Vector; for gpumf::BlockVector arguments write operator()(const Data *, const "
                  "DeviceBlockVector<Number> &src, DeviceBlockVector<Number> &dst).");
    static_assert(!portable_block || (block_src && block_dst),
                  "gpumf::MatrixFree::cell_loop: a functor of deal.II 9.8's block form operator()(const Data *, "
                  "const DeviceBlockVector<Number> &src, DeviceBlockVector<Number> &dst) takes a gpumf::BlockVector "
                  "as source and as destination.");
    static_assert(
      portable || block_src || // (checked at the call below)
        std::is_invocable_v<
          const Functor &,
          unsigned int,
          const Data *,
          SharedData<dim, Number> *,
          decltype(internal::functor_argument<false, single_src, const Number>(std::vector<const Vector<Number> *>())),
          decltype(internal::functor_argument<false, single_dst, Number>(std::vector<Vector<Number> *>()))> ||
        internal::FormsOf<
          dim,
          Number,
          Functor,
          decltype(internal::functor_argument<false, single_src, const Number>(std::vector<const Vector<Number> *>())),
          decltype(internal::functor_argument<false, single_dst, Number>(std::vector<Vector<Number> *>()))>::value > 1,
      "gpumf::MatrixFree::cell_loop: the functor takes neither of the cell functor forms. deal.II 9.7 "
      "and newer: operator()(const typename gpumf::Portable::MatrixFree<dim, Number>::Data *data, const "
      "gpumf::Portable::DeviceVector<Number> &src, gpumf::Portable::DeviceVector<Number> &dst) const; "
      "deal.II 9.4 to 9.6: operator()(unsigned int cell, const typename MatrixFree<dim, Number>::Data "
      "*data, SharedData<dim, Number> *shared_data, const Number *src, Number *dst) const (with several "
      "vectors: gpumf::VectorPointers<const Number> src, gpumf::VectorPointers<Number> dst). Mark it "
      "__host__ __device__.");
    check_functor(internal::Dofs1dOf<Functor>::value,
                  internal::LocalDofsOf<Functor>::value,
                  internal::QPointsOf<Functor>::value,
                  internal::DeclaredComponentsOf<Functor>::value);
    // the ranges, exchanges, stand-ins and unwinding: internal/loop_schedule.h. A vector with
    // this object's locally owned entries in another layout (deal.II's Vector(locally_owned,
    // comm), without ghosts) goes through a temporary of the object's layout, as in deal.II
    // 9.4's GPU cell_loop. Vectors of data per cell pass as they are; other layouts are
    // rejected (check_loop_vector()).
    std::vector<const Vector<Number> *> given_src;
    std::vector<Vector<Number> *>       given_dst;
    if constexpr (single_src)
      given_src.push_back(&src);
    else if constexpr (block_src)
      for (unsigned int b = 0; b < src.n_blocks(); ++b)
        given_src.push_back(&src.block(b));
    else
      for (const auto &v : src)
        given_src.push_back(internal::source_of<Number>(v));
    if constexpr (single_dst)
      given_dst.push_back(&dst);
    else if constexpr (block_dst)
      for (unsigned int b = 0; b < dst.n_blocks(); ++b)
        given_dst.push_back(&dst.block(b));
    else
      for (auto &v : dst)
        given_dst.push_back(internal::destination_of<Number>(v));
    // in place: a vector both source and destination, allowed where each cell touches only
    // its own entries (a discontinuous element without constraint lines, or data per cell)
    // (then every destination: the loop sends no contributions)
    bool in_place = false;
    for (const Vector<Number> *v : given_dst)
      in_place = in_place || std::find(given_src.begin(), given_src.end(), v) != given_src.end();
    for (const Vector<Number> *v : given_dst)
      if (in_place)
        {
          check_loop_vector(*v);
          const unsigned int k = dof_index_of(*v);
          if (k != dealii::numbers::invalid_unsigned_int)
            {
              const MatrixFree &part = dof_part(k);
              AssertThrow(part.discontinuous && !part.constraint_rows_on_any_rank,
                          ExcNotSupported(
                            "gpumf::MatrixFree::cell_loop: a destination vector is also a source (in place), but "
                            "the cells of destination DoFHandler " +
                            std::to_string(k) + " (" + part.active_fe->get_name() +
                            (part.discontinuous ? ", with constraint lines" : "") +
                            ") share DoFs: cells would read entries other cells have already written. In place "
                            "needs a discontinuous element (FE_DGQ and its relatives) without constraints; give "
                            "the result its own vector."));
            }
        }
    AssertThrow(!in_place || !zero_dst,
                ExcNotSupported("gpumf::MatrixFree::cell_loop: a destination vector is also a source (in place) "
                                "and zero_dst is true, which would set the source to zero before it is read. In "
                                "place, write the result with FEEvaluation::set_dof_values() and zero_dst false."));
    internal::LoopOptions options;
    options.layout             = partitioner;
    options.backend            = backend_;
    options.split              = true;
    options.overlap            = overlap;
    options.zero_destinations  = zero_dst;
    options.in_place           = in_place;
    options.send_contributions = !in_place;
    options.before             = before;
    options.after              = after;
    options.marks              = true;
    options.name               = "gpumf::MatrixFree::cell_loop";
    for (const auto &part : other_dof_parts)
      options.more_layouts.push_back(part->partitioner);
    internal::LoopSchedule<Number> schedule(options);
    for (const Vector<Number> *v : given_src)
      schedule.add_source(*v);
    for (Vector<Number> *v : given_dst)
      schedule.add_destination(*v);
    AssertThrow(!schedule.sources().empty() && !schedule.destinations().empty(),
                ExcNotSupported("gpumf::MatrixFree::cell_loop needs at least one source and one destination vector."));
    for (const Vector<Number> *v : schedule.sources())
      check_loop_vector(*v);
    for (const Vector<Number> *v : schedule.destinations())
      check_loop_vector(*v);
    const auto src_arg = internal::functor_argument<portable, single_src, const Number>(schedule.sources());
    const auto dst_arg = internal::functor_argument<portable, single_dst, Number>(schedule.destinations());
    static_assert(portable || !block_src ||
                    std::is_invocable_v<const Functor &,
                                        unsigned int,
                                        const Data *,
                                        SharedData<dim, Number> *,
                                        decltype(src_arg),
                                        decltype(dst_arg)>,
                  "gpumf::MatrixFree::cell_loop with gpumf::BlockVector arguments: the functor takes "
                  "operator()(const Data *, const Portable::DeviceBlockVector<Number> &src, "
                  "Portable::DeviceBlockVector<Number> &dst) (deal.II 9.8), or operator()(cell, data, shared_data, "
                  "gpumf::VectorPointers<const Number> src, gpumf::VectorPointers<Number> dst) (a pointer per block).");
    schedule.run([&](const CellRange range) {
      if (backend_ == Backend::host)
        internal::host_loop<dim, Number, Functor>(
          *this, range, [&](const unsigned int cell, const Data &data, SharedData<dim, Number> &shared) {
            internal::call_cell_functor<dim, Number>(func, cell, data, shared, src_arg, dst_arg);
          });
      else
        internal::cuda_cell_loop(*this, range, func, src_arg, dst_arg);
    });
  }

  template <int dim, typename Number>
  template <typename Functor, typename Compiler>
  void
  MatrixFree<dim, Number>::diagonal_loop(const Functor     &func,
                                         Vector<Number>    &diagonal,
                                         const unsigned int dof_index) const
  {
    check_functor(internal::Dofs1dOf<Functor>::value,
                  internal::LocalDofsOf<Functor>::value,
                  internal::QPointsOf<Functor>::value,
                  internal::DeclaredComponentsOf<Functor>::value);
    check_vector(diagonal, dof_index);
    const MatrixFree      &part = dof_part(dof_index);
    internal::SetupSection section("diagonal (MatrixFree::diagonal_loop)", backend_);
    internal::LoopOptions  options;
    options.layout  = part.partitioner;
    options.backend = backend_;
    options.name    = "gpumf::MatrixFree::diagonal_loop";
    internal::LoopSchedule<Number> schedule(options);
    Number                        *out           = schedule.add_destination(diagonal)->get_values();
    const unsigned int             dofs_per_cell = part.n_components_ * dealii::Utilities::pow(part.fe_degree + 1, dim);
    schedule.run([&](CellRange) {
      if (backend_ == Backend::host)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          internal::host_loop<dim, Number, Functor>(
            *this, CellRange::all, [&](const unsigned int cell, const Data &data, SharedData<dim, Number> &shared) {
              func(cell, &data, &shared, i, out);
            });
      else
        internal::cuda_diagonal_loop(*this, func, out, dofs_per_cell);
    });
  }

  template <int dim, typename Number>
  template <typename Functor, typename Compiler>
  void
  MatrixFree<dim, Number>::evaluate_coefficients(Functor func) const
  {
    check_functor(internal::Dofs1dOf<Functor>::value,
                  internal::LocalDofsOf<Functor>::value,
                  internal::QPointsOf<Functor>::value,
                  internal::DeclaredComponentsOf<Functor>::value);
    internal::SetupSection section("coefficients (MatrixFree::evaluate_coefficients)", backend_);
    if (backend_ == Backend::host)
      internal::host_loop<dim, Number, Functor>(
        *this, CellRange::all, [&](const unsigned int cell, const Data &data, SharedData<dim, Number> &) {
          internal::call_coefficient_functor<dim, Number>(func, cell, data);
        });
    else
      internal::cuda_evaluate_coefficients(*this, func);
  }

  template <int dim, typename Number>
  template <typename Functor, typename SrcType, typename Compiler>
  void
  MatrixFree<dim, Number>::evaluate_coefficients(const Functor &func, const SrcType &src) const
  {
    constexpr bool single_src = std::is_same_v<SrcType, Vector<Number>>;
    check_functor(internal::Dofs1dOf<Functor>::value,
                  internal::LocalDofsOf<Functor>::value,
                  internal::QPointsOf<Functor>::value,
                  internal::DeclaredComponentsOf<Functor>::value);
    // every cell may read ghost entries (read_dof_values_plain() reads constrained ghost DoFs
    // too): the ghosts of all sources first, then all cells (internal/loop_schedule.h). A vector
    // with this object's locally owned entries in another layout (no ghosts, say) is read
    // through a temporary of the object's layout, as in cell_loop().
    internal::LoopOptions options;
    options.layout  = partitioner;
    options.backend = backend_;
    options.name    = "gpumf::MatrixFree::evaluate_coefficients";
    for (const auto &part : other_dof_parts)
      options.more_layouts.push_back(part->partitioner);
    internal::LoopSchedule<Number> schedule(options);
    if constexpr (single_src)
      schedule.add_source(src);
    else
      for (const auto &v : src)
        schedule.add_source(*internal::source_of<Number>(v));
    AssertThrow(!schedule.sources().empty(),
                ExcNotSupported("gpumf::MatrixFree::evaluate_coefficients needs at least one source vector."));
    for (const Vector<Number> *v : schedule.sources())
      {
        const unsigned int k = dof_index_of(*v);
        check_vector(*v, k == dealii::numbers::invalid_unsigned_int ? 0 : k);
      }
    const auto src_arg = internal::functor_argument<false, single_src, const Number>(schedule.sources());
    schedule.run([&](CellRange) {
      if (backend_ == Backend::host)
        internal::host_loop<dim, Number, Functor>(
          *this, CellRange::all, [&](const unsigned int cell, const Data &data, SharedData<dim, Number> &shared) {
            func(cell, &data, &shared, src_arg);
          });
      else
        internal::cuda_source_loop(*this, func, src_arg);
    });
  }
} // namespace gpumf

#endif
