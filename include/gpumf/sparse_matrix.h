/**
 * @file gpumf/sparse_matrix.h
 * gpumf::SparseMatrix: an assembled sparse matrix in CSR format applied on the GPU with
 * cuSPARSE (or by the naive host loop of the host backend). It mirrors deal.II's
 * CUDAWrappers::SparseMatrix: a deal.II SparseMatrix assembled on the host is copied once and
 * applied to gpumf vectors, e.g. inside deal.II's SolverCG. It is the baseline the matrix-free
 * operators are measured against (doc/performance.md, "Assembled matrices").
 */
#ifndef gpumf_sparse_matrix_h
#define gpumf_sparse_matrix_h

#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>
#include <gpumf/vector.h>

#include <deal.II/lac/sparse_matrix.h>

#include <cstdint>
#include <memory>

namespace gpumf
{
  namespace internal
  {
    struct SparseMatrixHandle;
    template <typename Number>
    struct CsrView;
  } // namespace internal

  /**
   * A square sparse matrix in compressed row storage on one backend, for vectors of one rank
   * (a serial gpumf::Vector: one MPI rank, no ghosts). On the CUDA backend vmult() is
   * cusparseSpMV() of cuSPARSE's generic API (CSR, CUSPARSE_SPMV_ALG_DEFAULT); on the host
   * backend a plain loop over the rows, the reference the GPU result is tested against.
   *
   * Storage: the values (sizeof(Number) per nonzero), the column indices and the row offsets
   * as 32-bit integers while the number of nonzeros fits into them, else as 64-bit integers
   * (cuSPARSE takes both of one width). memory_needed() says in advance how many bytes that is;
   * reinit() checks them against the free GPU memory before it allocates and throws
   * ExcMatrixDoesNotFit, naming the bytes needed, when they are not there.
   */
  template <typename Number>
  class SparseMatrix : public internal::EnableObserverPointer
  {
  public:
    using value_type = Number;
    using size_type  = dealii::types::global_dof_index;

    SparseMatrix();
    ~SparseMatrix();
    SparseMatrix(const SparseMatrix &) = delete;
    SparseMatrix &
    operator=(const SparseMatrix &) = delete;

    /// The width of the stored row offsets and column indices.
    enum class IndexWidth
    {
      automatic, ///< 32 bits while the nonzeros fit, else 64
      bits64     ///< 64 bits always (more bytes per nonzero; for tests of that path)
    };

    /**
     * Copies @p matrix (square, its sparsity pattern compressed) into the memory of
     * @p backend. deal.II keeps the diagonal entry first in each row; the copy sorts every
     * row by column, as cuSPARSE expects.
     */
    void
    reinit(const dealii::SparseMatrix<Number> &matrix,
           const Backend                       backend     = default_backend(),
           const IndexWidth                    index_width = IndexWidth::automatic);

    /// dst = A src. Both vectors serial, on this matrix's backend, of size n().
    void
    vmult(Vector<Number> &dst, const Vector<Number> &src) const;

    /// Rows (= columns).
    size_type
    m() const;

    size_type
    n() const;

    /// Stored entries.
    std::size_t
    n_nonzero_elements() const;

    /// Bytes of the CSR arrays and cuSPARSE's work buffer in the backend's memory.
    std::size_t
    memory_consumption() const;

    /// Bytes one application reads and writes at least: the CSR arrays once, src once, dst once.
    double
    bytes_per_vmult() const;

    Backend
    backend() const;

    /**
     * Bytes of the CSR arrays of a matrix with @p n_rows rows and @p n_nonzeros entries
     * (what reinit() will allocate, before cuSPARSE's work buffer of a few bytes per row).
     */
    static std::size_t
    memory_needed(const size_type   n_rows,
                  const std::size_t n_nonzeros,
                  const IndexWidth  index_width = IndexWidth::automatic);

  private:
    /// The CSR arrays as the kernels take them.
    internal::CsrView<Number>
    csr() const;

    /// The copy of reinit() for one index width.
    template <typename Index>
    void
    copy_rows(const dealii::SparseMatrix<Number> &matrix,
              internal::Array<Index>             &row_offsets,
              internal::Array<Index>             &columns);

    Backend     backend_     = Backend::host;
    size_type   n_rows       = 0;
    std::size_t n_nonzeros   = 0;
    bool        wide_indices = false;

    internal::Array<Number>       values;
    internal::Array<std::int32_t> row_offsets32, columns32;
    internal::Array<std::int64_t> row_offsets64, columns64;

    /// cuSPARSE's handle, matrix descriptor and work buffer (CUDA backend).
    std::unique_ptr<internal::SparseMatrixHandle> cusparse;
  };

  /// @name Exceptions
  /// @{
  DeclException5(ExcMatrixDoesNotFit,
                 std::size_t,
                 std::size_t,
                 std::size_t,
                 std::size_t,
                 std::size_t,
                 << "The sparse matrix of " << arg1 << " rows and " << arg2 << " nonzeros needs " << arg3
                 << " bytes of GPU memory, but " << arg4 << " of " << arg5
                 << " bytes are free. A matrix-free operator (gpumf::MatrixFree with a ready operator)"
                    " needs far fewer bytes per unknown; or solve a smaller problem, or spread it over"
                    " more GPUs with a matrix-free operator.");
  /// @}
} // namespace gpumf

#endif
