// The faces of gpumf::MatrixFree: topology on the host with deal.II's Triangulation, geometry
// with FEValues at the face points of each side, copied to the backend (face_setup.h).
#include "faces/face_setup.h"

#include <deal.II/base/mpi.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/base/tensor_product_polynomials.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>

#include "core/threads.h"

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    template <int dim>
    void
    basis_1d(const FE_Poly<dim>        &fe,
             const std::vector<double> &x,
             std::vector<double>       &values,
             std::vector<double>       &derivatives)
    {
      const auto *tensor = dynamic_cast<const TensorProductPolynomials<dim> *>(&fe.get_poly_space());
      AssertThrow(tensor != nullptr,
                  ExcNotSupported("gpumf::MatrixFree: the element " + fe.get_name() +
                                  " has no tensor-product polynomial space (supported: FE_Q, FE_DGQ, "
                                  "FE_DGQHermite, FE_DGQLegendre, FE_DGQArbitraryNodes)."));
      const std::vector<Polynomials::Polynomial<double>> polynomials = tensor->get_underlying_polynomials();
      const unsigned int                                 n           = polynomials.size();
      AssertThrow(n == fe.degree + 1, ExcInternalError());
      values.resize(x.size() * n);
      derivatives.resize(x.size() * n);
      std::vector<double> value_and_derivative(2);
      for (unsigned int q = 0; q < x.size(); ++q)
        for (unsigned int i = 0; i < n; ++i)
          {
            polynomials[i].value(x[q], value_and_derivative);
            values[q * n + i]      = value_and_derivative[0];
            derivatives[q * n + i] = value_and_derivative[1];
          }
    }

    template <int dim, typename Number>
    FaceData<dim, Number>
    FaceArrays<dim, Number>::data() const
    {
      FaceData<dim, Number> d;
      if (!available)
        return d;
      d.cell_first_dof       = cell_first_dof.data();
      d.face_index           = face_index.data();
      d.neighbor_first_dof   = neighbor_first_dof.data();
      d.neighbor_face_no     = neighbor_face_no.data();
      d.boundary_id          = boundary_id.data();
      d.exterior_permutation = exterior_permutation.data();
      d.permutations         = permutations.data();
      d.JxW                  = JxW.data();
      d.normal               = normal.data();
      d.inv_jacobian         = inv_jacobian.data();
      d.q_points             = q_points.data();
      d.shape_on_face        = shape_on_face.data();
      d.dof_numbering        = dof_numbering.data();
      d.n_faces              = n_faces;
      d.n_face_points        = n_face_points;
      d.available            = true;
      return d;
    }

    template <int dim, typename Number>
    std::size_t
    FaceArrays<dim, Number>::memory_consumption() const
    {
      return cell_first_dof.size() * 4 + face_index.size() * 4 + neighbor_first_dof.size() * 4 +
             boundary_id.size() * 4 + dof_numbering.size() * 4 + neighbor_face_no.size() + exterior_permutation.size() +
             permutations.size() * 2 +
             (JxW.size() + normal.size() + inv_jacobian.size() + shape_on_face.size()) * sizeof(Number) +
             q_points.size() * sizeof(Point<dim, Number>);
    }

    namespace
    {
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

      /// The face points of face @p f of the reference cell in the face's own axes (the lower
      /// axis fastest), with the face weights.
      template <int dim>
      Quadrature<dim>
      face_points(const Quadrature<1> &quad, const unsigned int f)
      {
        const unsigned int      n_q  = quad.size();
        const auto              axes = face_axes<dim>(f);
        std::vector<Point<dim>> points;
        std::vector<double>     weights;
        const unsigned int      n_face = dim == 2 ? n_q : n_q * n_q;
        for (unsigned int q = 0; q < n_face; ++q)
          {
            Point<dim> x;
            x[f / 2]      = f % 2;
            x[axes[0]]    = quad.point(q % n_q)[0];
            double weight = quad.weight(q % n_q);
            if (dim == 3)
              {
                x[axes[dim == 3 ? 1 : 0]] = quad.point(q / n_q)[0];
                weight *= quad.weight(q / n_q);
              }
            points.push_back(x);
            weights.push_back(weight);
          }
        return Quadrature<dim>(points, weights);
      }

      template <int dim>
      struct Face
      {
        typename DoFHandler<dim>::cell_iterator interior, exterior;
        unsigned char                           interior_face_no = 0, exterior_face_no = 0;
        unsigned int                            boundary_id  = FaceData<dim, double>::internal_face;
        bool                                    has_exterior = false;
      };
    } // namespace

    template <int dim, typename Number>
    void
    setup_faces(const Mapping<dim>                                         &mapping,
                const Quadrature<1>                                        &quad,
                const FE_Poly<dim>                                         &fe_1d,
                const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
                const std::vector<unsigned int>                            &dof_numbering,
                const Utilities::MPI::Partitioner                          &partitioner,
                const Backend                                               backend,
                const MPI_Comm                                              comm,
                const bool                                                  with_mpi,
                FaceArrays<dim, Number>                                    &arrays)
    {
      using cell_iterator                   = typename DoFHandler<dim>::cell_iterator;
      constexpr unsigned int faces_per_cell = 2 * dim;
      const unsigned int     n_q            = quad.size();
      const unsigned int     n_face_points  = Utilities::pow(n_q, dim - 1);
      const unsigned int     n_cells        = cells.size();
      const unsigned int     no_neighbor    = FaceData<dim, Number>::no_neighbor;
      std::string            error;
      const auto             fail = [&](const std::string &message) {
        if (error.empty())
          error = message;
      };

      // the first DoF of a cell as a vector index; its DoFs must be consecutive
      const unsigned int                   dofs_per_cell = dof_numbering.size();
      std::vector<types::global_dof_index> indices(dofs_per_cell);
      const auto                           first_dof = [&](const cell_iterator &cell) -> unsigned int {
        cell->get_dof_indices(indices);
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          if (indices[i] != indices[0] + i)
            {
              fail("gpumf::MatrixFree with faces: the DoFs of cell " + cell->id().to_string() +
                   " are not numbered consecutively. The face loops need each discontinuous cell's DoFs "
                                             "as one block (deal.II's numbering of FE_DGQ without renumbering, or a renumbering of "
                                             "whole cells such as DoFRenumbering::Cuthill_McKee on a DG DoFHandler keeps them; "
                                             "component-wise renumbering does not).");
              return 0;
            }
        if (!partitioner.in_local_range(indices[0]) && !partitioner.is_ghost_entry(indices[0]))
          {
            fail("gpumf::MatrixFree with faces: the DoFs of cell " + cell->id().to_string() +
                 " are neither owned nor ghosts of this rank.");
            return 0;
          }
        return partitioner.global_to_local(indices[0]);
      };

      // topology: a face per boundary face and per inner face; an inner face between two cells of
      // the object is shared, its interior side being the cell with the smaller CellId
      std::map<std::pair<int, int>, unsigned int> position;
      for (unsigned int c = 0; c < n_cells; ++c)
        position[{cells[c]->level(), cells[c]->index()}] = c;
      std::vector<unsigned int>  cell_first(n_cells), face_index(n_cells * faces_per_cell);
      std::vector<unsigned int>  neighbor_first(n_cells * faces_per_cell, no_neighbor);
      std::vector<unsigned char> neighbor_face(n_cells * faces_per_cell, 0);
      std::vector<Face<dim>>     faces;
      const unsigned int         unassigned = numbers::invalid_unsigned_int;
      std::fill(face_index.begin(), face_index.end(), unassigned);
      for (unsigned int c = 0; c < n_cells && error.empty(); ++c)
        {
          const cell_iterator &cell = cells[c];
          cell_first[c]             = first_dof(cell);
          for (unsigned int f = 0; f < faces_per_cell; ++f)
            {
              const unsigned int k = c * faces_per_cell + f;
              if (cell->has_periodic_neighbor(f))
                {
                  fail("gpumf::MatrixFree with faces: cell " + cell->id().to_string() +
                       " has a periodic neighbor; periodic faces are not supported by the face loops yet.");
                  break;
                }
              if (cell->at_boundary(f))
                {
                  Face<dim> face;
                  face.interior         = cell;
                  face.interior_face_no = f;
                  face.boundary_id      = cell->face(f)->boundary_id();
                  face_index[k]         = faces.size();
                  faces.push_back(face);
                  continue;
                }
              const cell_iterator neighbor = cell->neighbor(f);
              if (neighbor->has_children() || cell->neighbor_is_coarser(f))
                {
                  fail("gpumf::MatrixFree with faces: cell " + cell->id().to_string() + " meets a " +
                       (neighbor->has_children() ? "finer" : "coarser") + " cell at its face " + std::to_string(f) +
                       ": faces between cells of different refinement levels (adaptive meshes) are not "
                       "supported by the face loops yet.");
                  break;
                }
              const unsigned int neighbor_f = cell->neighbor_of_neighbor(f);
              neighbor_first[k]             = first_dof(neighbor);
              neighbor_face[k]              = neighbor_f;
              const bool interior           = cell->id() < neighbor->id();
              const auto found              = position.find({neighbor->level(), neighbor->index()});
              const bool shared             = found != position.end();
              if (interior || !shared)
                {
                  Face<dim> face;
                  face.has_exterior     = true;
                  face.interior         = interior ? cell : neighbor;
                  face.exterior         = interior ? neighbor : cell;
                  face.interior_face_no = interior ? f : neighbor_f;
                  face.exterior_face_no = interior ? neighbor_f : f;
                  face_index[k]         = faces.size() | (interior ? 0u : FaceData<dim, Number>::exterior_bit);
                  faces.push_back(face);
                }
            }
        }
      // the exterior sides of shared faces: the interior cell's face number
      if (error.empty())
        for (unsigned int c = 0; c < n_cells; ++c)
          for (unsigned int f = 0; f < faces_per_cell; ++f)
            {
              const unsigned int k = c * faces_per_cell + f;
              if (face_index[k] != unassigned)
                continue;
              const cell_iterator neighbor = cells[c]->neighbor(f);
              const unsigned int  other    = position.at({neighbor->level(), neighbor->index()});
              face_index[k] =
                face_index[other * faces_per_cell + neighbor_face[k]] | FaceData<dim, Number>::exterior_bit;
            }

      // geometry: FEValues on each side at the face points in the cell's own face axes
      const unsigned int  n_faces = faces.size();
      const std::size_t   N       = std::size_t(n_faces) * n_face_points;
      std::vector<Number> JxW(error.empty() ? N : 0), normal(error.empty() ? dim * N : 0),
        inv_jacobian(error.empty() ? 2 * dim * dim * N : 0);
      std::vector<Point<dim, Number>> q_points(error.empty() ? N : 0);
      std::vector<unsigned short>     face_permutation(error.empty() ? N : 0);
      std::mutex                      error_mutex;
      std::vector<Quadrature<dim>>    quadratures;
      for (unsigned int f = 0; f < faces_per_cell; ++f)
        quadratures.push_back(face_points<dim>(quad, f));
      const FE_Q<dim> fe_geometry(1); // (geometry only: any element)
      if (error.empty())
        internal::parallel_for(n_faces, [&](const unsigned int begin, const unsigned int end) {
          const UpdateFlags flags = update_quadrature_points | update_jacobians | update_inverse_jacobians;
          std::vector<std::unique_ptr<FEValues<dim>>> interior_values, exterior_values;
          for (unsigned int f = 0; f < faces_per_cell; ++f)
            {
              interior_values.push_back(std::make_unique<FEValues<dim>>(mapping, fe_geometry, quadratures[f], flags));
              exterior_values.push_back(std::make_unique<FEValues<dim>>(mapping, fe_geometry, quadratures[f], flags));
            }
          for (unsigned int F = begin; F < end; ++F)
            {
              const Face<dim> &face = faces[F];
              FEValues<dim>   &in   = *interior_values[face.interior_face_no];
              in.reinit(typename Triangulation<dim>::cell_iterator(face.interior));
              const unsigned int dn       = face.interior_face_no / 2;
              const double       sign     = face.interior_face_no % 2 ? 1. : -1.;
              double             diameter = 0;
              for (unsigned int q = 0; q < n_face_points; ++q)
                {
                  const std::size_t k       = std::size_t(F) * n_face_points + q;
                  const auto        inverse = in.inverse_jacobian(q);
                  // Nanson: the face element is det J |J^-T e_n| times the reference one
                  Tensor<1, dim> n;
                  for (unsigned int d = 0; d < dim; ++d)
                    n[d] = inverse[dn][d];
                  const double length = n.norm();
                  JxW[k] =
                    quadratures[face.interior_face_no].weight(q) * std::abs(in.jacobian(q).determinant()) * length;
                  for (unsigned int d = 0; d < dim; ++d)
                    {
                      normal[d * N + k] = sign * n[d] / length;
                      q_points[k][d]    = in.quadrature_point(q)[d];
                    }
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      inv_jacobian[(e * dim + d) * N + k] = inverse[e][d];
                  diameter            = std::max(diameter, in.quadrature_point(q).distance(in.quadrature_point(0)));
                  face_permutation[k] = q;
                }
              if (!face.has_exterior)
                continue;
              FEValues<dim> &out = *exterior_values[face.exterior_face_no];
              out.reinit(typename Triangulation<dim>::cell_iterator(face.exterior));
              std::vector<bool> taken(n_face_points, false);
              for (unsigned int q = 0; q < n_face_points; ++q)
                {
                  const std::size_t k    = std::size_t(F) * n_face_points + q;
                  unsigned int      best = 0;
                  double            dist = std::numeric_limits<double>::max();
                  for (unsigned int p = 0; p < n_face_points; ++p)
                    {
                      const double d = in.quadrature_point(q).distance(out.quadrature_point(p));
                      if (d < dist)
                        dist = d, best = p;
                    }
                  if (dist > 1e-8 * std::max(diameter, 1e-300) || taken[best])
                    {
                      const std::lock_guard<std::mutex> lock(error_mutex);
                      fail("gpumf::MatrixFree with faces: the face points of cells " + face.interior->id().to_string() +
                           " and " + face.exterior->id().to_string() +
                           " do not match (a mapping that places the shared face differently on its two sides, "
                           "or a face that is not conforming).");
                      return;
                    }
                  taken[best]         = true;
                  face_permutation[k] = best;
                  const auto inverse  = out.inverse_jacobian(best);
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      inv_jacobian[((dim + e) * dim + d) * N + k] = inverse[e][d];
                }
            }
        });

      for (const std::string &message :
           with_mpi ? Utilities::MPI::all_gather(comm, error) : std::vector<std::string>{error})
        AssertThrow(message.empty(), ExcNotSupported(message));

      // the exterior sides' permutations, each distinct one once
      std::map<std::vector<unsigned short>, unsigned char> distinct;
      std::vector<unsigned short>                          permutations;
      std::vector<unsigned char>                           exterior_permutation(n_faces);
      for (unsigned int F = 0; F < n_faces; ++F)
        {
          std::vector<unsigned short> p(face_permutation.begin() + std::size_t(F) * n_face_points,
                                        face_permutation.begin() + std::size_t(F + 1) * n_face_points);
          const auto [it, is_new] = distinct.emplace(p, distinct.size());
          AssertThrow(distinct.size() <= 255, ExcInternalError());
          if (is_new)
            permutations.insert(permutations.end(), p.begin(), p.end());
          exterior_permutation[F] = it->second;
        }
      std::vector<unsigned int> boundary_id(n_faces);
      for (unsigned int F = 0; F < n_faces; ++F)
        boundary_id[F] = faces[F].boundary_id;

      // the 1D basis and its derivative at 0 and 1
      std::vector<double> values, derivatives;
      basis_1d(fe_1d, {0., 1.}, values, derivatives);
      const unsigned int  n = fe_1d.degree + 1;
      std::vector<Number> shape_on_face(4 * n);
      for (unsigned int side = 0; side < 2; ++side)
        for (unsigned int i = 0; i < n; ++i)
          {
            shape_on_face[(side * 2 + 0) * n + i] = values[side * n + i];
            shape_on_face[(side * 2 + 1) * n + i] = derivatives[side * n + i];
          }

      arrays.cell_first_dof.reinit(backend, cell_first);
      arrays.face_index.reinit(backend, face_index);
      arrays.neighbor_first_dof.reinit(backend, neighbor_first);
      arrays.neighbor_face_no.reinit(backend, neighbor_face);
      arrays.boundary_id.reinit(backend, boundary_id);
      arrays.exterior_permutation.reinit(backend, exterior_permutation);
      arrays.permutations.reinit(backend, permutations);
      arrays.JxW.reinit(backend, JxW);
      arrays.normal.reinit(backend, normal);
      arrays.inv_jacobian.reinit(backend, inv_jacobian);
      arrays.q_points.reinit(backend, q_points);
      arrays.shape_on_face.reinit(backend, shape_on_face);
      arrays.dof_numbering.reinit(backend, dof_numbering);
      arrays.n_faces       = n_faces;
      arrays.n_face_points = n_face_points;
      arrays.available     = true;
    }

#define GPUMF_INSTANTIATE(dim, Number)                                                                 \
  template struct FaceArrays<dim, Number>;                                                             \
  template void setup_faces<dim, Number>(const Mapping<dim> &,                                         \
                                         const Quadrature<1> &,                                        \
                                         const FE_Poly<dim> &,                                         \
                                         const std::vector<typename DoFHandler<dim>::cell_iterator> &, \
                                         const std::vector<unsigned int> &,                            \
                                         const Utilities::MPI::Partitioner &,                          \
                                         const Backend,                                                \
                                         const MPI_Comm,                                               \
                                         const bool,                                                   \
                                         FaceArrays<dim, Number> &);
    GPUMF_INSTANTIATE(2, double)
    GPUMF_INSTANTIATE(3, double)
    GPUMF_INSTANTIATE(2, float)
    GPUMF_INSTANTIATE(3, float)
#undef GPUMF_INSTANTIATE
    template void
    basis_1d<2>(const FE_Poly<2> &, const std::vector<double> &, std::vector<double> &, std::vector<double> &);
    template void
    basis_1d<3>(const FE_Poly<3> &, const std::vector<double> &, std::vector<double> &, std::vector<double> &);
  } // namespace internal
} // namespace gpumf
