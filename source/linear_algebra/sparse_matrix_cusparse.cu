// gpumf::SparseMatrix on the GPU: cuSPARSE's generic SpMV on CSR (the assembled-matrix baseline).
#include <gpumf/internal/cuda_check.h>
#include <gpumf/internal/memory.h>

#include <cusparse.h>

#include <type_traits>

#include "linear_algebra/sparse_matrix_cusparse.h"

#define GPUMF_CHECK_CUSPARSE(call)                                                      \
  do                                                                                    \
    {                                                                                   \
      const cusparseStatus_t gpumf_status_ = (call);                                    \
      AssertThrow(gpumf_status_ == CUSPARSE_STATUS_SUCCESS,                             \
                  ::gpumf::ExcCudaError(#call, cusparseGetErrorString(gpumf_status_))); \
    }                                                                                   \
  while (false)

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        template <typename Number>
        constexpr cudaDataType
        data_type()
        {
          return std::is_same_v<Number, double> ? CUDA_R_64F : CUDA_R_32F;
        }
      } // namespace

    } // namespace cuda

    SparseMatrixHandle::~SparseMatrixHandle()
    {
      // no throwing from a destructor: errors here leave nothing to recover
      if (matrix != nullptr)
        cusparseDestroySpMat(static_cast<cusparseSpMatDescr_t>(matrix));
      if (handle != nullptr)
        cusparseDestroy(static_cast<cusparseHandle_t>(handle));
      if (buffer != nullptr)
        cudaFree(buffer);
    }

    namespace cuda
    {

      template <typename Number>
      std::unique_ptr<SparseMatrixHandle>
      sparse_matrix_handle(const CsrView<Number> &csr)
      {
        auto             result = std::make_unique<SparseMatrixHandle>();
        cusparseHandle_t handle = nullptr;
        GPUMF_CHECK_CUSPARSE(cusparseCreate(&handle));
        result->handle                   = handle;
        result->n_rows                   = csr.n_rows;
        const cusparseIndexType_t index  = csr.wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
        cusparseSpMatDescr_t      matrix = nullptr;
        GPUMF_CHECK_CUSPARSE(cusparseCreateCsr(&matrix,
                                               csr.n_rows,
                                               csr.n_rows,
                                               csr.n_nonzeros,
                                               csr.row_offsets,
                                               csr.columns,
                                               csr.values,
                                               index,
                                               index,
                                               CUSPARSE_INDEX_BASE_ZERO,
                                               data_type<Number>()));
        result->matrix = matrix;
        return result;
      }

      template <typename Number>
      void
      sparse_matrix_vmult(const CsrView<Number> &, SparseMatrixHandle *state, const Number *src, Number *dst)
      {
        SparseMatrixHandle  &m   = *state;
        const Number         one = 1, zero = 0;
        cusparseDnVecDescr_t x = nullptr, y = nullptr;
        GPUMF_CHECK_CUSPARSE(cusparseCreateDnVec(&x, m.n_rows, const_cast<Number *>(src), data_type<Number>()));
        GPUMF_CHECK_CUSPARSE(cusparseCreateDnVec(&y, m.n_rows, dst, data_type<Number>()));
        const auto handle = static_cast<cusparseHandle_t>(m.handle);
        const auto matrix = static_cast<cusparseSpMatDescr_t>(m.matrix);
        if (!m.buffer_sized)
          {
            std::size_t bytes = 0;
            GPUMF_CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle,
                                                         CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                         &one,
                                                         matrix,
                                                         x,
                                                         &zero,
                                                         y,
                                                         data_type<Number>(),
                                                         CUSPARSE_SPMV_ALG_DEFAULT,
                                                         &bytes));
            if (bytes > 0)
              m.buffer = allocate(Backend::cuda, bytes);
            m.buffer_bytes = bytes;
            m.buffer_sized = true;
          }
        GPUMF_CHECK_CUSPARSE(cusparseSpMV(handle,
                                          CUSPARSE_OPERATION_NON_TRANSPOSE,
                                          &one,
                                          matrix,
                                          x,
                                          &zero,
                                          y,
                                          data_type<Number>(),
                                          CUSPARSE_SPMV_ALG_DEFAULT,
                                          m.buffer));
        cusparseDestroyDnVec(x);
        cusparseDestroyDnVec(y);
      }

      GPUMF_SPARSE_MATRIX_KERNELS(float, template)
      GPUMF_SPARSE_MATRIX_KERNELS(double, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
