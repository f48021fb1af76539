// The naive host reference of gpumf::SparseMatrix's kernels (sparse_matrix_cusparse.h): row after
// row, entry after entry.
#include <cstdint>

#include "linear_algebra/sparse_matrix_cusparse.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      namespace
      {
        template <typename Index, typename Number>
        void
        rows_times(const CsrView<Number> &csr, const Number *src, Number *dst)
        {
          const Index *row_offsets = static_cast<const Index *>(csr.row_offsets);
          const Index *columns     = static_cast<const Index *>(csr.columns);
          for (std::size_t i = 0; i < csr.n_rows; ++i)
            {
              Number sum = 0;
              for (Index k = row_offsets[i]; k < row_offsets[i + 1]; ++k)
                sum += csr.values[k] * src[columns[k]];
              dst[i] = sum;
            }
        }
      } // namespace

      template <typename Number>
      std::unique_ptr<SparseMatrixHandle>
      sparse_matrix_handle(const CsrView<Number> &)
      {
        return nullptr;
      }

      template <typename Number>
      void
      sparse_matrix_vmult(const CsrView<Number> &csr, SparseMatrixHandle *, const Number *src, Number *dst)
      {
        if (csr.wide)
          rows_times<std::int64_t>(csr, src, dst);
        else
          rows_times<std::int32_t>(csr, src, dst);
      }

      GPUMF_SPARSE_MATRIX_KERNELS(float, template)
      GPUMF_SPARSE_MATRIX_KERNELS(double, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
