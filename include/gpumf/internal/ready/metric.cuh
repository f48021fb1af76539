/**
 * @file gpumf/internal/ready/metric.cuh
 * The geometry of the ready operators at a quadrature point, free of deal.II (the kernel lab
 * uses it too): the symmetric metric kappa JxW J^{-1} J^{-T} (6 numbers) and its product with a
 * reference gradient.
 */
#ifndef gpumf_internal_ready_metric_cuh
#define gpumf_internal_ready_metric_cuh

#include <gpumf/internal/cell_layout.h>

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    /// Numbers of the merged geometry per quadrature point: 6 for the gradient term, 1 for the value term.
    constexpr unsigned int
    metric_entries(const bool with_values, const bool with_gradients)
    {
      return (with_gradients ? 6 : 0) + (with_values ? 1 : 0);
    }

#ifdef __CUDACC__
    /// @p m = @p scale J^{-1} J^{-T} (G00, G01, G02, G11, G12, G22) from the inverse Jacobian whose
    /// entry (r, d) is @p jinv[(3 r + d) * @p stride].
    template <typename Number>
    __device__ inline void
    symmetric_metric(const Number *jinv, const std::size_t stride, const Number scale, Number (&m)[6])
    {
      Number j[3][3];
      for (unsigned int r = 0; r < 3; ++r)
        for (unsigned int d = 0; d < 3; ++d)
          j[r][d] = read_only(jinv + (r * 3 + d) * stride);
      unsigned int e = 0;
      for (unsigned int r = 0; r < 3; ++r)
        for (unsigned int s = r; s < 3; ++s, ++e)
          m[e] = scale * (j[r][0] * j[s][0] + j[r][1] * j[s][1] + j[r][2] * j[s][2]);
    }

    /// (gx, gy, gz) <- m (gx, gy, gz) with the symmetric @p m = (G00, G01, G02, G11, G12, G22).
    template <typename Number>
    __device__ inline void
    apply_symmetric(const Number (&m)[6], Number &gx, Number &gy, Number &gz)
    {
      const Number x = gx, y = gy, z = gz;
      gx = m[0] * x + m[1] * y + m[2] * z;
      gy = m[1] * x + m[3] * y + m[4] * z;
      gz = m[2] * x + m[4] * y + m[5] * z;
    }
#endif
  } // namespace internal
} // namespace gpumf

#endif
