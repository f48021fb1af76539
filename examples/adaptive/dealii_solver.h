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
   * Dirichlet recipe of adaptive.cu, on the CPU: a deal.II MatrixFree object with all
   * constraints, its LaplaceOperator, the right-hand side b - A u0 in one cell loop (the lift
   * read with read_dof_values_plain()), SolverCG with the exact Jacobi preconditioner.
   * @p solution receives u with ghost values (layout of Problem::initialize_vector()).
   * FE_Q degrees 1 to 4.
   */
  template <int dim>
  SolverResult
  solve_with_dealii(const Problem<dim> &problem, VectorType &solution);
} // namespace adaptive

#endif
