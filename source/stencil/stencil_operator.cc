// gpumf::StencilOperator: rows assembled from deal.II's FEValues by neighbour offset, the choice of
// the storage, the lexicographic renumbering, the host reference of the application and the
// dispatch to the CUDA kernel (stencil_kernels.cu).
#include "core/coloring.h"
#include <gpumf/stencil_operator.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/work_stream.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "core/executor.h"
#include "local_matrix/element_matrices.h"
#include <gpumf/internal/loop_schedule.h>
#include "linear_algebra/layout.h"
#include "stencil/stencil_kernels.h"

namespace gpumf
{
  using namespace dealii;

  std::string
  to_string(const StencilStorage storage)
  {
    switch (storage)
      {
        case StencilStorage::automatic:
          return "automatic";
        case StencilStorage::constant:
          return "constant";
        case StencilStorage::semi_constant:
          return "semi_constant";
        case StencilStorage::variable:
          return "variable";
        case StencilStorage::general:
          return "general";
      }
    return "unknown";
  }

  namespace
  {
    constexpr unsigned int no_index = numbers::invalid_unsigned_int;

    /// The grid coordinates of the DoFs of @p cells (FE_Q(1): DoF a at vertex a, x fastest), by
    /// local vector index (owned and ghost entries); coordinates shifted so that the mesh starts at
    /// 0 on every rank. Empty when the mesh is not logically Cartesian.
    template <int dim>
    std::vector<std::array<long, dim>>
    dof_coordinates(const DoFHandler<dim>                                      &dof,
                    const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
                    const Utilities::MPI::Partitioner                          &partitioner,
                    std::vector<unsigned int>                                  &cell_dofs)
    {
      const Triangulation<dim> &tria        = dof.get_triangulation();
      const auto                coordinates = internal::cartesian_coordinates<dim>(
        tria, std::vector<typename Triangulation<dim>::cell_iterator>(cells.begin(), cells.end()));
      const unsigned int                 n_local = partitioner.locally_owned_size() + partitioner.n_ghost_indices();
      std::vector<std::array<long, dim>> result(n_local);
      const unsigned int                 n = GeometryInfo<dim>::vertices_per_cell;
      cell_dofs.assign(cells.size() * n, no_index);
      int                   ok = coordinates.size() == cells.size();
      std::array<long, dim> lowest;
      lowest.fill(std::numeric_limits<long>::max());
      std::vector<bool>                    seen(n_local);
      std::vector<types::global_dof_index> indices(n);
      for (unsigned int c = 0; c < cells.size() && ok; ++c)
        {
          cells[c]->get_dof_indices(indices);
          for (unsigned int a = 0; a < n; ++a)
            {
              if (!partitioner.in_local_range(indices[a]) && !partitioner.is_ghost_entry(indices[a]))
                continue;
              const unsigned int    i = partitioner.global_to_local(indices[a]);
              std::array<long, dim> g;
              for (unsigned int d = 0; d < dim; ++d)
                {
                  g[d]      = coordinates[c][d] + ((a >> d) & 1u);
                  lowest[d] = std::min(lowest[d], g[d]);
                }
              if (seen[i] && result[i] != g)
                ok = false; // one DoF, two positions: not a conforming grid
              result[i]            = g;
              seen[i]              = true;
              cell_dofs[c * n + a] = i;
            }
        }
      for (unsigned int i = 0; i < n_local && ok; ++i)
        ok = seen[i];
      const MPI_Comm comm = partitioner.get_mpi_communicator();
      if (Utilities::MPI::min(ok, comm) == 0)
        return {};
      for (unsigned int d = 0; d < dim; ++d)
        {
          const long shift = Utilities::MPI::min(lowest[d], comm);
          for (auto &g : result)
            g[d] -= shift;
        }
      return result;
    }

    /// The active cells that are not artificial (owned and ghost).
    template <int dim>
    std::vector<typename DoFHandler<dim>::cell_iterator>
    owned_and_ghost_cells(const DoFHandler<dim> &dof)
    {
      std::vector<typename DoFHandler<dim>::cell_iterator> cells;
      for (const auto &cell : dof.active_cell_iterators())
        if (!cell->is_artificial())
          cells.push_back(cell);
      return cells;
    }


