/**
 * @file examples/elasticity/dealii_solver.h
 * The cantilever solved with deal.II's CPU MatrixFree: the reference the example compares
 * gpumf's solve with. deal.II's matrix_free headers are written for a host compiler: they are
 * included by dealii_solver.cc only (g++), and this interface is all elasticity.cu sees of them.
 */
#ifndef gpumf_examples_elasticity_dealii_solver_h
#define gpumf_examples_elasticity_dealii_solver_h

#include "cantilever.h"

namespace cantilever
{
  /// The method of elasticity.cu on deal.II's CPU MatrixFree: an elasticity operator on
  /// MatrixFreeOperators::Base with FEEvaluation's symmetric gradient, its diagonal from
  /// MatrixFreeTools::compute_diagonal(), MGTransferMatrixFree, the same Chebyshev smoothers,
  /// Multigrid and SolverCG; Result::sag filled.
  Result
  solve_with_dealii(const Problem &problem);
} // namespace cantilever

#endif
