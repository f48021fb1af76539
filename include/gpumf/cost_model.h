/**
 * @file gpumf/cost_model.h
 * A bytes-and-flops model of one operator application per cell, used to choose between
 * the tensor-product (sum factorization) and the local-matrix implementation.
 *
 * Per cell, double precision, p = degree, n = n_components * (p+1)^dim DoFs, Q = n_q^dim points:
 * @verbatim
 *   tensor product  bytes: 16 n_c p^dim (src, dst; shared DoFs counted once) + 4 n (indices)
 *                          + 8 G (geometry: Q (dim^2 + 1) with gradients, Q without; per point,
 *                                 or dim^2 + 1 resp. 1 per cell for affine geometry;
 *                                 merged (3D ready operators, per point): Q (dim (dim+1)/2
 *                                 with gradients + 1 with values), coefficients included)
 *                          + 8 Q n_coefficients (kappa, a; not with merged geometry)
 *                   flops: 2 n_c sum_d n_q^(d+1) (p+1)^(dim-d) there and back (interpolation)
 *                          + 4 n_c dim Q n_q (collocation gradients there and back) + pointwise work
 *   local matrix    bytes: 16 n_c p^dim + 4 n + 8 n^2 (per-cell matrices; 0 when shared)
 *                   flops: 2 n^2
 *   on the fly      bytes: 16 n_c p^dim + 4 n + 8 G (the geometry, as above; nothing stored)
 *                   flops: n^2 / n_c (2 (1 + dim (dim+1)/2) + 2) with affine geometry,
 *                          n^2 / n_c (Q (4 dim^2 + 6 dim + 4) + 2) with geometry per point
 *   time = max(bytes / bandwidth, flops / peak)
 * @endverbatim
 * with the bandwidth and FP64 peak of the device (CostModel::of(): queried from the CUDA device;
 * on the host backend the figures of an H100 SXM, 3.0e12 B/s and 3.4e13 flop/s, so that the host
 * reference chooses as a GPU run it is compared with). Products that read rows (an assembled CSR
 * matrix, a stencil, Gauss-Seidel sweeps) have their bytes and flops in RowTraffic.
 * The model counts each cell's vector entries once and ignores caches; the benchmark
 * program (doc/performance.md) measures what it predicts.
 */
#ifndef gpumf_cost_model_h
#define gpumf_cost_model_h

