/**
 * @file examples/elasticity/cantilever.h
 * The problem of the elasticity example: a cantilever beam [0, 8] x [0, 1] x [0, 1] of an
 * isotropic material (Young's modulus 1, Poisson's ratio 0.3: lambda = 0.577, mu = 0.385)
 * clamped at x = 0 and sagging under its own weight (the body force (0, 0, -1e-3)): linear
 * elasticity, FESystem(FE_Q(2), 3), MappingQ1, 8 x 1 x 1 coarse cells refined uniformly. The
 * mesh, the DoFs (with the multigrid levels) and the constraints are plain deal.II on the host
 * (cantilever.cc); the two solvers (elasticity.cu: gpumf, dealii_solver.cc: deal.II's CPU
 * MatrixFree) take them from here and solve with the same method: CG to a relative residual of
 * 1e-8, preconditioned by a geometric-multigrid V-cycle in float (Chebyshev smoothing of degree 5
 * with the levels' diagonals, Chebyshev on the coarse level), as deal.II's step-37 does.
 */
#ifndef gpumf_examples_elasticity_cantilever_h
#define gpumf_examples_elasticity_cantilever_h

#include <deal.II/base/mg_level_object.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <memory>
#include <string>

namespace cantilever
{
  using namespace dealii;

  constexpr int    dim     = 3;
  constexpr int    degree  = 2;
  constexpr double length  = 8.;
  constexpr double young   = 1.;
  constexpr double poisson = 0.3;
  constexpr double lambda  = young * poisson / ((1. + poisson) * (1. - 2. * poisson));
  constexpr double mu      = young / (2. * (1. + poisson));
  /// The body force, (0, 0, -weight).
  constexpr double weight = 1e-3;

  /// The mesh, its DoFs (active and multigrid levels) and constraints: zero displacement on the
  /// clamped face x = 0 (boundary id 0).
  struct Problem
  {
    explicit Problem(const unsigned int n_refinements);

    parallel::distributed::Triangulation<dim> triangulation;
    FESystem<dim>                             fe;
    DoFHandler<dim>                           dof_handler;
    MappingQ1<dim>                            mapping;
    AffineConstraints<double>                 constraints;
    /// Seconds of the mesh, the DoFs and the constraints.
    double setup_seconds = 0;
  };

  /// What a solver reports.
  struct Result
  {
    unsigned int iterations = 0;
    /// |u| in l2 and the largest downward displacement (max of -u_z over the DoFs).
    double l2_norm = 0, sag = 0;
    /// Seconds: the operators, levels, transfer and smoothers; the right-hand side; CG.
    double setup_seconds = 0, rhs_seconds = 0, solve_seconds = 0;
  };

  /// The multigrid method both solvers share: the clamped face's DoFs (boundary id 0) zero on
  /// every level.
  void
  make_mg_constrained_dofs(const Problem &problem, MGConstrainedDoFs &mg_constrained_dofs);

  /// The constraints of multigrid level @p level: the clamped face's DoFs of
  /// @p mg_constrained_dofs (make_mg_constrained_dofs()).
  AffineConstraints<float>
  level_constraints(const Problem &problem, const MGConstrainedDoFs &mg_constrained_dofs, unsigned int level);

  /**
   * The Chebyshev smoothers of both solvers, as deal.II's step-37: degree 5 over the range
   * [lambda_max / 15, lambda_max] (10 CG iterations for the eigenvalue estimate) on the levels,
   * on level 0 a coarse solve (range 1e-3, the degree from the estimate); each with its level
   * matrix's inverse diagonal (compute_diagonal() is called here).
   */
  template <typename Smoother, typename LevelMatrix>
  MGLevelObject<typename Smoother::AdditionalData>
  smoother_data(MGLevelObject<LevelMatrix> &mg_matrices)
  {
    MGLevelObject<typename Smoother::AdditionalData> data(0, mg_matrices.max_level());
    for (unsigned int level = 0; level <= mg_matrices.max_level(); ++level)
      {
        if (level > 0)
          {
            data[level].smoothing_range     = 15.;
            data[level].degree              = 5;
            data[level].eig_cg_n_iterations = 10;
          }
        else
          {
            data[0].smoothing_range     = 1e-3;
            data[0].degree              = numbers::invalid_unsigned_int;
            data[0].eig_cg_n_iterations = mg_matrices[0].m();
          }
        mg_matrices[level].compute_diagonal();
        data[level].preconditioner = mg_matrices[level].get_matrix_diagonal_inverse();
      }
    return data;
  }

  /// The largest -u_z of a vector of the DoFHandler's layout (owned entries: @p values by the
  /// local index of the DoFHandler's locally owned DoFs), over all ranks.
  double
  largest_sag(const Problem &problem, const double *owned_values);
} // namespace cantilever

#endif
