// The kernels of gpumf::MatrixFree's geometry: quadrature points, Jacobians and their inverses
// from the mapping's support points (a polynomial mapping: deal.II's MappingQ, MappingQ1,
// MappingQCache). The naive host reference in geometry_reference.cc, CUDA in
// geometry_kernels.cu (core/executor.h: one list, both executors).
#ifndef gpumf_source_matrix_free_geometry_kernels_h
#define gpumf_source_matrix_free_geometry_kernels_h

#include <cmath>
#include <cstddef>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /// The bits of MappingGeometry::flags.
    constexpr unsigned int cell_curved = 1, cell_distorted = 2;

    /**
     * The affine test of a cell at one of its points: whether det J or J^-1 there differ from
     * point 0's by more than 1e-12 relative (det: to |det J_0|; J^-1: to the largest entry of
     * J_0^-1), in double. @p inverse and @p inverse_0 are indexed [e][d].
     */
    template <int dim, typename Matrix, typename Matrix0>
    GPUMF_HOST_DEVICE inline bool
    differs_from_point_0(const double det, const double det_0, const Matrix &inverse, const Matrix0 &inverse_0)
    {
      double scale = 0;
      for (unsigned int e = 0; e < dim; ++e)
        for (unsigned int d = 0; d < dim; ++d)
          scale = fmax(scale, fabs(double(inverse_0[e][d])));
      bool differs = fabs(det - det_0) > 1e-12 * fabs(det_0);
      for (unsigned int e = 0; e < dim; ++e)
        for (unsigned int d = 0; d < dim; ++d)
          differs = differs || fabs(double(inverse[e][d]) - double(inverse_0[e][d])) > 1e-12 * scale;
      return differs;
    }

    /**
     * One MatrixFree object's cells (color order) and what the geometry kernel writes.
     *
     * The mapping of a cell is x(xi) = sum_i X_i phi_i(xi), phi_i the tensor products of the 1D
     * Lagrange polynomials on the mapping's n_support_1d support points, i lexicographic (x
     * fastest); the quadrature is the tensor product of n_q_1d points (x fastest), n_q = n_q_1d^dim
     * per cell, n_total = n_cells * n_q. All in double; the outputs rounded to Number when stored.
     */
    template <int dim, typename Number>
    struct MappingGeometry
    {
      /// [(c * n_support + i) * dim + d]: support point i of cell c, n_support = n_support_1d^dim
      const double *support;
      /// [q * n_support_1d + i]: phi_i(xi_q) of the 1D basis at the 1D quadrature point q
      const double *values;
      /// [q * n_support_1d + i]: phi_i'(xi_q)
      const double *derivatives;
      unsigned int  n_support_1d;
      unsigned int  n_q_1d;
      unsigned int  n_cells;
      /// [(c * n_q + q) * dim + d]: the quadrature points (Point<dim, Number> each)
      Number *points;
      /// [c]: det J at point 0 of each cell; [(e * dim + d) * n_cells + c]: (J^-1)_ed = d xi_e / d x_d there
      Number *cell_det, *cell_inverse;
      /// [c]: the flags of cell c: curved (det J or J^-1 at some point differs from point 0's by more
      /// than 1e-12 relative; det: to |det J_0|, J^-1: to its largest entry at point 0) and
      /// distorted (det J <= 0 at some point); the kernel sets them, the caller zeroes them before
      unsigned int *flags;
      /// per point, where not null: [c * n_q + q] det J * w_q; [(e * dim + d) * n_total + c * n_q + q] J^-1
      Number *JxW, *inv_jacobian;
      /// [q]: the tensor-product quadrature weights w_q (read where JxW is written)
      const double *weights;
    };
  } // namespace internal
} // namespace gpumf

#define GPUMF_GEOMETRY_KERNELS(dim, Number, TEMPLATE)                                                \
  /* writes g's points, cell_det, cell_inverse and flags, and JxW and inv_jacobian where not null */ \
  TEMPLATE void mapping_geometry(const MappingGeometry<dim, Number> &g);

#define GPUMF_GEOMETRY_REDUCTIONS(Number, TEMPLATE)              \
  /* low = min, high = max of values[0, n) (n > 0), in double */ \
  TEMPLATE void value_range(const Number *values, std::size_t n, double &low, double &high);

// what each implementation file instantiates: dim 2, 3; float, double
#define GPUMF_GEOMETRY_INSTANTIATIONS         \
  GPUMF_GEOMETRY_KERNELS(2, float, template)  \
  GPUMF_GEOMETRY_KERNELS(2, double, template) \
  GPUMF_GEOMETRY_KERNELS(3, float, template)  \
  GPUMF_GEOMETRY_KERNELS(3, double, template) \
  GPUMF_GEOMETRY_REDUCTIONS(float, template)  \
  GPUMF_GEOMETRY_REDUCTIONS(double, template)

GPUMF_DECLARE_KERNELS(GPUMF_GEOMETRY_KERNELS(dim, Number, GPUMF_TEMPLATE_DIM_NUMBER)
                        GPUMF_GEOMETRY_REDUCTIONS(Number, template <typename Number>)
                      /* the first k < n with (flags[k] & mask) != 0, n if none */
                      std::size_t first_with(const unsigned int *flags, std::size_t n, unsigned int mask);)

#endif
