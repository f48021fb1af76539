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
#include <deal.II/lac/affine_constraints.h>

#include <gpumf/internal/face_data.h>
#include <gpumf/internal/memory.h>

#include <mpi.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * A continuous element's constraint lines of the ghost cells across the faces of the
     * object's cells, from the ranks that own them (this rank's AffineConstraints may lack the
     * hanging-node lines of a ghost cell that a coarser cell invisible here touches).
     */
    struct GhostCellLines
    {
      /// per ghost cell (its CellId as a string), per DoF of the cell (deal.II's order): 0
      /// unconstrained, 1 constrained (with the entries of lines, none for a Dirichlet DoF)
      std::map<std::string, std::vector<unsigned char>>                                                   constrained;
      std::map<std::string, std::vector<std::vector<std::pair<dealii::types::global_dof_index, double>>>> lines;
      /// the entries of the lines owned by other ranks (the vectors' ghosts must hold them)
      std::vector<dealii::types::global_dof_index> masters;
    };

    /// The GhostCellLines of @p cells' face neighbours that are not among @p cells: from their
    /// owners where other ranks own them (collective over @p comm where @p with_mpi), from
    /// @p constraints where this rank does (cells an iterator filter left out of the object).
    template <int dim, typename Number>
    GhostCellLines
    ghost_cell_lines(const std::vector<typename dealii::DoFHandler<dim>::cell_iterator> &cells,
                     const dealii::DoFHandler<dim>                                      &dof,
                     const dealii::AffineConstraints<Number>                            &constraints,
                     MPI_Comm                                                            comm,
                     bool                                                                with_mpi);

    /**
     * Sets up @p arrays for the cells @p cells (the loops' order; active, locally owned, or the
     * locally owned cells of level @p mg_level if it is valid; a level's faces are those between
     * its cells, which must cover the domain: global refinement) of an element whose 1D basis
     * @p fe_1d is, the 1D quadrature @p quad and @p mapping. Vector indices are local to
     * @p partitioner, whose ghosts must hold the DoFs of the cells across the rank's border.
     * @p dof_numbering is MatrixFree::get_dof_numbering().
     *
     * @p constraints null: a discontinuous element (FE_DGQ and its relatives, or an FESystem of
     * one), each cell's DoFs one block. Else a continuous one (FE_Q, or an FESystem of FE_Q, on
     * the active cells): the sides' DoFs are read through codes (internal/face_data.h), the
     * object's cells' from MatrixFree's own, the ghost cells' made here from @p ghost_lines
     * (ghost_cell_lines(), whose masters the partitioner's ghosts hold); @p constraints (the
     * lines of the locally relevant DoFs, as MatrixFree's reinit() asks) say what the object's
     * cells read of the ghost entries.
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
                const dealii::AffineConstraints<Number>                            *constraints,
                const GhostCellLines                                               *ghost_lines,
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
