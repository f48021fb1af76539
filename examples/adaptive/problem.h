/**
 * @file examples/adaptive/problem.h
 * The part of the adaptive Poisson tutorial that does not depend on who solves the linear
 * system: the mesh, the exact solution, the constraints, the right-hand side, the Dirichlet
 * lift, the errors, the error estimator with mesh refinement, and the graphical output. All of
 * it is plain deal.II on the host, compiled once by g++ (problem.cc) and used by both solvers:
 * gpumf's (adaptive.cu) and deal.II's CPU MatrixFree (dealii_solver.cc).
 *
 * This header includes no matrix-free header of deal.II, so that nvcc can compile the .cu file
 * that includes it.
 */
#ifndef gpumf_examples_adaptive_problem_h
#define gpumf_examples_adaptive_problem_h

#include <gpumf/config.h> // __host__ __device__ for g++

#include <deal.II/base/function.h>
#include <deal.II/base/index_set.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/vector.h>

#include <cmath>

namespace adaptive
{
  using namespace dealii;

  /// The host vector type of the whole program (deal.II's MPI-distributed vector).
  using VectorType = LinearAlgebra::distributed::Vector<double>;

  /**
   * The exact solution.
   *
   * In 2D, the L-shaped domain (-1,1)^2 \ [0,1)^2 has a re-entrant corner at the origin, and
   * u = r^{2/3} sin(2 phi / 3) is the classical solution that is singular there: harmonic
   * (f = 0), zero on the two edges that meet at the corner, with gradient ~ r^{-1/3}. phi is
   * the angle measured from the edge {x = 0, y > 0} through the domain, phi in [0, 3 pi / 2].
   * u is in H^{5/3 - epsilon} only: uniform refinement converges as h^{2/3} in the H1
   * seminorm whatever the degree, adaptive refinement restores the rate N^{-p/2}.
   *
   * In 3D, the shell 0.5 < |x| < 1 carries the smooth u = sin(pi x) cos(pi y) exp(z), with
   * f = -laplace u = (2 pi^2 - 1) u.
   *
   * The formulas are device functions (gpumf's norms and right-hand side evaluate them on the
   * GPU; deal.II's solver calls them on the host); ExactSolution wraps the solution as a deal.II
   * Function for deal.II's host functions (boundary values, errors).
   */
  template <int dim>
  struct ExactFormula
  {
    __host__ __device__ double
    value(const Point<dim> &p) const
    {
      if constexpr (dim == 2)
        {
          // phi: the angle from the positive y axis, counter-clockwise, in [0, 2 pi); the
          // domain is 0 <= phi <= 3 pi / 2.
          const double r   = std::sqrt(p[0] * p[0] + p[1] * p[1]);
          double       phi = std::atan2(p[1], p[0]) - numbers::PI / 2;
          if (phi < 0)
            phi += 2 * numbers::PI;
          return std::pow(r, 2. / 3.) * std::sin(2. / 3. * phi);
        }
      else
        return std::sin(numbers::PI * p[0]) * std::cos(numbers::PI * p[1]) * std::exp(p[2]);
    }

    __host__ __device__ Tensor<1, dim>
                        gradient(const Point<dim> &p) const
    {
      Tensor<1, dim> g;
      if constexpr (dim == 2)
        {
          // grad u = (2/3) r^{-1/3} (sin(2 phi / 3) e_r + cos(2 phi / 3) e_phi), with the unit
          // vectors e_r = (cos theta, sin theta), e_phi = (-sin theta, cos theta) of the usual
          // angle theta = phi + pi / 2.
          const double r     = std::sqrt(p[0] * p[0] + p[1] * p[1]);
          const double theta = std::atan2(p[1], p[0]);
          double       phi   = theta - numbers::PI / 2;
          if (phi < 0)
            phi += 2 * numbers::PI;
          const double factor = 2. / 3. * std::pow(r, -1. / 3.);
          const double s = std::sin(2. / 3. * phi), c = std::cos(2. / 3. * phi);
          g[0] = factor * (s * std::cos(theta) - c * std::sin(theta));
          g[1] = factor * (s * std::sin(theta) + c * std::cos(theta));
        }
      else
        {
          const double pi = numbers::PI, e = std::exp(p[2]);
          const double sx = std::sin(pi * p[0]), cx = std::cos(pi * p[0]);
          const double sy = std::sin(pi * p[1]), cy = std::cos(pi * p[1]);
          g[0] = pi * cx * cy * e;
          g[1] = -pi * sx * sy * e;
          g[2] = sx * cy * e;
        }
      return g;
    }
  };

