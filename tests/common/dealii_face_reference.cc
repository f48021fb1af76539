// deal.II's CPU MatrixFree::loop on a continuous element with face terms (dealii_face_reference.h).
#include "dealii_face_reference.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

#include <functional>

#include "test_utils.h"

namespace test
{
  using namespace dealii;

  namespace
  {
    template <int dim, int nc>
    class Operator
    {
    public:
      using VectorType = LinearAlgebra::distributed::Vector<double>;
      using T          = VectorizedArray<double>;

      Operator(const MatrixFree<dim, double> &data, const FaceLoopParts parts)
        : data(data)
        , parts(parts)
      {}

      void
      vmult(VectorType &dst, const VectorType &src) const
      {
        data.loop(&Operator::cell,
                  &Operator::face,
                  &Operator::boundary,
                  this,
                  dst,
                  src,
                  true,
                  MatrixFree<dim, double>::DataAccessOnFaces::unspecified,
                  MatrixFree<dim, double>::DataAccessOnFaces::unspecified);
      }

    private:
      void
      cell(const MatrixFree<dim, double> &,
           VectorType                                  &dst,
           const VectorType                            &src,
           const std::pair<unsigned int, unsigned int> &range) const
      {
        if (!parts.cells)
          return;
        FEEvaluation<dim, -1, 0, nc, double> phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
          {
            phi.reinit(cell);
            phi.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              {
                phi.submit_gradient(phi.get_gradient(q), q);
                phi.submit_value(FaceTerms::cell_mass * phi.get_value(q), q);
              }
            phi.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
          }
      }

      void
      face(const MatrixFree<dim, double> &,
           VectorType                                  &dst,
           const VectorType                            &src,
           const std::pair<unsigned int, unsigned int> &range) const
      {
        if (!parts.inner)
          return;
        FEFaceEvaluation<dim, -1, 0, nc, double> phi_m(data, true), phi_p(data, false);
        for (unsigned int face = range.first; face < range.second; ++face)
          {
            phi_m.reinit(face);
            phi_p.reinit(face);
            phi_m.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            phi_p.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            for (unsigned int q = 0; q < phi_m.n_q_points; ++q)
              {
                const auto jump_u = phi_m.get_value(q) - phi_p.get_value(q);
                const auto jump_d = phi_m.get_normal_derivative(q) - phi_p.get_normal_derivative(q);
                const auto t      = FaceTerms::sigma * jump_u + FaceTerms::a * jump_d;
                const auto s      = FaceTerms::b * jump_d + FaceTerms::c * jump_u;
                phi_m.submit_value(t, q);
                phi_p.submit_value(-t, q);
                phi_m.submit_normal_derivative(s, q);
                phi_p.submit_normal_derivative(-s, q);
              }
            phi_m.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
            phi_p.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
          }
      }

      void
      boundary(const MatrixFree<dim, double> &,
               VectorType                                  &dst,
               const VectorType                            &src,
               const std::pair<unsigned int, unsigned int> &range) const
      {
        if (!parts.boundary)
          return;
        FEFaceEvaluation<dim, -1, 0, nc, double> phi(data, true);
        for (unsigned int face = range.first; face < range.second; ++face)
          {
            phi.reinit(face);
            phi.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
            const unsigned int id = data.get_boundary_id(face);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              {
                const auto u     = phi.get_value(q);
                const auto d     = phi.get_normal_derivative(q);
                const T    alpha = FaceTerms::alpha<T>(phi.quadrature_point(q)[0], id);
                phi.submit_value(alpha * u + FaceTerms::e * d, q);
                phi.submit_normal_derivative(FaceTerms::f * u, q);
              }
            phi.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
          }
      }

      const MatrixFree<dim, double> &data;
      const FaceLoopParts            parts;
    };
  } // namespace

