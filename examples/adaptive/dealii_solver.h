/**
 * @file examples/adaptive/dealii_solver.h
 * The reference solve of the adaptive Poisson tutorial with deal.II's CPU MatrixFree and
 * MatrixFreeOperators::LaplaceOperator. deal.II's matrix_free headers are written for a host
 * compiler: they are included by dealii_solver.cc only (g++), and this interface is all that
 * adaptive.cu (nvcc) sees of them.
 */
#ifndef gpumf_examples_adaptive_dealii_solver_h
#define gpumf_examples_adaptive_dealii_solver_h

#include "problem.h"

namespace adaptive
{
  /**
   * Solves the Poisson problem of @p problem for the current mesh with the inhomogeneous-
   * Dirichlet recipe of adaptive.cu, on the CPU: two deal.II MatrixFree objects (all
   * constraints, hanging nodes only), LaplaceOperator, SolverCG with its Jacobi preconditioner
   * (LaplaceOperator::compute_diagonal). @p system_rhs is Problem::assemble_rhs()'s vector;
   * @p solution receives u with ghost values (layout of Problem::initialize_vector()).
   * FE_Q degrees 1 to 4.
   */
  template <int dim>
  SolverResult
  solve_with_dealii(const Problem<dim> &problem, const VectorType &system_rhs, VectorType &solution);
} // namespace adaptive

#endif
