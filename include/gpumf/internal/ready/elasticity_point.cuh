/**
 * @file gpumf/internal/ready/elasticity_point.cuh
 * The quadrature-point operation of the ready elasticity operator (ElasticityOperator) in 3D on
 * the GPU: from the reference gradients of the three displacement components at a point to the
 * reference gradients the test functions are integrated with, the isotropic stress
 * sigma = 2 mu eps(u) + lambda div(u) I times JxW. The cell operation (cell_operator.h) calls it
 * at each point of a thread's column after Lines::evaluate() of every component. The host
 * reference is FEEvaluation's naive path with get/submit_symmetric_gradient().
 *
 * Geometry: on affine meshes the cell's inverse Jacobian and JxW (read once a cell) times the
 * quadrature weight of the point; else the inverse Jacobian and JxW stored at the point (10
 * numbers; no merged form exists for a coupled operator). lambda and mu: arrays over all points
 * (local_q_point_id order) or, where null, one number each.
 */
#ifndef gpumf_internal_ready_elasticity_point_cuh
#define gpumf_internal_ready_elasticity_point_cuh

#include <gpumf/internal/ready/quadrature_point.cuh>
#include <gpumf/matrix_free.h>

namespace gpumf
{
  namespace internal
  {
    /// The Lamé coefficients of the elasticity operator: per point (arrays in local_q_point_id
    /// order) or, where an array is null, the number beside it.
    template <typename Number>
    struct LameCoefficients
    {
      const Number *lambda_per_point = nullptr;
      const Number *mu_per_point     = nullptr;
      Number        lambda           = 1;
      Number        mu               = 1;

      __host__ __device__ Number
      lambda_at(const std::size_t p) const
      {
        return lambda_per_point != nullptr ? lambda_per_point[p] : lambda;
      }

      __host__ __device__ Number
      mu_at(const std::size_t p) const
      {
        return mu_per_point != nullptr ? mu_per_point[p] : mu;
      }
    };

#ifdef __CUDACC__
    /**
     * The elasticity operation at point (tx, ty, k) of a cell, @p geometry as CoefficientPoint's
     * (-1: affine or not per launch, 0 affine, 1 per point).
     */
    template <int n_q, typename Number, int geometry = -1>
    struct ElasticityPoint : ColumnPoints<n_q, Number, geometry>
    {
      using Column = ColumnPoints<n_q, Number, geometry>;
      using Column::affine;
      using Column::column;
      using Column::data;
      using Column::first;
      using Column::z_weights;

      /// Per cell, on affine meshes: the inverse Jacobian and JxW times the quadrature weight of
      /// the thread's column at k = @p weight_slice (ColumnPoints for the rest).
      __device__
      ElasticityPoint(const typename MatrixFree<3, Number>::Data &data,
                      const unsigned int                          cell,
                      const LameCoefficients<Number>             &lame,
                      const Number (&z_weights)[n_q],
                      const unsigned int weight_slice,
                      const unsigned int tx,
                      const unsigned int ty)
        : Column(data, cell, z_weights, tx, ty)
        , lame(lame)
      {
        if (affine())
          {
            const unsigned int c = data.row_start + cell;
            const Number       w =
              read_only(data.JxW + c) * read_only(data.quadrature_weights + column + n_q * n_q * weight_slice);
            column_jxw = w;
            for (unsigned int r = 0; r < 3; ++r)
              for (unsigned int d = 0; d < 3; ++d)
                jinv[r][d] = read_only(data.inv_jacobian + (3 * r + d) * data.jacobian_stride + c);
          }
      }

      /// @p g[c][r]: the reference gradient (direction r) of component c at point k on entry, what
      /// the test functions' reference gradients are integrated with on exit.
      __device__ void
      operator()(const unsigned int k, Number (&g)[3][3]) const
      {
        const std::size_t p = first + column + n_q * n_q * k;
        Number            j[3][3], jxw;
        if (affine())
          {
#  pragma unroll
            for (unsigned int r = 0; r < 3; ++r)
#  pragma unroll
              for (unsigned int d = 0; d < 3; ++d)
                j[r][d] = jinv[r][d];
            jxw = column_jxw * z_weights[k];
          }
        else
          {
#  pragma unroll
            for (unsigned int r = 0; r < 3; ++r)
#  pragma unroll
              for (unsigned int d = 0; d < 3; ++d)
                j[r][d] = read_only(data.inv_jacobian + (3 * r + d) * data.jacobian_stride + p);
            jxw = read_only(data.JxW + p);
          }
        // the physical gradient G[c][d] = sum_r g[c][r] J^{-1}[r][d]
        Number G[3][3];
#  pragma unroll
        for (unsigned int c = 0; c < 3; ++c)
#  pragma unroll
          for (unsigned int d = 0; d < 3; ++d)
            G[c][d] = g[c][0] * j[0][d] + g[c][1] * j[1][d] + g[c][2] * j[2][d];
        const Number mu     = jxw * (lame.mu_per_point ? read_only(lame.mu_per_point + p) : lame.mu);
        const Number lambda = jxw * (lame.lambda_per_point ? read_only(lame.lambda_per_point + p) : lame.lambda);
        const Number div    = lambda * (G[0][0] + G[1][1] + G[2][2]);
        // sigma = mu (G + G^T) + lambda div I (symmetric), then back: g[c][r] = sum_d sigma[c][d] J^{-1}[r][d]
        Number s[3][3];
#  pragma unroll
        for (unsigned int c = 0; c < 3; ++c)
#  pragma unroll
          for (unsigned int d = c; d < 3; ++d)
            s[c][d] = s[d][c] = mu * (G[c][d] + G[d][c]) + (c == d ? div : Number(0));
#  pragma unroll
        for (unsigned int c = 0; c < 3; ++c)
#  pragma unroll
          for (unsigned int r = 0; r < 3; ++r)
            g[c][r] = s[c][0] * j[r][0] + s[c][1] * j[r][1] + s[c][2] * j[r][2];
      }

    private:
      const LameCoefficients<Number> &lame;
      Number                          jinv[3][3] = {};
      Number                          column_jxw = 0;
    };
#endif
  } // namespace internal
} // namespace gpumf

#endif
