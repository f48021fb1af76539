/**
 * @file gpumf/internal/dealii_host_functions.h
 * deal.II's host functions that a port calls on a gpumf::Vector by habit, turned from a link
 * error (deal.II compiles them for its own vectors only, so the linker finds no instance,
 * minutes into the build) into a compile-time error that names gpumf's call:
 *
 * | deal.II call on a gpumf::Vector | what to call |
 * |---|---|
 * | `VectorTools::interpolate([mapping,] dof_handler, function, v)` | `gpumf::VectorTools::interpolate(mapping, ...)`, same arguments |
 * | `VectorTools::integrate_difference([mapping,] dof_handler, v, ...)` | `gpumf::VectorTools::integrate_difference<p, n_q>(matrix_free, v, exact, norm, &cellwise)`, or deal.II's on `gpumf::host_copy(v, constraints)` |
 * | `constraints.distribute(v)` | `gpumf::VectorTools::distribute_constraints(matrix_free, constraints, v)` (homogeneous constraints; inhomogeneous ones refused), or `gpumf::host_copy(v, constraints)` |
 *
 * | `KellyErrorEstimator<dim>::estimate(..., v, error, ...)` (deal.II 9.4; 9.6+ take a `ReadVector`, which a `gpumf::Vector` is not: no match) | `gpumf::KellyErrorEstimator<dim>::estimate(...)` (gpumf/error_estimator.h), same arguments |
 *
 * (DataOut takes `gpumf::host_copy(v, constraints)`; its members cannot be caught here and stay a
 * link error.)
 */
#ifndef gpumf_internal_dealii_host_functions_h
#define gpumf_internal_dealii_host_functions_h

#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/component_mask.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools_common.h>

namespace gpumf
{
  namespace internal
  {
    /// false, but only once the template it is used in is instantiated
    template <int dim>
    constexpr bool never = dim < 0;
  } // namespace internal
} // namespace gpumf

namespace dealii
{
  namespace VectorTools
  {
    // More specialized than deal.II's templates for any vector type: chosen for a gpumf::Vector,
    // and refused with a message when instantiated.
    template <int dim, int spacedim, typename Number>
    void
    interpolate(const Mapping<dim, spacedim> &,
                const DoFHandler<dim, spacedim> &,
                const Function<spacedim, Number> &,
                gpumf::Vector<Number> &,
                const ComponentMask & = ComponentMask())
    {
      static_assert(gpumf::internal::never<dim>,
                    "deal.II's VectorTools::interpolate() runs on the host with deal.II's vectors and is not "
                    "compiled for gpumf::Vector: call gpumf::VectorTools::interpolate(mapping, dof_handler, "
                    "function, vector) (gpumf/vector_tools.h) with the same arguments.");
    }

    template <int dim, int spacedim, typename Number>
    void
    interpolate(const DoFHandler<dim, spacedim> &,
                const Function<spacedim, Number> &,
                gpumf::Vector<Number> &,
                const ComponentMask & = ComponentMask())
    {
      static_assert(gpumf::internal::never<dim>,
                    "deal.II's VectorTools::interpolate() runs on the host with deal.II's vectors and is not "
                    "compiled for gpumf::Vector: call gpumf::VectorTools::interpolate(mapping, dof_handler, "
                    "function, vector) (gpumf/vector_tools.h), e.g. with MappingQ1<dim>().");
    }

    template <int dim, int spacedim, typename Number, typename OutVector>
    void
    integrate_difference(const DoFHandler<dim, spacedim> &,
                         const gpumf::Vector<Number> &,
                         const Function<spacedim, Number> &,
                         OutVector &,
                         const Quadrature<dim> &,
                         const NormType &,
                         const Function<spacedim, double> * = nullptr,
                         const double                       = 2.)
    {
      static_assert(gpumf::internal::never<dim>,
                    "deal.II's VectorTools::integrate_difference() runs on the host with deal.II's vectors and "
                    "is not compiled for gpumf::Vector: call gpumf::VectorTools::integrate_difference<fe_degree, "
                    "n_q_points_1d>(matrix_free, vector, exact_functor, norm, &cellwise) (gpumf/vector_tools.h), "
                    "or deal.II's on gpumf::host_copy(vector, constraints).");
    }