    /// Whether two rows agree to 1e-12 relative to their largest entry.
    bool
    same_row(const double *a, const double *b, const unsigned int n)
    {
      double scale = 0, difference = 0;
      for (unsigned int k = 0; k < n; ++k)
        {
          scale      = std::max({scale, std::abs(a[k]), std::abs(b[k])});
          difference = std::max(difference, std::abs(a[k] - b[k]));
        }
      return difference <= 1e-12 * scale;
    }


    /// The grid of a StencilOperator for the kernels (pointers of its backend).
    template <int dim, typename Number, typename Grid>
    internal::StencilGrid<dim, Number>
    launch_of(const Grid &g)
    {
      internal::StencilGrid<dim, Number> result{};
      for (unsigned int d = 0; d < 3; ++d)
        result.first[d] = g.first[d], result.size[d] = g.size[d], result.global_size[d] = g.global_size[d];
      result.dirichlet_faces = g.dirichlet_faces;
      result.halo            = g.halo.size() > 0 ? g.halo.data() : nullptr;
      result.stencils        = g.stencils.data();
      result.storage   = g.storage == StencilStorage::constant ? 1 : g.storage == StencilStorage::semi_constant ? 2 : 3;
      result.direction = g.direction;
      result.n_owned   = g.n_owned;
      return result;
    }

    template <int dim>
    void
    check_element(const FiniteElement<dim> &fe, const std::string &who)
    {
      AssertThrow(dynamic_cast<const FE_Q<dim> *>(&fe) != nullptr && fe.degree == 1 && fe.n_components() == 1,
                  ExcNotSupported(who + " supports the scalar FE_Q(1) element (a 3^dim-point stencil), got " +
                                  fe.get_name() + "."));
    }

    /// The grid coordinates of the owned and ghost DoFs (dof_coordinates()) and the cells they come from.
    template <int dim>
    struct GridPoints
    {
      std::vector<typename DoFHandler<dim>::cell_iterator> cells;
      /// per cell and vertex: the local index of the DoF there (no_index: neither owned nor ghost)
      std::vector<unsigned int>          cell_dofs;
      std::vector<std::array<long, dim>> coordinates;
    };

    template <int dim>
    GridPoints<dim>
    grid_points(const DoFHandler<dim> &dof, const Utilities::MPI::Partitioner &partitioner, const std::string &who)
    {
      using cell_iterator              = typename DoFHandler<dim>::cell_iterator;
      std::vector<cell_iterator> cells = owned_and_ghost_cells(dof);
      std::vector<unsigned int>  cell_dofs;
      auto                       coordinates = dof_coordinates<dim>(dof, cells, partitioner, cell_dofs);
      AssertThrow(!coordinates.empty(),
                  ExcNotSupported(who + ": the mesh is not logically Cartesian (a subdivided box refined uniformly, "
                                        "deformed in any way)."));
      return {std::move(cells), std::move(cell_dofs), std::move(coordinates)};
    }

    /// The owned box of the grid and the size of the whole grid (as in StencilOperator::Grid).
    struct GridBox
    {
      std::array<unsigned int, 3> first{{0, 0, 0}}, size{{1, 1, 1}};
      std::array<unsigned int, 3> global_size{{1, 1, 1}};
    };

