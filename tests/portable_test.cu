// deal.II 9.5+'s GPU matrix-free dialect (gpumf/portable.h) on any deal.II gpumf builds against:
// a Helmholtz operator written as deal.II 9.6's step-64 writes it (Portable::MatrixFree,
// AdditionalData(update flags, coloring), FEEvaluation(gpu_data, shared_data), EvaluationFlags,
// a quadrature functor (fe_eval *, q), evaluate_coefficients() with (gpu_data, cell, q),
// Data::local_q_point_id() and get_quadrature_point()), against the same operator in deal.II
// 9.4's dialect (examples/helmholtz) and deal.II's CPU MatrixFree, on random vectors; the DoF
// values through get_dof_value(q)/submit_dof_value(q); flags gpumf does not support refused.
// deal.II 9.7 and 9.8's form of the same operator (as 9.8's step-64 writes it: the functor
// (data, src, dst) with DeviceVector, FEEvaluation(data), data->for_each_quad_point(),
// local_q_point_id(cell, q), get_current_cell_index(), get_matrix_free_data(), only n_q_points
// declared) bitwise equal to the 9.6 form on the host; MatrixFreeTools::compute_diagonal() with
// its quadrature operation against deal.II's CPU compute_diagonal, inverted twice by
// gpumf::Kokkos::parallel_for; DataHost's members; FEEvaluation(data, 1) refused.
// (Functors say GPUMF_HOST_DEVICE: deal.II 9.6's DEAL_II_HOST_DEVICE is host-only where its Kokkos
// has no CUDA; the step-64 port writes __host__ __device__.)
//
//   portable_test host   host backend vs the 9.4 dialect (relative 1e-14) and deal.II (1e-12)
//   portable_test cuda   CUDA (coloring, atomics) vs host: <= 500 ulps relative; skipped without a GPU
#include <gpumf/portable.h>

#include <deal.II/fe/fe_q.h>

#include "common/dealii_reference.h"
#include "common/test_utils.h"
#include "helmholtz_operator.h"

using namespace dealii;

namespace
{
  template <int dim, int fe_degree>
  class CoefficientFunctor
  {
  public:
    CoefficientFunctor(double *coefficient)
      : coef(coefficient)
    {}

    GPUMF_HOST_DEVICE void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data,
               const unsigned int                                             cell,
               const unsigned int                                             q) const
    {
      const unsigned int pos = gpu_data->local_q_point_id(cell, n_q_points, q);
      coef[pos]              = helmholtz_coefficient(gpu_data->get_quadrature_point(cell, q));
    }

    static const unsigned int n_dofs_1d    = fe_degree + 1;
    static const unsigned int n_local_dofs = Utilities::pow(n_dofs_1d, dim);
    static const unsigned int n_q_points   = Utilities::pow(n_dofs_1d, dim);

