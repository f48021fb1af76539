#include "dealii_reference.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>

#include <gpumf/local_matrix_operator.h>

#include "coefficient.h"
#include "test_utils.h"

namespace test
{
  using namespace dealii;

  template <int dim>
  struct DealiiHelmholtzOperator<dim>::Impl
  {
    MatrixFree<dim, double>           mf;
    std::vector<unsigned int>         constrained; // local indices of owned constrained DoFs
    Table<2, VectorizedArray<double>> coefficient;

    /// From the DoF values of phi's cell to its integrated test-function values: the
    /// operation of vmult() and compute_diagonal().
    void
    apply_cell(FEEvaluation<dim, -1, 0, 1, double> &phi) const
    {
      const unsigned int cell = phi.get_current_cell_index();
      phi.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
      for (unsigned int q = 0; q < phi.n_q_points; ++q)
        {
          phi.submit_value(coefficient(cell, q) * phi.get_value(q), q);
          phi.submit_gradient(phi.get_gradient(q), q);
        }
      phi.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
    }
  };

  template <int dim>
  DealiiHelmholtzOperator<dim>::DealiiHelmholtzOperator()
    : impl(std::make_unique<Impl>())
  {}

  template <int dim>
  DealiiHelmholtzOperator<dim>::~DealiiHelmholtzOperator() = default;

  template <int dim>
  void
  DealiiHelmholtzOperator<dim>::reinit(const Mapping<dim>              &mapping,
                                       const DoFHandler<dim>           &dof_handler,
                                       const AffineConstraints<double> &constraints,
                                       const unsigned int               n_q_points_1d)
  {
    typename MatrixFree<dim, double>::AdditionalData data;
    data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    data.mapping_update_flags  = update_values | update_gradients | update_JxW_values | update_quadrature_points;
    impl->mf.reinit(mapping, dof_handler, constraints, QGauss<1>(n_q_points_1d), data);

    FEEvaluation<dim, -1, 0, 1, double> phi(impl->mf);
    impl->coefficient.reinit(impl->mf.n_cell_batches(), phi.n_q_points);
    for (unsigned int cell = 0; cell < impl->mf.n_cell_batches(); ++cell)
      {
        phi.reinit(cell);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          {
            const auto p = phi.quadrature_point(q);
            for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
              {
                Point<dim> x;
                for (unsigned int d = 0; d < dim; ++d)
                  x[d] = p[d][v];
                impl->coefficient(cell, q)[v] = helmholtz_coefficient(x);
              }
          }
      }

    VectorType v;
    initialize_dof_vector(v);
    impl->constrained.clear();
    for (const auto &line : constraints.get_lines())
      if (v.in_local_range(line.index))
        impl->constrained.push_back(v.get_partitioner()->global_to_local(line.index));
  }

