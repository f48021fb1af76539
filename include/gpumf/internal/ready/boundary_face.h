/**
 * @file gpumf/internal/ready/boundary_face.h
 * The boundary face functors of the ready operators and of VectorTools: the Robin term
 * (beta u, v) on the boundary (CoefficientOperator::set_boundary_coefficient()) and the
 * boundary load vector (VectorTools::create_boundary_right_hand_side()), for MatrixFree::loop()
 * and loop_diagonal() on a continuous element. Data per face point is indexed by
 * FEFaceEvaluation::face_index() * n_face_points + q.
 */
#ifndef gpumf_internal_ready_boundary_face_h
#define gpumf_internal_ready_boundary_face_h

#include <gpumf/fe_face_evaluation.h>
#include <gpumf/matrix_free.h>

#include <deal.II/base/exceptions.h>

#include <string>

namespace gpumf
{
  namespace internal
  {
    /// The bit set of boundary ids @p ids (0 to 31; others throw, naming @p who).
    template <typename Ids>
    unsigned int
    boundary_mask(const Ids &ids, const std::string &who)
    {
      unsigned int mask = 0;
      for (const auto id : ids)
        {
          AssertThrow(id < 32,
                      dealii::ExcMessage(who + ": boundary id " + std::to_string(id) + "; ids 0 to 31 are supported."));
          mask |= 1u << id;
        }
      return mask;
    }

    /// Whether boundary id @p id is in the bit set @p mask (ids 0 to 31).
    __host__ __device__ inline bool
    in_boundary_mask(const unsigned int mask, const unsigned int id)
    {
      return id < 32 && ((mask >> id) & 1u) != 0;
    }

    /**
     * (beta u, v) on the boundary faces whose id is in @p mask, beta per face point (@p beta,
     * face_index() * n_face_points + q); each of the @p n_components components alike.
     */
    template <int dim, int fe_degree, int n_q_points_1d, int n_components_, typename Number>
    struct RobinFaceOperator
    {
      using FaceEval = FEFaceEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number>;

      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_local_dofs = FaceEval::dofs_per_cell;
      static constexpr unsigned int n_q_points   = ipow(n_q_points_1d, dim);
      static constexpr unsigned int n_components = n_components_;

      const Number *beta = nullptr;
      unsigned int  mask = 0;

      __host__ __device__ void
      operator()(const unsigned int                            face,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst) const
      {
        FaceEval phi(face, data, shared, true);
        if (!in_boundary_mask(mask, phi.boundary_id()))
          return;
        phi.read_dof_values(src);
        phi.evaluate(EvaluationFlags::values);
        const Number *b = beta + std::size_t(phi.face_index()) * FaceEval::n_q_points;
        phi.apply_for_each_quad_point(
          [b](FaceEval *p, const unsigned int q) { p->submit_value(read_only(b + q) * p->get_value(q), q); });
        phi.integrate(EvaluationFlags::values);
        phi.distribute_local_to_global(dst);
      }
    };
  } // namespace internal
} // namespace gpumf

#endif
