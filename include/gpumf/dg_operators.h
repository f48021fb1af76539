/**
 * @file gpumf/dg_operators.h
 * Ready-made discontinuous Galerkin operators: the symmetric interior penalty Laplacian of
 * deal.II's step-59 (MatrixFree::loop()) and the inverse mass matrix (cell by cell).
 */
#ifndef gpumf_dg_operators_h
#define gpumf_dg_operators_h

#include <gpumf/cellwise_inverse_mass_matrix.h>
#include <gpumf/fe_evaluation.h>
#include <gpumf/fe_face_evaluation.h>
#include <gpumf/internal/ready/boundary_face.h>
#include <gpumf/internal/diagonal.h>
#include <gpumf/internal/sipg_kernel.cuh>
#include <gpumf/matrix_free.h>
#include <gpumf/operator_base.h>

#include <deal.II/base/types.h>
#include <deal.II/lac/diagonal_matrix.h>

#include <memory>
#include <set>
#include <string>

namespace gpumf
{
  /**
   * The symmetric interior-penalty (SIPG) Laplacian of deal.II's step-59 on a discontinuous
   * element (FE_DGQ, FE_DGQHermite, FE_DGQLegendre, ...):
   * @f[
   *   (\nabla u, \nabla v)_K - \langle [u], \{\partial_n v\} \rangle_F - \langle \{\partial_n u\}, [v] \rangle_F
   *   + \langle \sigma [u], [v] \rangle_F
   * @f]
   * with sigma = penalty_factor * 1/2 (|(n J^-T_-)[dim-1]| + |(n J^-T_+)[dim-1]|) at each face
   * point, the inverse cell sizes normal to the face (step-59 takes it at the face's first
   * point, the same on affine meshes), penalty_factor = p (p + 1) by default. Boundary faces
   * with an id in the Dirichlet set mirror u+ = -u- (homogeneous Dirichlet, weakly), the others
   * u+ = u- (homogeneous Neumann).
   *
   * The MatrixFree object needs faces (AdditionalData::mapping_update_flags_inner_faces and
   * _boundary_faces). The functors are public: a program that adds terms writes its own
   * functors with these as the starting point.
   *
   * On the GPU, vmult() runs a fused kernel (internal/sipg_kernel.cuh) in 3D with
   * n_q_points_1d = fe_degree + 1 and fe_degree 1 to 8 on meshes without hanging faces: the
   * same operator as MatrixFree::loop() with these functors, which runs otherwise (and on the
   * host backend, and for compute_diagonal()). uses_fused_kernel() tells which (and lists the
   * conditions); use_fused_kernel(false) turns it off.
   *
   * The accessors, vmult_add(), the diagonal and Jacobi come from MatrixFreeOperators::Base.
   */
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, typename Number = double>
  class SIPGLaplaceOperator : public MatrixFreeOperators::Base<dim, Vector<Number>>
  {
    using Base = MatrixFreeOperators::Base<dim, Vector<Number>>;

  public:
    using value_type = Number;
    using VectorType = Vector<Number>;
    using Data       = typename MatrixFree<dim, Number>::Data;
    using Shared     = SharedData<dim, Number>;
    using FaceEval   = FEFaceEvaluation<dim, fe_degree, n_q_points_1d, 1, Number>;
    using CellEval   = FEEvaluation<dim, fe_degree, n_q_points_1d, 1, Number>;

    /// Sizes every functor declares.
    struct Sizes
    {
      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_local_dofs = internal::ipow(fe_degree + 1, dim);
      static constexpr unsigned int n_q_points   = internal::ipow(n_q_points_1d, dim);
    };

    /// (grad u, grad v) on each cell.
    struct CellOperation : Sizes
    {
      __host__ __device__ void
      operator()(const unsigned int cell, const Data *data, Shared *shared, const Number *src, Number *dst) const
      {
        CellEval phi(cell, data, shared);
        phi.read_dof_values(src);
        phi.evaluate(false, true);
        phi.apply_for_each_quad_point(
          [](CellEval *p, const unsigned int q) { p->submit_gradient(p->get_gradient(q), q); });
        phi.integrate(false, true);
        phi.distribute_local_to_global(dst);
      }
    };