  /// f = -laplace u of ExactFormula, on the host and the device.
  template <int dim>
  struct RightHandSideFormula
  {
    __host__ __device__ double
    value(const Point<dim> &p) const
    {
      if constexpr (dim == 2)
        return 0; // r^{2/3} sin(2 phi / 3) is harmonic
      else
        return (2 * numbers::PI * numbers::PI - 1) * ExactFormula<dim>().value(p);
    }
  };

  /// ExactFormula as deal.II's Function, for its host functions.
  template <int dim>
  class ExactSolution : public Function<dim>
  {
  public:
    double
    value(const Point<dim> &p, const unsigned int component = 0) const override;

    Tensor<1, dim>
    gradient(const Point<dim> &p, const unsigned int component = 0) const override;
  };

  /// L2 norm and H1 seminorm of u - u_h.
  struct Errors
  {
    double l2 = 0;
    double h1 = 0;
  };

  /**
   * Mesh, finite element, mapping, DoFs and constraints of one cycle, and the host-side steps
   * of the program. The members are public: the two solvers read them.
   */
  template <int dim>
  class Problem
  {
  public:
    Problem(const MPI_Comm comm, const unsigned int degree);

    /// 2D: hyper_L refined twice; 3D: hyper_shell (spherical manifold kept) refined once.
    void
    make_grid();

    /**
     * Distributes the DoFs and builds the two sets of constraints (over the locally relevant
     * DoFs): `hanging_constraints` with the hanging nodes only, `constraints` with the hanging
     * nodes and the inhomogeneous Dirichlet values of the exact solution on the whole boundary.
     */
    void
    setup_system();

    /// A vector of the owned DoFs with the locally relevant ones as ghosts.
    void
    initialize_vector(VectorType &v) const;

    /**
     * The Dirichlet lift u0 of the inhomogeneous-Dirichlet recipe (see adaptive.cu): zero
     * except the boundary values, hanging nodes consistent. Ghost values up to date.
     */
    void
    dirichlet_lift(VectorType &u0) const;

    /**
     * The last step of the recipe: u = x + u0, then `constraints.distribute(u)` (boundary
     * values and hanging nodes), ghost values updated. @p x is the solution of the homogeneous
     * system (zero on the constrained DoFs).
     */
    void
    add_lift_and_distribute(const VectorType &x, const VectorType &u0, VectorType &u) const;

    /// L2 and H1-seminorm errors of @p u (with ghost values) against ExactSolution, with the
    /// solve's quadrature (QGauss(p+1)), on the host.
    Errors
    compute_errors(const VectorType &u) const;

    /// Kelly's error estimate of @p u (with ghost values) into `estimated_error`.
    void
    estimate(const VectorType &u);

    /// Adaptive refinement of a fixed number of cells with the largest estimate (30 %, less
    /// at higher degrees in 2D: see problem.cc) and coarsening of the 3 % with the smallest,
    /// or one global refinement if @p uniform.
    void
    refine(const bool uniform);

    /// adaptive_<cycle>.pvtu (+ one .vtu per rank) in the current directory.
    void
    output(const VectorType &u, const unsigned int cycle) const;

    MPI_Comm                                  comm;
    parallel::distributed::Triangulation<dim> triangulation;
    const FE_Q<dim>                           fe;
    const MappingQ<dim>                       mapping;
    DoFHandler<dim>                           dof_handler;
    IndexSet                                  locally_owned_dofs, locally_relevant_dofs;
    AffineConstraints<double>                 constraints, hanging_constraints;
    Vector<float>                             estimated_error;
  };

  /// What a solver reports.
  /// What one solve took: CG iterations and wall seconds, in total and by phase.
  struct SolverResult
  {
    unsigned int iterations = 0;
    double       seconds    = 0; ///< all of it: the phases below and the moves between them
    double       setup      = 0; ///< the operator's reinit()
    double       diagonal   = 0; ///< the system operator's compute_diagonal()
    double       rhs        = 0; ///< the lift u0 and rhs = b - A u0
    double       cg         = 0; ///< the CG solve
    double       errors     = 0; ///< the L2 and H1 errors (gpumf: on the backend; deal.II: on the host)
    /// The parts of the rhs phase and of the rest (gpumf; printed with --profile).
    std::vector<std::pair<std::string, double>> details;
  };

  /// CG stops at a residual of this times the norm of the right-hand side (both solvers).
  constexpr double relative_tolerance = 1e-10;
} // namespace adaptive

#endif
