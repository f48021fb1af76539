// deal.II's own CPU MatrixFree::loop on a continuous element (FE_Q, an FESystem of FE_Q) with
// cell, inner-face and boundary-face terms: the reference of gpumf's continuous face loops
// (tests/faces_continuous_test.cu). The terms are written once here (face_terms) and used by
// both sides, so that the two libraries integrate the same forms. Compiled by g++ only
// (dealii_face_reference.cc): deal.II's face evaluators stay out of nvcc's sight.
#ifndef gpumf_tests_dealii_face_reference_h
#define gpumf_tests_dealii_face_reference_h

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/read_write_vector.h>

#include <cstdint>
#include <functional>

#ifndef GPUMF_TEST_HOST_DEVICE
#  ifdef __CUDACC__
#    define GPUMF_TEST_HOST_DEVICE __host__ __device__
#  else
#    define GPUMF_TEST_HOST_DEVICE
#  endif
#endif

namespace test
{
  /**
   * The forms, for values u, normal derivatives d of the two sides (m: interior, p: exterior):
   *   cell:     (grad u, grad v) + cell_mass (u, v)
   *   inner:    value test    t = sigma [u] + a [d],  [.] = m - p,  submitted +t on m, -t on p
   *             normal test   s = b [d] + c [u],       submitted +s on m, -s on p
   *   boundary: value test    alpha(x, id) u + e d,    alpha = (1 + id) (1 + x_0^2)
   *             normal test   f u
   * Generic in the number type T (deal.II's VectorizedArray, gpumf's Number).
   */
  struct FaceTerms
  {
    static constexpr double cell_mass = 0.5, sigma = 3., a = 0.3, b = 0.7, c = 0.2, e = 0.5, f = 0.25;

    template <typename T, typename X>
    GPUMF_TEST_HOST_DEVICE static T
    alpha(const X &x0, const unsigned int boundary_id)
    {
      return (T(1.) + T(double(boundary_id))) * (T(1.) + x0 * x0);
    }
  };

  /// Which functors a loop runs.
  struct FaceLoopParts
  {
    bool cells = true, inner = true, boundary = true;
  };

  /**
   * dst = A src with deal.II's CPU MatrixFree::loop (FEEvaluation<dim, -1>,
   * FEFaceEvaluation<dim, -1>), QGauss<1>(n_q_points_1d), src
   * filled with random_value(global index, seed), or where @p src_at_support_point is given
   * with its value at each DoF's support point and component. All ghost entries travel
   * (DataAccessOnFaces::unspecified: deal.II's narrower exchange for gradients leaves out
   * entries of continuous ghost cells). Returns dst's owned entries.
   */
  template <int dim>
  dealii::LinearAlgebra::ReadWriteVector<double>
  dealii_face_loop(const dealii::Mapping<dim>                                            &mapping,
                   const dealii::DoFHandler<dim>                                         &dof_handler,
                   const dealii::AffineConstraints<double>                               &constraints,
                   unsigned int                                                           n_q_points_1d,
                   FaceLoopParts                                                          parts,
                   std::uint64_t                                                          seed,
                   const std::function<double(const dealii::Point<dim> &, unsigned int)> &src_at_support_point = {});

  /**
   * deal.II's CPU loop of the Helmholtz operator with a Robin term: (grad u, grad v) + (u, v) +
   * (beta u, v) on the boundary faces with an id in @p robin_mask, beta = FaceTerms::alpha(x, id),
   * constrained rows as the identity (as gpumf's operators), applied to src as in
   * dealii_face_loop() (random_value(index, seed)). Returns dst's owned entries.
   */
  template <int dim>
  dealii::LinearAlgebra::ReadWriteVector<double>
  dealii_robin_helmholtz(const dealii::Mapping<dim>              &mapping,
                         const dealii::DoFHandler<dim>           &dof_handler,
                         const dealii::AffineConstraints<double> &constraints,
                         unsigned int                             n_q_points_1d,
                         unsigned int                             robin_mask,
                         std::uint64_t                            seed);

  /// deal.II's CPU loop of the boundary load vector int g phi_i, g = FaceTerms::alpha(x, 0) on
  /// the faces with an id in @p mask, through the constraints. Returns the owned entries.
  template <int dim>
  dealii::LinearAlgebra::ReadWriteVector<double>
  dealii_boundary_rhs(const dealii::Mapping<dim>              &mapping,
                      const dealii::DoFHandler<dim>           &dof_handler,
                      const dealii::AffineConstraints<double> &constraints,
                      unsigned int                             n_q_points_1d,
                      unsigned int                             mask);
} // namespace test

#endif
