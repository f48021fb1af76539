/**
 * @file gpumf/internal/face_loop.h
 * MatrixFree::loop(): the cell-centric loop over cells and their faces, as a CUDA kernel
 * (compiled where the user's functors are compiled by nvcc) and on the host backend's
 * emulated threads. Each cell (one per CUDA block) runs the cell functor, then the face
 * functor of each of its faces in the order of the face numbers, with a barrier between two
 * functors; it adds into its own DoFs only.
 */
#ifndef gpumf_internal_face_loop_h
#define gpumf_internal_face_loop_h

#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/cell_loop.h>
#include <gpumf/internal/host_block.h>
#include <gpumf/matrix_free.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// A functor of loop() that is given (not nullptr).
    template <typename F>
    constexpr bool is_operation = !std::is_same_v<std::decay_t<F>, std::nullptr_t>;

    /// A loop of a boundary face functor alone: it runs the cells with a boundary face only.
    template <typename C, typename I, typename B>
    constexpr bool boundary_alone = !is_operation<C> && !is_operation<I> && is_operation<B>;

    /// The functor whose declarations (sizes, thread layout) the loop follows: the first given.
    template <typename C, typename I, typename B>
    using MainOperation = std::conditional_t<is_operation<C>, C, std::conditional_t<is_operation<I>, I, B>>;

    template <typename F>
    constexpr unsigned int
    evaluations_of()
    {
      if constexpr (is_operation<F>)
        return EvaluationsOf<F>::value;
      else
        return 0;
    }

    /// Per-cell scratch sizes of a loop() with these functors: n_slots sets of slot_stride Numbers.
    template <int dim, typename Number, typename C, typename I, typename B>
    struct LoopScratch
    {
      using Main                              = MainOperation<C, I, B>;
      static constexpr CellLayout<dim> layout = layout_of<dim, Main>();
      using Cell                              = Scratch<dim, Number, Main>;
      static constexpr unsigned int n_slots =
        std::max({evaluations_of<C>(), evaluations_of<I>(), evaluations_of<B>(), 1u});

      /// The Numbers a face evaluator needs (FEFaceEvaluation::scratch_size) for @p n_dofs_1d.
      static constexpr unsigned int
      face_numbers(const unsigned int n_dofs_1d)
      {
        return ComponentsOf<Main>::value * (ipow(n_dofs_1d, dim) + (dim + 5) * ipow(layout.n_q, dim - 1));
      }

      static constexpr unsigned int
      host_stride(const unsigned int n_dofs_1d)
      {
        return std::max(Cell::slot_stride, face_numbers(n_dofs_1d));
      }

      static constexpr unsigned int
      device_stride(const unsigned int n_dofs_1d)
      {
        return std::max(Cell::device_slot_stride, face_numbers(n_dofs_1d));
      }

      /// SharedData over the scratch at @p values: n_slots sets of @p stride Numbers.
      __host__ __device__ static SharedData<dim, Number>
               make(Number                                       *values,
                    const Number                                 *shape_values,
                    const Number                                 *co_shape_gradients,
                    const typename MatrixFree<dim, Number>::Data &data,
                    const unsigned int                            stride,
                    PointAccess                                  *host_access)
      {
        SharedData<dim, Number> shared = Cell::make(values, shape_values, co_shape_gradients, data, host_access);
        shared.n_slots                 = n_slots;
        shared.slot_stride             = stride;
        shared.face_loop               = true;
        return shared;
      }
    };

    /// The functors of one cell: the cell functor, then each face's, a barrier after each.
    template <int dim, typename Number, typename C, typename I, typename B, typename Barrier>
    __host__ __device__ void
    cell_and_faces(const C                                      &cell_op,
                   const I                                      &inner_op,
                   const B                                      &boundary_op,
                   const unsigned int                            cell,
                   const typename MatrixFree<dim, Number>::Data &data,
                   const SharedData<dim, Number>                &shared,
                   const Number                                 *src,
                   Number                                       *dst,
                   const Barrier                                &barrier)
    {
      if constexpr (is_operation<C>)
        {
          SharedData<dim, Number> s = shared;
          cell_op(cell, &data, &s, src, dst);
          barrier();
        }
      if constexpr (is_operation<I> || is_operation<B>)
        {
          // the cell's faces (FaceData: 2 dim, more where finer neighbours meet a face)
          const unsigned int r     = data.row_start + cell;
          const unsigned int begin = read_only(data.faces.cell_face_start + r);
          const unsigned int end   = read_only(data.faces.cell_face_start + r + 1);
          for (unsigned int k = begin; k < end; ++k)
            {
              const bool boundary =
                read_only(data.faces.entry_neighbor_first_dof + k) == FaceData<dim, Number>::no_neighbor;
              SharedData<dim, Number> s = shared;
              s.face                    = k;
              if (boundary)
                {
                  if constexpr (is_operation<B>)
                    boundary_op(k, &data, &s, src, dst);
                }
              else
                {
                  if constexpr (is_operation<I>)
                    inner_op(k, &data, &s, src, dst);
                }
              barrier();
            }
        }
    }

