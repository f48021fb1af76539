/**
 * @file gpumf/internal/dof_access.h
 * How a cell reads and writes its DoF values through the constraints: the one
 * implementation used by FEEvaluation (GPU and host), the element-matrix kernels and their
 * host reference.
 *
 * Each local DoF of a cell has a code in MatrixFree's local_to_global array:
 * @verbatim
 *   code                         DoF is            read as                   written (transposed) into
 *   i < 2^31                     unconstrained     src[i]                    dst[i]
 *   constrained_flag | r         a constraint line sum_k w_k src[m_k]        dst[m_k] += w_k * value
 *                                with entries      (row r of the table)      for each entry k of row r
 *   no_dof (0xffffffff)          constrained to    0                         nothing
 *                                a value only (Dirichlet)
 * @endverbatim
 * Row table (ConstraintRows, CSR): entries k of row r are row_start[r] <= k < row_start[r+1],
 * with vector index indices[k] (locally owned or ghost) and weight weights[k]. This is deal.II's
 * homogeneous application of AffineConstraints (C^T A C, inhomogeneities ignored), the way its
 * CPU MatrixFree resolves hanging nodes, periodic and other constraints with entries.
 */
#ifndef gpumf_internal_dof_access_h
#define gpumf_internal_dof_access_h

#include <gpumf/internal/cell_layout.h>

namespace gpumf
{
  namespace internal
  {
    /// Marks a code as a row of the constraint table.
    constexpr unsigned int constrained_flag = 0x80000000u;
    /// The code of a DoF constrained without entries (Dirichlet): reads zero, writes nothing.
    constexpr unsigned int no_dof = 0xffffffffu;

    /// The constraint lines with entries that the cells use (see the file documentation).
    template <typename Number>
    struct ConstraintRows
    {
      const unsigned int *row_start = nullptr;
      const unsigned int *indices   = nullptr;
      const Number       *weights   = nullptr;
    };

    /// True when @p code is a row of the constraint table.
    __host__ __device__ inline bool
    is_constraint_row(const unsigned int code)
    {
      return code != no_dof && (code & constrained_flag) != 0;
    }

    /// The value of the DoF with @p code in @p src.
    template <typename Number>
    __host__ __device__ inline Number
    read_dof(const Number *src, const unsigned int code, const ConstraintRows<Number> &rows)
    {
      if (code == no_dof)
        return Number();
      if (!(code & constrained_flag))
        return read_only(src + code);
      const unsigned int r   = code & ~constrained_flag;
      Number             sum = 0;
      for (unsigned int k = read_only(rows.row_start + r); k < read_only(rows.row_start + r + 1); ++k)
        sum += read_only(rows.weights + k) * read_only(src + read_only(rows.indices + k));
      return sum;
    }

    /// The transpose of read_dof(): add(index, contribution) for each vector entry of the DoF.
    template <typename Number, typename Add>
    __host__ __device__ inline void
    distribute_dof(const unsigned int code, const Number value, const ConstraintRows<Number> &rows, const Add &add)
    {
      if (code == no_dof)
        return;
      if (!(code & constrained_flag))
        return add(code, value);
      const unsigned int r = code & ~constrained_flag;
      for (unsigned int k = read_only(rows.row_start + r); k < read_only(rows.row_start + r + 1); ++k)
        add(read_only(rows.indices + k), read_only(rows.weights + k) * value);
    }

    /**
     * dst[index] += value for a cell's contribution: atomically on the GPU unless the cells
     * are colored (@p atomic false); nothing for no_dof or where the cell @p writes nothing
     * (the padding cells of a block).
     */
    template <typename Number>
    __host__ __device__ inline void
    add_value(Number *dst, const unsigned int index, const Number value, const bool atomic, const bool writes)
    {
      if (index == no_dof || !writes)
        return;
#ifdef __CUDA_ARCH__
      if (atomic)
        {
          atomicAdd(&dst[index], value);
          return;
        }
#else
      (void)atomic;
#endif
      dst[index] += value;
    }

    /// The weight of vector entry @p index in the DoF with @p code (C_{l, index}).
    template <typename Number>
    __host__ __device__ inline Number
    weight_of(const unsigned int code, const unsigned int index, const ConstraintRows<Number> &rows)
    {
      Number weight = 0;
      distribute_dof(code, Number(1), rows, [&](const unsigned int i, const Number w) {
        if (i == index)
          weight += w;
      });
      return weight;
    }

    /**
     * The contributions of column @p j of a cell matrix A to the diagonal of C^T A C:
     * for each vector entry g of DoF j (weight w_j), add(g, w_j * sum_l C_{l,g} (A e_j)_l),
     * where column(l) = (A e_j)_l and code(l) the code of local DoF l, l < @p n.
     * Serial; for a cell without constraint rows this is add(code(j), column(j)).
     */
    template <typename Number, typename Code, typename Column, typename Add>
    __host__ __device__ inline void
    distribute_diagonal_column(const unsigned int            j,
                               const unsigned int            n,
                               const Code                   &code,
                               const Column                 &column,
                               const ConstraintRows<Number> &rows,
                               const Add                    &add)
    {
      distribute_dof(code(j), Number(1), rows, [&](const unsigned int g, const Number w_j) {
        Number sum = 0;
        for (unsigned int l = 0; l < n; ++l)
          sum += weight_of(code(l), g, rows) * column(l);
        add(g, w_j * sum);
      });
    }
  } // namespace internal
} // namespace gpumf

#endif
