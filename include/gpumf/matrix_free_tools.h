/**
 * @file gpumf/matrix_free_tools.h
 * deal.II's MatrixFreeTools::compute_diagonal() for gpumf's MatrixFree (deal.II 9.7+'s form for
 * Portable::MatrixFree: a quadrature-point operation and the evaluation and integration flags).
 *
 * `MatrixFreeTools::compute_diagonal<dim, fe_degree, n_q_points_1d, n_components, Number>(
 *    mf, diagonal, quad_operation, evaluation_flags, integration_flags)` compiles unchanged in a
 * program written for deal.II (`using namespace dealii`): the function is declared in
 * gpumf::MatrixFreeTools and brought into dealii::MatrixFreeTools, where it is chosen for a
 * gpumf::MatrixFree. @p quad_operation is called as `quad_operation(&fe_eval, q)` for every
 * quadrature point q of every cell (the FEEvaluation's get_current_cell_index() and
 * get_matrix_free_data() say which cell, as in deal.II); mark its operator() __host__ __device__.
 *
 * As deal.II's: @p diagonal is reinitialized to the object's layout, each cell's contribution is
 * the cell operator applied to its unit vectors, resolved through the constraints (hanging nodes
 * and periodicity add into their masters), and every constrained entry is then 1.
 */
#ifndef gpumf_matrix_free_tools_h
#define gpumf_matrix_free_tools_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/matrix_free/evaluation_flags.h>

#include <type_traits>

namespace gpumf
{
  namespace internal
  {
    /// The cell functor of compute_diagonal(): column i of the cell matrix from the unit vector,
    /// its diagonal entry added through the constraints (FEEvaluation::distribute_local_diagonal()).
    template <int dim, int fe_degree, int n_q_points_1d, int n_components_, typename Number, typename QuadOperation>
    struct DiagonalCellAction
    {
      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_components = n_components_;
      static constexpr unsigned int n_local_dofs = n_components_ * ipow(fe_degree + 1, dim);
      static constexpr unsigned int n_q_points   = ipow(n_q_points_1d, dim);

      QuadOperation quad_operation;
      unsigned int  evaluation_flags;
      unsigned int  integration_flags;
      /// The DoFHandler of the diagonal (MatrixFree with several).
      unsigned int dof_index = 0;
      /// The quadrature of the FEEvaluation (MatrixFree with several).
      unsigned int quad_index = 0;

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const unsigned int                            i,
                 Number                                       *diagonal) const
      {
        // deal.II 9.7+'s per-cell data, for quad operations that call get_matrix_free_data()
        typename MatrixFree<dim, Number>::Data cell_data = *data;
        cell_data.cell_index                             = cell;
        cell_data.shared_data                            = shared;
        cell_data.team_member                            = shared->team_member;
        FEEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number> phi(
          cell, &cell_data, shared, dof_index, quad_index);
        phi.set_unit_dof_values(i);
        phi.evaluate(static_cast<EvaluationFlags::EvaluationFlags>(evaluation_flags));
        cell_data.for_each_quad_point([&](const int &q) { quad_operation(&phi, q); });
        phi.integrate(static_cast<EvaluationFlags::EvaluationFlags>(integration_flags));
        phi.distribute_local_diagonal(i, diagonal);
      }
    };

    template <typename Flags>
    inline constexpr bool is_evaluation_flags = std::is_same_v<Flags, EvaluationFlags::EvaluationFlags> ||
                                                std::is_same_v<Flags, dealii::EvaluationFlags::EvaluationFlags>;
  } // namespace internal

  namespace MatrixFreeTools
  {
    /**
     * The diagonal of the operator whose quadrature-point work is @p quad_operation (deal.II
     * 9.7+'s MatrixFreeTools::compute_diagonal() for Portable::MatrixFree). @p evaluation_flags
     * and @p integration_flags: deal.II's or gpumf's (values, gradients). @p dof_handler_index
     * selects the DoFHandler of a MatrixFree with several (deal.II 9.8's step-104 takes the
     * diagonal of its velocity block so; @p diagonal gets that DoFHandler's layout),
     * @p quadrature_index the quadrature of one with several (n_q_points_1d is its). The diagonal
     * covers all components: the last two indices must be 0, as deal.II 9.8 requires.
     */
    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number,
              typename QuadOperation,
              typename EvaluationFlagsType,
              typename IntegrationFlagsType,
              typename Compiler = internal::ThisCompiler>
    void
    compute_diagonal(const MatrixFree<dim, Number> &matrix_free,
                     Vector<Number>                &diagonal,
                     const QuadOperation           &quad_operation,
                     const EvaluationFlagsType      evaluation_flags,
                     const IntegrationFlagsType     integration_flags,
                     const unsigned int             dof_handler_index        = 0,
                     const unsigned int             quadrature_index         = 0,
                     const unsigned int             first_selected_component = 0,
                     const unsigned int             first_vector_component   = 0)
    {
      static_assert(internal::is_evaluation_flags<EvaluationFlagsType> &&
                      internal::is_evaluation_flags<IntegrationFlagsType>,
                    "gpumf::MatrixFreeTools::compute_diagonal: the flags are deal.II's or gpumf's EvaluationFlags "
                    "(values, gradients).");
      AssertThrow(first_selected_component == 0 && first_vector_component == 0,
                  ExcNotSupported("gpumf::MatrixFreeTools::compute_diagonal: the diagonal covers all components: "
                                  "first_selected_component and first_vector_component must be 0."));
      AssertThrow(quadrature_index < matrix_free.n_quadratures() &&
                    matrix_free.n_q_points(quadrature_index) == internal::ipow(n_q_points_1d, dim),
                  ExcNotSupported("gpumf::MatrixFreeTools::compute_diagonal: quadrature_index " +
                                  std::to_string(quadrature_index) +
                                  " with n_q_points_1d = " + std::to_string(n_q_points_1d) + ", but the object has " +
                                  std::to_string(matrix_free.n_quadratures()) +
                                  " quadrature(s) and that one another number of points."));
      matrix_free.initialize_dof_vector(diagonal, dof_handler_index);
      const internal::DiagonalCellAction<dim, fe_degree, n_q_points_1d, n_components, Number, QuadOperation> action{
        quad_operation,
        static_cast<unsigned int>(evaluation_flags),
        static_cast<unsigned int>(integration_flags),
        dof_handler_index,
        quadrature_index};
      matrix_free.template diagonal_loop<decltype(action), Compiler>(action, diagonal, dof_handler_index);
      matrix_free.set_constrained_values(Number(1), diagonal, dof_handler_index);
    }
  } // namespace MatrixFreeTools
} // namespace gpumf

namespace dealii
{
  namespace MatrixFreeTools
  {
    // chosen by overload resolution for a gpumf::MatrixFree (deal.II's take deal.II's objects;
    // their header, deal.II/matrix_free/tools.h, is not needed for that)
    using gpumf::MatrixFreeTools::compute_diagonal;
  } // namespace MatrixFreeTools
} // namespace dealii

#endif
