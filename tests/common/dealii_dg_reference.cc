// deal.II's CPU MatrixFree::loop with step-59's interior-penalty operator (dealii_dg_reference.h).
#include "dealii_dg_reference.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/lac/tensor_product_matrix.h>

#include <cmath>

namespace test
{
  using namespace dealii;

  namespace
  {
    /// deal.II's MatrixFree set-up for step-59's operator: gradients on cells and faces, on
    /// level @p mg_level if it is valid.
    template <int dim>
    typename MatrixFree<dim, double>::AdditionalData
    face_loop_data(const unsigned int mg_level)
    {
      typename MatrixFree<dim, double>::AdditionalData additional_data;
      additional_data.tasks_parallel_scheme            = MatrixFree<dim, double>::AdditionalData::none;
      additional_data.mapping_update_flags             = update_gradients | update_JxW_values;
      additional_data.mapping_update_flags_inner_faces = update_gradients | update_JxW_values | update_normal_vectors;
      additional_data.mapping_update_flags_boundary_faces =
        update_gradients | update_JxW_values | update_normal_vectors;
      additional_data.mg_level = mg_level;
      return additional_data;
    }

    template <int dim>
    class SIPG
    {
    public:
      using VectorType = LinearAlgebra::distributed::Vector<double>;

      SIPG(const MatrixFree<dim, double> &data, const unsigned int degree)
        : data(data)
        , penalty(double(degree) * (degree + 1))
      {}

      void
      vmult(VectorType &dst, const VectorType &src) const
      {
        data.loop(&SIPG::cell,
                  &SIPG::face,
                  &SIPG::boundary,
                  this,
                  dst,
                  src,
                  true,
                  MatrixFree<dim, double>::DataAccessOnFaces::gradients,
                  MatrixFree<dim, double>::DataAccessOnFaces::gradients);
      }

    private:
      void
      cell(const MatrixFree<dim, double>               &data,
           VectorType                                  &dst,
           const VectorType                            &src,
           const std::pair<unsigned int, unsigned int> &range) const
      {
        FEEvaluation<dim, -1> phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.gather_evaluate(src, EvaluationFlags::gradients);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              phi.submit_gradient(phi.get_gradient(q), q);
            phi.integrate_scatter(EvaluationFlags::gradients, dst);
          }
      }

      void
      face(const MatrixFree<dim, double>               &data,
           VectorType                                  &dst,
           const VectorType                            &src,
           const std::pair<unsigned int, unsigned int> &range) const
      {
        FEFaceEvaluation<dim, -1> phi_m(data, true), phi_p(data, false);
        for (unsigned int face = range.first; face < range.second; ++face)
          {
            phi_m.reinit(face);
            phi_p.reinit(face);
            phi_m.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            phi_p.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            for (unsigned int q = 0; q < phi_m.n_q_points; ++q)
              {
                const auto sigma = 0.5 * penalty *
                                   (std::abs((phi_m.get_normal_vector(q) * phi_m.inverse_jacobian(q))[dim - 1]) +
                                    std::abs((phi_p.get_normal_vector(q) * phi_p.inverse_jacobian(q))[dim - 1]));
                const auto jump    = phi_m.get_value(q) - phi_p.get_value(q);
                const auto average = 0.5 * (phi_m.get_normal_derivative(q) + phi_p.get_normal_derivative(q));
                const auto test    = jump * sigma - average;
                phi_m.submit_value(test, q);
                phi_p.submit_value(-test, q);
                phi_m.submit_normal_derivative(-0.5 * jump, q);
                phi_p.submit_normal_derivative(-0.5 * jump, q);
              }
            phi_m.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
            phi_p.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
          }
      }

