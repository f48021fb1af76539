// The cell-kernel designs of the kernel lab (kernel_lab.cu): each applies BP1/BP3/BP5 (mass,
// Laplace; Gauss or Gauss-Lobatto collocation) on gpumf's data layout, through the library's
// register-tiled cell operation (lab_tiled.cuh, the library's until the lines design replaced
// it) or the library's lines cell operation (internal/ready/lines.cuh), and differs in how a
// cell's data reach it:
//   tiled        the library's kernel: a block of cells, each thread gathers its column's codes,
//                then its values, through registers
//   async        persistent blocks in a pipeline: while a group of cells computes, the codes
//                of the group after next and the values of the next group travel into shared
//                memory with asynchronous copies (cp.async); optionally the per-point geometry too
//   *compressed  the codes from 27 entity bases a cell and a table of offsets
//                (kernel_lab/dof_compression.h) instead of (p+1)^3 codes
//   lines        the tiled kernel's gather and scatter around the library's cell operation: every
//                1D contraction in registers, a thread owning one line at a time
//                (internal/ready/lines.cuh); lines-eo: the same with the even-odd forms of the 1D
//                matrices (the library's choice where they are symmetric)
//   dmma         (lab_dmma.cuh, BP5 at p = 7 in double) a warp a cell, the contractions along x
//                and y on the FP64 tensor cores
#ifndef gpumf_kernel_lab_designs_cuh
#define gpumf_kernel_lab_designs_cuh

#include "kernel_lab/dof_compression.h"
#include <gpumf/internal/dof_access.h>
#include <gpumf/internal/ready/lines.cuh>

#include "lab_tiled.cuh"

#include <cuda_pipeline.h>

namespace lab
{
  using gpumf::internal::no_dof;
  using gpumf::internal::read_only;

  /// gpumf's arrays of one operator (as MatrixFree::Data and the ready operators hold them).
  template <typename Number>
  struct Data
  {
    unsigned int        n_cells      = 0;
    const unsigned int *codes        = nullptr; // (p+1)^3 a cell
    const unsigned int *bases        = nullptr; // 27 a cell (compressed designs)
    const unsigned int *offsets      = nullptr; // (p+1)^3 (compressed designs)
    bool                affine       = true;
    const Number       *inv_jacobian = nullptr; // affine: entry (r, d) of cell c at [(3 r + d) n_cells + c]
    const Number       *JxW          = nullptr; // affine: per cell
    const Number       *metric       = nullptr; // stored: entry e of point q of cell c at [e stride + c Q + q]
    std::size_t         stride       = 0;
    const Number       *shape_values = nullptr;   // [q nd + i]
    const Number       *derivative   = nullptr;   // collocation derivative [q n_q + l]
    unsigned int        cell_stride  = 0;         // numbers of a cell's scratch (at least 3 buffers)
    gpumf::internal::ConstraintRows<Number> rows; // design tiled-rows: the constraint rows (none here)
  };

  /// The 1D matrices as kernel parameters (constant operands of the z contractions) and the
  /// 1D quadrature weights.
  template <int nd, int nq, typename Number>
  struct Tables
  {
    Number table[nq * (nd + nq)];
    Number weights[nq];
    Number folded[gpumf::internal::folded_tables_size(nq)]; // the even-odd forms (internal/ready/lines.cuh)
  };

  /// How a design finds its cells' data.
  struct Variant
  {
    bool compressed      = false;
    bool prefetch_metric = false;
  };

  /// The quadrature-point operation (the library's CoefficientPoint without coefficients):
  /// affine: JxW J^{-1} J^{-T} w_q per cell; stored: the merged geometry per point, from global
  /// memory or from the thread's prefetched copy in shared memory (entry e of its point k at
  /// @p staged[(e n_q + k) T]).
  template <int nq, typename Number, bool with_values, bool with_gradients>
  struct Point
  {
    static constexpr unsigned int Q = nq * nq * nq, M = gpumf::internal::metric_entries(with_values, with_gradients);

    __device__
    Point(const Data<Number> &d,
          const unsigned int  cell,
          const Number (&weights)[nq],
          const unsigned int tx,
          const unsigned int ty,
          const Number      *staged,
          const unsigned int T)
      : d(d)
      , weights(weights)
      , first(std::size_t(cell) * Q + tx + nq * ty)
      , staged(staged)
      , T(T)
    {
      if (d.affine)
        {
          jxw = read_only(d.JxW + cell);
          gpumf::internal::symmetric_metric(d.inv_jacobian + cell, d.n_cells, jxw, g);
          column_weight = weights[tx] * weights[ty];
        }
    }

