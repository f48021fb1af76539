/**
 * @file gpumf/internal/cell_loop.h
 * The loops behind MatrixFree::cell_loop() and evaluate_coefficients(): CUDA kernels
 * (compiled where the user's functor is compiled by nvcc) and the host reference.
 *
 * Host reference: the functor is written for one thread per point, so the host runs it
 * once per (cell, point), setting internal::host_point_index() in place of threadIdx.
 * FEEvaluation's collective steps run on one emulated thread: reading and evaluating on
 * point 0 (which runs first), integrating and writing on the last point (which runs after
 * every point has submitted its values).
 */
#ifndef gpumf_internal_cell_loop_h
#define gpumf_internal_cell_loop_h

#include <gpumf/matrix_free.h>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>
#endif

namespace gpumf
{
  namespace internal
  {
    /// Shared-memory layout of one cell on the GPU, in Numbers:
    /// [shape_values n*n | co_shape_gradients n*n | values n^dim | gradients dim*n^dim]
    template <int dim>
    constexpr unsigned int
    shared_memory_entries(const unsigned int n_points_1d, const unsigned int n_points)
    {
      return 2 * n_points_1d * n_points_1d + (dim + 1) * n_points;
    }

    template <int dim, typename Number, typename Functor>
    void
    host_cell_loop(const MatrixFree<dim, Number> &mf, const Functor &func, const Number *src, Number *dst)
    {
      constexpr unsigned int n_points = Functor::n_q_points;
      std::vector<Number>    buffer((dim + 2) * n_points);
      Number *               gradients[dim];
      for (unsigned int d = 0; d < dim; ++d)
        gradients[d] = buffer.data() + (d + 1) * n_points;
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          const typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
          for (unsigned int cell = 0; cell < data.n_cells; ++cell)
            {
              SharedData<dim, Number> shared(buffer.data(), gradients);
              shared.shape_values       = data.shape_values;
              shared.shape_gradients    = data.shape_gradients;
              shared.co_shape_gradients = data.co_shape_gradients;
              shared.dof_values         = buffer.data() + (dim + 1) * n_points;
              for (unsigned int point = 0; point < n_points; ++point)
                {
                  host_point_index() = point;
                  func(cell, &data, &shared, src, dst);
                }
            }
        }
    }

    template <int dim, typename Number, typename Functor>
    void
    host_evaluate_coefficients(const MatrixFree<dim, Number> &mf, Functor &func)
    {
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          const typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
          for (unsigned int cell = 0; cell < data.n_cells; ++cell)
            for (unsigned int point = 0; point < Functor::n_q_points; ++point)
              {
                host_point_index() = point;
                func(cell, &data);
              }
        }
    }

