/**
 * @file source/core/coloring.h
 * Cell colorings: the one rule of MatrixFree's and MGTransferMatrixFree's set-up (color_cells()),
 * and the integer coordinates of the cells of a logically Cartesian mesh it and the multi-color
 * Gauss-Seidel's point colors use.
 */
#ifndef gpumf_source_core_coloring_h
#define gpumf_source_core_coloring_h

#include <deal.II/base/types.h>

#include <deal.II/grid/tria.h>

#include <array>
#include <functional>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * Integer coordinates of @p cells, all on one level of a logically Cartesian mesh: the coarse
     * cells are placed by walking face neighbors (face 2d/2d+1 = -/+ direction d, standard
     * orientation required), the cells by their child path (children are numbered
     * lexicographically), so a cell of level l spans [x, x+1) in units of 2^-l coarse cells.
     * Every rank of a distributed mesh gets the same coordinates for the same cell (the coarse
     * mesh is replicated). Empty when the mesh is not of that kind or the cells are on several levels.
     */
    template <int dim>
    std::vector<std::array<long, dim>>
    cartesian_coordinates(const dealii::Triangulation<dim>                                      &tria,
                          const std::vector<typename dealii::Triangulation<dim>::cell_iterator> &cells);

    /**
     * The positions 0, 1, ... of @p coordinates grouped by the parity of their coordinates, one
     * group per parity pattern that occurs (at most 2^dim, in the order of the pattern's bits):
     * two cells of one group are two cells apart in some direction and share no vertex.
     */
    template <int dim>
    std::vector<std::vector<unsigned int>>
    parity_colors(const std::vector<std::array<long, dim>> &coordinates);

    /// The rule by which color_cells() colored, most specialized first.
    enum class CellColoringRule
    {
      /// parity_colors() of the cartesian_coordinates(): at most 2^dim colors
      parity,
      /// deal.II's GraphColoring::make_graph_coloring() on the indices each cell touches
      graph,
      /// all cells in one color (no coloring)
      one_color
    };

    /// Colors of cell positions (0, 1, ... in the list given to color_cells()) and the rule used.
    struct CellColoring
    {
      std::vector<std::vector<unsigned int>> colors;
      CellColoringRule                       rule;
    };

    /**
     * Colors of the positions of @p cells such that two cells of one color touch disjoint indices,
     * @p touched(position) giving the indices the cell at that position touches. The rule is
     * @p first_rule, except that the parity rule falls back to the graph coloring where the cells
     * are not all on one level of a logically Cartesian mesh:
     * - parity: cells of one color share no vertex; right only where a cell touches the indices of
     *   the DoFs of its own vertices, edges, faces and interior (no constraint entries);
     * - graph: cells sharing a touched index apart: a greedy pass in position order (the lowest
     *   color free at all of a cell's indices), or deal.II's graph coloring where that pass gives
     *   up (more than 64 colors); no color when there is no cell;
     * - one_color: one color with every cell (also when there is none).
     *
     * The cells of a color are in increasing position, except where deal.II's graph coloring
     * colored (its order). @p touched is called by the graph coloring only.
     */
    template <int dim, typename CellIterator>
    CellColoring
    color_cells(const dealii::Triangulation<dim>                                                &tria,
                const std::vector<CellIterator>                                                 &cells,
                const std::function<std::vector<dealii::types::global_dof_index>(unsigned int)> &touched,
                CellColoringRule first_rule = CellColoringRule::parity);
  } // namespace internal
} // namespace gpumf

#endif
