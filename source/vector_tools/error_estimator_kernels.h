// The kernels of gpumf::KellyErrorEstimator: the jump of the normal derivative integrated over
// each face piece (an "item": two cell sides at the same points, or a Neumann boundary face), and
// each cell's indicator from its items. CUDA in error_estimator_kernels.cu, the host reference in
// error_estimator_reference.cc (core/executor.h: one list, both executors). Both evaluate a
// point with kelly_point() below: the function, the mapping and their derivatives as full sums
// over the cell's DoFs and support points with the 1D bases at the point's coordinates, naive
// and independent of MatrixFree's factorized kernels; the independent reference of both is
// deal.II's own KellyErrorEstimator (tests/error_estimator_test.cc).
#ifndef gpumf_source_vector_tools_error_estimator_kernels_h
#define gpumf_source_vector_tools_error_estimator_kernels_h

#include <gpumf/config.h>

#include <cmath>
#include <cstddef>

#include "core/executor.h"
#include "faces/point_order.h"

namespace gpumf
{
  namespace internal
  {
    /**
     * What the kernels read and write. A point's coordinate in each direction is one of the
     * n_x = 2 + 3 n_q abscissae of the tables: 0, 1, the 1D quadrature points x_k (a whole face),
     * x_k / 2 and (x_k + 1) / 2 (the two halves of a refined face); k < n_q.
     *
     * A side of an item is (cell slot, face number f, subface s): its point q (face_points() of
     * faces/face_topology.h: the face's own axes, the lower one fastest; on subface sa + 2 sb the
     * coordinates halved and moved) lies at coordinate f % 2 in direction f / 2. Side 0 (A) is the
     * one whose normal and JxW the integral takes (deal.II's choice: the cell of lower index on a
     * regular face, the fine cell on a hanging one); side 1 (B) sees A's point q as its point
     * point_in_order(order, q).
     */
    template <int dim, typename Number>
    struct KellyData
    {
      unsigned int         n_dofs_1d;    // FE_Q degree + 1
      unsigned int         n_components; // FESystem of one FE_Q: its multiplicity
      unsigned int         n_support_1d; // the mapping's degree + 1
      unsigned int         n_q;          // 1D face quadrature points
      unsigned int         n_items;
      unsigned int         n_cells;   // locally owned cells with an indicator
      const double        *fe_values; // [x * n_dofs_1d + i]: the FE's 1D basis (lexicographic) at abscissa x
      const double        *fe_derivatives;
      const double        *map_values; // [x * n_support_1d + i]: the mapping's 1D basis
      const double        *map_derivatives;
      const double        *weights;      // [k]: the 1D quadrature weights
      const Number        *solution;     // the solution, locally owned and ghost entries (local indices)
      const unsigned int  *dofs;         // [(slot * n_components + c) * n_dofs_1d^dim + i]: local index, lexicographic
      const double        *support;      // [(slot * n_support_1d^dim + i) * dim + d]: the mapping's support points
      const unsigned int  *item_slot;    // [2 * item + side]
      const unsigned char *item_face;    // [2 * item + side]: face number
      const unsigned char *item_subface; // [2 * item + side]: subface, or 255 for the whole face
      const unsigned char *item_order;   // [item]: B's point order
      const unsigned char *item_kind;    // [item]: kelly_boundary, kelly_crossed
      const double        *item_factor;  // [item]: the strategy's factor of the face
      const unsigned int  *item_neumann; // [item]: first entry of neumann_values (a Neumann face)
      const double        *neumann_values;  // [(first + q) * n_components + c]: g at A's points
      const unsigned char *component_mask;  // [c]
      double              *item_integral;   // [item]: output of kelly_face_integrals
      const unsigned int  *cell_first_item; // [cell], n_cells + 1 entries
      const unsigned int  *cell_items;      // [cell_first_item[cell] ...]: its items
      const double        *cell_factor;     // [cell]
      float               *cell_error;      // [cell]: output of kelly_cell_errors
      double              *points;          // [(first + q) * dim + d]: output of kelly_neumann_points
    };

    /// KellyData::item_kind: a boundary face in the Neumann map (no side B: jump = du/dn - g).
    constexpr unsigned char kelly_boundary = 1;
    /// KellyData::item_kind: a hanging face (A fine, B the coarse neighbour's subface), whose jump
    /// deal.II forms as grad u_B . n_A + grad u_A . n_B (the fine side's normal with the coarse
    /// side's gradient); a regular face's is grad u_A . n_A + grad u_B . n_B.
    constexpr unsigned char kelly_crossed = 2;

