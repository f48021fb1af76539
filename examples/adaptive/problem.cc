/**
 * @file examples/adaptive/problem.cc
 * The host side of the adaptive Poisson tutorial (see problem.h): plain deal.II, compiled by
 * g++ once for both solvers.
 */
#include "problem.h"

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/grid_refinement.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/data_out.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>

namespace adaptive
{
  // @sect3{The exact solution}

  template <int dim>
  double
  ExactSolution<dim>::value(const Point<dim> &p, const unsigned int) const
  {
    return ExactFormula<dim>().value(p);
  }

  template <int dim>
  Tensor<1, dim>
  ExactSolution<dim>::gradient(const Point<dim> &p, const unsigned int) const
  {
    return ExactFormula<dim>().gradient(p);
  }

  // @sect3{Mesh, DoFs and constraints}

  template <int dim>
  Problem<dim>::Problem(const MPI_Comm comm, const unsigned int degree)
    : comm(comm)
    , triangulation(comm) // p4est keeps the mesh 2:1 balanced; no further smoothing
    , fe(degree)
    , mapping(degree)
    , dof_handler(triangulation)
  {}

  template <int dim>
  void
  Problem<dim>::make_grid()
  {
    if constexpr (dim == 2)
      {
        GridGenerator::hyper_L(triangulation); // (-1,1)^2 without [0,1)^2, boundary id 0
        triangulation.refine_global(2);
      }
    else
      {
        // 6 cells around the hole; GridGenerator attaches a SphericalManifold, which MappingQ
        // follows on the curved faces and the refinement uses for the new vertices.
        GridGenerator::hyper_shell(triangulation, Point<dim>(), 0.5, 1.0);
        triangulation.refine_global(1);
      }
  }

  template <int dim>
  void
  Problem<dim>::setup_system()
  {
    dof_handler.distribute_dofs(fe);
    locally_owned_dofs = dof_handler.locally_owned_dofs();
    DoFTools::extract_locally_relevant_dofs(dof_handler, locally_relevant_dofs);

    // Hanging nodes first: interpolate_boundary_values leaves DoFs that are already
    // constrained alone, so a hanging node on the boundary stays a hanging node.
    hanging_constraints.clear();
    hanging_constraints.reinit(locally_relevant_dofs);
    DoFTools::make_hanging_node_constraints(dof_handler, hanging_constraints);
    hanging_constraints.close();

    constraints.clear();
    constraints.reinit(locally_relevant_dofs);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    VectorTools::interpolate_boundary_values(mapping, dof_handler, 0, ExactSolution<dim>(), constraints);
    constraints.close();
  }

  template <int dim>
  void
  Problem<dim>::initialize_vector(VectorType &v) const
  {
    v.reinit(locally_owned_dofs, locally_relevant_dofs, comm);
  }

  // @sect3{The host steps of the inhomogeneous-Dirichlet recipe}

  template <int dim>
  void
  Problem<dim>::dirichlet_lift(VectorType &u0) const
  {
    initialize_vector(u0);
    // On a vector of zeros, distribute() writes the inhomogeneities (the boundary values) and
    // sets each hanging node to the interpolation of its masters; the second call keeps the
    // hanging nodes consistent with the final boundary values.
    constraints.distribute(u0);
    hanging_constraints.distribute(u0);
    u0.update_ghost_values();
  }

  template <int dim>
  void
  Problem<dim>::add_lift_and_distribute(const VectorType &x, const VectorType &u0, VectorType &u) const
  {
    initialize_vector(u);
    u.copy_locally_owned_data_from(x);
    u += u0;
    constraints.distribute(u);
    u.update_ghost_values();
  }

  // @sect3{Errors, estimate, refinement, output}

  template <int dim>
  Errors
  Problem<dim>::compute_errors(const VectorType &u) const
  {
    const QGauss<dim>        quadrature(fe.degree + 1);
    const ExactSolution<dim> exact;
    Vector<double>           cell_errors(triangulation.n_active_cells()); // double: compared to 1e-8
    Errors                   errors;
    VectorTools::integrate_difference(mapping, dof_handler, u, exact, cell_errors, quadrature, VectorTools::L2_norm);
    errors.l2 = VectorTools::compute_global_error(triangulation, cell_errors, VectorTools::L2_norm);
    VectorTools::integrate_difference(
      mapping, dof_handler, u, exact, cell_errors, quadrature, VectorTools::H1_seminorm);
    errors.h1 = VectorTools::compute_global_error(triangulation, cell_errors, VectorTools::H1_seminorm);
    return errors;
  }

  template <int dim>
  void
  Problem<dim>::estimate(const VectorType &u)
  {
    estimated_error.reinit(triangulation.n_active_cells());
    KellyErrorEstimator<dim>::estimate(mapping, dof_handler, QGauss<dim - 1>(fe.degree + 1), {}, u, estimated_error);
  }

  // Which cells to refine. We refine the fixed number of cells with the largest estimates and
  // coarsen the 3 % with the smallest, as deal.II's tutorials do, but not always 30 %: at the
  // re-entrant corner the error of the cell that touches the corner only shrinks by the factor
  // 2^{-2/3} (H1) per refinement, whatever the degree. If the number of DoFs grows by a factor
  // g per cycle, the error cannot fall faster than N^{-(2/3) log 2 / log g}; the optimal
  // N^{-p/2} needs g <= 2^{4/(3p)}. Refining a fraction r of the cells gives g = 1 + 3r in 2D,
  // so r = (2^{4/(3p)} - 1)/3: 0.3 for p = 1 (capped), 0.2, 0.12, 0.087 for p = 2, 3, 4. With
  // 30 % at p = 2 the H1 rate stays at -0.74 instead of -1. The smooth 3D solution has no
  // such limit: 30 %.
  template <int dim>
  void
  Problem<dim>::refine(const bool uniform)
  {
    if (uniform)
      {
        triangulation.refine_global(1);
        return;
      }
    AssertDimension(estimated_error.size(), triangulation.n_active_cells());
    const double refine_fraction = dim == 2 ? std::min(0.3, (std::pow(2., 4. / (3. * fe.degree)) - 1.) / 3.) : 0.3;
    parallel::distributed::GridRefinement::refine_and_coarsen_fixed_number(triangulation,
                                                                           estimated_error,
                                                                           refine_fraction,
                                                                           0.03);
    triangulation.execute_coarsening_and_refinement();
  }

  template <int dim>
  void
  Problem<dim>::output(const VectorType &u, const unsigned int cycle) const
  {
    DataOut<dim> data_out;
    data_out.attach_dof_handler(dof_handler);
    data_out.add_data_vector(u, "u");
    if (estimated_error.size() == triangulation.n_active_cells())
      data_out.add_data_vector(estimated_error, "estimated_error");
    Vector<float> subdomain(triangulation.n_active_cells());
    subdomain = triangulation.locally_owned_subdomain();
    data_out.add_data_vector(subdomain, "subdomain");
    data_out.build_patches(mapping, fe.degree, DataOut<dim>::curved_inner_cells);
    data_out.write_vtu_with_pvtu_record("./", "adaptive", cycle, comm, 2);
  }

  template class ExactSolution<2>;
  template class ExactSolution<3>;
  template class Problem<2>;
  template class Problem<3>;
} // namespace adaptive
