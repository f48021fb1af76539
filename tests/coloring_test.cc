// The cell coloring of the set-up (core/coloring.h, color_cells()) on its own, without an
// operator: every rule on a Cartesian mesh and on a mesh that is not logically Cartesian.
//
//   coloring_test host   the colorings (host only; "cuda" runs the same host checks)
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "core/coloring.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  using gpumf::internal::CellColoringRule;

  /// The vertex indices of the cell at each position (what neighbors through a vertex share).
  template <int dim>
  std::function<std::vector<types::global_dof_index>(unsigned int)>
  vertices_of(const std::vector<typename Triangulation<dim>::cell_iterator> &cells)
  {
    return [&cells](const unsigned int c) {
      std::vector<types::global_dof_index> indices;
      for (const unsigned int v : cells[c]->vertex_indices())
        indices.push_back(cells[c]->vertex_index(v));
      return indices;
    };
  }

  /// Whether every position is in exactly one color and the cells of a color share no vertex.
  template <int dim>
  bool
  is_coloring(const std::vector<std::vector<unsigned int>>                  &colors,
              const std::vector<typename Triangulation<dim>::cell_iterator> &cells)
  {
    const auto            touched = vertices_of<dim>(cells);
    std::vector<unsigned> seen(cells.size(), 0);
    for (const auto &color : colors)
      {
        std::set<types::global_dof_index> vertices;
        for (const unsigned int c : color)
          {
            if (c >= cells.size() || seen[c]++ > 0)
              return false;
            for (const types::global_dof_index v : touched(c))
              if (!vertices.insert(v).second)
                return false;
          }
      }
    return std::all_of(seen.begin(), seen.end(), [](const unsigned int n) { return n == 1; });
  }

  /// The greedy coloring written plainly: cell by cell, the lowest color none of whose cells
  /// shares an index with it; the colors' cells in increasing position.
  std::vector<std::vector<unsigned int>>
  naive_greedy(const unsigned int                                                       n_cells,
               const std::function<std::vector<types::global_dof_index>(unsigned int)> &touched)
  {
    std::vector<std::set<types::global_dof_index>> color_indices;
    std::vector<std::vector<unsigned int>>         colors;
    for (unsigned int c = 0; c < n_cells; ++c)
      {
        const auto   indices = touched(c);
        unsigned int k       = 0;
        for (; k < colors.size(); ++k)
          if (std::none_of(indices.begin(), indices.end(), [&](const types::global_dof_index i) {
                return color_indices[k].count(i) > 0;
              }))
            break;
        if (k == colors.size())
          {
            colors.emplace_back();
            color_indices.emplace_back();
          }
        colors[k].push_back(c);
        color_indices[k].insert(indices.begin(), indices.end());
      }
    return colors;
  }

  template <int dim>
  std::vector<typename Triangulation<dim>::cell_iterator>
  active_cells(const Triangulation<dim> &tria)
  {
    std::vector<typename Triangulation<dim>::cell_iterator> cells;
    for (const auto &cell : tria.active_cell_iterators())
      cells.push_back(cell);
    return cells;
  }

  template <int dim>
  void
  check_cartesian(test::Checker &checker)
  {
    const std::string  name = std::to_string(dim) + "d Cartesian: ";
    Triangulation<dim> tria;
    GridGenerator::subdivided_hyper_cube(tria, 3);
    tria.refine_global(2);
    const auto cells    = active_cells(tria);
    const auto coloring = gpumf::internal::color_cells<dim>(tria, cells, vertices_of<dim>(cells));
    checker.check(coloring.rule == CellColoringRule::parity, name + "parity rule");
    checker.check(coloring.colors.size() == (1u << dim), name + "2^dim colors");
    checker.check(is_coloring<dim>(coloring.colors, cells), name + "parity colors share no vertex");
    bool increasing = true;
    for (const auto &color : coloring.colors)
      increasing = increasing && std::is_sorted(color.begin(), color.end());
    checker.check(increasing, name + "parity colors in increasing position");

    // the graph rule when asked for (as MatrixFree does where constraints couple cells)
    const auto graph = gpumf::internal::color_cells<dim>(tria, cells, vertices_of<dim>(cells), CellColoringRule::graph);
    checker.check(graph.rule == CellColoringRule::graph && is_coloring<dim>(graph.colors, cells),
                  name + "graph rule on request");
    checker.check(graph.colors == naive_greedy(cells.size(), vertices_of<dim>(cells)),
                  name + "graph rule: the greedy coloring (each cell the lowest free color)");

    // indices spread far apart (vertex v as v * 2^20): the greedy pass on the indices' ranks,
    // the same colors
    const auto spread_indices = [&](const unsigned int c) {
      auto indices = vertices_of<dim>(cells)(c);
      for (auto &i : indices)
        i <<= 20;
      return indices;
    };
    const auto spread = gpumf::internal::color_cells<dim>(tria, cells, spread_indices, CellColoringRule::graph);
    checker.check(spread.colors == graph.colors && is_coloring<dim>(spread.colors, cells),
                  name + "graph rule, indices spread: the same greedy coloring");

    // every cell touching one index: one cell per color, more than the greedy pass's 64
    // (deal.II's coloring then)
    const auto clique = gpumf::internal::color_cells<dim>(
      tria, cells, [](const unsigned int) { return std::vector<types::global_dof_index>{7}; }, CellColoringRule::graph);
    bool one_each = clique.colors.size() == cells.size();
    for (const auto &color : clique.colors)
      one_each = one_each && color.size() == 1;
    checker.check(cells.size() > 64 && one_each, name + "graph rule, more than 64 colors: one cell per color");

    // one color: every position, in order, touched not called
    const auto one = gpumf::internal::color_cells<dim>(
      tria,
      cells,
      [](const unsigned int) -> std::vector<types::global_dof_index> { throw std::logic_error("called"); },
      CellColoringRule::one_color);
    std::vector<unsigned int> all(cells.size());
    std::iota(all.begin(), all.end(), 0u);
    checker.check(one.rule == CellColoringRule::one_color && one.colors.size() == 1 && one.colors[0] == all,
                  name + "one color with every cell");

    // no cells: the graph rule with no color; one color, empty
    const std::vector<typename Triangulation<dim>::cell_iterator> none;
    const auto empty = gpumf::internal::color_cells<dim>(tria, none, vertices_of<dim>(none));
    checker.check(empty.rule == CellColoringRule::graph && empty.colors.empty(), name + "no cells, no colors");
    const auto empty_one =
      gpumf::internal::color_cells<dim>(tria, none, vertices_of<dim>(none), CellColoringRule::one_color);
    checker.check(empty_one.colors.size() == 1 && empty_one.colors[0].empty(), name + "no cells, one empty color");

    // cells on two levels: not one level of a Cartesian mesh, so the graph rule
    auto mixed = cells;
    mixed.push_back(tria.begin(0));
    const auto two_levels = gpumf::internal::color_cells<dim>(tria, mixed, vertices_of<dim>(mixed));
    checker.check(two_levels.rule == CellColoringRule::graph, name + "two levels: graph rule");
  }

  template <int dim>
  void
  check_not_cartesian(test::Checker &checker)
  {
    const std::string  name = std::to_string(dim) + "d ball: ";
    Triangulation<dim> tria;
    GridGenerator::hyper_ball(tria);
    tria.refine_global(2);
    const auto cells    = active_cells(tria);
    const auto coloring = gpumf::internal::color_cells<dim>(tria, cells, vertices_of<dim>(cells));
    checker.check(coloring.rule == CellColoringRule::graph, name + "graph rule");
    checker.check(is_coloring<dim>(coloring.colors, cells), name + "graph colors touch disjoint indices");
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend) {
    check_cartesian<2>(checker);
    check_cartesian<3>(checker);
    check_not_cartesian<2>(checker);
    check_not_cartesian<3>(checker);
  });
}