    /// The owned box; throws unless the owned points of every rank are a box numbered lexicographically.
    template <int dim>
    GridBox
    owned_box(const std::vector<std::array<long, dim>> &coordinates,
              const unsigned int                        n_owned,
              const MPI_Comm                            comm,
              const std::string                        &who)
    {
      const unsigned int  n_local = coordinates.size();
      GridBox             grid;
      std::array<long, 3> lowest{{0, 0, 0}}, highest{{0, 0, 0}};
      for (unsigned int d = 0; d < dim; ++d)
        {
          lowest[d]  = std::numeric_limits<long>::max();
          highest[d] = std::numeric_limits<long>::min();
        }
      long top[3] = {0, 0, 0};
      for (unsigned int i = 0; i < n_local; ++i)
        for (unsigned int d = 0; d < dim; ++d)
          {
            if (i < n_owned)
              {
                lowest[d]  = std::min(lowest[d], coordinates[i][d]);
                highest[d] = std::max(highest[d], coordinates[i][d]);
              }
            top[d] = std::max(top[d], coordinates[i][d]);
          }
      std::size_t box_points = n_owned > 0 ? 1 : 0;
      for (unsigned int d = 0; d < dim; ++d)
        {
          grid.global_size[d] = Utilities::MPI::max(top[d], comm) + 1;
          grid.first[d]       = n_owned > 0 ? lowest[d] : 0;
          grid.size[d]        = n_owned > 0 ? highest[d] - lowest[d] + 1 : 0;
          box_points *= grid.size[d];
        }
      const auto lex = [&](const std::array<long, dim> &g) {
        std::size_t index = 0;
        for (int d = dim - 1; d >= 0; --d)
          index = index * grid.size[d] + (g[d] - grid.first[d]);
        return index;
      };
      int box = box_points == n_owned;
      for (unsigned int i = 0; i < n_owned && box; ++i)
        box = lex(coordinates[i]) == i;
      AssertThrow(Utilities::MPI::min(box, comm) == 1,
                  ExcNotSupported(who + ": the locally owned DoFs of a rank do not form a box of the grid numbered "
                                        "lexicographically. Call gpumf::renumber_lexicographic(dof_handler) before "
                                        "distributing the MatrixFree object, and partition the mesh into boxes (one "
                                        "rank; or 2^k coarse cells along one direction on 2^k ranks)."));
      return grid;
    }

    /// Constrained points, and the faces of the box that are constrained as a whole.
    struct FaceConstraints
    {
      /// per owned and ghost point
      std::vector<bool> constrained;
      /// bit 2d (2d+1): the lower (upper) face normal to direction d is constrained
      unsigned int dirichlet_faces;
      /// 1 when the constrained points are exactly those of these faces, on every rank
      int faces_ok;
    };

    template <int dim, typename Number>
    FaceConstraints
    face_constraints(const MatrixFree<dim, Number>                            &mf,
                     const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
                     const std::vector<std::array<long, dim>>                 &coordinates,
                     const GridBox                                            &grid)
    {
      const MPI_Comm     comm            = partitioner->get_mpi_communicator();
      const unsigned int n_owned         = partitioner->locally_owned_size();
      const unsigned int n_local         = coordinates.size();
      unsigned int       dirichlet_faces = 0;
      std::vector<bool>  constrained(n_local, false);
      {
        Vector<Number> flags(partitioner, Backend::host);
        for (const unsigned int i : mf.get_constrained_dofs())
          flags.get_values()[i] = Number(1);
        flags.update_ghost_values();
        for (unsigned int i = 0; i < n_local; ++i)
          constrained[i] = flags.get_values()[i] != Number(0);
      }
      const auto on_face = [&](const std::array<long, dim> &g, const unsigned int face) {
        const unsigned int d = face / 2;
        return face % 2 == 0 ? g[d] == 0 : g[d] + 1 == long(grid.global_size[d]);
      };
      std::array<int, 6> free_on_face{}, on_face_count{};
      for (unsigned int i = 0; i < n_owned; ++i)
        for (unsigned int f = 0; f < 2 * dim; ++f)
          if (on_face(coordinates[i], f))
            {
              ++on_face_count[f];
              free_on_face[f] += !constrained[i];
            }
      for (unsigned int f = 0; f < 2 * dim; ++f)
        if (Utilities::MPI::sum(free_on_face[f], comm) == 0 && Utilities::MPI::sum(on_face_count[f], comm) > 0)
          dirichlet_faces |= 1u << f;
      const auto on_dirichlet_face = [&](const std::array<long, dim> &g) {
        for (unsigned int f = 0; f < 2 * dim; ++f)
          if ((dirichlet_faces >> f & 1u) && on_face(g, f))
            return true;
        return false;
      };
      int faces_ok = 1;
      for (unsigned int i = 0; i < n_local; ++i)
        faces_ok = faces_ok && constrained[i] == on_dirichlet_face(coordinates[i]);
      faces_ok = Utilities::MPI::min(faces_ok, comm);
      return {std::move(constrained), dirichlet_faces, faces_ok};
    }

