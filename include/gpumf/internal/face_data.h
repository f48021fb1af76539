/**
 * @file gpumf/internal/face_data.h
 * What a face functor of MatrixFree::loop() reads about the faces of the cells (topology,
 * geometry at the face points, the 1D tables on the faces), on the object's backend.
 * Filled by source/faces/face_setup.cc; read by gpumf::FEFaceEvaluation.
 */
#ifndef gpumf_internal_face_data_h
#define gpumf_internal_face_data_h

#include <gpumf/config.h>
#include <gpumf/internal/memory.h>

#include <deal.II/base/point.h>

namespace gpumf
{
  namespace internal
  {
    /**
     * The faces of the cells of a MatrixFree object, as the cell-centric face loop sees them.
     *
     * A face is stored once on a rank, with an interior and (inside the domain) an exterior
     * side. The interior side is the cell with the smaller CellId, so that the two ranks of a
     * face between them see the same interior side and compute the same values at its points.
     * The points of face F are numbered in the interior cell's own face axes (the directions
     * other than the face normal, in increasing order, the lower one fastest); the exterior
     * side's own point of canonical point q is permutations[exterior_permutation[F] *
     * n_face_points + q] (its face may be rotated or flipped against the interior one).
     *
     * Per cell of the object (its position r = row_start + cell in the loops' order) and face
     * number f (deal.II's numbering, 2 dim faces):
     * @verbatim
     *   cell_first_dof     [r]              vector index of the cell's first DoF (a DG cell's
     *                                       DoFs are consecutive: first + dof_numbering[l])
     *   face_index         [r * 2dim + f]   F, plus exterior_bit when the cell is F's exterior side
     *   neighbor_first_dof [r * 2dim + f]   the other side's first DoF, invalid at the boundary
     *   neighbor_face_no   [r * 2dim + f]   the other side's face number
     * @endverbatim
     * Per face F and canonical point q, N = n_faces * n_face_points:
     * @verbatim
     *   boundary_id          [F]            deal.II's boundary id; internal_face for inner faces
     *   exterior_permutation [F]            row of permutations of the exterior side
     *   JxW                  [F * nqf + q]                              face area element times weight
     *   normal               [d * N + F * nqf + q]                      unit normal, interior to exterior
     *   inv_jacobian         [((s * dim + e) * dim + d) * N + F*nqf+q]  d xi_e / d x_d of side s (0 interior)
     *   q_points             [F * nqf + q]
     *   shape_on_face        [(side * 2 + k) * n_dofs_1d + i]           k-th derivative of the 1D basis
     *                                                                   function i at 0 (side 0) or 1
     * @endverbatim
     */
    template <int dim, typename Number>
    struct FaceData
    {
      /// Marks a face whose exterior side is the cell of the record.
      static constexpr unsigned int exterior_bit = 1u << 31;
      /// boundary_id of an inner face.
      static constexpr unsigned int internal_face = 0xffffffffu;
      /// neighbor_first_dof at the boundary.
      static constexpr unsigned int no_neighbor = 0xffffffffu;

      const unsigned int               *cell_first_dof       = nullptr;
      const unsigned int               *face_index           = nullptr;
      const unsigned int               *neighbor_first_dof   = nullptr;
      const unsigned char              *neighbor_face_no     = nullptr;
      const unsigned int               *boundary_id          = nullptr;
      const unsigned char              *exterior_permutation = nullptr;
      const unsigned short             *permutations         = nullptr;
      const Number                     *JxW                  = nullptr;
      const Number                     *normal               = nullptr;
      const Number                     *inv_jacobian         = nullptr;
      const dealii::Point<dim, Number> *q_points             = nullptr;
      const Number                     *shape_on_face        = nullptr;
      /// [l]: position of local DoF l (component-major, lexicographic) among the cell's DoFs.
      const unsigned int *dof_numbering = nullptr;
      /// Faces stored on this rank.
      unsigned int n_faces = 0;
      /// Points per face, n_q_points_1d^(dim-1).
      unsigned int n_face_points = 0;
      /// The faces were set up (AdditionalData::mapping_update_flags_inner_faces or _boundary_faces).
      bool available = false;
    };
    /// The arrays behind FaceData, owned by MatrixFree.
    template <int dim, typename Number>
    struct FaceArrays
    {
      Array<unsigned int>               cell_first_dof, face_index, neighbor_first_dof, boundary_id, dof_numbering;
      Array<unsigned char>              neighbor_face_no, exterior_permutation;
      Array<unsigned short>             permutations;
      Array<Number>                     JxW, normal, inv_jacobian, shape_on_face;
      Array<dealii::Point<dim, Number>> q_points;
      unsigned int                      n_faces       = 0;
      unsigned int                      n_face_points = 0;
      bool                              available     = false;

      /// The pointers a face functor reads.
      FaceData<dim, Number>
      data() const;

      std::size_t
      memory_consumption() const;
    };

  } // namespace internal
} // namespace gpumf

#endif
