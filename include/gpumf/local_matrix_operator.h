/**
 * @file gpumf/local_matrix_operator.h
 * gpumf::LocalMatrixOperator: an operator applied through dense element matrices,
 * u_K = A_K v_K per cell, gathered and scattered like the tensor-product operators.
 * There is no direct deal.II equivalent (deal.II assembles a global SparseMatrix instead).
 */
#ifndef gpumf_local_matrix_operator_h
#define gpumf_local_matrix_operator_h

#include <gpumf/internal/dealii_compat.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/full_matrix.h>

#include <functional>
#include <memory>

namespace gpumf
{
  namespace internal
  {
    template <typename Number>
    struct LocalMatrixLaunch;
  } // namespace internal

  /**
   * A matrix-free operator stored as one dense matrix per cell, or one matrix shared by all
   * cells when their matrices agree (translations of one another: a uniform Cartesian mesh
   * with constant coefficients), or with the matrices computed in the kernel at every
   * application and not stored (Storage::on_the_fly). The stored element matrices come from
   * deal.II's FEValues through a cell-matrix callback (any bilinear form; mass(), laplace() and
   * helmholtz() are provided). DoF indices, colors and constraints are those of a
   * gpumf::MatrixFree object.
   *
   * <b>On the fly.</b> The kernel computes entry (i, j) of a cell's matrix of the form
   * laplace_coefficient (grad u, grad v) + mass_coefficient (u, v) (AdditionalData; per component,
   * constant coefficients; the kernel cannot call the host callback) from the cell's geometry in
   * the MatrixFree object and the shape data, multiplies it with the cell's vector at once and
   * keeps nothing: with affine geometry (MatrixFree's GeometryStorage::affine: one inverse
   * Jacobian and determinant per cell) as 1 + dim (dim + 1)/2 per-cell factors times reference
   * matrices shared by all cells (2 (1 + dim (dim + 1)/2) flops per entry), with per-point
   * geometry by summing over the quadrature points from the 1D shape tables (each entry costs
   * n_q^dim points). reinit() compares the callback's matrix of the first cell of every color
   * with the computed one and throws where they differ (another form, a varying coefficient).
   *
   * Layout of the matrices (n = DoFs per cell, local DoFs component-major and lexicographic
   * within a component, as MatrixFree::Data::local_to_global):
   * @verbatim
   *   shared:    A[i * n + j]               one n x n matrix
   *   per cell:  A[(c * n + i) * n + j]     cell c in the order of the colors
   * @endverbatim
   * Kernels: thread per element (a thread does a whole cell; n <= 64), warp per element (a warp
   * per cell, a lane per row and more rows per lane beyond 32; n <= 768) or block per element
   * (a block per cell, a thread per row, the cell's vector in shared memory; n <= 1024).
   */
  template <int dim, typename Number = double>
  class LocalMatrixOperator : public internal::EnableObserverPointer
  {
  public:
    using VectorType    = Vector<Number>;
    using size_type     = typename VectorType::size_type;
    using cell_iterator = typename dealii::DoFHandler<dim>::active_cell_iterator;
    /// Fills the element matrix (deal.II's DoF order of the cell) from FEValues reinit on the cell;
    /// called from deal.II's threads (several cells at once).
    using CellMatrixFunction =
      std::function<void(const cell_iterator &, const dealii::FEValues<dim> &, dealii::FullMatrix<double> &)>;

    enum class Storage
    {
      automatic, ///< shared when all element matrices agree, else per cell
      shared,    ///< one matrix (throws if the element matrices differ)
      per_cell,
      on_the_fly ///< computed in the kernel at every application (class documentation); nothing stored
    };

    enum class Kernel
    {
      automatic, ///< thread per element for n <= 32 DoFs per cell, else block per element
      thread_per_element,
      block_per_element,
      warp_per_element
    };

    struct AdditionalData
    {
      typename MatrixFree<dim, Number>::AdditionalData matrix_free;
      Storage                                          storage = Storage::automatic;
      Kernel                                           kernel  = Kernel::automatic;
      /// Storage::on_the_fly: the form's constant coefficients, laplace_coefficient (grad u, grad v)
      /// + mass_coefficient (u, v); they must give the callback's matrices (checked on a cell of each color).
      double laplace_coefficient = 1.;
      double mass_coefficient    = 0.;
    };

    /// Computes the element matrices of every locally owned cell with @p cell_matrix.
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const dealii::Quadrature<1>             &quad,
           const CellMatrixFunction                &cell_matrix,
           const AdditionalData                    &additional_data = AdditionalData());

    /// A coefficient at quadrature point q of a cell (for coefficient_form()).
    using PointCoefficient = std::function<double(const cell_iterator &, unsigned int q, const dealii::Point<dim> &)>;

    /**
     * (kappa grad u, grad v) + (a u, v) per component, each term only where its coefficient
     * is given (non-empty).
     */
    static CellMatrixFunction
    coefficient_form(const PointCoefficient &kappa, const PointCoefficient &a);

    /// (a u, v) per component; a = 1 when null. The function must outlive reinit() only.
    static CellMatrixFunction
    mass(const dealii::Function<dim> *a = nullptr);

    /// (kappa grad u, grad v) per component; kappa = 1 when null.
    static CellMatrixFunction
    laplace(const dealii::Function<dim> *kappa = nullptr);

    /// (kappa grad u, grad v) + (a u, v) per component.
    static CellMatrixFunction
    helmholtz(const dealii::Function<dim> *kappa, const dealii::Function<dim> *a);

    /// dst = A src (constrained rows: dst = src).
    void
    vmult(VectorType &dst, const VectorType &src) const;
    void
    vmult_add(VectorType &dst, const VectorType &src) const;
    /// dst = A^T src, with the element matrices transposed.
    void
    Tvmult(VectorType &dst, const VectorType &src) const;
    void
    Tvmult_add(VectorType &dst, const VectorType &src) const;

    size_type
    m() const;
    size_type
    n() const;

    void
    initialize_dof_vector(VectorType &vec) const;

    /// The diagonal (sum of the element matrices' diagonals; constrained rows 1), on the backend.
    void
    compute_diagonal();
    const std::shared_ptr<dealii::DiagonalMatrix<VectorType>> &
    get_matrix_diagonal() const;
    const std::shared_ptr<dealii::DiagonalMatrix<VectorType>> &
    get_matrix_diagonal_inverse() const;

    /// Shared, per cell or on the fly, as chosen at reinit().
    Storage
    storage() const;
    /// The kernel in use.
    Kernel
    kernel() const;
    const MatrixFree<dim, Number> &
    matrix_free() const;
    std::size_t
    memory_consumption() const;

  private:
    void
    apply(VectorType &dst, const VectorType &src, const bool transpose, const bool diagonal_only) const;

    /// What the kernel gets for one color (source/local_matrix/local_matrix_kernels.h).
    internal::LocalMatrixLaunch<Number>
    launch_data(unsigned int color, bool transpose, bool diagonal_only) const;

    MatrixFree<dim, Number> mf;
    internal::Array<Number> matrices;
    /// on_the_fly with affine geometry: the reference matrices (local_matrix_kernels.h)
    internal::Array<Number>                             reference;
    double                                              laplace_coefficient = 1., mass_coefficient = 0.;
    unsigned int                                        dofs_per_cell = 0;
    Storage                                             storage_      = Storage::automatic;
    Kernel                                              kernel_       = Kernel::automatic;
    std::shared_ptr<dealii::DiagonalMatrix<VectorType>> diagonal, inverse_diagonal;
  };
} // namespace gpumf

#endif
