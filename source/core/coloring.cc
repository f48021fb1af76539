// Cell colorings: integer coordinates of the cells of a logically Cartesian mesh and their parity colors (core/coloring.h).
#include "core/coloring.h"
#include "core/threads.h"

#include <map>
#include <set>

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    template <int dim>
    std::vector<std::array<long, dim>>
    cartesian_coordinates(const Triangulation<dim> &tria, const std::vector<typename Triangulation<dim>::cell_iterator> &cells)
    {
      if (cells.empty() || tria.n_vertices() == 0)
        return {};
      const unsigned int level = cells.front()->level();
      for (const auto &cell : cells)
        if (cell->level() != int(level))
          return {};
      // coarse cells by a walk over face neighbors
      std::map<unsigned int, std::array<long, dim>> coarse;
      std::set<std::array<long, dim>>               used;
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
            std::array<long, dim>                       position{};
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

    template std::vector<std::vector<unsigned int>>
    parity_colors<2>(const std::vector<std::array<long, 2>> &);
    template std::vector<std::vector<unsigned int>>
    parity_colors<3>(const std::vector<std::array<long, 3>> &);

    template std::vector<std::array<long, 2>>
    cartesian_coordinates<2>(const Triangulation<2> &, const std::vector<typename Triangulation<2>::cell_iterator> &);
    template std::vector<std::array<long, 3>>
    cartesian_coordinates<3>(const Triangulation<3> &, const std::vector<typename Triangulation<3>::cell_iterator> &);
  } // namespace internal
} // namespace gpumf
