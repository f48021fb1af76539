// The faces of gpumf::MatrixFree (what deal.II's CPU MatrixFree keeps in its face_info and the
// face part of its mapping_info): which cells meet at each face of each cell, and the geometry at
// the face points, in the backend's memory (layout: internal/face_data.h).
#ifndef gpumf_source_faces_face_setup_h
#define gpumf_source_faces_face_setup_h

#include <deal.II/base/partitioner.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_poly.h>
#include <deal.II/fe/mapping.h>

#include <gpumf/internal/face_data.h>
#include <gpumf/internal/memory.h>

#include <mpi.h>

#include <string>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * Sets up @p arrays for the cells @p cells (the loops' order; active, locally owned, or the
     * locally owned cells of level @p mg_level if it is valid; a level's faces are those between
     * its cells, which must cover the domain: global refinement) of a
     * discontinuous element @p fe (FE_DGQ and its relatives, or an FESystem of one, whose 1D
     * basis @p fe_1d is), the 1D quadrature @p quad and @p mapping. Vector indices are local to
     * @p partitioner, whose ghosts must hold the DoFs of the cells across the rank's border.
     * @p dof_numbering is MatrixFree::get_dof_numbering().
     *
     * The geometry comes from FEValues on each side of each face, at the face points placed in
     * the cell's own face axes; the exterior side's subface and point order (rotated and
     * flipped faces of 3D meshes) come from the mesh's vertex numbers. Collective: every rank learns of the first error
     * on any rank, and all throw it.
     */
    template <int dim, typename Number>
    void
    setup_faces(const dealii::Mapping<dim>                                         &mapping,
                const dealii::Quadrature<1>                                        &quad,
                const dealii::FE_Poly<dim>                                         &fe_1d,
                const std::vector<typename dealii::DoFHandler<dim>::cell_iterator> &cells,
                const std::vector<unsigned int>                                    &dof_numbering,
                const dealii::Utilities::MPI::Partitioner                          &partitioner,
                const Backend                                                       backend,
                const MPI_Comm                                                      comm,
                const bool                                                          with_mpi,
                unsigned int                                                        mg_level,
                FaceArrays<dim, Number>                                            &arrays);

    /// The 1D basis of @p fe (lexicographic) at the points @p x: values [q * n + i] and first
    /// derivatives, from its tensor-product polynomials (FE_Q, FE_DGQ and relatives).
    /// The polynomials @p basis at the points @p x: values [q * n + i] and first derivatives.
    void
    basis_1d(const std::vector<dealii::Polynomials::Polynomial<double>> &basis,
             const std::vector<double>                                  &x,
             std::vector<double>                                        &values,
             std::vector<double>                                        &derivatives);

    template <int dim>
    void
    basis_1d(const dealii::FE_Poly<dim> &fe,
             const std::vector<double>  &x,
             std::vector<double>        &values,
             std::vector<double>        &derivatives);
  } // namespace internal
} // namespace gpumf

#endif
