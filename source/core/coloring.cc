// Cell colorings: integer coordinates of the cells of a logically Cartesian mesh, their parity
// colors, and the coloring rule of the set-up (core/coloring.h).
#include "core/coloring.h"
#include "core/threads.h"

#include <deal.II/base/graph_coloring.h>
#include <deal.II/dofs/dof_handler.h>

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