    /// The abscissa index of point coordinate k < n_q on a whole face (s = 255) or on half s.
    GPUMF_HOST_DEVICE inline unsigned int
    kelly_abscissa(const unsigned int k, const unsigned int s, const unsigned int n_q)
    {
      return s == 255 ? 2 + k : 2 + n_q * (1 + s) + k;
    }

    /// The abscissa indices of point q of face f (subface s) of a cell.
    template <int dim>
    GPUMF_HOST_DEVICE inline void
    kelly_coordinates(const unsigned int f,
                      const unsigned int s,
                      const unsigned int q,
                      const unsigned int n_q,
                      unsigned int (&x)[dim])
    {
      const unsigned int normal = f / 2;
      x[normal]                 = f % 2;
      const unsigned int a = dim == 3 ? q % n_q : q, b = dim == 3 ? q / n_q : 0;
      const unsigned int sa = s == 255 ? 255 : s % 2, sb = s == 255 ? 255 : s / 2;
      unsigned int       axis = 0;
      for (unsigned int d = 0; d < dim; ++d)
        if (d != normal)
          {
            x[d] = axis == 0 ? kelly_abscissa(a, sa, n_q) : kelly_abscissa(b, sb, n_q);
            ++axis;
          }
    }

    /// Tensor-product basis function @p i (lexicographic, @p n a direction) of the 1D basis
    /// @p values / @p derivatives ([x * n + j]) at the point of abscissae @p x: its value and
    /// reference gradient.
    template <int dim>
    GPUMF_HOST_DEVICE inline void
    kelly_basis(const double      *values,
                const double      *derivatives,
                const unsigned int n,
                const unsigned int i,
                const unsigned int (&x)[dim],
                double &value,
                double (&gradient)[dim])
    {
      value = 1;
      for (unsigned int e = 0; e < dim; ++e)
        gradient[e] = 1;
      for (unsigned int d = 0, r = i; d < dim; ++d, r /= n)
        {
          const double v = values[x[d] * n + r % n], dv = derivatives[x[d] * n + r % n];
          value *= v;
          for (unsigned int e = 0; e < dim; ++e)
            gradient[e] *= e == d ? dv : v;
        }
    }

    /// At point q of side @p side of @p item: the inverse Jacobian (inverse[e][d] = d xi_e / d x_d),
    /// the outward unit normal, |det J| |J^-T n_ref| (JxW without the weight) and the point.
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline void
    kelly_geometry(const KellyData<dim, Number> &k,
                   const unsigned int            slot,
                   const unsigned int            f,
                   const unsigned int (&x)[dim],
                   double (&inverse)[dim][dim],
                   double (&normal)[dim],
                   double &area,
                   double (&point)[dim])
    {
      const unsigned int n   = k.n_support_1d;
      unsigned int       n_s = 1;
      for (unsigned int d = 0; d < dim; ++d)
        n_s *= n;
      double jac[dim][dim] = {};
      for (unsigned int d = 0; d < dim; ++d)
        point[d] = 0;
      const double *support = k.support + std::size_t(slot) * n_s * dim;
      for (unsigned int i = 0; i < n_s; ++i)
        {
          double value, grad[dim];
          kelly_basis<dim>(k.map_values, k.map_derivatives, n, i, x, value, grad);
          for (unsigned int d = 0; d < dim; ++d)
            {
              const double X = support[i * dim + d];
              point[d] += X * value;
              for (unsigned int e = 0; e < dim; ++e)
                jac[d][e] += X * grad[e];
            }
        }
      double det;
      if (dim == 2)
        {
          det           = jac[0][0] * jac[1][1] - jac[0][1] * jac[1][0];
          inverse[0][0] = jac[1][1] / det;
          inverse[0][1] = -jac[0][1] / det;
          inverse[1][0] = -jac[1][0] / det;
          inverse[1][1] = jac[0][0] / det;
        }
      else
        {
          // cofactors
          const unsigned int i1[3] = {1, 2, 0}, i2[3] = {2, 0, 1};
          det = 0;
          for (unsigned int e = 0; e < dim; ++e)
            det += jac[0][e] * (jac[1][i1[e]] * jac[2][i2[e]] - jac[1][i2[e]] * jac[2][i1[e]]);
          for (unsigned int e = 0; e < dim; ++e)
            for (unsigned int d = 0; d < dim; ++d)
              inverse[e][d] = (jac[i1[d % 3]][i1[e % 3]] * jac[i2[d % 3]][i2[e % 3]] -
                               jac[i1[d % 3]][i2[e % 3]] * jac[i2[d % 3]][i1[e % 3]]) /
                              det;
        }
      // J^-T n_ref, n_ref = +-e_{f/2}
      const double sign = f % 2 ? 1. : -1.;
      double       norm = 0;
      for (unsigned int d = 0; d < dim; ++d)
        {
          normal[d] = sign * inverse[f / 2][d];
          norm += normal[d] * normal[d];
        }
      norm = sqrt(norm);
      for (unsigned int d = 0; d < dim; ++d)
        normal[d] /= norm;
      area = fabs(det) * norm;
    }