    /// The jump and average terms on an inner face.
    struct InnerFaceOperation : Sizes
    {
      static constexpr unsigned int n_fe_evaluations = 2;
      Number                        penalty_factor;

      __host__ __device__ void
      operator()(const unsigned int face, const Data *data, Shared *shared, const Number *src, Number *dst) const
      {
        FaceEval phi_m(face, data, shared, true), phi_p(face, data, shared, false);
        phi_m.read_dof_values(src);
        phi_m.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
        phi_p.read_dof_values(src);
        phi_p.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
        const Number penalty = penalty_factor;
        phi_m.apply_for_each_quad_point([&](FaceEval *, const unsigned int q) {
          const Number sigma = Number(0.5) * penalty *
                               (absolute((phi_m.normal_vector(q) * phi_m.inverse_jacobian(q))[dim - 1]) +
                                absolute((phi_p.normal_vector(q) * phi_p.inverse_jacobian(q))[dim - 1]));
          const Number jump    = phi_m.get_value(q) - phi_p.get_value(q);
          const Number average = Number(0.5) * (phi_m.get_normal_derivative(q) + phi_p.get_normal_derivative(q));
          const Number test    = jump * sigma - average;
          phi_m.submit_value(test, q);
          phi_p.submit_value(-test, q);
          phi_m.submit_normal_derivative(Number(-0.5) * jump, q);
          phi_p.submit_normal_derivative(Number(-0.5) * jump, q);
        });
        phi_m.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
        phi_m.distribute_local_to_global(dst);
        phi_p.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
        phi_p.distribute_local_to_global(dst);
      }
    };

    /// The boundary terms: Dirichlet (u+ = -u-) where the face's id is in the mask, else Neumann.
    struct BoundaryFaceOperation : Sizes
    {
      Number penalty_factor;
      /// bit b: boundary id b is Dirichlet (ids 0 to 31)
      unsigned int dirichlet_mask;

      __host__ __device__ void
      operator()(const unsigned int face, const Data *data, Shared *shared, const Number *src, Number *dst) const
      {
        FaceEval phi(face, data, shared, true);
        phi.read_dof_values(src);
        phi.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
        const unsigned int id        = phi.boundary_id();
        const bool         dirichlet = id < 32 && ((dirichlet_mask >> id) & 1u) != 0;
        const Number       penalty   = penalty_factor;
        phi.apply_for_each_quad_point([&](FaceEval *p, const unsigned int q) {
          const Number sigma   = penalty * absolute((p->normal_vector(q) * p->inverse_jacobian(q))[dim - 1]);
          const Number jump    = dirichlet ? Number(2) * p->get_value(q) : Number(0);
          const Number average = dirichlet ? p->get_normal_derivative(q) : Number(0);
          p->submit_value(jump * sigma - average, q);
          p->submit_normal_derivative(Number(-0.5) * jump, q);
        });
        phi.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
        phi.distribute_local_to_global(dst);
      }
    };

    /**
     * Works on @p matrix_free (with faces). @p dirichlet_ids: the boundary ids with homogeneous
     * Dirichlet conditions (ids below 32); @p penalty_factor: 0 means p (p + 1), step-59's.
     */
    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free,
               const std::set<dealii::types::boundary_id>           &dirichlet_ids  = {0},
               const Number                                          penalty_factor = 0)
    {
      AssertThrow(matrix_free != nullptr && matrix_free->has_faces(),
                  ExcNotSupported("gpumf::SIPGLaplaceOperator needs a MatrixFree object with faces "
                                  "(AdditionalData::mapping_update_flags_inner_faces and _boundary_faces)."));
      AssertThrow(!matrix_free->has_continuous_faces(),
                  ExcNotSupported("gpumf::SIPGLaplaceOperator needs a discontinuous element (FE_DGQ and relatives); "
                                  "the MatrixFree object's element is continuous (its faces serve loop())."));
      Base::initialize(matrix_free);
      const unsigned int mask    = internal::boundary_mask(dirichlet_ids, "gpumf::SIPGLaplaceOperator (Dirichlet ids)");
      const Number       factor  = penalty_factor > 0 ? penalty_factor : Number(fe_degree * (fe_degree + 1));
      face_op.penalty_factor     = factor;
      boundary_op.penalty_factor = factor;
      boundary_op.dirichlet_mask = mask;
    }

