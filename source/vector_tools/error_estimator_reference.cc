// The host reference of gpumf::KellyErrorEstimator's kernels: plain loops over the items and the
// cells.
#include "vector_tools/error_estimator_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      template <int dim, typename Number>
      void
      kelly_face_integrals(const KellyData<dim, Number> &k)
      {
        for (unsigned int item = 0; item < k.n_items; ++item)
          k.item_integral[item] = kelly_item<dim>(k, item);
      }

      template <int dim, typename Number>
      void
      kelly_cell_errors(const KellyData<dim, Number> &k)
      {
        for (unsigned int cell = 0; cell < k.n_cells; ++cell)
          k.cell_error[cell] = kelly_cell(k, cell);
      }

      template <int dim, typename Number>
      void
      kelly_neumann_points(const KellyData<dim, Number> &k)
      {
        for (unsigned int item = 0; item < k.n_items; ++item)
          kelly_neumann_point<dim>(k, item);
      }

      GPUMF_KELLY_KERNELS(2, double, template)
      GPUMF_KELLY_KERNELS(3, double, template)
      GPUMF_KELLY_KERNELS(2, float, template)
      GPUMF_KELLY_KERNELS(3, float, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