    /// The reference gradient of component c of the solution on cell slot @p slot at the point
    /// of abscissae @p x.
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline void
    kelly_reference_gradient(const KellyData<dim, Number> &k,
                             const unsigned int            slot,
                             const unsigned int            c,
                             const unsigned int (&x)[dim],
                             double (&gradient)[dim])
    {
      const unsigned int n   = k.n_dofs_1d;
      unsigned int       n_d = 1;
      for (unsigned int d = 0; d < dim; ++d)
        n_d *= n;
      for (unsigned int e = 0; e < dim; ++e)
        gradient[e] = 0;
      const unsigned int *dofs = k.dofs + (std::size_t(slot) * k.n_components + c) * n_d;
      for (unsigned int i = 0; i < n_d; ++i)
        {
          double value, grad[dim];
          kelly_basis<dim>(k.fe_values, k.fe_derivatives, n, i, x, value, grad);
          const double u = double(k.solution[dofs[i]]);
          for (unsigned int e = 0; e < dim; ++e)
            gradient[e] += u * grad[e];
        }
    }

    /// The physical gradient of component c on cell slot @p slot at the point of abscissae @p x:
    /// J^-T times the reference gradient.
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline void
    kelly_gradient(const KellyData<dim, Number> &k,
                   const unsigned int            slot,
                   const unsigned int            c,
                   const unsigned int (&x)[dim],
                   const double (&inverse)[dim][dim],
                   double (&gradient)[dim])
    {
      double reference[dim];
      kelly_reference_gradient<dim>(k, slot, c, x, reference);
      for (unsigned int d = 0; d < dim; ++d)
        {
          gradient[d] = 0;
          for (unsigned int e = 0; e < dim; ++e)
            gradient[d] += inverse[e][d] * reference[e];
        }
    }

