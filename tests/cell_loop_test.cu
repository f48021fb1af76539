// MatrixFree::cell_loop with several source and destination vectors, several FEEvaluation
// objects in one functor, barriers in user functors, and the host backend's emulated threads
// (they run in step, as on the GPU; misuse throws). Against deal.II's CPU MatrixFree reading
// two vectors in one loop (as step-48 does), on 2D and 3D meshes with hanging nodes and
// Dirichlet rows, on one or several ranks, with and without overlapping communication.
//
// cell_loop_test host|cuda             the checks
// cell_loop_test host|cuda misuse-<k>  runs misuse k and prints the exception (host) or the
//                                      kernel's message (GPU): ctest matches the message
#include <gpumf/fe_evaluation.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>

#include <cctype>

#include "common/dealii_reference.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  constexpr double a = 0.75;

  // The shared-memory carve-out of the kernels with a column per thread (cell_loop.h): the least
  // percent of an SM's shared memory (Hopper: 233472 bytes) that holds the blocks. BP5 p=4: 4
  // blocks of 10 cells, 39520 bytes each and the driver's 1 KB reserve: the estimate 70 %, then
  // down to 58 % against a model of the driver (a percent rounded up to one of Hopper's
  // configurations, as measured on an H200): the least that still gives the 164 KB configuration.
  static_assert(gpumf::internal::shared_carveout_percent(4, 39520 + 1024, 233472) == 70);
  static_assert(gpumf::internal::shared_carveout_percent(1, 2334, 233472) == 1);
  static_assert(gpumf::internal::shared_carveout_percent(5, 39520 + 1024, 233472) == 87);
  static_assert(gpumf::internal::shared_carveout_percent(6, 39520 + 1024, 233472) == 100); // more than fits
  static_assert(gpumf::internal::shared_carveout_percent(0, 39520, 233472) == 100);
  /// The blocks of @p bytes_per_block bytes an H100/H200 SM holds at a carve-out of @p percent:
  /// the percent rounded up to one of Hopper's shared-memory configurations (a probe kernel's
  /// measurement; doc/performance.md, "Techniques and what each gained").
  constexpr unsigned int
  hopper_blocks(const int percent, const unsigned int bytes_per_block)
  {
    constexpr unsigned int kb[]          = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    unsigned int           configuration = 228 * 1024;
    for (const unsigned int c : kb)
      if (c * 1024 * 100 >= unsigned(percent) * 233472u)
        {
          configuration = c * 1024;
          break;
        }
    return configuration / bytes_per_block;
  }
  static_assert(gpumf::internal::least_carveout_percent(4, 39520 + 1024, 233472, [](const int percent) {
                  return hopper_blocks(percent, 39520 + 1024);
                }) == 58);
  static_assert(gpumf::internal::least_carveout_percent(7, 27648 + 1024, 233472, [](const int percent) {
                  return hopper_blocks(percent, 27648 + 1024);
                }) == 72);
  // an estimate that holds too few (the driver's granularity): up to the first percent that holds them
  static_assert(gpumf::internal::least_carveout_percent(4, 39520 + 1024, 233472, [](const int percent) {
                  return percent >= 75 ? 4u : 3u;
                }) == 75);
  static_assert(gpumf::internal::least_carveout_percent(0, 300000, 233472, [](const int) { return 0u; }) == 100);

  template <int dim, int p>
  struct Sizes
  {
    static constexpr unsigned int n_dofs_1d = p + 1, n_local_dofs = Utilities::pow(p + 1, dim),
                                  n_q_points = Utilities::pow(p + 2, dim);
  };

  template <int dim, int p>
  using Eval = gpumf::FEEvaluation<dim, p, p + 2, 1, double>;

  /// (u v + a u, phi) + (grad v, grad phi) from two sources read by two FEEvaluation objects.
  template <int dim, int p>
  struct TwoFields : Sizes<dim, p>
  {
    static constexpr unsigned int n_fe_evaluations = 2;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>            src,
               double                                              *dst) const
    {
      Eval<dim, p> u(cell, data, shared), v(cell, data, shared);
      u.read_dof_values(src[0]);
      v.read_dof_values(src[1]);
      u.evaluate(true, false);
      v.evaluate(true, true);
      const double value = u.get_value();
      u.submit_value(value * v.get_value() + a * value);
      u.submit_gradient(v.get_gradient());
      u.integrate(true, true);
      u.distribute_local_to_global(dst);
    }
  };

  /// The same form with one FEEvaluation used twice: v read and evaluated, its value and
  /// gradient kept per thread, then u read into the same object. Correct on the GPU (each thread
  /// keeps its own point's numbers); the host backend must agree.
  template <int dim, int p>
  struct OneObjectTwice : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>            src,
               double                                              *dst) const
    {
      Eval<dim, p> phi(cell, data, shared);
      phi.read_dof_values(src[1]);
      phi.evaluate(true, true);
      const double v          = phi.get_value();
      const auto   v_gradient = phi.get_gradient();
      phi.read_dof_values(src[0]);
      phi.evaluate(true, false);
      const double value = phi.get_value();
      phi.submit_value(value * v + a * value);
      phi.submit_gradient(v_gradient);
      phi.integrate(true, true);
      phi.distribute_local_to_global(dst);
    }
  };

  /// The two parts of the form into two destinations: (u v + a u, phi) and (grad v, grad phi).
  template <int dim, int p>
  struct TwoDestinations : Sizes<dim, p>
  {
    static constexpr unsigned int n_fe_evaluations = 2;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>            src,
               const gpumf::VectorPointers<double>                  dst) const
    {
      Eval<dim, p> u(cell, data, shared), v(cell, data, shared);
      u.read_dof_values(src[0]);
      v.read_dof_values(src[1]);
      u.evaluate(true, false);
      v.evaluate(true, true);
      const double value = u.get_value();
      u.submit_value(value * v.get_value() + a * value);
      v.submit_gradient(v.get_gradient());
      u.integrate(true, false);
      v.integrate(false, true);
      u.distribute_local_to_global(dst[0]);
      v.distribute_local_to_global(dst[1]);
    }
  };

  /// deal.II 9.4's way to say "every thread has read" before values are overwritten: the value
  /// at the point mirrored through the cell's centre, submitted at each point. With the
  /// barrier it is correct on both backends; without it, a race.
  template <int dim, int p>
  struct MirrorWithBarrier : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double                                        *src,
               double                                              *dst) const
    {
      Eval<dim, p> phi(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(true, false);
      phi.apply_for_each_quad_point([&](Eval<dim, p> *e, const unsigned int q) {
        const double mirrored = e->get_value(Eval<dim, p>::n_q_points - 1 - q);
        gpumf::syncthreads(); // all have read before any submits
        e->submit_value(mirrored, q);
      });
      phi.integrate(true, false);
      phi.distribute_local_to_global(dst);
    }
  };

  /// Misuse (host only: on the GPU a race): MirrorWithBarrier without the barrier.
  template <int dim, int p>
  struct MirrorWithoutBarrier : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double                                        *src,
               double                                              *dst) const
    {
      Eval<dim, p> phi(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(true, false);
      phi.apply_for_each_quad_point([&](Eval<dim, p> *e, const unsigned int q) {
        e->submit_value(e->get_value(Eval<dim, p>::n_q_points - 1 - q), q);
      });
      phi.integrate(true, false);
      phi.distribute_local_to_global(dst);
    }
  };

  /// The mirrored values through a second FEEvaluation: no barrier needed.
  template <int dim, int p>
  struct MirrorThroughSecond : Sizes<dim, p>
  {
    static constexpr unsigned int n_fe_evaluations = 2;

    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double                                        *src,
               double                                              *dst) const
    {
      Eval<dim, p> phi(cell, data, shared), out(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(true, false);
      out.apply_for_each_quad_point([&](Eval<dim, p> *e, const unsigned int q) {
        e->submit_value(phi.get_value(Eval<dim, p>::n_q_points - 1 - q), q);
      });
      out.integrate(true, false);
      out.distribute_local_to_global(dst);
    }
  };

  /// Misuse: the literal port, two FEEvaluation objects without n_fe_evaluations.
  template <int dim, int p>
  struct Undeclared : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>            src,
               double                                              *dst) const
    {
      Eval<dim, p> u(cell, data, shared), v(cell, data, shared);
      u.read_dof_values(src[0]);
      v.read_dof_values(src[1]);
      u.evaluate(true, false);
      u.integrate(true, false);
      u.distribute_local_to_global(dst);
    }
  };

  /// Misuse: a third source read where two were passed.
  template <int dim, int p>
  struct ThirdSource : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const gpumf::VectorPointers<const double>            src,
               double                                              *dst) const
    {
      Eval<dim, p> u(cell, data, shared);
      u.read_dof_values(src[2]);
      u.distribute_local_to_global(dst);
    }
  };

  /// Misuse (host only: on the GPU it hangs or computes garbage): a barrier of one thread.
  template <int dim, int p>
  struct DivergentBarrier : Sizes<dim, p>
  {
    __host__ __device__ void
    operator()(const unsigned int                                   cell,
               const typename gpumf::MatrixFree<dim, double>::Data *data,
               gpumf::SharedData<dim, double>                      *shared,
               const double                                        *src,
               double                                              *dst) const
    {
      Eval<dim, p> u(cell, data, shared);
      u.read_dof_values(src);
      if (gpumf::internal::thread_index(gpumf::internal::CellLayout<dim>{p + 2}).x == 0)
        gpumf::syncthreads();
      u.distribute_local_to_global(dst);
    }
  };

  /// Runs @p f; passes when it throws an exception whose message contains @p expected.
  template <typename F>
  void
  expect_throw(test::Checker &checker, const std::string &what, const std::string &expected, F &&f)
  {
    std::string message;
    try
      {
        f();
      }
    catch (const std::exception &e)
      {
        message = e.what();
      }
    std::string flat; // deal.II wraps long messages
    for (const char c : message)
      if (!std::isspace(static_cast<unsigned char>(c)))
        flat += c;
      else if (!flat.empty() && flat.back() != ' ')
        flat += ' ';
    const bool ok = flat.find(expected) != std::string::npos;
    checker.check(ok, what + (ok ? "" : "\n  got: " + message));
  }

  template <int dim, int p>
  struct Problem
  {
    parallel::distributed::Triangulation<dim> tria;
    DoFHandler<dim>                           dof;
    AffineConstraints<double>                 constraints;
    MappingQ1<dim>                            mapping;
    gpumf::MatrixFree<dim, double>            mf;

    Problem(const gpumf::Backend backend, const bool overlap)
      : tria(MPI_COMM_WORLD)
      , dof(tria)
    {
      test::make_mesh<dim>(tria, test::Domain::unit_cube, dim == 2 ? 3 : 2, {[](const Point<dim> &x) {
                             return x[0] < 0.3 && x[1] < 0.6;
                           }});
      dof.distribute_dofs(FE_Q<dim>(p));
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof, constraints);
      VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
      constraints.close();
      typename gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend                           = backend;
      data.use_coloring                      = true;
      data.overlap_communication_computation = overlap;
      mf.reinit(mapping, dof, constraints, QGauss<1>(p + 2), data);
    }
  };

  template <int dim, int p>
  void
  check_loops(test::Checker &checker, const gpumf::Backend backend, const bool overlap)
  {
    Problem<dim, p>       problem(backend, overlap);
    const std::string     name = std::to_string(dim) + "D Q" + std::to_string(p) + (overlap ? " overlap" : "");
    gpumf::Vector<double> u, v, result, again, part0, part1;
    for (gpumf::Vector<double> *x : {&u, &v, &result, &again, &part0, &part1})
      problem.mf.initialize_dof_vector(*x);
    test::fill_random(u, 1);
    test::fill_random(v, 2);

    LinearAlgebra::ReadWriteVector<double> reference;
    test::two_field_form(
      problem.mapping, problem.dof, problem.constraints, p + 2, test::to_rw(u), test::to_rw(v), a, reference);

    const std::vector<const gpumf::Vector<double> *> sources{&u, &v};
    problem.mf.cell_loop(TwoFields<dim, p>{}, sources, result);
    const double error = test::relative_difference(test::to_rw(result), reference, MPI_COMM_WORLD);
    checker.check_below(error, 1e-13, name + ": two sources, two FEEvaluation objects vs deal.II's CPU MatrixFree");
    checker.check(u.has_ghost_elements() == false && v.has_ghost_elements() == false,
                  name + ": the sources' ghosts are zeroed after the loop");

    // vectors with the owned entries only (deal.II's Vector(locally_owned, comm)): through temporaries
    {
      const auto plain_layout =
        std::make_shared<Utilities::MPI::Partitioner>(u.locally_owned_elements(), MPI_COMM_WORLD);
      gpumf::Vector<double> u_plain(plain_layout, backend), result_plain(plain_layout, backend);
      u_plain.import(test::to_rw(u), VectorOperation::insert);
      result_plain = 1.;
      const std::vector<const gpumf::Vector<double> *> plain_sources{&u_plain, &v};
      problem.mf.cell_loop(TwoFields<dim, p>{}, plain_sources, result_plain, true);
      checker.check(test::bitwise_equal(test::to_rw(result_plain), test::to_rw(result), MPI_COMM_WORLD),
                    name + ": vectors without ghosts (owned entries only) go through temporaries: bitwise the same");
    }

    // one object used twice, sources given as an array of vectors
    const std::array<const gpumf::Vector<double> *, 2> array{&u, &v};
    problem.mf.cell_loop(OneObjectTwice<dim, p>{}, array, again);
    checker.check_below(test::relative_difference(test::to_rw(again), test::to_rw(result), MPI_COMM_WORLD),
                        1e-15,
                        name + ": one FEEvaluation read twice (values kept per thread) == two objects");

    // two destinations; zero_dst
    part0 = 1.;
    part1 = 1.;
    std::vector<gpumf::Vector<double> *> parts{&part0, &part1};
    problem.mf.cell_loop(TwoDestinations<dim, p>{}, sources, parts);
    gpumf::Vector<double> sum(part0);
    sum += part1;
    sum.add(-2.); // both started at 1

    checker.check_below(test::relative_difference(test::to_rw(sum), test::to_rw(result), MPI_COMM_WORLD),
                        1e-13,
                        name + ": two destinations, added to their values (zero_dst = false)");
    problem.mf.cell_loop(TwoDestinations<dim, p>{}, sources, parts, true);
    sum = part0;
    sum += part1;
    checker.check_below(test::relative_difference(test::to_rw(sum), test::to_rw(result), MPI_COMM_WORLD),
                        1e-13,
                        name + ": two destinations, zeroed first (zero_dst = true)");

    // a barrier in a user functor
    gpumf::Vector<double> mirrored(result), through_second(result);
    problem.mf.cell_loop(MirrorWithBarrier<dim, p>{}, u, mirrored, true);
    problem.mf.cell_loop(MirrorThroughSecond<dim, p>{}, u, through_second, true);
    checker.check(test::bitwise_equal(test::to_rw(mirrored), test::to_rw(through_second), MPI_COMM_WORLD) &&
                    mirrored.l2_norm() > 0,
                  name + ": gpumf::syncthreads() in a functor: mirrored values == through a second FEEvaluation");

    // refused
    expect_throw(checker,
                 name + ": a destination that is also a source is refused",
                 "a destination vector is also a source",
                 [&] { problem.mf.cell_loop(TwoFields<dim, p>{}, sources, u); });
    std::vector<gpumf::Vector<double> *> twice{&part0, &part0};
    expect_throw(checker, name + ": a destination given twice is refused", "the same vector appears twice", [&] {
      problem.mf.cell_loop(TwoDestinations<dim, p>{}, sources, twice);
    });
    if (backend == gpumf::Backend::host)
      {
        const gpumf::Vector<double> before(result); // the refused loops may have written into result
        expect_throw(checker,
                     name + ": two FEEvaluation objects without n_fe_evaluations throw (host)",
                     "n_fe_evaluations = k;",
                     [&] { problem.mf.cell_loop(Undeclared<dim, p>{}, sources, result); });
        expect_throw(checker,
                     name + ": reading a source beyond those passed throws (host)",
                     "index beyond the vectors passed",
                     [&] { problem.mf.cell_loop(ThirdSource<dim, p>{}, sources, result); });
        expect_throw(checker,
                     name + ": a barrier reached by some threads only throws (host)",
                     "diverged at a barrier",
                     [&] { problem.mf.cell_loop(DivergentBarrier<dim, p>{}, u, result); });
        expect_throw(checker,
                     name + ": reading a point another thread wrote since the last barrier throws (host)",
                     "a race between the threads of a cell",
                     [&] { problem.mf.cell_loop(MirrorWithoutBarrier<dim, p>{}, u, result); });
        expect_throw(checker, name + ": gpumf::syncthreads() outside a loop throws", "outside a cell functor", [&] {
          gpumf::syncthreads();
        });
        // the loops work after a thrown exception
        problem.mf.cell_loop(TwoFields<dim, p>{}, sources, again, true);
        checker.check(test::bitwise_equal(test::to_rw(again), test::to_rw(before), MPI_COMM_WORLD),
                      name + ": the loop works after the exceptions, bitwise the same");
      }
  }

  template <int dim>
  void
  check_data_host(test::Checker &checker, const gpumf::Backend backend)
  {
    Problem<dim, 2>                       problem(backend, false);
    const gpumf::MatrixFree<dim, double> &mf     = problem.mf;
    const auto                            points = mf.get_quadrature_points();
    const unsigned int                    n_q    = mf.n_q_points();
    bool                                  same   = true;
    double                                volume = 0;
    unsigned int                          cells  = 0;
    for (unsigned int color = 0; color < mf.n_colors(); ++color)
      {
        const auto host =
          gpumf::copy_mf_data_to_host<dim, double>(mf.get_data(color),
                                                   update_quadrature_points | update_JxW_values | update_gradients);
        cells += host.n_cells;
        same = same && host.local_to_global.size() == host.n_cells * Utilities::pow(3, dim) &&
               host.inv_jacobian.size() == host.n_cells * n_q * dim * dim;
        for (unsigned int cell = 0; cell < host.n_cells; ++cell)
          for (unsigned int q = 0; q < n_q; ++q)
            {
              same = same && gpumf::get_quadrature_point_host(cell, host, q) ==
                               points[gpumf::local_q_point_id_host(cell, host, n_q, q)];
              volume += host.JxW[cell * host.padding_length + q];
            }
      }
    volume = Utilities::MPI::sum(volume, MPI_COMM_WORLD);
    checker.check(same && cells == mf.n_cells(),
                  std::to_string(dim) +
                    "D: copy_mf_data_to_host(): points at local_q_point_id_host() == get_quadrature_points()");
    checker.check_below(std::abs(volume - 1.), 1e-12, std::to_string(dim) + "D: DataHost JxW sums to the volume");
  }

} // namespace

