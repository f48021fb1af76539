// Where the two sides of a face see its points: the faces' own axes and points on the reference
// cell, and from the mesh's vertex numbers which subface of a coarser neighbour a face covers and
// how the neighbour's face axes lie against the cell's (rotated and flipped faces of 3D meshes).
// One home for this topology: gpumf::MatrixFree's faces (face_setup.cc) and Kelly's error
// estimator (vector_tools/error_estimator.cc) both take it from here.
#ifndef gpumf_source_faces_face_topology_h
#define gpumf_source_faces_face_topology_h

#include <deal.II/base/quadrature.h>
#include <deal.II/base/tensor.h>
#include <deal.II/grid/tria.h>

#include <array>
#include <string>
#include <utility>

#include "faces/point_order.h"

namespace gpumf
{
  namespace internal
  {
    /// A whole face, not a subface (FaceData::no_subface).
    constexpr unsigned int no_face_subface = 255;

    /// The directions of face number @p f other than its normal, in increasing order.
    template <int dim>
    std::array<unsigned int, dim - 1>
    face_axes(const unsigned int f);

    /**
     * The n^(dim-1) points of face @p f of the reference cell for the 1D quadrature @p quad (n
     * points), in the face's own axes (the lower axis fastest), with the face weights; on subface
     * @p subface (sa + 2 sb) of it, each coordinate (x + s) / 2, unless @p subface is
     * no_face_subface.
     */
    template <int dim>
    dealii::Quadrature<dim>
    face_points(const dealii::Quadrature<1> &quad, const unsigned int f, const unsigned int subface);

    /**
     * (subface, order) of the exterior side of the face between face @p interior_face_no of
     * @p interior and face @p exterior_face_no of @p exterior: the subface of the exterior's face
     * (sa + 2 sb in its own axes; no_face_subface unless @p hanging, the exterior cell coarser)
     * that the interior's face covers, and the order of the point transforms (bit 2: swap the
     * axes, bits 0/1: flip the first / second) that takes the interior's corners to the
     * exterior's, from the vertex numbers. @p periodic: the exterior's face is the interior's
     * moved by @p offset (its corners matched by position). Throws ExcNotSupported for
     * anisotropic refinement or faces that share no vertex numbering.
     */
    template <int dim>
    std::pair<unsigned int, unsigned int>
    face_topology(const typename dealii::Triangulation<dim>::cell_iterator &interior,
                  const unsigned int                                        interior_face_no,
                  const typename dealii::Triangulation<dim>::cell_iterator &exterior,
                  const unsigned int                                        exterior_face_no,
                  const bool                                                hanging,
                  const bool                                                periodic = false,
                  const dealii::Tensor<1, dim>                             &offset   = {});

    /// The exterior side of a face as face_topology() reads it: the vertex numbers of its face
    /// laid out in its own axes (a refined face in half units: corners, edge midpoints, centre).
    template <int dim>
    struct FaceLattice
    {
      std::array<unsigned int, 9>                        vertex;
      unsigned int                                       m       = 2;
      bool                                               hanging = false;
      typename dealii::Triangulation<dim>::cell_iterator exterior;
    };

    /// The lattice of face @p exterior_face_no of @p exterior (refined: @p hanging), once for
    /// the several faces that meet it.
    template <int dim>
    FaceLattice<dim>
    face_lattice(const typename dealii::Triangulation<dim>::cell_iterator &exterior,
                 const unsigned int                                        exterior_face_no,
                 const bool                                                hanging);

    /// face_topology() with the exterior's lattice made once (face_lattice()).
    template <int dim>
    std::pair<unsigned int, unsigned int>
    face_topology(const FaceLattice<dim>                                   &exterior_lattice,
                  const typename dealii::Triangulation<dim>::cell_iterator &interior,
                  const unsigned int                                        interior_face_no,
                  const bool                                                periodic = false,
                  const dealii::Tensor<1, dim>                             &offset   = {});

    /**
     * face_topology() of a face between cells of one level from the cells' vertex numbers
     * (@p interior_vertices and @p exterior_vertices: cell->vertex_index(v), v < 2^dim), without
     * the mesh: the order only (the subface is no_face_subface). For loops over many faces with
     * the vertex numbers gathered once per cell. Throws ExcNotSupported where the faces share no
     * vertex numbering.
     */
    template <int dim>
    unsigned int
    face_order(const unsigned int *interior_vertices,
               const unsigned int  interior_face_no,
               const unsigned int *exterior_vertices,
               const unsigned int  exterior_face_no);
  } // namespace internal
} // namespace gpumf

#endif