    /// The integral of the squared jump over @p item, times its factor (deal.II's
    /// integrate_over_face()).
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline double
    kelly_item(const KellyData<dim, Number> &k, const unsigned int item)
    {
      const unsigned int  n_q      = k.n_q;
      const unsigned int  n_points = dim == 3 ? n_q * n_q : n_q;
      const unsigned char kind     = k.item_kind[item];
      const bool          boundary = (kind & kelly_boundary) != 0, crossed = (kind & kelly_crossed) != 0;
      const unsigned int  slot_a = k.item_slot[2 * item], slot_b = k.item_slot[2 * item + 1];
      const unsigned int  f_a = k.item_face[2 * item], f_b = k.item_face[2 * item + 1];
      const unsigned int  s_a = k.item_subface[2 * item], s_b = k.item_subface[2 * item + 1];
      const unsigned int  order    = k.item_order[item];
      double              integral = 0;
      // deal.II's order: components, then points
      for (unsigned int c = 0; c < k.n_components; ++c)
        if (k.component_mask[c])
          for (unsigned int q = 0; q < n_points; ++q)
            {
              unsigned int x_a[dim], x_b[dim];
              double       inverse_a[dim][dim], normal_a[dim], area_a, point_a[dim];
              double       inverse_b[dim][dim], normal_b[dim], area_b, point_b[dim];
              kelly_coordinates<dim>(f_a, s_a, q, n_q, x_a);
              kelly_geometry<dim>(k, slot_a, f_a, x_a, inverse_a, normal_a, area_a, point_a);
              double grad_a[dim];
              kelly_gradient<dim>(k, slot_a, c, x_a, inverse_a, grad_a);
              double jump = 0;
              if (boundary)
                {
                  for (unsigned int d = 0; d < dim; ++d)
                    jump += grad_a[d] * normal_a[d];
                  if (k.item_neumann[item] != ~0u)
                    jump -= k.neumann_values[(std::size_t(k.item_neumann[item]) + q) * k.n_components + c];
                }
              else
                {
                  // B's point: A's point q under the order's transforms
                  kelly_coordinates<dim>(f_b, s_b, point_in_order<dim>(order, q, n_q), n_q, x_b);
                  kelly_geometry<dim>(k, slot_b, f_b, x_b, inverse_b, normal_b, area_b, point_b);
                  double grad_b[dim];
                  kelly_gradient<dim>(k, slot_b, c, x_b, inverse_b, grad_b);
                  // deal.II: (the first gradient . A's normal) + (the other . B's normal); on a
                  // hanging face the first gradient is the coarse side's (B)
                  double second = 0;
                  for (unsigned int d = 0; d < dim; ++d)
                    {
                      jump += (crossed ? grad_b[d] : grad_a[d]) * normal_a[d];
                      second += (crossed ? grad_a[d] : grad_b[d]) * normal_b[d];
                    }
                  jump += second;
                }
              const unsigned int qa = dim == 3 ? q % n_q : q, qb = dim == 3 ? q / n_q : 0;
              const double       JxW = area_a * k.weights[qa] * (dim == 3 ? k.weights[qb] : 1.);
              integral += jump * jump * JxW;
            }
      return integral * k.item_factor[item];
    }

    /// Cell @p cell's indicator as deal.II forms it: per face in order, the sum of its items (its
    /// subfaces in the order of the face's children) times the cell factor, added to a float
    /// (deal.II sums into its Vector<float>), and the float's square root.
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline float
    kelly_cell(const KellyData<dim, Number> &k, const unsigned int cell)
    {
      float error = 0;
      for (unsigned int f = 0; f < 2 * dim; ++f)
        {
          double face = 0;
          for (unsigned int i = k.cell_first_item[cell * 2 * dim + f]; i < k.cell_first_item[cell * 2 * dim + f + 1];
               ++i)
            face += k.item_integral[k.cell_items[i]];
          error = float(double(error) + face * k.cell_factor[cell]);
        }
      return sqrtf(error);
    }

    /// Side A's points of the Neumann item @p item into k.points.
    template <int dim, typename Number>
    GPUMF_HOST_DEVICE inline void
    kelly_neumann_point(const KellyData<dim, Number> &k, const unsigned int item)
    {
      if (k.item_neumann[item] == ~0u)
        return;
      const unsigned int n_points = dim == 3 ? k.n_q * k.n_q : k.n_q;
      for (unsigned int q = 0; q < n_points; ++q)
        {
          unsigned int x[dim];
          double       inverse[dim][dim], normal[dim], area, point[dim];
          kelly_coordinates<dim>(k.item_face[2 * item], k.item_subface[2 * item], q, k.n_q, x);
          kelly_geometry<dim>(k, k.item_slot[2 * item], k.item_face[2 * item], x, inverse, normal, area, point);
          for (unsigned int d = 0; d < dim; ++d)
            k.points[(std::size_t(k.item_neumann[item]) + q) * dim + d] = point[d];
        }
    }
  } // namespace internal
} // namespace gpumf

#define GPUMF_KELLY_KERNELS(dim, Number, TEMPLATE)                     \
  /* k.item_integral[i] = kelly_item(k, i) for every item */           \
  TEMPLATE void kelly_face_integrals(const KellyData<dim, Number> &k); \
  /* k.cell_error[c] = kelly_cell(k, c) for every cell */              \
  TEMPLATE void kelly_cell_errors(const KellyData<dim, Number> &k);    \
  /* side A's points of every Neumann item into k.points */            \
  TEMPLATE void kelly_neumann_points(const KellyData<dim, Number> &k);

GPUMF_DECLARE_KERNELS(GPUMF_KELLY_KERNELS(dim, Number, GPUMF_TEMPLATE_DIM_NUMBER))

#endif
