// Face axes, face points and the vertex-based topology of a face's two sides (face_topology.h).
#include "faces/face_topology.h"

#include <deal.II/base/exceptions.h>

#include <gpumf/backend.h>

#include <algorithm>
#include <array>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    /// The directions of face number @p f other than its normal, in increasing order.
    template <int dim>
    std::array<unsigned int, dim - 1>
    face_axes(const unsigned int f)
    {
      std::array<unsigned int, dim - 1> axes{};
      for (unsigned int d = 0, k = 0; d < dim; ++d)
        if (d != f / 2)
          axes[k++] = d;
      return axes;
    }

    /**
     * The face points of face @p f of the reference cell in the face's own axes (the lower
     * axis fastest), with the face weights; on subface @p subface (sa + 2 sb) of it, each
     * coordinate (x + s) / 2, unless @p subface is FaceData::no_subface.
     */
    template <int dim>
    Quadrature<dim>
    face_points(const Quadrature<1> &quad, const unsigned int f, const unsigned int subface)
    {
      const unsigned int      n_q    = quad.size();
      const auto              axes   = face_axes<dim>(f);
      const unsigned int      n_face = dim == 2 ? n_q : n_q * n_q;
      const bool              sub    = subface != no_face_subface;
      const auto              place  = [&](const double x, const unsigned int s) { return sub ? (x + s) / 2 : x; };
      std::vector<Point<dim>> points;
      std::vector<double>     weights;
      for (unsigned int q = 0; q < n_face; ++q)
        {
          Point<dim> x;
          x[f / 2]      = f % 2;
          x[axes[0]]    = place(quad.point(q % n_q)[0], subface % 2);
          double weight = quad.weight(q % n_q);
          if (dim == 3)
            {
              x[axes[dim - 2]] = place(quad.point(q / n_q)[0], subface / 2);
              weight *= quad.weight(q / n_q);
            }
          points.push_back(x);
          weights.push_back(weight);
        }
      return Quadrature<dim>(points, weights);
    }

    namespace
    {
      /// The cell's vertex number (0 to 2^dim - 1) of corner (ca, cb) of its face @p f in the face's
      /// own axes.
      template <int dim>
      unsigned int
      face_corner(const unsigned int f, const unsigned int ca, const unsigned int cb)
      {
        const auto   axes = face_axes<dim>(f);
        unsigned int v    = (f % 2) << (f / 2);
        v |= ca << axes[0];
        if (dim == 3)
          v |= cb << axes[dim - 2];
        return v;
      }

      /// The order (bit 2: swap the axes, bits 0/1: flip the first / second) that takes corner
      /// (va, vb) of a face to @p position[va][vb] of the other side's face axes.
      template <int dim>
      unsigned int
      order_of_corners(const unsigned int (&position)[2][2][2])
      {
        for (unsigned int order = 0; order < (dim == 2 ? 2u : 8u); ++order)
          {
            bool fits = true;
            for (unsigned int vb = 0; vb < (dim == 3 ? 2 : 1); ++vb)
              for (unsigned int va = 0; va < 2; ++va)
                {
                  unsigned int a = va, b = vb;
                  if (order & 4)
                    std::swap(a, b);
                  if (order & 1)
                    a = 1 - a;
                  if (order & 2)
                    b = 1 - b;
                  fits = fits && position[va][vb][0] == a && position[va][vb][1] == b;
                }
            if (fits)
              return order;
          }
        AssertThrow(false, ExcInternalError());
        return 0;
      }
    } // namespace

    template <int dim>
    FaceLattice<dim>
    face_lattice(const typename Triangulation<dim>::cell_iterator &exterior,
                 const unsigned int                                exterior_face_no,
                 const bool                                        hanging)
    {
      constexpr unsigned int n_subfaces = 1u << (dim - 1);

      FaceLattice<dim> result;
      result.hanging       = hanging;
      result.exterior      = exterior;
      const unsigned int m = hanging ? 3 : 2, step = hanging ? 2 : 1;
      result.m = m;
      // (a fixed array: this runs for every face of a mesh; unused entries stay invalid)
      std::array<unsigned int, 9> &lattice = result.vertex;
      lattice.fill(numbers::invalid_unsigned_int);
      const auto at = [&](const unsigned int i, const unsigned int j) -> unsigned int & {
        return lattice[i + (dim == 3 ? m * j : 0)];
      };
      for (unsigned int cb = 0; cb < (dim == 3 ? 2 : 1); ++cb)
        for (unsigned int ca = 0; ca < 2; ++ca)
          at(ca * step, cb * step) = exterior->vertex_index(face_corner<dim>(exterior_face_no, ca, cb));
      if (hanging)
        {
          const auto parent = exterior->face(exterior_face_no);
          AssertThrow(parent->n_children() == n_subfaces,
                      ExcNotSupported("gpumf (faces): anisotropic refinement is not supported."));
          // the children's vertex sets, and the child at each corner of the face (fixed arrays:
          // this runs for every hanging face of a mesh)
          constexpr unsigned int                                             n_child_vertices = dim == 3 ? 4 : 2;
          std::array<std::array<unsigned int, n_child_vertices>, n_subfaces> child_vertices;
          for (unsigned int k = 0; k < n_subfaces; ++k)
            for (unsigned int v = 0; v < n_child_vertices; ++v)
              child_vertices[k][v] = parent->child(k)->vertex_index(v);
          const auto has = [&](const unsigned int k, const unsigned int vertex) {
            return std::find(child_vertices[k].begin(), child_vertices[k].end(), vertex) != child_vertices[k].end();
          };
          const auto child_at = [&](const unsigned int ca, const unsigned int cb) {
            for (unsigned int k = 0; k < n_subfaces; ++k)
              if (has(k, at(2 * ca, 2 * cb)))
                return k;
            AssertThrow(false, ExcInternalError());
            return 0u;
          };
          // the vertices of child k that child l shares, other than @p except
          const auto shared_vertex = [&](const unsigned int k, const unsigned int l, const unsigned int except) {
            for (const unsigned int v : child_vertices[k])
              if (v != except && has(l, v))
                return v;
            AssertThrow(false, ExcInternalError());
            return 0u;
          };
          if (dim == 2)
            at(1, 0) = shared_vertex(child_at(0, 0), child_at(1, 0), numbers::invalid_unsigned_int);
          else
            {
              // the centre: the vertex all children share
              unsigned int centre = numbers::invalid_unsigned_int;
              for (const unsigned int v : child_vertices[0])
                {
                  bool in_all = true;
                  for (unsigned int k = 1; k < n_subfaces; ++k)
                    in_all = in_all && has(k, v);
                  if (in_all)
                    {
                      AssertThrow(centre == numbers::invalid_unsigned_int, ExcInternalError());
                      centre = v;
                    }
                }
              AssertThrow(centre != numbers::invalid_unsigned_int, ExcInternalError());
              at(1, 1) = centre;
              const auto midpoint =
                [&](const unsigned int a0, const unsigned int b0, const unsigned int a1, const unsigned int b1) {
                  return shared_vertex(child_at(a0, b0), child_at(a1, b1), centre);
                };
              at(1, 0) = midpoint(0, 0, 1, 0);
              at(1, 2) = midpoint(0, 1, 1, 1);
              at(0, 1) = midpoint(0, 0, 0, 1);
              at(2, 1) = midpoint(1, 0, 1, 1);
            }
        }
      return result;
    }

    template <int dim>
    std::pair<unsigned int, unsigned int>
    face_topology(const FaceLattice<dim>                           &exterior_lattice,
                  const typename Triangulation<dim>::cell_iterator &interior,
                  const unsigned int                                interior_face_no,
                  const bool                                        periodic,
                  const Tensor<1, dim>                             &offset)
    {
      const std::array<unsigned int, 9> &lattice = exterior_lattice.vertex;
      const unsigned int                 m       = exterior_lattice.m;
      const bool                         hanging = exterior_lattice.hanging;
      unsigned int                       subface = no_face_subface;
      // the interior's corners in the lattice
      unsigned int position[2][2][2];
      for (unsigned int vb = 0; vb < (dim == 3 ? 2 : 1); ++vb)
        for (unsigned int va = 0; va < 2; ++va)
          {
            unsigned int v = interior->vertex_index(face_corner<dim>(interior_face_no, va, vb));
            if (periodic)
              {
                // the exterior's corner where the interior's lies once moved across the domain
                const auto      &vertices = interior->get_triangulation().get_vertices();
                const Point<dim> moved    = vertices[v] + offset;
                unsigned int     best     = lattice[0];
                for (const unsigned int w : lattice)
                  if (w != numbers::invalid_unsigned_int &&
                      moved.distance(vertices[w]) < moved.distance(vertices[best]))
                    best = w;
                v = best;
              }
            const auto found = std::find(lattice.begin(), lattice.end(), v);
            AssertThrow(found != lattice.end(),
                        ExcNotSupported("gpumf (faces): the faces of cells " + interior->id().to_string() + " and " +
                                        exterior_lattice.exterior->id().to_string() + " share no vertex numbering."));
            const unsigned int k = found - lattice.begin();
            position[va][vb][0]  = dim == 3 ? k % m : k;
            position[va][vb][1]  = dim == 3 ? k / m : 0;
          }
      if (hanging)
        {
          unsigned int sa = 2, sb = 2;
          for (unsigned int vb = 0; vb < (dim == 3 ? 2 : 1); ++vb)
            for (unsigned int va = 0; va < 2; ++va)
              {
                sa = std::min(sa, position[va][vb][0]);
                sb = std::min(sb, position[va][vb][1]);
              }
          subface = sa + 2 * (dim == 3 ? sb : 0);
          for (unsigned int vb = 0; vb < (dim == 3 ? 2 : 1); ++vb)
            for (unsigned int va = 0; va < 2; ++va)
              position[va][vb][0] -= sa, position[va][vb][1] -= (dim == 3 ? sb : 0);
        }
      return {subface, order_of_corners<dim>(position)};
    }

    template <int dim>
    std::pair<unsigned int, unsigned int>
    face_topology(const typename Triangulation<dim>::cell_iterator &interior,
                  const unsigned int                                interior_face_no,
                  const typename Triangulation<dim>::cell_iterator &exterior,
                  const unsigned int                                exterior_face_no,
                  const bool                                        hanging,
                  const bool                                        periodic,
                  const Tensor<1, dim>                             &offset)
    {
      return face_topology<dim>(
        face_lattice<dim>(exterior, exterior_face_no, hanging), interior, interior_face_no, periodic, offset);
    }

    template <int dim>
    unsigned int
    face_order(const unsigned int *interior_vertices,
               const unsigned int  interior_face_no,
               const unsigned int *exterior_vertices,
               const unsigned int  exterior_face_no)
    {
      // the interior's corners at the exterior's corner positions (a, b)
      unsigned int position[2][2][2];
      for (unsigned int vb = 0; vb < (dim == 3 ? 2 : 1); ++vb)
        for (unsigned int va = 0; va < 2; ++va)
          {
            const unsigned int v     = interior_vertices[face_corner<dim>(interior_face_no, va, vb)];
            bool               found = false;
            for (unsigned int cb = 0; cb < (dim == 3 ? 2 : 1) && !found; ++cb)
              for (unsigned int ca = 0; ca < 2 && !found; ++ca)
                if (exterior_vertices[face_corner<dim>(exterior_face_no, ca, cb)] == v)
                  {
                    position[va][vb][0] = ca;
                    position[va][vb][1] = cb;
                    found               = true;
                  }
            AssertThrow(found,
                        ExcNotSupported("gpumf: two cells meet at a face whose vertices they do not share (a mesh "
                                        "that is not conforming between cells of one level)."));
          }
      return order_of_corners<dim>(position);
    }

    template unsigned int
    face_order<2>(const unsigned int *, const unsigned int, const unsigned int *, const unsigned int);
    template unsigned int
    face_order<3>(const unsigned int *, const unsigned int, const unsigned int *, const unsigned int);
    template std::array<unsigned int, 1>
    face_axes<2>(const unsigned int);
    template std::array<unsigned int, 2>
    face_axes<3>(const unsigned int);
    template Quadrature<2>
    face_points<2>(const Quadrature<1> &, const unsigned int, const unsigned int);
    template Quadrature<3>
    face_points<3>(const Quadrature<1> &, const unsigned int, const unsigned int);
    template FaceLattice<2>
    face_lattice<2>(const Triangulation<2>::cell_iterator &, const unsigned int, const bool);
    template FaceLattice<3>
    face_lattice<3>(const Triangulation<3>::cell_iterator &, const unsigned int, const bool);
    template std::pair<unsigned int, unsigned int>
    face_topology<2>(const FaceLattice<2> &,
                     const Triangulation<2>::cell_iterator &,
                     const unsigned int,
                     const bool,
                     const Tensor<1, 2> &);
    template std::pair<unsigned int, unsigned int>
    face_topology<3>(const FaceLattice<3> &,
                     const Triangulation<3>::cell_iterator &,
                     const unsigned int,
                     const bool,
                     const Tensor<1, 3> &);
    template std::pair<unsigned int, unsigned int>
    face_topology<2>(const Triangulation<2>::cell_iterator &,
                     const unsigned int,
                     const Triangulation<2>::cell_iterator &,
                     const unsigned int,
                     const bool,
                     const bool,
                     const Tensor<1, 2> &);
    template std::pair<unsigned int, unsigned int>
    face_topology<3>(const Triangulation<3>::cell_iterator &,
                     const unsigned int,
                     const Triangulation<3>::cell_iterator &,
                     const unsigned int,
                     const bool,
                     const bool,
                     const Tensor<1, 3> &);
  } // namespace internal
} // namespace gpumf