    /// The rows of the owned points by neighbour offset (n_entries each), from the element matrices.
    template <int dim, typename Number>
    std::vector<double>
    element_rows(const FiniteElement<dim>                                    &fe,
                 const typename StencilOperator<dim, Number>::AdditionalData &data,
                 const GridPoints<dim>                                       &points,
                 const unsigned int                                           n_owned)
    {
      using cell_iterator              = typename DoFHandler<dim>::cell_iterator;
      constexpr unsigned int n_entries = StencilOperator<dim, Number>::n_entries;
      const auto            &cells     = points.cells;
      const auto            &cell_dofs = points.cell_dofs;
      std::vector<double>    rows(std::size_t(n_entries) * n_owned, 0.);
      const MappingQ<dim>    q1(1);
      const Mapping<dim>    &mapping = data.mapping ? *data.mapping : static_cast<const Mapping<dim> &>(q1);
      const unsigned int     n       = fe.n_dofs_per_cell();
      // element matrices in deal.II's threads, summed into the rows in cell order
      internal::for_each_element_matrix<dim>(
        mapping,
        fe,
        QGauss<dim>(data.n_q_points_1d),
        cells,
        [&](const unsigned int c) {
          bool touches = false;
          for (unsigned int a = 0; a < n; ++a)
            touches = touches || cell_dofs[c * n + a] < n_owned;
          return touches;
        },
        [&](const cell_iterator &cell, const FEValues<dim> &values, FullMatrix<double> &matrix) {
          if (data.cell_matrix)
            data.cell_matrix(cell, values, matrix);
          else
            internal::add_laplace_matrix(values, matrix);
        },
        [&](const unsigned int c, const FullMatrix<double> &matrix) {
          for (unsigned int a = 0; a < n; ++a)
            {
              const unsigned int i = cell_dofs[c * n + a];
              if (i >= n_owned)
                continue;
              for (unsigned int b = 0; b < n; ++b)
                {
                  unsigned int k = 0;
                  for (int d = dim - 1; d >= 0; --d)
                    k = 3 * k + (1 + int((b >> d) & 1u) - int((a >> d) & 1u));
                  rows[std::size_t(i) * n_entries + k] += matrix(a, b);
                }
            }
        });
      return rows;
    }

    /// The stencils in the lightest storage that holds every row, and the direction of a semi_constant one.
    template <typename Number>
    struct Stencils
    {
      StencilStorage      storage;
      unsigned int        direction;
      std::vector<Number> stored;
    };