// (a named namespace: nvcc's extended lambdas may not sit in a function of an unnamed one)
namespace cell_loop_test
{
  void
  check_vector(test::Checker &checker, const gpumf::Backend backend)
  {
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
    const unsigned int rank    = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
    IndexSet           owned(100 * n_ranks);
    owned.add_range(100 * rank, 100 * rank + 100);
    gpumf::Vector<double> x(owned, MPI_COMM_WORLD);
    checker.check(x.size() == 100 * n_ranks && x.locally_owned_size() == 100 && x.l2_norm() == 0,
                  "Vector(IndexSet, MPI_Comm) as deal.II's distributed vector");
    gpumf::Vector<double> y(x.get_partitioner(), backend);
    test::fill_random(y, 3);
    gpumf::Vector<double> z(y);
    y.transform([] __host__ __device__(const double e) { return 2. * e * e + 1.; });
    y.reciprocal();
    LinearAlgebra::ReadWriteVector<double> expected = test::to_rw(z);
    for (const auto i : expected.get_stored_elements())
      expected(i) = 1. / (2. * expected(i) * expected(i) + 1.);
    checker.check_below(test::relative_difference(test::to_rw(y), expected, MPI_COMM_WORLD),
                        1e-15,
                        "Vector::transform(lambda) and reciprocal() on the backend");
  }

