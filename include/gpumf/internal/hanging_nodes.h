/**
 * @file gpumf/internal/hanging_nodes.h
 * Hanging nodes by interpolation: a cell on the fine side of a hanging face (or, in 3D, edge)
 * reads the coarse side's DoFs as if they were its own, at the positions of its face's DoFs,
 * and interpolates them to its own nodes with 1D matrices, one sweep per direction. deal.II's
 * CPU FEEvaluation does the same since 9.4, and its GPU MatrixFree; the per-cell mask and the
 * replaced DoF indices come from deal.II's internal::MatrixFreeFunctions::HangingNodes
 * (MatrixFree::reinit, source/matrix_free/matrix_free.cc). The alternative, reading each
 * hanging DoF through its constraint row (internal/dof_access.h), costs a load per entry of
 * the row and serializes the colored writes.
 *
 * The mask has deal.II's bits (ConstraintKinds), plus one of gpumf's:
 * @verbatim
 *   bit d      (d = 0..dim-1)  the cell is the lower child of its parent in direction d
 *   bit 3 + d                  the face with normal d on the parent's boundary is hanging:
 *                              the plane i_d == 0 where bit d is set, else i_d == n - 1
 *   bit 6 + d  (3D)            the edge parallel to axis d on the parent's boundary is hanging
 *                              (through an edge neighbour only)
 *   bit 15                     gpumf: one of the cell's replaced DoF codes is a constraint row
 * @endverbatim
 * In the sweep along d a DoF (i_0, .., i_{dim-1}) is on a hanging face or edge when
 *   2D: the face with normal e != d is hanging and i_e is on it;
 *   3D: with e1, e2 the other directions, (face e1 and i_e1 on it) or (face e2 and i_e2 on it) or
 *       (edge d and both on it);
 * such a DoF becomes sum_k W[i_d][k] u(.., k, ..) along its line, with W = W0 for the lower
 * child (W0[i][j] = L_j(x_i / 2)), else W1 (W1[i][j] = L_j(1/2 + x_i / 2)), L_j the element's 1D
 * Lagrange polynomials and x_i its nodes. Whether a DoF is on a hanging face does not depend on
 * i_d, so a line is interpolated as a whole or not at all; the transposed operation applies W^T
 * to the same lines, sweeps in the reverse order.
 *
 * Weights in memory: weights[(h * n + i) * n + j] = W_h[i][j], h = 0 (lower child), 1 (upper).
 */
#ifndef gpumf_internal_hanging_nodes_h
#define gpumf_internal_hanging_nodes_h

#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/tensor_contractions.h>

#include <vector>

namespace gpumf
{
  namespace internal
  {
    namespace hanging
    {
      /// gpumf's bit: a replaced DoF code of the cell is a constraint row
      constexpr unsigned short has_rows = 1u << 15;
      /// the bits of deal.II's ConstraintKinds
      constexpr unsigned short kind_bits = 0x1ff;
    } // namespace hanging

    /// True when bit @p bit of @p mask is set.
    __host__ __device__ inline bool
    mask_bit(const unsigned short mask, const unsigned int bit)
    {
      return (mask >> bit) & 1u;
    }

    /**
     * True when the DoF with 1D indices @p i (i[0..dim-1], each < @p n) is interpolated in the
     * sweep along @p d of a cell with @p mask (see the file documentation).
     */
    template <int dim>
    __host__ __device__ inline bool
    hanging_in_sweep(const unsigned short mask, const unsigned int d, const unsigned int *i, const unsigned int n)
    {
      // on the parent's boundary in direction e: the plane i_e == 0 of a lower child, n-1 of an upper
      const auto on = [&](const unsigned int e) { return i[e] == (mask_bit(mask, e) ? 0u : n - 1); };
      if constexpr (dim == 2)
        {
          const unsigned int e = 1 - d;
          return mask_bit(mask, 3 + e) && on(e);
        }
      else
        {
          const unsigned int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
          return (mask_bit(mask, 3 + e1) && on(e1)) || (mask_bit(mask, 3 + e2) && on(e2)) ||
                 (mask_bit(mask, 6 + d) && on(e1) && on(e2));
        }
    }

    /**
     * The value of a DoF interpolated in a sweep: sum_k W[i_d][k] line[k * d_stride] (@p
     * transpose: W[k][i_d]), @p line the first value of its line, @p i_d its index along it.
     */
    template <bool transpose, typename Number>
    __host__ __device__ inline Number
    hanging_line_value(const Number      *W,
                       const Number      *line,
                       const unsigned int i_d,
                       const unsigned int n,
                       const unsigned int d_stride)
    {
      return tensor::line_dot_n<transpose>(
        W, i_d, [&](const unsigned int k) { return line[k * d_stride]; }, n);
    }

    /**
     * The host reference of the interpolation (deliberately plain): the cell's DoF values @p
     * values, stored at padded points (index sum_e i_e * stride^e, i_e < @p n, @p stride >= n),
     * replaced by the fine side's values (forward: after reading the coarse DoFs) or by the
     * transposed operation (before adding into them). A copy of the values per sweep.
     */
    template <int dim, bool transpose, typename Number>
    void
    resolve_hanging_nodes_reference(const unsigned short mask,
                                    const unsigned int   n,
                                    const unsigned int   stride,
                                    const Number        *weights,
                                    Number              *values)
    {
      if ((mask & hanging::kind_bits) == 0)
        return;
      unsigned int n_points = 1;
      for (int e = 0; e < dim; ++e)
        n_points *= stride;
      for (int s = 0; s < dim; ++s)
        {
          const unsigned int  d = transpose ? dim - 1 - s : s;
          const Number       *W = weights + (mask_bit(mask, d) ? 0 : n * n);
          std::vector<Number> old(values, values + n_points);
          unsigned int        d_stride = 1;
          for (unsigned int e = 0; e < d; ++e)
            d_stride *= stride;
          unsigned int i[3] = {0, 0, 0};
          for (i[2] = 0; i[2] < (dim > 2 ? n : 1); ++i[2])
            for (i[1] = 0; i[1] < n; ++i[1])
              for (i[0] = 0; i[0] < n; ++i[0])
                if (hanging_in_sweep<dim>(mask, d, i, n))
                  {
                    const unsigned int p = i[0] + stride * (i[1] + stride * i[2]);
                    values[p] = hanging_line_value<transpose>(W, old.data() + p - i[d] * d_stride, i[d], n, d_stride);
                  }
        }
    }
  } // namespace internal
} // namespace gpumf

#endif