#include <gpumf/backend.h>

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

  /**
   * Bytes and flops of one application of a tensor-product (sum factorization) or
   * local-matrix operator on one cell, in double precision unless @p number_bytes says
   * otherwise. Used to pick an implementation (CostModel) and by the benchmark for its
   * roofline (doc/performance.md gives the derivation).
   */
  struct CellTraffic
  {
    int          dim;
    unsigned int degree;
    unsigned int n_q_1d;
    unsigned int n_components   = 1;
    bool         with_values    = true;
    bool         with_gradients = true;
    /// coefficient arrays read per quadrature point (0, 1 or 2)
    unsigned int n_coefficients = 0;
    /// geometry per cell (one inverse Jacobian and determinant) instead of per point
    bool affine_geometry = false;
    /// per point: the symmetric kappa JxW J^{-1} J^{-T} and a JxW, coefficients merged in
    /// (the lines kernel of the 3D ready operators), instead of J^{-1}, JxW and coefficients
    bool         merged_geometry = false;
    unsigned int number_bytes    = 8;

    double
    dofs() const
    {
      return n_components * std::pow(degree + 1., dim);
    }

    /// Bytes of the source and destination vectors per cell, each DoF shared with the
    /// neighbours counted once (n_components p^dim per cell): the per-cell share of 16 N.
    double
    vector_bytes() const
    {
      return 2. * number_bytes * n_components * std::pow(double(degree), dim);
    }

    /// Numbers of geometry read per cell: JxW (mass), plus the inverse Jacobian (gradients).
    double
    geometry_numbers() const
    {
      const double per_point = with_gradients ? dim * dim + 1. : 1.;
      if (affine_geometry)
        return per_point;
      if (merged_geometry)
        return ((with_gradients ? dim * (dim + 1) / 2. : 0.) + (with_values ? 1. : 0.)) * std::pow(double(n_q_1d), dim);
      return per_point * std::pow(double(n_q_1d), dim);
    }

    /// Bytes the tensor-product operator must move per cell beyond the vectors: DoF
    /// indices (4 bytes each), geometry and coefficients.
    double
    tensor_product_cell_bytes() const
    {
      const double coefficients = merged_geometry && !affine_geometry ? 0. : n_coefficients;
      return 4 * dofs() + number_bytes * (geometry_numbers() + coefficients * std::pow(double(n_q_1d), dim));
    }

    /// Flops of sum factorization as gpumf runs it: interpolation to the points one
    /// direction at a time and back, collocation derivatives there and back, geometry.
    double
    tensor_product_flops() const
    {
      const double nd = degree + 1, nq = n_q_1d, Q = std::pow(nq, dim);
      double       interpolation = 0;
      for (int d = 0; d < dim; ++d)
        interpolation += std::pow(nq, d + 1) * std::pow(nd, dim - 1 - d) * 2 * nd;
      const double derivatives = with_gradients ? dim * Q * 2 * nq : 0;
      const double pointwise   = (with_gradients ? 4. * dim * dim + dim : 0) + (with_values ? 2 : 0);
      return n_components * (2 * (interpolation + derivatives) + pointwise * Q);
    }

    /// Bytes of the local-matrix operator per cell beyond the vectors (indices and, unless
    /// one matrix serves all cells, the cell's matrix).
    double
    local_matrix_cell_bytes(const bool shared_matrix) const
    {
      return 4 * dofs() + (shared_matrix ? 0 : number_bytes * dofs() * dofs());
    }

    double
    local_matrix_flops() const
    {
      return 2 * dofs() * dofs();
    }

    /// Bytes of the element matrices computed on the fly (LocalMatrixOperator::Storage::on_the_fly)
    /// beyond the vectors: indices and geometry (the reference data is shared and cached).
    double
    on_the_fly_cell_bytes() const
    {
      return 4 * dofs() + number_bytes * geometry_numbers();
    }

    /// Flops of computing the nonzero (same-component) entries and applying them: a few per
    /// entry from reference matrices (affine), a sum over the quadrature points per entry else.
    double
    on_the_fly_flops() const
    {
      const double entries = dofs() * dofs() / n_components;
      if (affine_geometry)
        return entries * (2 * (1 + dim * (dim + 1) / 2) + 2);
      return entries * (std::pow(double(n_q_1d), dim) * (4. * dim * dim + 6. * dim + 4.) + 2);
    }
  };

  /**
   * Bytes and flops of one product that reads rows: an assembled matrix (SparseMatrix), a stencil
   * (StencilOperator) or the rows of a Gauss-Seidel sweep (MultiColorGaussSeidel). Source and
   * destination entries are counted once per row, the stored data (values, indices) as given.
   */
  struct RowTraffic
  {
    double       rows;         ///< matrix rows or grid points
    double       entries;      ///< nonzeros of all rows (3^dim per point for a stencil)
    double       stored_bytes; ///< matrix data read by one product (0 for a constant stencil)
    unsigned int number_bytes = 8;

    /// dst = A src: src read, dst written
    double
    vmult_bytes() const
    {
      return rows * 2. * number_bytes + stored_bytes;
    }

    /// One multi-color sweep: x read by each of the @p n_colors passes, b read and x written once.
    double
    sweep_bytes(const unsigned int n_colors) const
    {
      return rows * number_bytes * (n_colors + 2.) + stored_bytes;
    }

    /// A multiply and an add per entry.
    double
    flops() const
    {
      return 2. * entries;
    }
  };

  /// Modelled time in seconds of one application on one cell (see the file documentation).
  struct CostModel
  {
    /// Memory bandwidth in bytes per second and FP64 peak in flop/s.
    double bandwidth = 3.0e12;
    double peak      = 3.4e13;

    /**
     * The model of the device behind @p backend: for Backend::cuda the current device's
     * bandwidth (memory clock x bus width, double data rate) and FP64 peak (multiprocessors x
     * clock x FP64 units per multiprocessor of its architecture, an FMA counted as two flops);
     * for Backend::host the defaults above.
     */
    static CostModel
    of(Backend backend);

    double
    tensor_product(const CellTraffic &cell) const
    {
      return std::max((cell.vector_bytes() + cell.tensor_product_cell_bytes()) / bandwidth,
                      cell.tensor_product_flops() / peak);
    }

    double
    local_matrix(const CellTraffic &cell, const bool shared) const
    {
      return std::max((cell.vector_bytes() + cell.local_matrix_cell_bytes(shared)) / bandwidth,
                      cell.local_matrix_flops() / peak);
    }

    double
    on_the_fly(const CellTraffic &cell) const
    {
      return std::max((cell.vector_bytes() + cell.on_the_fly_cell_bytes()) / bandwidth, cell.on_the_fly_flops() / peak);
    }
  };
} // namespace gpumf

#endif
