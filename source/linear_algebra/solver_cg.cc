// The fused vector passes of gpumf::SolverCG on one rank's entries (host loops or CUDA
// kernels, vector_kernels.h), with the MPI sums.
#include <gpumf/solver_cg.h>

#include "core/faults.h"
#include "core/run_profile.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  namespace
  {
    template <typename Number>
    const Number *
    values_or_null(const Vector<Number> *D)
    {
      return D != nullptr ? D->get_values() : nullptr;
    }

    template <typename Number>
    void
    check_compatible(const Vector<Number> &a, const Vector<Number> *D)
    {
      AssertThrow(D == nullptr || (D->backend() == a.backend() && D->locally_owned_size() == a.locally_owned_size()),
                  ExcVectorMismatch("the preconditioner's diagonal (backend " + to_string(D->backend()) + ", " +
                                      std::to_string(D->locally_owned_size()) + " local entries)",
                                    "the solution vector (backend " + to_string(a.backend()) + ", " +
                                      std::to_string(a.locally_owned_size()) + " local entries)"));
    }
  } // namespace

  template <typename Number>
  Number
  SolverCG<Number>::initial_direction(const VectorType &r, VectorType &p, const VectorType *D, const Number rr)
  {
    check_compatible(r, D);
    GPUMF_DISPATCH(
      r.backend(),
      cg_direction(p.get_values(), r.get_values(), values_or_null(D), Number(), false, r.locally_owned_size()));
    return D != nullptr ? -(r * p) : rr;
  }

  template <typename Number>
  std::pair<Number, Number>
  SolverCG<Number>::update(VectorType       &x,
                           VectorType       &r,
                           const VectorType &p,
                           const VectorType &Ap,
                           const VectorType *D,
                           const Number      alpha)
  {
    Number sums[2];
    GPUMF_DISPATCH(x.backend(),
                   cg_update(x.get_values(),
                             r.get_values(),
                             p.get_values(),
                             Ap.get_values(),
                             values_or_null(D),
                             alpha,
                             x.locally_owned_size(),
                             sums));
    Number             global[2];
    internal::RunTimer timer(internal::RunPart::reduction_mpi);
    dealii::Utilities::MPI::sum(dealii::ArrayView<const Number>(sums, 2),
                                x.get_mpi_communicator(),
                                dealii::ArrayView<Number>(global, 2));
    internal::note_completed(dealii::Utilities::MPI::n_mpi_processes(x.get_mpi_communicator()));
    return {global[0], global[1]};
  }

  template <typename Number>
  void
  SolverCG<Number>::direction(VectorType &p, const VectorType &r, const VectorType *D, const Number beta)
  {
    GPUMF_DISPATCH(r.backend(),
                   cg_direction(p.get_values(), r.get_values(), values_or_null(D), beta, true, r.locally_owned_size()));
  }

  template class SolverCG<float>;
  template class SolverCG<double>;
} // namespace gpumf
