/**
 * @file gpumf/internal/diagonal.h
 * The inverse of an operator diagonal, as a deal.II DiagonalMatrix on gpumf vectors.
 */
#ifndef gpumf_internal_diagonal_h
#define gpumf_internal_diagonal_h

#include <gpumf/vector.h>

#include <deal.II/lac/diagonal_matrix.h>

#include <memory>

namespace gpumf
{
  namespace internal
  {
    /// 1/d entry by entry (1 where d is zero), through the host: a setup step.
    template <typename Number>
    std::shared_ptr<dealii::DiagonalMatrix<Vector<Number>>>
    inverse_diagonal(const Vector<Number> &diagonal)
    {
      dealii::LinearAlgebra::ReadWriteVector<Number> entries(diagonal.locally_owned_elements());
      diagonal.export_to(entries, dealii::VectorOperation::insert);
      for (const auto i : entries.get_stored_elements())
        entries(i) = entries(i) != Number() ? Number(1) / entries(i) : Number(1);
      auto inverse = std::make_shared<dealii::DiagonalMatrix<Vector<Number>>>();
      inverse->get_vector().reinit(diagonal);
      inverse->get_vector().import(entries, dealii::VectorOperation::insert);
      return inverse;
    }
  } // namespace internal
} // namespace gpumf

#endif
