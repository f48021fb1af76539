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
// gpumf::Kokkos::parallel_for; DataHost's members; FEEvaluation(data, 1) refused. What ports of
// deal.II's programs pass besides: vectors of data per quadrature point to cell_loop (written and
// read, bitwise as evaluate_coefficients(); a vector of neither layout refused), and a DoFHandler
// with an hp::FECollection whose cells all use one element (as that element alone; cells of two
// elements refused), on both backends.
// (Functors say GPUMF_HOST_DEVICE: deal.II 9.6's DEAL_II_HOST_DEVICE is host-only where its Kokkos
// has no CUDA; the step-64 port writes __host__ __device__.)
//
//   portable_test host   host backend vs the 9.4 dialect (relative 1e-14) and deal.II (1e-12)
//   portable_test cuda   CUDA (coloring, atomics) vs host: <= 500 ulps relative; skipped without a GPU
#include <gpumf/portable.h>

#include <deal.II/base/function_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/hp/fe_collection.h>

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

  /// Data per quadrature point through cell_loop, as deal.II's programs pass it (a coefficient
  /// vector of n_q_points entries per cell, indexed by local_q_point_id(cell, q)): dst = factor
  /// * src (or the coefficient where src is the DoF vector of read_dof) at every point.
  template <int dim, int fe_degree>
  struct PointData97
  {
    static constexpr unsigned int n_q_points = Utilities::pow(fe_degree + 1, dim);

    GPUMF_HOST_DEVICE void
    operator()(const typename gpumf::Portable::MatrixFree<dim, double>::Data *data,
               const gpumf::Portable::DeviceVector<double>                   &src,
               gpumf::Portable::DeviceVector<double>                         &dst) const
    {
      const int cell = data->cell_index;
      data->for_each_quad_point([&](const int &q) {
        const unsigned int pos = data->local_q_point_id(cell, q);
        dst[pos] = read_dof ? helmholtz_coefficient(data->get_quadrature_point(cell, q)) : factor * src[pos];
      });
    }

    double factor;
    bool   read_dof;
  };

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

  /// cell_loop with vectors of data per quadrature point (deal.II's programs compute a coefficient
  /// so, or read one): written as a destination (the DoF vector as source) equal to
  /// evaluate_coefficients()'s bitwise, read as a source into another; a vector of neither
  /// layout refused with a message naming both.
  void
  check_point_vectors(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int                           dim = 2, fe_degree = 2, n_q = 9;
    parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(3);
    FE_Q<dim>       fe(fe_degree);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    constraints.close();
    gpumf::Portable::MatrixFree<dim, double>::AdditionalData data(update_values | update_quadrature_points);
    data.backend = backend;
    gpumf::Portable::MatrixFree<dim, double> mf;
    mf.reinit(MappingQ<dim>(1), dof, constraints, QGauss<1>(fe_degree + 1), data);
    // n_q entries for each cell of this rank, on the communicator (no ghosts)
    const auto per_point = std::make_shared<Utilities::MPI::Partitioner>(n_q * mf.n_cells(), 0, MPI_COMM_WORLD);
    gpumf::Vector<double> reference(per_point, backend), computed(per_point, backend), twice(per_point, backend), dofs;
    mf.initialize_dof_vector(dofs);
    mf.evaluate_coefficients(CoefficientFunctor97<dim, fe_degree>(reference.get_values()));
    mf.cell_loop(PointData97<dim, fe_degree>{1., true}, dofs, computed);
    const auto reference_rw = test::to_rw(reference), computed_rw = test::to_rw(computed);
    bool       same = reference_rw.locally_owned_size() == std::size_t(n_q) * mf.n_cells();
    for (unsigned int i = 0; i < reference_rw.locally_owned_size(); ++i)
      same = same && reference_rw.local_element(i) == computed_rw.local_element(i);
    checker.check(Utilities::MPI::min(int(same), MPI_COMM_WORLD) == 1,
                  "cell_loop writes a vector of data per quadrature point (local_q_point_id(cell, q)) as "
                  "evaluate_coefficients() does, bitwise (" +
                    gpumf::to_string(backend) + ")");
    mf.cell_loop(PointData97<dim, fe_degree>{2., false}, computed, twice);
    const auto twice_rw = test::to_rw(twice);
    same                = true;
    for (unsigned int i = 0; i < twice_rw.locally_owned_size(); ++i)
      same = same && twice_rw.local_element(i) == 2. * reference_rw.local_element(i);
    checker.check(Utilities::MPI::min(int(same), MPI_COMM_WORLD) == 1,
                  "cell_loop reads a vector of data per quadrature point as its source (" + gpumf::to_string(backend) +
                    ")");
    gpumf::Vector<double> odd(std::make_shared<Utilities::MPI::Partitioner>(n_q * mf.n_cells() + 1, 0, MPI_COMM_WORLD),
                              backend);
    const std::string     message = test::exception_of([&] {
      mf.cell_loop(PointData97<dim, fe_degree>{1., false}, odd, computed);
    });
    checker.check(message.find("data per cell for cell_loop()") != std::string::npos &&
                    message.find("DoF vectors (" + std::to_string(dofs.size()) + " entries)") != std::string::npos,
                  "a source of neither layout throws, naming both");
  }

  /// A DoFHandler with an hp::FECollection whose active cells all use one of its elements (on a
  /// mesh with hanging nodes): the same operator as with that element alone (x . A x and |A x| of an interpolated
  /// function, which the DoF numbering does not change); cells of two elements refused.
  void
  check_hp_collection(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int                           dim = 2, fe_degree = 2;
    parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(3);
    for (const auto &cell : tria.active_cell_iterators()) // hanging nodes (deal.II's HangingNodes per element)
      if (cell->is_locally_owned() && cell->center()[0] < 0.5)
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
    const MappingQ<dim>   mapping(1);
    hp::FECollection<dim> collection(FE_Q<dim>(1), FE_Q<dim>(fe_degree));
    const auto            apply = [&](DoFHandler<dim> &dof) {
      AffineConstraints<double> constraints;
      test::make_constraints(mapping, dof, constraints);
      typename gpumf::Portable::MatrixFree<dim, double>::AdditionalData additional_data(
        update_values | update_gradients | update_JxW_values | update_quadrature_points);
      additional_data.backend = backend;
      gpumf::Portable::MatrixFree<dim, double> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(fe_degree + 1), additional_data);
      gpumf::Vector<double> coef(std::make_shared<Utilities::MPI::Partitioner>(Utilities::pow(fe_degree + 1, dim) *
                                                                               mf.n_cells()),
                                 backend);
      mf.evaluate_coefficients(CoefficientFunctor97<dim, fe_degree>(coef.get_values()));
      gpumf::Vector<double> x, y;
      mf.initialize_dof_vector(x);
      mf.initialize_dof_vector(y);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      LinearAlgebra::distributed::Vector<double> x_host(dof.locally_owned_dofs(), relevant, MPI_COMM_WORLD);
      VectorTools::interpolate(mapping, dof, Functions::CosineFunction<dim>(), x_host);
      x.import_elements(x_host, VectorOperation::insert);
      mf.cell_loop(LocalHelmholtz97<dim, fe_degree>(coef.get_values(), false), x, y);
      return std::make_pair(x * y, y.l2_norm());
    };
    DoFHandler<dim> plain(tria), hp_dof(tria);
    plain.distribute_dofs(FE_Q<dim>(fe_degree));
    for (const auto &cell : hp_dof.active_cell_iterators())
      if (cell->is_locally_owned())
        cell->set_active_fe_index(1);
    hp_dof.distribute_dofs(collection);
    const auto expected = apply(plain), got = apply(hp_dof);
    checker.check_below(std::abs(got.first - expected.first) / std::abs(expected.first) +
                          std::abs(got.second - expected.second) / expected.second,
                        1e-12,
                        "an hp::FECollection with one element on every active cell: x . A x and |A x| as with "
                        "that element alone (" +
                          gpumf::to_string(backend) + ")");
    DoFHandler<dim> mixed(tria);
    for (const auto &cell : mixed.active_cell_iterators())
      if (cell->is_locally_owned())
        cell->set_active_fe_index(cell->center()[0] < 0.5 ? 0 : 1);
    mixed.distribute_dofs(collection);
    const std::string message = test::exception_of([&] { apply(mixed); });
    checker.check(message.find("hp-adaptivity is not supported") != std::string::npos &&
                    message.find("FE_Q<2>(1) and FE_Q<2>(2)") != std::string::npos,
                  "cells of two elements of an hp::FECollection throw, naming both");
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
    check_point_vectors(checker, backend);
    check_hp_collection(checker, backend);

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
        checker.check(second.find("dof_index beyond the DoFHandlers") != std::string::npos,
                      "FEEvaluation(data, 1) on an object of one DoFHandler throws, naming the index");

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
