// The faces of gpumf::MatrixFree: topology on the host with deal.II's Triangulation, geometry
// with FEValues at the face points of each side, copied to the backend (face_setup.h).
#include "faces/face_setup.h"
#include "faces/face_topology.h"

static_assert(gpumf::internal::no_face_subface == gpumf::internal::FaceData<2, double>::no_subface,
              "face_topology.h and face_data.h name the whole face alike");

#include <deal.II/base/mpi.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/base/tensor_product_polynomials.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>

#include <algorithm>
#include <atomic>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
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
      AssertThrow(polynomials.size() == fe.degree + 1, ExcInternalError());
      basis_1d(polynomials, x, values, derivatives);
    }

    void
    basis_1d(const std::vector<Polynomials::Polynomial<double>> &basis,
             const std::vector<double>                          &x,
             std::vector<double>                                &values,
             std::vector<double>                                &derivatives)
    {
      const unsigned int n = basis.size();
      values.resize(x.size() * n);
      derivatives.resize(x.size() * n);
      std::vector<double> value_and_derivative(2);
      for (unsigned int q = 0; q < x.size(); ++q)
        for (unsigned int i = 0; i < n; ++i)
          {
            basis[i].value(x[q], value_and_derivative);
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
      d.cell_face_start          = cell_face_start.data();
      d.entry_face               = entry_face.data();
      d.entry_face_no            = entry_face_no.data();
      d.entry_first_dof          = entry_first_dof.data();
      d.entry_neighbor_first_dof = entry_neighbor_first_dof.data();
      d.entry_neighbor_face_no   = entry_neighbor_face_no.data();
      d.boundary_id              = boundary_id.data();
      d.exterior_permutation     = exterior_permutation.data();
      d.exterior_subface         = exterior_subface.data();
      d.permutations             = permutations.data();
      d.JxW                      = JxW.data();
      d.normal                   = normal.data();
      d.inv_jacobian             = inv_jacobian.data();
      d.q_points                 = q_points.data();
      d.shape_on_face            = shape_on_face.data();
      d.subface_values           = subface_values.data();
      d.subface_gradients        = subface_gradients.data();
      d.dof_numbering            = dof_numbering.data();
      d.entry_metric             = entry_metric.data();
      d.entry_permutation        = entry_permutation.data();
      d.entry_other_point        = entry_other_point.data();
      d.entry_metric_affine      = entry_metric_affine;
      d.face_weights             = face_weights.data();
      d.ghost_codes              = ghost_codes.data();
      d.boundary_cells           = boundary_cells.data();
      d.ghost_rows               = {ghost_row_start.data(), ghost_row_indices.data(), ghost_row_weights.data()};
      d.continuous               = continuous;
      d.n_object_cells           = n_object_cells;
      d.n_entries                = entry_face.size();
      d.lexicographic_dofs       = lexicographic_dofs;
      d.n_faces                  = n_faces;
      d.n_face_points            = n_face_points;
      d.locally_owned_size       = locally_owned_size;
      d.available                = true;
      return d;
    }

    template <int dim, typename Number>
    std::size_t
    FaceArrays<dim, Number>::memory_consumption() const
    {
      return cell_face_start.memory_consumption() + entry_face.memory_consumption() +
             entry_first_dof.memory_consumption() + entry_neighbor_first_dof.memory_consumption() +
             boundary_id.memory_consumption() + dof_numbering.memory_consumption() +
             entry_face_no.memory_consumption() + entry_neighbor_face_no.memory_consumption() +
             exterior_permutation.memory_consumption() + exterior_subface.memory_consumption() +
             permutations.memory_consumption() + JxW.memory_consumption() + normal.memory_consumption() +
             inv_jacobian.memory_consumption() + shape_on_face.memory_consumption() +
             subface_values.memory_consumption() + subface_gradients.memory_consumption() +
             q_points.memory_consumption() + entry_metric.memory_consumption() +
             entry_permutation.memory_consumption() + entry_other_point.memory_consumption() +
             face_weights.memory_consumption() + ghost_codes.memory_consumption() +
             ghost_row_start.memory_consumption() + boundary_cells.memory_consumption() +
             ghost_row_indices.memory_consumption() + ghost_row_weights.memory_consumption() + ghost_reads.size();
    }

    namespace
    {
      template <int dim>
      struct Face
      {
        typename DoFHandler<dim>::cell_iterator interior, exterior;
        unsigned char                           interior_face_no = 0, exterior_face_no = 0;
        unsigned int                            boundary_id  = FaceData<dim, double>::internal_face;
        bool                                    has_exterior = false;
        /// the exterior cell is coarser: the face is one of its subfaces
        bool hanging = false;
        /// a periodic face: the exterior's face is the interior's moved by @p offset
        bool           periodic = false;
        Tensor<1, dim> offset;
      };

      /// An entry of a cell's list of faces (FaceData::entry_*), and the face it belongs to.
      struct Entry
      {
        unsigned int  face    = numbers::invalid_unsigned_int; // F | exterior_bit once known
        unsigned char face_no = 0, neighbor_face_no = 0;
        unsigned int  first = 0, neighbor_first = FaceData<2, double>::no_neighbor;
        /// not yet known: the face of (cell position, face number) of this neighbour
        unsigned int pending_cell = numbers::invalid_unsigned_int, pending_face_no = 0;
      };
    } // namespace

    template <int dim, typename Number>
    GhostCellLines
    ghost_cell_lines(const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
                     const DoFHandler<dim>                                      &dof,
                     const AffineConstraints<Number>                            &constraints,
                     const MPI_Comm                                              comm,
                     const bool                                                  with_mpi)
    {
      using cell_iterator = typename DoFHandler<dim>::cell_iterator;
      using Lines         = std::vector<std::vector<std::pair<types::global_dof_index, double>>>;
      GhostCellLines result;
      // this rank's lines of the DoFs of a cell it owns: (flags, lines)
      std::vector<types::global_dof_index> indices(dof.get_fe().n_dofs_per_cell());
      const auto                           lines_of = [&](const cell_iterator &cell) {
        cell->get_dof_indices(indices);
        std::vector<unsigned char> flags(indices.size(), 0);
        Lines                      lines(indices.size());
        for (unsigned int i = 0; i < indices.size(); ++i)
          if (constraints.is_constrained(indices[i]))
            {
              flags[i] = 1;
              for (const auto &[master, weight] : *constraints.get_constraint_entries(indices[i]))
                lines[i].emplace_back(master, double(weight));
            }
        return std::make_pair(std::move(flags), std::move(lines));
      };
      // the face neighbours (across whole faces, subfaces and periodic faces) owned by others,
      // by owner; those this rank owns but the object leaves out (an iterator filter) from here
      std::set<std::pair<int, int>> in_object;
      for (const cell_iterator &cell : cells)
        in_object.emplace(cell->level(), cell->index());
      std::map<unsigned int, std::vector<std::string>> requests;
      std::set<std::string>                            requested;
      const auto                                       request = [&](const cell_iterator &neighbor) {
        if (!neighbor->is_active() || !requested.insert(neighbor->id().to_string()).second)
          return;
        if (neighbor->is_locally_owned())
          {
            if (in_object.count({neighbor->level(), neighbor->index()}) == 0)
              {
                auto [flags, lines] = lines_of(neighbor);
                for (const auto &line : lines)
                  for (const auto &entry : line)
                    if (!dof.locally_owned_dofs().is_element(entry.first))
                      result.masters.push_back(entry.first);
                result.constrained[neighbor->id().to_string()] = std::move(flags);
                result.lines[neighbor->id().to_string()]       = std::move(lines);
              }
          }
        else if (neighbor->is_ghost())
          requests[neighbor->subdomain_id()].push_back(neighbor->id().to_string());
      };
      for (const cell_iterator &cell : cells)
        for (const unsigned int f : cell->face_indices())
          {
            if (cell->has_periodic_neighbor(f))
              request(cell->periodic_neighbor(f));
            else if (cell->at_boundary(f))
              continue;
            else if (cell->face(f)->has_children())
              for (unsigned int s = 0; s < cell->face(f)->n_children(); ++s)
                request(cell->neighbor_child_on_subface(f, s));
            else
              request(cell->neighbor(f));
          }
      if (!with_mpi)
        return result;
      // the owners answer with the lines of each cell's DoFs: (flags, lines) per cell
      using Answer = std::vector<std::pair<std::string, std::pair<std::vector<unsigned char>, Lines>>>;
      const std::map<unsigned int, std::vector<std::string>> asked = Utilities::MPI::some_to_some(comm, requests);
      std::map<unsigned int, Answer>                         answers;
      for (const auto &[rank, ids] : asked)
        for (const std::string &id : ids)
          {
            const auto          found = dof.get_triangulation().create_cell_iterator(CellId(id));
            const cell_iterator cell(&dof.get_triangulation(), found->level(), found->index(), &dof);
            answers[rank].emplace_back(id, lines_of(cell));
          }
      const std::map<unsigned int, Answer> received = Utilities::MPI::some_to_some(comm, answers);
      const IndexSet                      &owned    = dof.locally_owned_dofs();
      for (const auto &[rank, answer] : received)
        for (const auto &[id, cell_lines] : answer)
          {
            for (const auto &line : cell_lines.second)
              for (const auto &entry : line)
                if (!owned.is_element(entry.first))
                  result.masters.push_back(entry.first);
            result.constrained[id] = cell_lines.first;
            result.lines[id]       = cell_lines.second;
          }
      std::sort(result.masters.begin(), result.masters.end());
      result.masters.erase(std::unique(result.masters.begin(), result.masters.end()), result.masters.end());
      return result;
    }

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
                const unsigned int                                          mg_level,
                const AffineConstraints<Number>                            *constraints,
                const GhostCellLines                                       *ghost_lines,
                FaceArrays<dim, Number>                                    &arrays)
    {
      const bool continuous                 = constraints != nullptr;
      const bool on_level                   = mg_level != numbers::invalid_unsigned_int;
      using cell_iterator                   = typename DoFHandler<dim>::cell_iterator;
      constexpr unsigned int faces_per_cell = 2 * dim;
      constexpr unsigned int exterior_bit   = FaceData<dim, Number>::exterior_bit;
      constexpr unsigned int n_subfaces     = 1u << (dim - 1);
      const unsigned int     n_q            = quad.size();
      const unsigned int     n_face_points  = Utilities::pow(n_q, dim - 1);
      const unsigned int     n_cells        = cells.size();
      std::string            error;
      const auto             fail = [&](const std::string &message) {
        if (error.empty())
          error = message;
      };

      std::map<std::pair<int, int>, unsigned int> position;
      for (unsigned int c = 0; c < n_cells; ++c)
        position[{cells[c]->level(), cells[c]->index()}] = c;
      const auto position_of = [&](const cell_iterator &cell) {
        const auto found = position.find({cell->level(), cell->index()});
        return found == position.end() ? numbers::invalid_unsigned_int : found->second;
      };

      // A continuous element: the row of codes of a side's cell, its position among the
      // object's cells, or a ghost cell's row after them (made below)
      std::vector<cell_iterator>                  ghost_cells;
      std::map<std::pair<int, int>, unsigned int> ghost_row;
      if (continuous && on_level)
        fail("gpumf::MatrixFree with faces of the continuous element " + fe_1d.get_name() + " on multigrid level " +
             std::to_string(mg_level) +
             ": faces of continuous elements are supported on the active cells; use a discontinuous element "
             "or faces on the active mesh.");
      const auto row_of = [&](const cell_iterator &cell) -> unsigned int {
        const unsigned int p = position_of(cell);
        if (p != numbers::invalid_unsigned_int)
          return p;
        const auto [it, is_new] = ghost_row.emplace(std::make_pair(cell->level(), cell->index()), ghost_cells.size());
        if (is_new)
          ghost_cells.push_back(cell);
        return n_cells + it->second;
      };

      // the first DoF of a cell as a vector index; its DoFs must be consecutive
      const unsigned int                   dofs_per_cell = dof_numbering.size();
      std::vector<types::global_dof_index> indices(dofs_per_cell);
      const auto                           first_dof = [&](const cell_iterator &cell) -> unsigned int {
        if (continuous)
          return row_of(cell);
        if (on_level)
          cell->get_mg_dof_indices(indices);
        else
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

      // Topology. A face per boundary face, per face between cells of one level (shared by the
      // two cells where both are the object's; its interior side the cell with the smaller
      // CellId) and per face between a fine cell and a coarser one (its interior side the fine
      // cell, deal.II's convention).
      std::vector<std::vector<Entry>>                       entries(n_cells);
      std::vector<std::array<unsigned int, faces_per_cell>> entry_of_face(n_cells);
      std::vector<Face<dim>>                                faces;
      const auto                                            new_face = [&](const Face<dim> &face, const bool exterior) {
        faces.push_back(face);
        return (unsigned(faces.size()) - 1) | (exterior ? exterior_bit : 0u);
      };
      for (unsigned int c = 0; c < n_cells && error.empty(); ++c)
        {
          const cell_iterator &cell  = cells[c];
          const unsigned int   first = first_dof(cell);
          for (unsigned int f = 0; f < faces_per_cell && error.empty(); ++f)
            {
              entry_of_face[c][f] = entries[c].size();
              Entry entry;
              entry.face_no = f;
              entry.first   = first;
              if (cell->has_periodic_neighbor(f))
                {
                  // a face of the domain's periodic pair: as a face between cells of one level,
                  // the neighbour's face moved by a translation
                  const cell_iterator neighbor = cell->periodic_neighbor(f);
                  if (neighbor->level() != cell->level() || (!on_level && neighbor->has_children()))
                    {
                      fail("gpumf::MatrixFree with faces: cell " + cell->id().to_string() +
                           " and its periodic neighbour " + neighbor->id().to_string() +
                           " are refined differently; periodic faces are supported between cells of one "
                           "level (refine both sides of the periodic pair alike).");
                      break;
                    }
                  entry.neighbor_first   = first_dof(neighbor);
                  entry.neighbor_face_no = cell->periodic_neighbor_face_no(f);
                  // (a mesh one cell wide across the period: the cell is its own neighbour, the
                  // interior side its lower face)
                  const bool interior = cell->id() < neighbor->id() || (neighbor == cell && f < entry.neighbor_face_no);
                  const unsigned int p = position_of(neighbor);
                  if (interior || p == numbers::invalid_unsigned_int)
                    {
                      Face<dim> face;
                      face.has_exterior     = true;
                      face.periodic         = true;
                      face.interior         = interior ? cell : neighbor;
                      face.exterior         = interior ? neighbor : cell;
                      face.interior_face_no = interior ? f : entry.neighbor_face_no;
                      face.exterior_face_no = interior ? entry.neighbor_face_no : f;
                      face.offset           = face.exterior->face(face.exterior_face_no)->center() -
                                    face.interior->face(face.interior_face_no)->center();
                      entry.face = new_face(face, !interior);
                    }
                  else
                    entry.pending_cell = p, entry.pending_face_no = entry.neighbor_face_no;
                  entries[c].push_back(entry);
                  continue;
                }
              if (cell->at_boundary(f))
                {
                  Face<dim> face;
                  face.interior         = cell;
                  face.interior_face_no = f;
                  face.boundary_id      = cell->face(f)->boundary_id();
                  entry.face            = new_face(face, false);
                  entries[c].push_back(entry);
                  continue;
                }
              if (on_level && cell->neighbor(f)->level() != cell->level())
                {
                  fail("gpumf::MatrixFree with faces on level " + std::to_string(mg_level) + ": cell " +
                       cell->id().to_string() +
                       " has a coarser neighbour (a refinement edge). Faces on a multigrid level need levels "
                       "that cover the domain (globally refined meshes); on adaptive meshes use faces on the "
                       "active cells.");
                  break;
                }
              if (!on_level && cell->face(f)->has_children())
                {
                  // finer neighbours: one entry per subface, this cell the exterior side
                  for (unsigned int s = 0; s < cell->face(f)->n_children(); ++s)
                    {
                      const cell_iterator fine = cell->neighbor_child_on_subface(f, s);
                      unsigned int        g    = 0;
                      while (g < faces_per_cell &&
                             (fine->at_boundary(g) || !fine->neighbor_is_coarser(g) || fine->neighbor(g) != cell))
                        ++g;
                      if (g == faces_per_cell)
                        {
                          fail("gpumf::MatrixFree with faces: the finer neighbour " + fine->id().to_string() +
                               " of cell " + cell->id().to_string() +
                               " meets it on none of its faces (anisotropic refinement is not supported).");
                          break;
                        }
                      Entry sub            = entry;
                      sub.neighbor_first   = first_dof(fine);
                      sub.neighbor_face_no = g;
                      const unsigned int p = position_of(fine);
                      if (p != numbers::invalid_unsigned_int)
                        sub.pending_cell = p, sub.pending_face_no = g;
                      else
                        {
                          Face<dim> face;
                          face.has_exterior     = true;
                          face.hanging          = true;
                          face.interior         = fine;
                          face.interior_face_no = g;
                          face.exterior         = cell;
                          face.exterior_face_no = f;
                          sub.face              = new_face(face, true);
                        }
                      entries[c].push_back(sub);
                    }
                  continue;
                }
              const cell_iterator neighbor = cell->neighbor(f);
              entry.neighbor_first         = first_dof(neighbor);
              if (!on_level && cell->neighbor_is_coarser(f))
                {
                  // a coarser neighbour: this cell is the interior side
                  entry.neighbor_face_no = cell->neighbor_of_coarser_neighbor(f).first;
                  Face<dim> face;
                  face.has_exterior     = true;
                  face.hanging          = true;
                  face.interior         = cell;
                  face.interior_face_no = f;
                  face.exterior         = neighbor;
                  face.exterior_face_no = entry.neighbor_face_no;
                  entry.face            = new_face(face, false);
                  entries[c].push_back(entry);
                  continue;
                }
              entry.neighbor_face_no      = cell->neighbor_of_neighbor(f);
              const bool         interior = cell->id() < neighbor->id();
              const unsigned int p        = position_of(neighbor);
              if (interior || p == numbers::invalid_unsigned_int)
                {
                  Face<dim> face;
                  face.has_exterior     = true;
                  face.interior         = interior ? cell : neighbor;
                  face.exterior         = interior ? neighbor : cell;
                  face.interior_face_no = interior ? f : entry.neighbor_face_no;
                  face.exterior_face_no = interior ? entry.neighbor_face_no : f;
                  entry.face            = new_face(face, !interior);
                }
              else
                entry.pending_cell = p, entry.pending_face_no = entry.neighbor_face_no;
              entries[c].push_back(entry);
            }
        }
      // the exterior sides of faces between two cells of the object: the interior side's face
      if (error.empty())
        for (auto &list : entries)
          for (Entry &entry : list)
            if (entry.pending_cell != numbers::invalid_unsigned_int)
              {
                const Entry &other =
                  entries[entry.pending_cell][entry_of_face[entry.pending_cell][entry.pending_face_no]];
                if ((other.face & exterior_bit) != 0)
                  fail("gpumf::MatrixFree with faces: internal error, a face with two exterior sides.");
                entry.face = other.face | exterior_bit;
              }


      // Geometry: FEValues on each side at the face points in the cell's own face axes; the
      // exterior side's points (on each subface of a coarser cell) matched to the interior's.
      const unsigned int  n_faces = faces.size();
      const std::size_t   N       = std::size_t(n_faces) * n_face_points;
      const bool          ok      = error.empty();
      std::vector<Number> JxW(ok ? N : 0), normal(ok ? dim * N : 0), inv_jacobian(ok ? 2 * dim * dim * N : 0);
      std::vector<Point<dim, Number>> q_points(ok ? N : 0);
      std::vector<unsigned short>     face_permutation(ok ? N : 0);
      std::vector<unsigned char>      exterior_subface(ok ? n_faces : 0, FaceData<dim, Number>::no_subface);
      std::mutex                      error_mutex;
      const unsigned int              no_subface = FaceData<dim, Number>::no_subface;
      // [f * (n_subfaces + 1) + s]: face f, on subface s (s = n_subfaces: the whole face)
      std::vector<Quadrature<dim>> quadratures;
      for (unsigned int f = 0; f < faces_per_cell; ++f)
        for (unsigned int s = 0; s <= n_subfaces; ++s)
          quadratures.push_back(face_points<dim>(quad, f, s == n_subfaces ? no_subface : s));
      const auto quadrature_index = [&](const unsigned int f, const unsigned int s) {
        return f * (n_subfaces + 1) + (s == no_subface ? n_subfaces : s);
      };
      const FE_Q<dim> fe_geometry(1); // (geometry only: any element)
      if (ok)
        internal::parallel_for(n_faces, [&](const unsigned int begin, const unsigned int end) {
          const UpdateFlags flags = update_quadrature_points | update_jacobians | update_inverse_jacobians;
          std::vector<std::unique_ptr<FEValues<dim>>> interior_values, exterior_values;
          for (const Quadrature<dim> &quadrature : quadratures)
            {
              interior_values.push_back(std::make_unique<FEValues<dim>>(mapping, fe_geometry, quadrature, flags));
              exterior_values.push_back(std::make_unique<FEValues<dim>>(mapping, fe_geometry, quadrature, flags));
            }
          std::vector<unsigned int> match(n_face_points);
          for (unsigned int F = begin; F < end; ++F)
            {
              const Face<dim> &face = faces[F];
              FEValues<dim>   &in   = *interior_values[quadrature_index(face.interior_face_no, no_subface)];
              in.reinit(typename Triangulation<dim>::cell_iterator(face.interior));
              const unsigned int dn       = face.interior_face_no / 2;
              const double       sign     = face.interior_face_no % 2 ? 1. : -1.;
              const double       diameter = face.interior->face(face.interior_face_no)->diameter();
              for (unsigned int q = 0; q < n_face_points; ++q)
                {
                  const std::size_t k       = std::size_t(F) * n_face_points + q;
                  const auto        inverse = in.inverse_jacobian(q);
                  // Nanson: the face element is det J |J^-T e_n| times the reference one
                  Tensor<1, dim> n;
                  for (unsigned int d = 0; d < dim; ++d)
                    n[d] = inverse[dn][d];
                  const double length = n.norm();
                  JxW[k]              = quadratures[quadrature_index(face.interior_face_no, no_subface)].weight(q) *
                           std::abs(in.jacobian(q).determinant()) * length;
                  for (unsigned int d = 0; d < dim; ++d)
                    {
                      normal[d * N + k] = sign * n[d] / length;
                      q_points[k][d]    = in.quadrature_point(q)[d];
                    }
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      inv_jacobian[(e * dim + d) * N + k] = inverse[e][d];
                  face_permutation[k] = q;
                }
              if (!face.has_exterior)
                continue;
              // The exterior side: the whole face or the subface the interior's face covers, and the
              // order of its points (its axes rotated or flipped against the interior's), from the
              // mesh's vertex numbers (face_topology()); geometry cannot tell them apart reliably where
              // a coarse cell's mapping and its neighbours' children differ (coarse curved meshes).
              // (what it throws goes to every rank through the gather below, as all set-up errors)
              std::pair<unsigned int, unsigned int> topology;
              try
                {
                  topology = face_topology<dim>(face.interior,
                                                face.interior_face_no,
                                                face.exterior,
                                                face.exterior_face_no,
                                                face.hanging,
                                                face.periodic,
                                                face.offset);
                }
              catch (const std::exception &e)
                {
                  // (deal.II's text around the message is left out)
                  const std::string                 what = e.what();
                  const std::size_t                 from = what.find("gpumf::"), to = what.find("Stacktrace");
                  const std::lock_guard<std::mutex> lock(error_mutex);
                  fail(from == std::string::npos ? what : what.substr(from, to == std::string::npos ? to : to - from));
                  return;
                }
              const auto [best_subface, best_order] = topology;
              FEValues<dim> *best = exterior_values[quadrature_index(face.exterior_face_no, best_subface)].get();
              best->reinit(typename Triangulation<dim>::cell_iterator(face.exterior));
              double best_cost = 0;
              for (unsigned int q = 0; q < n_face_points; ++q)
                best_cost += (in.quadrature_point(q) + face.offset)
                               .distance_square(best->quadrature_point(point_in_order<dim>(best_order, q, n_q)));
              for (unsigned int q = 0; q < n_face_points; ++q)
                match[q] = point_in_order<dim>(best_order, q, n_q);
              if (std::sqrt(best_cost / n_face_points) > 0.25 * diameter)
                {
                  const std::lock_guard<std::mutex> lock(error_mutex);
                  fail("gpumf::MatrixFree with faces: the face points of cells " + face.interior->id().to_string() +
                       " and " + face.exterior->id().to_string() +
                       " do not match (a mapping that places the shared face differently on its two sides, "
                       "or a face that is not conforming): the points lie " +
                       std::to_string(std::sqrt(best_cost / n_face_points)) + " apart (root mean square), at most " +
                       std::to_string(0.25 * diameter) + " allowed.");
                  return;
                }
              exterior_subface[F] = best_subface;
              for (unsigned int q = 0; q < n_face_points; ++q)
                {
                  const std::size_t k = std::size_t(F) * n_face_points + q;
                  face_permutation[k] = match[q];
                  const auto inverse  = best->inverse_jacobian(match[q]);
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
      unsigned int              n_hanging = 0;
      for (unsigned int F = 0; F < n_faces; ++F)
        {
          boundary_id[F] = faces[F].boundary_id;
          n_hanging += faces[F].hanging;
        }
      // the cells' lists of faces, and the cells with a boundary face
      std::vector<unsigned int>  cell_face_start(1, 0), entry_face, entry_first, entry_neighbor_first;
      std::vector<unsigned char> entry_face_no, entry_neighbor_face_no;
      std::vector<unsigned int>  boundary_cells;
      for (const auto &list : entries)
        {
          for (const Entry &entry : list)
            if (entry.neighbor_first == FaceData<dim, Number>::no_neighbor &&
                (boundary_cells.empty() || boundary_cells.back() != cell_face_start.size() - 1))
              boundary_cells.push_back(cell_face_start.size() - 1);
          for (const Entry &entry : list)
            {
              entry_face.push_back(entry.face);
              entry_face_no.push_back(entry.face_no);
              entry_first.push_back(entry.first);
              entry_neighbor_first.push_back(entry.neighbor_first);
              entry_neighbor_face_no.push_back(entry.neighbor_face_no);
            }
          cell_face_start.push_back(entry_face.size());
        }

      // The geometry per entry, as its cell sees the face (FaceData::entry_metric): the normal
      // derivative's metric J^-1 n of both sides at each point in the running cell's face axes,
      // and the other side's point of each point. What the fused face kernels read (3D, n_q =
      // p + 1, one component, on the GPU, no hanging face); not set up elsewhere.
      std::vector<Number>         entry_metric;
      std::vector<unsigned char>  entry_permutation;
      std::vector<unsigned short> entry_other_point;
      bool                        entry_metric_affine = false;
      const unsigned int          n_1d                = fe_1d.degree + 1;
      // the weight of each face point (the product of the 1D weights of its face coordinates),
      // the same on every face of the reference cell
      const Quadrature<dim> &face_quadrature = quadratures[quadrature_index(0, no_subface)];
      if (!continuous && dim == 3 && n_q == n_1d && dof_numbering.size() == Utilities::pow(n_1d, dim) &&
          backend == Backend::cuda && n_hanging == 0)
        {
          const std::size_t n_entries = entry_face.size();
          const std::size_t M         = n_entries * n_face_points;
          // the other side's points: the faces' permutations (2 i), their inverses (2 i + 1)
          // and the identity (last, boundary faces)
          const unsigned int n_distinct = permutations.size() / n_face_points;
          AssertThrow(2 * n_distinct + 1 <= 255, ExcInternalError());
          entry_other_point.resize((2 * n_distinct + 1) * n_face_points);
          for (unsigned int i = 0; i < n_distinct; ++i)
            for (unsigned int q = 0; q < n_face_points; ++q)
              {
                const unsigned short p                             = permutations[i * n_face_points + q];
                entry_other_point[(2 * i) * n_face_points + q]     = p;
                entry_other_point[(2 * i + 1) * n_face_points + p] = q;
              }
          for (unsigned int q = 0; q < n_face_points; ++q)
            entry_other_point[2 * n_distinct * n_face_points + q] = q;
          entry_metric.resize((2 * dim + 1) * M);
          entry_permutation.resize(n_entries);
          // a face is affine where each number is the same at every point (JxW up to the
          // weights), to the accuracy of the stored geometry
          const double      tolerance = 100. * std::numeric_limits<Number>::epsilon();
          std::atomic<bool> affine(true);
          internal::parallel_for(
            static_cast<unsigned int>(n_entries), [&](const unsigned int begin, const unsigned int end) {
              std::vector<unsigned short> face_point(n_face_points);
              std::vector<double>         area(n_face_points), local((2 * dim + 1) * n_face_points);
              bool                        chunk_affine = true;
              for (std::size_t k = begin; k < end; ++k)
                {
                  const unsigned int F        = entry_face[k] & ~exterior_bit;
                  const bool         exterior = (entry_face[k] & exterior_bit) != 0;
                  const bool         boundary = entry_neighbor_first[k] == FaceData<dim, Number>::no_neighbor;
                  const unsigned int table =
                    boundary ? 2 * n_distinct : 2 * exterior_permutation[F] + (exterior ? 1 : 0);
                  entry_permutation[k]        = table;
                  const unsigned short *other = &entry_other_point[table * n_face_points];
                  // face_point[q]: the face's (interior side's) point at the running cell's point q
                  for (unsigned int q = 0; q < n_face_points; ++q)
                    face_point[q] = exterior ? other[q] : q;
                  const unsigned int own_side = exterior ? 1 : 0;
                  const auto         own_axes = face_axes<dim>(entry_face_no[k]);
                  const auto         nb_axes  = face_axes<dim>(entry_neighbor_face_no[k]);
                  for (unsigned int q = 0; q < n_face_points; ++q)
                    {
                      const std::size_t i = std::size_t(F) * n_face_points + face_point[q];
                      Tensor<1, dim>    n;
                      for (unsigned int d = 0; d < dim; ++d)
                        n[d] = (exterior ? -1. : 1.) * normal[d * N + i];
                      const auto metric = [&](const unsigned int side, const unsigned int axis) {
                        double c = 0;
                        for (unsigned int d = 0; d < dim; ++d)
                          c += inv_jacobian[((side * dim + axis) * dim + d) * N + i] * n[d];
                        return c;
                      };
                      for (unsigned int e = 0; e < dim; ++e)
                        {
                          const unsigned int axis      = e + 1 < dim ? own_axes[e] : entry_face_no[k] / 2;
                          const unsigned int nb_axis   = e + 1 < dim ? nb_axes[e] : entry_neighbor_face_no[k] / 2;
                          local[e * n_face_points + q] = metric(own_side, axis);
                          local[(dim + e) * n_face_points + other[q]] = boundary ? 0. : metric(1 - own_side, nb_axis);
                        }
                      local[2 * dim * n_face_points + q] = JxW[i];
                      area[q]                            = JxW[i] / face_quadrature.weight(q);
                    }
                  for (unsigned int side = 0; side < 2 && chunk_affine; ++side)
                    {
                      // each side's vector J^-1 n against its largest length on the face
                      double scale = 0;
                      for (unsigned int q = 0; q < n_face_points; ++q)
                        {
                          double length = 0;
                          for (unsigned int e = 0; e < dim; ++e)
                            length +=
                              local[(side * dim + e) * n_face_points + q] * local[(side * dim + e) * n_face_points + q];
                          scale = std::max(scale, std::sqrt(length));
                        }
                      for (unsigned int e = 0; e < dim; ++e)
                        for (unsigned int q = 0; q < n_face_points; ++q)
                          chunk_affine =
                            chunk_affine && std::abs(local[(side * dim + e) * n_face_points + q] -
                                                     local[(side * dim + e) * n_face_points]) <= tolerance * scale;
                    }
                  for (unsigned int q = 0; q < n_face_points; ++q)
                    chunk_affine = chunk_affine && std::abs(area[q] - area[0]) <= tolerance * std::abs(area[0]);
                  for (unsigned int j = 0; j <= 2 * dim; ++j)
                    for (unsigned int q = 0; q < n_face_points; ++q)
                      entry_metric[j * M + k * n_face_points + q] = local[j * n_face_points + q];
                }
              if (!chunk_affine)
                affine = false;
            });
          if (affine)
            {
              std::vector<Number> compact((2 * dim + 1) * n_entries);
              const double        weight = face_quadrature.weight(0);
              for (unsigned int j = 0; j <= 2 * dim; ++j)
                for (std::size_t k = 0; k < n_entries; ++k)
                  compact[j * n_entries + k] = j < 2 * dim ? entry_metric[j * M + k * n_face_points] :
                                                             entry_metric[j * M + k * n_face_points] / weight;
              entry_metric.swap(compact);
            }
          entry_metric_affine = affine;
        }

      // the 1D basis and its derivative at 0 and 1, and on the two halves of the interval
      const unsigned int  n = fe_1d.degree + 1;
      std::vector<double> values, derivatives;
      basis_1d(fe_1d, {0., 1.}, values, derivatives);
      std::vector<Number> shape_on_face(4 * n);
      for (unsigned int side = 0; side < 2; ++side)
        for (unsigned int i = 0; i < n; ++i)
          {
            shape_on_face[(side * 2 + 0) * n + i] = values[side * n + i];
            shape_on_face[(side * 2 + 1) * n + i] = derivatives[side * n + i];
          }
      // A continuous element: the codes of the ghost cells (internal/dof_access.h) through their
      // owners' constraint lines (ghost_cell_lines()), a table of their own (rows in order of
      // first use)
      std::vector<unsigned int> ghost_codes(ghost_cells.size() * dofs_per_cell);
      std::vector<unsigned int> ghost_row_start(1, 0), ghost_row_indices;
      std::vector<Number>       ghost_row_weights;
      // the vector index of DoF g, or invalid where the vectors do not hold it
      const auto local_index = [&](const types::global_dof_index g) {
        return partitioner.in_local_range(g) || partitioner.is_ghost_entry(g) ? partitioner.global_to_local(g) :
                                                                                numbers::invalid_unsigned_int;
      };
      if (continuous && !ghost_cells.empty())
        {
          AssertThrow(ghost_lines != nullptr, ExcInternalError());
          std::map<types::global_dof_index, unsigned int> row_of_dof;
          for (std::size_t r = 0; r < ghost_cells.size() && error.empty(); ++r)
            {
              const cell_iterator &cell  = ghost_cells[r];
              const std::string    id    = cell->id().to_string();
              const auto           flags = ghost_lines->constrained.find(id);
              const auto           lines = ghost_lines->lines.find(id);
              if (!cell->is_active() || flags == ghost_lines->constrained.end() ||
                  flags->second.size() != dofs_per_cell || lines == ghost_lines->lines.end())
                {
                  fail("gpumf::MatrixFree with faces: internal error, no constraint lines of the ghost cell " + id +
                       " from its owner.");
                  break;
                }
              cell->get_dof_indices(indices);
              for (unsigned int l = 0; l < dofs_per_cell && error.empty(); ++l)
                {
                  const unsigned int            i    = dof_numbering[l];
                  const types::global_dof_index g    = indices[i];
                  unsigned int                 &code = ghost_codes[r * dofs_per_cell + l];
                  if (flags->second[i] == 0)
                    {
                      code = local_index(g);
                      if (code == numbers::invalid_unsigned_int)
                        fail("gpumf::MatrixFree with faces: DoF " + std::to_string(g) + " of the ghost cell " + id +
                             " is not among the vectors' ghost entries (internal error).");
                      continue;
                    }
                  if (lines->second[i].empty())
                    {
                      code = internal::no_dof;
                      continue;
                    }
                  const auto [it, is_new] = row_of_dof.emplace(g, ghost_row_start.size() - 1);
                  if (is_new)
                    {
                      for (const auto &[master, weight] : lines->second[i])
                        {
                          const unsigned int m = local_index(master);
                          if (m == numbers::invalid_unsigned_int)
                            fail("gpumf::MatrixFree with faces: DoF " + std::to_string(g) + " of the ghost cell " + id +
                                 " is constrained to DoF " + std::to_string(master) +
                                 ", which is not among the vectors' ghost entries (internal error).");
                          ghost_row_indices.push_back(m);
                          ghost_row_weights.push_back(weight);
                        }
                      ghost_row_start.push_back(ghost_row_indices.size());
                    }
                  code = internal::constrained_flag | it->second;
                }
            }
        }
      for (const std::string &message :
           with_mpi ? Utilities::MPI::all_gather(comm, error) : std::vector<std::string>{error})
        AssertThrow(message.empty(), ExcNotSupported(message));

      // What the face functors can read of each ghost entry (FaceArrays::ghost_reads): the DoFs
      // of a ghost cell whose basis function has a value (or a derivative) on a face it shares
      // with a cell of the object. In 1D, function i at end `side` of the interval; a DoF's
      // function on face f (axis f / 2, end f % 2) has a value there if its 1D factor along
      // the axis has one, and a gradient if that factor has a value or a derivative (the
      // factors along the face are nonzero somewhere on it). What is not below the tolerance
      // counts: exchanging a DoF too many is harmless, one too few a wrong result.
      {
        std::array<std::vector<bool>, 2> has_value, has_gradient;
        for (unsigned int side = 0; side < 2; ++side)
          {
            double max_value = 0, max_derivative = 0;
            for (unsigned int i = 0; i < n; ++i)
              {
                max_value      = std::max(max_value, std::abs(values[side * n + i]));
                max_derivative = std::max(max_derivative, std::abs(derivatives[side * n + i]));
              }
            for (unsigned int i = 0; i < n; ++i)
              {
                has_value[side].push_back(std::abs(values[side * n + i]) > 1e-12 * max_value);
                has_gradient[side].push_back(has_value[side][i] ||
                                             std::abs(derivatives[side * n + i]) > 1e-12 * max_derivative);
              }
          }
        const unsigned int         n_owned       = partitioner.locally_owned_size();
        const unsigned int         dofs_per_comp = Utilities::pow(n, dim);
        const unsigned int         n_components  = dof_numbering.size() / dofs_per_comp;
        std::vector<unsigned char> ghost_reads(partitioner.n_ghost_indices(), 0);
        // marks the ghost entries a local DoF with @p code reads (through its constraint line)
        const auto mark = [&](const unsigned int code, const unsigned char bits) {
          const auto mark_index = [&](const unsigned int index) {
            if (index >= n_owned && index != numbers::invalid_unsigned_int)
              ghost_reads[index - n_owned] |= bits;
          };
          if (code == internal::no_dof)
            return;
          if ((code & internal::constrained_flag) == 0)
            return mark_index(code);
          const unsigned int row = code & ~internal::constrained_flag;
          for (unsigned int k = ghost_row_start[row]; k < ghost_row_start[row + 1]; ++k)
            mark_index(ghost_row_indices[k]);
        };
        for (std::size_t k = 0; k < entry_neighbor_first.size(); ++k)
          {
            const unsigned int neighbor = entry_neighbor_first[k];
            if (neighbor == FaceData<dim, Number>::no_neighbor || neighbor < (continuous ? n_cells : n_owned))
              continue;
            const unsigned int axis = entry_neighbor_face_no[k] / 2, side = entry_neighbor_face_no[k] % 2;
            const unsigned int stride = Utilities::pow(n, axis);
            for (unsigned int c = 0; c < n_components; ++c)
              for (unsigned int l = 0; l < dofs_per_comp; ++l)
                {
                  const unsigned int  i = (l / stride) % n;
                  const unsigned char bits =
                    (has_value[side][i] ? FaceArrays<dim, Number>::ghost_read_by_values : 0) |
                    (has_gradient[side][i] ? FaceArrays<dim, Number>::ghost_read_by_gradients : 0);
                  if (continuous)
                    mark(ghost_codes[std::size_t(neighbor - n_cells) * dofs_per_cell + c * dofs_per_comp + l], bits);
                  else
                    mark(neighbor + dof_numbering[c * dofs_per_comp + l], bits);
                }
          }
        // a continuous element: what the object's cells read themselves (their DoFs owned by
        // other ranks and the masters of their lines), which every loop exchanges
        if (continuous)
          {
            std::mutex mutex;
            internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
              std::vector<types::global_dof_index> cell_indices(dofs_per_cell);
              std::vector<unsigned int>            reads;
              for (unsigned int c = begin; c < end; ++c)
                {
                  cells[c]->get_dof_indices(cell_indices);
                  for (const types::global_dof_index g : cell_indices)
                    {
                      const auto *line =
                        constraints->is_constrained(g) ? constraints->get_constraint_entries(g) : nullptr;
                      if (line == nullptr)
                        {
                          if (!constraints->is_constrained(g))
                            reads.push_back(local_index(g));
                          continue;
                        }
                      for (const auto &entry : *line)
                        reads.push_back(local_index(entry.first));
                    }
                }
              const std::lock_guard<std::mutex> lock(mutex);
              for (const unsigned int index : reads)
                if (index >= n_owned && index != numbers::invalid_unsigned_int)
                  ghost_reads[index - n_owned] |= FaceArrays<dim, Number>::ghost_read_by_cells;
            });
          }
        arrays.ghost_reads.swap(ghost_reads);
      }
      std::vector<double> halves;
      for (unsigned int s = 0; s < 2; ++s)
        for (unsigned int q = 0; q < n_q; ++q)
          halves.push_back((quad.point(q)[0] + s) / 2);
      basis_1d(fe_1d, halves, values, derivatives);

      arrays.cell_face_start.reinit(backend, cell_face_start);
      arrays.entry_face.reinit(backend, entry_face);
      arrays.entry_face_no.reinit(backend, entry_face_no);
      arrays.entry_first_dof.reinit(backend, entry_first);
      arrays.entry_neighbor_first_dof.reinit(backend, entry_neighbor_first);
      arrays.entry_neighbor_face_no.reinit(backend, entry_neighbor_face_no);
      arrays.boundary_id.reinit(backend, boundary_id);
      arrays.exterior_permutation.reinit(backend, exterior_permutation);
      arrays.exterior_subface.reinit(backend, exterior_subface);
      arrays.permutations.reinit(backend, permutations);
      arrays.JxW.reinit(backend, JxW);
      arrays.normal.reinit(backend, normal);
      arrays.inv_jacobian.reinit(backend, inv_jacobian);
      arrays.q_points.reinit(backend, q_points);
      arrays.shape_on_face.reinit(backend, shape_on_face);
      arrays.subface_values.reinit(backend, std::vector<Number>(values.begin(), values.end()));
      arrays.subface_gradients.reinit(backend, std::vector<Number>(derivatives.begin(), derivatives.end()));
      arrays.dof_numbering.reinit(backend, dof_numbering);
      arrays.entry_metric.reinit(backend, entry_metric);
      arrays.entry_permutation.reinit(backend, entry_permutation);
      arrays.entry_other_point.reinit(backend, entry_other_point);
      arrays.entry_metric_affine = entry_metric_affine;
      arrays.face_weights.reinit(backend,
                                 std::vector<Number>(face_quadrature.get_weights().begin(),
                                                     face_quadrature.get_weights().end()));
      arrays.boundary_cells.reinit(backend, boundary_cells);
      arrays.boundary_cells_host = std::move(boundary_cells);
      arrays.continuous          = continuous;
      arrays.n_object_cells      = n_cells;
      arrays.ghost_codes.reinit(backend, ghost_codes);
      arrays.ghost_row_start.reinit(backend, ghost_row_start);
      arrays.ghost_row_indices.reinit(backend, ghost_row_indices);
      arrays.ghost_row_weights.reinit(backend, ghost_row_weights);
      arrays.lexicographic_dofs = true;
      for (unsigned int i = 0; i < dof_numbering.size(); ++i)
        arrays.lexicographic_dofs = arrays.lexicographic_dofs && dof_numbering[i] == i;
      arrays.n_faces            = n_faces;
      arrays.n_face_points      = n_face_points;
      arrays.n_hanging_faces    = n_hanging;
      arrays.locally_owned_size = partitioner.locally_owned_size();
      arrays.available          = true;
    }

#define GPUMF_INSTANTIATE(dim, Number)                                                                                \
  template struct FaceArrays<dim, Number>;                                                                            \
  template void           setup_faces<dim, Number>(const Mapping<dim> &,                                              \
                                         const Quadrature<1> &,                                             \
                                         const FE_Poly<dim> &,                                              \
                                         const std::vector<typename DoFHandler<dim>::cell_iterator> &,      \
                                         const std::vector<unsigned int> &,                                 \
                                         const Utilities::MPI::Partitioner &,                               \
                                         const Backend,                                                     \
                                         const MPI_Comm,                                                    \
                                         const bool,                                                        \
                                         const unsigned int,                                                \
                                         const AffineConstraints<Number> *,                                 \
                                         const GhostCellLines *,                                            \
                                         FaceArrays<dim, Number> &);                                        \
  template GhostCellLines ghost_cell_lines<dim, Number>(const std::vector<typename DoFHandler<dim>::cell_iterator> &, \
                                                        const DoFHandler<dim> &,                                      \
                                                        const AffineConstraints<Number> &,                            \
                                                        MPI_Comm,                                                     \
                                                        bool);
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
