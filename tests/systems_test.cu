// Vector-valued problems: one MatrixFree with two DoFHandlers (FESystem(FE_Q(k + 1), dim) and
// FE_Q(k), a velocity and a pressure as in deal.II 9.8's step-104), block vectors, and
// FEEvaluation's divergence, symmetric gradient and curl, against deal.II's CPU MatrixFree with
// two DoFHandlers (tests/common/dealii_systems_reference.cc) on random inputs, curved meshes with
// hanging nodes and Dirichlet rows, 2D and 3D, with and without coloring and overlap, on one or
// several ranks. Both functor forms: deal.II 9.8's (data, DeviceBlockVector src, dst) with
// FEEvaluation(data, dof_index), and gpumf's (cell, data, shared, VectorPointers) with
// FEEvaluation(cell, data, shared, dof_index). Then a vector of one DoFHandler in a loop of the
// two-DoFHandler object, deal.II's block vector in and out, and deal.II's SolverGMRES,
// SolverFGMRES and SolverMinRes on gpumf::BlockVector. One object with three quadratures
// (FEEvaluation's quad_index) against objects of one each and deal.II.
//
// systems_test host|cuda             the checks
// systems_test host|cuda misuse-<k>  runs misuse k and prints the exception (host) or the
//                                    kernel's message (GPU): ctest matches the message
#include <gpumf/block_vector.h>
#include <gpumf/fe_evaluation.h>
#include <gpumf/matrix_free.h>
#include <gpumf/matrix_free_tools.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/la_parallel_block_vector.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/solver_gmres.h>
#include <deal.II/lac/solver_minres.h>

#include <cctype>

#include "common/dealii_systems_reference.h"
#include "common/test_utils.h"

using namespace dealii;
using test::SystemForm;

namespace
{
  /// The form's terms at point q (test::SystemForm): what both functor forms submit.
  template <SystemForm form, typename EvalU, typename EvalP>
  __host__ __device__ void
  submit_form(EvalU &fe_u, EvalP &fe_p, const unsigned int q)
  {
    constexpr int dim      = EvalU::dimension;
    const double  pressure = fe_p.get_value(q);
    if constexpr (form == SystemForm::stokes)
      {
        auto gradient = fe_u.get_gradient(q);
        for (unsigned int d = 0; d < dim; ++d)
          gradient[d][d] -= pressure;
        const double divergence = fe_u.get_divergence(q);
        fe_u.submit_gradient(gradient, q);
        fe_p.submit_value(-divergence, q);
      }
    else if constexpr (form == SystemForm::divergence_transpose)
      {
        fe_u.submit_divergence(-pressure, q);
        fe_p.submit_value(0., q);
      }
    else if constexpr (form == SystemForm::elasticity)
      {
        dealii::SymmetricTensor<2, dim, double> eps = fe_u.get_symmetric_gradient(q);
        double                                  div = 0;
        for (unsigned int d = 0; d < dim; ++d)
          div += eps.access_raw_entry(d);
        for (unsigned int k = 0; k < eps.n_independent_components; ++k)
          eps.access_raw_entry(k) *= 2.;
        for (unsigned int d = 0; d < dim; ++d)
          eps.access_raw_entry(d) += 3. * div;
        fe_u.submit_symmetric_gradient(eps, q);
        fe_p.submit_value(0., q);
      }
    else if constexpr (form == SystemForm::curl_curl)
      {
        const auto curl  = fe_u.get_curl(q);
        const auto value = fe_u.get_value(q);
        fe_u.submit_curl(curl, q);
        fe_u.submit_value(value, q);
        fe_p.submit_value(0., q);
      }
    else
      {
        fe_u.submit_gradient(typename EvalU::gradient_type(), q);
        fe_p.submit_value(pressure, q);
      }
  }

  constexpr gpumf::EvaluationFlags::EvaluationFlags values    = gpumf::EvaluationFlags::values;
  constexpr gpumf::EvaluationFlags::EvaluationFlags gradients = gpumf::EvaluationFlags::gradients;