      void
      boundary(const MatrixFree<dim, double>               &data,
               VectorType                                  &dst,
               const VectorType                            &src,
               const std::pair<unsigned int, unsigned int> &range) const
      {
        FEFaceEvaluation<dim, -1> phi(data, true);
        for (unsigned int face = range.first; face < range.second; ++face)
          {
            phi.reinit(face);
            phi.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            const bool dirichlet = data.get_boundary_id(face) == 0;
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              {
                const auto sigma   = penalty * std::abs((phi.get_normal_vector(q) * phi.inverse_jacobian(q))[dim - 1]);
                const auto u       = phi.get_value(q);
                const auto du      = phi.get_normal_derivative(q);
                const auto jump    = dirichlet ? 2. * u : 0. * u;
                const auto average = dirichlet ? du : 0. * du;
                phi.submit_value(jump * sigma - average, q);
                phi.submit_normal_derivative(-0.5 * jump, q);
              }
            phi.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
          }
      }

      const MatrixFree<dim, double> &data;
      const double                   penalty;
    };
  } // namespace

  template <int dim>
  struct DealiiSIPG<dim>::Implementation
  {
    MatrixFree<dim, double>    data;
    std::unique_ptr<SIPG<dim>> op;
  };

  template <int dim>
  DealiiSIPG<dim>::DealiiSIPG()
    : implementation(std::make_unique<Implementation>())
  {}

  template <int dim>
  DealiiSIPG<dim>::~DealiiSIPG() = default;

  template <int dim>
  void
  DealiiSIPG<dim>::reinit(const Mapping<dim>    &mapping,
                          const DoFHandler<dim> &dof,
                          const unsigned int     n_q_points_1d,
                          const unsigned int     mg_level)
  {
    const auto                additional_data = face_loop_data<dim>(mg_level);
    AffineConstraints<double> constraints;
    constraints.close();
    implementation->data.reinit(mapping, dof, constraints, QGauss<1>(n_q_points_1d), additional_data);
    implementation->op = std::make_unique<SIPG<dim>>(implementation->data, dof.get_fe().degree);
  }

  template <int dim>
  void
  DealiiSIPG<dim>::initialize_dof_vector(VectorType &v) const
  {
    implementation->data.initialize_dof_vector(v);
  }

  template <int dim>
  void
  DealiiSIPG<dim>::vmult(VectorType &dst, const VectorType &src) const
  {
    implementation->op->vmult(dst, src);
  }

  template <int dim>
  std::vector<double>
  dealii_sipg(const Mapping<dim>        &mapping,
              const DoFHandler<dim>     &dof,
              const unsigned int         n_q_points_1d,
              const std::vector<double> &src,
              const unsigned int         mg_level)
  {
    DealiiSIPG<dim> op;
    op.reinit(mapping, dof, n_q_points_1d, mg_level);
    LinearAlgebra::distributed::Vector<double> in, out;
    op.initialize_dof_vector(in);
    op.initialize_dof_vector(out);
    AssertThrow(in.locally_owned_size() == src.size(), ExcInternalError());
    for (unsigned int i = 0; i < src.size(); ++i)
      in.local_element(i) = src[i];
    op.vmult(out, in);
    std::vector<double> result(src.size());
    for (unsigned int i = 0; i < src.size(); ++i)
      result[i] = out.local_element(i);
    return result;
  }

  namespace
  {
    /// deal.II MatrixFree with the cell operators of DealiiOperator (and SIPG).
    template <int dim>
    class Operators
    {
    public:
      using VectorType = LinearAlgebra::distributed::Vector<double>;

      Operators(const Mapping<dim> &mapping, const DoFHandler<dim> &dof, const unsigned int n_q_points_1d)
        : n_components(dof.get_fe().n_components())
      {
        AssertThrow(n_components == 1 || n_components == 2, ExcNotImplemented());
        sipg.reinit(mapping, dof, n_q_points_1d);
        typename MatrixFree<dim, double>::AdditionalData additional_data;
        additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
        additional_data.mapping_update_flags  = update_values | update_JxW_values | update_quadrature_points;
        AffineConstraints<double> constraints;
        constraints.close();
        data.reinit(mapping, dof, constraints, QGauss<1>(n_q_points_1d), additional_data);
      }

      /// A vector with the ghost entries @p op reads (SIPG: the face neighbors).
      void
      initialize_dof_vector(const DealiiOperator op, VectorType &v) const
      {
        if (op == DealiiOperator::sipg)
          sipg.initialize_dof_vector(v);
        else
          data.initialize_dof_vector(v);
      }

      void
      vmult(const DealiiOperator op, VectorType &dst, const VectorType &src) const
      {
        if (op == DealiiOperator::sipg)
          sipg.vmult(dst, src);
        else if (n_components == 1)
          data.cell_loop(
            op == DealiiOperator::mass ? &Operators::mass<1> : &Operators::inverse_mass<1>, this, dst, src, true);
        else
          data.cell_loop(
            op == DealiiOperator::mass ? &Operators::mass<2> : &Operators::inverse_mass<2>, this, dst, src, true);
      }

      /// The coefficients of test_function() (CellwiseInverseMassMatrix::transform_from_q_points_to_basis).
      void
      project(VectorType &dst) const
      {
        if (n_components == 1)
          project_components<1>(dst);
        else
          project_components<2>(dst);
      }

    private:
      template <int n_comp>
      void
      mass(const MatrixFree<dim, double> &,
           VectorType                                  &dst,
           const VectorType                            &src,
           const std::pair<unsigned int, unsigned int> &range) const
      {
        FEEvaluation<dim, -1, 0, n_comp> phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.gather_evaluate(src, EvaluationFlags::values);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              phi.submit_value(phi.get_value(q), q);
            phi.integrate_scatter(EvaluationFlags::values, dst);
          }
      }

      template <int n_comp>
      void
      inverse_mass(const MatrixFree<dim, double> &,
                   VectorType                                  &dst,
                   const VectorType                            &src,
                   const std::pair<unsigned int, unsigned int> &range) const
      {
        FEEvaluation<dim, -1, 0, n_comp>                                phi(data);
        MatrixFreeOperators::CellwiseInverseMassMatrix<dim, -1, n_comp> inverse(phi);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.read_dof_values(src);
            inverse.apply(phi.begin_dof_values(), phi.begin_dof_values());
            phi.set_dof_values(dst);
          }
      }

      template <int n_comp>
      void
      project_components(VectorType &dst) const
      {
        FEEvaluation<dim, -1, 0, n_comp>                                phi(data);
        MatrixFreeOperators::CellwiseInverseMassMatrix<dim, -1, n_comp> inverse(phi);
        for (unsigned int cell = 0; cell < data.n_cell_batches(); ++cell)
          {
            phi.reinit(cell);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              {
                const auto                                 x = phi.quadrature_point(q);
                Tensor<1, n_comp, VectorizedArray<double>> value;
                for (unsigned int c = 0; c < n_comp; ++c)
                  for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
                    {
                      Point<dim> p;
                      for (unsigned int d = 0; d < dim; ++d)
                        p[d] = x[d][v];
                      value[c][v] = test_function<dim>(p, c);
                    }
                if constexpr (n_comp == 1)
                  phi.submit_dof_value(value[0], q);
                else
                  phi.submit_dof_value(value, q);
              }
            inverse.transform_from_q_points_to_basis(n_comp, phi.begin_dof_values(), phi.begin_dof_values());
            phi.set_dof_values(dst);
          }
      }

      const unsigned int      n_components;
      DealiiSIPG<dim>         sipg;
      MatrixFree<dim, double> data;
    };
  } // namespace

  template <int dim>
  std::vector<double>
  dealii_apply(const DealiiOperator       op,
               const Mapping<dim>        &mapping,
               const DoFHandler<dim>     &dof,
               const unsigned int         n_q_points_1d,
               const std::vector<double> &src)
  {
    const Operators<dim>                       ops(mapping, dof, n_q_points_1d);
    LinearAlgebra::distributed::Vector<double> in, out;
    ops.initialize_dof_vector(op, in);
    ops.initialize_dof_vector(op, out);
    AssertThrow(in.locally_owned_size() == src.size(), ExcInternalError());
    for (unsigned int i = 0; i < src.size(); ++i)
      in.local_element(i) = src[i];
    ops.vmult(op, out, in);
    std::vector<double> result(src.size());
    for (unsigned int i = 0; i < src.size(); ++i)
      result[i] = out.local_element(i);
    return result;
  }

  template <int dim>
  std::vector<double>
  dealii_diagonal(const DealiiOperator   op,
                  const Mapping<dim>    &mapping,
                  const DoFHandler<dim> &dof,
                  const unsigned int     n_q_points_1d)
  {
    const Operators<dim>                       ops(mapping, dof, n_q_points_1d);
    LinearAlgebra::distributed::Vector<double> in, out;
    ops.initialize_dof_vector(op, in);
    ops.initialize_dof_vector(op, out);
    std::vector<double> result(in.locally_owned_size());
    for (types::global_dof_index j = 0; j < dof.n_dofs(); ++j)
      {
        in = 0.;
        if (in.in_local_range(j))
          in(j) = 1.;
        ops.vmult(op, out, in);
        if (in.in_local_range(j))
          result[j - in.get_partitioner()->local_range().first] = out(j);
      }
    return result;
  }

  template <int dim>
  std::vector<double>
  dealii_project(const Mapping<dim> &mapping, const DoFHandler<dim> &dof)
  {
    const Operators<dim>                       ops(mapping, dof, dof.get_fe().degree + 1);
    LinearAlgebra::distributed::Vector<double> out;
    ops.initialize_dof_vector(DealiiOperator::mass, out);
    ops.project(out);
    std::vector<double> result(out.locally_owned_size());
    for (unsigned int i = 0; i < result.size(); ++i)
      result[i] = out.local_element(i);
    return result;
  }

  template <int dim>
  std::vector<double>
  dealii_tensor_product_inverse(const DoFHandler<dim> &dof, const std::vector<double> &src)
  {
    const IndexSet &owned = dof.locally_owned_dofs();
    AssertThrow(owned.n_elements() == src.size(), ExcInternalError());
    std::vector<double>                  result(src.size());
    const unsigned int                   n = dof.get_fe().degree + 1, dofs_per_cell = dof.get_fe().n_dofs_per_cell();
    std::vector<types::global_dof_index> indices(dofs_per_cell);
    std::vector<double>                  in(dofs_per_cell), out(dofs_per_cell);
    for (const auto &cell : dof.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          std::array<Table<2, double>, dim> mass, derivative;
          for (unsigned int d = 0; d < dim; ++d)
            {
              FullMatrix<double> m, k;
              matrices_1d(cell->id().to_string(), d, n, m, k);
              mass[d].reinit(n, n);
              derivative[d].reinit(n, n);
              for (unsigned int i = 0; i < n; ++i)
                for (unsigned int j = 0; j < n; ++j)
                  mass[d](i, j) = m(i, j), derivative[d](i, j) = k(i, j);
            }
          TensorProductMatrixSymmetricSum<dim, double, -1> matrix;
          matrix.reinit(mass, derivative);
          cell->get_dof_indices(indices);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            in[i] = src[owned.index_within_set(indices[i])];
          matrix.apply_inverse(ArrayView<double>(out), ArrayView<const double>(in));
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            result[owned.index_within_set(indices[i])] = out[i];
        }
    return result;
  }

  template <int dim>
  void
  dealii_dg_transfer(const DoFHandler<dim>     &dof,
                     const unsigned int         level,
                     const std::vector<double> &coarse,
                     const std::vector<double> &fine_in,
                     std::vector<double>       &fine,
                     std::vector<double>       &coarse_plus_restricted)
  {
    MGConstrainedDoFs mg_constrained_dofs;
    mg_constrained_dofs.initialize(dof);
    MGTransferMatrixFree<dim, double> transfer(mg_constrained_dofs);
    transfer.build(dof);
    const MPI_Comm                             comm = dof.get_triangulation().get_communicator();
    LinearAlgebra::distributed::Vector<double> c(dof.locally_owned_mg_dofs(level - 1),
                                                 DoFTools::extract_locally_relevant_level_dofs(dof, level - 1),
                                                 comm),
      f(dof.locally_owned_mg_dofs(level), DoFTools::extract_locally_relevant_level_dofs(dof, level), comm), f_in(f);
    AssertThrow(c.locally_owned_size() == coarse.size() && f.locally_owned_size() == fine_in.size(),
                ExcInternalError());
    for (unsigned int i = 0; i < coarse.size(); ++i)
      c.local_element(i) = coarse[i];
    for (unsigned int i = 0; i < fine_in.size(); ++i)
      f_in.local_element(i) = fine_in[i];
    transfer.prolongate(level, f, c);
    transfer.restrict_and_add(level, c, f_in);
    fine.resize(fine_in.size());
    coarse_plus_restricted.resize(coarse.size());
    for (unsigned int i = 0; i < fine.size(); ++i)
      fine[i] = f.local_element(i);
    for (unsigned int i = 0; i < coarse.size(); ++i)
      coarse_plus_restricted[i] = c.local_element(i);
  }

  template <int dim>
  std::array<unsigned int, 3>
  dealii_face_ghost_counts(const Mapping<dim>    &mapping,
                           const DoFHandler<dim> &dof,
                           const unsigned int     n_q_points_1d,
                           const unsigned int     mg_level)
  {
    auto additional_data                          = face_loop_data<dim>(mg_level);
    additional_data.hold_all_faces_to_owned_cells = true;
    AffineConstraints<double> constraints;
    constraints.close();
    MatrixFree<dim, double> data;
    data.reinit(mapping, dof, constraints, QGauss<1>(n_q_points_1d), additional_data);
    const auto &info = data.get_dof_info(0);
    return {info.vector_exchanger_face_variants[3]->n_ghost_indices(),
            info.vector_exchanger_face_variants[4]->n_ghost_indices(),
            info.vector_exchanger->n_ghost_indices()};
  }

  template std::array<unsigned int, 3>
  dealii_face_ghost_counts<2>(const Mapping<2> &, const DoFHandler<2> &, const unsigned int, const unsigned int);
  template std::array<unsigned int, 3>
  dealii_face_ghost_counts<3>(const Mapping<3> &, const DoFHandler<3> &, const unsigned int, const unsigned int);

  template class DealiiSIPG<2>;
  template class DealiiSIPG<3>;
  template std::vector<double>
  dealii_sipg<2>(const Mapping<2> &,
                 const DoFHandler<2> &,
                 const unsigned int,
                 const std::vector<double> &,
                 const unsigned int);
  template std::vector<double>
  dealii_sipg<3>(const Mapping<3> &,
                 const DoFHandler<3> &,
                 const unsigned int,
                 const std::vector<double> &,
                 const unsigned int);
  template std::vector<double>
  dealii_apply<2>(DealiiOperator, const Mapping<2> &, const DoFHandler<2> &, unsigned int, const std::vector<double> &);
  template std::vector<double>
  dealii_apply<3>(DealiiOperator, const Mapping<3> &, const DoFHandler<3> &, unsigned int, const std::vector<double> &);
  template std::vector<double>
  dealii_diagonal<2>(DealiiOperator, const Mapping<2> &, const DoFHandler<2> &, unsigned int);
  template std::vector<double>
  dealii_diagonal<3>(DealiiOperator, const Mapping<3> &, const DoFHandler<3> &, unsigned int);
  template std::vector<double>
  dealii_tensor_product_inverse<2>(const DoFHandler<2> &, const std::vector<double> &);
  template std::vector<double>
  dealii_tensor_product_inverse<3>(const DoFHandler<3> &, const std::vector<double> &);
  template void
  dealii_dg_transfer<2>(const DoFHandler<2> &,
                        unsigned int,
                        const std::vector<double> &,
                        const std::vector<double> &,
                        std::vector<double> &,
                        std::vector<double> &);
  template void
  dealii_dg_transfer<3>(const DoFHandler<3> &,
                        unsigned int,
                        const std::vector<double> &,
                        const std::vector<double> &,
                        std::vector<double> &,
                        std::vector<double> &);
  template std::vector<double>
  dealii_project<2>(const Mapping<2> &, const DoFHandler<2> &);
  template std::vector<double>
  dealii_project<3>(const Mapping<3> &, const DoFHandler<3> &);
} // namespace test
