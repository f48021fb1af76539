/**
 * @file source/core/coloring.h
 * Integer coordinates of the cells of a logically Cartesian mesh, for parity colorings
 * (MatrixFree's Cartesian cell coloring, the multi-color Gauss-Seidel's point colors).
 */
#ifndef gpumf_source_core_coloring_h
#define gpumf_source_core_coloring_h

#include <deal.II/grid/tria.h>

#include <array>
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
    cartesian_coordinates(const dealii::Triangulation<dim> &                                   tria,
                          const std::vector<typename dealii::Triangulation<dim>::cell_iterator> &cells);

    /**
     * The positions 0, 1, ... of @p coordinates grouped by the parity of their coordinates, one
     * group per parity pattern that occurs (at most 2^dim, in the order of the pattern's bits):
     * two cells of one group are two cells apart in some direction and share no vertex.
     */
    template <int dim>
    std::vector<std::vector<unsigned int>>
    parity_colors(const std::vector<std::array<long, dim>> &coordinates);
  } // namespace internal
} // namespace gpumf

#endif
