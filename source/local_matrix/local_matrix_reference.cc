// The naive host reference of LocalMatrixOperator's kernel (local_matrix_kernels.h): C_K^T A_K C_K,
// cell by cell, the diagonal by the general formula everywhere.
#include <gpumf/internal/diagonal.h>

#include "local_matrix/local_matrix_kernels.h"

namespace gpumf
{
  namespace internal
  {
    template <typename Number>
    std::vector<Number>
    on_the_fly_matrix(const LocalMatrixLaunch<Number> &launch, const unsigned int cell)
    {
      const unsigned int n = launch.n;
      Number             factors[OnTheFly<Number>::max_terms];
      on_the_fly_factors(launch.on_the_fly, cell, factors);
      std::vector<Number> A(std::size_t(n) * n);
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          A[i * n + j] = on_the_fly_entry(launch.on_the_fly, cell, factors, i, j);
      return A;
    }

    template std::vector<float>
    on_the_fly_matrix(const LocalMatrixLaunch<float> &, unsigned int);
    template std::vector<double>
    on_the_fly_matrix(const LocalMatrixLaunch<double> &, unsigned int);

    namespace host
    {
      template <typename Number>
      void
      local_matrix_apply(const LocalMatrixLaunch<Number> &launch, const Number *src, Number *dst)
      {
        const unsigned int  n      = launch.n;
        const auto          add_to = [dst](const unsigned int index, const Number value) { dst[index] += value; };
        std::vector<Number> v(n);
        for (unsigned int cell = launch.first_cell; cell < launch.first_cell + launch.n_cells; ++cell)
          {
            const unsigned int *codes = launch.local_to_global + std::size_t(cell) * n;
            std::vector<Number> computed;
            if (launch.matrices == nullptr)
              computed = on_the_fly_matrix(launch, cell);
            const Number *A = launch.matrices == nullptr ?
                                computed.data() :
                                launch.matrices + (launch.shared_matrix ? 0 : std::size_t(cell) * n * n);
            if (launch.diagonal_only)
              {
                for (unsigned int j = 0; j < n; ++j)
                  distribute_diagonal_column<Number>(
                    j,
                    n,
                    [&](const unsigned int k) { return codes[k]; },
                    [&](const unsigned int k) { return A[k * n + j]; },
                    launch.rows,
                    add_to);
                continue;
              }
            for (unsigned int j = 0; j < n; ++j)
              v[j] = read_dof(src, codes[j], launch.rows);
            for (unsigned int i = 0; i < n; ++i)
              {
                Number sum = 0;
                for (unsigned int j = 0; j < n; ++j)
                  sum += (launch.transpose ? A[j * n + i] : A[i * n + j]) * v[j];
                distribute_dof(codes[i], sum, launch.rows, add_to);
              }
          }
      }

      GPUMF_LOCAL_MATRIX_KERNELS(float, template)
      GPUMF_LOCAL_MATRIX_KERNELS(double, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
