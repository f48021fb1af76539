// gpumf::MatrixFree setup: everything is computed on the host with deal.II's own
// DoFHandler, FE_Q, FEValues and Mapping, then copied to the backend's memory.
#include <gpumf/matrix_free.h>

#include <deal.II/base/polynomial.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <atomic>
#include <map>
#include <set>
#include <unordered_map>

#include "core/coloring.h"
#include "core/device.h"
#include "core/threads.h"
#include <gpumf/setup_profile.h>

#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    std::atomic<unsigned int> next_id{0};


    /// The FE_Q of @p dof's element, after the checks of what is supported (before any work).
    template <int dim, typename Number>
    const FE_Q<dim> &
    supported_element(const DoFHandler<dim>                                  &dof,
                      const Quadrature<1>                                    &quad,
                      const typename MatrixFree<dim, Number>::AdditionalData &additional_data)
    {
      using MF = MatrixFree<dim, Number>;
      AssertThrow(additional_data.parallelization_scheme == MF::parallel_in_elem,
                  ExcNotSupported("gpumf::MatrixFree supports AdditionalData::parallel_in_elem only."));
      AssertThrow(!dof.has_hp_capabilities() || dof.get_fe_collection().size() == 1,
                  ExcNotSupported("gpumf::MatrixFree supports DoFHandlers with a single element (no hp)."));
      // FE_Q, or FESystem of one FE_Q base element with any multiplicity
      const FiniteElement<dim> &fe       = dof.get_fe();
      const bool                one_base = fe.n_base_elements() == 1;
      const auto               *fe_q     = dynamic_cast<const FE_Q<dim> *>(one_base ? &fe.base_element(0) : &fe);
      AssertThrow(one_base && fe_q != nullptr,
                  ExcNotSupported("gpumf::MatrixFree supports FE_Q<dim> and FESystem<dim> of one FE_Q<dim> "
                                  "(all components of the same degree), got " +
                                  fe.get_name() + "."));
      const unsigned int degree = fe_q->degree;
      const unsigned int n      = degree + 1;
      const unsigned int n_q    = quad.size();
      AssertThrow(n_q >= n && n_q <= 32,
                  ExcNotSupported(
                    "gpumf::MatrixFree supports 1D quadratures with fe_degree + 1 = " + std::to_string(n) +
                    " to 32 points (Gauss with n_q >= fe_degree + 1, "
                    "Gauss-Lobatto with fe_degree + 1 points), got " +
                    std::to_string(n_q) + " points for FE_Q degree " + std::to_string(degree) + "."));
      return *fe_q;
    }

    /// The DoFs of the active cells or of one level that a rank reads and owns.
    struct RelevantDoFs
    {
      IndexSet        relevant;
      const IndexSet &owned;
      /// the first problem with the constraints found on this rank (empty if none)
      std::string error;
    };

    /// The relevant and owned DoFs of the active cells, or of level @p mg_level if it is valid.
    template <int dim, typename Number>
    RelevantDoFs
    relevant_dofs(const DoFHandler<dim> &dof, const AffineConstraints<Number> &constraints, const unsigned int mg_level)
    {
      const bool on_level = mg_level != numbers::invalid_unsigned_int;
      if (on_level)
        {
          AssertThrow(mg_level < dof.get_triangulation().n_global_levels(),
                      ExcNotSupported("gpumf::MatrixFree: AdditionalData::mg_level = " + std::to_string(mg_level) +
                                      ", but the mesh has " +
                                      std::to_string(dof.get_triangulation().n_global_levels()) + " levels."));
          AssertThrow(dof.has_level_dofs(),
                      ExcNotSupported("gpumf::MatrixFree: AdditionalData::mg_level is set, but the DoFHandler has no "
                                      "level DoFs; call dof_handler.distribute_mg_dofs() first."));
        }
      IndexSet        relevant    = on_level ? DoFTools::extract_locally_relevant_level_dofs(dof, mg_level) :
                                               DoFTools::extract_locally_relevant_dofs(dof);
      const IndexSet &owned       = on_level ? dof.locally_owned_mg_dofs(mg_level) : dof.locally_owned_dofs();
      const IndexSet &local_lines = constraints.get_local_lines();
      std::string     error;
      if (local_lines.size() != 0 && (relevant & local_lines) != relevant)
        error = on_level ?
                  "gpumf::MatrixFree needs the constraint lines of every locally relevant level DoF: initialize the "
                  "level AffineConstraints with constraints.reinit(DoFTools::extract_locally_relevant_level_dofs("
                  "dof_handler, level))." :
                  "gpumf::MatrixFree needs the constraint lines of every locally relevant DoF: initialize the "
                  "AffineConstraints with constraints.reinit(locally_relevant_dofs) "
                  "(DoFTools::extract_locally_relevant_dofs).";
      return {std::move(relevant), owned, std::move(error)};
    }

    /**
     * Cells, and the code of each of their DoFs before the vector layout is known:
     * >= 0 a DoF index, -1 constrained without entries (Dirichlet), -2 - r row r of the table.
     */
    template <int dim, typename Number>
    struct CellCodes
    {
      std::vector<typename DoFHandler<dim>::cell_iterator> cells;
      /// cell DoF index of component k, lexicographic i (MatrixFree::get_dof_numbering())
      std::vector<unsigned int> dof_numbering;
      unsigned int              dofs_per_cell;
      std::vector<long long>    codes;
      /// per cell, dofs_per_cell each: the global index of every DoF, constrained or not
      /// (AdditionalData::store_plain_indices; else empty)
      std::vector<types::global_dof_index> plain;
      /// per cell: reads or writes a vector entry owned by another rank
      std::vector<unsigned char> cell_touches_ghost;
      /// the constraint table: rows in order of first use, global indices
      std::vector<std::vector<std::pair<types::global_dof_index, Number>>> rows;
      /// the relevant DoFs and the entries of the rows owned by other ranks
      IndexSet ghosts;
      /// the first problem found on this rank (empty if none)
      std::string error;
    };

    template <int dim, typename Number>
    CellCodes<dim, Number>
    cells_and_dof_codes(const DoFHandler<dim>                                                      &dof,
                        const FE_Q<dim>                                                            &fe_q,
                        const AffineConstraints<Number>                                            &constraints,
                        const std::function<bool(const typename DoFHandler<dim>::cell_iterator &)> &filter,
                        const unsigned int                                                          mg_level,
                        const RelevantDoFs                                                         &dofs,
                        const bool                                                                  store_plain)
    {
      using cell_iterator                     = typename DoFHandler<dim>::cell_iterator;
      const FiniteElement<dim>  &fe           = dof.get_fe();
      const unsigned int         n_components = fe.n_components();
      const unsigned int         n            = fe_q.degree + 1;
      const bool                 on_level     = mg_level != numbers::invalid_unsigned_int;
      const IndexSet            &owned        = dofs.owned;
      std::string                error        = dofs.error;
      std::vector<cell_iterator> cells;
      if (on_level)
        {
          for (const auto &level_cell : dof.mg_cell_iterators_on_level(mg_level))
            {
              const cell_iterator cell(&dof.get_triangulation(), level_cell->level(), level_cell->index(), &dof);
              if (cell->is_locally_owned_on_level() && filter(cell))
                cells.push_back(cell);
            }
        }
      else
        for (const auto &cell : dof.active_cell_iterators())
          if (cell->is_locally_owned() && filter(cell))
            cells.push_back(cell);
      const std::vector<unsigned int> &lexicographic = fe_q.get_poly_space_numbering_inverse();
      const unsigned int               n_tensor_dofs = lexicographic.size();
      const unsigned int               dofs_per_cell = n_components * n_tensor_dofs;
      std::vector<unsigned int>        dof_numbering(dofs_per_cell);
      for (unsigned int k = 0; k < n_components; ++k)
        for (unsigned int i = 0; i < n_tensor_dofs; ++i)
          dof_numbering[k * n_tensor_dofs + i] =
            n_components > 1 ? fe.component_to_system_index(k, lexicographic[i]) : lexicographic[i];
      const unsigned int                   max_entries = 2 * n_components * Utilities::pow(n, dim - 1);
      const unsigned int                   n_cells     = cells.size();
      std::vector<long long>               codes(std::size_t(n_cells) * dofs_per_cell);
      std::vector<types::global_dof_index> plain(store_plain ? codes.size() : 0);
      std::vector<unsigned char>           cell_touches_ghost(n_cells, 0);
      // Threads: each DoF's index, -1 for Dirichlet, or -2 - g for DoF g with a constraint line
      // with entries (numbered as rows of the table below, serially, in order of first use).
      internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
        std::vector<types::global_dof_index> dof_indices(fe.n_dofs_per_cell());
        for (unsigned int c = begin; c < end; ++c)
          {
            if (on_level)
              cells[c]->get_mg_dof_indices(dof_indices);
            else
              cells[c]->get_dof_indices(dof_indices);
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              {
                const types::global_dof_index g    = dof_indices[dof_numbering[i]];
                long long                    &code = codes[std::size_t(c) * dofs_per_cell + i];
                // with plain indices a cell reads every DoF of its own (read_dof_values_plain()):
                // a constrained ghost DoF too makes it a boundary cell, so that cell_loop() with
                // overlap runs it after the ghost exchange has finished
                if (store_plain)
                  {
                    plain[std::size_t(c) * dofs_per_cell + i] = g;
                    if (!owned.is_element(g))
                      cell_touches_ghost[c] = 1;
                  }
                if (!constraints.is_constrained(g))
                  {
                    code = g;
                    if (!owned.is_element(g))
                      cell_touches_ghost[c] = 1;
                  }
                else
                  {
                    const auto *line = constraints.get_constraint_entries(g);
                    code             = line == nullptr || line->empty() ? -1 : -2 - static_cast<long long>(g);
                  }
              }
          }
      });
      // The constraint table: rows in order of first use, so the numbering does not depend on threads.
      std::unordered_map<types::global_dof_index, unsigned int>            row_of;
      std::vector<std::vector<std::pair<types::global_dof_index, Number>>> rows;
      std::vector<unsigned char>                                           row_touches_ghost;
      IndexSet                                                             ghosts = dofs.relevant;
      for (std::size_t k = 0; k < codes.size(); ++k)
        {
          long long &code = codes[k];
          if (code > -2)
            continue;
          const types::global_dof_index g = -2 - code;
          const auto [row, is_new]        = row_of.emplace(g, rows.size());
          if (is_new)
            {
              const auto *line = constraints.get_constraint_entries(g);
              if (line->size() > max_entries && error.empty())
                error = "gpumf::MatrixFree: DoF " + std::to_string(g) + " is constrained to " +
                        std::to_string(line->size()) +
                        " other DoFs (a mean-value constraint or similar); "
                        "gpumf applies constraint lines with at most " +
                        std::to_string(max_entries) +
                        " entries here (hanging nodes, periodicity, normal-flux conditions), because every "
                        "cell with that DoF reads all of them. Impose the condition another way, e.g. by "
                        "fixing one DoF or projecting out the mean in the solver.";
              row_touches_ghost.push_back(0);
              for (const auto &[master, weight] : *line)
                {
                  if (constraints.is_constrained(master) && error.empty())
                    error = "gpumf::MatrixFree: DoF " + std::to_string(g) + " is constrained to DoF " +
                            std::to_string(master) +
                            ", which is itself constrained: call "
                            "constraints.close() before reinit().";
                  if (!owned.is_element(master))
                    {
                      ghosts.add_index(master);
                      row_touches_ghost.back() = 1;
                    }
                }
              rows.emplace_back(line->begin(), line->end());
            }
          code = -2 - static_cast<long long>(row->second);
          if (row_touches_ghost[row->second])
            cell_touches_ghost[k / dofs_per_cell] = 1;
        }
      if (owned.n_elements() + ghosts.n_elements() >= internal::constrained_flag && error.empty())
        error = "gpumf::MatrixFree: more than 2^31 owned and ghost DoFs on one rank; use more MPI ranks.";
      return {std::move(cells),
              std::move(dof_numbering),
              dofs_per_cell,
              std::move(codes),
              std::move(plain),
              std::move(cell_touches_ghost),
              std::move(rows),
              std::move(ghosts),
              std::move(error)};
    }

    /// The constraint table in the vector's local numbering, and the constrained DoFs.
    template <typename Number>
    struct ConstraintTable
    {
      std::vector<unsigned int> row_start, row_indices;
      std::vector<Number>       row_weights;
      /// constrained DoFs (rows set to the identity by the operators), local indices, sorted
      std::vector<unsigned int> constrained;
    };

    template <typename Number>
    ConstraintTable<Number>
    constraint_table(const std::vector<std::vector<std::pair<types::global_dof_index, Number>>> &rows,
                     const AffineConstraints<Number>                                            &constraints,
                     const Utilities::MPI::Partitioner                                          &partitioner)
    {
      std::vector<unsigned int> row_start{0}, row_indices;
      std::vector<Number>       row_weights;
      for (const auto &row : rows)
        {
          for (const auto &[master, weight] : row)
            {
              row_indices.push_back(partitioner.global_to_local(master));
              row_weights.push_back(weight);
            }
          row_start.push_back(row_indices.size());
        }
      std::vector<unsigned int> constrained;
      for (const auto &line : constraints.get_lines())
        if (partitioner.in_local_range(line.index))
          constrained.push_back(partitioner.global_to_local(line.index));
      std::sort(constrained.begin(), constrained.end());
      return {std::move(row_start), std::move(row_indices), std::move(row_weights), std::move(constrained)};
    }

    /**
     * The colors of the cells and the order of the cells within each, as MatrixFree keeps them
     * (graph, color_start, interior_split, boundary_end), and for the later phases: per cell
     * whether it has constraint rows, and the cell (position in CellCodes::cells) at each place.
     */
    template <int dim, typename Number>
    struct CellOrder
    {
      typename MatrixFree<dim, Number>::ConflictStrategy                strategy;
      std::vector<std::vector<typename DoFHandler<dim>::cell_iterator>> graph;
      std::vector<unsigned int>                                         color_start, interior_split, boundary_end;
      std::vector<unsigned char>                                        has_rows;
      std::vector<unsigned int>                                         order;
    };

    template <int dim, typename Number>
    CellOrder<dim, Number>
    color(const Triangulation<dim> &tria, const CellCodes<dim, Number> &cell_codes, const bool use_coloring)
    {
      using ConflictStrategy                      = typename MatrixFree<dim, Number>::ConflictStrategy;
      const auto                   &cells         = cell_codes.cells;
      const std::vector<long long> &codes         = cell_codes.codes;
      const auto                   &rows          = cell_codes.rows;
      const unsigned int            dofs_per_cell = cell_codes.dofs_per_cell;
      const unsigned int            n_cells       = cells.size();
      CellOrder<dim, Number>        result;
      // Colors of cell positions: cells of a color touch disjoint vector entries, the vector
      // indices a cell reads and writes being its DoFs and their constraints' entries. The
      // parity coloring covers neighbors through shared DoFs only, not through constraints.
      const auto touched = [&](const unsigned int c) {
        std::vector<types::global_dof_index> indices;
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          {
            const long long code = codes[std::size_t(c) * dofs_per_cell + i];
            if (code >= 0)
              indices.push_back(code);
            else if (code <= -2)
              for (const auto &entry : rows[-2 - code])
                indices.push_back(entry.first);
          }
        return indices;
      };
      using Rule                                       = internal::CellColoringRule;
      internal::CellColoring                  coloring = internal::color_cells<dim>(tria,
                                                                   cells,
                                                                   touched,
                                                                   !use_coloring ? Rule::one_color :
                                                                                    rows.empty()  ? Rule::parity :
                                                                                                    Rule::graph);
      std::vector<std::vector<unsigned int>> &colors   = coloring.colors;
      result.strategy = coloring.rule == Rule::parity ? ConflictStrategy::cartesian_coloring :
                        coloring.rule == Rule::graph  ? ConflictStrategy::graph_coloring :
                                                        ConflictStrategy::atomics;
      // Within a color: half of the cells that touch no ghost entry, the cells that do, the
      // other half (see CellRange and AdditionalData::overlap_communication_computation); within
      // each of the three, the cells with constraint rows last, so that the blocks of a launch
      // (several cells each, waiting for each other at barriers) hold cells of one kind.
      const std::vector<unsigned char> &cell_touches_ghost = cell_codes.cell_touches_ghost;
      std::vector<unsigned char>       &has_rows           = result.has_rows;
      has_rows.assign(n_cells, 0);
      for (std::size_t k = 0; k < codes.size(); ++k)
        if (codes[k] <= -2)
          has_rows[k / dofs_per_cell] = 1;
      const auto rows_last = [&](const auto begin, const auto end) {
        std::stable_partition(begin, end, [&](const unsigned int c) { return !has_rows[c]; });
      };
      std::vector<unsigned int> &order          = result.order;
      std::vector<unsigned int> &color_start    = result.color_start;
      std::vector<unsigned int> &interior_split = result.interior_split;
      std::vector<unsigned int> &boundary_end   = result.boundary_end;
      auto                      &graph          = result.graph;
      color_start.assign(1, 0);
      for (auto &color : colors)
        {
          const auto         interior   = std::stable_partition(color.begin(), color.end(), [&](const unsigned int c) {
            return !cell_touches_ghost[c];
          });
          const unsigned int n_interior = interior - color.begin();
          const unsigned int n_first    = n_interior / 2;
          std::rotate(color.begin() + n_first, interior, color.end());
          const auto boundary_last = color.begin() + n_first + (color.size() - n_interior);
          rows_last(color.begin(), color.begin() + n_first);
          rows_last(color.begin() + n_first, boundary_last);
          rows_last(boundary_last, color.end());
          interior_split.push_back(color_start.back() + n_first);
          boundary_end.push_back(interior_split.back() + (color.size() - n_interior));
          color_start.push_back(color_start.back() + color.size());
          graph.emplace_back();
          for (const unsigned int c : color)
            {
              graph.back().push_back(cells[c]);
              order.push_back(c);
            }
        }
      return result;
    }

    /**
     * Per-cell data in color order: quadrature points, JxW and inverse Jacobians per point or, on
     * an affine mesh, one determinant and inverse Jacobian per cell; the cells' vector indices.
     */
    template <int dim, typename Number>
    struct Geometry
    {
      unsigned int        n_points;
      std::size_t         n_total;
      std::vector<Number> weights;
      /// the quadrature points, Point<dim, Number> each
      std::unique_ptr<Number[]> point_coordinates;
      /// per point (where not affine)
      std::unique_ptr<Number[]> JxW, inv_jacobian;
      /// per cell, dofs_per_cell each: the vector indices (MatrixFree::local_to_global)
      std::unique_ptr<unsigned int[]> indices;
      /// per cell, dofs_per_cell each: the plain vector indices (MatrixFree::plain_local_to_global), or null
      std::unique_ptr<unsigned int[]> plain_indices;
      /// per cell (where affine)
      std::unique_ptr<Number[]> cell_det, cell_inverse;
      /// per position: 1 when the cell there has a constraint row (the flag the ordering used)
      std::vector<unsigned char> has_rows;
      /// one Jacobian per cell on this rank; the same Jacobian for all cells on all ranks
      bool affine, uniform;
    };

    /**
     * Per-cell data from FEValues on the tensor-product quadrature (x fastest), in threads (one
     * FEValues per range of cells); each cell's entries depend on that cell alone. Collective.
     */
    template <int dim, typename Number>
    Geometry<dim, Number>
    geometry(const Mapping<dim>                                     &mapping,
             const FiniteElement<dim>                               &fe,
             const Quadrature<1>                                    &quad,
             const CellCodes<dim, Number>                           &cell_codes,
             const CellOrder<dim, Number>                           &cell_order,
             const Utilities::MPI::Partitioner                      &partitioner,
             const typename MatrixFree<dim, Number>::GeometryStorage storage,
             const MPI_Comm                                          comm,
             const bool                                              with_mpi)
    {
      using G                                         = typename MatrixFree<dim, Number>::GeometryStorage;
      using point_type                                = typename MatrixFree<dim, Number>::point_type;
      const auto                       &cells         = cell_codes.cells;
      const std::vector<long long>     &codes         = cell_codes.codes;
      const unsigned int                dofs_per_cell = cell_codes.dofs_per_cell;
      const std::vector<unsigned char> &has_rows      = cell_order.has_rows;
      const std::vector<unsigned int>  &order         = cell_order.order;
      const unsigned int                n_cells       = cells.size();
      const Quadrature<dim>             quadrature(quad);
      const unsigned int                n_points = quadrature.size();
      const std::size_t                 n_total  = std::size_t(n_cells) * n_points;
      // the kernels index per-point arrays with 32-bit integers: the points themselves always, the
      // inverse Jacobians (dim * dim per point) where the geometry is stored per point (checked below)
      AssertThrow(n_total < std::numeric_limits<unsigned int>::max(),
                  ExcNotSupported("gpumf::MatrixFree: " + std::to_string(n_total) +
                                  " quadrature points on one rank; at most 2^32 are supported (32-bit "
                                  "indices): distribute the mesh over more ranks."));
      std::vector<Number> weights(n_points);
      for (unsigned int q = 0; q < n_points; ++q)
        weights[q] = quadrature.weight(q);
      // Written by the threads below, so not initialized here (first touch in the threads). The
      // per-point JxW and inverse Jacobians are only written where needed: an affine mesh (every
      // cell a parallelepiped) keeps one of each per cell, and never touches those pages.
      static_assert(sizeof(point_type) == dim * sizeof(Number), "Point<dim, Number> is dim Numbers");
      std::unique_ptr<Number[]>       point_coordinates(new Number[dim * n_total]);
      point_type *const               host_points = reinterpret_cast<point_type *>(point_coordinates.get());
      std::unique_ptr<Number[]>       host_JxW(new Number[n_total]);
      std::unique_ptr<Number[]>       host_inv_jacobian(new Number[dim * dim * n_total]);
      std::unique_ptr<unsigned int[]> host_indices(new unsigned int[std::size_t(n_cells) * dofs_per_cell]);
      std::unique_ptr<unsigned int[]> host_plain(
        cell_codes.plain.empty() ? nullptr : new unsigned int[std::size_t(n_cells) * dofs_per_cell]);
      std::unique_ptr<Number[]> cell_det(new Number[n_cells]);
      std::unique_ptr<Number[]> cell_inverse(new Number[dim * dim * std::size_t(n_cells)]);
      // per position: 1 when the cell there has a constraint row (the flag the ordering used)
      std::vector<unsigned char> host_has_rows(n_cells);
      for (unsigned int c = 0; c < n_cells; ++c)
        host_has_rows[c] = has_rows[order[c]];
      // per cell: 1 when its Jacobian is not constant (to rounding) over its points
      std::vector<unsigned char> curved(n_cells, 0);
      // Per range of cells (internal::parallel_for): whether its per-point arrays were written. A
      // range writes them when per-point storage is asked for or a curved cell was seen before it
      // started; if the mesh turns out not affine, the other ranges are computed again. A range's
      // values do not depend on when it ran (its own FEValues), so neither does the result.
      constexpr unsigned int     range = internal::parallel_range;
      std::vector<unsigned char> range_has_points((n_cells + range - 1) / range, 0);
      std::atomic<bool>          seen_curved{storage == G::per_point};
      const auto geometry = [&](const unsigned int begin, const unsigned int end, const bool first_pass) {
        const bool    per_point = seen_curved.load();
        FEValues<dim> fe_values(mapping,
                                fe,
                                quadrature,
                                update_quadrature_points | update_JxW_values | update_inverse_jacobians);
        for (unsigned int c = begin; c < end; ++c)
          {
            // geometry only: the Triangulation's iterator serves active and level cells alike
            fe_values.reinit(typename Triangulation<dim>::cell_iterator(cells[order[c]]));
            const std::size_t k0 = std::size_t(c) * n_points;
            if (per_point)
              for (unsigned int q = 0; q < n_points; ++q)
                {
                  host_JxW[k0 + q]            = fe_values.JxW(q);
                  const auto inverse_jacobian = fe_values.inverse_jacobian(q);
                  for (unsigned int e = 0; e < dim; ++e)
                    for (unsigned int d = 0; d < dim; ++d)
                      host_inv_jacobian[(e * dim + d) * n_total + k0 + q] = inverse_jacobian[e][d];
                }
            if (!first_pass)
              continue;
            for (unsigned int q = 0; q < n_points; ++q)
              for (unsigned int d = 0; d < dim; ++d)
                host_points[k0 + q][d] = fe_values.quadrature_point(q)[d];
            // the cell's Jacobian at point 0, and whether it is the same at every point
            const auto inverse_0 = fe_values.inverse_jacobian(0);
            // the test for constant Jacobians in double: the geometry of a float object
            // is rounded to float only when stored
            const double JxW_0 = fe_values.JxW(0);
            cell_det[c]        = JxW_0 / quadrature.weight(0);
            double scale       = 0;
            for (unsigned int e = 0; e < dim; ++e)
              for (unsigned int d = 0; d < dim; ++d)
                {
                  cell_inverse[(e * dim + d) * std::size_t(n_cells) + c] = inverse_0[e][d];
                  scale                                                  = std::max(scale, std::abs(inverse_0[e][d]));
                }
            const double det = JxW_0 / quadrature.weight(0);
            for (unsigned int q = 1; q < n_points && !curved[c]; ++q)
              {
                const double JxW_q = fe_values.JxW(q);
                if (std::abs(JxW_q / quadrature.weight(q) - det) > 1e-12 * std::abs(det))
                  curved[c] = 1;
                const auto inverse_q = fe_values.inverse_jacobian(q);
                for (unsigned int e = 0; e < dim; ++e)
                  for (unsigned int d = 0; d < dim; ++d)
                    if (std::abs(inverse_q[e][d] - inverse_0[e][d]) > 1e-12 * scale)
                      curved[c] = 1;
              }
            if (curved[c])
              seen_curved = true;
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              {
                const std::size_t k    = std::size_t(c) * dofs_per_cell + i;
                const long long   code = codes[std::size_t(order[c]) * dofs_per_cell + i];
                unsigned int     &out  = host_indices[k];
                out                    = code >= 0  ? partitioner.global_to_local(code) :
                                         code == -1 ? internal::no_dof :
                                                      internal::constrained_flag | static_cast<unsigned int>(-2 - code);
                // an unconstrained DoF's plain index is its code; only constrained ones are looked up
                if (host_plain)
                  host_plain[k] =
                    code >= 0 ?
                      out :
                      partitioner.global_to_local(cell_codes.plain[std::size_t(order[c]) * dofs_per_cell + i]);
              }
          }
        if (first_pass)
          range_has_points[begin / range] = per_point;
      };
      internal::parallel_for(n_cells,
                             [&](const unsigned int begin, const unsigned int end) { geometry(begin, end, true); });

      // Geometry per point, or per cell where every cell is a parallelepiped (constant Jacobian).
      const auto first_curved = std::find(curved.begin(), curved.end(), 1);
      AssertThrow(first_curved == curved.end() || storage != G::affine,
                  ExcNotSupported("gpumf::MatrixFree: GeometryStorage::affine needs parallelepiped cells "
                                  "(constant Jacobian), but the Jacobian varies within locally owned cell " +
                                  std::to_string(first_curved - curved.begin()) +
                                  " in color order. Use "
                                  "GeometryStorage::per_point or automatic."));
      const bool affine = storage != G::per_point && first_curved == curved.end();
      AssertThrow(affine || n_total * dim * dim < std::numeric_limits<unsigned int>::max(),
                  ExcNotSupported(
                    "gpumf::MatrixFree: geometry per point needs dim^2 = " + std::to_string(dim * dim) +
                    " entries for each of the " + std::to_string(n_total) +
                    " quadrature points on this rank, more than the 2^32 that 32-bit indices reach. "
                    "Distribute the mesh over more ranks, or use an affine mesh (one Jacobian per cell)."));
      if (!affine)
        internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
          if (!range_has_points[begin / range])
            geometry(begin, end, false);
        });
      bool uniform = false;
      // one Jacobian for all cells: every rank affine, and the determinant and inverse Jacobian of
      // every cell between the same smallest and largest value (to rounding); collective, as
      // affine may differ between ranks
      {
        std::vector<double> low(dim * dim + 1, std::numeric_limits<double>::max()), high(dim * dim + 1);
        for (double &h : high)
          h = -std::numeric_limits<double>::max();
        for (unsigned int c = 0; c < (affine ? n_cells : 0u); ++c)
          for (unsigned int e = 0; e <= dim * dim; ++e)
            {
              const double value =
                e == 0 ? double(cell_det[c]) : double(cell_inverse[(e - 1) * std::size_t(n_cells) + c]);
              low[e]  = std::min(low[e], value);
              high[e] = std::max(high[e], value);
            }
        if (with_mpi)
          {
            MPI_Allreduce(MPI_IN_PLACE, low.data(), dim * dim + 1, MPI_DOUBLE, MPI_MIN, comm);
            MPI_Allreduce(MPI_IN_PLACE, high.data(), dim * dim + 1, MPI_DOUBLE, MPI_MAX, comm);
          }
        const bool all_affine = with_mpi ? Utilities::MPI::min(int(affine), comm) == 1 : affine;
        double     scale      = 0;
        for (unsigned int e = 1; e <= dim * dim; ++e)
          scale = std::max({scale, std::abs(low[e]), std::abs(high[e])});
        uniform = all_affine && low[0] <= high[0]; // (no cell on any rank: not uniform)
        for (unsigned int e = 0; e <= dim * dim && uniform; ++e)
          uniform = high[e] - low[e] <= 1e-12 * (e == 0 ? std::abs(high[0]) : scale);
      }

      return {n_points,
              n_total,
              std::move(weights),
              std::move(point_coordinates),
              std::move(host_JxW),
              std::move(host_inv_jacobian),
              std::move(host_indices),
              std::move(host_plain),
              std::move(cell_det),
              std::move(cell_inverse),
              std::move(host_has_rows),
              affine,
              uniform};
    }

    /// The 1D tables of MatrixFree (shape_values, shape_gradients, co_shape_gradients).
    template <typename Number>
    struct Tables1D
    {
      std::vector<Number> values_1d, gradients_1d, derivatives_on_points;
      /// the element's nodes are the quadrature points: interpolation is the identity
      bool collocation;
    };

    /**
     * 1D tables from the element itself: along the x axis the tensor-product basis
     * function with lexicographic index i is phi_i(x) * 1 * 1.
     */
    template <int dim, typename Number>
    Tables1D<Number>
    tables_1d(const FE_Q<dim> &fe_q, const Quadrature<1> &quad)
    {
      const unsigned int               n             = fe_q.degree + 1;
      const unsigned int               n_q           = quad.size();
      const std::vector<unsigned int> &lexicographic = fe_q.get_poly_space_numbering_inverse();
      std::vector<Number>              values_1d(n_q * n), gradients_1d(n_q * n), derivatives_on_points(n_q * n_q);
      const std::vector<Polynomials::Polynomial<double>> lagrange_on_points =
        Polynomials::generate_complete_Lagrange_basis(quad.get_points());
      for (unsigned int q = 0; q < n_q; ++q)
        {
          Point<dim> x;
          x[0] = quad.point(q)[0];
          for (unsigned int i = 0; i < n; ++i)
            {
              values_1d[q * n + i]    = fe_q.shape_value(lexicographic[i], x);
              gradients_1d[q * n + i] = fe_q.shape_grad(lexicographic[i], x)[0];
            }
          for (unsigned int r = 0; r < n_q; ++r)
            {
              std::vector<double> value_and_derivative(2);
              lagrange_on_points[r].value(quad.point(q)[0], value_and_derivative);
              derivatives_on_points[q * n_q + r] = value_and_derivative[1];
            }
        }
      // collocation: the element's nodes are the quadrature points, interpolation is the identity
      bool collocation = n_q == n;
      for (unsigned int q = 0; q < n_q && collocation; ++q)
        for (unsigned int i = 0; i < n; ++i)
          if (std::abs(values_1d[q * n + i] - Number(q == i ? 1 : 0)) > 1e-12)
            collocation = false;
      return {std::move(values_1d), std::move(gradients_1d), std::move(derivatives_on_points), collocation};
    }

  } // namespace

  template <int dim, typename Number>
  MatrixFree<dim, Number>::MatrixFree()
    : id(next_id++)
  {}

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::reinit(const Mapping<dim>              &mapping,
                                  const DoFHandler<dim>           &dof_handler,
                                  const AffineConstraints<Number> &constraints,
                                  const Quadrature<1>             &quad,
                                  const AdditionalData            &additional_data)
  {
    internal_reinit(
      mapping, dof_handler, constraints, quad, [](const cell_iterator &) { return true; }, additional_data);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::reinit(const DoFHandler<dim>           &dof_handler,
                                  const AffineConstraints<Number> &constraints,
                                  const Quadrature<1>             &quad,
                                  const AdditionalData            &additional_data)
  {
    reinit(MappingQ1<dim>(), dof_handler, constraints, quad, additional_data);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::internal_reinit(const Mapping<dim>                               &mapping,
                                           const DoFHandler<dim>                            &dof,
                                           const AffineConstraints<Number>                  &constraints,
                                           const Quadrature<1>                              &quad,
                                           const std::function<bool(const cell_iterator &)> &filter,
                                           const AdditionalData                             &additional_data)
  {
    const FE_Q<dim>   &fe_q   = supported_element<dim, Number>(dof, quad, additional_data);
    const unsigned int degree = fe_q.degree;
    const unsigned int n_q    = quad.size();

    free();
    dof_handler   = &dof;
    backend_      = additional_data.backend;
    fe_degree     = degree;
    n_q_points_1d = n_q;
    n_components_ = dof.get_fe().n_components();
    if (backend_ == Backend::cuda)
      {
        AssertThrow(cuda_available(), ExcNoGPU("no CUDA device is usable"));
        const std::size_t max_shared = internal::max_shared_memory_per_block();
        max_shared_memory            = max_shared;
        AssertThrow(shared_memory_per_block_for(1) <= max_shared,
                    ExcNotSupported("gpumf::MatrixFree: a cell of FE_Q degree " + std::to_string(degree) + " with " +
                                    std::to_string(n_components_) + " components and " + std::to_string(n_q) +
                                    " points per direction needs " + std::to_string(shared_memory_per_block_for(1)) +
                                    " bytes of shared memory; the GPU offers " + std::to_string(max_shared) +
                                    " per block. Use fewer quadrature points, components or a lower degree."));
      }
    requested_cells_per_block = additional_data.cells_per_block;
    overlap                   = additional_data.overlap_communication_computation;

    const MPI_Comm comm = dof.get_triangulation().get_communicator();
    // the active cells, or those of one multigrid level with its level DoFs
    mg_level                = additional_data.mg_level;
    const RelevantDoFs dofs = relevant_dofs(dof, constraints, mg_level);

    internal::SetupSection section("MatrixFree::reinit: cells, DoF codes");
    CellCodes<dim, Number> cell_codes =
      cells_and_dof_codes(dof, fe_q, constraints, filter, mg_level, dofs, additional_data.store_plain_indices);
    dof_numbering = cell_codes.dof_numbering;

    section.next("MatrixFree::reinit: constraint table, partitioner");
    // (a serial Triangulation in a program that never started MPI, as deal.II allows: no MPI calls)
    const bool with_mpi = Utilities::MPI::job_supports_mpi();
    for (const std::string &message :
         with_mpi ? Utilities::MPI::all_gather(comm, cell_codes.error) : std::vector<std::string>{cell_codes.error})
      if (!message.empty())
        {
          free();
          AssertThrow(false, ExcNotSupported(message));
        }
    partitioner                   = std::make_shared<Utilities::MPI::Partitioner>(dofs.owned, cell_codes.ghosts, comm);
    ConstraintTable<Number> table = constraint_table(cell_codes.rows, constraints, *partitioner);
    constraint_row_start.reinit(backend_, table.row_start);
    constraint_indices.reinit(backend_, table.row_indices);
    constraint_weights.reinit(backend_, table.row_weights);
    constrained_dofs.reinit(backend_, table.constrained);
    constrained_dofs_host = std::move(table.constrained);

    section.next("MatrixFree::reinit: coloring");
    CellOrder<dim, Number> cell_order = color(dof.get_triangulation(), cell_codes, additional_data.use_coloring);
    strategy                          = cell_order.strategy;
    graph                             = std::move(cell_order.graph);
    color_start                       = std::move(cell_order.color_start);
    interior_split                    = std::move(cell_order.interior_split);
    boundary_end                      = std::move(cell_order.boundary_end);

    section.next("MatrixFree::reinit: geometry (FEValues), DoF codes");
    const Geometry<dim, Number> geo = geometry(
      mapping, dof.get_fe(), quad, cell_codes, cell_order, *partitioner, additional_data.geometry, comm, with_mpi);
    affine  = geo.affine;
    uniform = geo.uniform;

    section.next("MatrixFree::reinit: copies to the backend");
    const unsigned int n_cells = cell_codes.cells.size();
    local_to_global.reinit(backend_, geo.indices.get(), std::size_t(n_cells) * cell_codes.dofs_per_cell);
    if (geo.plain_indices)
      plain_local_to_global.reinit(backend_, geo.plain_indices.get(), std::size_t(n_cells) * cell_codes.dofs_per_cell);
    cell_has_constraint_rows.reinit(backend_, geo.has_rows);
    color_has_constraint_rows.clear();
    for (unsigned int color = 0; color < graph.size(); ++color)
      color_has_constraint_rows.push_back(std::any_of(geo.has_rows.begin() + color_start[color],
                                                      geo.has_rows.begin() + color_start[color + 1],
                                                      [](const unsigned char has) { return has != 0; }));
    q_points.reinit(backend_, reinterpret_cast<const point_type *>(geo.point_coordinates.get()), geo.n_total);
    if (affine)
      {
        JxW.reinit(backend_, geo.cell_det.get(), n_cells);
        inv_jacobian.reinit(backend_, geo.cell_inverse.get(), dim * dim * std::size_t(n_cells));
      }
    else
      {
        JxW.reinit(backend_, geo.JxW.get(), geo.n_total);
        inv_jacobian.reinit(backend_, geo.inv_jacobian.get(), dim * dim * geo.n_total);
      }
    section.next("MatrixFree::reinit: 1D tables");
    quadrature_weights.reinit(backend_, geo.weights);
    const Tables1D<Number> tables = tables_1d<dim, Number>(fe_q, quad);
    collocation                   = tables.collocation;
    shape_values.reinit(backend_, tables.values_1d);
    shape_gradients.reinit(backend_, tables.gradients_1d);
    co_shape_gradients.reinit(backend_, tables.derivatives_on_points);
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::Data
  MatrixFree<dim, Number>::get_data(const unsigned int color) const
  {
    return get_data(color, CellRange::all);
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::Data
  MatrixFree<dim, Number>::get_data(const unsigned int color, const CellRange range) const
  {
    AssertIndexRange(color, n_colors());
    const unsigned int first = range == CellRange::boundary        ? interior_split[color] :
                               range == CellRange::interior_second ? boundary_end[color] :
                                                                     color_start[color];
    const unsigned int end   = range == CellRange::interior_first ? interior_split[color] :
                               range == CellRange::boundary       ? boundary_end[color] :
                                                                    color_start[color + 1];
    Data               data;
    data.q_points                 = q_points.data();
    data.local_to_global          = local_to_global.data();
    data.inv_jacobian             = inv_jacobian.data();
    data.JxW                      = JxW.data();
    data.shape_values             = shape_values.data();
    data.shape_gradients          = shape_gradients.data();
    data.co_shape_gradients       = co_shape_gradients.data();
    data.quadrature_weights       = quadrature_weights.data();
    data.id                       = id;
    data.n_cells                  = end - first;
    data.row_start                = first;
    data.jacobian_stride          = JxW.size();
    data.n_dofs_1d                = fe_degree + 1;
    data.n_q_points_1d            = n_q_points_1d;
    data.n_components             = n_components_;
    data.cells_per_block          = 1; // set per launch (cells_per_block(layout))
    data.use_coloring             = strategy != ConflictStrategy::atomics;
    data.affine                   = affine;
    data.collocation              = collocation;
    data.constraint_rows          = {constraint_row_start.data(), constraint_indices.data(), constraint_weights.data()};
    data.cell_has_constraint_rows = cell_has_constraint_rows.data();
    data.has_constraint_rows      = color_has_constraint_rows[color];
    data.backend                  = backend_;
    data.plain_local_to_global    = plain_local_to_global.size() > 0 ? plain_local_to_global.data() : nullptr;
    return data;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::get_mg_level() const
  {
    return mg_level;
  }

  template <int dim, typename Number>
  const std::vector<unsigned int> &
  MatrixFree<dim, Number>::get_constrained_dofs() const
  {
    return constrained_dofs_host;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_colors() const
  {
    return graph.size();
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::ConflictStrategy
  MatrixFree<dim, Number>::conflict_strategy() const
  {
    return strategy;
  }

  template <int dim, typename Number>
  bool
  MatrixFree<dim, Number>::has_affine_geometry() const
  {
    return affine;
  }

  template <int dim, typename Number>
  bool
  MatrixFree<dim, Number>::has_uniform_geometry() const
  {
    return uniform;
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_functor(const unsigned int n_dofs_1d,
                                         const unsigned int n_local_dofs,
                                         const unsigned int n_q_points,
                                         const unsigned int n_components) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    const unsigned int n_tensor_dofs = Utilities::pow(fe_degree + 1, dim);
    AssertThrow(n_dofs_1d == fe_degree + 1 && n_q_points == this->n_q_points() &&
                  (n_local_dofs == n_tensor_dofs || n_local_dofs == n_components * n_tensor_dofs) &&
                  n_components == n_components_,
                ExcNotSupported(
                  "The functor declares n_dofs_1d = " + std::to_string(n_dofs_1d) +
                  ", n_local_dofs = " + std::to_string(n_local_dofs) + ", n_q_points = " + std::to_string(n_q_points) +
                  ", n_components = " + std::to_string(n_components) + ", but this MatrixFree object has FE_Q degree " +
                  std::to_string(fe_degree) + ", " + std::to_string(n_q_points_1d) +
                  " quadrature points per direction and " + std::to_string(n_components_) + " components."));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_vector(const Vector<Number> &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(v.backend() == backend_,
                ExcVectorMismatch("vector on backend " + to_string(v.backend()),
                                  "MatrixFree on backend " + to_string(backend_)));
    AssertThrow(v.get_partitioner().get() == partitioner.get() || v.get_partitioner()->is_compatible(*partitioner),
                ExcVectorMismatch("a vector with another partitioner",
                                  "the partitioner of MatrixFree::initialize_dof_vector()"));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_owned_entries(const Vector<Number> &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(v.backend() == backend_,
                ExcVectorMismatch("vector on backend " + to_string(v.backend()),
                                  "MatrixFree on backend " + to_string(backend_)));
    AssertThrow(v.get_partitioner().get() == partitioner.get() ||
                  v.locally_owned_elements() == partitioner->locally_owned_range(),
                ExcVectorMismatch("a vector with other locally owned entries",
                                  "the locally owned DoFs of MatrixFree::initialize_dof_vector()"));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::copy_constrained_values(const Vector<Number> &src, Vector<Number> &dst) const
  {
    check_owned_entries(src);
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed(
        dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), false, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::add_constrained_values(const Vector<Number> &src, Vector<Number> &dst) const
  {
    check_owned_entries(src);
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed(
        dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), true, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::set_constrained_values(const Number val, Vector<Number> &dst) const
  {
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed<Number>(dst.get_values(), constrained_dofs.data(), nullptr, val, false, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::initialize_dof_vector(Vector<Number> &vec) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vec.reinit(partitioner, backend_);
  }

  template <int dim, typename Number>
  const std::vector<std::vector<typename MatrixFree<dim, Number>::cell_iterator>> &
  MatrixFree<dim, Number>::get_colored_graph() const
  {
    return graph;
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MatrixFree<dim, Number>::get_vector_partitioner() const
  {
    return partitioner;
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::free()
  {
    graph.clear();
    color_start.assign(1, 0);
    partitioner.reset();
    q_points.clear();
    local_to_global.clear();
    plain_local_to_global.clear();
    inv_jacobian.clear();
    JxW.clear();
    shape_values.clear();
    shape_gradients.clear();
    co_shape_gradients.clear();
    quadrature_weights.clear();
    constrained_dofs.clear();
    constrained_dofs_host.clear();
    constraint_row_start.clear();
    constraint_indices.clear();
    constraint_weights.clear();
    cell_has_constraint_rows.clear();
    color_has_constraint_rows.clear();
    interior_split.clear();
    boundary_end.clear();
    overlap                   = false;
    dof_handler               = nullptr;
    mg_level                  = numbers::invalid_unsigned_int;
    affine                    = false;
    uniform                   = false;
    collocation               = false;
    requested_cells_per_block = 0;
  }

  template <int dim, typename Number>
  const DoFHandler<dim> &
  MatrixFree<dim, Number>::get_dof_handler() const
  {
    Assert(dof_handler != nullptr, ExcNotInitialized());
    return *dof_handler;
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::memory_consumption() const
  {
    std::size_t bytes = sizeof(*this) + q_points.memory_consumption() + local_to_global.memory_consumption() +
                        plain_local_to_global.memory_consumption() + inv_jacobian.memory_consumption() +
                        JxW.memory_consumption() + shape_values.memory_consumption() +
                        shape_gradients.memory_consumption() + co_shape_gradients.memory_consumption() +
                        quadrature_weights.memory_consumption() + constrained_dofs.memory_consumption() +
                        constraint_row_start.memory_consumption() + constraint_indices.memory_consumption() +
                        constraint_weights.memory_consumption() + cell_has_constraint_rows.memory_consumption();
    for (const auto &color : graph)
      bytes += color.size() * sizeof(cell_iterator);
    if (partitioner)
      bytes += partitioner->memory_consumption();
    return bytes;
  }

  template <int dim, typename Number>
  Backend
  MatrixFree<dim, Number>::backend() const
  {
    return backend_;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_cells() const
  {
    return color_start.back();
  }

  template <int dim, typename Number>
  const std::vector<unsigned int> &
  MatrixFree<dim, Number>::get_dof_numbering() const
  {
    return dof_numbering;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_components() const
  {
    return n_components_;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_q_points() const
  {
    return Utilities::pow(n_q_points_1d, dim);
  }

  template <int dim, typename Number>
  std::vector<typename MatrixFree<dim, Number>::point_type>
  MatrixFree<dim, Number>::get_quadrature_points() const
  {
    return q_points.to_host();
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_cell(const unsigned int n_fe_evaluations) const
  {
    return n_fe_evaluations * (dim + 1) * n_components_ * n_q_points() * sizeof(Number);
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_block_for(const unsigned int cells,
                                                       const unsigned int n_fe_evaluations) const
  {
    return (n_q_points_1d * (fe_degree + 1) + n_q_points_1d * n_q_points_1d) * sizeof(Number) +
           cells * shared_memory_per_cell(n_fe_evaluations);
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::cells_per_block(const internal::CellLayout<dim> layout,
                                           const unsigned int              n_fe_evaluations) const
  {
    if (backend_ != Backend::cuda)
      return 1;
    AssertThrow(shared_memory_per_block_for(1, n_fe_evaluations) <= max_shared_memory,
                ExcNotSupported(
                  "gpumf::MatrixFree: a functor with " + std::to_string(n_fe_evaluations) +
                  " FEEvaluation objects needs " + std::to_string(shared_memory_per_block_for(1, n_fe_evaluations)) +
                  " bytes of shared memory per cell; the GPU offers " + std::to_string(max_shared_memory) +
                  " per block. Use fewer FEEvaluation objects per functor (or two loops)."));
    const unsigned int most = layout.max_cells_per_block();
    unsigned int       k    = requested_cells_per_block == 0 ? most : std::min(requested_cells_per_block, most);
    while (k > 1 && shared_memory_per_block_for(k, n_fe_evaluations) > max_shared_memory)
      --k;
    return k;
  }

  template <int dim, typename Number>
  DataHost<dim, Number>
  copy_mf_data_to_host(const typename MatrixFree<dim, Number>::Data &data, const UpdateFlags &update_flags)
  {
    const unsigned int    n_q           = Utilities::pow(data.n_q_points_1d, dim);
    const unsigned int    dofs_per_cell = data.n_components * Utilities::pow(data.n_dofs_1d, dim);
    const std::size_t     n_points      = std::size_t(data.n_cells) * n_q;
    DataHost<dim, Number> host;
    host.id             = data.id;
    host.n_cells        = data.n_cells;
    host.padding_length = n_q;
    host.row_start      = data.row_start;
    host.use_coloring   = data.use_coloring;
    const auto fetch    = [&](auto &target, const auto *source, const std::size_t first, const std::size_t n) {
      target.resize(n);
      if (n > 0)
        internal::copy(Backend::host, target.data(), data.backend, source + first, n * sizeof(target[0]));
    };
    fetch(host.local_to_global,
          data.local_to_global,
          std::size_t(data.row_start) * dofs_per_cell,
          std::size_t(data.n_cells) * dofs_per_cell);
    if (update_flags & update_quadrature_points)
      fetch(host.q_points, data.q_points, std::size_t(data.row_start) * n_q, n_points);
    // geometry per point, or per cell (affine: JxW = det J * weight)
    const std::size_t per_cell = data.affine ? 1 : n_q;
    if (update_flags & update_JxW_values)
      {
        std::vector<Number> jxw, weights;
        fetch(jxw, data.JxW, std::size_t(data.row_start) * per_cell, std::size_t(data.n_cells) * per_cell);
        if (data.affine)
          fetch(weights, data.quadrature_weights, 0, n_q);
        host.JxW.resize(n_points);
        for (std::size_t k = 0; k < n_points; ++k)
          host.JxW[k] = data.affine ? jxw[k / n_q] * weights[k % n_q] : jxw[k];
      }
    if (update_flags & update_gradients)
      {
        host.inv_jacobian.resize(n_points * dim * dim);
        for (unsigned int ed = 0; ed < dim * dim; ++ed)
          {
            std::vector<Number> component;
            fetch(component,
                  data.inv_jacobian,
                  ed * std::size_t(data.jacobian_stride) + data.row_start * per_cell,
                  std::size_t(data.n_cells) * per_cell);
            for (std::size_t k = 0; k < n_points; ++k)
              host.inv_jacobian[k * dim * dim + ed] = component[data.affine ? k / n_q : k];
          }
      }
    return host;
  }

  template DataHost<2, float>
  copy_mf_data_to_host<2, float>(const MatrixFree<2, float>::Data &, const UpdateFlags &);
  template DataHost<2, double>
  copy_mf_data_to_host<2, double>(const MatrixFree<2, double>::Data &, const UpdateFlags &);
  template DataHost<3, float>
  copy_mf_data_to_host<3, float>(const MatrixFree<3, float>::Data &, const UpdateFlags &);
  template DataHost<3, double>
  copy_mf_data_to_host<3, double>(const MatrixFree<3, double>::Data &, const UpdateFlags &);

  template class MatrixFree<2, float>;
  template class MatrixFree<2, double>;
  template class MatrixFree<3, float>;
  template class MatrixFree<3, double>;
} // namespace gpumf