  template <int dim>
  LinearAlgebra::ReadWriteVector<double>
  dealii_face_loop(const Mapping<dim>                                            &mapping,
                   const DoFHandler<dim>                                         &dof_handler,
                   const AffineConstraints<double>                               &constraints,
                   const unsigned int                                             n_q_points_1d,
                   const FaceLoopParts                                            parts,
                   const std::uint64_t                                            seed,
                   const std::function<double(const Point<dim> &, unsigned int)> &src_at_support_point)
  {
    typename MatrixFree<dim, double>::AdditionalData additional_data;
    additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
    additional_data.mapping_update_flags  = update_values | update_gradients | update_JxW_values;
    additional_data.mapping_update_flags_inner_faces =
      update_values | update_gradients | update_JxW_values | update_normal_vectors;
    additional_data.mapping_update_flags_boundary_faces =
      update_values | update_gradients | update_JxW_values | update_normal_vectors | update_quadrature_points;
    MatrixFree<dim, double> data;
    data.reinit(mapping, dof_handler, constraints, QGauss<1>(n_q_points_1d), additional_data);
    LinearAlgebra::distributed::Vector<double> src, dst;
    data.initialize_dof_vector(src);
    data.initialize_dof_vector(dst);
    fill_random(src, seed);
    if (src_at_support_point)
      {
        std::map<types::global_dof_index, Point<dim>> points;
        DoFTools::map_dofs_to_support_points(mapping, dof_handler, points);
        std::vector<types::global_dof_index> indices(dof_handler.get_fe().n_dofs_per_cell());
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              cell->get_dof_indices(indices);
              for (unsigned int i = 0; i < indices.size(); ++i)
                if (src.locally_owned_elements().is_element(indices[i]))
                  src(indices[i]) = src_at_support_point(points.at(indices[i]),
                                                         dof_handler.get_fe().system_to_component_index(i).first);
            }
      }
    // (constrained entries of the source are read through the constraints, not as they are)
    if (dof_handler.get_fe().n_components() == 1)
      Operator<dim, 1>(data, parts).vmult(dst, src);
    else if (dof_handler.get_fe().n_components() == 2)
      Operator<dim, 2>(data, parts).vmult(dst, src);
    else
      AssertThrow(false, ExcNotImplemented("dealii_face_loop: 1 or 2 components"));
    return to_rw(dst);
  }

  namespace
  {
    template <int dim>
    typename MatrixFree<dim, double>::AdditionalData
    boundary_data()
    {
      typename MatrixFree<dim, double>::AdditionalData additional_data;
      additional_data.tasks_parallel_scheme = MatrixFree<dim, double>::AdditionalData::none;
      additional_data.mapping_update_flags  = update_values | update_gradients | update_JxW_values;
      additional_data.mapping_update_flags_boundary_faces =
        update_values | update_JxW_values | update_normal_vectors | update_quadrature_points;
      return additional_data;
    }

    bool
    in_mask(const unsigned int mask, const unsigned int id)
    {
      return id < 32 && ((mask >> id) & 1u) != 0;
    }
  } // namespace

  template <int dim>
  LinearAlgebra::ReadWriteVector<double>
  dealii_robin_helmholtz(const Mapping<dim>              &mapping,
                         const DoFHandler<dim>           &dof_handler,
                         const AffineConstraints<double> &constraints,
                         const unsigned int               n_q_points_1d,
                         const unsigned int               robin_mask,
                         const std::uint64_t              seed)
  {
    using VectorType = LinearAlgebra::distributed::Vector<double>;
    MatrixFree<dim, double> data;
    data.reinit(mapping, dof_handler, constraints, QGauss<1>(n_q_points_1d), boundary_data<dim>());
    VectorType src, dst;
    data.initialize_dof_vector(src);
    data.initialize_dof_vector(dst);
    fill_random(src, seed);
    const auto cell = [](const MatrixFree<dim, double>               &mf,
                         VectorType                                  &dst,
                         const VectorType                            &src,
                         const std::pair<unsigned int, unsigned int> &range) {
      FEEvaluation<dim, -1, 0, 1, double> phi(mf);
      for (unsigned int c = range.first; c < range.second; ++c)
        {
          phi.reinit(c);
          phi.gather_evaluate(src, EvaluationFlags::values | EvaluationFlags::gradients);
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            {
              phi.submit_gradient(phi.get_gradient(q), q);
              phi.submit_value(phi.get_value(q), q);
            }
          phi.integrate_scatter(EvaluationFlags::values | EvaluationFlags::gradients, dst);
        }
    };
    const auto inner    = [](const MatrixFree<dim, double> &,
                          VectorType &,
                          const VectorType &,
                          const std::pair<unsigned int, unsigned int> &) {};
    const auto boundary = [robin_mask](const MatrixFree<dim, double>               &mf,
                                       VectorType                                  &dst,
                                       const VectorType                            &src,
                                       const std::pair<unsigned int, unsigned int> &range) {
      FEFaceEvaluation<dim, -1, 0, 1, double> phi(mf, true);
      for (unsigned int face = range.first; face < range.second; ++face)
        {
          const unsigned int id = mf.get_boundary_id(face);
          if (!in_mask(robin_mask, id))
            continue;
          phi.reinit(face);
          phi.gather_evaluate(src, EvaluationFlags::values);
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            phi.submit_value(FaceTerms::alpha<VectorizedArray<double>>(phi.quadrature_point(q)[0], id) *
                               phi.get_value(q),
                             q);
          phi.integrate_scatter(EvaluationFlags::values, dst);
        }
    };
    data.loop(std::function<void(const MatrixFree<dim, double> &,
                                 VectorType &,
                                 const VectorType &,
                                 const std::pair<unsigned int, unsigned int> &)>(cell),
              std::function<void(const MatrixFree<dim, double> &,
                                 VectorType &,
                                 const VectorType &,
                                 const std::pair<unsigned int, unsigned int> &)>(inner),
              std::function<void(const MatrixFree<dim, double> &,
                                 VectorType &,
                                 const VectorType &,
                                 const std::pair<unsigned int, unsigned int> &)>(boundary),
              dst,
              src,
              true);
    // (constrained rows as the identity, as gpumf's MatrixFreeOperators::Base)
    for (const auto i : dst.locally_owned_elements())
      if (constraints.is_constrained(i))
        dst(i) = src(i);
    return to_rw(dst);
  }

  template <int dim>
  LinearAlgebra::ReadWriteVector<double>
  dealii_boundary_rhs(const Mapping<dim>              &mapping,
                      const DoFHandler<dim>           &dof_handler,
                      const AffineConstraints<double> &constraints,
                      const unsigned int               n_q_points_1d,
                      const unsigned int               mask)
  {
    using VectorType = LinearAlgebra::distributed::Vector<double>;
    MatrixFree<dim, double> data;
    data.reinit(mapping, dof_handler, constraints, QGauss<1>(n_q_points_1d), boundary_data<dim>());
    VectorType src, dst;
    data.initialize_dof_vector(src);
    data.initialize_dof_vector(dst);
    using Range = std::pair<unsigned int, unsigned int>;
    using Worker =
      std::function<void(const MatrixFree<dim, double> &, VectorType &, const VectorType &, const Range &)>;
    const Worker none = [](const MatrixFree<dim, double> &, VectorType &, const VectorType &, const Range &) {};
    const Worker bounds =
      [mask](const MatrixFree<dim, double> &mf, VectorType &dst, const VectorType &, const Range &range) {
        FEFaceEvaluation<dim, -1, 0, 1, double> phi(mf, true);
        for (unsigned int face = range.first; face < range.second; ++face)
          {
            const unsigned int id = mf.get_boundary_id(face);
            if (!in_mask(mask, id))
              continue;
            phi.reinit(face);
            for (unsigned int q = 0; q < phi.n_q_points; ++q)
              phi.submit_value(FaceTerms::alpha<VectorizedArray<double>>(phi.quadrature_point(q)[0], 0), q);
            phi.integrate_scatter(EvaluationFlags::values, dst);
          }
      };
    data.loop(none, none, bounds, dst, src, true);
    return to_rw(dst);
  }

  template LinearAlgebra::ReadWriteVector<double>
  dealii_robin_helmholtz<2>(const Mapping<2> &,
                            const DoFHandler<2> &,
                            const AffineConstraints<double> &,
                            unsigned int,
                            unsigned int,
                            std::uint64_t);
  template LinearAlgebra::ReadWriteVector<double>
  dealii_robin_helmholtz<3>(const Mapping<3> &,
                            const DoFHandler<3> &,
                            const AffineConstraints<double> &,
                            unsigned int,
                            unsigned int,
                            std::uint64_t);
  template LinearAlgebra::ReadWriteVector<double>
  dealii_boundary_rhs<2>(const Mapping<2> &,
                         const DoFHandler<2> &,
                         const AffineConstraints<double> &,
                         unsigned int,
                         unsigned int);
  template LinearAlgebra::ReadWriteVector<double>
  dealii_boundary_rhs<3>(const Mapping<3> &,
                         const DoFHandler<3> &,
                         const AffineConstraints<double> &,
                         unsigned int,
                         unsigned int);

  template LinearAlgebra::ReadWriteVector<double>
  dealii_face_loop<2>(const Mapping<2> &,
                      const DoFHandler<2> &,
                      const AffineConstraints<double> &,
                      unsigned int,
                      FaceLoopParts,
                      std::uint64_t,
                      const std::function<double(const Point<2> &, unsigned int)> &);
  template LinearAlgebra::ReadWriteVector<double>
  dealii_face_loop<3>(const Mapping<3> &,
                      const DoFHandler<3> &,
                      const AffineConstraints<double> &,
                      unsigned int,
                      FaceLoopParts,
                      std::uint64_t,
                      const std::function<double(const Point<3> &, unsigned int)> &);
} // namespace test