    template <int dim, int spacedim, typename Number, typename OutVector>
    void
    integrate_difference(const Mapping<dim, spacedim> &,
                         const DoFHandler<dim, spacedim> &,
                         const gpumf::Vector<Number> &,
                         const Function<spacedim, Number> &,
                         OutVector &,
                         const Quadrature<dim> &,
                         const NormType &,
                         const Function<spacedim, double> * = nullptr,
                         const double                       = 2.)
    {
      static_assert(gpumf::internal::never<dim>,
                    "deal.II's VectorTools::integrate_difference() runs on the host with deal.II's vectors and "
                    "is not compiled for gpumf::Vector: call gpumf::VectorTools::integrate_difference<fe_degree, "
                    "n_q_points_1d>(matrix_free, vector, exact_functor, norm, &cellwise) (gpumf/vector_tools.h: "
                    "on the GPU, with a device functor; integrate_difference() and compute_global_error() in "
                    "one), or deal.II's on gpumf::host_copy(vector, constraints).");
    }
  } // namespace VectorTools

  // AffineConstraints::distribute() on a gpumf::Vector: use
  // gpumf::VectorTools::distribute_constraints(matrix_free, constraints, vector) (homogeneous
  // constraints, on the GPU) or
  // gpumf::host_copy(vector, constraints) (a host vector, constraints distributed).
  template <>
  template <>
  void
  AffineConstraints<double>::distribute<gpumf::Vector<double>>(gpumf::Vector<double> &) const = delete;
  template <>
  template <>
  void
  AffineConstraints<float>::distribute<gpumf::Vector<float>>(gpumf::Vector<float> &) const = delete;

#if !DEAL_II_VERSION_GTE(9, 6, 0)
  // deal.II 9.4's KellyErrorEstimator::estimate() on a gpumf::Vector (a template that deal.II
  // compiles for its own vectors only): deleted, so that the compiler names the call below
#  define GPUMF_DELETE_KELLY(dim, Number)                                                                              \
    template <>                                                                                                        \
    template <>                                                                                                        \
    void KellyErrorEstimator<dim, dim>::estimate<gpumf::Vector<Number>>( /* call gpumf::KellyErrorEstimator<dim>::estimate() (gpumf/error_estimator.h), same arguments */ \
      const Mapping<dim, dim> &,                                                                                       \
      const DoFHandler<dim, dim> &,                                                                                    \
      const Quadrature<dim - 1> &,                                                                                     \
      const std::map<types::boundary_id, const Function<dim, Number> *> &,                                             \
      const gpumf::Vector<Number> &,                                                                                   \
      Vector<float> &,                                                                                                 \
      const ComponentMask &,                                                                                           \
      const Function<dim> *,                                                                                           \
      const unsigned int,                                                                                              \
      const types::subdomain_id,                                                                                       \
      const types::material_id,                                                                                        \
      const Strategy) = delete;                                                                                        \
    template <>                                                                                                        \
    template <>                                                                                                        \
    void KellyErrorEstimator<dim, dim>::estimate<gpumf::Vector<Number>>( /* call gpumf::KellyErrorEstimator<dim>::estimate() (gpumf/error_estimator.h), same arguments */ \
      const DoFHandler<dim, dim> &,                                                                                    \
      const Quadrature<dim - 1> &,                                                                                     \
      const std::map<types::boundary_id, const Function<dim, Number> *> &,                                             \
      const gpumf::Vector<Number> &,                                                                                   \
      Vector<float> &,                                                                                                 \
      const ComponentMask &,                                                                                           \
      const Function<dim> *,                                                                                           \
      const unsigned int,                                                                                              \
      const types::subdomain_id,                                                                                       \
      const types::material_id,                                                                                        \
      const Strategy) = delete;
  GPUMF_DELETE_KELLY(2, double)
  GPUMF_DELETE_KELLY(3, double)
  GPUMF_DELETE_KELLY(2, float)
  GPUMF_DELETE_KELLY(3, float)
#  undef GPUMF_DELETE_KELLY
#endif
} // namespace dealii

#endif
