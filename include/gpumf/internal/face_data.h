/**
 * @file gpumf/internal/face_data.h
 * What a face functor of MatrixFree::loop() reads about the faces of the cells (topology,
 * geometry at the face points, the 1D tables on the faces), on the object's backend.
 * Filled by source/faces/face_setup.cc; read by gpumf::FEFaceEvaluation.
 */
#ifndef gpumf_internal_face_data_h
#define gpumf_internal_face_data_h

#include <gpumf/config.h>
#include <gpumf/internal/dof_access.h>
#include <gpumf/internal/memory.h>

#include <deal.II/base/point.h>

#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * The faces of the cells of a MatrixFree object, as the cell-centric face loop sees them.
     *
     * A face is stored once on a rank, with an interior and (inside the domain) an exterior
     * side. Between cells of different refinement levels (a hanging face) the face is the fine
     * cell's and its interior side; the coarse cell meets 2^(dim-1) such faces at its face, on
     * one subface each. Between cells of one level the interior side is the cell with the
     * smaller CellId, so that the two ranks of a face between them see the same interior side
     * and compute the same values at its points.
     *
     * The points of face F are numbered in the interior cell's own face axes (the directions
     * other than the face normal, in increasing order, the lower one fastest); the exterior
     * side's own point of point q is permutations[exterior_permutation[F] * n_face_points + q]
     * (its face may be rotated or flipped against the interior one), on its subface
     * exterior_subface[F] (sa + 2 sb in its own face axes; no_subface on a face of one level).
     *
     * The faces of each cell of the object, its position r = row_start + cell in the loops'
     * order, are the entries k of cell_face_start[r] <= k < cell_face_start[r + 1], in the order
     * of its face numbers (and of the subfaces of a face with finer neighbours):
     * @verbatim
     *   entry_face               [k]   F, plus exterior_bit when the cell is F's exterior side
     *   entry_face_no            [k]   the cell's face number
     *   entry_first_dof          [k]   a discontinuous element: vector index of the cell's first
     *                                  DoF (a DG cell's DoFs are consecutive: first + dof_numbering[l]);
     *                                  a continuous one (continuous): the cell's row of codes (below)
     *   entry_neighbor_first_dof [k]   the same of the other side, no_neighbor at the boundary
     *   entry_neighbor_face_no   [k]   the other side's face number
     * @endverbatim
     * A continuous element (FE_Q, an FESystem of FE_Q) reads a side's DoFs through codes
     * (internal/dof_access.h): row r < n_object_cells is the object's cell r, whose codes are
     * MatrixFree::Data::local_to_global[r * dofs_per_cell + l] with Data::constraint_rows (the
     * cell loops' own, hanging nodes through the rows); a row r >= n_object_cells is a ghost cell
     * across the rank's border, ghost_codes[(r - n_object_cells) * dofs_per_cell + l] with
     * ghost_rows, the lines its owner applies (this rank's constraints may lack the hanging-node
     * lines of a ghost cell, which deal.II makes from the coarse side).
     * Per face F and point q, N = n_faces * n_face_points:
     * @verbatim
     *   boundary_id          [F]                                        deal.II's boundary id; internal_face inside
     *   exterior_permutation [F], exterior_subface [F]
     *   JxW                  [F * nqf + q]                              face area element times weight
     *   normal               [d * N + F * nqf + q]                      unit normal, interior to exterior
     *   inv_jacobian         [((s * dim + e) * dim + d) * N + F*nqf+q]  d xi_e / d x_d of side s (0 interior)
     *   q_points             [F * nqf + q]
     *   shape_on_face        [(side * 2 + k) * n_dofs_1d + i]           k-th derivative of the 1D basis
     *                                                                   function i at 0 (side 0) or 1
     *   subface_values       [(s * n_q + q) * n_dofs_1d + i]            phi_i((x_q + s) / 2), s = 0, 1
     *   subface_gradients    [(s * n_q + q) * n_dofs_1d + i]            phi_i'((x_q + s) / 2)
     * @endverbatim
     * The same geometry per entry k, as the running cell sees its face (fused face kernels,
     * which evaluate normal derivatives only; set up where no face is hanging, else nullptr):
     * points q in the running cell's own face axes, its outward normal n, and M = number of
     * entries times n_face_points (per point), or number of entries (entry_metric_affine):
     * @verbatim
     *   entry_metric [j * M + k * nqf + q]   j < dim:        (J^-1 n)_e of the running cell, e its face axes
     *                                                          then its normal axis
     *                                        dim <= j < 2dim: the same for the other side, at the
     *                                                          other side's own point p (below), in its axes
     *                                        j = 2 dim:      JxW (affine: JxW / (w_a w_b), the weights
     *                                                          of the point's face coordinates)
     *   entry_metric [j * M + k]             (entry_metric_affine: the same, constant over the face)
     *   entry_other_point [entry_permutation[k] * nqf + q]   the other side's own point p of point q
     *   face_weights [q]                      the product of the 1D weights of point q's face coordinates
     * @endverbatim
     */
    template <int dim, typename Number>
    struct FaceData
    {
      /// Marks an entry whose cell is the exterior side of its face.
      static constexpr unsigned int exterior_bit = 1u << 31;
      /// boundary_id of an inner face.
      static constexpr unsigned int internal_face = 0xffffffffu;
      /// entry_neighbor_first_dof at the boundary.
      static constexpr unsigned int no_neighbor = 0xffffffffu;
      /// exterior_subface of a face between cells of one level.
      static constexpr unsigned char no_subface = 0xff;
      /// ghost_access levels (DataAccessOnFaces: none; values; gradients, unspecified).
      static constexpr unsigned char ghosts_none = 0, ghosts_values = 1, ghosts_gradients = 2;

      const unsigned int               *cell_face_start          = nullptr;
      const unsigned int               *entry_face               = nullptr;
      const unsigned char              *entry_face_no            = nullptr;
      const unsigned int               *entry_first_dof          = nullptr;
      const unsigned int               *entry_neighbor_first_dof = nullptr;
      const unsigned char              *entry_neighbor_face_no   = nullptr;
      const unsigned int               *boundary_id              = nullptr;
      const unsigned char              *exterior_permutation     = nullptr;
      const unsigned char              *exterior_subface         = nullptr;
      const unsigned short             *permutations             = nullptr;
      const Number                     *JxW                      = nullptr;
      const Number                     *normal                   = nullptr;
      const Number                     *inv_jacobian             = nullptr;
      const dealii::Point<dim, Number> *q_points                 = nullptr;
      const Number                     *shape_on_face            = nullptr;
      const Number                     *subface_values           = nullptr;
      const Number                     *subface_gradients        = nullptr;
      /// [l]: position of local DoF l (component-major, lexicographic) among the cell's DoFs.
      const unsigned int   *dof_numbering     = nullptr;
      const Number         *entry_metric      = nullptr;
      const unsigned char  *entry_permutation = nullptr;
      const unsigned short *entry_other_point = nullptr;
      /// [q]: the weight of face point q (the product of the 1D weights of its face coordinates).
      const Number *face_weights = nullptr;
      /// The object's cells (rows, ascending) with at least one boundary face: a loop of a
      /// boundary face functor alone runs these only.
      const unsigned int *boundary_cells = nullptr;
      /// A continuous element: the ghost cells' codes and constraint lines, see above.
      const unsigned int    *ghost_codes = nullptr;
      ConstraintRows<Number> ghost_rows;
      /// The sides' DoFs are rows of codes (a continuous element), not consecutive blocks.
      bool continuous = false;
      /// Rows of codes below this are the object's cells (a continuous element).
      unsigned int n_object_cells = 0;
      /// Entries of all cells (cell_face_start of the last cell's end).
      unsigned int n_entries = 0;
      /// entry_metric is constant over each face (every face of the object is affine).
      bool entry_metric_affine = false;
      /// dof_numbering is the identity (a cell's DoF l is first + l).
      bool lexicographic_dofs = false;
      /// Faces stored on this rank.
      unsigned int n_faces = 0;
      /// Points per face, n_q_points_1d^(dim-1).
      unsigned int n_face_points = 0;
      /// The locally owned entries of the vectors: DoFs from there on are ghosts.
      unsigned int locally_owned_size = 0;
      /// What loop() exchanged of the source's ghost cells (ghosts_none, ghosts_values: what the
      /// values on the faces read, ghosts_gradients: what values and gradients read, or more).
      /// Reading a ghost cell's DoFs with ghosts_none, or evaluating its gradients with
      /// ghosts_values, stops the loop with a message.
      unsigned char ghost_access = ghosts_gradients;
      /// The faces were set up (AdditionalData::mapping_update_flags_inner_faces or _boundary_faces).
      bool available = false;
    };

    /// The arrays behind FaceData, owned by MatrixFree.
    template <int dim, typename Number>
    struct FaceArrays
    {
      Array<unsigned int> cell_face_start, entry_face, entry_first_dof, entry_neighbor_first_dof, boundary_id,
        dof_numbering;
      Array<unsigned char>              entry_face_no, entry_neighbor_face_no, exterior_permutation, exterior_subface;
      Array<unsigned short>             permutations, entry_other_point;
      Array<unsigned char>              entry_permutation;
      Array<Number>                     entry_metric, face_weights;
      bool                              entry_metric_affine = false;
      bool                              lexicographic_dofs  = false;
      Array<Number>                     JxW, normal, inv_jacobian, shape_on_face, subface_values, subface_gradients;
      Array<dealii::Point<dim, Number>> q_points;
      /// FaceData::boundary_cells, and its host copy.
      Array<unsigned int>       boundary_cells;
      std::vector<unsigned int> boundary_cells_host;
      /// A continuous element's ghost cells (FaceData::ghost_codes, ghost_rows).
      Array<unsigned int> ghost_codes, ghost_row_start, ghost_row_indices;
      Array<Number>       ghost_row_weights;
      bool                continuous         = false;
      unsigned int        n_object_cells     = 0;
      unsigned int        n_faces            = 0;
      unsigned int        n_face_points      = 0;
      unsigned int        locally_owned_size = 0;
      /// Faces between cells of different refinement levels on this rank.
      unsigned int n_hanging_faces = 0;
      /**
       * Per ghost entry of the vectors (position in the ghost range), what the face functors of
       * the rank's cells can read of it (host memory): bit 0 (ghost_read_by_values) when a
       * basis function of its DoF has a value on a face the ghost cell shares with a cell of
       * the object, bit 1 (ghost_read_by_gradients) when it has a value or a derivative there,
       * bit 2 (ghost_read_by_cells) when a cell of the object reads it (a continuous element:
       * its cells' DoFs owned by other ranks and the masters of their constraint lines).
       * What loop() exchanges for DataAccessOnFaces none (the cells' reads), values and gradients.
       */
      std::vector<unsigned char>     ghost_reads;
      static constexpr unsigned char ghost_read_by_values = 1, ghost_read_by_gradients = 2, ghost_read_by_cells = 4;
      bool                           available = false;

      /// The pointers a face functor reads.
      FaceData<dim, Number>
      data() const;

      std::size_t
      memory_consumption() const;
    };
  } // namespace internal
} // namespace gpumf

#endif
