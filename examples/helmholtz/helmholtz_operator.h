// A gpumf Helmholtz operator -div(grad u) + a(x) u, written as a deal.II 9.4 GPU user
// would: a coefficient functor, a quadrature-point functor and a cell functor; with an
// impedance (Robin) boundary, a boundary face functor for MatrixFree::loop() too.
#ifndef gpumf_examples_helmholtz_operator_h
#define gpumf_examples_helmholtz_operator_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/fe_face_evaluation.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/base/quadrature_lib.h>

#include "coefficient.h"

namespace helmholtz
{
  template <int dim, int fe_degree, typename Number>
  struct CoefficientFunctor
  {
    Number *coef;

    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
    static constexpr unsigned int n_local_dofs = dealii::Utilities::pow(n_dofs_1d, dim);
    static constexpr unsigned int n_q_points   = n_local_dofs;

    __host__ __device__ void
    operator()(const unsigned int cell, const typename gpumf::MatrixFree<dim, Number>::Data *data) const
    {
      const unsigned int pos = gpumf::local_q_point_id<dim, Number>(cell, data, n_dofs_1d, n_q_points);
      coef[pos]              = helmholtz_coefficient(gpumf::get_quadrature_point<dim, Number>(cell, data, n_dofs_1d));
    }
  };

  template <int dim, int fe_degree, typename Number>
  struct HelmholtzQuad
  {
    Number coef;

    __host__ __device__ void
    operator()(gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, Number> *phi) const
    {
      phi->submit_value(coef * phi->get_value());
      phi->submit_gradient(phi->get_gradient());
    }
  };

  template <int dim, int fe_degree, typename Number>
  struct LocalHelmholtz
  {
    Number *coef;

    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
    static constexpr unsigned int n_local_dofs = dealii::Utilities::pow(n_dofs_1d, dim);
    static constexpr unsigned int n_q_points   = n_local_dofs;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number                                        *src,
               Number                                              *dst) const
    {
      const unsigned int pos = gpumf::local_q_point_id<dim, Number>(cell, data, n_dofs_1d, n_q_points);
      gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, Number> phi(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(true, true);
      phi.apply_for_each_quad_point(HelmholtzQuad<dim, fe_degree, Number>{coef[pos]});
      phi.integrate(true, true);
      phi.distribute_local_to_global(dst);
    }
  };

  /// The impedance term (beta u, v) on the boundary faces with id @p id: a boundary face
  /// functor of MatrixFree::loop(), one FEFaceEvaluation on the face's (interior) cell.
  template <int dim, int fe_degree, typename Number>
  struct ImpedanceFace
  {
    Number       beta;
    unsigned int id;

    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
    static constexpr unsigned int n_local_dofs = dealii::Utilities::pow(n_dofs_1d, dim);
    static constexpr unsigned int n_q_points   = n_local_dofs;

    __host__ __device__ void
    operator()(const unsigned int                                   face,
               const typename gpumf::MatrixFree<dim, Number>::Data *data,
               gpumf::SharedData<dim, Number>                      *shared,
               const Number                                        *src,
               Number                                              *dst) const
    {
      using FaceEval = gpumf::FEFaceEvaluation<dim, fe_degree, fe_degree + 1, 1, Number>;
      FaceEval phi(face, data, shared, true);
      if (phi.boundary_id() != id)
        return;
      phi.read_dof_values(src);
      phi.evaluate(gpumf::EvaluationFlags::values);
      const Number b = beta;
      phi.apply_for_each_quad_point(
        [b](FaceEval *p, const unsigned int q) { p->submit_value(b * p->get_value(q), q); });
      phi.integrate(gpumf::EvaluationFlags::values);
      phi.distribute_local_to_global(dst);
    }
  };

  /// dst = A src on the unconstrained DoFs, dst = src on the constrained ones; A with the
  /// impedance term beta on the faces of boundary id @p impedance_id where beta is not zero.
  template <int dim, int fe_degree, typename Number = double>
  class HelmholtzOperator
  {
  public:
    void
    reinit(const dealii::Mapping<dim>              &mapping,
           const dealii::DoFHandler<dim>           &dof_handler,
           const dealii::AffineConstraints<Number> &constraints,
           const bool                               use_coloring,
           const gpumf::Backend                     backend,
           const Number                             impedance    = 0,
           const unsigned int                       impedance_id = 1)
    {
      typename gpumf::MatrixFree<dim, Number>::AdditionalData data;
      data.use_coloring = use_coloring;
      data.backend      = backend;
      impedance_face    = {impedance, impedance_id};
      // the boundary faces (their points, JxW and normals) for the impedance term
      if (impedance != Number(0))
        data.mapping_update_flags_boundary_faces =
          dealii::update_values | dealii::update_JxW_values | dealii::update_quadrature_points;
      mf.reinit(mapping, dof_handler, constraints, dealii::QGauss<1>(fe_degree + 1), data);
      coef.reinit(std::make_shared<dealii::Utilities::MPI::Partitioner>(
                    mf.n_cells() * LocalHelmholtz<dim, fe_degree, Number>::n_q_points),
                  backend);
      mf.evaluate_coefficients(CoefficientFunctor<dim, fe_degree, Number>{coef.get_values()});
    }

    void
    vmult(gpumf::Vector<Number> &dst, const gpumf::Vector<Number> &src) const
    {
      dst = Number();
      mf.cell_loop(LocalHelmholtz<dim, fe_degree, Number>{coef.get_values()}, src, dst);
      if (impedance_face.beta != Number(0))
        mf.loop(nullptr, nullptr, impedance_face, dst, src, false);
      mf.copy_constrained_values(src, dst);
    }

    void
    initialize_dof_vector(gpumf::Vector<Number> &v) const
    {
      mf.initialize_dof_vector(v);
    }

    const gpumf::MatrixFree<dim, Number> &
    matrix_free() const
    {
      return mf;
    }

  private:
    gpumf::MatrixFree<dim, Number>        mf;
    gpumf::Vector<Number>                 coef;
    ImpedanceFace<dim, fe_degree, Number> impedance_face{Number(0), 1};
  };
} // namespace helmholtz

#endif
