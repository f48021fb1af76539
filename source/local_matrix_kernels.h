// CUDA kernels of gpumf::LocalMatrixOperator (local_matrix_kernels.cu); the host reference
// is the loop in local_matrix_operator.cc.
#ifndef gpumf_source_local_matrix_kernels_h
#define gpumf_source_local_matrix_kernels_h

#include <gpumf/internal/dof_access.h>

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      /// What one launch over the cells of one color does.
      template <typename Number>
      struct LocalMatrixLaunch
      {
        const unsigned int *local_to_global; ///< codes of all cells, n per cell (internal/dof_access.h)
        ConstraintRows<Number> rows;          ///< the constraint table of the codes
        const unsigned char *cell_has_rows;   ///< per cell: a DoF is a constraint row
        bool                 has_rows;        ///< some cell of the launch has constraint rows
        const Number *      matrices;        ///< shared (one matrix) or per cell
        bool                shared_matrix;
        unsigned int        n;               ///< DoFs per cell
        unsigned int        first_cell;      ///< the color's first cell
        unsigned int        n_cells;         ///< cells in the color
        bool                atomic;          ///< atomicAdd (no coloring)
        bool                transpose;       ///< A^T instead of A
        bool                diagonal_only;   ///< dst += diag(C^T A C) (src unused)
      };

      /// dst += C_K^T A_K C_K src for the cells of one color (C_K: the cell's DoF codes), one thread per cell.
      template <typename Number>
      void
      local_matrix_thread_per_element(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst);

      /// The same with one block per cell and one thread per row.
      template <typename Number>
      void
      local_matrix_block_per_element(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
