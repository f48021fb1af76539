// gpumf::MatrixFree setup: cells, DoF codes, constraints and colors on the host with deal.II's own
// DoFHandler and FE_Q, then copied to the backend's memory; the geometry in geometry.cc.
#include <gpumf/matrix_free.h>

#include <deal.II/base/polynomial.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_poly.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/matrix_free/hanging_nodes_internal.h>

#include <boost/container/vector.hpp>

#include <algorithm>
#include <array>
#include <numeric>
#include <atomic>
#include <map>
#include <set>
#include <unordered_map>

#include "core/coloring.h"
#include "core/device.h"
#include "core/faults.h"
#include "core/threads.h"
#include <gpumf/setup_profile.h>

#include "linear_algebra/vector_kernels.h"
#include "faces/face_setup.h"
#include "linear_algebra/ghost_subset.h"
#include "linear_algebra/layout.h"
#include "matrix_free/geometry.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    std::atomic<unsigned int> next_id{0};


    /// The element of @p dof's active cells: DoFHandler::get_fe(), or of an hp::FECollection with
    /// several elements the one that every active cell uses (on every rank; a collective call).
    /// Throws where the cells use several: gpumf::MatrixFree has one element (no hp-adaptivity).
    template <int dim>
    const FiniteElement<dim> &
    active_element(const DoFHandler<dim> &dof)
    {
      if (!dof.has_hp_capabilities() || dof.get_fe_collection().size() == 1)
        return dof.get_fe();
      unsigned int lowest = numbers::invalid_unsigned_int, highest = 0;
      for (const auto &cell : dof.active_cell_iterators())
        if (!cell->is_artificial())
          {
            const unsigned int index = cell->active_fe_index(); // (types::fe_index from deal.II 9.6 on)
            lowest                   = std::min(lowest, index);
            highest                  = std::max(highest, index);
          }
      const MPI_Comm comm = dof.get_triangulation().get_communicator();
      lowest              = Utilities::MPI::min(lowest, comm);
      highest             = Utilities::MPI::max(highest, comm);
      if (lowest == numbers::invalid_unsigned_int) // no cells
        return dof.get_fe(0);
      AssertThrow(lowest == highest,
                  ExcNotSupported("gpumf::MatrixFree: the DoFHandler's active cells use " +
                                  dof.get_fe(lowest).get_name() + " and " + dof.get_fe(highest).get_name() +
                                  " (active_fe_index " + std::to_string(lowest) + " to " + std::to_string(highest) +
                                  " of its hp::FECollection). gpumf::MatrixFree supports one element on all "
                                  "cells: an hp::FECollection is accepted where every active cell has the same "
                                  "active_fe_index (hp-adaptivity is not supported)."));
      return dof.get_fe(lowest);
    }


    /// The FE_Q or FE_DGQ (FE_DGQHermite, FE_DGQLegendre, ...) of @p fe (active_element()), after the
    /// checks of what is supported (before any work).
    template <int dim, typename Number>
    const FE_Poly<dim> &
    supported_element(const FiniteElement<dim>                               &fe,
                      const Quadrature<1>                                    &quad,
                      const typename MatrixFree<dim, Number>::AdditionalData &additional_data)
    {
      using MF = MatrixFree<dim, Number>;
      AssertThrow(additional_data.parallelization_scheme == MF::parallel_in_elem,
                  ExcNotSupported("gpumf::MatrixFree supports AdditionalData::parallel_in_elem only."));
      // FE_Q, or FESystem of one FE_Q base element with any multiplicity
      const bool                one_base = fe.n_base_elements() == 1;
      const FiniteElement<dim> *base     = one_base ? &fe.base_element(0) : &fe;
      const FE_Poly<dim>       *fe_q =
        dynamic_cast<const FE_Q<dim> *>(base) != nullptr || dynamic_cast<const FE_DGQ<dim> *>(base) != nullptr ?
                dynamic_cast<const FE_Poly<dim> *>(base) :
                nullptr;
      AssertThrow(one_base && fe_q != nullptr,
                  ExcNotSupported("gpumf::MatrixFree supports FE_Q<dim>, FE_DGQ<dim> (and its FE_DGQHermite, "
                                  "FE_DGQLegendre, FE_DGQArbitraryNodes) and FESystem<dim> of one of them "
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
     * The 1D interpolation matrices of hanging nodes (internal/hanging_nodes.h) from the
     * element's own nodes and polynomials: W0[i][j] = L_j(x_i / 2), W1[i][j] = L_j(1/2 + x_i / 2).
     */
    template <int dim>
    std::vector<double>
    hanging_weights(const FE_Poly<dim> &fe_q)
    {
      const unsigned int               n             = fe_q.degree + 1;
      const std::vector<unsigned int> &lexicographic = fe_q.get_poly_space_numbering_inverse();
      const auto                      &points        = fe_q.get_unit_support_points();
      std::vector<double>              weights(2 * n * n);
      for (unsigned int h = 0; h < 2; ++h)
        for (unsigned int i = 0; i < n; ++i)
          {
            // along x, the other coordinates at the first node (0), where the other 1D factors are 1
            Point<dim> point;
            point[0] = 0.5 * h + 0.5 * points[lexicographic[i]][0];
            for (unsigned int j = 0; j < n; ++j)
              weights[(h * n + i) * n + j] = fe_q.shape_value(lexicographic[j], point);
          }
      return weights;
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
      /// (not zeroed when made: the threads write every entry)
      boost::container::vector<long long> codes;
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
      /// HangingNodes::interpolation (internal/hanging_nodes.h): per cell its mask (0: none),
      /// and the codes of the coarse side's DoFs where a mask is set (other cells' entries unset);
      /// empty where interpolation is not possible
      std::vector<unsigned short>         masks;
      boost::container::vector<long long> hanging_codes;
      /// W0 and W1 of the element (weights[(h * n + i) * n + j])
      std::vector<double> weights;
      /// cells on the fine side of a hanging face: interpolated, and through the rows
      unsigned int n_interpolated = 0, n_through_rows = 0;
    };

    template <int dim, typename Number>
    CellCodes<dim, Number>
    cells_and_dof_codes(const DoFHandler<dim>                                                      &dof,
                        const FiniteElement<dim>                                                   &fe,
                        const FE_Poly<dim>                                                         &fe_q,
                        const AffineConstraints<Number>                                            &constraints,
                        const std::function<bool(const typename DoFHandler<dim>::cell_iterator &)> &filter,
                        const unsigned int                                                          mg_level,
                        const RelevantDoFs                                                         &dofs,
                        const bool                                                                  store_plain,
                        const bool                                                                  interpolate_hanging)
    {
      using cell_iterator                     = typename DoFHandler<dim>::cell_iterator;
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
      boost::container::vector<long long>  codes(std::size_t(n_cells) * dofs_per_cell, boost::container::default_init);
      std::vector<types::global_dof_index> plain(store_plain ? codes.size() : 0);
      std::vector<unsigned char>           cell_touches_ghost(n_cells, 0);
      // Hanging faces: deal.II's HangingNodes gives each cell on the fine side of one its mask
      // and puts the coarse side's DoFs at the positions of the fine face's DoFs (the way its
      // CPU FEEvaluation reads them); the element must be FE_Q (or an FESystem of FE_Q), the
      // cells active. Whether the constraints there are that interpolation is checked below.
      const bool hanging_possible = !on_level && dim > 1 && dynamic_cast<const FE_Q<dim> *>(&fe_q) != nullptr;
      std::unique_ptr<const dealii::internal::MatrixFreeFunctions::HangingNodes<dim>> hanging_nodes;
      std::vector<unsigned short>                                                     masks;
      boost::container::vector<long long>                                             hanging_codes;
      // (deal.II's HangingNodes looks both up by the cell's active_fe_index: the same for each
      // element of an hp::FECollection, of which the cells use one)
      const std::size_t                            n_elements = dof.get_fe_collection().size();
      const std::vector<std::vector<unsigned int>> lexicographic_mapping(n_elements, dof_numbering);
      const std::vector<std::vector<bool>> supported_components(n_elements, std::vector<bool>(n_components, true));
      if (hanging_possible)
        {
          hanging_nodes =
            std::make_unique<dealii::internal::MatrixFreeFunctions::HangingNodes<dim>>(dof.get_triangulation());
          masks.assign(n_cells, 0);
          if (interpolate_hanging)
            hanging_codes.resize(std::size_t(n_cells) * dofs_per_cell, boost::container::default_init);
        }
      const auto code_of = [&](const types::global_dof_index g, const unsigned int c) -> long long {
        if (!constraints.is_constrained(g))
          {
            if (!owned.is_element(g))
              cell_touches_ghost[c] = 1;
            return g;
          }
        const auto *line = constraints.get_constraint_entries(g);
        return line == nullptr || line->empty() ? -1 : -2 - static_cast<long long>(g);
      };
      // Threads: each DoF's index, -1 for Dirichlet, or -2 - g for DoF g with a constraint line
      // with entries (numbered as rows of the table below, serially, in order of first use).
      internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
        std::vector<types::global_dof_index> dof_indices(fe.n_dofs_per_cell()), replaced(dofs_per_cell);
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
                code = code_of(g, c);
              }
            if (!hanging_possible)
              continue;
            const auto kind = hanging_nodes->compute_refinement_configuration(cells[c]);
            if (!interpolate_hanging) // HangingNodes::constraint_rows: the cell is only counted
              {
                masks[c] = static_cast<unsigned short>(kind);
                continue;
              }
            // (a cell without a mask keeps its own codes: its entries here are never read)
            if (kind == dealii::internal::MatrixFreeFunctions::ConstraintKinds::unconstrained)
              continue;
            long long *const hanging = hanging_codes.data() + std::size_t(c) * dofs_per_cell;
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              replaced[i] = dof_indices[dof_numbering[i]];
            hanging_nodes->update_dof_indices(
              cells[c], {}, lexicographic_mapping, supported_components, kind, replaced);
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              hanging[i] = code_of(replaced[i], c);
            masks[c] = static_cast<unsigned short>(kind);
          }
      });
      // The constraint table: rows in order of first use, so the numbering does not depend on threads.
      std::unordered_map<types::global_dof_index, unsigned int>            row_of;
      std::vector<std::vector<std::pair<types::global_dof_index, Number>>> rows;
      std::vector<unsigned char>                                           row_touches_ghost;
      // masters owned by other ranks, added to the ghosts at once: IndexSet::add_index() in the
      // middle of a set inserts into its vector of ranges, once per master (quadratic on a rank
      // with many hanging nodes at its boundary)
      std::vector<types::global_dof_index> ghost_masters;
      for (std::size_t k = 0; k < codes.size() + hanging_codes.size(); ++k)
        {
          if (k >= codes.size() && masks[(k - codes.size()) / dofs_per_cell] == 0)
            continue; // (no coarse DoFs: the cell reads its own)
          long long &code = k < codes.size() ? codes[k] : hanging_codes[k - codes.size()];
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
                      ghost_masters.push_back(master);
                      row_touches_ghost.back() = 1;
                    }
                }
              rows.emplace_back(line->begin(), line->end());
            }
          code = -2 - static_cast<long long>(row->second);
          if (row_touches_ghost[row->second])
            cell_touches_ghost[(k < codes.size() ? k : k - codes.size()) / dofs_per_cell] = 1;
        }
      // The interpolation where a cell's constraint lines are it: the values the cell reads from a
      // pseudo-random vector through the lines and by interpolating the coarse DoFs must agree
      // (they do for deal.II's hanging-node constraints; constraints made otherwise, or a
      // Dirichlet or periodic line on a hanging DoF that the interpolation does not give, keep
      // the lines). A cell whose coarse DoFs would repeat one keeps them too.
      std::vector<double> weights;
      unsigned int        n_interpolated = 0, n_through_rows = 0;
      if (hanging_possible && !interpolate_hanging)
        {
          // HangingNodes::constraint_rows: counted only
          n_through_rows = std::count_if(masks.begin(), masks.end(), [](const unsigned short m) { return m != 0; });
          masks.clear();
          hanging_codes.clear();
        }
      else if (hanging_possible)
        {
          weights      = hanging_weights(fe_q);
          const auto x = [](const types::global_dof_index g) {
            std::uint64_t h = (g + 1) * 0x9E3779B97F4A7C15ull;
            h ^= h >> 31;
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 29;
            return double(h >> 11) / double(1ull << 53) * 2. - 1.;
          };
          const auto value = [&](const long long code) {
            if (code >= 0)
              return x(code);
            double sum = 0;
            if (code <= -2)
              for (const auto &[master, weight] : rows[-2 - code])
                sum += double(weight) * x(master);
            return sum;
          };
          const double              tolerance = 1e3 * std::numeric_limits<Number>::epsilon();
          const unsigned int        n_tensor  = dofs_per_cell / n_components;
          std::atomic<unsigned int> interpolated_cells{0}, kept_cells{0};
          internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
            std::vector<double>    through_rows(dofs_per_cell), interpolated(dofs_per_cell);
            std::vector<long long> sorted(dofs_per_cell);
            for (unsigned int c = begin; c < end; ++c)
              {
                if (masks[c] == 0)
                  continue;
                const long long *own     = codes.data() + std::size_t(c) * dofs_per_cell;
                long long *const hanging = hanging_codes.data() + std::size_t(c) * dofs_per_cell;
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  {
                    through_rows[i] = value(own[i]);
                    interpolated[i] = value(hanging[i]);
                  }
                for (unsigned int k = 0; k < n_components; ++k)
                  internal::resolve_hanging_nodes_reference<dim, false>(
                    masks[c], n, n, weights.data(), interpolated.data() + k * n_tensor);
                bool same = true;
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  same = same && std::abs(through_rows[i] - interpolated[i]) <= tolerance;
                std::copy_n(hanging, dofs_per_cell, sorted.begin());
                std::sort(sorted.begin(), sorted.end());
                for (unsigned int i = 1; i < dofs_per_cell; ++i)
                  same = same && !(sorted[i] >= 0 && sorted[i] == sorted[i - 1]);
                if (same)
                  ++interpolated_cells;
                else
                  {
                    ++kept_cells;
                    masks[c] = 0;
                  }
              }
          });
          n_interpolated = interpolated_cells;
          n_through_rows = kept_cells;
          if (n_interpolated == 0)
            {
              masks.clear();
              hanging_codes.clear();
            }
          else
            // a coarse DoF owned by another rank: a ghost (the lines make it one already)
            for (unsigned int c = 0; c < n_cells; ++c)
              if (masks[c] != 0)
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  {
                    const long long code = hanging_codes[std::size_t(c) * dofs_per_cell + i];
                    if (code >= 0 && !owned.is_element(code))
                      ghost_masters.push_back(code);
                  }
        }
      std::sort(ghost_masters.begin(), ghost_masters.end());
      ghost_masters.erase(std::unique(ghost_masters.begin(), ghost_masters.end()), ghost_masters.end());
      IndexSet ghosts = dofs.relevant;
      ghosts.add_indices(ghost_masters.begin(), ghost_masters.end());
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
              std::move(error),
              std::move(masks),
              std::move(hanging_codes),
              std::move(weights),
              n_interpolated,
              n_through_rows};
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

    /**
     * The colors and order of the cells of the DoFHandlers' codes @p all (the same cells in the
     * same order; one DoFHandler, or several sharing the cells): a cell touches the entries of
     * every DoFHandler's vector, told apart by @p offsets (DoFHandler k's index g is g +
     * offsets[k]); a cell touches a ghost or has constraint rows where it does so in any.
     */
    template <int dim, typename Number>
    CellOrder<dim, Number>
    color(const Triangulation<dim>                          &tria,
          const std::vector<const CellCodes<dim, Number> *> &all,
          const std::vector<types::global_dof_index>        &offsets,
          const bool                                         use_coloring,
          const bool                                         discontinuous)
    {
      using ConflictStrategy       = typename MatrixFree<dim, Number>::ConflictStrategy;
      const auto        &cells     = all[0]->cells;
      const unsigned int n_cells   = cells.size();
      bool               rows_none = true;
      for (const auto *cell_codes : all)
        rows_none = rows_none && cell_codes->rows.empty();
      CellOrder<dim, Number> result;
      // Colors of cell positions: cells of a color touch disjoint vector entries, the vector
      // indices a cell reads and writes being its DoFs and their constraints' entries. The
      // parity coloring covers neighbors through shared DoFs only, not through constraints.
      // (a cell with a hanging-node mask may read and write either way: the coarse DoFs of
      // its interpolation are the entries of its lines)
      const auto touched = [&](const unsigned int c) {
        std::vector<types::global_dof_index> indices;
        for (std::size_t k = 0; k < all.size(); ++k)
          {
            const CellCodes<dim, Number> &cell_codes    = *all[k];
            const unsigned int            dofs_per_cell = cell_codes.dofs_per_cell;
            const auto                   &codes         = cell_codes.codes;
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              for (unsigned int way = 0; way < (cell_codes.masks.empty() || cell_codes.masks[c] == 0 ? 1 : 2); ++way)
                {
                  const long long code =
                    (way == 0 ? codes : cell_codes.hanging_codes)[std::size_t(c) * dofs_per_cell + i];
                  if (code >= 0)
                    indices.push_back(code + offsets[k]);
                  else if (code <= -2)
                    for (const auto &entry : cell_codes.rows[-2 - code])
                      indices.push_back(entry.first + offsets[k]);
                }
          }
        return indices;
      };
      using Rule = internal::CellColoringRule;
      // the cells of a discontinuous element share no DoF: without constraint rows nothing conflicts
      const bool                              no_conflicts = discontinuous && rows_none;
      internal::CellColoring                  coloring     = internal::color_cells<dim>(tria,
                                                                   cells,
                                                                   touched,
                                                                   !use_coloring || no_conflicts ? Rule::one_color :
                                                                                        rows_none ? Rule::parity :
                                                                                                    Rule::graph);
      std::vector<std::vector<unsigned int>> &colors       = coloring.colors;
      result.strategy                                      = no_conflicts                  ? ConflictStrategy::none :
                                                             coloring.rule == Rule::parity ? ConflictStrategy::cartesian_coloring :
                                                             coloring.rule == Rule::graph ? ConflictStrategy::graph_coloring :
                                                                                            ConflictStrategy::atomics;
      // Within a color: half of the cells that touch no ghost entry, the cells that do, the
      // other half (see CellRange and AdditionalData::overlap_communication_computation); within
      // each of the three, the cells with constraint rows last, so that the blocks of a launch
      // (several cells each, waiting for each other at barriers) hold cells of one kind.
      std::vector<unsigned char>  cell_touches_ghost(n_cells, 0);
      std::vector<unsigned char> &has_rows = result.has_rows;
      has_rows.assign(n_cells, 0);
      for (const auto *cell_codes : all)
        {
          for (unsigned int c = 0; c < n_cells; ++c)
            cell_touches_ghost[c] |= cell_codes->cell_touches_ghost[c];
          for (std::size_t k = 0; k < cell_codes->codes.size(); ++k)
            if (cell_codes->codes[k] <= -2)
              has_rows[k / cell_codes->dofs_per_cell] = 1;
        }
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

    /// The cells' vector indices and constraint flags in color order.
    struct CellIndices
    {
      /// per cell, dofs_per_cell each: the vector indices (MatrixFree::local_to_global)
      std::unique_ptr<unsigned int[]> indices;
      /// per cell, dofs_per_cell each: the plain vector indices (MatrixFree::plain_local_to_global), or null
      std::unique_ptr<unsigned int[]> plain_indices;
      /// per position: 1 when the cell there has a constraint row (the flag the ordering used)
      std::vector<unsigned char> has_rows;
      /// HangingNodes::interpolation, else empty: per position the mask (with
      /// internal::hanging::has_rows), and the codes of MatrixFree::hanging_local_to_global
      std::vector<unsigned short>     masks;
      std::unique_ptr<unsigned int[]> hanging_indices;
    };

    /// The DoF codes of the cells as vector indices (local to @p partitioner), in color order, in threads.
    template <int dim, typename Number>
    CellIndices
    cell_indices(const CellCodes<dim, Number>      &cell_codes,
                 const CellOrder<dim, Number>      &cell_order,
                 const Utilities::MPI::Partitioner &partitioner)
    {
      const auto                      &codes         = cell_codes.codes;
      const unsigned int               dofs_per_cell = cell_codes.dofs_per_cell;
      const std::vector<unsigned int> &order         = cell_order.order;
      const unsigned int               n_cells       = cell_codes.cells.size();
      CellIndices                      result;
      // written by the threads below, so not initialized here (first touch in the threads)
      result.indices.reset(new unsigned int[std::size_t(n_cells) * dofs_per_cell]);
      if (!cell_codes.plain.empty())
        result.plain_indices.reset(new unsigned int[std::size_t(n_cells) * dofs_per_cell]);
      // this DoFHandler's rows (the order's flags are those of all its DoFHandlers)
      result.has_rows.assign(n_cells, 0);
      for (unsigned int c = 0; c < n_cells; ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          if (codes[std::size_t(order[c]) * dofs_per_cell + i] <= -2)
            result.has_rows[c] = 1;
      const bool with_masks = !cell_codes.masks.empty();
      if (with_masks)
        {
          result.masks.resize(n_cells);
          result.hanging_indices.reset(new unsigned int[std::size_t(n_cells) * dofs_per_cell]);
        }
      unsigned int *const host_indices = result.indices.get();
      unsigned int *const host_plain   = result.plain_indices.get();
      const auto          to_index     = [&](const long long code) {
        return code >= 0  ? partitioner.global_to_local(code) :
                            code == -1 ? internal::no_dof :
                                         internal::constrained_flag | static_cast<unsigned int>(-2 - code);
      };
      internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
        for (unsigned int c = begin; c < end; ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              const std::size_t k    = std::size_t(c) * dofs_per_cell + i;
              const long long   code = codes[std::size_t(order[c]) * dofs_per_cell + i];
              unsigned int     &out  = host_indices[k];
              out                    = to_index(code);
              // an unconstrained DoF's plain index is its code; only constrained ones are looked up
              if (host_plain)
                host_plain[k] =
                  code >= 0 ? out :
                              partitioner.global_to_local(cell_codes.plain[std::size_t(order[c]) * dofs_per_cell + i]);
            }
        // the codes with the coarse DoFs: a cell without a mask has its own
        if (with_masks)
          for (unsigned int c = begin; c < end; ++c)
            {
              unsigned short    mask  = cell_codes.masks[order[c]];
              const std::size_t first = std::size_t(c) * dofs_per_cell;
              if (mask == 0)
                std::copy_n(host_indices + first, dofs_per_cell, result.hanging_indices.get() + first);
              else
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  {
                    const long long code = cell_codes.hanging_codes[std::size_t(order[c]) * dofs_per_cell + i];
                    result.hanging_indices[first + i] = to_index(code);
                    if (code <= -2)
                      mask |= internal::hanging::has_rows;
                  }
              result.masks[c] = mask;
            }
      });
      return result;
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
     * 1D tables from the element's own 1D polynomials (the basis function with lexicographic
     * index i is phi_i(x) phi_j(y) phi_k(z)).
     */
    template <int dim, typename Number>
    Tables1D<Number>
    tables_1d(const FE_Poly<dim> &fe_q, const Quadrature<1> &quad)
    {
      const unsigned int  n   = fe_q.degree + 1;
      const unsigned int  n_q = quad.size();
      std::vector<double> x(n_q), values, gradients;
      for (unsigned int q = 0; q < n_q; ++q)
        x[q] = quad.point(q)[0];
      internal::basis_1d(fe_q, x, values, gradients);
      std::vector<Number> values_1d(values.begin(), values.end()), gradients_1d(gradients.begin(), gradients.end()),
        derivatives_on_points(n_q * n_q);
      const std::vector<Polynomials::Polynomial<double>> lagrange_on_points =
        Polynomials::generate_complete_Lagrange_basis(quad.get_points());
      for (unsigned int q = 0; q < n_q; ++q)
        for (unsigned int r = 0; r < n_q; ++r)
          {
            std::vector<double> value_and_derivative(2);
            lagrange_on_points[r].value(quad.point(q)[0], value_and_derivative);
            derivatives_on_points[q * n_q + r] = value_and_derivative[1];
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
      mapping, {&dof_handler}, {&constraints}, {quad}, [](const cell_iterator &) { return true; }, additional_data);
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
  MatrixFree<dim, Number>::reinit(const Mapping<dim>                                   &mapping,
                                  const std::vector<const DoFHandler<dim> *>           &dof_handlers,
                                  const std::vector<const AffineConstraints<Number> *> &constraints,
                                  const Quadrature<1>                                  &quad,
                                  const AdditionalData                                 &additional_data)
  {
    internal_reinit(
      mapping, dof_handlers, constraints, {quad}, [](const cell_iterator &) { return true; }, additional_data);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::internal_reinit(const Mapping<dim>                                   &mapping,
                                           const std::vector<const DoFHandler<dim> *>           &dofs,
                                           const std::vector<const AffineConstraints<Number> *> &constraints,
                                           const std::vector<Quadrature<1>>                     &quads,
                                           const std::function<bool(const cell_iterator &)>     &filter,
                                           const AdditionalData                                 &additional_data)
  {
    const unsigned int n_parts = dofs.size();
    const unsigned int n_quads = quads.size();
    AssertThrow(n_quads >= 1 && n_quads <= max_quadratures,
                ExcNotSupported("gpumf::MatrixFree::reinit: " + std::to_string(n_quads) +
                                " quadratures given; it takes 1 to " + std::to_string(max_quadratures) + "."));
    const Quadrature<1> &quad = quads[0];
    AssertThrow(n_parts >= 1 && n_parts <= max_dof_handlers && constraints.size() == n_parts,
                ExcNotSupported("gpumf::MatrixFree::reinit: " + std::to_string(n_parts) + " DoFHandlers and " +
                                std::to_string(constraints.size()) + " AffineConstraints given; it takes 1 to " +
                                std::to_string(max_dof_handlers) + " DoFHandlers, with one AffineConstraints each."));
    for (unsigned int k = 0; k < n_parts; ++k)
      AssertThrow(dofs[k] != nullptr && constraints[k] != nullptr &&
                    &dofs[k]->get_triangulation() == &dofs[0]->get_triangulation(),
                  ExcNotSupported("gpumf::MatrixFree::reinit: DoFHandler " + std::to_string(k) +
                                  (dofs[k] == nullptr || constraints[k] == nullptr ?
                                     " or its AffineConstraints is a null pointer." :
                                     " lives on another Triangulation than DoFHandler 0; the DoFHandlers of "
                                     "one MatrixFree share its mesh.")));
    const DoFHandler<dim> &dof = *dofs[0];
    // an exception from here on may leave other ranks waiting in the set-up's messages
    internal::InterruptionGuard             guard("gpumf::MatrixFree::reinit()",
                                      Utilities::MPI::n_mpi_processes(dof.get_triangulation().get_communicator()));
    std::vector<const FiniteElement<dim> *> fes;
    std::vector<const FE_Poly<dim> *>       fe_qs;
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        fes.push_back(&active_element(*dofs[k]));  // (collective)
        for (unsigned int q = 1; q < n_quads; ++q) // (the checks of every quadrature)
          supported_element<dim, Number>(*fes[k], quads[q], additional_data);
        fe_qs.push_back(&supported_element<dim, Number>(*fes[k], quad, additional_data));
      }
    const FiniteElement<dim> &fe     = *fes[0];
    const FE_Poly<dim>       &fe_q   = *fe_qs[0];
    const unsigned int        degree = fe_q.degree;
    const unsigned int        n_q    = quad.size();

    free();
    const bool with_faces = additional_data.mapping_update_flags_inner_faces != update_default ||
                            additional_data.mapping_update_flags_boundary_faces != update_default;
    AssertThrow(!with_faces || n_parts == 1,
                ExcNotSupported("gpumf::MatrixFree: faces (AdditionalData::mapping_update_flags_inner_faces or "
                                "_boundary_faces) with " +
                                std::to_string(n_parts) +
                                " DoFHandlers; loop() takes one DoFHandler per MatrixFree object."));
    // every DoFHandler's part of the object: this object for DoFHandler 0
    for (unsigned int k = 1; k < n_parts; ++k)
      other_dof_parts.push_back(std::make_unique<MatrixFree>());
    // every further quadrature's parts (their tables and geometry follow the object's below)
    for (unsigned int q = 1; q < n_quads; ++q)
      for (unsigned int k = 0; k < n_parts; ++k)
        {
          other_quadrature_parts.push_back(std::make_unique<MatrixFree>());
          MatrixFree &p   = *other_quadrature_parts.back();
          p.backend_      = additional_data.backend;
          p.fe_degree     = fe_qs[k]->degree;
          p.n_q_points_1d = quads[q].size();
          p.n_components_ = fes[k]->n_components();
        }
    const auto part = [&](const unsigned int k) -> MatrixFree & { return k == 0 ? *this : *other_dof_parts[k - 1]; };
    bool       all_discontinuous = true;
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        MatrixFree &p               = part(k);
        p.dof_handler               = dofs[k];
        p.active_fe                 = fes[k];
        p.backend_                  = additional_data.backend;
        p.fe_degree                 = fe_qs[k]->degree;
        p.n_q_points_1d             = n_q;
        p.n_components_             = fes[k]->n_components();
        p.discontinuous             = dynamic_cast<const FE_DGQ<dim> *>(fe_qs[k]) != nullptr;
        p.mg_level                  = additional_data.mg_level;
        p.requested_cells_per_block = additional_data.cells_per_block;
        p.overlap                   = additional_data.overlap_communication_computation;
        all_discontinuous           = all_discontinuous && p.discontinuous;
      }
    if (with_faces)
      {
        AssertThrow(discontinuous || dynamic_cast<const FE_Q<dim> *>(&fe_q) != nullptr,
                    ExcNotSupported("gpumf::MatrixFree: faces (AdditionalData::mapping_update_flags_inner_faces or "
                                    "_boundary_faces) need a discontinuous element (FE_DGQ, FE_DGQHermite, "
                                    "FE_DGQLegendre, FE_DGQArbitraryNodes), FE_Q, or an FESystem of one; got " +
                                    fe.get_name() + "."));
        AssertThrow(discontinuous || additional_data.mg_level == numbers::invalid_unsigned_int,
                    ExcNotSupported("gpumf::MatrixFree: faces of the continuous element " + fe.get_name() +
                                    " on multigrid level " + std::to_string(additional_data.mg_level) +
                                    "; faces of continuous elements are supported on the active cells."));
      }
    if (backend_ == Backend::cuda)
      {
        AssertThrow(cuda_available(), ExcNoGPU("no CUDA device is usable"));
        const std::size_t max_shared = internal::max_shared_memory_per_block();
        for (unsigned int k = 0; k < n_parts; ++k)
          part(k).max_shared_memory = max_shared;
        for (auto &p : other_quadrature_parts)
          p->max_shared_memory = max_shared;
        for (unsigned int q = 0; q < n_quads; ++q)
          AssertThrow(shared_memory_per_block_for(1, 1, q) <= max_shared,
                      ExcNotSupported("gpumf::MatrixFree: a cell of FE_Q degree " + std::to_string(degree) + " with " +
                                      std::to_string(max_components()) + " components and " +
                                      std::to_string(quads[q].size()) + " points per direction needs " +
                                      std::to_string(shared_memory_per_block_for(1, 1, q)) +
                                      " bytes of shared memory; the GPU offers " + std::to_string(max_shared) +
                                      " per block. Use fewer quadrature points, components or a lower degree."));
      }

    const MPI_Comm comm = dof.get_triangulation().get_communicator();
    // the active cells, or those of one multigrid level with its level DoFs
    internal::SetupSection    section("MatrixFree::reinit: relevant DoFs (deal.II)", backend_);
    std::vector<RelevantDoFs> relevant;
    relevant.reserve(n_parts);
    for (unsigned int k = 0; k < n_parts; ++k)
      relevant.push_back(relevant_dofs(*dofs[k], *constraints[k], mg_level));

    section.next("MatrixFree::reinit: cells, DoF codes");
    std::vector<CellCodes<dim, Number>> all_codes;
    all_codes.reserve(n_parts);
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        all_codes.push_back(cells_and_dof_codes(*dofs[k],
                                                *fes[k],
                                                *fe_qs[k],
                                                *constraints[k],
                                                filter,
                                                mg_level,
                                                relevant[k],
                                                additional_data.store_plain_indices,
                                                additional_data.hanging_nodes == HangingNodes::interpolation));
        part(k).dof_numbering = all_codes[k].dof_numbering;
      }
    CellCodes<dim, Number> &cell_codes = all_codes[0];
    // (the same mesh and filter give the same cells in the same order; checked all the same)
    std::string error;
    for (unsigned int k = 0; k < n_parts && error.empty(); ++k)
      {
        error = all_codes[k].error;
        if (error.empty() && all_codes[k].cells.size() != cell_codes.cells.size())
          error = "gpumf::MatrixFree::reinit: DoFHandler " + std::to_string(k) + " has other cells than DoFHandler 0.";
        for (std::size_t c = 0; c < cell_codes.cells.size() && error.empty(); ++c)
          if (all_codes[k].cells[c]->level() != cell_codes.cells[c]->level() ||
              all_codes[k].cells[c]->index() != cell_codes.cells[c]->index())
            error =
              "gpumf::MatrixFree::reinit: DoFHandler " + std::to_string(k) + " has other cells than DoFHandler 0.";
      }

    // the first collective call of reinit(): its time is the wait for the slowest rank
    section.next("MatrixFree::reinit: errors of all ranks (waits for the slowest)");
    // (a serial Triangulation in a program that never started MPI, as deal.II allows: no MPI calls)
    const bool with_mpi = Utilities::MPI::job_supports_mpi();
    for (const std::string &message :
         with_mpi ? Utilities::MPI::all_gather(comm, error) : std::vector<std::string>{error})
      if (!message.empty())
        {
          free();
          AssertThrow(false, ExcNotSupported(message));
        }
    // a continuous element's faces: the constraint lines of the ghost cells across them, from
    // their owners; the entries of those lines become ghosts of the vectors
    internal::GhostCellLines ghost_lines;
    if (with_faces && !discontinuous)
      {
        section.next("MatrixFree::reinit: faces, constraint lines of the ghost cells");
        ghost_lines = internal::ghost_cell_lines<dim, Number>(cell_codes.cells, dof, *constraints[0], comm, with_mpi);
        cell_codes.ghosts.add_indices(ghost_lines.masters.begin(), ghost_lines.masters.end());
      }
    section.next("MatrixFree::reinit: constraint table, partitioner");
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        MatrixFree &p = part(k);
        p.partitioner = std::make_shared<Utilities::MPI::Partitioner>(relevant[k].owned, all_codes[k].ghosts, comm);
        ConstraintTable<Number> table = constraint_table(all_codes[k].rows, *constraints[k], *p.partitioner);
        p.constraint_row_start.reinit(backend_, table.row_start);
        p.constraint_indices.reinit(backend_, table.row_indices);
        p.constraint_weights.reinit(backend_, table.row_weights);
        p.constrained_dofs.reinit(backend_, table.constrained);
        p.constrained_dofs_host = std::move(table.constrained);
      }

    section.next("MatrixFree::reinit: coloring");
    std::vector<const CellCodes<dim, Number> *> code_list;
    std::vector<types::global_dof_index>        offsets;
    types::global_dof_index                     offset = 0;
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        code_list.push_back(&all_codes[k]);
        offsets.push_back(offset);
        offset += part(k).partitioner->size();
      }
    CellOrder<dim, Number> cell_order =
      color(dof.get_triangulation(), code_list, offsets, additional_data.use_coloring, all_discontinuous);

    // DoFHandler k's DoF codes as vector indices of its layout, in the cells' order
    const auto set_dof_indices =
      [](MatrixFree &p, const CellCodes<dim, Number> &cell_codes, const CellOrder<dim, Number> &cell_order) {
        const unsigned int n_cells = cell_codes.cells.size();
        const CellIndices  indices = cell_indices(cell_codes, cell_order, *p.partitioner);
        p.local_to_global.reinit(p.backend_, indices.indices.get(), std::size_t(n_cells) * cell_codes.dofs_per_cell);
        if (indices.plain_indices)
          p.plain_local_to_global.reinit(p.backend_,
                                         indices.plain_indices.get(),
                                         std::size_t(n_cells) * cell_codes.dofs_per_cell);
        p.cell_has_constraint_rows.reinit(p.backend_, indices.has_rows);
        // a launch's flag: some cell has a row among the codes it reads (either way with a mask)
        p.color_has_constraint_rows.clear();
        for (unsigned int color = 0; color < p.graph.size(); ++color)
          {
            bool has = false;
            for (unsigned int c = p.color_start[color]; c < p.color_start[color + 1]; ++c)
              has = has || indices.has_rows[c] != 0 ||
                    (!indices.masks.empty() && (indices.masks[c] & internal::hanging::has_rows) != 0);
            p.color_has_constraint_rows.push_back(has);
          }
        p.hanging_node_cells = {cell_codes.n_interpolated, cell_codes.n_through_rows};
        if (!indices.masks.empty())
          {
            p.hanging_masks.reinit(p.backend_, indices.masks);
            p.hanging_local_to_global.reinit(p.backend_,
                                             indices.hanging_indices.get(),
                                             std::size_t(n_cells) * cell_codes.dofs_per_cell);
            p.hanging_weights.reinit(p.backend_,
                                     std::vector<Number>(cell_codes.weights.begin(), cell_codes.weights.end()));
          }
        p.cells_in_order.resize(n_cells);
        for (unsigned int c = 0; c < n_cells; ++c)
          p.cells_in_order[c] = cell_codes.cells[cell_order.order[c]];
      };

    // the 1D tables of DoFHandler k's element on the quadrature
    const auto set_tables = [](MatrixFree &p, const FE_Poly<dim> &fe_q, const Quadrature<1> &quad) {
      {
        const Quadrature<dim> quadrature(quad);
        std::vector<Number>   weights(quadrature.size());
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          weights[q] = quadrature.weight(q);
        p.quadrature_weights.reinit(p.backend_, weights);
      }
      const Tables1D<Number> tables = tables_1d<dim, Number>(fe_q, quad);
      p.collocation                 = tables.collocation;
      p.shape_values.reinit(p.backend_, tables.values_1d);
      p.shape_gradients.reinit(p.backend_, tables.gradients_1d);
      p.co_shape_gradients.reinit(p.backend_, tables.derivatives_on_points);
      if (quad.size() == fe_q.degree + 1)
        {
          // CellwiseInverseMassMatrix: the inverse of the square 1D interpolation matrix
          const unsigned int n = fe_q.degree + 1;
          FullMatrix<double> values(n, n), inverse(n, n);
          for (unsigned int q = 0; q < n; ++q)
            for (unsigned int i = 0; i < n; ++i)
              values(q, i) = tables.values_1d[q * n + i];
          inverse.invert(values);
          std::vector<Number> entries(n * n);
          for (unsigned int i = 0; i < n; ++i)
            for (unsigned int l = 0; l < n; ++l)
              entries[i * n + l] = inverse(i, l);
          p.inverse_shape_values.reinit(p.backend_, entries);
        }
    };

    section.next("MatrixFree::reinit: DoF indices");
    const unsigned int n_cells = cell_codes.cells.size();
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        MatrixFree &p    = part(k);
        p.strategy       = cell_order.strategy;
        p.graph          = cell_order.graph;
        p.color_start    = cell_order.color_start;
        p.interior_split = cell_order.interior_split;
        p.boundary_end   = cell_order.boundary_end;
        set_dof_indices(p, all_codes[k], cell_order);
        // (the same answer on every rank: in-place loops are refused or run on all)
        const bool local_rows =
          std::find(p.color_has_constraint_rows.begin(), p.color_has_constraint_rows.end(), true) !=
          p.color_has_constraint_rows.end();
        p.constraint_rows_on_any_rank = with_mpi ? Utilities::MPI::max(int(local_rows), comm) != 0 : local_rows;
      }

    section.next("MatrixFree::reinit: geometry");
    {
      std::vector<typename Triangulation<dim>::cell_iterator> cells(n_cells);
      for (unsigned int c = 0; c < n_cells; ++c)
        cells[c] = cell_codes.cells[cell_order.order[c]];
      internal::GeometryArrays<dim, Number> arrays{q_points, JxW, inv_jacobian};
      internal::setup_geometry<dim, Number>(
        mapping, quad, cells, additional_data.geometry, backend_, comm, with_mpi, arrays);
      affine  = arrays.affine;
      uniform = arrays.uniform;
    }
    section.next("MatrixFree::reinit: 1D tables");
    // the cells of all ranks (check_loop_vector(): vectors of data per cell)
    const types::global_dof_index n_all_cells =
      with_mpi ? Utilities::MPI::sum<types::global_dof_index>(n_cells, comm) : n_cells;
    for (unsigned int k = 0; k < n_parts; ++k)
      {
        set_tables(part(k), *fe_qs[k], quad);
        part(k).n_global_cells = n_all_cells;
        part(k).affine         = affine;
        part(k).uniform        = uniform;
      }
    // DoFHandler k's Data with its DoF fields (FEEvaluation(data, k)); a launch's flag of
    // constraint rows becomes the flag of any color
    // (no color needed: a rank may have no cells)
    const auto dof_fields = [&](const unsigned int k) {
      Data data = part(k).data_without_cells();
      for (const bool has : part(k).color_has_constraint_rows)
        data.has_constraint_rows = data.has_constraint_rows || has;
      data.dof_index = k;
      return data;
    };
    if (n_parts > 1)
      {
        std::vector<Data> parts_data;
        for (unsigned int k = 0; k < n_parts; ++k)
          parts_data.push_back(dof_fields(k));
        dof_handler_data.reinit(backend_, parts_data);
      }
    for (unsigned int q = 1; q < n_quads; ++q)
      {
        section.next("MatrixFree::reinit: geometry and 1D tables of quadrature " + std::to_string(q));
        MatrixFree &geometry_part = *other_quadrature_parts[(q - 1) * n_parts];
        {
          std::vector<typename Triangulation<dim>::cell_iterator> cells(n_cells);
          for (unsigned int c = 0; c < n_cells; ++c)
            cells[c] = cell_codes.cells[cell_order.order[c]];
          internal::GeometryArrays<dim, Number> arrays{geometry_part.q_points,
                                                       geometry_part.JxW,
                                                       geometry_part.inv_jacobian};
          internal::setup_geometry<dim, Number>(
            mapping, quads[q], cells, additional_data.geometry, backend_, comm, with_mpi, arrays);
          geometry_part.affine  = arrays.affine;
          geometry_part.uniform = arrays.uniform;
        }
        for (unsigned int k = 0; k < n_parts; ++k)
          set_tables(*other_quadrature_parts[(q - 1) * n_parts + k], *fe_qs[k], quads[q]);
      }
    if (n_quads > 1)
      {
        // FEEvaluation(..., k, q) takes DoFHandler k's DoF fields and quadrature q's fields from
        // entry q * n_parts + k
        quadrature_data_host.clear();
        for (unsigned int q = 0; q < n_quads; ++q)
          for (unsigned int k = 0; k < n_parts; ++k)
            {
              Data data = dof_fields(k);
              // the geometry of every entry (DoFHandler k's part holds none of its own)
              const MatrixFree &geometry = q == 0 ? *this : *other_quadrature_parts[(q - 1) * n_parts];
              data.q_points              = geometry.q_points.data();
              data.inv_jacobian          = geometry.inv_jacobian.data();
              data.JxW                   = geometry.JxW.data();
              data.jacobian_stride       = geometry.JxW.size();
              data.affine                = geometry.affine;
              if (q > 0)
                {
                  const MatrixFree &tables = *other_quadrature_parts[(q - 1) * n_parts + k];
                  data.shape_values        = tables.shape_values.data();
                  data.shape_gradients     = tables.shape_gradients.data();
                  data.co_shape_gradients  = tables.co_shape_gradients.data();
                  data.inverse_shape_values =
                    tables.inverse_shape_values.size() > 0 ? tables.inverse_shape_values.data() : nullptr;
                  data.quadrature_weights = tables.quadrature_weights.data();
                  data.n_q_points_1d      = tables.n_q_points_1d;
                  data.n_q_points         = Utilities::pow(tables.n_q_points_1d, dim);
                  data.collocation        = tables.collocation;
                }
              data.quad_index    = q;
              data.n_quadratures = n_quads;
              quadrature_data_host.push_back(data);
            }
        quadrature_data.reinit(backend_, quadrature_data_host);
        for (Data &data : quadrature_data_host)
          data.quadrature_data = quadrature_data.data();
      }

    if (with_faces)
      {
        section.next("MatrixFree::reinit: faces");
        // boundary conditions of DG methods enter through the faces; the face evaluators read
        // the cells' DoFs as they are (a continuous element's through the constraints)
        const bool without_lines = !discontinuous || (constrained_dofs_host.empty() && cell_codes.rows.empty());
        AssertThrow(with_mpi ? Utilities::MPI::min(int(without_lines), comm) == 1 : without_lines,
                    ExcNotSupported("gpumf::MatrixFree with faces: the AffineConstraints constrain DoFs of the cells; "
                                    "the face loops read DoF values as they are. Pass an empty AffineConstraints "
                                    "(discontinuous Galerkin methods impose boundary conditions weakly, through "
                                    "the boundary faces)."));
        try
          {
            internal::setup_faces<dim, Number>(mapping,
                                               quad,
                                               fe_q,
                                               cells_in_order,
                                               dof_numbering,
                                               *partitioner,
                                               backend_,
                                               comm,
                                               with_mpi,
                                               additional_data.mg_level,
                                               discontinuous ? nullptr : constraints[0],
                                               &ghost_lines,
                                               face_arrays);
          }
        catch (...)
          {
            free(); // no half-built object: it asked for faces
            throw;
          }
      }
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
    Data               data  = data_without_cells();
    data.n_cells             = end - first;
    data.row_start           = first;
    data.has_constraint_rows = color_has_constraint_rows[color];
    return data;
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::Data
  MatrixFree<dim, Number>::data_without_cells() const
  {
    Data data;
    data.q_points                 = q_points.data();
    data.local_to_global          = local_to_global.data();
    data.inv_jacobian             = inv_jacobian.data();
    data.JxW                      = JxW.data();
    data.shape_values             = shape_values.data();
    data.shape_gradients          = shape_gradients.data();
    data.co_shape_gradients       = co_shape_gradients.data();
    data.inverse_shape_values     = inverse_shape_values.size() > 0 ? inverse_shape_values.data() : nullptr;
    data.quadrature_weights       = quadrature_weights.data();
    data.id                       = id;
    data.n_cells                  = 0;
    data.row_start                = 0;
    data.jacobian_stride          = JxW.size();
    data.n_dofs_1d                = fe_degree + 1;
    data.n_q_points_1d            = n_q_points_1d;
    data.n_q_points               = dealii::Utilities::pow(n_q_points_1d, dim);
    data.n_components             = n_components_;
    data.cells_per_block          = 1; // set per launch (cells_per_block(layout))
    data.use_coloring             = strategy != ConflictStrategy::atomics;
    data.affine                   = affine;
    data.collocation              = collocation;
    data.constraint_rows          = {constraint_row_start.data(), constraint_indices.data(), constraint_weights.data()};
    data.cell_has_constraint_rows = cell_has_constraint_rows.data();
    data.hanging_masks            = hanging_masks.size() > 0 ? hanging_masks.data() : nullptr;
    data.hanging_local_to_global  = hanging_masks.size() > 0 ? hanging_local_to_global.data() : nullptr;
    data.hanging_weights          = hanging_masks.size() > 0 ? hanging_weights.data() : nullptr;
    data.has_constraint_rows      = false;
    data.backend                  = backend_;
    data.plain_local_to_global    = plain_local_to_global.size() > 0 ? plain_local_to_global.data() : nullptr;
    data.faces                    = face_arrays.data();
    data.n_dof_handlers           = n_dof_handlers();
    data.dof_handler_data         = dof_handler_data.size() > 0 ? dof_handler_data.data() : nullptr;
    data.n_quadratures            = n_quadratures();
    data.quadrature_data          = quadrature_data.size() > 0 ? quadrature_data.data() : nullptr;
    return data;
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::Data
  MatrixFree<dim, Number>::get_data(const unsigned int color,
                                    const CellRange    range,
                                    const unsigned int quad_index) const
  {
    Data data = get_data(color, range);
    if (quad_index == 0)
      return data;
    AssertThrow(quad_index < n_quadratures(),
                ExcNotSupported("gpumf::MatrixFree: quadrature index " + std::to_string(quad_index) +
                                ", but the object was set up with " + std::to_string(n_quadratures()) +
                                " quadrature(s)."));
    // quadrature quad_index's fields of DoFHandler 0 (quadrature_data_host's entry)
    const Data &other         = quadrature_data_host[quad_index * n_dof_handlers()];
    data.q_points             = other.q_points;
    data.inv_jacobian         = other.inv_jacobian;
    data.JxW                  = other.JxW;
    data.jacobian_stride      = other.jacobian_stride;
    data.affine               = other.affine;
    data.shape_values         = other.shape_values;
    data.shape_gradients      = other.shape_gradients;
    data.co_shape_gradients   = other.co_shape_gradients;
    data.inverse_shape_values = other.inverse_shape_values;
    data.quadrature_weights   = other.quadrature_weights;
    data.n_q_points_1d        = other.n_q_points_1d;
    data.n_q_points           = other.n_q_points;
    data.collocation          = other.collocation;
    data.quad_index           = quad_index;
    return data;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_quadratures() const
  {
    return 1 + other_quadrature_parts.size() / n_dof_handlers();
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::launch_quadrature(const unsigned int n_q_points) const
  {
    for (unsigned int q = 0; q < n_quadratures(); ++q)
      if (this->n_q_points(q) == n_q_points)
        return q;
    std::string sizes; // (the message only)
    for (unsigned int q = 0; q < n_quadratures(); ++q)
      sizes += (q == 0 ? "" : ", ") + std::to_string(this->n_q_points(q));
    AssertThrow(false,
                ExcNotSupported("gpumf::MatrixFree: a functor declares n_q_points = " + std::to_string(n_q_points) +
                                ", but the object's quadratures have " + sizes +
                                " points per cell (n_q_points_1d^dim of a quadrature given to reinit())."));
    return 0;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::get_mg_level() const
  {
    return mg_level;
  }

  template <int dim, typename Number>
  const std::vector<unsigned int> &
  MatrixFree<dim, Number>::get_constrained_dofs(const unsigned int dof_index) const
  {
    return dof_part(dof_index).constrained_dofs_host;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_colors() const
  {
    return graph.size();
  }

  template <int dim, typename Number>
  std::pair<unsigned int, unsigned int>
  MatrixFree<dim, Number>::n_hanging_node_cells() const
  {
    return hanging_node_cells;
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
    // any of the quadratures (launch_quadrature()); the list for the message, built only there
    const auto points_per_direction = [&]() {
      std::string list;
      for (unsigned int q = 0; q < n_quadratures(); ++q)
        list +=
          (q == 0                   ? "" :
           q + 1 == n_quadratures() ? " or " :
                                      ", ") +
          std::to_string(q == 0 ? n_q_points_1d : other_quadrature_parts[(q - 1) * n_dof_handlers()]->n_q_points_1d);
      return list;
    };
    const auto has_quadrature = [&](const unsigned int n) {
      for (unsigned int q = 0; q < n_quadratures(); ++q)
        if (this->n_q_points(q) == n)
          return true;
      return false;
    };
    // with several DoFHandlers, the declarations of a functor name one of them
    for (unsigned int k = 1; k < n_dof_handlers(); ++k)
      {
        const MatrixFree  &p        = dof_part(k);
        const unsigned int n_tensor = Utilities::pow(p.fe_degree + 1, dim);
        if ((n_dofs_1d == 0 || n_dofs_1d == p.fe_degree + 1) && has_quadrature(n_q_points) &&
            (n_local_dofs == 0 || n_local_dofs == n_tensor || n_local_dofs == p.n_components_ * n_tensor) &&
            (n_components == 0 || n_components == p.n_components_))
          return;
      }
    const unsigned int n_tensor_dofs = Utilities::pow(fe_degree + 1, dim);
    // 0: not declared (deal.II 9.7+'s functors need not), the object's
    AssertThrow((n_dofs_1d == 0 || n_dofs_1d == fe_degree + 1) && has_quadrature(n_q_points) &&
                  (n_local_dofs == 0 || n_local_dofs == n_tensor_dofs ||
                   n_local_dofs == n_components_ * n_tensor_dofs) &&
                  (n_components == 0 || n_components == n_components_),
                ExcNotSupported("The functor declares n_dofs_1d = " + std::to_string(n_dofs_1d) + ", n_local_dofs = " +
                                std::to_string(n_local_dofs) + ", n_q_points = " + std::to_string(n_q_points) +
                                ", n_components = " + std::to_string(n_components) +
                                ", but this MatrixFree object has element degree " + std::to_string(fe_degree) + ", " +
                                points_per_direction() + " quadrature points per direction and " +
                                std::to_string(n_components_) + " components."));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_vector(const Vector<Number> &v, const unsigned int dof_index) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(v.backend() == backend_,
                ExcVectorMismatch("vector on backend " + to_string(v.backend()),
                                  "MatrixFree on backend " + to_string(backend_)));
    AssertThrow(internal::same_layout(*v.get_partitioner(), *dof_part(dof_index).partitioner),
                ExcVectorMismatch("a vector with another partitioner",
                                  "the partitioner of MatrixFree::initialize_dof_vector(vec, " +
                                    std::to_string(dof_index) + ")"));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_loop_vector(const Vector<Number> &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    // a DoF vector (or one of another backend: refused) as check_vector() takes it
    if (v.backend() != backend_ || internal::same_layout(*v.get_partitioner(), *partitioner))
      return check_vector(v);
    if (dof_index_of(v) != numbers::invalid_unsigned_int)
      return;
    // Data per cell (a coefficient per quadrature point, as deal.II's programs index it with
    // local_q_point_id(cell, q)): k entries for each cell, the same k on every rank (from the
    // global sizes, so that all ranks decide alike), k = 1 (per cell) or m * n_q_points with
    // m <= dim * dim (per point: a number, a vector or a tensor), no ghost entries, not of the DoF
    // vectors' global size. It reaches the functor as it is: no ghost exchange, no compress.
    // (m * n_q_points of any of the object's quadratures)
    const std::size_t             n_local = v.locally_owned_size();
    const unsigned int            n_q     = Utilities::pow(n_q_points_1d, dim);
    const types::global_dof_index k =
      n_global_cells > 0 && v.size() % n_global_cells == 0 ? v.size() / n_global_cells : 0;
    bool per_point = false;
    for (unsigned int q = 0; q < n_quadratures(); ++q)
      per_point = per_point || (k >= n_q_points(q) && k % n_q_points(q) == 0 && k / n_q_points(q) <= dim * dim);
    const bool per_cell = (k == 1 || per_point) && n_local == k * n_cells() && !v.has_ghost_elements() &&
                          v.get_partitioner()->n_ghost_indices() == 0 &&
                          std::none_of(other_dof_parts.begin(),
                                       other_dof_parts.end(),
                                       [&](const auto &p) { return v.size() == p->partitioner->size(); }) &&
                          v.size() != partitioner->size();
    AssertThrow(per_cell,
                ExcVectorMismatch("a vector with another partitioner (" + std::to_string(v.size()) + " entries, " +
                                    std::to_string(n_local) + " on this rank)",
                                  "this MatrixFree's DoF vectors (" + std::to_string(partitioner->size()) +
                                    " entries), or data per cell for cell_loop(): 1 or m * " + std::to_string(n_q) +
                                    " (m <= " + std::to_string(dim * dim) + ") entries per cell, k entries per cell " +
                                    "on every rank (" + std::to_string(n_global_cells) + " cells, " +
                                    std::to_string(n_cells()) + " on this rank), no ghost entries"));
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
  MatrixFree<dim, Number>::copy_constrained_values(const Vector<Number> &src,
                                                   Vector<Number>       &dst,
                                                   const unsigned int    dof_index) const
  {
    if (dof_index != 0)
      return dof_part(dof_index).copy_constrained_values(src, dst);
    check_owned_entries(src);
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed(
        dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), false, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::add_constrained_values(const Vector<Number> &src,
                                                  Vector<Number>       &dst,
                                                  const unsigned int    dof_index) const
  {
    if (dof_index != 0)
      return dof_part(dof_index).add_constrained_values(src, dst);
    check_owned_entries(src);
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed(
        dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), true, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  Number
  MatrixFree<dim, Number>::energy_with_constrained_values(const Number *cell_energy, const Vector<Number> &src) const
  {
    check_owned_entries(src);
    return GPUMF_DISPATCH(backend_,
                          sum_and_indexed_squares(cell_energy,
                                                  std::size_t(n_cells()),
                                                  src.get_values(),
                                                  constrained_dofs.data(),
                                                  constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::set_constrained_values(const Number       val,
                                                  Vector<Number>    &dst,
                                                  const unsigned int dof_index) const
  {
    if (dof_index != 0)
      return dof_part(dof_index).set_constrained_values(val, dst);
    check_owned_entries(dst);
    GPUMF_DISPATCH(
      backend_,
      set_indexed<Number>(dst.get_values(), constrained_dofs.data(), nullptr, val, false, constrained_dofs.size()));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::initialize_dof_vector(Vector<Number> &vec, const unsigned int dof_index) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vec.reinit(dof_part(dof_index).partitioner, backend_);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::initialize_dof_vector(BlockVector<Number> &vec) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vec.reinit(n_dof_handlers());
    for (unsigned int k = 0; k < n_dof_handlers(); ++k)
      initialize_dof_vector(vec.block(k), k);
    vec.collect_sizes();
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::initialize_dof_vector(LinearAlgebra::distributed::BlockVector<Number> &vec) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vec.reinit(n_dof_handlers());
    for (unsigned int k = 0; k < n_dof_handlers(); ++k)
      vec.block(k).reinit(dof_part(k).partitioner);
    vec.collect_sizes();
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::copy_constrained_values(const BlockVector<Number> &src, BlockVector<Number> &dst) const
  {
    AssertThrow(src.n_blocks() == n_dof_handlers() && dst.n_blocks() == n_dof_handlers(),
                ExcVectorMismatch("block vectors of " + std::to_string(src.n_blocks()) + " and " +
                                    std::to_string(dst.n_blocks()) + " blocks",
                                  "a block per DoFHandler (" + std::to_string(n_dof_handlers()) + ")"));
    for (unsigned int k = 0; k < n_dof_handlers(); ++k)
      copy_constrained_values(src.block(k), dst.block(k), k);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::set_constrained_values(const Number val, BlockVector<Number> &dst) const
  {
    AssertThrow(dst.n_blocks() == n_dof_handlers(),
                ExcVectorMismatch("a block vector of " + std::to_string(dst.n_blocks()) + " blocks",
                                  "a block per DoFHandler (" + std::to_string(n_dof_handlers()) + ")"));
    for (unsigned int k = 0; k < n_dof_handlers(); ++k)
      set_constrained_values(val, dst.block(k), k);
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_dof_handlers() const
  {
    return 1 + other_dof_parts.size();
  }

  template <int dim, typename Number>
  const MatrixFree<dim, Number> &
  MatrixFree<dim, Number>::dof_part(const unsigned int dof_index) const
  {
    AssertThrow(dof_index < n_dof_handlers(),
                ExcNotSupported("gpumf::MatrixFree: DoF handler index " + std::to_string(dof_index) +
                                ", but the object was set up with " + std::to_string(n_dof_handlers()) +
                                " DoFHandler(s) (indices 0 to " + std::to_string(n_dof_handlers() - 1) + ")."));
    return dof_index == 0 ? *this : *other_dof_parts[dof_index - 1];
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::n_owned_entries(const unsigned int dof_index, const char *caller) const
  {
    AssertThrow(dof_index < n_dof_handlers(),
                ExcNotSupported(std::string(caller) + ": dof_handler_index_pre_post is " + std::to_string(dof_index) +
                                ", but the object was set up with " + std::to_string(n_dof_handlers()) +
                                " DoFHandler(s) (indices 0 to " + std::to_string(n_dof_handlers() - 1) + ")."));
    AssertThrow(dof_part(dof_index).partitioner != nullptr,
                ExcNotSupported(std::string(caller) + ": the MatrixFree object is not set up (call reinit() first)."));
    return dof_part(dof_index).partitioner->locally_owned_size();
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::dof_index_of(const Vector<Number> &v) const
  {
    for (unsigned int k = 0; k < n_dof_handlers(); ++k)
      if (internal::same_layout(*v.get_partitioner(), *dof_part(k).partitioner))
        return k;
    return numbers::invalid_unsigned_int;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::max_components() const
  {
    unsigned int most = n_components_;
    for (const auto &p : other_dof_parts)
      most = std::max(most, p->n_components_);
    return most;
  }

  template <int dim, typename Number>
  const std::vector<std::vector<typename MatrixFree<dim, Number>::cell_iterator>> &
  MatrixFree<dim, Number>::get_colored_graph() const
  {
    return graph;
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MatrixFree<dim, Number>::get_vector_partitioner(const unsigned int dof_index) const
  {
    return dof_part(dof_index).partitioner;
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::free()
  {
    other_dof_parts.clear();
    dof_handler_data.clear();
    other_quadrature_parts.clear();
    quadrature_data.clear();
    quadrature_data_host.clear();
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
    cells_in_order.clear();
    inverse_shape_values.clear();
    quadrature_weights.clear();
    constrained_dofs.clear();
    constrained_dofs_host.clear();
    constraint_row_start.clear();
    constraint_indices.clear();
    constraint_weights.clear();
    cell_has_constraint_rows.clear();
    color_has_constraint_rows.clear();
    hanging_masks.clear();
    hanging_local_to_global.clear();
    hanging_weights.clear();
    hanging_node_cells = {0, 0};
    interior_split.clear();
    boundary_end.clear();
    overlap                     = false;
    dof_handler                 = nullptr;
    mg_level                    = numbers::invalid_unsigned_int;
    affine                      = false;
    uniform                     = false;
    collocation                 = false;
    requested_cells_per_block   = 0;
    face_arrays                 = internal::FaceArrays<dim, Number>();
    discontinuous               = false;
    constraint_rows_on_any_rank = false;
    for (unsigned int i = 0; i < 3; ++i)
      {
        ghost_subsets[i].reset();
        ghost_subsets_made[i] = false;
      }
  }

  template <int dim, typename Number>
  const DoFHandler<dim> &
  MatrixFree<dim, Number>::get_dof_handler(const unsigned int dof_index) const
  {
    Assert(dof_handler != nullptr, ExcNotInitialized());
    return *dof_part(dof_index).dof_handler;
  }

  template <int dim, typename Number>
  const FiniteElement<dim> &
  MatrixFree<dim, Number>::get_fe(const unsigned int dof_index) const
  {
    Assert(active_fe != nullptr, ExcNotInitialized());
    return *dof_part(dof_index).active_fe;
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
                        constraint_weights.memory_consumption() + cell_has_constraint_rows.memory_consumption() +
                        hanging_masks.memory_consumption() + hanging_local_to_global.memory_consumption() +
                        hanging_weights.memory_consumption() + face_arrays.memory_consumption();
    for (const auto &color : graph)
      bytes += color.size() * sizeof(cell_iterator);
    if (partitioner)
      bytes += partitioner->memory_consumption();
    for (const auto &p : other_dof_parts)
      bytes += p->memory_consumption();
    return bytes + dof_handler_data.memory_consumption();
  }

  template <int dim, typename Number>
  bool
  MatrixFree<dim, Number>::has_faces() const
  {
    return face_arrays.available;
  }

  template <int dim, typename Number>
  std::vector<Point<dim>>
  MatrixFree<dim, Number>::get_face_quadrature_points() const
  {
    AssertThrow(face_arrays.available,
                ExcNotSupported("gpumf::MatrixFree::get_face_quadrature_points: the object has no faces (set "
                                "AdditionalData::mapping_update_flags_boundary_faces or _inner_faces)."));
    const std::vector<Point<dim, Number>> stored = face_arrays.q_points.to_host();
    std::vector<Point<dim>>               points(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i)
      for (unsigned int d = 0; d < dim; ++d)
        points[i][d] = stored[i][d];
    return points;
  }

  template <int dim, typename Number>
  std::vector<types::boundary_id>
  MatrixFree<dim, Number>::get_face_boundary_ids() const
  {
    AssertThrow(face_arrays.available,
                ExcNotSupported("gpumf::MatrixFree::get_face_boundary_ids: the object has no faces (set "
                                "AdditionalData::mapping_update_flags_boundary_faces or _inner_faces)."));
    const std::vector<unsigned int> stored = face_arrays.boundary_id.to_host();
    std::vector<types::boundary_id> ids(stored.size());
    for (std::size_t i = 0; i < stored.size(); ++i)
      ids[i] = stored[i] == internal::FaceData<dim, Number>::internal_face ? numbers::internal_face_boundary_id :
                                                                             types::boundary_id(stored[i]);
    return ids;
  }

  template <int dim, typename Number>
  std::pair<unsigned int, unsigned int>
  MatrixFree<dim, Number>::cells_with_boundary_faces(const unsigned int color) const
  {
    AssertIndexRange(color, n_colors());
    const std::vector<unsigned int> &rows  = face_arrays.boundary_cells_host;
    const auto                       first = std::lower_bound(rows.begin(), rows.end(), color_start[color]);
    const auto                       end   = std::lower_bound(first, rows.end(), color_start[color + 1]);
    return {unsigned(first - rows.begin()), unsigned(end - first)};
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_face_points() const
  {
    return face_arrays.n_face_points;
  }

  template <int dim, typename Number>
  bool
  MatrixFree<dim, Number>::has_continuous_faces() const
  {
    return face_arrays.available && face_arrays.continuous;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_faces() const
  {
    return face_arrays.n_faces;
  }

  template <int dim, typename Number>
  const internal::GhostSubset *
  MatrixFree<dim, Number>::face_ghost_subset(const DataAccessOnFaces access) const
  {
    // without faces (a loop() of cell functors alone) every ghost entry travels
    if (access == DataAccessOnFaces::unspecified || !face_arrays.available ||
        (access == DataAccessOnFaces::none && !face_arrays.continuous))
      return nullptr;
    // a cell-centric loop reads across every face of its cells: the _all_faces variants are
    // what it needs for either access; a continuous element's cells read their own ghost
    // entries in every loop (none included)
    using Arrays         = internal::FaceArrays<dim, Number>;
    const unsigned int k = access == DataAccessOnFaces::none                                                    ? 2 :
                           access == DataAccessOnFaces::values || access == DataAccessOnFaces::values_all_faces ? 0 :
                                                                                                                  1;
    if (!ghost_subsets_made[k])
      {
        const unsigned char bit = (k == 2 ? 0 :
                                   k == 0 ? Arrays::ghost_read_by_values :
                                            Arrays::ghost_read_by_values | Arrays::ghost_read_by_gradients) |
                                  Arrays::ghost_read_by_cells;
        std::vector<unsigned int> positions;
        for (unsigned int i = 0; i < face_arrays.ghost_reads.size(); ++i)
          if (face_arrays.ghost_reads[i] & bit)
            positions.push_back(i);
        ghost_subsets[k]      = internal::make_ghost_subset(partitioner, positions, backend_);
        ghost_subsets_made[k] = true;
      }
    return ghost_subsets[k].get();
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_exchanged_ghost_entries(const DataAccessOnFaces access) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    if (access == DataAccessOnFaces::none && !face_arrays.continuous)
      return 0;
    const internal::GhostSubset *subset = face_ghost_subset(access);
    return subset != nullptr ? subset->n_ghost_indices() : partitioner->n_ghost_indices();
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
  typename MatrixFree<dim, Number>::cell_iterator
  MatrixFree<dim, Number>::get_cell_iterator(const unsigned int cell_index) const
  {
    AssertIndexRange(cell_index, cells_in_order.size());
    return cells_in_order[cell_index];
  }

  template <int dim, typename Number>
  const std::vector<unsigned int> &
  MatrixFree<dim, Number>::get_dof_numbering(const unsigned int dof_index) const
  {
    return dof_part(dof_index).dof_numbering;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_components(const unsigned int dof_index) const
  {
    return dof_part(dof_index).n_components_;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_q_points(const unsigned int quad_index) const
  {
    if (quad_index == 0)
      return Utilities::pow(n_q_points_1d, dim);
    AssertThrow(quad_index < n_quadratures(),
                ExcNotSupported("gpumf::MatrixFree: quadrature index " + std::to_string(quad_index) +
                                ", but the object was set up with " + std::to_string(n_quadratures()) +
                                " quadrature(s)."));
    return Utilities::pow(other_quadrature_parts[(quad_index - 1) * n_dof_handlers()]->n_q_points_1d, dim);
  }

  template <int dim, typename Number>
  std::vector<typename MatrixFree<dim, Number>::point_type>
  MatrixFree<dim, Number>::get_quadrature_points() const
  {
    return q_points.to_host();
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_cell(const unsigned int n_fe_evaluations,
                                                  const unsigned int quad_index) const
  {
    return n_fe_evaluations * (dim + 1) * max_components() * n_q_points(quad_index) * sizeof(Number);
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_block_for(const unsigned int cells,
                                                       const unsigned int n_fe_evaluations,
                                                       const unsigned int quad_index) const
  {
    const std::size_t n_q =
      quad_index == 0 ? n_q_points_1d : other_quadrature_parts[(quad_index - 1) * n_dof_handlers()]->n_q_points_1d;
    return (n_q * (fe_degree + 1) + n_q * n_q) * sizeof(Number) +
           cells * shared_memory_per_cell(n_fe_evaluations, quad_index);
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::cells_per_block(const internal::CellLayout<dim> layout,
                                           const unsigned int              n_fe_evaluations,
                                           const unsigned int              quad_index) const
  {
    if (backend_ != Backend::cuda)
      return 1;
    const auto bytes = [&](const unsigned int cells) {
      return shared_memory_per_block_for(cells, n_fe_evaluations, quad_index);
    };
    AssertThrow(bytes(1) <= max_shared_memory,
                ExcNotSupported("gpumf::MatrixFree: a functor with " + std::to_string(n_fe_evaluations) +
                                " FEEvaluation objects needs " + std::to_string(bytes(1)) +
                                " bytes of shared memory per cell; the GPU offers " +
                                std::to_string(max_shared_memory) +
                                " per block. Use fewer FEEvaluation objects per functor (or two loops)."));
    const unsigned int most = layout.max_cells_per_block();
    unsigned int       k    = requested_cells_per_block == 0 ? most : std::min(requested_cells_per_block, most);
    while (k > 1 && bytes(k) > max_shared_memory)
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
