// The geometry of gpumf::MatrixFree (what deal.II's CPU MatrixFree keeps in its mapping_info):
// the quadrature points, JxW and inverse Jacobians of its cells, in the backend's memory.
#ifndef gpumf_source_matrix_free_geometry_h
#define gpumf_source_matrix_free_geometry_h

#include <deal.II/base/quadrature.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/tria.h>

#include <gpumf/matrix_free.h>

#include <mpi.h>

#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// MatrixFree's geometry arrays (layout: MatrixFree's documentation) and what they hold.
    template <int dim, typename Number>
    struct GeometryArrays
    {
      Array<dealii::Point<dim, Number>> &q_points;
      Array<Number>                     &JxW;
      Array<Number>                     &inv_jacobian;
      /// one Jacobian per cell on this rank (JxW holds det J per cell)
      bool affine = false;
      /// affine, and the same Jacobian for all cells on all ranks
      bool uniform = false;
    };

    /**
     * Fills @p arrays for @p cells (color order) with the tensor-product quadrature @p quad
     * (x fastest) in @p backend's memory.
     *
     * A polynomial mapping (MappingQ, MappingQ1, MappingQCache: deal.II's MappingQ and what derives
     * from it) gives its support points per cell on the host, in deal.II's threads; the backend's
     * geometry kernel evaluates points and Jacobians from them (geometry_kernels.h). Any other
     * mapping: FEValues per cell in deal.II's threads, copied to the backend. Either way the
     * Jacobians are tested for being constant within each cell (1e-12 relative): per cell where
     * all are and @p storage allows, else per point. Collective (the uniform test).
     */
    template <int dim, typename Number>
    void
    setup_geometry(const dealii::Mapping<dim>                                            &mapping,
                   const dealii::Quadrature<1>                                           &quad,
                   const std::vector<typename dealii::Triangulation<dim>::cell_iterator> &cells,
                   const typename MatrixFree<dim, Number>::GeometryStorage                storage,
                   const Backend                                                          backend,
                   const MPI_Comm                                                         comm,
                   const bool                                                             with_mpi,
                   GeometryArrays<dim, Number>                                           &arrays);

    /**
     * The (degree + 1)^dim support points of the polynomial mapping @p mapping on @p cell
     * (MappingQ's compute_mapping_support_points(), MappingQCache's cached ones included) in
     * lexicographic order (x fastest), as the geometry kernel reads them, into
     * @p out[i * dim + d]. Throws ExcInternalError where the mapping gives another count.
     */
    template <int dim>
    void
    lexicographic_support_points(const dealii::MappingQ<dim>                              &mapping,
                                 const typename dealii::Triangulation<dim>::cell_iterator &cell,
                                 double                                                   *out);
  } // namespace internal
} // namespace gpumf

#endif
