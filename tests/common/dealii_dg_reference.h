// deal.II's own CPU MatrixFree::loop applying step-59's symmetric interior-penalty Laplacian:
// the reference gpumf's face loops are checked against. Compiled by g++ only
// (dealii_dg_reference.cc), so that deal.II's face evaluators stay out of nvcc's sight.
#ifndef gpumf_tests_dealii_dg_reference_h
#define gpumf_tests_dealii_dg_reference_h

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <deal.II/lac/full_matrix.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <memory>
#include <vector>

#ifdef __CUDACC__
#  define GPUMF_TEST_HOST_DEVICE __host__ __device__
#else
#  define GPUMF_TEST_HOST_DEVICE
#endif

namespace test
{
  /**
   * step-59's SIPG Laplacian on deal.II's CPU MatrixFree::loop (the operator of dealii_sipg()),
   * for timings: deal.II MatrixFree with QGauss<1>(n_q_points_1d), FEEvaluation<dim, -1> and
   * FEFaceEvaluation<dim, -1>, DataAccessOnFaces::gradients.
   */
  template <int dim>
  class DealiiSIPG
  {
  public:
    using VectorType = dealii::LinearAlgebra::distributed::Vector<double>;

    DealiiSIPG();
    ~DealiiSIPG();

    /// On the active cells, or on level @p mg_level (DoFHandler::distribute_mg_dofs()) if it is valid.
    void
    reinit(const dealii::Mapping<dim>    &mapping,
           const dealii::DoFHandler<dim> &dof_handler,
           unsigned int                   n_q_points_1d,
           unsigned int                   mg_level = dealii::numbers::invalid_unsigned_int);

    void
    initialize_dof_vector(VectorType &v) const;

    /// dst = A src.
    void
    vmult(VectorType &dst, const VectorType &src) const;

  private:
    struct Implementation;
    std::unique_ptr<Implementation> implementation;
  };

  /**
   * dst = A src for step-59's SIPG Laplacian with the penalty evaluated at every face point,
   * sigma = p (p + 1) * 1/2 (|(n J^-T_-)[dim-1]| + |(n J^-T_+)[dim-1]|) (one side at the
   * boundary); boundary id 0 Dirichlet (u+ = -u-), others Neumann (u+ = u-). @p src and the
   * result hold the locally owned DoFs in their global order. deal.II MatrixFree with
   * QGauss<1>(n_q_points_1d), FEEvaluation<dim, -1> and FEFaceEvaluation<dim, -1>; on level
   * @p mg_level if it is valid (the level's DoFs).
   */
  template <int dim>
  std::vector<double>
  dealii_sipg(const dealii::Mapping<dim>    &mapping,
              const dealii::DoFHandler<dim> &dof_handler,
              const unsigned int             n_q_points_1d,
              const std::vector<double>     &src,
              unsigned int                   mg_level = dealii::numbers::invalid_unsigned_int);

  /**
   * The ghost entries deal.II's CPU MatrixFree exchanges for a cell-centric loop (its tight
   * partitioners, AdditionalData::hold_all_faces_to_owned_cells) on this rank:
   * {DataAccessOnFaces::values_all_faces, gradients_all_faces, unspecified}.
   */
  template <int dim>
  std::array<unsigned int, 3>
  dealii_face_ghost_counts(const dealii::Mapping<dim>    &mapping,
                           const dealii::DoFHandler<dim> &dof_handler,
                           unsigned int                   n_q_points_1d,
                           unsigned int                   mg_level = dealii::numbers::invalid_unsigned_int);

  /// Cell operators of deal.II's CPU MatrixFree on discontinuous elements (scalar or an
  /// FESystem of 2 equal components), for dealii_apply() and dealii_diagonal().
  enum class DealiiOperator
  {
    sipg,        ///< step-59's operator, as dealii_sipg()
    mass,        ///< (u, v) with FEEvaluation<dim, -1, 0, n_components>
    inverse_mass ///< MatrixFreeOperators::CellwiseInverseMassMatrix<dim, -1, n_components>::apply()
  };

