/**
 * @file gpumf/cost_model.h
 * A bytes-and-flops model of one operator application per cell, used to choose between
 * the tensor-product (sum factorization) and the local-matrix implementation.
 *
 * Per cell, double precision, p = degree, n = n_components * (p+1)^dim DoFs, Q = n_q^dim points:
 * @verbatim
 *   tensor product  bytes: 16 n_c p^dim (src, dst; shared DoFs counted once) + 4 n (indices)
 *                          + 8 Q (dim^2 + 1 + coefficients) (inverse Jacobian, JxW, kappa/a)
 *                   flops: 4 n_c dim Q (p+1) (interpolation there and back)
 *                          + 4 n_c dim Q n_q (collocation gradients there and back) + 4 dim^2 Q
 *   local matrix    bytes: 16 n_c p^dim + 4 n + 8 n^2 (per-cell matrices; 0 when shared)
 *                   flops: 2 n^2
 *   time = max(bytes / bandwidth, flops / peak)
 * @endverbatim
 * with bandwidth 3.0e12 B/s and peak 3.4e13 flop/s (H100 SXM, FP64 without tensor cores).
 * The model counts each cell's vector entries once and ignores caches; the benchmark
 * program (doc/performance.md) measures what it predicts.
 */
#ifndef gpumf_cost_model_h
#define gpumf_cost_model_h

#include <algorithm>
#include <cmath>

namespace gpumf
{
  /// How a ready-made operator is applied (MatrixFree::AdditionalData::implementation).
  enum class Implementation
  {
    automatic,      ///< by the cost model below
    tensor_product, ///< sum factorization (FEEvaluation)
    local_matrix    ///< dense element matrices (LocalMatrixOperator)
  };

  /// Modelled time in seconds of one application on one cell (see the file documentation).
  struct CostModel
  {
    double bandwidth = 3.0e12;
    double peak      = 3.4e13;

    double
    tensor_product(const int dim, const unsigned int degree, const unsigned int n_q_1d, const unsigned int n_components,
                   const unsigned int n_coefficients) const
    {
      const double p = degree, nq = n_q_1d, nc = n_components, Q = std::pow(nq, dim);
      const double n = nc * std::pow(p + 1, dim);
      const double bytes = 16 * nc * std::pow(p, dim) + 4 * n + 8 * Q * (dim * dim + 1 + n_coefficients);
      const double flops = 4 * nc * dim * Q * (p + 1) + 4 * nc * dim * Q * nq + 4 * dim * dim * Q;
      return std::max(bytes / bandwidth, flops / peak);
    }

    double
    local_matrix(const int dim, const unsigned int degree, const unsigned int n_components, const bool shared) const
    {
      const double p = degree, nc = n_components, n = nc * std::pow(p + 1, dim);
      const double bytes = 16 * nc * std::pow(p, dim) + 4 * n + (shared ? 0. : 8 * n * n);
      return std::max(bytes / bandwidth, 2 * n * n / peak);
    }
  };
} // namespace gpumf

#endif