    template <int dim, typename Number>
    Stencils<Number>
    stencils(const std::vector<double>                &rows,
             const std::vector<std::array<long, dim>> &coordinates,
             const FaceConstraints                    &faces,
             const GridBox                            &grid,
             const unsigned int                        n_owned,
             const StencilStorage                      wanted_storage,
             const MPI_Comm                            comm,
             const std::string                        &who)
    {
      constexpr unsigned int   n_entries   = StencilOperator<dim, Number>::n_entries;
      const unsigned int       n_local     = coordinates.size();
      const std::vector<bool> &constrained = faces.constrained;
      const int                faces_ok    = faces.faces_ok;
      unsigned int             direction   = dim;
      // the lightest storage that holds every row: kinds per direction (3^dim classes), planes
      const auto class_of = [&](const std::array<long, dim> &g, const unsigned int skip) {
        unsigned int c = 0;
        for (int d = dim - 1; d >= 0; --d)
          if (unsigned(d) != skip)
            c = 3 * c + internal::stencil_boundary_kind(g[d], grid.global_size[d]);
        return c;
      };
      // representative rows per key; false when two rows of one key differ
      const auto uniform = [&](const auto &key_of, const std::size_t n_keys, std::vector<double> &table) {
        table.assign(n_keys * n_entries, 0.);
        std::vector<bool> set(n_keys, false);
        int               ok = 1;
        for (unsigned int i = 0; i < n_owned && ok; ++i)
          {
            if (constrained[i])
              continue; // identity rows: from the Dirichlet faces
            const std::size_t key = key_of(coordinates[i]);
            const double     *row = rows.data() + std::size_t(i) * n_entries;
            if (!set[key])
              std::copy(row, row + n_entries, table.begin() + key * n_entries), set[key] = true;
            else
              ok = same_row(row, table.data() + key * n_entries, n_entries);
          }
        return Utilities::MPI::min(ok, comm) == 1;
      };
      const unsigned int   n_classes = Utilities::pow(3, dim);
      std::vector<double>  table;
      StencilStorage       chosen = StencilStorage::variable;
      const StencilStorage wanted = wanted_storage;
      if (faces_ok && (wanted == StencilStorage::automatic || wanted == StencilStorage::constant) &&
          uniform([&](const std::array<long, dim> &g) { return class_of(g, dim); }, n_classes, table))
        chosen = StencilStorage::constant;
      else if (faces_ok && (wanted == StencilStorage::automatic || wanted == StencilStorage::semi_constant))
        for (int d = dim - 1; d >= 0 && chosen == StencilStorage::variable; --d)
          if (uniform(
                [&](const std::array<long, dim> &g) { return std::size_t(g[d]) * (n_classes / 3) + class_of(g, d); },
                std::size_t(grid.global_size[d]) * (n_classes / 3),
                table))
            {
              chosen    = StencilStorage::semi_constant;
              direction = d;
            }
      AssertThrow(wanted == StencilStorage::automatic || wanted == chosen,
                  ExcNotSupported(who + ": the storage " + to_string(wanted) + " cannot hold this operator (" +
                                  (faces_ok ? std::string("the rows vary") :
                                              std::string("the constrained DoFs are not whole faces of the box")) +
                                  "); it needs " + to_string(chosen) + "."));
      std::vector<Number> stored;
      if (chosen == StencilStorage::variable)
        {
          // [entry][point], constraints applied: identity rows, no columns of constrained points
          stored.assign(std::size_t(n_entries) * n_owned, Number(0));
          std::unordered_map<std::size_t, unsigned int> local_of; // global grid index -> local index
          const auto                                    global_index = [&](const std::array<long, dim> &g) {
            std::size_t index = 0;
            for (int d = dim - 1; d >= 0; --d)
              index = index * grid.global_size[d] + g[d];
            return index;
          };
          for (unsigned int i = 0; i < n_local; ++i)
            local_of[global_index(coordinates[i])] = i;
          for (unsigned int i = 0; i < n_owned; ++i)
            for (unsigned int k = 0; k < n_entries; ++k)
              {
                std::array<long, dim> g      = coordinates[i];
                unsigned int          r      = k;
                bool                  inside = true;
                for (unsigned int d = 0; d < dim; ++d, r /= 3)
                  {
                    g[d] += long(r % 3) - 1;
                    inside = inside && g[d] >= 0 && g[d] < long(grid.global_size[d]);
                  }
                const auto   it        = inside ? local_of.find(global_index(g)) : local_of.end();
                const bool   neighbour = it != local_of.end();
                const double value     = rows[std::size_t(i) * n_entries + k];
                double       entry     = 0;
                if (constrained[i])
                  entry = k == n_entries / 2 ? 1. : 0.;
                else if (neighbour && !constrained[it->second])
                  entry = value;
                stored[std::size_t(k) * n_owned + i] = Number(entry);
              }
        }
      else
        stored.assign(table.begin(), table.end());
      return {chosen, direction, std::move(stored)};
    }

    /// The halo's ghost entries (StencilOperator::Grid::halo) of a rank's owned box.
    template <int dim>
    std::vector<unsigned int>
    halo_indices(const std::vector<std::array<long, dim>> &coordinates, const unsigned int n_owned, const GridBox &grid)
    {
      const unsigned int n_local = coordinates.size();
      std::size_t        ext     = 1;
      for (unsigned int d = 0; d < dim; ++d)
        ext *= grid.size[d] + 2;
      std::vector<unsigned int> halo(n_owned > 0 ? ext : 0, no_index);
      for (unsigned int i = n_owned; i < n_local && n_owned > 0; ++i)
        {
          std::size_t index  = 0;
          bool        inside = true;
          for (int d = dim - 1; d >= 0; --d)
            {
              const long e = coordinates[i][d] - long(grid.first[d]) + 1;
              inside       = inside && e >= 0 && e < long(grid.size[d]) + 2;
              index        = index * (grid.size[d] + 2) + e;
            }
          if (inside)
            halo[index] = i;
        }
      return halo;
    }
  } // namespace