  private:
    double *coef;
  };

  template <int dim, int fe_degree>
  class HelmholtzQuad
  {
  public:
    GPUMF_HOST_DEVICE
    HelmholtzQuad(const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data, double *coef, int cell)
      : gpu_data(gpu_data)
      , coef(coef)
      , cell(cell)
    {}

    GPUMF_HOST_DEVICE void
    operator()(gpumf::Portable::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double> *fe_eval,
               const int                                                                q_point) const
    {
      const unsigned int pos = gpu_data->local_q_point_id(cell, n_q_points, q_point);
      fe_eval->submit_value(coef[pos] * fe_eval->get_value(q_point), q_point);
      fe_eval->submit_gradient(fe_eval->get_gradient(q_point), q_point);
    }

    static const unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

  private:
    const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data;
    double                                                        *coef;
    int                                                            cell;
  };

  /// Doubles the DoF values (before evaluate()) through get_dof_value(q)/submit_dof_value(q).
  struct DoubleDofValues
  {
    template <typename FEEval>
    GPUMF_HOST_DEVICE void
    operator()(FEEval *phi, const int q) const
    {
      phi->submit_dof_value(2. * phi->get_dof_value(q), q);
    }
  };

  /// The operator of deal.II 9.6's step-64; with @p scale_dofs, the DoF values are first
  /// multiplied by 2 through get_dof_value(q)/submit_dof_value(q) (and the result halved).
  template <int dim, int fe_degree>
  class LocalHelmholtz
  {
  public:
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
    static constexpr unsigned int n_local_dofs = Utilities::pow(fe_degree + 1, dim);
    static constexpr unsigned int n_q_points   = Utilities::pow(fe_degree + 1, dim);

    LocalHelmholtz(double *coefficient, const bool scale_dofs)
      : coef(coefficient)
      , scale_dofs(scale_dofs)
    {}

    GPUMF_HOST_DEVICE void
    operator()(const unsigned int                                             cell,
               const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data,
               gpumf::Portable::SharedData<dim, double>                      *shared_data,
               const double                                                  *src,
               double                                                        *dst) const
    {
      gpumf::Portable::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double> fe_eval(gpu_data, shared_data);
      fe_eval.read_dof_values(src);
      if (scale_dofs)
        fe_eval.apply_for_each_quad_point(DoubleDofValues());
      fe_eval.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);
      fe_eval.apply_for_each_quad_point(HelmholtzQuad<dim, fe_degree>(gpu_data, coef, cell));
      fe_eval.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);
      fe_eval.distribute_local_to_global(dst);
    }

  private:
    double *coef;
    bool    scale_dofs;
  };

  /// @name deal.II 9.7 and 9.8's form (as 9.8's step-64 writes it): the cell and its scratch in
  /// Data, the vectors as DeviceVector, only n_q_points declared.
  /// @{
  template <int dim, int fe_degree>
  class CoefficientFunctor97
  {
  public:
    CoefficientFunctor97(double *coefficient)
      : coef(coefficient)
    {}

    GPUMF_HOST_DEVICE void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data,
               const unsigned int                                             cell,
               const unsigned int                                             q) const
    {
      const unsigned int pos = gpu_data->local_q_point_id(cell, q);
      coef[pos]              = helmholtz_coefficient(gpu_data->get_quadrature_point(cell, q));
    }

    static const unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

  private:
    double *coef;
  };

  template <int dim, int fe_degree>
  class HelmholtzQuad97
  {
  public:
    GPUMF_HOST_DEVICE
    HelmholtzQuad97(double *coef)
      : coef(coef)
    {}

    GPUMF_HOST_DEVICE void
    operator()(gpumf::Portable::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double> *fe_eval,
               const int                                                                q_point) const
    {
      const int                                                      cell     = fe_eval->get_current_cell_index();
      const typename gpumf::Portable::MatrixFree<dim, double>::Data *data     = fe_eval->get_matrix_free_data();
      const unsigned int                                             position = data->local_q_point_id(cell, q_point);
      fe_eval->submit_value(coef[position] * fe_eval->get_value(q_point), q_point);
      fe_eval->submit_gradient(fe_eval->get_gradient(q_point), q_point);
    }

    static const unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

  private:
    double *coef;
  };

  template <int dim, int fe_degree>
  class LocalHelmholtz97
  {
  public:
    static constexpr unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

    LocalHelmholtz97(double *coefficient, const bool scale_dofs)
      : coef(coefficient)
      , scale_dofs(scale_dofs)
    {}

    GPUMF_HOST_DEVICE void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>                   &src,
               gpumf::Portable::DeviceVector<double>                         &dst) const
    {
      gpumf::Portable::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double> fe_eval(data);
      fe_eval.read_dof_values(src);
      if (scale_dofs) // the DoF values doubled through Kokkos' team loop over the cell's threads
        {
          gpumf::Kokkos::parallel_for(gpumf::Kokkos::TeamThreadRange(data->team_member, n_q_points),
                                      [&](const int q) { fe_eval.submit_dof_value(2. * fe_eval.get_dof_value(q), q); });
          data->team_member.team_barrier();
        }
      fe_eval.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);
      HelmholtzQuad97<dim, fe_degree> quad(coef);
      data->for_each_quad_point([&](const int &q_point) { quad(&fe_eval, q_point); });
      fe_eval.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);
      fe_eval.distribute_local_to_global(dst);
    }

  private:
    double *coef;
    bool    scale_dofs;
  };

  /// A 9.7-form functor that asks for a second DoFHandler: refused (gpumf has one).
  template <int dim, int fe_degree>
  struct SecondDofHandler97
  {
    static constexpr unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

    GPUMF_HOST_DEVICE void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>                   &src,
               gpumf::Portable::DeviceVector<double>                         &dst) const
    {
      gpumf::Portable::FEEvaluation<dim, fe_degree> fe_eval(data, 1);
      fe_eval.read_dof_values(src);
      fe_eval.distribute_local_to_global(dst);
    }
  };
  /// @}

  /// A functor that asks for hessians: refused.
  template <int dim, int fe_degree>
  struct HessianFunctor
  {
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
    static constexpr unsigned int n_local_dofs = Utilities::pow(fe_degree + 1, dim);
    static constexpr unsigned int n_q_points   = Utilities::pow(fe_degree + 1, dim);

    GPUMF_HOST_DEVICE void
    operator()(const unsigned int,
               const typename gpumf::Portable::MatrixFree<dim, double>::Data *gpu_data,
               gpumf::Portable::SharedData<dim, double>                      *shared_data,
               const double                                                  *src,
               double                                                        *dst) const
    {
      gpumf::Portable::FEEvaluation<dim, fe_degree> fe_eval(gpu_data, shared_data);
      fe_eval.read_dof_values(src);
      fe_eval.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::hessians);
      fe_eval.integrate(EvaluationFlags::values); // a single deal.II flag
      fe_eval.distribute_local_to_global(dst);
    }
  };

  /// 1/x entry by entry, as deal.II 9.8's step-64 inverts its diagonal (Kokkos::parallel_for
  /// with a KOKKOS_LAMBDA). gpumf::Kokkos::parallel_for runs on default_backend() (Kokkos' default
  /// execution space): a vector of another backend (the host reference while a GPU is the default)
  /// takes Vector::transform().
  void
  invert_entries(gpumf::Vector<double> &v)
  {
    double *raw = v.get_values();
    if (v.backend() == gpumf::default_backend())
      gpumf::Kokkos::parallel_for(v.locally_owned_size(), [=] __host__ __device__(int i) { raw[i] = 1. / raw[i]; });
    else
      v.transform([] __host__ __device__(const double x) { return 1. / x; });
  }

  template <int dim, int fe_degree>
  void
  check_case(test::Checker &checker, const gpumf::Backend backend, const test::MeshKind mesh)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, mesh);
    const auto      mapping = test::make_mapping<dim>(mesh);
    FE_Q<dim>       fe(fe_degree);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    test::make_constraints(*mapping, dof, constraints);
    const std::string name = std::to_string(dim) + "d degree " + std::to_string(fe_degree) + " " +
                             test::to_string(mesh) + " (" + std::to_string(dof.n_dofs()) + " DoFs)";

    // step-64's set-up and vmult, in the 9.5/9.6 form (form96) or the 9.7/9.8 one; with
    // diagonal, deal.II 9.8's step-64 diagonal (MatrixFreeTools::compute_diagonal(), inverted by
    // Kokkos::parallel_for) instead of the vmult
    const auto apply = [&](const gpumf::Backend b,
                           const bool           coloring,
                           const bool           scale_dofs,
                           const bool           form96   = true,
                           const bool           diagonal = false) {
      typename gpumf::Portable::MatrixFree<dim, double>::AdditionalData additional_data(
        update_values | update_gradients | update_JxW_values | update_quadrature_points, coloring);
      additional_data.backend = b;
      gpumf::Portable::MatrixFree<dim, double> mf_data;
      mf_data.reinit(*mapping, dof, constraints, QGauss<1>(fe_degree + 1), additional_data);
      gpumf::Vector<double> coef(std::make_shared<Utilities::MPI::Partitioner>(Utilities::pow(fe_degree + 1, dim) *
                                                                               mf_data.n_cells()),
                                 b);
      if (form96)
        mf_data.evaluate_coefficients(CoefficientFunctor<dim, fe_degree>(coef.get_values()));
      else
        mf_data.evaluate_coefficients(CoefficientFunctor97<dim, fe_degree>(coef.get_values()));
      gpumf::Vector<double> src, dst;
      mf_data.initialize_dof_vector(src);
      mf_data.initialize_dof_vector(dst);
      test::fill_random(src);
      if (diagonal)
        {
          MatrixFreeTools::compute_diagonal<dim, fe_degree, fe_degree + 1, 1, double>(
            mf_data,
            dst,
            HelmholtzQuad97<dim, fe_degree>(coef.get_values()),
            EvaluationFlags::values | EvaluationFlags::gradients,
            EvaluationFlags::values | EvaluationFlags::gradients);
          // inverted and back, as 9.8's step-64 inverts it (the inverse would hide small errors)
          invert_entries(dst);
          invert_entries(dst);
          gpumf::Kokkos::fence();
          return test::to_rw(dst);
        }
      dst = 0.;
      if (form96)
        mf_data.cell_loop(LocalHelmholtz<dim, fe_degree>(coef.get_values(), scale_dofs), src, dst);
      else
        mf_data.cell_loop(LocalHelmholtz97<dim, fe_degree>(coef.get_values(), scale_dofs), src, dst);
      if (scale_dofs)
        dst *= 0.5;
      mf_data.copy_constrained_values(src, dst);
      return test::to_rw(dst);
    };

    const auto host = apply(gpumf::Backend::host, false, false);
    if (backend == gpumf::Backend::host)
      {
        helmholtz::HelmholtzOperator<dim, fe_degree> op94;
        op94.reinit(*mapping, dof, constraints, false, gpumf::Backend::host);
        gpumf::Vector<double> src, dst;
        op94.initialize_dof_vector(src);
        op94.initialize_dof_vector(dst);
        test::fill_random(src);
        op94.vmult(dst, src);
        checker.check_below(test::relative_difference(host, test::to_rw(dst), comm),
                            1e-14,
                            name + ": 9.5+ dialect vs 9.4 dialect (host)");

        test::DealiiHelmholtzOperator<dim> reference;
        reference.reinit(*mapping, dof, constraints, fe_degree + 1);
        LinearAlgebra::distributed::Vector<double> ref_src, ref_dst;
        reference.initialize_dof_vector(ref_src);
        reference.initialize_dof_vector(ref_dst);
        test::fill_random(ref_src);
        reference.vmult(ref_dst, ref_src);
        checker.check_below(test::relative_difference(host, test::to_rw(ref_dst), comm),
                            1e-12,
                            name + ": 9.5+ dialect (host) vs deal.II CPU MatrixFree");

        checker.check(test::relative_difference(apply(gpumf::Backend::host, false, false, false), host, comm) == 0,
                      name + ": 9.7 form (data, src, dst) bitwise equal to the 9.6 form (host)");
        reference.compute_diagonal(ref_dst);
        checker.check_below(test::relative_difference(apply(gpumf::Backend::host, false, false, false, true),
                                                      test::to_rw(ref_dst),
                                                      comm),
                            1e-12,
                            name + ": MatrixFreeTools::compute_diagonal (9.7 form, host) vs deal.II's on the CPU");
      }
    const double tolerance = 500 * std::numeric_limits<double>::epsilon();
    for (const bool coloring : {false, true})
      {
        const std::string variant =
          std::string(backend == gpumf::Backend::host ? " host" : " cuda") + (coloring ? " coloring" : " atomics");
        checker.check_below(test::relative_difference(apply(backend, coloring, false), host, comm),
                            tolerance,
                            name + variant + " vs host");
        checker.check_below(test::relative_difference(apply(backend, coloring, true), host, comm),
                            tolerance,
                            name + variant + ", DoF values through get_dof_value(q)/submit_dof_value(q)");
        checker.check_below(test::relative_difference(apply(backend, coloring, false, false), host, comm),
                            tolerance,
                            name + variant + ", 9.7 form (data, src, dst) vs host");
        checker.check_below(test::relative_difference(apply(backend, coloring, true, false), host, comm),
                            tolerance,
                            name + variant + ", 9.7 form, DoF values through TeamThreadRange(data->team_member)");
        checker.check_below(test::relative_difference(apply(backend, coloring, false, false, true),
                                                      apply(gpumf::Backend::host, false, false, false, true),
                                                      comm),
                            tolerance,
                            name + variant + ", compute_diagonal vs host");
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    for (const auto mesh : {test::MeshKind::cartesian, test::MeshKind::curved})
      {
        check_case<2, 3>(checker, backend, mesh);
        check_case<3, 2>(checker, backend, mesh);
        check_case<3, 4>(checker, backend, mesh);
      }

    if (backend == gpumf::Backend::host)
      {
        // EvaluationFlags::hessians: an exception that names what is supported
        parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
        GridGenerator::hyper_cube(tria);
        tria.refine_global(2);
        FE_Q<2>       fe(2);
        DoFHandler<2> dof(tria);
        dof.distribute_dofs(fe);
        AffineConstraints<double> constraints;
        constraints.close();
        gpumf::Portable::MatrixFree<2, double>::AdditionalData data(update_gradients);
        data.backend = gpumf::Backend::host;
        gpumf::Portable::MatrixFree<2, double> mf;
        mf.reinit(MappingQ<2>(1), dof, constraints, QGauss<1>(3), data);
        gpumf::Vector<double> src, dst;
        mf.initialize_dof_vector(src);
        mf.initialize_dof_vector(dst);
        const std::string message = test::exception_of([&] { mf.cell_loop(HessianFunctor<2, 2>(), src, dst); });
        checker.check(message.find("no hessians") != std::string::npos,
                      "evaluate(EvaluationFlags::hessians) throws, naming the supported flags");
        const std::string second = test::exception_of([&] { mf.cell_loop(SecondDofHandler97<2, 2>(), src, dst); });
        checker.check(second.find("dof_index must be 0") != std::string::npos,
                      "FEEvaluation(data, 1) throws: gpumf's MatrixFree has one DoFHandler");

        // DataHost's members (deal.II 9.5+) equal the free functions of 9.4's form
        const auto host_data =
          gpumf::Portable::copy_mf_data_to_host<2, double>(mf.get_data(0), update_quadrature_points);
        bool same = host_data.n_cells > 0;
        for (unsigned int c = 0; c < host_data.n_cells; ++c)
          for (unsigned int q = 0; q < 9; ++q)
            same = same && host_data.local_q_point_id(c, 9, q) == gpumf::local_q_point_id_host(c, host_data, 9, q) &&
                   host_data.get_quadrature_point(c, q) == gpumf::get_quadrature_point_host(c, host_data, q);
        checker.check(same, "DataHost::local_q_point_id() and get_quadrature_point() as the 9.4 functions");
      }
  });
}
