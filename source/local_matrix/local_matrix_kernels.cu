// CUDA kernels of gpumf::LocalMatrixOperator: dense element matrices applied per cell, stored or
// computed on the fly (local_matrix_kernels.h), a thread, a warp or a block per cell.
#include <gpumf/internal/cuda_check.h>

#include "local_matrix/local_matrix_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int max_thread_per_element = 64;

        /// The element matrix of a cell: stored (A), or computed on the fly (A null; the cell's factors).
        template <typename Number>
        struct CellMatrix
        {
          const Number *A;
          unsigned int  cell;
          Number        factors[OnTheFly<Number>::max_terms];
        };

        template <typename Number>
        __device__ CellMatrix<Number>
                   matrix_of(const LocalMatrixLaunch<Number> &l, const unsigned int cell)
        {
          CellMatrix<Number> m;
          m.cell = cell;
          m.A    = l.matrices == nullptr ? nullptr :
                                           (l.shared_matrix ? l.matrices : l.matrices + std::size_t(cell) * l.n * l.n);
          if (m.A == nullptr)
            on_the_fly_factors(l.on_the_fly, cell, m.factors);
          return m;
        }

        template <typename Number>
        __device__ Number
        entry(const LocalMatrixLaunch<Number> &l,
              const CellMatrix<Number>        &m,
              const unsigned int               i,
              const unsigned int               j)
        {
          const unsigned int r = l.transpose ? j : i, c = l.transpose ? i : j;
          if (m.A == nullptr)
            return on_the_fly_entry(l.on_the_fly, m.cell, m.factors, r, c);
          return __ldg(&m.A[r * l.n + c]);
        }

        template <typename Number>
        __device__ void
        add(const LocalMatrixLaunch<Number> &l, Number *dst, const unsigned int index, const Number value)
        {
          if (index == no_dof)
            return;
          if (l.atomic)
            atomicAdd(&dst[index], value);
          else
            dst[index] += value;
        }

        /// Row i of the element matrix times v.
        template <typename Number>
        __device__ Number
        row(const LocalMatrixLaunch<Number> &l, const CellMatrix<Number> &A, const unsigned int i, const Number *v)
        {
          const OnTheFly<Number> &f = l.on_the_fly;
          if (A.A == nullptr && f.affine)
            {
              // on the fly, affine: the entries of the row's component from the reference matrices
              // (symmetric: the row of A is its column), without the index arithmetic of entry()
              constexpr unsigned int max_terms = OnTheFly<Number>::max_terms;
              const unsigned int     ns = f.n_scalar, component = i / ns, n_terms = 1 + f.dim * (f.dim + 1) / 2;
              const std::size_t      n2  = std::size_t(ns) * ns;
              const Number          *r   = f.reference + (i - component * ns);
              const Number          *vc  = v + component * ns;
              Number                 sum = 0;
              for (unsigned int j = 0; j < ns; ++j, r += ns)
                {
                  Number a = 0;
#pragma unroll
                  for (unsigned int t = 0; t < max_terms; ++t)
                    if (t < n_terms)
                      a += A.factors[t] * __ldg(r + t * n2);
                  sum += a * vc[j];
                }
              return sum;
            }
          Number sum = 0;
          for (unsigned int j = 0; j < l.n; ++j)
            sum += entry(l, A, i, j) * v[j];
          return sum;
        }

        /// The diagonal of C^T A C for a cell with constraint rows, serially.
        template <typename Number>
        __device__ void
        constrained_diagonal(const LocalMatrixLaunch<Number> &l,
                             const unsigned int              *codes,
                             const CellMatrix<Number>        &A,
                             Number                          *dst)
        {
          for (unsigned int j = 0; j < l.n; ++j)
            distribute_diagonal_column<Number>(
              j,
              l.n,
              [&](const unsigned int k) { return codes[k]; },
              [&](const unsigned int k) { return entry(l, A, k, j); },
              l.rows,
              [&](const unsigned int index, const Number value) { add(l, dst, index, value); });
        }

        template <typename Number>
        __global__ void
        thread_per_element_kernel(const LocalMatrixLaunch<Number> l, const Number *src, Number *dst)
        {
          const unsigned int cell = l.first_cell + blockIdx.x * blockDim.x + threadIdx.x;
          if (cell >= l.first_cell + l.n_cells)
            return;
          const unsigned int      *codes = l.local_to_global + std::size_t(cell) * l.n;
          const CellMatrix<Number> A     = matrix_of(l, cell);
          const auto add_to = [&](const unsigned int index, const Number value) { add(l, dst, index, value); };
          if (l.diagonal_only)
            {
              if (l.has_rows && l.cell_has_rows[cell])
                constrained_diagonal(l, codes, A, dst);
              else
                for (unsigned int i = 0; i < l.n; ++i)
                  add_to(codes[i], entry(l, A, i, i));
              return;
            }
          Number v[max_thread_per_element];
          for (unsigned int j = 0; j < l.n; ++j)
            v[j] = read_dof(src, codes[j], l.rows);
          for (unsigned int i = 0; i < l.n; ++i)
            distribute_dof(codes[i], row(l, A, i, v), l.rows, add_to);
        }

        /// One cell by @p stride threads (this one: @p t), a row each and more rows per thread
        /// beyond @p stride; the cell's vector @p v and result @p y in shared memory; @p sync the
        /// barrier of the threads. Without atomics, the rows of a cell's constrained DoFs are added
        /// by one thread after a barrier: two DoFs of a cell may share a master.
        template <typename Number, typename Sync>
        __device__ void
        cell_by_threads(const LocalMatrixLaunch<Number> &l,
                        const unsigned int               cell,
                        const unsigned int               t,
                        const unsigned int               stride,
                        Number                          *v,
                        Number                          *y,
                        const Number                    *src,
                        Number                          *dst,
                        const Sync                      &sync)
        {
          const unsigned int      *codes = l.local_to_global + std::size_t(cell) * l.n;
          const CellMatrix<Number> A     = matrix_of(l, cell);
          const bool               rows  = l.has_rows && l.cell_has_rows[cell];
          const auto add_to = [&](const unsigned int index, const Number value) { add(l, dst, index, value); };
          if (l.diagonal_only)
            {
              if (!rows)
                for (unsigned int i = t; i < l.n; i += stride)
                  add_to(codes[i], entry(l, A, i, i));
              else if (t == 0)
                constrained_diagonal(l, codes, A, dst);
              return;
            }
          for (unsigned int i = t; i < l.n; i += stride)
            v[i] = read_dof(src, codes[i], l.rows);
          sync();
          for (unsigned int i = t; i < l.n; i += stride)
            {
              y[i] = row(l, A, i, v);
              if (l.atomic || !is_constraint_row(codes[i]))
                distribute_dof(codes[i], y[i], l.rows, add_to);
            }
          if (!l.atomic && rows)
            {
              sync();
              if (t == 0)
                for (unsigned int k = 0; k < l.n; ++k)
                  if (is_constraint_row(codes[k]))
                    distribute_dof(codes[k], y[k], l.rows, add_to);
            }
        }

        /// A block per cell, a thread per row.
        template <typename Number>
        __global__ void
        block_per_element_kernel(const LocalMatrixLaunch<Number> l, const Number *src, Number *dst)
        {
          extern __shared__ __align__(16) unsigned char shared_memory[];
          Number                                       *v = reinterpret_cast<Number *>(shared_memory);
          cell_by_threads(l, l.first_cell + blockIdx.x, threadIdx.x, blockDim.x, v, v + l.n, src, dst, [] {
            __syncthreads();
          });
        }

        constexpr unsigned int warp_cells_per_block = 4;

        /// A warp per cell (warp_cells_per_block per block), a lane per row, rows lane, lane + 32, ...
        template <typename Number>
        __global__ void __launch_bounds__(32 * warp_cells_per_block)
          warp_per_element_kernel(const LocalMatrixLaunch<Number> l, const Number *src, Number *dst)
        {
          extern __shared__ __align__(16) unsigned char shared_memory[];
          const unsigned int warp = threadIdx.x / 32, offset = blockIdx.x * warp_cells_per_block + warp;
          if (offset >= l.n_cells)
            return; // the whole warp
          Number *v = reinterpret_cast<Number *>(shared_memory) + 2 * warp * l.n;
          cell_by_threads(l, l.first_cell + offset, threadIdx.x % 32, 32u, v, v + l.n, src, dst, [] { __syncwarp(); });
        }
      } // namespace

      template <typename Number>
      void
      local_matrix_apply(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst)
      {
        if (launch.n_cells == 0)
          return;
        switch (launch.kernel)
          {
            case LocalMatrixKernel::thread_per_element:
              {
                const unsigned int block = 128;
                thread_per_element_kernel<<<(launch.n_cells + block - 1) / block, block>>>(launch, src, dst);
                break;
              }
            case LocalMatrixKernel::block_per_element:
              block_per_element_kernel<<<launch.n_cells, launch.n, 2 * launch.n * sizeof(Number)>>>(launch, src, dst);
              break;
            case LocalMatrixKernel::warp_per_element:
              {
                const unsigned int blocks = (launch.n_cells + warp_cells_per_block - 1) / warp_cells_per_block;
                warp_per_element_kernel<<<blocks,
                                          32 * warp_cells_per_block,
                                          2 * warp_cells_per_block * launch.n * sizeof(Number)>>>(launch, src, dst);
                break;
              }
          }
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      GPUMF_LOCAL_MATRIX_KERNELS(float, template)
      GPUMF_LOCAL_MATRIX_KERNELS(double, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