  /// deal.II 9.8's block form: FEEvaluation(data, dof_index), DeviceBlockVector; @p columns: gpumf's
  /// layout of a column of points per thread (FEEvaluation's passes by lines in 3D).
  template <int dim, int degree_u, int degree_p, SystemForm form, bool columns = false>
  struct BlockForm
  {
    static constexpr bool         thread_per_column = columns;
    static constexpr int          n_q_points_1d     = degree_u + 1;
    static const unsigned int     n_q_points        = dealii::Utilities::pow(n_q_points_1d, dim);
    static constexpr unsigned int integrated        = form == SystemForm::curl_curl ? values | gradients : gradients;

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>    &src,
               gpumf::Portable::DeviceBlockVector<double>          &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, n_q_points_1d, dim, double, columns> fe_u(data, 0);
      gpumf::FEEvaluation<dim, degree_p, n_q_points_1d, 1, double, columns>   fe_p(data, 1);
      fe_u.read_dof_values(src.block(0));
      fe_p.read_dof_values(src.block(1));
      fe_u.evaluate(values | gradients);
      fe_p.evaluate(values);
      data->for_each_quad_point([&](const int q) { submit_form<form>(fe_u, fe_p, q); });
      fe_u.integrate(static_cast<gpumf::EvaluationFlags::EvaluationFlags>(integrated));
      fe_p.integrate(values);
      fe_u.distribute_local_to_global(dst.block(0));
      fe_p.distribute_local_to_global(dst.block(1));
    }
  };

  /// gpumf's form: a pointer per block, FEEvaluation(cell, data, shared, dof_index).
  template <int dim, int degree_u, int degree_p, SystemForm form>
  struct PointerForm
  {
    static constexpr int          n_q_points_1d    = degree_u + 1;
    static const unsigned int     n_q_points       = dealii::Utilities::pow(n_q_points_1d, dim);
    static constexpr unsigned int n_fe_evaluations = 2;
    static constexpr unsigned int n_components     = dim;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>           &src,
               const gpumf::VectorPointers<double>                 &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, n_q_points_1d, dim, double> fe_u(cell, data, shared, 0);
      gpumf::FEEvaluation<dim, degree_p, n_q_points_1d, 1, double>   fe_p(cell, data, shared, 1);
      fe_u.read_dof_values(src[0]);
      fe_p.read_dof_values(src[1]);
      fe_u.evaluate(values | gradients);
      fe_p.evaluate(values);
      data->for_each_quad_point([&](const int q) { submit_form<form>(fe_u, fe_p, q); });
      fe_u.integrate(
        static_cast<gpumf::EvaluationFlags::EvaluationFlags>(BlockForm<dim, degree_u, degree_p, form>::integrated));
      fe_p.integrate(values);
      fe_u.distribute_local_to_global(dst[0]);
      fe_p.distribute_local_to_global(dst[1]);
    }
  };

  /// One vector of DoFHandler 0 in a loop of the two-DoFHandler object: (grad u, grad v).
  template <int dim, int degree_u>
  struct VelocityLaplace
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(degree_u + 1, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>         &src,
               gpumf::Portable::DeviceVector<double>               &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, degree_u + 1, dim, double> fe_u(data, 0);
      fe_u.read_dof_values(src);
      fe_u.evaluate(gradients);
      data->for_each_quad_point([&](const int q) { fe_u.submit_gradient(fe_u.get_gradient(q), q); });
      fe_u.integrate(gradients);
      fe_u.distribute_local_to_global(dst);
    }
  };

  /// One vector of DoFHandler 1: (p, q).
  template <int dim, int degree_u, int degree_p>
  struct PressureMass
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(degree_u + 1, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>         &src,
               gpumf::Portable::DeviceVector<double>               &dst) const
    {
      gpumf::FEEvaluation<dim, degree_p, degree_u + 1, 1, double> fe_p(data, 1);
      fe_p.read_dof_values(src);
      fe_p.evaluate(values);
      data->for_each_quad_point([&](const int q) { fe_p.submit_value(fe_p.get_value(q), q); });
      fe_p.integrate(values);
      fe_p.distribute_local_to_global(dst);
    }
  };

  /// The quadrature-point operations of compute_diagonal(): the vector Laplacian, the mass.
  struct LaplaceQuad
  {
    template <typename Eval>
    __host__ __device__ void
    operator()(Eval *phi, const int q) const
    {
      phi->submit_gradient(phi->get_gradient(q), q);
    }
  };
  struct MassQuad
  {
    template <typename Eval>
    __host__ __device__ void
    operator()(Eval *phi, const int q) const
    {
      phi->submit_value(phi->get_value(q), q);
    }
  };

  /// FEEvaluation with a DoFHandler index the object does not have.
  template <int dim, int degree_u, int degree_p>
  struct ThirdDoFHandler
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(degree_u + 1, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>    &src,
               gpumf::Portable::DeviceBlockVector<double>          &dst) const
    {
      gpumf::FEEvaluation<dim, degree_p, degree_u + 1, 1, double> fe_p(data, 2);
      fe_p.read_dof_values(src.block(1));
      fe_p.distribute_local_to_global(dst.block(1));
    }
  };

  /// BlockForm on quadrature @p quad (n_q_1d points) of an object with several:
  /// FEEvaluation(data, dof_index, quad_index).
  template <int dim, int degree_u, int degree_p, SystemForm form, int n_q_1d, unsigned int quad>
  struct QuadratureForm
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(n_q_1d, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>    &src,
               gpumf::Portable::DeviceBlockVector<double>          &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, n_q_1d, dim, double> fe_u(data, 0u, quad);
      gpumf::FEEvaluation<dim, degree_p, n_q_1d, 1, double>   fe_p(data, 1u, quad);
      fe_u.read_dof_values(src.block(0));
      fe_p.read_dof_values(src.block(1));
      fe_u.evaluate(values | gradients);
      fe_p.evaluate(values);
      data->for_each_quad_point([&](const int q) { submit_form<form>(fe_u, fe_p, q); });
      fe_u.integrate(
        static_cast<gpumf::EvaluationFlags::EvaluationFlags>(BlockForm<dim, degree_u, degree_p, form>::integrated));
      fe_p.integrate(values);
      fe_u.distribute_local_to_global(dst.block(0));
      fe_p.distribute_local_to_global(dst.block(1));
    }
  };

  /// Two quadratures of the same points in one functor: (grad u, grad v) on quadrature 0, the
  /// pressure mass on quadrature @p quad_p (gpumf's form, FEEvaluation(cell, data, shared, k, q)).
  template <int dim, int degree_u, int degree_p, unsigned int quad_p>
  struct MixedQuadratures
  {
    static const unsigned int     n_q_points       = dealii::Utilities::pow(degree_u + 1, dim);
    static constexpr unsigned int n_fe_evaluations = 2;
    static constexpr unsigned int n_components     = dim;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>           &src,
               const gpumf::VectorPointers<double>                 &dst) const
    {
      gpumf::FEEvaluation<dim, degree_u, degree_u + 1, dim, double> fe_u(cell, data, shared, 0, 0);
      gpumf::FEEvaluation<dim, degree_p, degree_u + 1, 1, double>   fe_p(cell, data, shared, 1, quad_p);
      fe_u.read_dof_values(src[0]);
      fe_p.read_dof_values(src[1]);
      fe_u.evaluate(gradients);
      fe_p.evaluate(values);
      data->for_each_quad_point([&](const int q) {
        fe_u.submit_gradient(fe_u.get_gradient(q), q);
        fe_p.submit_value(fe_p.get_value(q), q);
      });
      fe_u.integrate(gradients);
      fe_p.integrate(values);
      fe_u.distribute_local_to_global(dst[0]);
      fe_p.distribute_local_to_global(dst[1]);
    }
  };

  /// FEEvaluation on a quadrature of other points than the functor's (the loop's).
  template <int dim, int degree_u, int degree_p>
  struct OtherPoints
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(degree_u + 1, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>    &src,
               gpumf::Portable::DeviceBlockVector<double>          &dst) const
    {
      gpumf::FEEvaluation<dim, degree_p, degree_u + 2, 1, double> fe_p(data, 1u, 1u);
      fe_p.read_dof_values(src.block(1));
      fe_p.distribute_local_to_global(dst.block(1));
    }
  };

  /// FEEvaluation with a quadrature index the object does not have.
  template <int dim, int degree_u, int degree_p>
  struct FourthQuadrature
  {
    static const unsigned int n_q_points = dealii::Utilities::pow(degree_u + 1, dim);

    __host__ __device__ void
    operator()(const typename gpumf::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceBlockVector<double>    &src,
               gpumf::Portable::DeviceBlockVector<double>          &dst) const
    {
      gpumf::FEEvaluation<dim, degree_p, degree_u + 1, 1, double> fe_p(data, 1u, 3u);
      fe_p.read_dof_values(src.block(1));
      fe_p.distribute_local_to_global(dst.block(1));
    }
  };

  /// The velocity and pressure spaces of step-104 on a curved mesh with hanging nodes.
  template <int dim, int degree_u, int degree_p>
  struct Problem
  {
    Problem(const gpumf::Backend backend, const bool coloring, const bool overlap)
      : tria(MPI_COMM_WORLD)
      , mapping(3)
      , fe_u(FE_Q<dim>(degree_u), dim)
      , fe_p(degree_p)
      , dof_u(tria)
      , dof_p(tria)
    {
      // the shell (curved, spherical manifold), its cells near the first axis refined once more
      test::make_mesh<dim>(tria, test::Domain::shell, 1, {[](const Point<dim> &p) { return p[0] > 0.3; }});
      dof_u.distribute_dofs(fe_u);
      dof_p.distribute_dofs(fe_p);
      for (unsigned int k = 0; k < 2; ++k)
        {
          const DoFHandler<dim>     &dof         = k == 0 ? dof_u : dof_p;
          AffineConstraints<double> &constraints = k == 0 ? constraints_u : constraints_p;
          IndexSet                   relevant;
          DoFTools::extract_locally_relevant_dofs(dof, relevant);
          constraints.reinit(relevant);
          DoFTools::make_hanging_node_constraints(dof, constraints);
          if (k == 0)
            VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(dim), constraints);
          constraints.close();
        }
      typename gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend                           = backend;
      data.use_coloring                      = coloring;
      data.overlap_communication_computation = overlap;
      mf.reinit(mapping, {&dof_u, &dof_p}, {&constraints_u, &constraints_p}, QGauss<1>(degree_u + 1), data);
    }

    parallel::distributed::Triangulation<dim> tria;
    MappingQ<dim>                             mapping;
    FESystem<dim>                             fe_u;
    FE_Q<dim>                                 fe_p;
    DoFHandler<dim>                           dof_u, dof_p;
    AffineConstraints<double>                 constraints_u, constraints_p;
    gpumf::MatrixFree<dim, double>            mf;
  };

  template <int dim, int degree_u, int degree_p, SystemForm form>
  void
  check_form(test::Checker                    &checker,
             Problem<dim, degree_u, degree_p> &problem,
             const gpumf::BlockVector<double> &src,
             const std::string                &what)
  {
    LinearAlgebra::ReadWriteVector<double> expected_u, expected_p;
    test::system_form<dim>(form,
                           problem.mapping,
                           problem.dof_u,
                           problem.constraints_u,
                           problem.dof_p,
                           problem.constraints_p,
                           degree_u + 1,
                           test::to_rw(src.block(0)),
                           test::to_rw(src.block(1)),
                           expected_u,
                           expected_p);
    const std::string          names[] = {"stokes", "divergence transpose", "elasticity", "curl-curl", "pressure mass"};
    const std::string          name    = names[static_cast<int>(form)];
    gpumf::BlockVector<double> dst;
    problem.mf.initialize_dof_vector(dst);
    problem.mf.cell_loop(BlockForm<dim, degree_u, degree_p, form>{}, src, dst, true);
    const double tolerance = 1e-12;
    checker.check_below(std::max(test::relative_difference(test::to_rw(dst.block(0)), expected_u, MPI_COMM_WORLD),
                                 test::relative_difference(test::to_rw(dst.block(1)), expected_p, MPI_COMM_WORLD)),
                        tolerance,
                        what + ", " + name + ", block functor (data, DeviceBlockVector) vs deal.II CPU");
    if constexpr (dim == 3)
      {
        problem.mf.cell_loop(BlockForm<dim, degree_u, degree_p, form, true>{}, src, dst, true);
        checker.check_below(std::max(test::relative_difference(test::to_rw(dst.block(0)), expected_u, MPI_COMM_WORLD),
                                     test::relative_difference(test::to_rw(dst.block(1)), expected_p, MPI_COMM_WORLD)),
                            tolerance,
                            what + ", " + name + ", block functor with a column of points per thread vs deal.II CPU");
      }
    dst = 1.; // zero_dst
    problem.mf.cell_loop(PointerForm<dim, degree_u, degree_p, form>{}, src, dst, true);
    checker.check_below(std::max(test::relative_difference(test::to_rw(dst.block(0)), expected_u, MPI_COMM_WORLD),
                                 test::relative_difference(test::to_rw(dst.block(1)), expected_p, MPI_COMM_WORLD)),
                        tolerance,
                        what + ", " + name + ", pointer functor (cell, data, shared, VectorPointers) vs deal.II CPU");
  }

  /// A symmetric positive definite block operator for the solvers: (curl u, curl v) + (u, v)
  /// and (p, q), two loops, constrained rows the identity.
  template <int dim, int degree_u, int degree_p>
  struct BlockOperator
  {
    const gpumf::MatrixFree<dim, double> *mf;

    void
    vmult(gpumf::BlockVector<double> &dst, const gpumf::BlockVector<double> &src) const
    {
      gpumf::BlockVector<double> mass;
      mass.reinit(src, true);
      mf->cell_loop(BlockForm<dim, degree_u, degree_p, SystemForm::curl_curl>{}, src, dst, true);
      mf->cell_loop(BlockForm<dim, degree_u, degree_p, SystemForm::pressure_mass>{}, src, mass, true);
      dst += mass;
      mf->copy_constrained_values(src, dst);
    }
  };

  template <int dim, int degree_u, int degree_p>
  void
  check_problem(test::Checker &checker, const gpumf::Backend backend, const bool coloring, const bool overlap)
  {
    Problem<dim, degree_u, degree_p>      problem(backend, coloring, overlap);
    const gpumf::MatrixFree<dim, double> &mf = problem.mf;
    const std::string what = std::to_string(dim) + "D Q" + std::to_string(degree_u) + "-Q" + std::to_string(degree_p) +
                             (coloring ? ", coloring" : ", atomics") + (overlap ? ", overlap" : "");
    checker.check(mf.n_dof_handlers() == 2 && mf.n_components(0) == dim && mf.n_components(1) == 1 &&
                    mf.get_vector_partitioner(1)->size() == problem.dof_p.n_dofs() &&
                    &mf.get_dof_handler(1) == &problem.dof_p,
                  what + ": two DoFHandlers (n_dof_handlers, n_components, partitioners, get_dof_handler)");
    gpumf::BlockVector<double> src;
    mf.initialize_dof_vector(src);
    test::fill_random(src.block(0), 3);
    test::fill_random(src.block(1), 4);
    check_form<dim, degree_u, degree_p, SystemForm::stokes>(checker, problem, src, what);
    check_form<dim, degree_u, degree_p, SystemForm::divergence_transpose>(checker, problem, src, what);
    check_form<dim, degree_u, degree_p, SystemForm::elasticity>(checker, problem, src, what);
    check_form<dim, degree_u, degree_p, SystemForm::curl_curl>(checker, problem, src, what);

    // a vector of one DoFHandler in a loop of the object (deal.II 9.8's step-104 applies its
    // velocity block and pressure mass so)
    {
      gpumf::BlockVector<double> zero_p(src);
      zero_p.block(1) = 0.;
      LinearAlgebra::ReadWriteVector<double> expected_u, expected_p, mass_u, mass_p;
      test::system_form<dim>(SystemForm::stokes,
                             problem.mapping,
                             problem.dof_u,
                             problem.constraints_u,
                             problem.dof_p,
                             problem.constraints_p,
                             degree_u + 1,
                             test::to_rw(src.block(0)),
                             test::to_rw(zero_p.block(1)),
                             expected_u,
                             expected_p);
      test::system_form<dim>(SystemForm::pressure_mass,
                             problem.mapping,
                             problem.dof_u,
                             problem.constraints_u,
                             problem.dof_p,
                             problem.constraints_p,
                             degree_u + 1,
                             test::to_rw(src.block(0)),
                             test::to_rw(src.block(1)),
                             mass_u,
                             mass_p);
      gpumf::Vector<double> u_out, p_out;
      mf.initialize_dof_vector(u_out, 0);
      mf.initialize_dof_vector(p_out, 1);
      mf.cell_loop(VelocityLaplace<dim, degree_u>{}, src.block(0), u_out);
      mf.cell_loop(PressureMass<dim, degree_u, degree_p>{}, src.block(1), p_out);
      checker.check_below(test::relative_difference(test::to_rw(u_out), expected_u, MPI_COMM_WORLD),
                          1e-12,
                          what + ": velocity vector alone, FEEvaluation(data, 0)");
      checker.check_below(test::relative_difference(test::to_rw(p_out), mass_p, MPI_COMM_WORLD),
                          1e-12,
                          what + ": pressure vector alone, FEEvaluation(data, 1)");
      // the constrained entries of each DoFHandler
      gpumf::BlockVector<double> copy(src);
      copy = 0.;
      mf.copy_constrained_values(src, copy);
      const auto  copied = test::to_rw(copy.block(0));
      const auto  given  = test::to_rw(src.block(0));
      bool        ok     = true;
      std::size_t n      = 0;
      for (const auto i : copied.get_stored_elements())
        {
          const bool constrained = problem.constraints_u.is_constrained(i);
          ok                     = ok && copied(i) == (constrained ? given(i) : 0.);
          n += constrained;
        }
      checker.check(Utilities::MPI::min(int(ok), MPI_COMM_WORLD) == 1 && Utilities::MPI::sum(n, MPI_COMM_WORLD) > 0,
                    what + ": copy_constrained_values(BlockVector) per DoFHandler");
    }

    // the diagonal of each DoFHandler's operator (MatrixFreeTools::compute_diagonal with a
    // DoFHandler index, as deal.II 9.8's step-104 takes it) against that of an object of the
    // DoFHandler alone
    {
      typename gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend = backend;
      gpumf::MatrixFree<dim, double> alone_u, alone_p;
      alone_u.reinit(problem.mapping, problem.dof_u, problem.constraints_u, QGauss<1>(degree_u + 1), data);
      alone_p.reinit(problem.mapping, problem.dof_p, problem.constraints_p, QGauss<1>(degree_u + 1), data);
      gpumf::Vector<double> diagonal_u, diagonal_p, expected_u, expected_p;
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_u, degree_u + 1, dim, double>(
        mf, diagonal_u, LaplaceQuad{}, gradients, gradients, 0);
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_p, degree_u + 1, 1, double>(
        mf, diagonal_p, MassQuad{}, values, values, 1);
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_u, degree_u + 1, dim, double>(
        alone_u, expected_u, LaplaceQuad{}, gradients, gradients);
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_p, degree_u + 1, 1, double>(
        alone_p, expected_p, MassQuad{}, values, values);
      checker.check_below(
        std::max(test::relative_difference(test::to_rw(diagonal_u), test::to_rw(expected_u), MPI_COMM_WORLD),
                 test::relative_difference(test::to_rw(diagonal_p), test::to_rw(expected_p), MPI_COMM_WORLD)),
        1e-13,
        what + ": compute_diagonal(..., dof_index 0 and 1) vs the DoFHandlers' own objects");
    }

    // deal.II's block vector in and out
    {
      LinearAlgebra::distributed::BlockVector<double> host;
      mf.initialize_dof_vector(host);
      src.export_to(host, VectorOperation::insert);
      gpumf::BlockVector<double> back;
      mf.initialize_dof_vector(back);
      back.import_elements(host, VectorOperation::insert);
      back -= src;
      checker.check(host.n_blocks() == 2 && host.block(1).size() == problem.dof_p.n_dofs() && back.l2_norm() == 0. &&
                      std::abs(host.l2_norm() - src.l2_norm()) <= 1e-12 * src.l2_norm(),
                    what + ": BlockVector export_to / import_elements with deal.II's BlockVector");
    }

    // deal.II's solvers on gpumf::BlockVector
    if (dim == 2 && !overlap)
      {
        const BlockOperator<dim, degree_u, degree_p> op{&mf};
        gpumf::BlockVector<double>                   rhs, x, residual;
        mf.initialize_dof_vector(rhs);
        mf.initialize_dof_vector(x);
        mf.initialize_dof_vector(residual);
        rhs = src;
        mf.set_constrained_values(0., rhs);
        const auto solved = [&](const std::string &name) {
          op.vmult(residual, x);
          residual.sadd(-1., 1., rhs);
          checker.check_below(residual.l2_norm() / rhs.l2_norm(),
                              1e-8,
                              what + ": " + name + " on gpumf::BlockVector, residual |b - A x| / |b|");
        };
        {
          SolverControl                           control(2000, 1e-9 * rhs.l2_norm());
          SolverGMRES<gpumf::BlockVector<double>> solver(
            control, typename SolverGMRES<gpumf::BlockVector<double>>::AdditionalData(100));
          x = 0.;
          solver.solve(op, x, rhs, PreconditionIdentity());
          solved("SolverGMRES");
        }
        {
          SolverControl                            control(2000, 1e-9 * rhs.l2_norm());
          SolverFGMRES<gpumf::BlockVector<double>> solver(control);
          x = 0.;
          solver.solve(op, x, rhs, PreconditionIdentity());
          solved("SolverFGMRES");
        }
        {
          SolverControl                            control(4000, 1e-9 * rhs.l2_norm());
          SolverMinRes<gpumf::BlockVector<double>> solver(control);
          x = 0.;
          solver.solve(op, x, rhs, PreconditionIdentity());
          solved("SolverMinRes");
        }
      }
  }

  /// The quadratures of an object with several, against objects of one each and deal.II.
  template <int dim>
  std::vector<Quadrature<1>>
  three_quadratures(const unsigned int degree_u)
  {
    return {QGauss<1>(degree_u + 1), QGauss<1>(degree_u + 2), QGaussLobatto<1>(degree_u + 1)};
  }

  /// One MatrixFree with three quadratures (deal.II's CPU reinit() with a vector of them):
  /// Gauss with degree_u + 1 and degree_u + 2 points, Gauss–Lobatto with degree_u + 1. Each
  /// against an object of that quadrature alone (bitwise: the same geometry and tables) and the
  /// Stokes form on the second against deal.II's CPU MatrixFree; two quadratures of the same
  /// points in one functor; compute_diagonal() on the second; the refusals.
  template <int dim, int degree_u, int degree_p>
  void
  check_quadratures(test::Checker &checker, const gpumf::Backend backend)
  {
    Problem<dim, degree_u, degree_p> problem(backend, true, false);
    const std::string                what =
      std::to_string(dim) + "D Q" + std::to_string(degree_u) + "-Q" + std::to_string(degree_p) + ", three quadratures";
    using MF = gpumf::MatrixFree<dim, double>;
    typename MF::AdditionalData data;
    data.backend      = backend;
    data.use_coloring = true;
    const std::vector<const DoFHandler<dim> *>           dofs{&problem.dof_u, &problem.dof_p};
    const std::vector<const AffineConstraints<double> *> constraints{&problem.constraints_u, &problem.constraints_p};
    MF                                                   multi, gauss2, lobatto;
    multi.reinit(problem.mapping, dofs, constraints, three_quadratures<dim>(degree_u), data);
    gauss2.reinit(problem.mapping, dofs, constraints, QGauss<1>(degree_u + 2), data);
    lobatto.reinit(problem.mapping, dofs, constraints, QGaussLobatto<1>(degree_u + 1), data);
    constexpr unsigned int n0 = Utilities::pow(degree_u + 1, dim), n1 = Utilities::pow(degree_u + 2, dim);
    checker.check(multi.n_quadratures() == 3 && multi.n_q_points(0) == n0 && multi.n_q_points(1) == n1 &&
                    multi.n_q_points(2) == n0 && multi.launch_quadrature(n1) == 1 && multi.launch_quadrature(n0) == 0,
                  what + ": n_quadratures(), n_q_points(q), launch_quadrature()");

    gpumf::BlockVector<double> src, dst, expected;
    multi.initialize_dof_vector(src);
    multi.initialize_dof_vector(dst);
    multi.initialize_dof_vector(expected);
    test::fill_random(src.block(0), 5);
    test::fill_random(src.block(1), 6);
    const auto same = [&](const gpumf::BlockVector<double> &a, const gpumf::BlockVector<double> &b) {
      return test::bitwise_equal(test::to_rw(a.block(0)), test::to_rw(b.block(0)), MPI_COMM_WORLD) &&
             test::bitwise_equal(test::to_rw(a.block(1)), test::to_rw(b.block(1)), MPI_COMM_WORLD) && a.l2_norm() > 0;
    };
    constexpr SystemForm stokes = SystemForm::stokes;
    // quadrature 0: the plain FEEvaluation(data, k) as on an object of one quadrature
    multi.cell_loop(BlockForm<dim, degree_u, degree_p, stokes>{}, src, dst, true);
    problem.mf.cell_loop(BlockForm<dim, degree_u, degree_p, stokes>{}, src, expected, true);
    checker.check(same(dst, expected),
                  what + ": quadrature 0, bitwise the object of Gauss(" + std::to_string(degree_u + 1) + ") alone");
    // quadrature 1 (more points: its own launch)
    multi.cell_loop(QuadratureForm<dim, degree_u, degree_p, stokes, degree_u + 2, 1>{}, src, dst, true);
    gauss2.cell_loop(QuadratureForm<dim, degree_u, degree_p, stokes, degree_u + 2, 0>{}, src, expected, true);
    LinearAlgebra::ReadWriteVector<double> dealii_u, dealii_p;
    test::system_form<dim>(stokes,
                           problem.mapping,
                           problem.dof_u,
                           problem.constraints_u,
                           problem.dof_p,
                           problem.constraints_p,
                           degree_u + 2,
                           test::to_rw(src.block(0)),
                           test::to_rw(src.block(1)),
                           dealii_u,
                           dealii_p);
    const double to_dealii = std::max(test::relative_difference(test::to_rw(dst.block(0)), dealii_u, MPI_COMM_WORLD),
                                      test::relative_difference(test::to_rw(dst.block(1)), dealii_p, MPI_COMM_WORLD));
    checker.check(same(dst, expected) && to_dealii <= 1e-12,
                  what + ": Stokes on quadrature 1 (FEEvaluation(data, k, 1)), bitwise the object of Gauss(" +
                    std::to_string(degree_u + 2) + ") alone, " + test::sci(to_dealii) +
                    " from deal.II's CPU MatrixFree (<= 1e-12)");
    // quadrature 2: as many points as quadrature 0, which the loop launches; the FEEvaluation
    // objects take quadrature 2's geometry and tables (Gauss-Lobatto: collocation for u)
    multi.cell_loop(QuadratureForm<dim, degree_u, degree_p, stokes, degree_u + 1, 2>{}, src, dst, true);
    lobatto.cell_loop(QuadratureForm<dim, degree_u, degree_p, stokes, degree_u + 1, 0>{}, src, expected, true);
    checker.check(same(dst, expected),
                  what +
                    ": quadrature 2 in a launch of quadrature 0 (as many points), bitwise the object of "
                    "Gauss-Lobatto(" +
                    std::to_string(degree_u + 1) + ") alone");
    // quadratures 0 and 2 in one functor
    {
      std::vector<gpumf::Vector<double> *>       out{&dst.block(0), &dst.block(1)};
      std::vector<const gpumf::Vector<double> *> in{&src.block(0), &src.block(1)};
      multi.cell_loop(MixedQuadratures<dim, degree_u, degree_p, 2>{}, in, out, true);
      problem.mf.cell_loop(VelocityLaplace<dim, degree_u>{}, src.block(0), expected.block(0), true);
      lobatto.cell_loop(PressureMass<dim, degree_u, degree_p>{}, src.block(1), expected.block(1), true);
      checker.check(same(dst, expected),
                    what + ": FEEvaluation(cell, data, shared, 0, 0) and (..., 1, 2) in one functor, bitwise the "
                           "objects of each quadrature");
    }
    // the diagonal on quadrature 1
    {
      gpumf::Vector<double> diagonal, diagonal_expected;
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_u, degree_u + 2, dim, double>(
        multi, diagonal, LaplaceQuad{}, gradients, gradients, 0, 1);
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_u, degree_u + 2, dim, double>(
        gauss2, diagonal_expected, LaplaceQuad{}, gradients, gradients, 0, 0);
      checker.check(test::bitwise_equal(test::to_rw(diagonal), test::to_rw(diagonal_expected), MPI_COMM_WORLD) &&
                      diagonal.l2_norm() > 0,
                    what + ": compute_diagonal(..., dof 0, quadrature 1), bitwise the object of that quadrature");
    }
    // refused
    const auto refused = [&](const std::string &case_name, const std::string &expected_text, const auto &f) {
      std::string message;
      try
        {
          f();
        }
      catch (const std::exception &e)
        {
          message = e.what();
        }
      std::string flat; // deal.II may wrap long messages
      for (const char c : message)
        if (!std::isspace(static_cast<unsigned char>(c)))
          flat += c;
        else if (!flat.empty() && flat.back() != ' ')
          flat += ' ';
      checker.check(flat.find(expected_text) != std::string::npos,
                    what + ": " + case_name + " is refused" + (message.empty() ? " (NOTHING THROWN)" : ""));
    };
    refused("a functor of points no quadrature has", "quadrature points per direction", [&] {
      multi.cell_loop(QuadratureForm<dim, degree_u, degree_p, stokes, degree_u + 3, 1>{}, src, dst, true);
    });
    refused("compute_diagonal() on a quadrature of other points", "that one another number of points", [&] {
      gpumf::Vector<double> diagonal;
      gpumf::MatrixFreeTools::compute_diagonal<dim, degree_u, degree_u + 2, dim, double>(
        multi, diagonal, LaplaceQuad{}, gradients, gradients, 0, 2);
    });
    if (backend == gpumf::Backend::host) // (on the GPU the kernel stops: the CUDA context is lost)
      refused("an FEEvaluation on a quadrature of other points than the loop's", "in a loop that runs on", [&] {
        multi.cell_loop(OtherPoints<dim, degree_u, degree_p>{}, src, dst, true);
      });
    refused("five quadratures", "it takes 1 to 4", [&] {
      MF five;
      five.reinit(problem.mapping, dofs, constraints, std::vector<QGauss<1>>(5, QGauss<1>(degree_u + 1)), data);
    });
  }

  template <int dim, int degree_u, int degree_p>
  int
  misuse(const gpumf::Backend backend, const std::string &which)
  {
    Problem<dim, degree_u, degree_p> problem(backend, false, false);
    gpumf::BlockVector<double>       src, dst;
    problem.mf.initialize_dof_vector(src);
    problem.mf.initialize_dof_vector(dst);
    try
      {
        if (which == "misuse-dof-index")
          problem.mf.cell_loop(ThirdDoFHandler<dim, degree_u, degree_p>{}, src, dst);
        else if (which == "misuse-vector-index")
          problem.mf.initialize_dof_vector(dst.block(0), 2);
        else if (which == "misuse-quad-index")
          problem.mf.cell_loop(FourthQuadrature<dim, degree_u, degree_p>{}, src, dst);
        else
          AssertThrow(false, ExcMessage("unknown case " + which));
        std::cout << "norm " << dst.l2_norm() << std::endl; // synchronizes: a kernel's failure shows here
      }
    catch (const std::exception &e)
      {
        std::cout << "exception: " << e.what() << std::endl;
        return 1;
      }
    std::cout << "no error reported" << std::endl;
    return 1;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  gpumf::Backend                   backend;
  if (!test::backend_from_argument(argc, argv, backend))
    return test::skip_return_code;
  if (argc > 2)
    return misuse<2, 2, 1>(backend, argv[2]);
  test::Checker checker(MPI_COMM_WORLD);
  check_problem<2, 2, 1>(checker, backend, false, false);
  check_problem<2, 3, 2>(checker, backend, true, true);
  check_problem<3, 2, 1>(checker, backend, true, false);
  check_problem<3, 2, 1>(checker, backend, false, true);
  // a column of points per thread at n_q = 6: the line passes' 1D matrices read through memory
  {
    Problem<3, 5, 4>           problem(backend, false, false);
    gpumf::BlockVector<double> src;
    problem.mf.initialize_dof_vector(src);
    test::fill_random(src.block(0), 6);
    test::fill_random(src.block(1), 7);
    check_form<3, 5, 4, SystemForm::stokes>(checker, problem, src, "3D Q5-Q4");
  }
  check_quadratures<2, 3, 2>(checker, backend);
  check_quadratures<3, 2, 1>(checker, backend);
  return checker.finish();
}
