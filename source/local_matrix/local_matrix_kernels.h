// The kernel of gpumf::LocalMatrixOperator and the element-matrix formula it shares with the host:
// the naive host reference in local_matrix_reference.cc, CUDA in local_matrix_kernels.cu
// (core/executor.h: one list, both executors).
#ifndef gpumf_source_local_matrix_local_matrix_kernels_h
#define gpumf_source_local_matrix_local_matrix_kernels_h

#include <gpumf/internal/dof_access.h>

#include <vector>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /**
     * What the element matrices of LocalMatrixOperator's Storage::on_the_fly are computed from:
     * the form (laplace (grad u, grad v) + mass (u, v) per component, constants), the cell's
     * geometry in MatrixFree's arrays (matrix_free.h) and the shape data. Local DoF i of a cell:
     * component i / n_scalar, scalar index i % n_scalar, lexicographic (x fastest).
     *
     * Affine geometry (one Jacobian per cell): A_ij = sum_t c_t R_t[i][j] over the terms t of
     * reference tensors R (host-computed, n_terms = 1 + dim (dim + 1) / 2 matrices of the scalar
     * element, [(t * n_scalar + j) * n_scalar + i]): t = 0 the mass matrix with c_0 = mass det J,
     * then the pairs e <= e' with R = sum_q w_q (d_e phi_i d_e' phi_j + d_e' phi_i d_e phi_j) / (1 +
     * [e == e']) and c = laplace det J sum_d (J^-1)_ed (J^-1)_e'd: 2 n_terms flops per entry.
     * Per-point geometry: A_ij = sum_q JxW_q (mass phi_i phi_j + laplace grad phi_i . grad phi_j)
     * from the 1D shape values and gradients: (dim^2 + ...) flops per point per entry.
     */
    template <typename Number>
    struct OnTheFly
    {
      int                           dim;
      unsigned int                  n_dofs_1d, n_q_1d, n_scalar, n_q_points;
      bool                          affine;
      Number                        laplace, mass;
      const Number                 *reference;       ///< affine: the reference tensors
      const Number                 *shape_values;    ///< [q * n_dofs_1d + i], 1D
      const Number                 *shape_gradients; ///< [q * n_dofs_1d + i], 1D
      const Number                 *inv_jacobian;    ///< MatrixFree's (whole object)
      const Number                 *JxW;
      unsigned int                  jacobian_stride;
      static constexpr unsigned int max_terms = 7;
    };

    /// The per-cell factors c_t of the affine formula (unused for per-point geometry).
    template <typename Number>
    __host__ __device__ inline void
    on_the_fly_factors(const OnTheFly<Number> &f, const unsigned int cell, Number c[OnTheFly<Number>::max_terms])
    {
      if (!f.affine)
        return;
      const Number det = read_only(f.JxW + cell);
      c[0]             = f.mass * det;
      unsigned int t   = 1;
      for (int e = 0; e < f.dim; ++e)
        for (int e2 = e; e2 < f.dim; ++e2, ++t)
          {
            Number g = 0;
            for (int d = 0; d < f.dim; ++d)
              g += read_only(f.inv_jacobian + (e * f.dim + d) * f.jacobian_stride + cell) *
                   read_only(f.inv_jacobian + (e2 * f.dim + d) * f.jacobian_stride + cell);
            c[t] = f.laplace * det * g;
          }
    }

    /// Entry (i, j) of the element matrix of @p cell (factors @p c from on_the_fly_factors()).
    template <typename Number>
    __host__ __device__ inline Number
    on_the_fly_entry(const OnTheFly<Number> &f,
                     const unsigned int      cell,
                     const Number            c[OnTheFly<Number>::max_terms],
                     const unsigned int      i,
                     const unsigned int      j)
    {
      if (i / f.n_scalar != j / f.n_scalar)
        return Number(0); // components do not couple
      const unsigned int is = i % f.n_scalar, js = j % f.n_scalar;
      if (f.affine)
        {
          const unsigned int n_terms = 1 + f.dim * (f.dim + 1) / 2;
          const std::size_t  n2      = std::size_t(f.n_scalar) * f.n_scalar;
          const Number      *r       = f.reference + std::size_t(js) * f.n_scalar + is;
          Number             sum     = 0;
          for (unsigned int t = 0; t < n_terms; ++t)
            sum += c[t] * read_only(r + t * n2);
          return sum;
        }
      const unsigned int n1 = f.n_dofs_1d, nq = f.n_q_1d;
      unsigned int       ia[3] = {is % n1, (is / n1) % n1, is / (n1 * n1)};
      unsigned int       ja[3] = {js % n1, (js / n1) % n1, js / (n1 * n1)};
      Number             sum   = 0;
      for (unsigned int q = 0; q < f.n_q_points; ++q)
        {
          const unsigned int qa[3] = {q % nq, (q / nq) % nq, q / (nq * nq)};
          // values and reference gradients of phi_i and phi_j at q from the 1D tables
          Number vi = 1, vj = 1, gi[3] = {1, 1, 1}, gj[3] = {1, 1, 1};
          for (int d = 0; d < f.dim; ++d)
            {
              const Number si = read_only(f.shape_values + qa[d] * n1 + ia[d]);
              const Number sj = read_only(f.shape_values + qa[d] * n1 + ja[d]);
              const Number di = read_only(f.shape_gradients + qa[d] * n1 + ia[d]);
              const Number dj = read_only(f.shape_gradients + qa[d] * n1 + ja[d]);
              vi *= si, vj *= sj;
              for (int e = 0; e < f.dim; ++e)
                gi[e] *= e == d ? di : si, gj[e] *= e == d ? dj : sj;
            }
          const std::size_t k    = std::size_t(cell) * f.n_q_points + q;
          Number            grad = 0;
          for (int d = 0; d < f.dim; ++d)
            {
              Number pi = 0, pj = 0; // physical derivative d of phi_i, phi_j
              for (int e = 0; e < f.dim; ++e)
                {
                  const Number inv = read_only(f.inv_jacobian + (e * f.dim + d) * f.jacobian_stride + k);
                  pi += inv * gi[e], pj += inv * gj[e];
                }
              grad += pi * pj;
            }
          sum += read_only(f.JxW + k) * (f.mass * vi * vj + f.laplace * grad);
        }
      return sum;
    }

    /// The CUDA kernels of LocalMatrixOperator: a thread per cell; a block per cell and a thread per
    /// row; a warp per cell (4 cells per block of 128 threads), a lane per row and more rows per
    /// lane beyond 32 DoFs.
    enum class LocalMatrixKernel
    {
      thread_per_element,
      warp_per_element,
      block_per_element
    };

    /// What one launch over the cells of one color does.
    template <typename Number>
    struct LocalMatrixLaunch
    {
      const unsigned int    *local_to_global; ///< codes of all cells, n per cell (internal/dof_access.h)
      ConstraintRows<Number> rows;            ///< the constraint table of the codes
      const unsigned char   *cell_has_rows;   ///< per cell: a DoF is a constraint row
      bool                   has_rows;        ///< some cell of the launch has constraint rows
      const Number          *matrices;        ///< shared (one matrix) or per cell; null: on the fly
      bool                   shared_matrix;
      OnTheFly<Number>       on_the_fly;    ///< the data of the matrices computed on the fly
      unsigned int           n;             ///< DoFs per cell
      unsigned int           first_cell;    ///< the color's first cell
      unsigned int           n_cells;       ///< cells in the color
      bool                   atomic;        ///< atomicAdd (no coloring)
      bool                   transpose;     ///< A^T instead of A
      bool                   diagonal_only; ///< dst += diag(C^T A C) (src unused)
      LocalMatrixKernel      kernel;        ///< CUDA: the threads of a cell
    };

    /// The element matrix of @p cell computed on the fly on the host, entry by entry as the
    /// kernels compute it (the pointers of @p launch in host memory).
    template <typename Number>
    std::vector<Number>
    on_the_fly_matrix(const LocalMatrixLaunch<Number> &launch, unsigned int cell);
  } // namespace internal
} // namespace gpumf

// dst += C_K^T A_K C_K src (C_K: the cell's DoF codes) for the cells of one color, or the diagonal
// of that product (diagonal_only). CUDA runs launch.kernel; the host reference does every cell alike.
#define GPUMF_LOCAL_MATRIX_KERNELS(Number, TEMPLATE) \
  TEMPLATE void local_matrix_apply(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst);

GPUMF_DECLARE_KERNELS(GPUMF_LOCAL_MATRIX_KERNELS(Number, template <typename Number>))

#endif