    __device__ void
    operator()(const unsigned int k, Number &value, Number &gx, Number &gy, Number &gz) const
    {
      Number m[6] = {}, value_scale = 0;
      if (d.affine)
        {
          const Number w = column_weight * weights[k];
#pragma unroll
          for (unsigned int e = 0; e < 6; ++e)
            m[e] = w * g[e];
          value_scale = jxw * w;
        }
      else
        {
#pragma unroll
          for (unsigned int e = 0; e < M; ++e)
            {
              const Number v =
                staged ? staged[(e * nq + k) * T] : read_only(d.metric + e * d.stride + first + nq * nq * k);
              if (with_gradients && e < 6)
                m[e] = v;
              else
                value_scale = v;
            }
        }
      if constexpr (with_values)
        value *= value_scale;
      if constexpr (with_gradients)
        gpumf::internal::apply_symmetric(m, gx, gy, gz);
    }

    const Data<Number> &d;
    const Number (&weights)[nq];
    const std::size_t  first;
    const Number      *staged;
    const unsigned int T;
    Number             g[6] = {}, jxw = 0, column_weight = 0;
  };

  /// Shared memory of a block: the 1D matrices, the offsets (compressed), then the scratch of
  /// its cells, then (async) the stages.
  template <int nd, int nq, typename Number, bool with_values, bool with_gradients>
  struct Layout
  {
    using Tiled                            = RegisterTiled<nd, nq, Number, with_values, with_gradients>;
    static constexpr unsigned int n        = nd * nd * nd;
    static constexpr std::size_t  matrices = (nq * nd + nq * nq) * sizeof(Number);
    static constexpr std::size_t  offsets  = (n * sizeof(unsigned int) + 15) / 16 * 16;
    /// Numbers of a cell's scratch: the three buffers of RegisterTiled and @p pad more; with
    /// @p pad = -1 FEEvaluation's 4 n_q^3, with -2 the library's padding (4 at n_q = 3, else 2:
    /// CoefficientCellOperator::device_scratch_per_cell).
    static constexpr unsigned int
    cell_stride(const int pad)
    {
      return pad == -1 ? 4 * nq * nq * nq : 3 * Tiled::buffer + (pad == -2 ? (nq == 3 ? 4 : 2) : pad);
    }
    static constexpr unsigned int M = gpumf::internal::metric_entries(with_values, with_gradients);
    /// Per thread and stage: index words (codes or the bases of its column), values, geometry.
    __host__ __device__ static constexpr unsigned int
    index_words(const bool compressed)
    {
      return compressed ? 3 : nd;
    }
    __host__ __device__ static std::size_t
             fixed(const unsigned int cells, const unsigned int stride)
    {
      return (matrices + 15) / 16 * 16 + offsets + (cells * stride * sizeof(Number) + 15) / 16 * 16;
    }
    static std::size_t
    staged(const unsigned int cells, const Variant v, const bool affine)
    {
      const std::size_t T = std::size_t(cells) * nq * nq;
      return T * (3 * index_words(v.compressed) * sizeof(unsigned int) + 2 * nd * sizeof(Number) +
                  (v.prefetch_metric && !affine ? 2 * M * nq * sizeof(Number) : 0));
    }
  };

  /// Loads the 1D matrices and the offsets into shared memory (all threads of the block).
  template <int nd, int nq, typename Number>
  __device__ inline void
  load_matrices(const Data<Number> &d, unsigned char *smem, const bool compressed, const std::size_t offsets_at)
  {
    const unsigned int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int T = blockDim.x * blockDim.y * blockDim.z;
    Number            *S = reinterpret_cast<Number *>(smem);
    for (unsigned int i = t; i < nq * nd; i += T)
      S[i] = d.shape_values[i];
    for (unsigned int i = t; i < nq * nq; i += T)
      S[nq * nd + i] = d.derivative[i];
    if (compressed)
      {
        unsigned int *o = reinterpret_cast<unsigned int *>(smem + offsets_at);
        for (unsigned int i = t; i < nd * nd * nd; i += T)
          o[i] = d.offsets[i];
      }
    __syncthreads();
  }

  /// The code of DoF (tx, ty, k) from the bases of the thread's column (b[0]: k = 0, b[1]:
  /// inside, b[2]: k = p) and the offsets.
  template <int nd>
  __device__ inline unsigned int
  decode(const unsigned int (&b)[3], const unsigned int *offsets, const unsigned int l, const unsigned int k)
  {
    const unsigned int base = b[gpumf::internal::entity_class_1d(k, nd - 1)];
    return base == no_dof ? no_dof : base + offsets[l];
  }

