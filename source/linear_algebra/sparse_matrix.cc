// gpumf::SparseMatrix: the copy of a deal.II SparseMatrix into CSR arrays of a backend; its product
// runs sparse_matrix_cusparse.h's kernel (cuSPARSE, or the host reference).
#include <gpumf/cost_model.h>
#include <gpumf/sparse_matrix.h>

#include <algorithm>
#include <limits>

#include "linear_algebra/sparse_matrix_cusparse.h"

namespace gpumf
{
  namespace
  {
    /// Whether @p n_nonzeros entries need 64-bit row offsets (and so, for cuSPARSE, 64-bit columns).
    bool
    needs_wide_indices(const std::size_t n_nonzeros)
    {
      return n_nonzeros > std::size_t(std::numeric_limits<std::int32_t>::max());
    }

  } // namespace

  template <typename Number>
  SparseMatrix<Number>::SparseMatrix() = default;

  template <typename Number>
  internal::CsrView<Number>
  SparseMatrix<Number>::csr() const
  {
    return {n_rows,
            n_nonzeros,
            const_cast<Number *>(values.data()),
            wide_indices ? static_cast<void *>(const_cast<std::int64_t *>(row_offsets64.data())) :
                           static_cast<void *>(const_cast<std::int32_t *>(row_offsets32.data())),
            wide_indices ? static_cast<void *>(const_cast<std::int64_t *>(columns64.data())) :
                           static_cast<void *>(const_cast<std::int32_t *>(columns32.data())),
            wide_indices};
  }

  template <typename Number>
  SparseMatrix<Number>::~SparseMatrix() = default;

  template <typename Number>
  std::size_t
  SparseMatrix<Number>::memory_needed(const size_type   n_rows,
                                      const std::size_t n_nonzeros,
                                      const IndexWidth  index_width)
  {
    const std::size_t index = index_width == IndexWidth::bits64 || needs_wide_indices(n_nonzeros) ? 8 : 4;
    return n_nonzeros * (sizeof(Number) + index) + (n_rows + 1) * index;
  }

  template <typename Number>
  template <typename Index>
  void
  SparseMatrix<Number>::copy_rows(const dealii::SparseMatrix<Number> &matrix,
                                  internal::Array<Index>             &row_offsets,
                                  internal::Array<Index>             &columns)
  {
    const auto                               &pattern = matrix.get_sparsity_pattern();
    std::vector<Index>                        offsets(n_rows + 1, 0);
    std::vector<Index>                        cols(n_nonzeros);
    std::vector<Number>                       vals(n_nonzeros);
    std::vector<std::pair<size_type, Number>> row;
    for (size_type i = 0; i < n_rows; ++i)
      {
        const std::size_t first = offsets[i], length = pattern.row_length(i);
        offsets[i + 1] = Index(first + length);
        // deal.II stores the diagonal first: sort the row by column
        row.clear();
        for (auto it = matrix.begin(i); it != matrix.end(i); ++it)
          row.emplace_back(it->column(), it->value());
        std::sort(row.begin(), row.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (std::size_t k = 0; k < row.size(); ++k)
          cols[first + k] = Index(row[k].first), vals[first + k] = row[k].second;
      }
    row_offsets.reinit(backend_, offsets);
    columns.reinit(backend_, cols);
    values.reinit(backend_, vals);
  }

  template <typename Number>
  void
  SparseMatrix<Number>::reinit(const dealii::SparseMatrix<Number> &matrix,
                               const Backend                       backend,
                               const IndexWidth                    index_width)
  {
    AssertThrow(matrix.m() == matrix.n(),
                ExcNotSupported("gpumf::SparseMatrix takes square matrices; this one has " +
                                std::to_string(matrix.m()) + " rows and " + std::to_string(matrix.n()) + " columns."));
    AssertThrow(matrix.get_sparsity_pattern().is_compressed(),
                ExcNotSupported("gpumf::SparseMatrix takes a matrix whose SparsityPattern is compressed."));
    // free the old arrays first: the new ones may need all of the GPU
    values.clear(), row_offsets32.clear(), columns32.clear(), row_offsets64.clear(), columns64.clear();
    cusparse.reset();
    backend_     = backend;
    n_rows       = matrix.m();
    n_nonzeros   = matrix.n_nonzero_elements(); // the entries of the pattern
    wide_indices = index_width == IndexWidth::bits64 || needs_wide_indices(n_nonzeros);
    if (backend == Backend::cuda)
      {
        std::size_t free_bytes = 0, total_bytes = 0;
        internal::device_memory_info(free_bytes, total_bytes);
        const std::size_t needed = memory_needed(n_rows, n_nonzeros, index_width);
        AssertThrow(needed < free_bytes, ExcMatrixDoesNotFit(n_rows, n_nonzeros, needed, free_bytes, total_bytes));
      }
    if (wide_indices)
      copy_rows(matrix, row_offsets64, columns64);
    else
      copy_rows(matrix, row_offsets32, columns32);
    cusparse = GPUMF_DISPATCH(backend, sparse_matrix_handle(csr()));
  }

  template <typename Number>
  void
  SparseMatrix<Number>::vmult(Vector<Number> &dst, const Vector<Number> &src) const
  {
    for (const Vector<Number> *v : {static_cast<const Vector<Number> *>(&dst), &src})
      {
        AssertThrow(v->size() == n_rows && v->locally_owned_size() == n_rows,
                    ExcNotSupported("gpumf::SparseMatrix::vmult takes serial vectors (one MPI rank) of the "
                                    "matrix's size " +
                                    std::to_string(n_rows) + "; got one of size " + std::to_string(v->size()) +
                                    " with " + std::to_string(v->locally_owned_size()) + " entries on this rank."));
        AssertThrow(v->backend() == backend_,
                    ExcVectorMismatch("a vector on the " + to_string(v->backend()) + " backend",
                                      "the matrix on the " + to_string(backend_) + " backend"));
      }
    GPUMF_DISPATCH(backend_, sparse_matrix_vmult(csr(), cusparse.get(), src.get_values(), dst.get_values()));
  }

  template <typename Number>
  typename SparseMatrix<Number>::size_type
  SparseMatrix<Number>::m() const
  {
    return n_rows;
  }

  template <typename Number>
  typename SparseMatrix<Number>::size_type
  SparseMatrix<Number>::n() const
  {
    return n_rows;
  }

  template <typename Number>
  std::size_t
  SparseMatrix<Number>::n_nonzero_elements() const
  {
    return n_nonzeros;
  }

  template <typename Number>
  std::size_t
  SparseMatrix<Number>::memory_consumption() const
  {
    return values.memory_consumption() + row_offsets32.memory_consumption() + columns32.memory_consumption() +
           row_offsets64.memory_consumption() + columns64.memory_consumption() +
           (cusparse ? internal::work_buffer_bytes(*cusparse) : 0);
  }

  template <typename Number>
  double
  SparseMatrix<Number>::bytes_per_vmult() const
  {
    const double stored =
      double(memory_needed(n_rows, n_nonzeros, wide_indices ? IndexWidth::bits64 : IndexWidth::automatic));
    return RowTraffic{double(n_rows), double(n_nonzeros), stored, sizeof(Number)}.vmult_bytes();
  }

  template <typename Number>
  Backend
  SparseMatrix<Number>::backend() const
  {
    return backend_;
  }

  template class SparseMatrix<double>;
  template class SparseMatrix<float>;
} // namespace gpumf
