/**
 * @file gpumf/solver_cg.h
 * gpumf::SolverCG: preconditioned conjugate gradients on gpumf::Vector with fused vector
 * updates. deal.II equivalent: SolverCG<VectorType> (lac/solver_cg.h), same algorithm,
 * same SolverControl semantics (convergence test on the unpreconditioned residual norm,
 * SolverControl::NoConvergence thrown on failure).
 */
#ifndef gpumf_solver_cg_h
#define gpumf_solver_cg_h

#include <gpumf/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/vector_memory.h>

#include <cmath>
#include <type_traits>
#include <utility>

namespace gpumf
{
  /**
   * Conjugate gradients with the vector work of an iteration in three passes over memory
   * besides the operator (deal.II's SolverCG with DiagonalMatrix makes seven):
   * @verbatim
   *   pass 1   p.Ap                                      reads p, Ap (none where the operator has
   *                                                      vmult_and_dot(): its cells sum it)
   *   pass 2   x += alpha p, r += alpha Ap, r.r, r.(D r)   reads x, p, r, Ap, D; writes x, r
   *   pass 3   p = -D r + beta p                         reads D, r, p; writes p
   * @endverbatim
   * D is the inverse diagonal (Jacobi) or the identity (no array read). The two sums of
   * pass 2 travel in one MPI reduction. Works with every operator that has
   * vmult(Vector &, const Vector &), e.g. the ready operators of gpumf/operators.h.
   */
  template <typename Number>
  class SolverCG
  {
  public:
    using VectorType = Vector<Number>;

    /// The control decides convergence and counts steps, as for deal.II's solvers.
    explicit SolverCG(dealii::SolverControl &control)
      : control(control)
    {}

    /// Solves A x = b without preconditioner; x is the start value.
    template <typename MatrixType>
    void
    solve(const MatrixType &A, VectorType &x, const VectorType &b, const dealii::PreconditionIdentity &)
    {
      run(A, x, b, nullptr);
    }

    /// Solves A x = b with the Jacobi preconditioner @p inverse_diagonal (e.g. an operator's
    /// get_matrix_diagonal_inverse()).
    template <typename MatrixType>
    void
    solve(const MatrixType                         &A,
          VectorType                               &x,
          const VectorType                         &b,
          const dealii::DiagonalMatrix<VectorType> &inverse_diagonal)
    {
      run(A, x, b, &inverse_diagonal.get_vector());
    }

  private:
    dealii::SolverControl &control;
    /// The three vectors of an iteration come from deal.II's pool of vectors, as deal.II's
    /// solvers take theirs: a solver made for each solve reuses the last one's vectors with
    /// their message buffers and, with the ipc exchange, their links to the neighbours' memory
    /// (a new vector connects at its first exchange: milliseconds a vector where ranks share
    /// GPUs, measured in doc/performance.md, "Several GPUs").
    dealii::GrowingVectorMemory<VectorType> memory;

    template <typename MatrixType>
    void
    run(const MatrixType &A, VectorType &x, const VectorType &b, const VectorType *D)
    {
      typename dealii::VectorMemory<VectorType>::Pointer r_ptr(memory), p_ptr(memory), Ap_ptr(memory);
      VectorType                                        &r = *r_ptr, &p = *p_ptr, &Ap = *Ap_ptr;
      r.reinit(x, true);
      p.reinit(x, true);
      Ap.reinit(x, true);
      A.vmult(r, x);
      r.add(Number(-1), b);
      // r.r and r.(D r) of the start residual: pass 3 with beta = 0 gives p = -D r
      Number                       rr    = r.norm_sqr();
      dealii::SolverControl::State state = control.check(0, std::sqrt(rr));
      if (state != dealii::SolverControl::iterate)
        return finish(state);
      Number rDr = initial_direction(r, p, D, rr);
      for (unsigned int it = 1; state == dealii::SolverControl::iterate; ++it)
        {
          const Number pAp = apply_and_dot(A, Ap, p);
          AssertThrow(pAp != Number(0) && std::isfinite(pAp),
                      dealii::ExcMessage("gpumf::SolverCG: p.Ap = " + std::to_string(pAp) +
                                         ": the operator is not positive definite (or not finite)."));
          const Number alpha = rDr / pAp;
          const auto   sums  = update(x, r, p, Ap, D, alpha);
          state              = control.check(it, std::sqrt(sums.first));
          if (state != dealii::SolverControl::iterate)
            break;
          const Number beta = sums.second / rDr;
          rDr               = sums.second;
          direction(p, r, D, beta);
        }
      finish(state);
    }

    /// Ap = A p and p . Ap: by the operator's vmult_and_dot() where it has one (the ready
    /// operators: on the GPU in the cell kernel), else vmult() and the dot product (pass 1).
    template <typename MatrixType>
    static Number
    apply_and_dot(const MatrixType &A, VectorType &Ap, const VectorType &p)
    {
      if constexpr (has_vmult_and_dot<MatrixType>::value)
        return A.vmult_and_dot(Ap, p);
      else
        {
          A.vmult(Ap, p);
          return p * Ap;
        }
    }

    template <typename MatrixType, typename = void>
    struct has_vmult_and_dot : std::false_type
    {};

    template <typename MatrixType>
    struct has_vmult_and_dot<
      MatrixType,
      std::void_t<decltype(std::declval<const MatrixType &>().vmult_and_dot(std::declval<VectorType &>(),
                                                                            std::declval<const VectorType &>()))>>
      : std::true_type
    {};

    void
    finish(const dealii::SolverControl::State state) const
    {
      AssertThrow(state == dealii::SolverControl::success,
                  dealii::SolverControl::NoConvergence(control.last_step(), control.last_value()));
    }

    /// p = -D r; returns r.(D r) (= @p rr without D).
    static Number
    initial_direction(const VectorType &r, VectorType &p, const VectorType *D, const Number rr);

    /// Pass 2: x += alpha p, r += alpha Ap; returns (r.r, r.(D r)) summed over all ranks.
    static std::pair<Number, Number>
    update(VectorType       &x,
           VectorType       &r,
           const VectorType &p,
           const VectorType &Ap,
           const VectorType *D,
           const Number      alpha);

    /// Pass 3: p = -D r + beta p.
    static void
    direction(VectorType &p, const VectorType &r, const VectorType *D, const Number beta);
  };
} // namespace gpumf

#endif
