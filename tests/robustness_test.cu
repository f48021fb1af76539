// Robustness, on the backend given as argument:
//   - a NaN in the input reaches the output (not masked by constraints, coloring or atomics);
//   - 10^4 operator applications and 100 reinit/free cycles leave device and host memory as
//     they were, and with coloring every application gives bitwise the same result;
//   - out of memory at setup throws an exception with the sizes, and the program goes on
//     with a smaller problem (CUDA: MatrixFree::reinit with the GPU nearly full; host: an
//     allocation larger than any machine).
//
//   robustness_test host|cuda [applications]   (default 10000; cuda skipped without a GPU)
#include <gpumf/operators.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>

#include <cmath>
#include <fstream>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  constexpr int dim = 2, degree = 2;
  using Op = gpumf::LaplaceOperator<dim, degree>;

  /// Hanging nodes and zero Dirichlet values.
  void
  make_constraints(const DoFHandler<dim> &dof, AffineConstraints<double> &constraints)
  {
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    VectorTools::interpolate_boundary_values(dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
  }

  std::unique_ptr<Op>
  make_operator(const DoFHandler<dim>           &dof,
                const AffineConstraints<double> &constraints,
                const gpumf::Backend             backend,
                const bool                       coloring,
                const gpumf::Implementation      implementation)
  {
    Op::AdditionalData data;
    data.backend        = backend;
    data.use_coloring   = coloring;
    data.implementation = implementation;
    auto op             = std::make_unique<Op>();
    op->reinit(MappingQ1<dim>(), dof, constraints, QGauss<1>(degree + 1), data);
    return op;
  }

  /// Resident host memory of this process, in bytes (/proc/self/statm).
  std::size_t
  host_memory()
  {
    std::ifstream statm("/proc/self/statm");
    std::size_t   size = 0, resident = 0;
    statm >> size >> resident;
    return resident * 4096;
  }

  /// Bytes of device memory in use (all processes on the GPU), 0 on the host backend.
  std::size_t
  device_memory(const gpumf::Backend backend)
  {
#if GPUMF_WITH_CUDA
    if (backend == gpumf::Backend::cuda)
      {
        std::size_t free_bytes = 0, total_bytes = 0;
        cudaDeviceSynchronize();
        cudaMemGetInfo(&free_bytes, &total_bytes);
        return total_bytes - free_bytes;
      }
#endif
    (void)backend;
    return 0;
  }

  /// Host and device memory in use, after all ranks got here.
  std::pair<std::size_t, std::size_t>
  memory(const gpumf::Backend backend)
  {
    MPI_Barrier(MPI_COMM_WORLD);
    const std::size_t device = device_memory(backend);
    MPI_Barrier(MPI_COMM_WORLD);
    return {host_memory(), device};
  }

  void
  check_nan(test::Checker                   &checker,
            const gpumf::Backend             backend,
            const DoFHandler<dim>           &dof,
            const AffineConstraints<double> &constraints)
  {
    // an unconstrained DoF that is a master of a hanging node, owned by the first rank that owns
    // one (with many ranks some own none): its NaN is read directly by its cells and through the
    // constraint by the fine cells
    types::global_dof_index nan_dof = numbers::invalid_dof_index;
    for (const auto &line : constraints.get_lines())
      if (!line.entries.empty() && dof.locally_owned_dofs().is_element(line.entries[0].first))
        {
          nan_dof = line.entries[0].first;
          break;
        }
    nan_dof = Utilities::MPI::min(nan_dof, MPI_COMM_WORLD);
    AssertThrow(nan_dof != numbers::invalid_dof_index, ExcInternalError());
    for (const auto implementation : {gpumf::Implementation::tensor_product, gpumf::Implementation::local_matrix})
      for (const bool coloring : {true, false})
        {
          const auto            op = make_operator(dof, constraints, backend, coloring, implementation);
          gpumf::Vector<double> src, dst;
          op->initialize_dof_vector(src);
          op->initialize_dof_vector(dst);
          test::fill_random(src);
          auto rw = test::to_rw(src);
          if (rw.get_stored_elements().is_element(nan_dof))
            rw(nan_dof) = std::numeric_limits<double>::quiet_NaN();
          src.import(rw, VectorOperation::insert);
          op->vmult(dst, src);
          const auto   result = test::to_rw(dst);
          unsigned int n_nan = 0, n_finite = 0;
          for (const auto i : result.get_stored_elements())
            (std::isnan(result(i)) ? n_nan : n_finite) += 1;
          const bool at_dof = !result.get_stored_elements().is_element(nan_dof) || std::isnan(result(nan_dof));
          n_nan             = Utilities::MPI::sum(n_nan, MPI_COMM_WORLD);
          n_finite          = Utilities::MPI::sum(n_finite, MPI_COMM_WORLD);
          checker.check(Utilities::MPI::min(int(at_dof), MPI_COMM_WORLD) == 1 && n_nan > 1 && n_finite > 0,
                        std::string(implementation == gpumf::Implementation::local_matrix ? "element matrices" :
                                                                                            "tensor product") +
                          (coloring ? ", coloring" : ", atomics") + ": a NaN at a hanging node's master reaches " +
                          std::to_string(n_nan) + " output entries, itself included (" + std::to_string(n_finite) +
                          " stay finite)");
        }
  }

  void
  check_memory(test::Checker                   &checker,
               const gpumf::Backend             backend,
               const DoFHandler<dim>           &dof,
               const AffineConstraints<double> &constraints,
               const unsigned int               applications)
  {
    for (const bool coloring : {true, false})
      {
        const auto op = make_operator(dof, constraints, backend, coloring, gpumf::Implementation::tensor_product);
        gpumf::Vector<double> src, dst;
        op->initialize_dof_vector(src);
        op->initialize_dof_vector(dst);
        test::fill_random(src);
        for (unsigned int i = 0; i < 100; ++i)
          op->vmult(dst, src);
        // with coloring every application gives bitwise the first one's result (on every rank,
        // whatever the exchange method): compared ten times along the way
        gpumf::Vector<double> first(dst), difference(dst);
        unsigned int          differing = 0, comparisons = 0;
        const auto            before = memory(backend);
        for (unsigned int i = 0; i < applications; ++i)
          {
            op->vmult(dst, src);
            if (coloring && (i + 1) % std::max(1u, applications / 10) == 0)
              {
                difference = dst;
                difference -= first;
                differing += difference.linfty_norm() != 0. ? 1 : 0;
                ++comparisons;
              }
          }
        const auto after = memory(backend);
        checker.check(after.second == before.second && after.first <= before.first + (1u << 20),
                      std::to_string(applications) + " applications (" + (coloring ? "coloring" : "atomics") +
                        "): device memory in use " + std::to_string(before.second) + " -> " +
                        std::to_string(after.second) + " bytes, host resident " + std::to_string(before.first) +
                        " -> " + std::to_string(after.first) + " bytes (at most 1 MiB more)");
        if (coloring)
          checker.check(differing == 0 && comparisons > 0,
                        std::to_string(applications) + " applications with coloring: bitwise the first result at " +
                          std::to_string(comparisons - differing) + " of " + std::to_string(comparisons) +
                          " comparisons");
      }
    const auto cycle = [&] {
      const auto            op = make_operator(dof, constraints, backend, true, gpumf::Implementation::automatic);
      gpumf::Vector<double> src, dst;
      op->initialize_dof_vector(src);
      op->initialize_dof_vector(dst);
      test::fill_random(src);
      op->compute_diagonal();
      op->vmult(dst, src);
    };
    for (unsigned int i = 0; i < 10; ++i)
      cycle();
    const auto before = memory(backend);
    for (unsigned int i = 0; i < 100; ++i)
      cycle();
    const auto after = memory(backend);
    checker.check(after.second == before.second && after.first <= before.first + (1u << 20),
                  "100 reinit/diagonal/vmult/free cycles: device memory in use " + std::to_string(before.second) +
                    " -> " + std::to_string(after.second) + " bytes, host resident " + std::to_string(before.first) +
                    " -> " + std::to_string(after.first) + " bytes (at most 1 MiB more)");
  }

  /// On rank 0 (the others may share its GPU), with a serial mesh of 262144 cells (setup: 60 MB).
  void
  check_out_of_memory(test::Checker &checker, const gpumf::Backend backend)
  {
    std::string message;
    bool        clean = true, goes_on = true;
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
      {
        Triangulation<dim> tria;
        test::make_mesh(tria, test::Domain::unit_cube, 9);
        DoFHandler<dim> dof(tria);
        dof.distribute_dofs(FE_Q<dim>(degree));
        AffineConstraints<double> constraints;
        constraints.close();
        const std::size_t before = device_memory(backend);
        {
          // CUDA: all but at most 17 MiB of the GPU taken, so that the setup's allocations
          // (the quadrature points alone 38 MB) fail; host: one allocation larger than any machine
          gpumf::internal::Array<char> ballast;
          try
            {
              if (backend == gpumf::Backend::cuda)
                {
                  std::size_t free_bytes = 0, total_bytes = 0;
#if GPUMF_WITH_CUDA
                  cudaMemGetInfo(&free_bytes, &total_bytes);
#endif
                  for (std::size_t take = free_bytes - (1u << 20); ballast.size() == 0 && take > (1u << 26);
                       take -= 1u << 24)
                    try
                      {
                        ballast.reinit(backend, take);
                      }
                    catch (const gpumf::ExcDeviceOutOfMemory &)
                      {}
                  make_operator(dof, constraints, backend, false, gpumf::Implementation::tensor_product);
                }
              else
                ballast.reinit(backend, std::size_t(1) << 52);
            }
          catch (const std::exception &e)
            {
              message = e.what();
            }
        }
        clean = device_memory(backend) == before;
        // and the program goes on
        const auto op = make_operator(dof, constraints, backend, true, gpumf::Implementation::tensor_product);
        gpumf::Vector<double> src, dst;
        op->initialize_dof_vector(src);
        op->initialize_dof_vector(dst);
        test::fill_random(src);
        op->vmult(dst, src);
        goes_on = std::isfinite(dst.l2_norm()) && dst.l2_norm() > 0;
      }
    message                 = Utilities::MPI::broadcast(MPI_COMM_WORLD, message, 0);
    const std::size_t start = message.find("Out of");
    checker.check(start != std::string::npos && message.find("requested") != std::string::npos,
                  "out of memory at setup throws with the sizes: " +
                    (start == std::string::npos ? message : message.substr(start, message.find('\n', start) - start)));
    checker.check(Utilities::MPI::broadcast(MPI_COMM_WORLD, clean, 0), "no device memory kept after the exception");
    checker.check(Utilities::MPI::broadcast(MPI_COMM_WORLD, goes_on, 0),
                  "the program goes on: the same setup runs once memory is free");
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    const unsigned int                        applications = argc > 2 ? std::atoi(argv[2]) : 10000;
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    // a unit square refined three times, then once more in one corner: hanging nodes
    test::make_mesh<dim>(tria, test::Domain::unit_cube, 3, {[](const Point<dim> &p) {
                           return p[0] < 0.5 && p[1] < 0.5;
                         }});
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(FE_Q<dim>(degree));
    AffineConstraints<double> constraints;
    make_constraints(dof, constraints);
    check_nan(checker, backend, dof, constraints);
    check_memory(checker, backend, dof, constraints, applications);
    check_out_of_memory(checker, backend);
  });
}