  template <int dim>
  void
  DealiiHelmholtzOperator<dim>::vmult(VectorType &dst, const VectorType &src) const
  {
    const std::function<void(
      const MatrixFree<dim, double> &, VectorType &, const VectorType &, const std::pair<unsigned int, unsigned int> &)>
      cell_operation = [this](const MatrixFree<dim, double>               &mf,
                              VectorType                                  &dst,
                              const VectorType                            &src,
                              const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, -1, 0, 1, double> phi(mf);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.read_dof_values(src);
            impl->apply_cell(phi);
            phi.distribute_local_to_global(dst);
          }
      };
    impl->mf.cell_loop(cell_operation, dst, src, true);
    for (const unsigned int i : impl->constrained)
      dst.local_element(i) = src.local_element(i);
  }

  template <int dim>
  void
  DealiiHelmholtzOperator<dim>::compute_diagonal(VectorType &diagonal) const
  {
    initialize_dof_vector(diagonal);
    const std::function<void(FEEvaluation<dim, -1, 0, 1, double> &)> cell_operation =
      [this](FEEvaluation<dim, -1, 0, 1, double> &phi) { impl->apply_cell(phi); };
    MatrixFreeTools::compute_diagonal(impl->mf, diagonal, cell_operation);
    for (const unsigned int i : impl->constrained)
      diagonal.local_element(i) = 1.;
  }

  template <int dim>
  void
  DealiiHelmholtzOperator<dim>::initialize_dof_vector(VectorType &v) const
  {
    impl->mf.initialize_dof_vector(v);
  }

  template class DealiiHelmholtzOperator<2>;
  template class DealiiHelmholtzOperator<3>;

  template <int dim>
  void
  two_field_form(const Mapping<dim>                           &mapping,
                 const DoFHandler<dim>                        &dof_handler,
                 const AffineConstraints<double>              &constraints,
                 const unsigned int                            n_q_points_1d,
                 const LinearAlgebra::ReadWriteVector<double> &u,
                 const LinearAlgebra::ReadWriteVector<double> &v,
                 const double                                  a,
                 LinearAlgebra::ReadWriteVector<double>       &dst)
  {
    using VectorType = LinearAlgebra::distributed::Vector<double>;
    typename MatrixFree<dim, double>::AdditionalData data;
    data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    MatrixFree<dim, double> mf;
    mf.reinit(mapping, dof_handler, constraints, QGauss<1>(n_q_points_1d), data);
    std::vector<VectorType> src(2);
    VectorType              result;
    for (unsigned int k = 0; k < 2; ++k)
      {
        mf.initialize_dof_vector(src[k]);
        gpumf::internal::import_elements(src[k], k == 0 ? u : v, VectorOperation::insert);
      }
    mf.initialize_dof_vector(result);
    const std::function<void(const MatrixFree<dim, double> &,
                             VectorType &,
                             const std::vector<VectorType> &,
                             const std::pair<unsigned int, unsigned int> &)>
      cell_operation = [a](const MatrixFree<dim, double>               &mf,
                           VectorType                                  &dst,
                           const std::vector<VectorType>               &src,
                           const std::pair<unsigned int, unsigned int> &range) {
        FEEvaluation<dim, -1, 0, 1, double> phi_u(mf), phi_v(mf);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi_u.reinit(cell);
            phi_v.reinit(cell);
            phi_u.read_dof_values(src[0]);
            phi_v.read_dof_values(src[1]);
            phi_u.evaluate(EvaluationFlags::values);
            phi_v.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
            for (unsigned int q = 0; q < phi_u.n_q_points; ++q)
              {
                const auto value = phi_u.get_value(q);
                phi_u.submit_value(value * phi_v.get_value(q) + a * value, q);
                phi_u.submit_gradient(phi_v.get_gradient(q), q);
              }
            phi_u.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
            phi_u.distribute_local_to_global(dst);
          }
      };
    mf.cell_loop(cell_operation, result, src, true);
    dst.reinit(result.locally_owned_elements());
    gpumf::internal::import_elements(dst, result, VectorOperation::insert);
  }

  template void
  two_field_form<2>(const Mapping<2> &,
                    const DoFHandler<2> &,
                    const AffineConstraints<double> &,
                    const unsigned int,
                    const LinearAlgebra::ReadWriteVector<double> &,
                    const LinearAlgebra::ReadWriteVector<double> &,
                    const double,
                    LinearAlgebra::ReadWriteVector<double> &);
  template void
  two_field_form<3>(const Mapping<3> &,
                    const DoFHandler<3> &,
                    const AffineConstraints<double> &,
                    const unsigned int,
                    const LinearAlgebra::ReadWriteVector<double> &,
                    const LinearAlgebra::ReadWriteVector<double> &,
                    const double,
                    LinearAlgebra::ReadWriteVector<double> &);

  template <int dim>
  struct AssembledOperator<dim>::Impl
  {
    SparsityPattern      pattern;
    SparseMatrix<double> matrix;
  };

  template <int dim>
  AssembledOperator<dim>::AssembledOperator()
    : impl(std::make_unique<Impl>())
  {}

  template <int dim>
  AssembledOperator<dim>::~AssembledOperator() = default;

  template <int dim>
  void
  AssembledOperator<dim>::assemble(const Mapping<dim>              &mapping,
                                   const DoFHandler<dim>           &dof_handler,
                                   const AffineConstraints<double> &constraints,
                                   const Quadrature<1>             &quad,
                                   const Function<dim>             *value_coefficient,
                                   const Function<dim>             *gradient_coefficient)
  {
    // the element matrices of gpumf's LocalMatrixOperator built-ins (FEValues, no sum factorization)
    using LM                                   = gpumf::LocalMatrixOperator<dim, double>;
    const typename LM::CellMatrixFunction form = value_coefficient && gradient_coefficient ?
                                                   LM::helmholtz(gradient_coefficient, value_coefficient) :
                                                 value_coefficient ? LM::mass(value_coefficient) :
                                                                     LM::laplace(gradient_coefficient);
    assemble_form(mapping, dof_handler, constraints, quad, form);
  }

  template <int dim>
  void
  AssembledOperator<dim>::assemble_elasticity(const Mapping<dim>              &mapping,
                                              const DoFHandler<dim>           &dof_handler,
                                              const AffineConstraints<double> &constraints,
                                              const Quadrature<1>             &quad,
                                              const Function<dim>             &lambda,
                                              const Function<dim>             &mu)
  {
    AssertThrow(dof_handler.get_fe().n_components() == dim, ExcMessage("elasticity needs dim components"));
    const FEValuesExtractors::Vector displacement(0);
    const auto                       form = [&](const typename DoFHandler<dim>::active_cell_iterator &,
                          const FEValues<dim> &fe_values,
                          FullMatrix<double>  &cell_matrix) {
      const unsigned int m = fe_values.dofs_per_cell;
      for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
        {
          const double l = lambda.value(fe_values.quadrature_point(q));
          const double u = mu.value(fe_values.quadrature_point(q));
          for (unsigned int i = 0; i < m; ++i)
            {
              const auto eps_i = fe_values[displacement].symmetric_gradient(i, q);
              const auto div_i = fe_values[displacement].divergence(i, q);
              for (unsigned int j = 0; j < m; ++j)
                cell_matrix(i, j) += (2. * u * (eps_i * fe_values[displacement].symmetric_gradient(j, q)) +
                                      l * div_i * fe_values[displacement].divergence(j, q)) *
                                     fe_values.JxW(q);
            }
        }
    };
    assemble_form(mapping, dof_handler, constraints, quad, form);
  }

  template <int dim>
  void
  AssembledOperator<dim>::assemble_form(
    const Mapping<dim>              &mapping,
    const DoFHandler<dim>           &dof_handler,
    const AffineConstraints<double> &constraints,
    const Quadrature<1>             &quad,
    const std::function<
      void(const typename DoFHandler<dim>::active_cell_iterator &, const FEValues<dim> &, FullMatrix<double> &)> &form)
  {
    DynamicSparsityPattern dsp(dof_handler.n_dofs());
    DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    impl->pattern.copy_from(dsp);
    impl->matrix.reinit(impl->pattern);

    const FiniteElement<dim>            &fe = dof_handler.get_fe();
    FEValues<dim>                        fe_values(mapping,
                            fe,
                            Quadrature<dim>(quad),
                            update_values | update_gradients | update_JxW_values | update_quadrature_points);
    FullMatrix<double>                   cell_matrix(fe.n_dofs_per_cell(), fe.n_dofs_per_cell());
    std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        fe_values.reinit(cell);
        cell_matrix = 0;
        form(cell, fe_values, cell_matrix);
        cell->get_dof_indices(indices);
        constraints.distribute_local_to_global(cell_matrix, indices, impl->matrix);
      }
    for (const auto &line : constraints.get_lines())
      impl->matrix.set(line.index, line.index, 1.);
  }

  template <int dim>
  void
  AssembledOperator<dim>::vmult(Vector<double> &dst, const Vector<double> &src) const
  {
    impl->matrix.vmult(dst, src);
  }

  template <int dim>
  double
  AssembledOperator<dim>::diagonal(const unsigned int i) const
  {
    return impl->matrix.diag_element(i);
  }

  template class AssembledOperator<2>;
  template class AssembledOperator<3>;

  template <int dim, typename Number>
  void
  assemble_laplace_matrix(const Mapping<dim>              &mapping,
                          const DoFHandler<dim>           &dof_handler,
                          const unsigned int               level,
                          const AffineConstraints<Number> &constraints,
                          const unsigned int               n_q_points_1d,
                          SparsityPattern                 &pattern,
                          SparseMatrix<double>            &matrix)
  {
    const bool                    active = level == numbers::invalid_unsigned_int;
    const auto                    cells  = cells_of(dof_handler, level);
    const types::global_dof_index n      = active ? dof_handler.n_dofs() : dof_handler.n_dofs(level);
    DynamicSparsityPattern        dsp(n, n);
    for (const auto &cell : cells)
      {
        const auto indices = dof_indices<dim>(cell, level);
        for (const auto i : indices)
          for (const auto j : indices)
            dsp.add(i, j);
      }
    pattern.copy_from(dsp);
    matrix.reinit(pattern);
    FEValues<dim>      fe_values(mapping,
                            dof_handler.get_fe(),
                            QGauss<dim>(n_q_points_1d),
                            update_gradients | update_JxW_values);
    const unsigned int m = dof_handler.get_fe().n_dofs_per_cell();
    for (const auto &cell : cells)
      {
        fe_values.reinit(typename Triangulation<dim>::cell_iterator(cell));
        const auto indices = dof_indices<dim>(cell, level);
        for (unsigned int a = 0; a < m; ++a)
          for (unsigned int b = 0; b < m; ++b)
            if (!constraints.is_constrained(indices[a]) && !constraints.is_constrained(indices[b]))
              {
                double value = 0;
                for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
                  value += (fe_values.shape_grad(a, q) * fe_values.shape_grad(b, q)) * fe_values.JxW(q);
                matrix.add(indices[a], indices[b], value);
              }
      }
    for (types::global_dof_index i = 0; i < n; ++i)
      if (constraints.is_constrained(i))
        matrix.set(i, i, 1.);
  }

  template void
  assemble_laplace_matrix<2, double>(const Mapping<2> &,
                                     const DoFHandler<2> &,
                                     const unsigned int,
                                     const AffineConstraints<double> &,
                                     const unsigned int,
                                     SparsityPattern &,
                                     SparseMatrix<double> &);
  template void
  assemble_laplace_matrix<2, float>(const Mapping<2> &,
                                    const DoFHandler<2> &,
                                    const unsigned int,
                                    const AffineConstraints<float> &,
                                    const unsigned int,
                                    SparsityPattern &,
                                    SparseMatrix<double> &);
  template void
  assemble_laplace_matrix<3, double>(const Mapping<3> &,
                                     const DoFHandler<3> &,
                                     const unsigned int,
                                     const AffineConstraints<double> &,
                                     const unsigned int,
                                     SparsityPattern &,
                                     SparseMatrix<double> &);
  template void
  assemble_laplace_matrix<3, float>(const Mapping<3> &,
                                    const DoFHandler<3> &,
                                    const unsigned int,
                                    const AffineConstraints<float> &,
                                    const unsigned int,
                                    SparsityPattern &,
                                    SparseMatrix<double> &);
} // namespace test