  /// cell_loop() with operations before and after (deal.II's operation_before_loop and
  /// operation_after_loop) against the same steps one after the other: the operation before
  /// changes a source (x = 2 x + 1: the other ranks must receive the new values) and zeroes the
  /// destination, the one after reads the complete result (z = 3 d + x).
  template <int dim, int p>
  void
  check_operations(test::Checker &checker, const gpumf::Backend backend, const bool overlap)
  {
    Problem<dim, p>       problem(backend, overlap);
    const std::string     name = std::to_string(dim) + "D Q" + std::to_string(p) + (overlap ? " overlap" : "");
    gpumf::Vector<double> x, v, d, z, x_expected, d_expected;
    for (gpumf::Vector<double> *y : {&x, &v, &d, &z, &x_expected, &d_expected})
      problem.mf.initialize_dof_vector(*y);
    test::fill_random(x, 4);
    test::fill_random(v, 5);
    test::fill_random(d, 6); // overwritten by the operation before
    x_expected = x;
    x_expected.transform([] __host__ __device__(const double e) { return 2. * e + 1.; });
    problem.mf.cell_loop(TwoFields<dim, p>{},
                         std::vector<const gpumf::Vector<double> *>{&x_expected, &v},
                         d_expected,
                         true);
    gpumf::Vector<double> z_expected(d_expected);
    z_expected *= 3.;
    z_expected += x_expected;

    double *const xp = x.get_values(), *const dp = d.get_values();
    double *const                                    zp = z.get_values();
    const std::vector<const gpumf::Vector<double> *> sources{&x, &v};
    problem.mf.cell_loop(
      TwoFields<dim, p>{},
      sources,
      d,
      [=] __host__ __device__(const unsigned int begin, const unsigned int end) {
        for (unsigned int i = begin; i < end; ++i)
          {
            xp[i] = 2. * xp[i] + 1.;
            dp[i] = 0.;
          }
      },
      [=] __host__ __device__(const unsigned int begin, const unsigned int end) {
        for (unsigned int i = begin; i < end; ++i)
          zp[i] = 3. * dp[i] + xp[i];
      });
    const double z_difference = test::relative_difference(test::to_rw(z), test::to_rw(z_expected), MPI_COMM_WORLD);
    checker.check(test::bitwise_equal(test::to_rw(x), test::to_rw(x_expected), MPI_COMM_WORLD) &&
                    test::bitwise_equal(test::to_rw(d), test::to_rw(d_expected), MPI_COMM_WORLD) &&
                    z_difference <= 1e-15 && !x.has_ghost_elements(),
                  name + ": operation_before_loop (changes a source, zeroes dst) and operation_after_loop: source " +
                    "and result bitwise those of the separate steps, after-operation " + test::sci(z_difference) +
                    " (<= 1e-15)");

    // nullptr for none: the plain loop (adds)
    gpumf::Vector<double> plain(d), none(d);
    problem.mf.cell_loop(TwoFields<dim, p>{}, sources, plain);
    problem.mf.cell_loop(TwoFields<dim, p>{}, sources, none, nullptr, nullptr);
    // deal.II's std::function: on the host backend; an empty one is none on both
    const std::function<void(unsigned int, unsigned int)> empty;
    gpumf::Vector<double>                                 with_empty(d);
    problem.mf.cell_loop(TwoFields<dim, p>{}, sources, with_empty, empty, empty);
    checker.check(test::bitwise_equal(test::to_rw(none), test::to_rw(plain), MPI_COMM_WORLD) &&
                    test::bitwise_equal(test::to_rw(with_empty), test::to_rw(plain), MPI_COMM_WORLD),
                  name + ": nullptr and an empty std::function are no operation");
    const std::function<void(unsigned int, unsigned int)> host_zero = [&](const unsigned int begin,
                                                                          const unsigned int end) {
      for (unsigned int i = begin; i < end; ++i)
        d.local_element(i) = 0.;
    };
    if (backend == gpumf::Backend::host)
      {
        test::fill_random(d, 7);
        problem.mf.cell_loop(TwoFields<dim, p>{}, sources, d, host_zero, nullptr);
        checker.check(test::bitwise_equal(test::to_rw(d), test::to_rw(d_expected), MPI_COMM_WORLD),
                      name + ": deal.II's std::function as operation_before_loop on the host backend");
      }
    else
      expect_throw(checker,
                   name + ": a std::function on the CUDA backend is refused",
                   "is a std::function, which runs on the host",
                   [&] { problem.mf.cell_loop(TwoFields<dim, p>{}, sources, d, host_zero, nullptr); });
    expect_throw(checker,
                 name + ": dof_handler_index_pre_post beyond the DoFHandlers is refused",
                 "dof_handler_index_pre_post is 1, but the object was set up with 1 DoFHandler",
                 [&] { problem.mf.cell_loop(TwoFields<dim, p>{}, sources, d, nullptr, nullptr, 1); });
  }
} // namespace cell_loop_test