    /// dst = A src.
    void
    vmult(VectorType &dst, const VectorType &src) const override
    {
      using Access = typename MatrixFree<dim, Number>::DataAccessOnFaces;
      if constexpr (fused_degree)
        if (uses_fused_kernel())
          {
            const MatrixFree<dim, Number> &mf = this->matrix_free();
            internal::check_face_loop_vectors(mf, dst, src);
            // the kernel writes the DoFs of the object's cells: the others (cells an iterator
            // filter left out) are zero, as after loop()
            const bool all_cells =
              std::size_t(mf.n_cells()) * Sizes::n_local_dofs == mf.get_vector_partitioner()->locally_owned_size();
            internal::run_face_loop(
              mf, &dst, !all_cells, &src, Access::gradients, [&](const unsigned char ghost_access) {
                AssertThrow((ghost_access == internal::FaceData<dim, Number>::ghosts_gradients),
                            dealii::ExcInternalError());
                internal::sipg_fused_apply<fe_degree + 1, Number>(
                  mf, src.get_values(), dst.get_values(), face_op.penalty_factor, boundary_op.dirichlet_mask);
              });
            return;
          }
      this->matrix_free().loop(cell_op, face_op, boundary_op, dst, src, true, Access::gradients, Access::gradients);
    }

    /**
     * True if vmult() runs the fused GPU kernel: the GPU backend, 3D, n_q_points_1d =
     * fe_degree + 1, fe_degree 1 to 8, a MatrixFree object of this degree, quadrature and one
     * component with each cell's DoFs in lexicographic order (FE_DGQ and its relatives), no
     * hanging faces (else MatrixFree::loop() with the functors, which also checks the object).
     */
    bool
    uses_fused_kernel() const
    {
      if (!fused_degree || !fused_enabled || this->data == nullptr || this->data->backend() != Backend::cuda)
        return false;
      const Data data = this->data->get_data(0);
      return data.n_dofs_1d == fe_degree + 1 && data.n_q_points_1d == n_q_points_1d && data.n_components == 1 &&
             data.faces.entry_metric != nullptr && data.faces.lexicographic_dofs &&
             data.inverse_shape_values != nullptr;
    }

    /// Turns the fused GPU kernel of vmult() on (the default, where it applies) or off.
    void
    use_fused_kernel(const bool enable)
    {
      fused_enabled = enable;
    }

    /**
     * Computes the operator's diagonal on the backend (MatrixFree::loop_diagonal() with the
     * operator's functors: each cell's matrix column by column, faces included) and its
     * inverse. A set-up step: dofs_per_cell applications of the operator's loop.
     */
    void
    compute_diagonal() override
    {
      VectorType diagonal;
      this->initialize_dof_vector(diagonal);
      this->matrix_free().loop_diagonal(cell_op, face_op, boundary_op, diagonal);
      this->set_diagonal(std::move(diagonal));
    }

    const CellOperation &
    cell_operation() const
    {
      return cell_op;
    }

    const InnerFaceOperation &
    inner_face_operation() const
    {
      return face_op;
    }

    const BoundaryFaceOperation &
    boundary_face_operation() const
    {
      return boundary_op;
    }

  protected:
    /// dst += the cells' and faces' contributions (MatrixFree::loop()).
    void
    apply_add(VectorType &dst, const VectorType &src) const override
    {
      using Access = typename MatrixFree<dim, Number>::DataAccessOnFaces;
      this->matrix_free().loop(cell_op, face_op, boundary_op, dst, src, false, Access::gradients, Access::gradients);
    }

  private:
    static constexpr bool fused_degree = dim == 3 && n_q_points_1d == fe_degree + 1 && fe_degree >= 1 && fe_degree <= 8;

