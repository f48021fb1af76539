// Element matrices from deal.II's FEValues, the one place the library assembles them
// (LocalMatrixOperator, StencilOperator, MultiColorGaussSeidel). Internal to the library.
#ifndef gpumf_source_local_matrix_element_matrices_h
#define gpumf_source_local_matrix_element_matrices_h

#include <deal.II/base/quadrature.h>
#include <deal.II/base/work_stream.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/full_matrix.h>

#include <limits>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// Adds the Laplacian (grad u, grad v) of the cell that @p fe_values is reinit on to @p matrix.
    template <int dim>
    void
    add_laplace_matrix(const dealii::FEValues<dim> &fe_values, dealii::FullMatrix<double> &matrix)
    {
      const unsigned int n = fe_values.get_fe().n_dofs_per_cell();
      for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
        for (unsigned int i = 0; i < n; ++i)
          for (unsigned int j = 0; j < n; ++j)
            matrix(i, j) += (fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q)) * fe_values.JxW(q);
    }

    /**
     * The element matrices of the cells of @p cells for which @p wanted(position) holds, computed
     * in deal.II's threads (WorkStream: one FEValues with values, gradients, JxW and points per
     * thread) by @p compute(cell, fe_values, matrix) on a zeroed matrix, and handed to
     * @p use(position, matrix) one at a time in the order of @p cells (so that sums over cells
     * are the same for any number of threads). @p compute must be safe to call from several
     * threads at once.
     */
    template <int dim, typename CellIterator, typename Wanted, typename Compute, typename Use>
    void
    for_each_element_matrix(const dealii::Mapping<dim>       &mapping,
                            const dealii::FiniteElement<dim> &fe,
                            const dealii::Quadrature<dim>    &quadrature,
                            const std::vector<CellIterator>  &cells,
                            const Wanted                     &wanted,
                            const Compute                    &compute,
                            const Use                        &use)
    {
      using namespace dealii;
      constexpr unsigned int none = std::numeric_limits<unsigned int>::max();
      struct Scratch
      {
        FEValues<dim>      values;
        FullMatrix<double> matrix;
        Scratch(const Mapping<dim> &m, const FiniteElement<dim> &element, const Quadrature<dim> &q)
          : values(m, element, q, update_values | update_gradients | update_JxW_values | update_quadrature_points)
          , matrix(element.n_dofs_per_cell(), element.n_dofs_per_cell())
        {}
        Scratch(const Scratch &other)
          : values(other.values.get_mapping(),
                   other.values.get_fe(),
                   other.values.get_quadrature(),
                   other.values.get_update_flags())
          , matrix(other.matrix)
        {}
      };
      struct Copy
      {
        unsigned int       position = none;
        FullMatrix<double> matrix;
      };
      using Iterator = typename std::vector<CellIterator>::const_iterator;
      WorkStream::run(
        Iterator(cells.begin()),
        Iterator(cells.end()),
        [&](const Iterator &it, Scratch &scratch, Copy &copy) {
          const unsigned int position = it - cells.begin();
          copy.position               = none;
          if (!wanted(position))
            return;
          scratch.values.reinit(typename Triangulation<dim>::cell_iterator(*it));
          scratch.matrix = 0;
          compute(*it, scratch.values, scratch.matrix);
          copy.position = position;
          copy.matrix   = scratch.matrix;
        },
        [&](const Copy &copy) {
          if (copy.position != none)
            use(copy.position, copy.matrix);
        },
        Scratch(mapping, fe, quadrature),
        Copy{none, FullMatrix<double>(fe.n_dofs_per_cell(), fe.n_dofs_per_cell())});
    }
  } // namespace internal
} // namespace gpumf

#endif