  /// The design `tiled` (and `tiled-compressed`): a block of blockDim.z cells.
  /// (With @p lines the library's cell operation (internal/ready/lines.cuh), its own scratch strides; @p min_blocks:
  /// the blocks of 256 threads an SM must hold, which caps the registers a thread: 0, the
  /// compiler's choice.)
  template <int nd,
            int nq,
            typename Number,
            bool with_values,
            bool with_gradients,
            bool compressed,
            bool rows       = false,
            bool lines      = false,
            int  min_blocks = 0,
            bool even_odd   = false>
  __global__ void __launch_bounds__(256, min_blocks)
    tiled_kernel(const Data<Number> d, const Tables<nd, nq, Number> tables, const Number *src, Number *dst)
  {
    using L     = Layout<nd, nq, Number, with_values, with_gradients>;
    using Lined = gpumf::internal::Lines<nd, nq, Number, with_values, with_gradients, even_odd, nd == nq>;
    extern __shared__ __align__(16) unsigned char smem[];
    const std::size_t                             offsets_at = (L::matrices + 15) / 16 * 16;
    load_matrices<nd, nq>(d, smem, compressed, offsets_at);
    const Number       *S = reinterpret_cast<const Number *>(smem), *D = S + nq * nd;
    const unsigned int *offsets = reinterpret_cast<const unsigned int *>(smem + offsets_at);
    Number             *scratch = reinterpret_cast<Number *>(
      smem + L::fixed(0, 0) + threadIdx.z * (lines ? Lined::cell_stride : d.cell_stride) * sizeof(Number));

    const unsigned int tx = threadIdx.x, ty = threadIdx.y;
    const unsigned int cell   = blockIdx.x * blockDim.z + threadIdx.z;
    const bool         owner  = cell < d.n_cells && tx < nd && ty < nd;
    const unsigned int c      = cell < d.n_cells ? cell : 0;
    const unsigned int column = tx + nd * ty;

    unsigned int b[3] = {};
    if (compressed && owner)
      for (unsigned int z = 0; z < 3; ++z)
        b[z] = read_only(d.bases + std::size_t(c) * 27 + gpumf::internal::entity_class_1d(tx, nd - 1) +
                         3 * gpumf::internal::entity_class_1d(ty, nd - 1) + 9 * z);
    const auto code = [&](const unsigned int k) {
      const unsigned int l = column + nd * nd * k;
      return compressed ? decode<nd>(b, offsets, l, k) : read_only(d.codes + std::size_t(c) * L::n + l);
    };
    Number u[nq];
    if (owner)
#pragma unroll
      for (unsigned int k = 0; k < nd; ++k)
        {
          const unsigned int i = code(k);
          if constexpr (rows)
            u[k] = gpumf::internal::read_dof(src, i, d.rows);
          else
            u[k] = i == no_dof ? Number(0) : read_only(src + i);
        }
    const Point<nq, Number, with_values, with_gradients> point(d, c, tables.weights, tx, ty, nullptr, 0);
    if constexpr (lines)
      Lined::apply(u, tables.table, tables.folded, scratch, tx, ty, point);
    else
      L::Tiled::apply(u, nd == nq, S, D, tables.table, scratch, tx, ty, point);
    if (owner)
#pragma unroll
      for (unsigned int k = 0; k < nd; ++k)
        {
          const unsigned int i = code(k);
          if constexpr (rows)
            {
              if (!gpumf::internal::is_constraint_row(i))
                gpumf::internal::add_value(dst, i, u[k], true, true);
              else
                gpumf::internal::distribute_dof(i, u[k], d.rows, [&](const unsigned int index, const Number value) {
                  gpumf::internal::add_value(dst, index, value, true, true);
                });
            }
          else if (i != no_dof)
            atomicAdd(dst + i, u[k]);
        }
  }

