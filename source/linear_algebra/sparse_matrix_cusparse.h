// The kernels of gpumf::SparseMatrix: the naive host reference in sparse_matrix_reference.cc, cuSPARSE
// in sparse_matrix_cusparse.cu (core/executor.h: one list, both executors).
#ifndef gpumf_source_linear_algebra_sparse_matrix_cusparse_h
#define gpumf_source_linear_algebra_sparse_matrix_cusparse_h

#include <gpumf/backend.h>

#include <cstddef>
#include <memory>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    /// CSR arrays in the backend's memory (32-bit or, if wide, 64-bit row offsets and columns).
    template <typename Number>
    struct CsrView
    {
      std::size_t n_rows, n_nonzeros;
      Number     *values;
      void       *row_offsets;
      void       *columns;
      bool        wide;
    };

    /// cuSPARSE's handle, the matrix descriptor and the SpMV work buffer (sized at the first vmult).
    struct SparseMatrixHandle
    {
      void       *handle       = nullptr; // cusparseHandle_t
      void       *matrix       = nullptr; // cusparseSpMatDescr_t
      void       *buffer       = nullptr; // device memory
      std::size_t buffer_bytes = 0;
      std::size_t n_rows       = 0;
      bool        buffer_sized = false;
      ~SparseMatrixHandle();
    };

    inline std::size_t
    work_buffer_bytes(const SparseMatrixHandle &matrix)
    {
      return matrix.buffer_bytes;
    }

#if !GPUMF_WITH_CUDA
    // no handle exists without CUDA (the host reference makes none), but gpumf::SparseMatrix's
    // std::unique_ptr needs the destructor
    inline SparseMatrixHandle::~SparseMatrixHandle() = default;
#endif
  } // namespace internal
} // namespace gpumf

#define GPUMF_SPARSE_MATRIX_KERNELS(Number, TEMPLATE)                                                 \
  /* what the implementation keeps between products (cuSPARSE: handle, descriptor, work buffer; host: \
     nothing) */                                                                                      \
  TEMPLATE std::unique_ptr<SparseMatrixHandle> sparse_matrix_handle(const CsrView<Number> &csr);      \
  /* dst = A src */                                                                                   \
  TEMPLATE void sparse_matrix_vmult(const CsrView<Number> &csr,                                       \
                                    SparseMatrixHandle    *handle,                                    \
                                    const Number          *src,                                       \
                                    Number                *dst);

GPUMF_DECLARE_KERNELS(GPUMF_SPARSE_MATRIX_KERNELS(Number, template <typename Number>))

#endif