namespace
{
  template <int dim, int p>
  int
  misuse(const gpumf::Backend backend, const std::string &which)
  {
    Problem<dim, p>       problem(backend, false);
    gpumf::Vector<double> u, v, result;
    for (gpumf::Vector<double> *x : {&u, &v, &result})
      problem.mf.initialize_dof_vector(*x);
    const std::vector<const gpumf::Vector<double> *> sources{&u, &v};
    try
      {
        if (which == "misuse-evaluations")
          problem.mf.cell_loop(Undeclared<dim, p>{}, sources, result);
        else if (which == "misuse-sources")
          problem.mf.cell_loop(ThirdSource<dim, p>{}, sources, result);
        else
          AssertThrow(false, ExcMessage("unknown case " + which));
        std::cout << "norm " << result.l2_norm() << std::endl; // synchronizes: a kernel's failure shows here
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
    return misuse<3, 2>(backend, argv[2]);
  test::Checker checker(MPI_COMM_WORLD);
  check_loops<2, 2>(checker, backend, false);
  check_loops<3, 2>(checker, backend, false);
  check_loops<3, 3>(checker, backend, true);
  check_data_host<2>(checker, backend);
  check_data_host<3>(checker, backend);
  cell_loop_test::check_vector(checker, backend);
  cell_loop_test::check_operations<2, 2>(checker, backend, false);
  cell_loop_test::check_operations<3, 2>(checker, backend, true);
  return checker.finish();
}
