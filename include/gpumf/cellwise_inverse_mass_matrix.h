/**
 * @file gpumf/cellwise_inverse_mass_matrix.h
 * The inverse of a cell's mass matrix inside a functor (deal.II's
 * MatrixFreeOperators::CellwiseInverseMassMatrix), for discontinuous elements: explicit time
 * stepping, projections, block-Jacobi preconditioners.
 */
#ifndef gpumf_cellwise_inverse_mass_matrix_h
#define gpumf_cellwise_inverse_mass_matrix_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/dense_solve.h>

#include <cmath>
#include <vector>

namespace gpumf
{
  /**
   * Applies the inverse of the cell mass matrix M_K = (phi_i, phi_j)_K to the DoF values of an
   * FEEvaluation, in place, by tensor products (deal.II's CellwiseInverseMassMatrix): with the
   * square 1D interpolation matrix S (n_q_points_1d = fe_degree + 1),
   * M_K = S^T diag(JxW) S for each component, so M_K^-1 = S^-1 diag(1/JxW) S^-T: two passes
   * per direction (S^-T, then S^-1) and a division per point. Exact for every element whose
   * cell mass matrix the quadrature integrates as a tensor product (FE_DGQ and relatives on
   * Gauss points), curved cells included (JxW varies per point).
   *
   * In a functor, every thread of the cell calls it (as the FEEvaluation functions):
   * @code
   *   FEEvaluation<dim, degree, degree + 1, n_components, Number> phi(cell, data, shared);
   *   phi.read_dof_values(src);
   *   CellwiseInverseMassMatrix<dim, degree, n_components, Number> inverse(phi);
   *   inverse.apply();                          // phi's DoF values <- M_K^-1 phi's DoF values
   *   phi.distribute_local_to_global(dst);
   * @endcode
   * deal.II's apply(in, out) works on arrays; here the arrays are phi's own DoF values (the
   * GPU keeps them in the cell's shared memory).
   *
   * GPU: the passes of FEEvaluation with the inverse 1D matrix (MatrixFree::Data::inverse_shape_values).
   * Host reference: builds M_K from the full tensor-product basis and solves with it by
   * Gaussian elimination, deliberately naive and independent of the GPU's factorization.
   */
  template <int dim, int fe_degree, int n_components = 1, typename Number = double, bool thread_per_column = false>
  class CellwiseInverseMassMatrix
  {
  public:
    using Evaluation = FEEvaluation<dim, fe_degree, fe_degree + 1, n_components, Number, thread_per_column>;

    __host__ __device__ explicit CellwiseInverseMassMatrix(Evaluation &phi)
      : phi(phi)
    {
      internal::require(phi.data.inverse_shape_values != nullptr || phi.data.collocation,
                        "gpumf::CellwiseInverseMassMatrix: the MatrixFree object has no inverse 1D matrix; it "
                        "needs n_q_points_1d = fe_degree + 1 (QGauss<1>(fe_degree + 1)).");
    }

    /// phi's DoF values <- M_K^-1 phi's DoF values (deal.II's apply(in, out) with in = out).
    __host__ __device__ void
    apply()
    {
#ifdef __CUDA_ARCH__
      to_points_transposed();
      for (unsigned int s = 0; s < Evaluation::layout.points_per_thread(); ++s)
        {
          const unsigned int q       = internal::owned_point(Evaluation::layout, phi.thread, s);
          const Number       inv_jxw = Number(1) / phi.JxW(q);
          for (unsigned int c = 0; c < n_components; ++c)
            phi.shared.values[c * Evaluation::P + q] *= inv_jxw;
        }
      __syncthreads();
      to_basis();
#else
      phi.host_collective([&]() {
        for (unsigned int c = 0; c < n_components; ++c)
          {
            // M_ij = sum_q JxW_q phi_i(x_q) phi_j(x_q) over the full tensor-product basis
            std::vector<double> matrix(n * n, 0.), rhs(n);
            for (unsigned int i = 0; i < n; ++i)
              {
                rhs[i] = phi.shared.dof_values[c * Evaluation::P + point(i)];
                for (unsigned int j = 0; j < n; ++j)
                  for (unsigned int q = 0; q < Evaluation::n_q_points; ++q)
                    matrix[i * n + j] += double(phi.JxW(q)) * basis(i, q) * basis(j, q);
              }
            solve(matrix, rhs);
            for (unsigned int i = 0; i < n; ++i)
              phi.shared.dof_values[c * Evaluation::P + point(i)] = Number(rhs[i]);
          }
      });
#endif
    }

    /**
     * phi's DoF values <- the coefficients of the function whose values at the quadrature
     * points phi's DoF values hold (submit_dof_value(f(x_q), q) at each point before it, as
     * deal.II's step-67 does): the interpolation into the basis, S^-1 per direction (deal.II's
     * transform_from_q_points_to_basis()). With Gauss points this is the L2 projection of f.
     */
    __host__ __device__ void
    transform_from_q_points_to_basis()
    {
#ifdef __CUDA_ARCH__
      __syncthreads(); // the values other threads submitted
      to_basis();
#else
      phi.host_collective([&]() {
        for (unsigned int c = 0; c < n_components; ++c)
          {
            // sum_j phi_j(x_q) u_j = f_q at every point q
            std::vector<double> matrix(n * n), rhs(n);
            for (unsigned int q = 0; q < n; ++q)
              {
                rhs[q] = phi.shared.dof_values[c * Evaluation::P + point(q)];
                for (unsigned int j = 0; j < n; ++j)
                  matrix[q * n + j] = basis(j, q);
              }
            solve(matrix, rhs);
            for (unsigned int i = 0; i < n; ++i)
              phi.shared.dof_values[c * Evaluation::P + point(i)] = Number(rhs[i]);
          }
      });
#endif
    }

  private:
    Evaluation &phi;
    /// DoFs (and points) per component
    static constexpr unsigned int n = Evaluation::tensor_dofs_per_cell;

#ifdef __CUDA_ARCH__
    /// S^-T in each direction (phi's transposed passes with the inverse matrix).
    __device__ void
    to_points_transposed()
    {
      if (phi.data.collocation)
        return;
      const Number *inverse = phi.data.inverse_shape_values;
      phi.template pass<0, true>(inverse);
      if constexpr (dim > 1)
        phi.template pass<1, true>(inverse);
      if constexpr (dim > 2)
        phi.template pass<2, true>(inverse);
    }

    /// S^-1 in each direction.
    __device__ void
    to_basis()
    {
      if (phi.data.collocation)
        return;
      const Number *inverse = phi.data.inverse_shape_values;
      phi.template pass<0, false>(inverse);
      if constexpr (dim > 1)
        phi.template pass<1, false>(inverse);
      if constexpr (dim > 2)
        phi.template pass<2, false>(inverse);
    }
#else
    /// The padded point of DoF i of a component (as many points as DoFs per direction).
    static unsigned int
    point(const unsigned int i)
    {
      return Evaluation::point_of(i);
    }

    /// Basis function i (lexicographic) at quadrature point q.
    double
    basis(const unsigned int i, const unsigned int q) const
    {
      Number value, gradient[dim];
      phi.host_basis(point(i), q, value, gradient);
      return value;
    }

    static void
    solve(std::vector<double> &matrix, std::vector<double> &rhs)
    {
      internal::solve_dense(matrix, rhs, "gpumf::CellwiseInverseMassMatrix (the cell's mass matrix)");
    }
#endif
  };
} // namespace gpumf

#endif