  /// dst = A src for @p op (@p src: the locally owned DoFs in their global order).
  template <int dim>
  std::vector<double>
  dealii_apply(DealiiOperator                 op,
               const dealii::Mapping<dim>    &mapping,
               const dealii::DoFHandler<dim> &dof_handler,
               unsigned int                   n_q_points_1d,
               const std::vector<double>     &src);

  /// The diagonal of @p op on the locally owned DoFs, column by column (A e_j for every global
  /// j): for small meshes.
  template <int dim>
  std::vector<double>
  dealii_diagonal(DealiiOperator                 op,
                  const dealii::Mapping<dim>    &mapping,
                  const dealii::DoFHandler<dim> &dof_handler,
                  unsigned int                   n_q_points_1d);

  /// The coefficients of test_function() on each cell from its values at the QGauss(degree + 1)
  /// points, by CellwiseInverseMassMatrix::transform_from_q_points_to_basis() (deal.II's
  /// step-67 projection), for every component.
  template <int dim>
  std::vector<double>
  dealii_project(const dealii::Mapping<dim> &mapping, const dealii::DoFHandler<dim> &dof_handler);

  /**
   * 1D matrices of a cell for the tensor-product inverses: direction @p d of the cell with id
   * @p cell_id gets one of three pairs (mass symmetric positive definite, derivative symmetric
   * positive semi-definite, n x n), so that several cells share a pair.
   */
  inline void
  matrices_1d(const std::string          &cell_id,
              const unsigned int          d,
              const unsigned int          n,
              dealii::FullMatrix<double> &mass,
              dealii::FullMatrix<double> &derivative)
  {
    std::uint64_t state = std::hash<std::string>()(cell_id) % 3 + 17 * d + 1;
    const auto    next  = [&]() {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return double(state >> 11) / double(1ull << 53) - 0.5;
    };
    dealii::FullMatrix<double> b(n, n), c(n, n);
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j < n; ++j)
        b(i, j) = next(), c(i, j) = next();
    mass.reinit(n, n);
    derivative.reinit(n, n);
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int k = 0; k < n; ++k)
          {
            mass(i, j) += b(i, k) * b(j, k);
            derivative(i, j) += c(i, k) * c(j, k);
          }
    for (unsigned int i = 0; i < n; ++i)
      mass(i, i) += 0.5;
  }

  /// A_K^-1 src on each cell (deal.II's TensorProductMatrixSymmetricSum<dim, double, -1> with
  /// matrices_1d() of the cell's id), FE_DGQ (lexicographic DoFs); @p src and the result: the
  /// locally owned DoFs in their global order.
  template <int dim>
  std::vector<double>
  dealii_tensor_product_inverse(const dealii::DoFHandler<dim> &dof_handler, const std::vector<double> &src);

  /**
   * deal.II's MGTransferMatrixFree on a discontinuous element (no boundary constraints) between
   * levels @p level - 1 and @p level: @p fine = P @p coarse and @p coarse_plus_restricted =
   * @p coarse + P^T @p fine_in, all vectors the locally owned level DoFs in their global order.
   */
  template <int dim>
  void
  dealii_dg_transfer(const dealii::DoFHandler<dim> &dof_handler,
                     unsigned int                   level,
                     const std::vector<double>     &coarse,
                     const std::vector<double>     &fine_in,
                     std::vector<double>           &fine,
                     std::vector<double>           &coarse_plus_restricted);

  /// The function dealii_project() projects: sin(x + 2 y) + z^2 - x y (component c adds c);
  /// also compiled for the GPU's functors (@p PointType: a deal.II Point of any number type).
  template <int dim, typename PointType>
  GPUMF_TEST_HOST_DEVICE inline double
  test_function(const PointType &p, const unsigned int component)
  {
    const double x = p[0], y = p[1], z = dim == 3 ? double(p[dim - 1]) : 0.;
    return std::sin(x + 2 * y) + z * z - x * y + component;
  }
} // namespace test

#endif
