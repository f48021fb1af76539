// Cell colorings: integer coordinates of the cells of a logically Cartesian mesh, their parity
// colors, and the coloring rule of the set-up (core/coloring.h).
#include "core/coloring.h"
#include "core/threads.h"

#include <deal.II/base/graph_coloring.h>
#include <deal.II/dofs/dof_handler.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    template <int dim>
    std::vector<std::array<long, dim>>
    cartesian_coordinates(const Triangulation<dim>                                      &tria,
                          const std::vector<typename Triangulation<dim>::cell_iterator> &cells)
    {
      if (cells.empty() || tria.n_vertices() == 0)
        return {};
      const unsigned int level = cells.front()->level();
      for (const auto &cell : cells)
        if (cell->level() != int(level))
          return {};
      // coarse cells by a walk over face neighbors
      std::map<unsigned int, std::array<long, dim>>           coarse;
      std::set<std::array<long, dim>>                         used;
      std::vector<typename Triangulation<dim>::cell_iterator> todo{tria.begin(0)};
      coarse[tria.begin(0)->index()] = std::array<long, dim>{};
      used.insert(std::array<long, dim>{});
      while (!todo.empty())
        {
          const auto cell = todo.back();
          todo.pop_back();
          for (unsigned int f = 0; f < 2 * dim; ++f)
            {
              if (cell->at_boundary(f))
                continue;
              if (!cell->face_orientation(f) || cell->face_flip(f) || cell->face_rotation(f) ||
                  cell->neighbor_of_neighbor(f) != (f ^ 1u))
                return {};
              const auto neighbor = cell->neighbor(f);
              auto       position = coarse[cell->index()];
              position[f / 2] += (f % 2 == 0 ? -1 : 1);
              const auto known = coarse.find(neighbor->index());
              if (known != coarse.end())
                {
                  if (known->second != position)
                    return {};
                  continue;
                }
              if (!used.insert(position).second)
                return {};
              coarse[neighbor->index()] = position;
              todo.push_back(neighbor);
            }
        }
      if (coarse.size() != tria.n_cells(0))
        return {};
      // each cell by its child path, in threads
      std::vector<std::array<long, dim>> result(cells.size());
      parallel_for(cells.size(), [&](const unsigned int begin, const unsigned int end) {
        for (unsigned int i = begin; i < end; ++i)
          {
            std::array<long, dim>                      position{};
            typename Triangulation<dim>::cell_iterator c = cells[i];
            for (unsigned int l = level; l > 0; --l)
              {
                const auto   parent = c->parent();
                unsigned int child  = 0;
                while (parent->child(child) != c)
                  ++child;
                for (unsigned int d = 0; d < dim; ++d)
                  position[d] += long((child >> d) & 1u) << (level - l);
                c = parent;
              }
            const std::array<long, dim> &origin = coarse.at(c->index());
            for (unsigned int d = 0; d < dim; ++d)
              position[d] += origin[d] << level;
            result[i] = position;
          }
      });
      return result;
    }

    template <int dim>
    std::vector<std::vector<unsigned int>>
    parity_colors(const std::vector<std::array<long, dim>> &coordinates)
    {
      std::vector<std::vector<unsigned int>> parity(1u << dim);
      for (unsigned int c = 0; c < coordinates.size(); ++c)
        {
          unsigned int color = 0;
          for (unsigned int d = 0; d < dim; ++d)
            color |= unsigned(coordinates[c][d] & 1) << d;
          parity[color].push_back(c);
        }
      std::vector<std::vector<unsigned int>> colors;
      for (auto &color : parity)
        if (!color.empty())
          colors.push_back(std::move(color));
      return colors;
    }

    /**
     * Greedy coloring in position order: each cell takes the lowest color that none of its
     * touched indices has yet (a bit mask per index, up to 64 colors). The masks are indexed by
     * the index minus the smallest one where the indices span at most 16 times their number (one
     * rank, or ranks whose ghosts lie close), else by the index's rank among the sorted distinct
     * indices (ghosts far apart on many ranks). Written here rather than taken from deal.II:
     * deal.II's GraphColoring (a partitioning, then DSATUR) finds about as many colors (17
     * against 16 on step-66's ball) but took 1.8 s of the 2.4 s of MGTransferMatrixFree::build()
     * at 1.5e7 DoFs (Q4, perf), where this pass is linear in the touched indices (plus a sort
     * where they spread). Gives up (false, @p colors untouched) where a cell finds all 64 colors
     * taken; color_cells() then calls deal.II's coloring.
     */
    static bool
    greedy_coloring(const std::size_t                                                        n_cells,
                    const std::function<std::vector<types::global_dof_index>(unsigned int)> &touched,
                    std::vector<std::vector<unsigned int>>                                  &colors)
    {
      // each cell's indices, as positions into the masks
      std::vector<std::size_t>   start(n_cells + 1, 0);
      std::vector<std::uint64_t> position;
      for (unsigned int c = 0; c < n_cells; ++c)
        {
          for (const types::global_dof_index i : touched(c))
            position.push_back(i);
          start[c + 1] = position.size();
        }
      if (position.empty())
        return false;
      const auto [low, high]    = std::minmax_element(position.begin(), position.end());
      const std::uint64_t first = *low, span = *high - *low; // (64-bit: no wrap)
      std::size_t         n_masks;
      if (span < 16 * std::uint64_t(position.size()))
        {
          for (std::uint64_t &i : position)
            i -= first;
          n_masks = span + 1;
        }
      else
        {
          std::vector<std::uint64_t> distinct(position);
          std::sort(distinct.begin(), distinct.end());
          distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
          for (std::uint64_t &i : position)
            i = std::lower_bound(distinct.begin(), distinct.end(), i) - distinct.begin();
          n_masks = distinct.size();
        }
      std::vector<std::uint64_t> used(n_masks, 0);
      std::vector<unsigned char> color_of(n_cells);
      unsigned int               n_colors = 0;
      for (unsigned int c = 0; c < n_cells; ++c)
        {
          std::uint64_t taken = 0;
          for (std::size_t k = start[c]; k < start[c + 1]; ++k)
            taken |= used[position[k]];
          if (taken == ~std::uint64_t(0))
            return false;
          const unsigned int color = __builtin_ctzll(~taken);
          for (std::size_t k = start[c]; k < start[c + 1]; ++k)
            used[position[k]] |= std::uint64_t(1) << color;
          color_of[c] = color;
          n_colors    = std::max(n_colors, color + 1);
        }
      colors.assign(n_colors, {});
      for (unsigned int c = 0; c < n_cells; ++c)
        colors[color_of[c]].push_back(c);
      return true;
    }

    template <int dim, typename CellIterator>
    CellColoring
    color_cells(const Triangulation<dim>                                                &tria,
                const std::vector<CellIterator>                                         &cells,
                const std::function<std::vector<types::global_dof_index>(unsigned int)> &touched,
                const CellColoringRule                                                   first_rule)
    {
      CellColoring result{{}, first_rule};
      if (first_rule == CellColoringRule::one_color)
        {
          result.colors.emplace_back(cells.size());
          std::iota(result.colors.back().begin(), result.colors.back().end(), 0u);
          return result;
        }
      if (first_rule == CellColoringRule::parity)
        {
          // two cells of equal coordinate parities are two cells apart: no shared vertex
          const auto coordinates = cartesian_coordinates<dim>(
            tria, std::vector<typename Triangulation<dim>::cell_iterator>(cells.begin(), cells.end()));
          if (!coordinates.empty())
            {
              result.colors = parity_colors<dim>(coordinates);
              return result;
            }
        }
      result.rule = CellColoringRule::graph;
      if (cells.empty())
        return result;
      if (greedy_coloring(cells.size(), touched, result.colors))
        return result;
      std::vector<unsigned int> positions(cells.size());
      std::iota(positions.begin(), positions.end(), 0u);
      using Iterator = std::vector<unsigned int>::const_iterator;
      const std::vector<std::vector<Iterator>> graph_colors =
        GraphColoring::make_graph_coloring(Iterator(positions.begin()),
                                           Iterator(positions.end()),
                                           std::function<std::vector<types::global_dof_index>(const Iterator &)>(
                                             [&](const Iterator &it) { return touched(*it); }));
      for (const auto &color : graph_colors)
        {
          result.colors.emplace_back();
          for (const auto &it : color)
            result.colors.back().push_back(*it);
        }
      return result;
    }

    template std::vector<std::vector<unsigned int>>
    parity_colors<2>(const std::vector<std::array<long, 2>> &);
    template std::vector<std::vector<unsigned int>>
    parity_colors<3>(const std::vector<std::array<long, 3>> &);

    template std::vector<std::array<long, 2>>
    cartesian_coordinates<2>(const Triangulation<2> &, const std::vector<typename Triangulation<2>::cell_iterator> &);
    template std::vector<std::array<long, 3>>
    cartesian_coordinates<3>(const Triangulation<3> &, const std::vector<typename Triangulation<3>::cell_iterator> &);

    template CellColoring
    color_cells<2>(const Triangulation<2> &,
                   const std::vector<Triangulation<2>::cell_iterator> &,
                   const std::function<std::vector<types::global_dof_index>(unsigned int)> &,
                   CellColoringRule);
    template CellColoring
    color_cells<3>(const Triangulation<3> &,
                   const std::vector<Triangulation<3>::cell_iterator> &,
                   const std::function<std::vector<types::global_dof_index>(unsigned int)> &,
                   CellColoringRule);
    template CellColoring
    color_cells<2>(const Triangulation<2> &,
                   const std::vector<DoFHandler<2>::cell_iterator> &,
                   const std::function<std::vector<types::global_dof_index>(unsigned int)> &,
                   CellColoringRule);
    template CellColoring
    color_cells<3>(const Triangulation<3> &,
                   const std::vector<DoFHandler<3>::cell_iterator> &,
                   const std::function<std::vector<types::global_dof_index>(unsigned int)> &,
                   CellColoringRule);
  } // namespace internal
} // namespace gpumf
