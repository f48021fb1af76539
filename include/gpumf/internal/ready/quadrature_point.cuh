/**
 * @file gpumf/internal/ready/quadrature_point.cuh
 * The quadrature-point operation of the ready coefficient operators (mass, Laplace, Helmholtz)
 * in 3D on the GPU: what the cell operation (lines.cuh) calls at each point. The host reference
 * of the whole cell operation is FEEvaluation's naive path (cell_operator.h runs it on the host
 * backend).
 *
 * Geometry at a point: kappa JxW J^{-1} J^{-T} (6 numbers, symmetric) for the gradient term and
 * a JxW for the value term, merged with the coefficients once at set-up (compute_metric()) on
 * curved meshes; on affine meshes per cell from the inverse Jacobian and JxW, times the
 * quadrature weight (and the coefficients, where set) at the point.
 */
#ifndef gpumf_internal_ready_quadrature_point_cuh
#define gpumf_internal_ready_quadrature_point_cuh

#include <gpumf/internal/ready/metric.cuh>
#include <gpumf/matrix_free.h>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>
#endif

namespace gpumf
{
  namespace internal
  {
    /**
     * What the ready cell operation reads at the quadrature points: on curved meshes the
     * merged geometry (metric_entries() arrays of stride points, gradient entries G00, G01,
     * G02, G11, G12, G22 first, then a JxW); on affine meshes the coefficients (nullptr: 1).
     */
    template <typename Number>
    struct PointData
    {
      const Number *metric               = nullptr;
      std::size_t   stride               = 0;
      const Number *value_coefficient    = nullptr;
      const Number *gradient_coefficient = nullptr;
    };

#ifdef __CUDACC__
    /// metric[e * n + p] for every point p of every cell (see PointData).
    template <typename Number>
    __global__ void
    metric_kernel(const typename MatrixFree<3, Number>::Data data,
                  const std::size_t                          n,
                  const bool                                 with_values,
                  const bool                                 with_gradients,
                  const Number                              *kappa,
                  const Number                              *a,
                  Number                                    *metric)
    {
      for (std::size_t p = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; p < n;
           p += std::size_t(gridDim.x) * blockDim.x)
        {
          const Number jxw = data.JxW[p];
          unsigned int e   = 0;
          if (with_gradients)
            {
              Number m[6];
              symmetric_metric(data.inv_jacobian + p, data.jacobian_stride, jxw * (kappa ? kappa[p] : Number(1)), m);
              for (; e < 6; ++e)
                metric[e * n + p] = m[e];
            }
          if (with_values)
            metric[e * n + p] = jxw * (a ? a[p] : Number(1));
        }
    }

    /// Fills @p metric (PointData) for the points of @p mf (3D, geometry per point) and the
    /// coefficients @p kappa, @p a (nullptr: 1), on the GPU.
    template <typename Number>
    void
    compute_metric(const MatrixFree<3, Number> &mf,
                   const bool                   with_values,
                   const bool                   with_gradients,
                   const Number                *kappa,
                   const Number                *a,
                   Array<Number>               &metric)
    {
      const std::size_t n = std::size_t(mf.n_cells()) * mf.n_q_points();
      metric.reinit(mf.backend(), metric_entries(with_values, with_gradients) * n);
      if (n == 0)
        return;
      const unsigned int blocks = static_cast<unsigned int>(std::min<std::size_t>((n + 255) / 256, 65535));
      metric_kernel<Number><<<blocks, 256>>>(mf.get_data(0), n, with_values, with_gradients, kappa, a, metric.data());
      GPUMF_CHECK_CUDA(cudaGetLastError());
    }


    /**
     * What the ready point operations (CoefficientPoint, ElasticityPoint) share at the column
     * (tx, ty) of a cell: the cell's first point, the column, the 1D weights' ratios along z
     * (@p z_weights[k] = w_k / w_slice, a kernel parameter: the weight of point k is a product),
     * and the cell's geometry: per launch (@p geometry -1), or fixed by the kernel's form (0
     * affine, 1 per point: the affine cell's numbers are then never kept in registers), checked
     * against the MatrixFree object where fixed.
     */
    template <int n_q, typename Number, int geometry>
    struct ColumnPoints
    {
      static constexpr unsigned int Q = n_q * n_q * n_q;

      __device__
      ColumnPoints(const typename MatrixFree<3, Number>::Data &data,
                   const unsigned int                          cell,
                   const Number (&z_weights)[n_q],
                   const unsigned int tx,
                   const unsigned int ty)
        : data(data)
        , z_weights(z_weights)
        , first(std::size_t(data.row_start + cell) * Q)
        , column(tx + n_q * ty)
      {
        if constexpr (geometry >= 0)
          require(data.affine == (geometry == 0),
                  "gpumf: a ready cell kernel of one geometry (affine or per point) ran on a MatrixFree of the "
                  "other: make the cell functor for the MatrixFree it runs on (CellOperator::make()).");
      }

