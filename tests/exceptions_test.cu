// Bad input gets a deal.II-style exception that says what is supported: elements other
// than FE_Q, degrees and quadratures out of range, constraints with entries, functors of
// another degree, vectors of another partitioner or backend, the CUDA backend without a
// GPU, and (with a GPU) device out-of-memory, after which the program goes on.
#include <gpumf/internal/memory.h>
#include <gpumf/operators.h>

#include <deal.II/fe/fe_dgp.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_refinement.h>

#include <cctype>

#include "helmholtz_operator.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  /// Runs @p f; passes when it throws @p Exception whose message contains @p expected.
  template <typename Exception, typename F>
  void
  expect_throw(test::Checker &checker, const std::string &what, const std::string &expected, F &&f)
  {
    std::string message;
    bool        thrown = false;
    try
      {
        f();
      }
    catch (const Exception &e)
      {
        thrown  = true;
        message = e.what();
      }
    catch (const std::exception &e)
      {
        message = std::string("wrong exception type: ") + e.what();
      }
    // deal.II wraps long messages: compare with single spaces
    std::string flat;
    for (const char c : message)
      if (!std::isspace(static_cast<unsigned char>(c)))
        flat += c;
      else if (!flat.empty() && flat.back() != ' ')
        flat += ' ';
    const bool ok = thrown && flat.find(expected) != std::string::npos;
    checker.check(ok, what + (ok ? "" : "\n" + message));
  }

  /// A functor whose FEEvaluation owns columns of points but that does not say so.
  struct ColumnsWithoutTrait
  {
    static constexpr unsigned int n_dofs_1d = 3, n_local_dofs = 27, n_q_points = 27;

    __host__ __device__ void
    operator()(const unsigned int                        cell,
               const gpumf::MatrixFree<3, double>::Data *data,
               gpumf::SharedData<3, double>             *shared,
               const double                             *src,
               double                                   *dst) const
    {
      gpumf::FEEvaluation<3, 2, 3, 1, double, true> phi(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(true, false);
      phi.integrate(true, false);
      phi.distribute_local_to_global(dst);
    }
  };

  template <int dim>
  void
  setup(const FiniteElement<dim> &fe,
        const Quadrature<1>      &quad,
        const gpumf::Backend      backend,
        const bool                hanging_nodes = false)
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(1);
    if (hanging_nodes)
      {
        tria.begin_active()->set_refine_flag();
        tria.execute_coarsening_and_refinement();
      }
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    IndexSet                  relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    constraints.close();
    gpumf::MatrixFree<dim, double>                          mf;
    typename gpumf::MatrixFree<dim, double>::AdditionalData data;
    data.backend = backend;
    mf.reinit(MappingQ1<dim>(), dof, constraints, quad, data);
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  test::Checker                    checker(MPI_COMM_WORLD);
  const gpumf::Backend             host = gpumf::Backend::host;

  const std::string supported =
    "supports FE_Q<dim>, FE_DGQ<dim> (and its FE_DGQHermite, FE_DGQLegendre, FE_DGQArbitraryNodes) and "
    "FESystem<dim> of one of them (all components of the same degree)";
  expect_throw<gpumf::ExcNotSupported>(checker, "FE_DGP is rejected", supported + ", got FE_DGP", [&] {
    setup<2>(FE_DGP<2>(2), QGauss<1>(3), host);
  });
  expect_throw<gpumf::ExcNotSupported>(checker,
                                       "FESystem of different degrees is rejected",
                                       supported + ", got FESystem",
                                       [&] {
                                         setup<3>(FESystem<3>(FE_Q<3>(2), 1, FE_Q<3>(1), 1), QGauss<1>(3), host);
                                       });
  expect_throw<gpumf::ExcNotSupported>(checker,
                                       "a quadrature of degree points is rejected",
                                       "1D quadratures with fe_degree + 1 = 3 to 32 points",
                                       [&] { setup<2>(FE_Q<2>(2), QGauss<1>(2), host); });
  expect_throw<gpumf::ExcNotSupported>(checker, "a quadrature of 33 points is rejected", "got 33 points", [&] {
    setup<2>(FE_Q<2>(2), QGauss<1>(33), host);
  });
  checker.check((setup<3>(FESystem<3>(FE_Q<3>(2), 3), QGauss<1>(4), host), true),
                "FESystem(FE_Q(2), 3) with QGauss(4) is accepted");
  expect_throw<gpumf::ExcNotSupported>(checker,
                                       "local_q_point_id() without a point is rejected where threads own columns",
                                       "pass the point q",
                                       [&] {
                                         gpumf::MatrixFree<3, double>::Data data{};
                                         gpumf::local_q_point_id<3, double>(0, &data, 12, 12 * 12 * 12);
                                       });
  checker.check((setup<2>(FE_Q<2>(2), QGauss<1>(3), host, true), true),
                "hanging-node constraints are accepted (constraints_test checks the kinds rejected)");
  checker.check((setup<2>(FE_Q<2>(2), QGaussLobatto<1>(3), host), true),
                "Gauss-Lobatto with degree+1 points is accepted");

  // functor and vectors that do not match the MatrixFree object
  {
    parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
    test::make_mesh(tria, test::Domain::unit_cube, 2);
    DoFHandler<2> dof(tria);
    dof.distribute_dofs(FE_Q<2>(2));
    AffineConstraints<double> constraints;
    constraints.close();
    helmholtz::HelmholtzOperator<2, 2> op;
    op.reinit(MappingQ1<2>(), dof, constraints, false, host);
    gpumf::Vector<double> src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    gpumf::Vector<double> coef(std::make_shared<Utilities::MPI::Partitioner>(10000), host);
    expect_throw<gpumf::ExcNotSupported>(
      checker, "a functor of another degree is rejected", "declares n_dofs_1d = 4", [&] {
        op.matrix_free().cell_loop(helmholtz::LocalHelmholtz<2, 3, double>{coef.get_values()}, src, dst);
      });
    gpumf::Vector<double> other(std::make_shared<Utilities::MPI::Partitioner>(src.size() + 1), host);
    expect_throw<gpumf::ExcVectorMismatch>(checker,
                                           "a vector of another partitioner is rejected",
                                           "a vector with another partitioner",
                                           [&] { op.vmult(other, src); });
  }

  // 3D: thread layout mismatch, affine geometry on a curved mesh
  {
    parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD);
    test::make_mesh(tria, test::Domain::shell, 0);
    DoFHandler<3> dof(tria);
    dof.distribute_dofs(FE_Q<3>(2));
    AffineConstraints<double> constraints;
    constraints.close();
    const MappingQ<3>                            mapping(2);
    gpumf::MatrixFree<3, double>::AdditionalData data;
    data.backend = host;
    gpumf::MatrixFree<3, double> mf;
    mf.reinit(mapping, dof, constraints, QGauss<1>(3), data);
    gpumf::Vector<double> src, dst;
    mf.initialize_dof_vector(src);
    mf.initialize_dof_vector(dst);
    expect_throw<gpumf::ExcNotSupported>(checker,
                                         "an FEEvaluation with thread_per_column in a functor without it is rejected",
                                         "static constexpr bool thread_per_column = true;",
                                         [&] { mf.cell_loop(ColumnsWithoutTrait{}, src, dst); });
    using Laplace = gpumf::LaplaceOperator<3, 2, 3>;
    expect_throw<gpumf::ExcNotSupported>(checker,
                                         "a 3D ready cell functor without its 1D matrices is rejected",
                                         "CellOperator::make(matrix_free, a, kappa)",
                                         [&] {
                                           mf.cell_loop(Laplace::CellOperator{nullptr, nullptr}, src, dst);
                                         });
    src = 1.;
    mf.cell_loop(Laplace::CellOperator::make(mf, nullptr, nullptr), src, dst);
    checker.check(dst.l2_norm() < 1e-10, "the same functor made by make() runs: the Laplacian of a constant is zero");
    if (gpumf::cuda_available())
      {
        // the GPU's lines path reads the merged geometry on curved cells: only the
        // operator's cell_operator() has it
        gpumf::MatrixFree<3, double>::AdditionalData gpu_data;
        gpu_data.backend = gpumf::Backend::cuda;
        gpumf::MatrixFree<3, double> gpu_mf;
        gpu_mf.reinit(mapping, dof, constraints, QGauss<1>(3), gpu_data);
        if (gpu_mf.n_cells() > 0) // (a rank without cells has nothing to read)
          expect_throw<gpumf::ExcNotSupported>(checker,
                                               "a 3D ready cell functor without the merged geometry on a curved mesh "
                                               "is rejected on the GPU",
                                               "use the operator's cell_operator()",
                                               [&] { Laplace::CellOperator::make(gpu_mf, nullptr, nullptr); });
      }
    data.geometry = gpumf::MatrixFree<3, double>::GeometryStorage::affine;
    expect_throw<gpumf::ExcNotSupported>(checker,
                                         "affine geometry on a curved mesh is rejected",
                                         "GeometryStorage::affine needs parallelepiped cells",
                                         [&] { mf.reinit(mapping, dof, constraints, QGauss<1>(3), data); });
  }

  if (!gpumf::cuda_available())
    expect_throw<gpumf::ExcNoGPU>(checker,
                                  "the CUDA backend without a GPU is rejected",
                                  "CUDA backend was requested",
                                  [&] { setup<2>(FE_Q<2>(1), QGauss<1>(2), gpumf::Backend::cuda); });
  else
    {
      expect_throw<gpumf::ExcDeviceOutOfMemory>(checker,
                                                "an allocation larger than the GPU is rejected",
                                                "Out of GPU memory: requested",
                                                [&] {
                                                  gpumf::internal::Array<double> huge;
                                                  huge.reinit(gpumf::Backend::cuda, std::size_t(1) << 46);
                                                });
      gpumf::Vector<double> after(std::make_shared<Utilities::MPI::Partitioner>(1000), gpumf::Backend::cuda);
      test::fill_random(after);
      checker.check(after.l2_norm() > 0, "the GPU works after an out-of-memory exception");
      expect_throw<gpumf::ExcNotSupported>(checker,
                                           "a cell larger than the GPU's shared memory is rejected",
                                           "bytes of shared memory; the GPU offers",
                                           [&] {
                                             setup<3>(FESystem<3>(FE_Q<3>(15), 3), QGauss<1>(17), gpumf::Backend::cuda);
                                           });
      gpumf::Vector<double> host_vector(after.get_partitioner(), host);
      expect_throw<gpumf::ExcVectorMismatch>(checker, "vectors on different backends are rejected", "backend", [&] {
        host_vector.add(1., after);
      });
    }
  return checker.finish();
}
