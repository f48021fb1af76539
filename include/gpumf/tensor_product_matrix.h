/**
 * @file gpumf/tensor_product_matrix.h
 * Cell matrices of the form M_1 (x) ... (x) K_d + ... (sums of Kronecker products of 1D
 * matrices) and their inverses by fast diagonalization, one per cell, applied inside a functor
 * on the GPU: deal.II's TensorProductMatrixSymmetricSum and (9.5+)
 * TensorProductMatrixSymmetricSumCollection, the block-Jacobi smoother of step-59.
 */
#ifndef gpumf_tensor_product_matrix_h
#define gpumf_tensor_product_matrix_h

#include <gpumf/backend.h>
#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/dense_solve.h>
#include <gpumf/internal/memory.h>

#include <deal.II/lac/full_matrix.h>

#include <array>
#include <cstddef>
#include <vector>

namespace gpumf
{
  /**
   * What a functor holds of a TensorProductMatrixSymmetricSumCollection (by value, as the
   * functor's member): the 1D matrices and their generalized eigendecompositions, and which
   * of them each cell uses.
   */
  template <int dim, typename Number>
  struct TensorProductMatrixSymmetricSumView
  {
    /// [k * n * n + r * n + c]: eigenvector c of pair k, entry r (S^T M S = I, S^T K S = Lambda)
    const Number *eigenvectors = nullptr;
    /// [k * n + c]
    const Number *eigenvalues = nullptr;
    /// [k * n * n + r * n + c]: the pair's matrices themselves (the host reference solves with them)
    const Number *mass = nullptr, *derivative = nullptr;
    /// [cell_index * dim + d]: the pair of direction d of the cell
    const unsigned int *pair_of_cell = nullptr;
    /// rows of the 1D matrices; cells
    unsigned int n = 0, n_cells = 0;

    /**
     * phi's DoF values <- A_K^-1 phi's DoF values for the running cell K (phi's
     * get_cell_index_in_object()), A_K = sum_d M_1 (x) .. K_d .. (x) M_dim (direction d's K, the
     * others' M; deal.II's order: direction 0 fastest), for each component: S^T in each
     * direction, a division by lambda_0 + ... + lambda_dim-1, S in each direction (deal.II's
     * apply_inverse()). Every thread of the cell calls it. Needs n_q_points_1d = fe_degree + 1
     * = n.
     */
    template <int fe_degree, int n_components, bool thread_per_column>
    __host__ __device__ void
    apply_inverse(FEEvaluation<dim, fe_degree, fe_degree + 1, n_components, Number, thread_per_column> &phi) const;
  };

  /**
   * One matrix A_K = sum_d M_1 (x) .. K_d .. (x) M_dim per cell of a MatrixFree object
   * (symmetric K_d, symmetric positive definite M_d, n x n with n = fe_degree + 1), kept once
   * per distinct pair (M_d, K_d) (deal.II 9.5's TensorProductMatrixSymmetricSumCollection with
   * compressed matrices): a Cartesian mesh of equal cells needs a few pairs. Set-up on the host
   * (insert() per cell, finalize() computes the generalized eigendecompositions with LAPACK and
   * copies to the backend); functors apply the inverses through get_view():
   * @code
   *   collection.reinit(backend, matrix_free.n_cells());
   *   for (unsigned int c = 0; c < matrix_free.n_cells(); ++c)
   *     collection.insert(c, mass_1d_of(matrix_free.get_cell_iterator(c)), laplace_1d_of(...));
   *   collection.finalize();
   *   // in the functor (a member view = collection.get_view()):
   *   phi.read_dof_values(src);  view.apply_inverse(phi);  phi.distribute_local_to_global(dst);
   * @endcode
   */
  template <int dim, typename Number>
  class TensorProductMatrixSymmetricSumCollection
  {
  public:
    using Matrix1D = dealii::FullMatrix<Number>;

    /// Room for @p n_cells cells (indices of MatrixFree::get_cell_iterator()) on @p backend.
    void
    reinit(Backend backend, unsigned int n_cells);

    /// The matrices of cell @p cell_index: @p mass[d] and @p derivative[d] of direction d.
    void
    insert(unsigned int cell_index, const std::array<Matrix1D, dim> &mass, const std::array<Matrix1D, dim> &derivative);

    /// Every cell inserted: the eigendecompositions, and the copy to the backend.
    void
    finalize();

    /// Frees everything (an empty collection, as before reinit()).
    void
    clear();