#ifdef __CUDACC__
    inline namespace nvcc_compiled
    {
      template <int dim, typename Number, typename C, typename I, typename B>
      __global__ void
      __launch_bounds__(LoopScratch<dim, Number, C, I, B>::layout.n_threads())
        face_loop_kernel(const C                                      cell_op,
                         const I                                      inner_op,
                         const B                                      boundary_op,
                         const Number                                *src,
                         Number                                      *dst,
                         const unsigned int                           stride,
                         const unsigned int                           n_unit_dofs,
                         const unsigned int                          *cell_list,
                         const typename MatrixFree<dim, Number>::Data data)
      {
        using S                     = LoopScratch<dim, Number, C, I, B>;
        Number            *tables   = stage_tables<dim, Number>(data);
        const unsigned int n_values = data.n_q_points_1d * data.n_dofs_1d;
        const unsigned int n_co     = data.n_q_points_1d * data.n_q_points_1d;
        // (a boundary face functor alone: the color's cells with a boundary face, as rows)
        const unsigned int cell =
          cell_list == nullptr ? blockIdx.x : read_only(cell_list + blockIdx.x) - data.row_start;
        SharedData<dim, Number> shared =
          S::make(tables + n_values + n_co, tables, tables + n_values, data, stride, nullptr);
        shared.cell = cell;
        if (n_unit_dofs == 0)
          cell_and_faces<dim, Number>(cell_op, inner_op, boundary_op, cell, data, shared, src, dst, []() {
            __syncthreads();
          });
        else
          // loop_diagonal(): the operator on each unit vector of the cell in turn
          for (unsigned int i = 0; i < n_unit_dofs; ++i)
            {
              shared.unit_dof = i;
              cell_and_faces<dim, Number>(cell_op, inner_op, boundary_op, cell, data, shared, src, dst, []() {
                __syncthreads();
              });
            }
      }

      template <int dim, typename Number, typename C, typename I, typename B>
      void
      cuda_face_loop(const MatrixFree<dim, Number> &mf,
                     const C                       &cell_op,
                     const I                       &inner_op,
                     const B                       &boundary_op,
                     const Number                  *src,
                     Number                        *dst,
                     const unsigned char            ghost_access,
                     const unsigned int             n_unit_dofs)
      {
        using S                      = LoopScratch<dim, Number, C, I, B>;
        const unsigned int n_dofs_1d = mf.get_data(0).n_dofs_1d;
        const unsigned int stride    = S::device_stride(n_dofs_1d);
        const std::size_t  shared_bytes =
          mf.shared_memory_per_block_for(0, 1) + std::size_t(S::n_slots) * stride * sizeof(Number);
        const auto kernel = face_loop_kernel<dim, Number, C, I, B>;
        if (shared_bytes > 48 * 1024)
          GPUMF_CHECK_CUDA(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
        constexpr CellLayout<dim> layout = S::layout;
        for (unsigned int color = 0; color < mf.n_colors(); ++color)
          {
            typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
            const unsigned int                    *list = nullptr;
            unsigned int                           n    = data.n_cells;
            if constexpr (boundary_alone<C, I, B>)
              {
                const auto [first, count] = mf.cells_with_boundary_faces(color);
                list                      = data.faces.boundary_cells + first;
                n                         = count;
              }
            if (n == 0)
              continue;
            data.cells_per_block    = 1;
            data.faces.ghost_access = ghost_access;
            kernel<<<n, dim3(layout.n_q, dim > 1 ? layout.n_q : 1, layout.block_z()), shared_bytes>>>(
              cell_op, inner_op, boundary_op, src, dst, stride, n_unit_dofs, list, data);
            GPUMF_CHECK_CUDA(cudaGetLastError());
          }
      }
    } // namespace nvcc_compiled
#else
    inline namespace host_compiled
    {
      template <int dim, typename Number, typename C, typename I, typename B>
      void
      cuda_face_loop(const MatrixFree<dim, Number> &,
                     const C &,
                     const I &,
                     const B &,
                     const Number *,
                     Number *,
                     const unsigned char,
                     const unsigned int)
      {
        throw_not_compiled_by_nvcc();
      }
    } // namespace host_compiled
#endif

    /// loop() on the host backend: every cell on the emulated threads of the functors' layout.
    /// With @p n_unit_dofs > 0 (loop_diagonal()) each cell runs them once per unit vector.
    template <int dim, typename Number, typename C, typename I, typename B>
    void
    host_face_loop(const MatrixFree<dim, Number> &mf,
                   const C                       &cell_op,
                   const I                       &inner_op,
                   const B                       &boundary_op,
                   const Number                  *src,
                   Number                        *dst,
                   const unsigned char            ghost_access,
                   const unsigned int             n_unit_dofs)
    {
      using S = LoopScratch<dim, Number, C, I, B>;
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
          data.faces.ghost_access                     = ghost_access;
          const unsigned int       stride             = S::host_stride(data.n_dofs_1d);
          std::vector<Number>      buffer(S::n_slots * stride);
          std::vector<PointAccess> access(S::n_slots * 2 * S::Cell::size);
          host_block_z() = S::layout.block_z();
          // (a boundary face functor alone: the color's cells with a boundary face)
          std::pair<unsigned int, unsigned int> range{0, data.n_cells};
          if constexpr (boundary_alone<C, I, B>)
            range = mf.cells_with_boundary_faces(color);
          const unsigned int *list = boundary_alone<C, I, B> ? data.faces.boundary_cells + range.first : nullptr;
          run_host_block(S::layout.n_threads(), S::layout.n_q, range.second, [&](const unsigned int k) {
            const unsigned int      cell = list == nullptr ? k : list[k] - data.row_start;
            SharedData<dim, Number> shared =
              S::make(buffer.data(), data.shape_values, data.co_shape_gradients, data, stride, access.data());
            shared.cell = cell;
            for (unsigned int i = 0; i < std::max(n_unit_dofs, 1u); ++i)
              {
                if (n_unit_dofs > 0)
                  shared.unit_dof = i;
                cell_and_faces<dim, Number>(cell_op, inner_op, boundary_op, cell, data, shared, src, dst, []() {
                  host_barrier();
                });
              }
          });
        }
    }

    /// The cells and faces of every color on @p mf's backend: host_face_loop() or cuda_face_loop().
    template <int dim, typename Number, typename C, typename I, typename B>
    void
    face_loop_on_backend(const MatrixFree<dim, Number> &mf,
                         const C                       &cell_op,
                         const I                       &inner_op,
                         const B                       &boundary_op,
                         const Number                  *src,
                         Number                        *dst,
                         const unsigned char            ghost_access,
                         const unsigned int             n_unit_dofs)
    {
      if (mf.backend() == Backend::host)
        host_face_loop(mf, cell_op, inner_op, boundary_op, src, dst, ghost_access, n_unit_dofs);
      else
        cuda_face_loop(mf, cell_op, inner_op, boundary_op, src, dst, ghost_access, n_unit_dofs);
    }

    /**
     * Runs @p run(ghost_access) in the schedule of the face loops (internal/loop_schedule.h):
     * @p dst (not null) set to zero first where @p zero_dst (its ghost entries are not touched:
     * each cell writes its own DoFs), the ghost entries of @p src (not null) that @p mf's face
     * functors read for @p src_access exchanged (MatrixFree::face_ghost_subset(): only those
     * travel; all for unspecified; none for none) and zeroed again after, also when @p run
     * throws. @p ghost_access (FaceData::ghost_access) says what the functors may read of the
     * ghost cells: loop(), loop_diagonal() and the fused face kernels.
     */
    template <int dim, typename Number, typename Access, typename Run>
    void
    run_face_loop(const MatrixFree<dim, Number> &mf,
                  Vector<Number>                *dst,
                  const bool                     zero_dst,
                  const Vector<Number>          *src,
                  const Access                   src_access,
                  const Run                     &run,
                  const std::function<void()>   &before = {},
                  const std::function<void()>   &after  = {})
    {
      using F                    = FaceData<dim, Number>;
      unsigned char ghost_access = F::ghosts_gradients;
      if (src != nullptr && src->get_partitioner()->n_ghost_indices() > 0 && !src->has_ghost_elements())
        ghost_access = src_access == Access::none                                             ? F::ghosts_none :
                       src_access == Access::values || src_access == Access::values_all_faces ? F::ghosts_values :
                                                                                                F::ghosts_gradients;
      // a continuous element: the cells read and write DoFs of other ranks themselves (their
      // ghost entries travel in every loop, the contributions are sent after it)
      const bool  continuous = mf.has_continuous_faces();
      LoopOptions options;
      options.layout             = mf.get_vector_partitioner();
      options.backend            = mf.backend();
      options.zero_destinations  = zero_dst;
      options.send_contributions = continuous;
      options.name               = "gpumf::MatrixFree::loop";
      options.before             = before;
      options.after              = after;
      const bool exchange        = src != nullptr && (src_access != Access::none || continuous);
      if (exchange)
        options.ghost_subset = mf.face_ghost_subset(src_access);
      LoopSchedule<Number> schedule(options);
      if (exchange)
        schedule.add_source(*src);
      if (dst != nullptr)
        schedule.add_destination(*dst);
      schedule.run([&](LoopRange) { run(ghost_access); });
    }

    /// Throws unless @p dst and @p src are two vectors of @p mf's layout (the face loops read
    /// neighbours' entries of src while writing dst): loop() and the fused face kernels.
    template <int dim, typename Number>
    void
    check_face_loop_vectors(const MatrixFree<dim, Number> &mf, const Vector<Number> &dst, const Vector<Number> &src)
    {
      AssertThrow(&dst != &src,
                  ExcNotSupported("gpumf::MatrixFree::loop: dst and src are the same vector; cells would read entries "
                                  "their neighbors have already written."));
      mf.check_vector(src);
      mf.check_vector(dst);
    }

    /// Throws unless the given functors agree on the thread layout.
    template <typename Main, typename F>
    constexpr bool
    same_layout()
    {
      if constexpr (is_operation<F>)
        return F::n_q_points == Main::n_q_points && ColumnsOf<F>::value == ColumnsOf<Main>::value &&
               ComponentsOf<F>::value == ComponentsOf<Main>::value;
      else
        return true;
    }
  } // namespace internal

  template <int dim, typename Number>
  template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor>
  void
  MatrixFree<dim, Number>::check_face_loop() const
  {
    using Main = internal::MainOperation<CellFunctor, InnerFaceFunctor, BoundaryFaceFunctor>;
    static_assert(internal::is_operation<Main>, "gpumf::MatrixFree::loop needs at least one functor (not nullptr).");
    static_assert(internal::same_layout<Main, CellFunctor>() && internal::same_layout<Main, InnerFaceFunctor>() &&
                    internal::same_layout<Main, BoundaryFaceFunctor>(),
                  "gpumf::MatrixFree::loop: the cell and face functors must declare the same n_q_points, "
                  "n_components and thread_per_column (one thread layout runs them all).");
    check_functor(internal::Dofs1dOf<Main>::value,
                  internal::LocalDofsOf<Main>::value,
                  internal::QPointsOf<Main>::value,
                  internal::ComponentsOf<Main>::value);
    AssertThrow(internal::QPointsOf<Main>::value == n_q_points(0),
                ExcNotSupported("gpumf::MatrixFree::loop runs on quadrature 0 (the faces' quadrature), of " +
                                std::to_string(n_q_points(0)) + " points per cell; the functors declare n_q_points = " +
                                std::to_string(internal::QPointsOf<Main>::value) +
                                ". The other quadratures serve cell_loop()."));
    AssertThrow(face_arrays.available ||
                  (!internal::is_operation<InnerFaceFunctor> && !internal::is_operation<BoundaryFaceFunctor>),
                ExcNotSupported("gpumf::MatrixFree::loop with face functors, but reinit() set up no faces: set "
                                "AdditionalData::mapping_update_flags_inner_faces and "
                                "mapping_update_flags_boundary_faces (e.g. update_gradients | update_JxW_values | "
                                "update_normal_vectors) before reinit()."));
    AssertThrow(strategy == ConflictStrategy::none || face_arrays.continuous,
                ExcNotSupported("gpumf::MatrixFree::loop is cell-centric and needs cells that share no DoFs or a "
                                "continuous element with faces (FE_Q); a discontinuous element with constraint rows "
                                "is not supported."));
    if (backend_ == Backend::cuda)
      {
        using S = internal::LoopScratch<dim, Number, CellFunctor, InnerFaceFunctor, BoundaryFaceFunctor>;
        const std::size_t needed = shared_memory_per_block_for(0, 1) +
                                   std::size_t(S::n_slots) * S::device_stride(fe_degree + 1) * sizeof(Number);
        AssertThrow(needed <= max_shared_memory,
                    ExcNotSupported("gpumf::MatrixFree::loop: a cell with its face evaluators needs " +
                                    std::to_string(needed) + " bytes of shared memory (" + std::to_string(S::n_slots) +
                                    " evaluators); the GPU offers " + std::to_string(max_shared_memory) +
                                    " per block. Use a lower degree, fewer components or fewer evaluators alive at "
                                    "once."));
      }
  }

  template <int dim, typename Number>
  template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor, typename Compiler>
  void
  MatrixFree<dim, Number>::loop_diagonal(const CellFunctor         &cell_op,
                                         const InnerFaceFunctor    &inner_face_op,
                                         const BoundaryFaceFunctor &boundary_face_op,
                                         Vector<Number>            &diagonal) const
  {
    check_face_loop<CellFunctor, InnerFaceFunctor, BoundaryFaceFunctor>();
    AssertThrow(!face_arrays.continuous || !internal::is_operation<InnerFaceFunctor>,
                ExcNotSupported(
                  "gpumf::MatrixFree::loop_diagonal with an inner face functor on the continuous element "
                  "of this object: the diagonal of a face term that couples the two sides of a shared DoF "
                  "is not computed by unit vectors of one cell. Supported: cell and boundary face "
                  "functors (pass nullptr as the inner face functor), or a discontinuous element."));
    check_vector(diagonal);
    internal::SetupSection section("diagonal (MatrixFree::loop_diagonal)", backend_);
    const unsigned int     dofs_per_cell = n_components_ * dealii::Utilities::pow(fe_degree + 1, dim);
    // the unit vectors are read in place of a source: no ghost values are needed
    const Number *no_source = nullptr;
    internal::run_face_loop(*this,
                            &diagonal,
                            false,
                            static_cast<const Vector<Number> *>(nullptr),
                            DataAccessOnFaces::none,
                            [&](const unsigned char ghost_access) {
                              internal::face_loop_on_backend(*this,
                                                             cell_op,
                                                             inner_face_op,
                                                             boundary_face_op,
                                                             no_source,
                                                             diagonal.get_values(),
                                                             ghost_access,
                                                             dofs_per_cell);
                            });
  }

  template <int dim, typename Number>
  template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor, typename Compiler>
  void
  MatrixFree<dim, Number>::loop(const CellFunctor         &cell_op,
                                const InnerFaceFunctor    &inner_face_op,
                                const BoundaryFaceFunctor &boundary_face_op,
                                Vector<Number>            &dst,
                                const Vector<Number>      &src,
                                const bool                 zero_dst,
                                const DataAccessOnFaces    dst_access,
                                const DataAccessOnFaces    src_access) const
  {
    (void)dst_access;
    scheduled_loop(cell_op, inner_face_op, boundary_face_op, dst, src, zero_dst, src_access, {}, {});
  }

  template <int dim, typename Number>
  template <typename CellFunctor,
            typename InnerFaceFunctor,
            typename BoundaryFaceFunctor,
            typename OperationBefore,
            typename OperationAfter,
            typename Compiler,
            typename>
  void
  MatrixFree<dim, Number>::loop(const CellFunctor         &cell_op,
                                const InnerFaceFunctor    &inner_face_op,
                                const BoundaryFaceFunctor &boundary_face_op,
                                Vector<Number>            &dst,
                                const Vector<Number>      &src,
                                const OperationBefore     &operation_before_loop,
                                const OperationAfter      &operation_after_loop,
                                const unsigned int         dof_handler_index_pre_post,
                                const DataAccessOnFaces    dst_access,
                                const DataAccessOnFaces    src_access) const
  {
    (void)dst_access;
    const std::size_t n = n_owned_entries(dof_handler_index_pre_post, "gpumf::MatrixFree::loop");
    scheduled_loop(
      cell_op,
      inner_face_op,
      boundary_face_op,
      dst,
      src,
      false,
      src_access,
      internal::loop_operation(operation_before_loop, n, backend_, "gpumf::MatrixFree::loop: operation_before_loop"),
      internal::loop_operation(operation_after_loop, n, backend_, "gpumf::MatrixFree::loop: operation_after_loop"));
  }

  template <int dim, typename Number>
  template <typename CellFunctor, typename InnerFaceFunctor, typename BoundaryFaceFunctor>
  void
  MatrixFree<dim, Number>::scheduled_loop(const CellFunctor           &cell_op,
                                          const InnerFaceFunctor      &inner_face_op,
                                          const BoundaryFaceFunctor   &boundary_face_op,
                                          Vector<Number>              &dst,
                                          const Vector<Number>        &src,
                                          const bool                   zero_dst,
                                          const DataAccessOnFaces      src_access,
                                          const std::function<void()> &before,
                                          const std::function<void()> &after) const
  {
    check_face_loop<CellFunctor, InnerFaceFunctor, BoundaryFaceFunctor>();
    internal::check_face_loop_vectors(*this, dst, src);
    internal::run_face_loop(
      *this,
      &dst,
      zero_dst,
      &src,
      src_access,
      [&](const unsigned char ghost_access) {
        internal::face_loop_on_backend(
          *this, cell_op, inner_face_op, boundary_face_op, src.get_values(), dst.get_values(), ghost_access, 0);
      },
      before,
      after);
  }
} // namespace gpumf

#endif