#ifdef __CUDACC__
    /// One block per cell, one thread per point; the 1D tables are staged in shared memory.
    /// The launch bound makes the compiler fit (fe_degree+1)^dim threads in a block's registers.
    template <int dim, typename Number, typename Functor>
    __global__ void __launch_bounds__(Functor::n_q_points)
    cell_kernel(Functor func, const typename MatrixFree<dim, Number>::Data data, const Number *src, Number *dst)
    {
      constexpr unsigned int n = Functor::n_dofs_1d;
      constexpr unsigned int n_points = Functor::n_q_points;
      extern __shared__ __align__(16) unsigned char shared_memory[];
      Number *     tables = reinterpret_cast<Number *>(shared_memory);
      Number *     values = tables + 2 * n * n;
      Number *     gradients[dim];
      for (unsigned int d = 0; d < dim; ++d)
        gradients[d] = values + (d + 1) * n_points;
      const unsigned int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
      for (unsigned int i = thread; i < n * n; i += blockDim.x * blockDim.y * blockDim.z)
        {
          tables[i]         = data.shape_values[i];
          tables[n * n + i] = data.co_shape_gradients[i];
        }
      __syncthreads();
      SharedData<dim, Number> shared(values, gradients);
      shared.shape_values       = tables;
      shared.shape_gradients    = data.shape_gradients;
      shared.co_shape_gradients = tables + n * n;
      func(blockIdx.x, &data, &shared, src, dst);
    }

    template <int dim, typename Number, typename Functor>
    __global__ void __launch_bounds__(Functor::n_q_points)
    coefficient_kernel(Functor func, const typename MatrixFree<dim, Number>::Data data)
    {
      func(blockIdx.x, &data);
    }

    template <int dim, unsigned int n>
    dim3
    block_of_cell()
    {
      return dim3(n, n, dim == 3 ? n : 1);
    }

    template <int dim, typename Number, typename Functor>
    void
    cuda_cell_loop(const MatrixFree<dim, Number> &mf, const Functor &func, const Number *src, Number *dst)
    {
      constexpr unsigned int n = Functor::n_dofs_1d;
      const std::size_t      shared_bytes =
        shared_memory_entries<dim>(n, Functor::n_q_points) * sizeof(Number);
      if (shared_bytes > 48 * 1024)
        GPUMF_CHECK_CUDA(cudaFuncSetAttribute(cell_kernel<dim, Number, Functor>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared_bytes)));
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          const typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
          if (data.n_cells == 0)
            continue;
          cell_kernel<dim, Number, Functor>
            <<<data.n_cells, block_of_cell<dim, n>(), shared_bytes>>>(func, data, src, dst);
          GPUMF_CHECK_CUDA(cudaGetLastError());
        }
    }

    template <int dim, typename Number, typename Functor>
    void
    cuda_evaluate_coefficients(const MatrixFree<dim, Number> &mf, const Functor &func)
    {
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        {
          const typename MatrixFree<dim, Number>::Data data = mf.get_data(color);
          if (data.n_cells == 0)
            continue;
          coefficient_kernel<dim, Number, Functor>
            <<<data.n_cells, block_of_cell<dim, Functor::n_dofs_1d>()>>>(func, data);
          GPUMF_CHECK_CUDA(cudaGetLastError());
        }
    }
#else
    [[noreturn]] inline void
    throw_not_compiled_by_nvcc()
    {
      AssertThrow(false,
                  ExcNotSupported("This MatrixFree object uses the CUDA backend, but the functor was "
                                  "compiled by a host compiler. Compile it in a .cu file with nvcc, or "
                                  "use the host backend (GPUMF_BACKEND=host)."));
      throw;
    }

    template <int dim, typename Number, typename Functor>
    void
    cuda_cell_loop(const MatrixFree<dim, Number> &, const Functor &, const Number *, Number *)
    {
      throw_not_compiled_by_nvcc();
    }

    template <int dim, typename Number, typename Functor>
    void
    cuda_evaluate_coefficients(const MatrixFree<dim, Number> &, const Functor &)
    {
      throw_not_compiled_by_nvcc();
    }
#endif
  } // namespace internal

  template <int dim, typename Number>
  template <typename Functor, typename VectorType>
  void
  MatrixFree<dim, Number>::cell_loop(const Functor &func, const VectorType &src, VectorType &dst) const
  {
    static_assert(std::is_same<VectorType, Vector<Number>>::value,
                  "gpumf::MatrixFree<dim, Number>::cell_loop works on gpumf::Vector<Number>.");
    check_functor(Functor::n_dofs_1d, Functor::n_local_dofs, Functor::n_q_points);
    check_vector(src);
    check_vector(dst);
    const bool src_had_ghosts = src.has_ghost_elements();
    if (!src_had_ghosts)
      src.update_ghost_values();
    dst.zero_out_ghost_values();
    if (backend_ == Backend::host)
      internal::host_cell_loop(*this, func, src.get_values(), dst.get_values());
    else
      internal::cuda_cell_loop(*this, func, src.get_values(), dst.get_values());
    dst.compress(dealii::VectorOperation::add);
    if (!src_had_ghosts)
      src.zero_out_ghost_values();
  }

  template <int dim, typename Number>
  template <typename Functor>
  void
  MatrixFree<dim, Number>::evaluate_coefficients(Functor func) const
  {
    check_functor(Functor::n_dofs_1d, Functor::n_local_dofs, Functor::n_q_points);
    if (backend_ == Backend::host)
      internal::host_evaluate_coefficients(*this, func);
    else
      internal::cuda_evaluate_coefficients(*this, func);
  }
} // namespace gpumf

#endif