    TensorProductMatrixSymmetricSumView<dim, Number>
    get_view() const;

    /// Distinct (mass, derivative) pairs kept.
    unsigned int
    n_pairs() const;

    std::size_t
    memory_consumption() const;

  private:
    Backend                   backend = Backend::host;
    unsigned int              n = 0, n_cells = 0;
    std::vector<Number>       host_mass, host_derivative;
    std::vector<unsigned int> host_pair_of_cell;
    /// the pairs' entries, for finding an equal pair
    std::vector<std::vector<Number>> keys;
    internal::Array<Number>          eigenvectors, eigenvalues, mass, derivative;
    internal::Array<unsigned int>    pair_of_cell;
    bool                             finalized = false;
  };

  template <int dim, typename Number>
  template <int fe_degree, int n_components, bool thread_per_column>
  __host__ __device__ void
  TensorProductMatrixSymmetricSumView<dim, Number>::apply_inverse(
    FEEvaluation<dim, fe_degree, fe_degree + 1, n_components, Number, thread_per_column> &phi) const
  {
    using Evaluation          = FEEvaluation<dim, fe_degree, fe_degree + 1, n_components, Number, thread_per_column>;
    constexpr unsigned int nn = fe_degree + 1;
    constexpr unsigned int n_points = Evaluation::n_q_points;
    const unsigned int     cell     = phi.get_cell_index_in_object();
    internal::require(n == nn && cell < n_cells,
                      "gpumf::TensorProductMatrixSymmetricSumView::apply_inverse: the collection's matrices have "
                      "another size than fe_degree + 1, or the cell is beyond those it was set up for.");
    unsigned int pair[dim];
    for (unsigned int d = 0; d < dim; ++d)
      pair[d] = internal::read_only(pair_of_cell + cell * dim + d);
#ifdef __CUDA_ARCH__
    phi.template pass<0, true>(eigenvectors + pair[0] * nn * nn);
    if constexpr (dim > 1)
      phi.template pass<1, true>(eigenvectors + pair[1] * nn * nn);
    if constexpr (dim > 2)
      phi.template pass<2, true>(eigenvectors + pair[2] * nn * nn);
    for (unsigned int s = 0; s < Evaluation::layout.points_per_thread(); ++s)
      {
        const unsigned int q      = internal::owned_point(Evaluation::layout, phi.thread, s);
        Number             lambda = 0;
        unsigned int       rest   = q;
        for (unsigned int d = 0; d < dim; ++d, rest /= nn)
          lambda += internal::read_only(eigenvalues + pair[d] * nn + rest % nn);
        const Number inverse = Number(1) / lambda;
        for (unsigned int c = 0; c < n_components; ++c)
          phi.shared.values[c * Evaluation::P + q] *= inverse;
      }
    __syncthreads();
    phi.template pass<0, false>(eigenvectors + pair[0] * nn * nn);
    if constexpr (dim > 1)
      phi.template pass<1, false>(eigenvectors + pair[1] * nn * nn);
    if constexpr (dim > 2)
      phi.template pass<2, false>(eigenvectors + pair[2] * nn * nn);
    (void)n_points;
#else
    // the naive reference: A_K assembled from the Kronecker products, solved densely
    phi.host_collective([&]() {
      std::vector<double> matrix(n_points * n_points);
      for (unsigned int i = 0; i < n_points; ++i)
        for (unsigned int j = 0; j < n_points; ++j)
          {
            double sum = 0;
            for (unsigned int d = 0; d < dim; ++d)
              {
                double       product = 1;
                unsigned int ri = i, rj = j;
                for (unsigned int e = 0; e < dim; ++e, ri /= nn, rj /= nn)
                  {
                    const Number *m = (e == d ? derivative : mass) + pair[e] * nn * nn;
                    product *= m[(ri % nn) * nn + rj % nn];
                  }
                sum += product;
              }
            matrix[i * n_points + j] = sum;
          }
      for (unsigned int c = 0; c < n_components; ++c)
        {
          std::vector<double> a = matrix, x(n_points);
          for (unsigned int i = 0; i < n_points; ++i)
            x[i] = phi.shared.dof_values[c * Evaluation::P + i];
          internal::solve_dense(a, x, "gpumf::TensorProductMatrixSymmetricSumView::apply_inverse (a cell's matrix)");
          for (unsigned int i = 0; i < n_points; ++i)
            phi.shared.dof_values[c * Evaluation::P + i] = Number(x[i]);
        }
    });
#endif
  }
} // namespace gpumf

#endif
