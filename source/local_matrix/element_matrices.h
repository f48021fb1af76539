// Element matrices shared by the Q1 operators that assemble rows (MultiColorGaussSeidel,
// StencilOperator). Internal to the library.
#ifndef gpumf_source_element_matrices_h
#define gpumf_source_element_matrices_h

#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/full_matrix.h>

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
  } // namespace internal
} // namespace gpumf

#endif