    __host__ __device__ static Number
    absolute(const Number x)
    {
      return x < 0 ? -x : x;
    }

    CellOperation         cell_op;
    InnerFaceOperation    face_op{};
    BoundaryFaceOperation boundary_op{};
    bool                  fused_enabled = true;
  };

  /**
   * The inverse of the mass matrix of a discontinuous element, cell by cell
   * (CellwiseInverseMassMatrix): dst = M^-1 src, exact for FE_DGQ and relatives with
   * n_q_points_1d = fe_degree + 1 Gauss points, on any mesh (curved cells included). What
   * explicit DG time stepping applies after each operator evaluation (deal.II's step-67).
   * The mass matrix itself is MassOperator on the same MatrixFree object. Needs a MatrixFree
   * object of a discontinuous element with QGauss<1>(fe_degree + 1); faces are not needed.
   * The accessors, vmult_add() and the diagonal come from MatrixFreeOperators::Base.
   */
  template <int dim, int fe_degree, int n_components_ = 1, typename Number = double>
  class InverseMassOperator : public MatrixFreeOperators::Base<dim, Vector<Number>>
  {
  public:
    using value_type = Number;
    using VectorType = Vector<Number>;
    using Data       = typename MatrixFree<dim, Number>::Data;
    using Shared     = SharedData<dim, Number>;
    using CellEval   = FEEvaluation<dim, fe_degree, fe_degree + 1, n_components_, Number>;

    /// M_K^-1 on each cell.
    struct CellOperation
    {
      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_local_dofs = n_components_ * internal::ipow(fe_degree + 1, dim);
      static constexpr unsigned int n_q_points   = internal::ipow(fe_degree + 1, dim);
      static constexpr unsigned int n_components = n_components_;

      __host__ __device__ void
      operator()(const unsigned int cell, const Data *data, Shared *shared, const Number *src, Number *dst) const
      {
        CellEval phi(cell, data, shared);
        phi.read_dof_values(src);
        CellwiseInverseMassMatrix<dim, fe_degree, n_components_, Number> inverse(phi);
        inverse.apply();
        phi.distribute_local_to_global(dst);
      }
    };

    void
    initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &matrix_free)
    {
      using Strategy = typename MatrixFree<dim, Number>::ConflictStrategy;
      AssertThrow(matrix_free != nullptr && matrix_free->conflict_strategy() == Strategy::none,
                  ExcNotSupported("gpumf::InverseMassOperator needs a MatrixFree object of a discontinuous element "
                                  "(FE_DGQ and relatives, no constraints): a continuous element's mass matrix is "
                                  "not block diagonal."));
      AssertThrow(matrix_free->get_data(0).n_q_points_1d == fe_degree + 1,
                  ExcNotSupported("gpumf::InverseMassOperator needs QGauss<1>(fe_degree + 1) = " +
                                  std::to_string(fe_degree + 1) + " points per direction; the MatrixFree object has " +
                                  std::to_string(matrix_free->get_data(0).n_q_points_1d) + "."));
      MatrixFreeOperators::Base<dim, Vector<Number>>::initialize(matrix_free);
    }

    /// dst = M^-1 src.
    void
    vmult(VectorType &dst, const VectorType &src) const override
    {
      this->matrix_free().cell_loop(cell_op, src, dst, true);
    }

    /// The diagonal of M^-1 (MatrixFree::loop_diagonal()) and its inverse.
    void
    compute_diagonal() override
    {
      VectorType diagonal;
      this->initialize_dof_vector(diagonal);
      this->matrix_free().loop_diagonal(cell_op, nullptr, nullptr, diagonal);
      this->set_diagonal(std::move(diagonal));
    }

    const CellOperation &
    cell_operation() const
    {
      return cell_op;
    }

  protected:
    /// dst += M^-1 src.
    void
    apply_add(VectorType &dst, const VectorType &src) const override
    {
      this->matrix_free().cell_loop(cell_op, src, dst, false);
    }

  private:
    CellOperation cell_op;
  };
} // namespace gpumf

#endif