  template <int dim>
  void
  renumber_lexicographic(DoFHandler<dim> &dof)
  {
    AssertThrow(!dof.has_hp_capabilities() || dof.get_fe_collection().size() == 1,
                ExcNotSupported("gpumf::renumber_lexicographic: a DoFHandler of one element (not an "
                                "hp::FECollection of several)."));
    check_element(dof.get_fe(), "gpumf::renumber_lexicographic");
    const IndexSet &owned    = dof.locally_owned_dofs();
    const IndexSet  relevant = DoFTools::extract_locally_relevant_dofs(dof);
    const auto partitioner   = std::make_shared<Utilities::MPI::Partitioner>(owned, relevant, dof.get_communicator());
    const auto cells         = owned_and_ghost_cells(dof);
    std::vector<unsigned int> cell_dofs;
    const auto                coordinates = dof_coordinates<dim>(dof, cells, *partitioner, cell_dofs);
    AssertThrow(!coordinates.empty(),
                ExcNotSupported("gpumf::renumber_lexicographic: the mesh is not logically Cartesian (a subdivided "
                                "box refined uniformly, deformed in any way)."));
    const unsigned int        n_owned = owned.n_elements();
    std::vector<unsigned int> order(n_owned);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](const unsigned int a, const unsigned int b) {
      for (int d = dim - 1; d >= 0; --d)
        if (coordinates[a][d] != coordinates[b][d])
          return coordinates[a][d] < coordinates[b][d];
      return false;
    });
    // owned DoF order[r] gets the r-th index of the rank's range
    std::vector<types::global_dof_index> new_numbers(n_owned);
    for (unsigned int r = 0; r < n_owned; ++r)
      new_numbers[order[r]] = owned.nth_index_in_set(r);
    dof.renumber_dofs(new_numbers);
  }

  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::reinit(const MatrixFree<dim, Number> &mf, const AdditionalData &data)
  {
    const std::string         who = "StencilOperator";
    const DoFHandler<dim>    &dof = mf.get_dof_handler();
    const FiniteElement<dim> &fe  = mf.get_fe();
    check_element(fe, who);
    AssertThrow(data.storage != StencilStorage::general,
                ExcNotSupported(who + " stores its stencils on the grid (automatic, constant, semi_constant or "
                                      "variable); the general (ELL) storage is MultiColorGaussSeidel's."));
    AssertThrow(mf.get_mg_level() == numbers::invalid_unsigned_int,
                ExcNotSupported(who + " works on the active cells; a MatrixFree object of a multigrid level is not "
                                      "supported."));
    partitioner                        = mf.get_vector_partitioner();
    backend_                           = mf.backend();
    const MPI_Comm comm                = partitioner->get_mpi_communicator();
    bool           has_constraint_rows = false;
    for (unsigned int c = 0; c < mf.n_colors(); ++c)
      has_constraint_rows = has_constraint_rows || mf.get_data(c).has_constraint_rows;
    AssertThrow(Utilities::MPI::max(int(has_constraint_rows), comm) == 0,
                ExcNotSupported(who + ": the constraints have lines with entries (hanging nodes, periodicity); the "
                                      "stencil supports Dirichlet conditions on conforming meshes."));

    // grid coordinates of the owned and ghost DoFs, the owned box
    const GridPoints<dim> points  = grid_points(dof, *partitioner, who);
    const unsigned int    n_owned = partitioner->locally_owned_size();
    grid                          = Grid();
    grid.n_owned                  = n_owned;
    const GridBox box             = owned_box<dim>(points.coordinates, n_owned, comm, who);
    grid.first                    = box.first;
    grid.size                     = box.size;
    grid.global_size              = box.global_size;

    const FaceConstraints faces = face_constraints<dim, Number>(mf, partitioner, points.coordinates, box);
    grid.dirichlet_faces        = faces.dirichlet_faces;

    const std::vector<double> rows = element_rows<dim, Number>(fe, data, points, n_owned);

    const Stencils<Number> chosen =
      stencils<dim, Number>(rows, points.coordinates, faces, box, n_owned, data.storage, comm, who);
    grid.storage   = chosen.storage;
    grid.direction = chosen.direction;
    grid.stencils.reinit(backend_, chosen.stored);

    if (partitioner->n_mpi_processes() > 1)
      grid.halo.reinit(backend_, halo_indices<dim>(points.coordinates, n_owned, box));
  }

  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::check_vector(const VectorType &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(v.backend() == backend_ && internal::same_layout(*v.get_partitioner(), *partitioner),
                ExcVectorMismatch("a vector of another layout or backend",
                                  "the layout and backend of the MatrixFree object of StencilOperator::reinit()"));
  }

  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::vmult(VectorType &dst, const VectorType &src) const
  {
    check_vector(src);
    check_vector(dst);
    AssertThrow(&dst != &src, ExcNotSupported("StencilOperator::vmult: dst and src must be different vectors."));
    internal::run_loop<Number>("gpumf::StencilOperator::vmult", &src, &dst, false, [&]() {
      GPUMF_DISPATCH(backend_, stencil_apply(launch_of<dim, Number>(grid), src.get_values(), dst.get_values()));
    });
  }



  template <int dim, typename Number>
  unsigned int
  StencilOperator<dim, Number>::color_of(const unsigned int i) const
  {
    return internal::stencil_color_of<dim>(grid, i);
  }


  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::relax_color(const unsigned int color,
                                            const Number       omega,
                                            const VectorType  &b,
                                            VectorType        &x) const
  {
    check_vector(x);
    check_vector(b);
    AssertIndexRange(color, 1u << dim);
    GPUMF_DISPATCH(backend_,
                   stencil_relax_color(launch_of<dim, Number>(grid), color, omega, b.get_values(), x.get_values()));
  }

  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::Tvmult(VectorType &dst, const VectorType &src) const
  {
    vmult(dst, src);
  }

  template <int dim, typename Number>
  void
  StencilOperator<dim, Number>::initialize_dof_vector(VectorType &vector) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vector.reinit(partitioner, backend_);
  }

  template <int dim, typename Number>
  StencilStorage
  StencilOperator<dim, Number>::storage() const
  {
    return grid.storage;
  }

  template <int dim, typename Number>
  unsigned int
  StencilOperator<dim, Number>::varying_direction() const
  {
    return grid.storage == StencilStorage::semi_constant ? grid.direction : dim;
  }

  template <int dim, typename Number>
  typename StencilOperator<dim, Number>::size_type
  StencilOperator<dim, Number>::m() const
  {
    return partitioner ? partitioner->size() : 0;
  }

  template <int dim, typename Number>
  typename StencilOperator<dim, Number>::size_type
  StencilOperator<dim, Number>::n() const
  {
    return m();
  }

  template <int dim, typename Number>
  Backend
  StencilOperator<dim, Number>::backend() const
  {
    return backend_;
  }

  template <int dim, typename Number>
  std::size_t
  StencilOperator<dim, Number>::memory_consumption() const
  {
    return sizeof(*this) + grid.halo.memory_consumption() + grid.stencils.memory_consumption();
  }

  template <int dim, typename Number>
  std::size_t
  StencilOperator<dim, Number>::memory_traffic() const
  {
    const std::size_t per_point = 2 + (grid.storage == StencilStorage::variable ? n_entries : 0);
    return per_point * sizeof(Number) * std::size_t(grid.n_owned);
  }

  template <int dim, typename Number>
  const typename StencilOperator<dim, Number>::Grid &
  StencilOperator<dim, Number>::get_grid() const
  {
    return grid;
  }

  template void
  renumber_lexicographic<2>(DoFHandler<2> &);
  template void
  renumber_lexicographic<3>(DoFHandler<3> &);
  template class StencilOperator<2, float>;
  template class StencilOperator<2, double>;
  template class StencilOperator<3, float>;
  template class StencilOperator<3, double>;
} // namespace gpumf
