/**
 * @file gpumf/internal/dense_solve.h
 * Gaussian elimination with partial pivoting on a small dense system: the host references of
 * the cell-wise inverses (CellwiseInverseMassMatrix, TensorProductMatrixSymmetricSumCollection),
 * deliberately naive and independent of the GPU's tensor-product factorizations.
 */
#ifndef gpumf_internal_dense_solve_h
#define gpumf_internal_dense_solve_h

#include <gpumf/backend.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// Solves matrix x = rhs (n x n, row-major) in place: rhs becomes x; @p what names the
    /// caller in the exception a singular matrix throws.
    inline void
    solve_dense(std::vector<double> &matrix, std::vector<double> &rhs, const char *what)
    {
      const unsigned int n = rhs.size();
      for (unsigned int k = 0; k < n; ++k)
        {
          unsigned int pivot = k;
          for (unsigned int r = k + 1; r < n; ++r)
            if (std::abs(matrix[r * n + k]) > std::abs(matrix[pivot * n + k]))
              pivot = r;
          AssertThrow(matrix[pivot * n + k] != 0., ExcNotSupported(std::string(what) + ": the matrix is singular."));
          if (pivot != k)
            {
              for (unsigned int j = 0; j < n; ++j)
                std::swap(matrix[k * n + j], matrix[pivot * n + j]);
              std::swap(rhs[k], rhs[pivot]);
            }
          for (unsigned int r = k + 1; r < n; ++r)
            {
              const double factor = matrix[r * n + k] / matrix[k * n + k];
              for (unsigned int j = k; j < n; ++j)
                matrix[r * n + j] -= factor * matrix[k * n + j];
              rhs[r] -= factor * rhs[k];
            }
        }
      for (unsigned int k = n; k-- > 0;)
        {
          double sum = rhs[k];
          for (unsigned int j = k + 1; j < n; ++j)
            sum -= matrix[k * n + j] * rhs[j];
          rhs[k] = sum / matrix[k * n + k];
        }
    }
  } // namespace internal
} // namespace gpumf

#endif
