// cuSPARSE behind gpumf::SparseMatrix (sparse_matrix_cusparse.cu); the host reference is the
// row loop in sparse_matrix.cc.
#ifndef gpumf_source_sparse_matrix_cusparse_h
#define gpumf_source_sparse_matrix_cusparse_h

#include <gpumf/backend.h>

#include <cstddef>
#include <memory>

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      /// CSR arrays in device memory (32-bit or, if wide, 64-bit row offsets and columns).
      template <typename Number>
      struct CsrView
      {
        std::size_t n_rows, n_nonzeros;
        Number *    values;
        void *      row_offsets;
        void *      columns;
        bool        wide;
      };

      /// cuSPARSE's handle, the matrix descriptor and the SpMV work buffer (sized at the first vmult).
      struct SparseMatrixHandle
      {
        void *      handle       = nullptr; // cusparseHandle_t
        void *      matrix       = nullptr; // cusparseSpMatDescr_t
        void *      buffer       = nullptr; // device memory
        std::size_t buffer_bytes = 0;
        std::size_t n_rows       = 0;
        bool        buffer_sized = false;
        ~SparseMatrixHandle();
      };

      template <typename Number>
      std::unique_ptr<SparseMatrixHandle>
      create_sparse_matrix_handle(const CsrView<Number> &csr);

      /// dst = A src with cusparseSpMV (device pointers).
      template <typename Number>
      void
      sparse_matrix_vmult(SparseMatrixHandle &matrix, const Number *src, Number *dst);

      inline std::size_t
      work_buffer_bytes(const SparseMatrixHandle &matrix)
      {
        return matrix.buffer_bytes;
      }

#if !GPUMF_WITH_CUDA
      // no handle exists without CUDA (sparse_matrix.cc creates one through GPUMF_CUDA), but
      // gpumf::SparseMatrix's std::unique_ptr needs the destructor
      inline SparseMatrixHandle::~SparseMatrixHandle() = default;
#endif
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