      __device__ bool
      affine() const
      {
        if constexpr (geometry < 0)
          return data.affine;
        else
          return geometry == 0;
      }

      const typename MatrixFree<3, Number>::Data &data;
      const Number (&z_weights)[n_q];
      const std::size_t  first;
      const unsigned int column;
    };

    /**
     * The quadrature-point operation of the coefficient operators at point (tx, ty, k) of a
     * cell: value *= a JxW, reference gradient g -> kappa JxW J^{-1} J^{-T} g.
     */
    template <int n_q, typename Number, bool with_values, bool with_gradients, int geometry = -1>
    struct CoefficientPoint : ColumnPoints<n_q, Number, geometry>
    {
      using Column = ColumnPoints<n_q, Number, geometry>;
      using Column::affine;
      using Column::column;
      using Column::data;
      using Column::first;
      using Column::z_weights;

      /// Per cell: on affine meshes JxW J^{-1} J^{-T}, JxW and the quadrature weight of the
      /// thread's column at k = @p weight_slice (ColumnPoints for the rest).
      __device__
      CoefficientPoint(const typename MatrixFree<3, Number>::Data &data,
                       const unsigned int                          cell,
                       const PointData<Number>                     points,
                       const Number (&z_weights)[n_q],
                       const unsigned int weight_slice,
                       const unsigned int tx,
                       const unsigned int ty)
        : Column(data, cell, z_weights, tx, ty)
        , points(points)
      {
        if (affine())
          {
            const unsigned int c = data.row_start + cell;
            jxw                  = read_only(data.JxW + c);
            symmetric_metric(data.inv_jacobian + c, data.jacobian_stride, jxw, g);
            column_weight = read_only(data.quadrature_weights + column + n_q * n_q * weight_slice);
          }
        else
          require(points.metric != nullptr,
                  "gpumf: a ready cell functor without the merged geometry runs on a MatrixFree with geometry per "
                  "point: make it for that MatrixFree (CellOperator::make() with the metric), or use the operator's "
                  "cell_operator().");
      }

      __device__ void
      operator()(const unsigned int k, Number &value, Number &gx, Number &gy, Number &gz) const
      {
        const unsigned int q = column + n_q * n_q * k;
        const std::size_t  p = first + q;
        Number             m[6];
        Number             value_scale = 0;
        if (affine())
          {
            const Number w = column_weight * z_weights[k];
            if constexpr (with_gradients)
              {
                const Number scale = points.gradient_coefficient ? w * read_only(points.gradient_coefficient + p) : w;
#  pragma unroll
                for (unsigned int e = 0; e < 6; ++e)
                  m[e] = scale * g[e];
              }
            if constexpr (with_values)
              value_scale = jxw * (points.value_coefficient ? w * read_only(points.value_coefficient + p) : w);
          }
        else // merged geometry (CoefficientCellOperator::make() requires it here)
          {
            if constexpr (with_gradients)
#  pragma unroll
              for (unsigned int e = 0; e < 6; ++e)
                m[e] = read_only(points.metric + e * points.stride + p);
            if constexpr (with_values)
              value_scale = read_only(points.metric + (with_gradients ? 6 : 0) * points.stride + p);
          }
        if constexpr (with_values)
          value *= value_scale;
        if constexpr (with_gradients)
          apply_symmetric(m, gx, gy, gz);
      }

    private:
      const PointData<Number> points;
      Number                  g[6]          = {};
      Number                  jxw           = 0;
      Number                  column_weight = 0;
    };

    /**
     * A quadrature-point operation that also sums what it gives against what it got,
     * value' value + grad' . grad: over a cell's points (and components) the cell's energy
     * u_c . (A_c u_c) of a symmetric form (conjugate gradients' p . Ap cell by cell). @p energy:
     * the calling thread's sum, in registers.
     */
    template <typename Point, typename Number, bool with_values, bool with_gradients>
    struct EnergyPoint
    {
      const Point &point;
      Number      &energy;

      __device__ void
      operator()(const unsigned int k, Number &value, Number &gx, Number &gy, Number &gz) const
      {
        const Number v = value, x = gx, y = gy, z = gz;
        point(k, value, gx, gy, gz);
        if constexpr (with_values)
          energy += v * value;
        if constexpr (with_gradients)
          energy += x * gx + y * gy + z * gz;
      }
    };
#endif
  } // namespace internal
} // namespace gpumf

#endif