  /// The design `async` (and its variants): persistent blocks of blockDim.z cells a group, the
  /// index words two groups ahead, the values (and the geometry) one group ahead.
  template <int nd,
            int nq,
            typename Number,
            bool with_values,
            bool with_gradients,
            bool compressed,
            bool prefetch_metric>
  __global__ void __launch_bounds__(256) async_kernel(const Data<Number>           d,
                                                      const Tables<nd, nq, Number> tables,
                                                      const Number                *src,
                                                      Number                      *dst,
                                                      const unsigned int           n_groups)
  {
    using L                  = Layout<nd, nq, Number, with_values, with_gradients>;
    constexpr unsigned int I = L::index_words(compressed), M = L::M, Q = nq * nq * nq;
    extern __shared__ __align__(16) unsigned char smem[];
    const std::size_t                             offsets_at = (L::matrices + 15) / 16 * 16;
    load_matrices<nd, nq>(d, smem, compressed, offsets_at);
    const Number       *S = reinterpret_cast<const Number *>(smem), *D = S + nq * nd;
    const unsigned int *offsets = reinterpret_cast<const unsigned int *>(smem + offsets_at);
    const unsigned int  G       = blockDim.z;
    Number *scratch = reinterpret_cast<Number *>(smem + L::fixed(0, 0) + threadIdx.z * d.cell_stride * sizeof(Number));

    // the stages, [stage][word][thread] (consecutive threads, consecutive words)
    const unsigned int T = nq * nq * G, t = threadIdx.x + nq * (threadIdx.y + nq * threadIdx.z);
    Number            *values = reinterpret_cast<Number *>(smem + L::fixed(G, d.cell_stride));
    Number            *metric = values + 2 * nd * T;
    unsigned int      *index =
      reinterpret_cast<unsigned int *>(metric + (prefetch_metric && !d.affine ? 2 * M * nq * T : 0));

    const unsigned int tx = threadIdx.x, ty = threadIdx.y, column = tx + nd * ty;
    const bool         column_owner = tx < nd && ty < nd;
    const auto         cell_of      = [&](const unsigned int g) { return g * G + threadIdx.z; };

    const auto issue_index = [&](const unsigned int g, const unsigned int s) {
      const unsigned int cell = cell_of(g);
      if (g >= n_groups || cell >= d.n_cells || !column_owner)
        return;
      for (unsigned int w = 0; w < I; ++w)
        {
          const unsigned int *from = compressed ?
                                       d.bases + std::size_t(cell) * 27 + gpumf::internal::entity_class_1d(tx, nd - 1) +
                                         3 * gpumf::internal::entity_class_1d(ty, nd - 1) + 9 * w :
                                       d.codes + std::size_t(cell) * L::n + column + nd * nd * w;
          __pipeline_memcpy_async(index + (s * I + w) * T + t, from, sizeof(unsigned int));
        }
    };
    const auto code = [&](const unsigned int s, const unsigned int k) {
      if constexpr (compressed)
        {
          const unsigned int b[3] = {index[(s * I + 0) * T + t],
                                     index[(s * I + 1) * T + t],
                                     index[(s * I + 2) * T + t]};
          return decode<nd>(b, offsets, column + nd * nd * k, k);
        }
      else
        return index[(s * I + k) * T + t];
    };
    const auto issue_values = [&](const unsigned int g, const unsigned int si, const unsigned int sv) {
      const unsigned int cell = cell_of(g);
      if (g >= n_groups || cell >= d.n_cells)
        return;
      if (column_owner)
        for (unsigned int k = 0; k < nd; ++k)
          {
            const unsigned int i  = code(si, k);
            Number            *to = values + (sv * nd + k) * T + t;
            if (i == no_dof)
              *to = Number(0);
            else
              __pipeline_memcpy_async(to, src + i, sizeof(Number));
          }
      if (prefetch_metric && !d.affine)
        for (unsigned int e = 0; e < M; ++e)
          for (unsigned int k = 0; k < nq; ++k)
            __pipeline_memcpy_async(metric + ((sv * M + e) * nq + k) * T + t,
                                    d.metric + e * d.stride + std::size_t(cell) * Q + tx + nq * ty + nq * nq * k,
                                    sizeof(Number));
    };

    const unsigned int g0 = blockIdx.x;
    issue_index(g0, 0);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    issue_values(g0, 0, 0);
    issue_index(g0 + gridDim.x, 1);
    __pipeline_commit();
    unsigned int it = 0;
    for (unsigned int g = g0; g < n_groups; g += gridDim.x, ++it)
      {
        __pipeline_wait_prior(0); // this group's values, the next group's index words
        const unsigned int si = it % 3, sv = it % 2;
        issue_values(g + gridDim.x, (it + 1) % 3, (it + 1) % 2);
        issue_index(g + 2 * gridDim.x, (it + 2) % 3);
        __pipeline_commit();

        const unsigned int cell  = cell_of(g);
        const bool         owner = cell < d.n_cells && column_owner;
        Number             u[nq];
        if (owner)
#pragma unroll
          for (unsigned int k = 0; k < nd; ++k)
            u[k] = values[(sv * nd + k) * T + t];
        const Point<nq, Number, with_values, with_gradients> point(d,
                                                                   cell < d.n_cells ? cell : 0,
                                                                   tables.weights,
                                                                   tx,
                                                                   ty,
                                                                   prefetch_metric && !d.affine ?
                                                                     metric + sv * M * nq * T + t :
                                                                     nullptr,
                                                                   T);
        L::Tiled::apply(u, nd == nq, S, D, tables.table, scratch, tx, ty, point);
        if (owner)
#pragma unroll
          for (unsigned int k = 0; k < nd; ++k)
            {
              const unsigned int i = code(si, k);
              if (i != no_dof)
                atomicAdd(dst + i, u[k]);
            }
      }
    __pipeline_wait_prior(0);
  }
} // namespace lab

#endif
