/**
 * @file gpumf/error_estimator.h
 * gpumf::KellyErrorEstimator: Kelly's error indicator (the jump of the normal derivative over
 * the faces) of a gpumf::Vector, computed on the vector's backend. deal.II equivalent:
 * KellyErrorEstimator::estimate() of numerics/error_estimator.h, whose indicators it reproduces
 * to round-off (the same faces, points, normals, weights and factors).
 *
 * @code
 *   Vector<float> estimated_error(triangulation.n_active_cells());
 *   gpumf::KellyErrorEstimator<dim>::estimate(mapping, dof_handler, QGauss<dim - 1>(fe.degree + 1), {},
 *                                             solution, estimated_error);
 * @endcode
 *
 * Supported, as deal.II has them:
 * - FE_Q of any degree, or an FESystem of one FE_Q (its components, with a component mask);
 * - 2D and 3D; Triangulation or parallel::distributed::Triangulation, hanging nodes (isotropic
 *   refinement), rotated and flipped faces, curved cells;
 * - a polynomial mapping: MappingQ (MappingQ1, MappingQCache);
 * - the face quadrature: a tensor product of a 1D quadrature symmetric about 1/2 (QGauss,
 *   QGaussLobatto, ...), as deal.II's tutorials give;
 * - Neumann boundary functions per boundary id (deal.II's map): evaluated on the host at the
 *   points of the Neumann faces, which the backend computes (only those cross to the host);
 *   other boundary faces contribute nothing, periodic faces included (as deal.II's);
 * - the three strategies.
 * Not supported (refused with a message): a coefficient, a subdomain or material id,
 * parallel::shared::Triangulation, anisotropic refinement.
 *
 * The solution is read as it is (read_dof_values_plain()), with its hanging-node and
 * boundary values distributed as deal.II's estimator needs them: call
 * gpumf::VectorTools::distribute_constraints() or AffineConstraints::distribute() on a host copy
 * first. Its locally owned entries must be the DoFHandler's; the estimator reads the DoFs of
 * the ghost cells next to this rank's cells through its own exchange, so any ghost layout of the
 * vector will do. @p error gets n_active_cells() entries: the indicators of this rank's cells,
 * zero elsewhere (as deal.II's). Collective on the mesh's communicator (the exchange).
 *
 * The set-up (which cells meet at each face, the mapping's support points, the DoF indices) runs
 * on the host each call, in deal.II's threads; the integrals on the backend, a thread per face
 * piece. doc/operators.md says more, doc/performance.md what it costs.
 */
#ifndef gpumf_error_estimator_h
#define gpumf_error_estimator_h

#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/component_mask.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/error_estimator.h>

#include <map>

namespace gpumf
{
  template <int dim>
  class KellyErrorEstimator
  {
  public:
    /// deal.II's strategies (KellyErrorEstimator::Strategy).
    using Strategy = typename dealii::KellyErrorEstimator<dim>::Strategy;

    /// deal.II's KellyErrorEstimator::estimate() for one solution; @p n_threads is ignored (the
    /// set-up takes deal.II's threads).
    template <typename Number>
    static void
    estimate(const dealii::Mapping<dim>                                                        &mapping,
             const dealii::DoFHandler<dim>                                                     &dof,
             const dealii::Quadrature<dim - 1>                                                 &quadrature,
             const std::map<dealii::types::boundary_id, const dealii::Function<dim, Number> *> &neumann_bc,
             const Vector<Number>                                                              &solution,
             dealii::Vector<float>                                                             &error,
             const dealii::ComponentMask      &component_mask = dealii::ComponentMask(),
             const dealii::Function<dim>      *coefficients   = nullptr,
             const unsigned int                n_threads      = dealii::numbers::invalid_unsigned_int,
             const dealii::types::subdomain_id subdomain_id   = dealii::numbers::invalid_subdomain_id,
             const dealii::types::material_id  material_id    = dealii::numbers::invalid_material_id,
             const Strategy                    strategy = dealii::KellyErrorEstimator<dim>::cell_diameter_over_24);

    /// The same with MappingQ1 (deal.II's default linear mapping for hypercube cells).
    template <typename Number>
    static void
    estimate(const dealii::DoFHandler<dim>                                                     &dof,
             const dealii::Quadrature<dim - 1>                                                 &quadrature,
             const std::map<dealii::types::boundary_id, const dealii::Function<dim, Number> *> &neumann_bc,
             const Vector<Number>                                                              &solution,
             dealii::Vector<float>                                                             &error,
             const dealii::ComponentMask      &component_mask = dealii::ComponentMask(),
             const dealii::Function<dim>      *coefficients   = nullptr,
             const unsigned int                n_threads      = dealii::numbers::invalid_unsigned_int,
             const dealii::types::subdomain_id subdomain_id   = dealii::numbers::invalid_subdomain_id,
             const dealii::types::material_id  material_id    = dealii::numbers::invalid_material_id,
             const Strategy                    strategy = dealii::KellyErrorEstimator<dim>::cell_diameter_over_24);
  };
} // namespace gpumf

#endif
