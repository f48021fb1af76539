// gpumf::Vector against deal.II's LinearAlgebra::distributed::Vector: every vector
// space operation, reductions over MPI, ghost exchange and compress(add), deal.II's
// SolverCG and SolverGMRES with DiagonalMatrix, on random data. The split-phase
// exchanges (_start/_finish) against the blocking ones, with two under way at once and
// 100 times over the same buffers, their misuse, and each GPUMF_EXCHANGE method. Data exchange
// with deal.II's distributed vectors of each memory space (Host; Default on deal.II 9.5+).
// select_device()'s placement of ranks on GPUs.
//
//   vector_test host   host backend vs deal.II (relative 1e-14)
//   vector_test cuda   CUDA backend vs deal.II, copies between backends; skipped without a GPU
#include <gpumf/internal/memory.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/solver_gmres.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <chrono>
#include <thread>
#include <set>

#include "common/test_utils.h"
#include "core/device.h"

using namespace dealii;
using HostVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  /// Owned: a contiguous block per rank, sizes differing; ghosts: every 5th index of the others.
  std::shared_ptr<Utilities::MPI::Partitioner>
  make_partitioner(const MPI_Comm comm)
  {
    const unsigned int                   rank = Utilities::MPI::this_mpi_process(comm);
    const unsigned int                   n    = Utilities::MPI::n_mpi_processes(comm);
    std::vector<types::global_dof_index> start(n + 1, 0);
    for (unsigned int r = 0; r < n; ++r)
      start[r + 1] = start[r] + 1000 + 37 * r;
    IndexSet owned(start[n]), ghost(start[n]);
    owned.add_range(start[rank], start[rank + 1]);
    for (types::global_dof_index i = 0; i < start[n]; i += 5)
      if (!owned.is_element(i))
        ghost.add_index(i);
    return std::make_shared<Utilities::MPI::Partitioner>(owned, ghost, comm);
  }

  /// The ghost entries of a gpumf vector, copied to the host.
  std::vector<double>
  ghosts_of(const gpumf::Vector<double> &v)
  {
    std::vector<double> g(v.get_partitioner()->n_ghost_indices());
    gpumf::internal::copy(
      gpumf::Backend::host, g.data(), v.backend(), v.get_values() + v.locally_owned_size(), g.size() * sizeof(double));
    return g;
  }

  /// max |ghost of v - ghost of V| over all ranks.
  double
  ghost_difference(const gpumf::Vector<double> &v, const HostVector &V, const MPI_Comm comm)
  {
    const std::vector<double> g    = ghosts_of(v);
    double                    diff = 0;
    for (unsigned int i = 0; i < g.size(); ++i)
      diff = test::max_or_inf(diff, std::abs(g[i] - V.local_element(V.locally_owned_size() + i)));
    return Utilities::MPI::max(diff, comm);
  }

  /// Random ghost values: random_value(global index, seed).
  std::vector<double>
  random_ghosts(const Utilities::MPI::Partitioner &partitioner, const std::uint64_t seed)
  {
    std::vector<double> g(partitioner.n_ghost_indices());
    for (unsigned int i = 0; i < g.size(); ++i)
      g[i] = test::random_value(partitioner.local_to_global(partitioner.locally_owned_size() + i), seed);
    return g;
  }

  void
  set_ghosts(gpumf::Vector<double> &v, const std::vector<double> &g)
  {
    gpumf::internal::copy(
      v.backend(), v.get_values() + v.locally_owned_size(), gpumf::Backend::host, g.data(), g.size() * sizeof(double));
  }

  /// True on every rank.
  bool
  all_ranks(const bool ok, const MPI_Comm comm)
  {
    return Utilities::MPI::min(ok ? 1u : 0u, comm) == 1;
  }

  double
  relative(const double a, const double b)
  {
    return std::abs(a - b) / std::max(std::abs(b), 1e-300);
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const double   tol  = 1e-14;

    // select_device()'s placement: consecutive ranks share a GPU, evenly
    {
      const auto placed = [](const unsigned int ranks, const unsigned int gpus) {
        std::string devices;
        for (unsigned int r = 0; r < ranks; ++r)
          devices += std::to_string(gpumf::internal::device_of_node_rank(r, ranks, gpus));
        return devices;
      };
      checker.check(placed(16, 4) == "0000111122223333" && placed(6, 4) == "001123" && placed(2, 4) == "01" &&
                      placed(3, 1) == "000" && placed(4, 4) == "0123",
                    "select_device() places ranks 0-15 on 4 GPUs as " + placed(16, 4) + ", 6 ranks as " + placed(6, 4) +
                      ", 2 ranks as " + placed(2, 4));
      const std::string summary = gpumf::internal::placement_summary(6, 4, true);
      checker.check(summary == "6 MPI ranks on this node's 4 GPUs: GPU 0 ranks 0-1, GPU 1 ranks 2-3, GPU 2 rank 4, "
                               "GPU 3 rank 5; CUDA MPS runs",
                    "select_device()'s line: " + summary);
    }

    const auto            partitioner = make_partitioner(comm);
    gpumf::Vector<double> a(partitioner, backend), b(partitioner, backend), c(partitioner, backend);
    HostVector            A(partitioner), B(partitioner), C(partitioner);
    test::fill_random(a, 1), test::fill_random(A, 1);
    test::fill_random(b, 2), test::fill_random(B, 2);
    test::fill_random(c, 3), test::fill_random(C, 3);
    const auto same = [&](const gpumf::Vector<double> &x, const HostVector &X, const std::string &what) {
      checker.check_below(test::relative_difference(test::to_rw(x), test::to_rw(X), comm), tol, what);
    };

    a.add(2., b), A.add(2., B);
    same(a, A, "add(a, V)");
    a.add(0.5, b, -1.5, c), A.add(0.5, B, -1.5, C);
    same(a, A, "add(a, V, b, W)");
    a.sadd(0.7, b), A.sadd(0.7, B);
    same(a, A, "sadd(s, V)");
    a.sadd(0.3, 1.2, c), A.sadd(0.3, 1.2, C);
    same(a, A, "sadd(s, a, V)");
    a.scale(c), A.scale(C);
    same(a, A, "scale(V)");
    a *= 1.3, A *= 1.3;
    a /= 2., A /= 2.;
    same(a, A, "operator*=, operator/=");
    a += b, A += B;
    a -= c, A -= C;
    same(a, A, "operator+=, operator-=");
    a.add(0.25), A.add(0.25);
    same(a, A, "add(scalar)");
    checker.check_below(relative(a * b, A * B), tol, "operator* (dot)");
    checker.check_below(relative(a.l1_norm(), A.l1_norm()), tol, "l1_norm");
    checker.check_below(relative(a.l2_norm(), A.l2_norm()), tol, "l2_norm");
    checker.check_below(relative(a.norm_sqr(), A.norm_sqr()), tol, "norm_sqr");
    checker.check_below(relative(a.linfty_norm(), A.linfty_norm()), 0, "linfty_norm");
    checker.check_below(relative(a.mean_value(), A.mean_value()), 1e-12, "mean_value");
    checker.check_below(relative(a.add_and_dot(-0.4, b, c), A.add_and_dot(-0.4, B, C)), tol, "add_and_dot");
    same(a, A, "add_and_dot's update");
    a.equ(2.5, b), A.equ(2.5, B);
    same(a, A, "equ(a, V)");
    checker.check(!a.all_zero() && (a = 0., a.all_zero()), "all_zero");

    // ghost exchange
    test::fill_random(a, 4), test::fill_random(A, 4);
    a.update_ghost_values(), A.update_ghost_values();
    checker.check_below(ghost_difference(a, A, comm), 0, "update_ghost_values");
    checker.check(a.has_ghost_elements(), "has_ghost_elements after update_ghost_values");

    // compress(add): random ghost contributions sent to their owners
    {
      const std::vector<double> g = random_ghosts(*partitioner, 5);
      for (unsigned int i = 0; i < g.size(); ++i)
        A.local_element(A.locally_owned_size() + i) = g[i];
      set_ghosts(a, g);
      a.compress(VectorOperation::add), A.compress(VectorOperation::add);
      same(a, A, "compress(add)");
      const std::vector<double> after = ghosts_of(a);
      checker.check(std::all_of(after.begin(), after.end(), [](double x) { return x == 0; }) && !a.has_ghost_elements(),
                    "compress zeroes the ghost entries");
    }

    // split-phase exchanges equal the blocking ones, bitwise; y's exchange is under way
    // while x does its blocking one (the same MPI tags: matched in posting order)
    {
      const unsigned int    n_ranks = Utilities::MPI::n_mpi_processes(comm);
      gpumf::Vector<double> x(partitioner, backend), y(partitioner, backend);
      HostVector            X(partitioner);
      test::fill_random(x, 8), test::fill_random(y, 8), test::fill_random(X, 8);
      const std::size_t fresh_memory = y.memory_consumption();
      X.update_ghost_values();
      y.update_ghost_values_start();
      x.update_ghost_values();
      y.update_ghost_values_finish();
      checker.check(all_ranks(ghosts_of(x) == ghosts_of(y), comm) && y.has_ghost_elements(),
                    "update_ghost_values_start/finish == update_ghost_values");
      checker.check_below(ghost_difference(y, X, comm), 0, "update_ghost_values_start/finish vs deal.II");

      const std::vector<double> g = random_ghosts(*partitioner, 9);
      set_ghosts(x, g), set_ghosts(y, g);
      y.compress_start(VectorOperation::add);
      x.compress(VectorOperation::add);
      y.compress_finish(VectorOperation::add);
      const std::vector<double> after = ghosts_of(y);
      checker.check(test::bitwise_equal(test::to_rw(y), test::to_rw(x), comm) &&
                      all_ranks(std::all_of(after.begin(), after.end(), [](double v) { return v == 0; }), comm) &&
                      !y.has_ghost_elements(),
                    "compress_start/finish(add) == compress(add), ghosts zeroed");

      set_ghosts(x, g), set_ghosts(y, g);
      y.compress_start(VectorOperation::insert);
      y.compress_finish(VectorOperation::insert);
      x.compress(VectorOperation::insert);
      checker.check(test::bitwise_equal(test::to_rw(y), test::to_rw(x), comm) &&
                      all_ranks(ghosts_of(y) == std::vector<double>(g.size(), 0.), comm),
                    "compress_start/finish(insert) == compress(insert): ghosts dropped");

      // the buffers are allocated by the first exchange (not at all on one rank) and reused
      const std::size_t memory = y.memory_consumption();
      checker.check(all_ranks(n_ranks == 1 ? memory == fresh_memory : memory > fresh_memory, comm),
                    "memory_consumption counts the message buffers (" + std::to_string(fresh_memory) + " -> " +
                      std::to_string(memory) + " bytes)");
      for (unsigned int i = 0; i < 100; ++i)
        {
          y.update_ghost_values_start();
          y.update_ghost_values_finish();
          y.compress_start(VectorOperation::add);
          y.compress_finish(VectorOperation::add);
          y *= 0.5;
          x.update_ghost_values();
          x.compress(VectorOperation::add);
          x *= 0.5;
        }
      checker.check(test::bitwise_equal(test::to_rw(y), test::to_rw(x), comm),
                    "100 split-phase ghost updates and compress(add) == blocking ones");
      checker.check(all_ranks(y.memory_consumption() == memory, comm),
                    "100 split-phase exchanges: memory_consumption unchanged");
    }

    // misuse of the split-phase exchange throws and says what was wrong; the vector
    // stays usable
    {
      gpumf::Vector<double> x(partitioner, backend), y(partitioner, backend);
      test::fill_random(x, 10), test::fill_random(y, 10);
      const auto says = [&](const std::string &message, const std::string &what, const std::string &name) {
        checker.check(all_ranks(message.find(what) != std::string::npos, comm), name + " throws");
      };
      says(test::exception_of([&] { x.update_ghost_values_finish(); }),
           "without update_ghost_values_start()",
           "update_ghost_values_finish() without start");
      says(test::exception_of([&] { x.compress_finish(VectorOperation::add); }),
           "without compress_start()",
           "compress_finish() without start");
      x.update_ghost_values_start();
      says(test::exception_of([&] { x.update_ghost_values_start(); }),
           "call update_ghost_values_finish() first",
           "update_ghost_values_start() twice");
      says(test::exception_of([&] { x.compress_start(VectorOperation::add); }),
           "call update_ghost_values_finish() first",
           "compress_start() during a ghost update");
      says(test::exception_of([&] { x.compress_finish(VectorOperation::add); }),
           "without compress_start()",
           "compress_finish() after update_ghost_values_start()");
      x.update_ghost_values_finish();
      x.compress_start(VectorOperation::add);
      says(test::exception_of([&] { x.compress_finish(VectorOperation::insert); }),
           "another VectorOperation",
           "compress_finish(insert) after compress_start(add)");
      says(test::exception_of([&] { x.update_ghost_values_finish(); }),
           "without update_ghost_values_start()",
           "update_ghost_values_finish() during a compress");
      x.compress_finish(VectorOperation::add);
      y.update_ghost_values();
      y.compress(VectorOperation::add);
      checker.check(test::bitwise_equal(test::to_rw(x), test::to_rw(y), comm),
                    "after the exceptions: the exchanges give the blocking ones' results");
    }

    // GPUMF_EXCHANGE: every method gives bitwise the same ghosts and compressed entries;
    // the automatic choice and the fall-backs follow the rules of exchange_method()
    {
      using M                      = gpumf::ExchangeMethod;
      const unsigned int n_ranks   = Utilities::MPI::n_mpi_processes(comm);
      const M            automatic = test::with_exchange("", [&] { return gpumf::exchange_method(comm, backend); });
      const M            ipc       = test::with_exchange("ipc", [&] { return gpumf::exchange_method(comm, backend); });
      if (backend == gpumf::Backend::host)
        {
          checker.check(automatic == M::mpi, "host backend: the automatic exchange is mpi");
          checker.check(ipc == M::ipc, "host backend, one host: GPUMF_EXCHANGE=ipc is obeyed (shared memory)");
        }
      else
        checker.check(automatic == M::nccl || automatic == M::ipc ||
                        automatic == (gpumf::cuda_aware_mpi() ? M::mpi : M::staged_mpi),
                      "CUDA backend: the automatic exchange is nccl, or ipc for ranks sharing a GPU, else mpi "
                      "if MPI is CUDA-aware, else staged_mpi (here " +
                        gpumf::to_string(automatic) + ", GPUMF_EXCHANGE=ipc gives " + gpumf::to_string(ipc) + ")");
      checker.check(test::with_exchange("nccl", [&] { return gpumf::exchange_method(comm, backend); }) ==
                      (backend == gpumf::Backend::host ? M::mpi : automatic),
                    "GPUMF_EXCHANGE=nccl: nccl where it can serve, else the automatic choice (with a notice)");
      for (const M forced : {M::mpi, M::staged_mpi})
        checker.check(test::with_exchange(gpumf::to_string(forced),
                                          [&] { return gpumf::exchange_method(comm, backend); }) == forced,
                      "GPUMF_EXCHANGE=" + gpumf::to_string(forced) + " is obeyed");
      const std::string message =
        test::with_exchange("yes", [&] { return test::exception_of([&] { gpumf::exchange_method(comm, backend); }); });
      checker.check(message.find("must be auto, ipc, nccl, mpi or staged_mpi") != std::string::npos,
                    "GPUMF_EXCHANGE=yes throws and says what is supported");

      // ghosts after a split-phase update, owned entries after a split-phase compress(add)
      const auto run = [&](std::size_t &memory) {
        gpumf::Vector<double> v(partitioner, backend);
        test::fill_random(v, 11);
        v.update_ghost_values_start();
        v.update_ghost_values_finish();
        std::vector<double> result = ghosts_of(v);
        set_ghosts(v, random_ghosts(*partitioner, 12));
        v.compress_start(VectorOperation::add);
        v.compress_finish(VectorOperation::add);
        const LinearAlgebra::ReadWriteVector<double> owned = test::to_rw(v);
        result.insert(result.end(), owned.begin(), owned.end());
        memory = v.memory_consumption();
        return result;
      };
      std::size_t               memory_automatic = 0, memory_staged = 0;
      const std::vector<double> reference = test::with_exchange("", [&] { return run(memory_automatic); });
      test::with_exchange("staged_mpi", [&] { return run(memory_staged); });
      for (const M method : test::exchange_methods(backend, comm))
        {
          std::size_t memory = 0;
          checker.check(
            all_ranks(test::with_exchange(gpumf::to_string(method), [&] { return run(memory); }) == reference, comm),
            "GPUMF_EXCHANGE=" + gpumf::to_string(method) + ": bitwise the results of " + gpumf::to_string(automatic));
          if (n_ranks > 1 && method != M::staged_mpi)
            checker.check(all_ranks(memory < memory_staged, comm),
                          "GPUMF_EXCHANGE=" + gpumf::to_string(method) +
                            ": no host buffers (only staged_mpi has them)");
        }
    }

    // the ipc method's lifetime protocol: each rank maps its neighbours' vectors at their
    // first exchange and closes them when its own part dies; an allocation freed while a
    // neighbour still has it open is kept (deferred) until the neighbour has closed it;
    // vectors freed in different orders on different ranks, nothing waits for another rank
    if (Utilities::MPI::n_mpi_processes(comm) > 1 &&
        test::with_exchange("ipc", [&] { return gpumf::exchange_method(comm, backend); }) == gpumf::ExchangeMethod::ipc)
      test::with_exchange("ipc", [&] {
        using gpumf::internal::shareable_statistics;
        const unsigned int     rank = Utilities::MPI::this_mpi_process(comm);
        std::set<unsigned int> neighbours;
        for (const auto &target : partitioner->import_targets())
          neighbours.insert(target.first);
        for (const auto &target : partitioner->ghost_targets())
          neighbours.insert(target.first);
        MPI_Barrier(comm); // the vectors of the blocks above are closed everywhere
        const auto before = shareable_statistics();
        const auto counts = [&](const gpumf::internal::ShareableStatistics &now,
                                const unsigned int                          exported,
                                const unsigned int                          deferred,
                                const unsigned int                          imported) {
          return now.exported == before.exported + exported && now.deferred == before.deferred + deferred &&
                 now.imported == before.imported + imported;
        };
        std::vector<std::unique_ptr<gpumf::Vector<double>>> vectors;
        std::vector<std::vector<double>>                    ghosts;
        for (unsigned int i = 0; i < 4; ++i)
          {
            vectors.push_back(std::make_unique<gpumf::Vector<double>>(partitioner, backend));
            test::fill_random(*vectors.back(), 30 + i);
            vectors.back()->update_ghost_values();
            ghosts.push_back(ghosts_of(*vectors.back()));
          }
        checker.check(all_ranks(counts(shareable_statistics(), 4, 0, 4 * neighbours.size()), comm),
                      "ipc: four vectors exported once each, each neighbour's four open here");
        // reinit (same layout, same memory): the links are made anew, nothing leaks
        vectors[1]->reinit(partitioner, backend);
        test::fill_random(*vectors[1], 31);
        vectors[1]->update_ghost_values();
        checker.check(all_ranks(ghosts_of(*vectors[1]) == ghosts[1] &&
                                  counts(shareable_statistics(), 4, 0, 4 * neighbours.size()),
                                comm),
                      "ipc: reinit() links anew, bitwise the same ghosts, nothing left open twice");
        // rank 0 frees its first vector while the others still have it open
        if (rank == 0)
          vectors[0].reset();
        MPI_Barrier(comm);
        checker.check(all_ranks(counts(shareable_statistics(),
                                       4,
                                       rank == 0 ? 1 : 0,
                                       4 * neighbours.size() - (rank == 0 ? neighbours.size() : 0)),
                                comm),
                      "ipc: a vector freed while its neighbours have it open stays allocated (deferred)");
        if (rank != 0)
          vectors[0].reset();
        MPI_Barrier(comm);
        checker.check(all_ranks(counts(shareable_statistics(), 3, 0, 3 * neighbours.size()), comm),
                      "ipc: freed once the last neighbour closed it");
        // the others in different orders on different ranks (ascending on even ranks)
        for (unsigned int i = 1; i < 4; ++i)
          vectors[rank % 2 == 0 ? i : 4 - i].reset();
        MPI_Barrier(comm);
        checker.check(all_ranks(counts(shareable_statistics(), 0, 0, 0), comm),
                      "ipc: vectors freed in different orders on different ranks: all freed, none open");
        return 0;
      });

    // the two orderings of the ipc links (GPUMF_IPC_ORDER): messages between the hosts, or
    // counters that the neighbours wait for (on the GPU: the host never waits). Both give
    // bitwise the results of the staged_mpi method, also over many exchanges queued without any
    // host synchronization, each right after the entries it reads were written; a vector
    // destroyed during an exchange releases its neighbours
    if (Utilities::MPI::n_mpi_processes(comm) > 1 &&
        test::with_exchange("ipc", [&] { return gpumf::exchange_method(comm, backend); }) == gpumf::ExchangeMethod::ipc)
      {
        using gpumf::internal::shareable_statistics;
        const bool neighbours = !partitioner->import_targets().empty() || !partitioner->ghost_targets().empty();
        MPI_Barrier(comm); // the vectors of the blocks above are closed everywhere
        const auto before_block = shareable_statistics();
        // x <- (x + its ghost copies) / 2, 40 times, then the ghosts: no host synchronization
        // between the exchanges; the split phases with the odd ranks' hosts late at every
        // second step (a read or write that did not wait would see the other ranks' data
        // at another step)
        const unsigned int rank  = Utilities::MPI::this_mpi_process(comm);
        const auto         chain = [&]() {
          gpumf::Vector<double> v(partitioner, backend);
          test::fill_random(v, 41);
          for (unsigned int i = 0; i < 40; ++i)
            {
              v.update_ghost_values_start();
              if (rank % 2 == 1 && i % 2 == 0)
                std::this_thread::sleep_for(std::chrono::microseconds(300));
              v.update_ghost_values_finish();
              v.compress_start(VectorOperation::add);
              if (rank % 2 == 1 && i % 2 == 1)
                std::this_thread::sleep_for(std::chrono::microseconds(300));
              v.compress_finish(VectorOperation::add);
              v *= 0.5;
            }
          v.update_ghost_values();
          std::vector<double>                          result = ghosts_of(v);
          const LinearAlgebra::ReadWriteVector<double> owned  = test::to_rw(v);
          result.insert(result.end(), owned.begin(), owned.end());
          return result;
        };
        const std::vector<double> reference = test::with_exchange("staged_mpi", chain);
        for (const std::string order : {"", "counters", "messages"})
          {
            const unsigned long long  before = shareable_statistics().signals;
            const std::vector<double> result =
              test::with_variable("GPUMF_IPC_ORDER", order, [&] { return test::with_exchange("ipc", chain); });
            const unsigned long long signals = shareable_statistics().signals - before;
            const std::string        name    = "GPUMF_IPC_ORDER=" + (order.empty() ? std::string("auto") : order);
            checker.check(all_ranks(result == reference, comm),
                          "ipc, " + name +
                            ": 81 exchanges queued back to back give bitwise the staged_mpi method's results");
            // counters by default, whether the ranks share a GPU or use several
            const bool counters = order != "messages";
            checker.check(all_ranks(signals == (counters && neighbours ? 2 * 81 : 0), comm),
                          "ipc, " + name + ": ordered by " + (counters ? "counters (two per exchange)" : "messages") +
                            " (" + std::to_string(signals) + " counters signalled)");
          }
        const std::string message = test::with_variable("GPUMF_IPC_ORDER", "yes", [&] {
          return test::exception_of([&] { test::with_exchange("ipc", chain); });
        });
        checker.check(message.find("GPUMF_IPC_ORDER must be auto, counters or messages") != std::string::npos,
                      "GPUMF_IPC_ORDER=yes throws and says what is supported");

        // rank 0 destroys its vector between update_ghost_values_start() and _finish(), or
        // between compress_start() and _finish(): the others' exchange completes, with rank
        // 0's entries
        for (const std::string order : {"counters", "messages"})
          {
            const auto compressed = [&](const bool rank_0_leaves) {
              auto v = std::make_unique<gpumf::Vector<double>>(partitioner, backend);
              test::fill_random(*v, 43);
              v->update_ghost_values(); // links the vector
              set_ghosts(*v, random_ghosts(*partitioner, 44));
              v->compress_start(VectorOperation::add);
              if (rank_0_leaves && rank == 0)
                {
                  v.reset();
                  return LinearAlgebra::ReadWriteVector<double>();
                }
              v->compress_finish(VectorOperation::add);
              return test::to_rw(*v);
            };
            const LinearAlgebra::ReadWriteVector<double> reference_compress =
              test::with_exchange("staged_mpi", [&] { return compressed(false); });
            const LinearAlgebra::ReadWriteVector<double> left = test::with_variable("GPUMF_IPC_ORDER", order, [&] {
              return test::with_exchange("ipc", [&] { return compressed(true); });
            });
            bool                                         same = true;
            if (rank != 0)
              for (unsigned int i = 0; i < left.locally_owned_size(); ++i)
                same = same && left.local_element(i) == reference_compress.local_element(i);
            checker.check(all_ranks(same, comm),
                          "ipc, GPUMF_IPC_ORDER=" + order +
                            ": rank 0 destroys its vector during a compress, the others' completes with its ghosts");
            const std::vector<double> expected = test::with_exchange("staged_mpi", [&] {
              gpumf::Vector<double> v(partitioner, backend);
              test::fill_random(v, 42);
              v.update_ghost_values();
              return ghosts_of(v);
            });
            const std::vector<double> ghosts   = test::with_variable("GPUMF_IPC_ORDER", order, [&] {
              return test::with_exchange("ipc", [&] {
                auto v = std::make_unique<gpumf::Vector<double>>(partitioner, backend);
                test::fill_random(*v, 42);
                v->update_ghost_values(); // links the vector
                v->update_ghost_values_start();
                if (Utilities::MPI::this_mpi_process(comm) == 0)
                  {
                    v.reset();
                    return expected;
                  }
                v->update_ghost_values_finish();
                return ghosts_of(*v);
              });
            });
            checker.check(all_ranks(ghosts == expected, comm),
                          "ipc, GPUMF_IPC_ORDER=" + order +
                            ": rank 0 destroys its vector during an exchange, the others' completes");
          }
        MPI_Barrier(comm);
        const auto after_block = shareable_statistics();
        checker.check(all_ranks(after_block.exported == before_block.exported &&
                                  after_block.deferred == before_block.deferred &&
                                  after_block.imported == before_block.imported,
                                comm),
                      "ipc orderings: every vector freed and closed afterwards, also after a refused "
                      "GPUMF_IPC_ORDER and the vectors destroyed during exchanges");
      }

    // copies: same backend, and to/from the host backend
    {
      gpumf::Vector<double> copy(a);
      same(copy, A, "copy constructor");
      gpumf::Vector<double> host(partitioner, gpumf::Backend::host);
      host = a;
      same(host, A, "assignment " + gpumf::to_string(backend) + " -> host");
      test::fill_random(host, 6), test::fill_random(A, 6);
      a = host;
      same(a, A, "assignment host -> " + gpumf::to_string(backend));
    }

    // deal.II solvers on gpumf vectors: D x = r with a diagonal D, CG and GMRES
    {
      gpumf::Vector<double>                  d(partitioner, backend), r(partitioner, backend), x(partitioner, backend);
      HostVector                             D(partitioner), R(partitioner), X(partitioner);
      LinearAlgebra::ReadWriteVector<double> rw(partitioner->locally_owned_range());
      for (const auto i : rw.get_stored_elements())
        rw(i) = 1. + (i % 17);
      d.import(rw, VectorOperation::insert), gpumf::internal::import_elements(D, rw, VectorOperation::insert);
      test::fill_random(r, 7), test::fill_random(R, 7);
      DiagonalMatrix<gpumf::Vector<double>> matrix(d);
      DiagonalMatrix<HostVector>            MATRIX(D);

      SolverControl                   control(200, 1e-12 * r.l2_norm()), CONTROL(200, 1e-12 * R.l2_norm());
      SolverCG<gpumf::Vector<double>> cg(control);
      SolverCG<HostVector>            CG(CONTROL);
      cg.solve(matrix, x, r, PreconditionIdentity());
      CG.solve(MATRIX, X, R, PreconditionIdentity());
      checker.check(control.last_step() == CONTROL.last_step(),
                    "SolverCG iterations " + std::to_string(control.last_step()) + " == deal.II's " +
                      std::to_string(CONTROL.last_step()));
      checker.check_below(test::relative_difference(test::to_rw(x), test::to_rw(X), comm), 1e-10, "SolverCG solution");

      x = 0., X = 0.;
      SolverControl                      gcontrol(200, 1e-12 * r.l2_norm()), GCONTROL(200, 1e-12 * R.l2_norm());
      SolverGMRES<gpumf::Vector<double>> gmres(gcontrol);
      SolverGMRES<HostVector>            GMRES(GCONTROL);
      gmres.solve(matrix, x, r, PreconditionIdentity());
      GMRES.solve(MATRIX, X, R, PreconditionIdentity());
      checker.check(gcontrol.last_step() == GCONTROL.last_step(),
                    "SolverGMRES iterations " + std::to_string(gcontrol.last_step()) + " == deal.II's " +
                      std::to_string(GCONTROL.last_step()));
      checker.check_below(test::relative_difference(test::to_rw(x), test::to_rw(X), comm),
                          1e-10,
                          "SolverGMRES solution");

      // the diagonal as a preconditioner: CG converges in one step
      x = 0.;
      gpumf::Vector<double> inverse(d);
      for (const auto i : rw.get_stored_elements())
        rw(i) = 1. / rw(i);
      inverse.import(rw, VectorOperation::insert);
      DiagonalMatrix<gpumf::Vector<double>> jacobi(inverse);
      SolverControl                         pcontrol(200, 1e-12 * r.l2_norm());
      SolverCG<gpumf::Vector<double>>(pcontrol).solve(matrix, x, r, jacobi);
      checker.check(pcontrol.last_step() == 1,
                    "SolverCG with DiagonalMatrix preconditioner: " + std::to_string(pcontrol.last_step()) +
                      " iteration");
    }

    // data exchange with deal.II's distributed vectors, both ways, in each memory space of this
    // deal.II (MemorySpace::Host; and MemorySpace::Default on 9.5+), insert and add
    const auto exchange = [&](auto space, const std::string &name) {
      using Space = decltype(space);
      LinearAlgebra::distributed::Vector<double, Space> D(partitioner->locally_owned_range(),
                                                          partitioner->ghost_indices(),
                                                          comm);
      HostVector                                        expected(partitioner);
      test::fill_random(expected, 11);
      LinearAlgebra::ReadWriteVector<double> rw(partitioner->locally_owned_range());
      gpumf::internal::import_elements(rw, expected, VectorOperation::insert);
      gpumf::internal::import_elements(D, rw, VectorOperation::insert);
      gpumf::Vector<double> x(partitioner, backend);
      test::fill_random(x, 12);
      x.import_elements(D, VectorOperation::insert);
      same(x, expected, "import_elements(" + name + ", insert)");
      x.import(D, VectorOperation::add), expected *= 2.;
      same(x, expected, "import(" + name + ", add)");
      test::fill_random(x, 13);
      LinearAlgebra::distributed::Vector<double, Space> E(D);
      x.export_to(E, VectorOperation::insert);
      checker.check_below(test::relative_difference(
                            test::to_rw(x),
                            [&] {
                              LinearAlgebra::ReadWriteVector<double> r(partitioner->locally_owned_range());
                              gpumf::internal::import_elements(r, E, VectorOperation::insert);
                              return r;
                            }(),
                            comm),
                          0,
                          "export_to(" + name + ", insert)");
      x.export_to(D, VectorOperation::add);
      LinearAlgebra::ReadWriteVector<double> sum(partitioner->locally_owned_range()), from_x = test::to_rw(x);
      gpumf::internal::import_elements(sum, D, VectorOperation::insert);
      for (const auto i : sum.get_stored_elements())
        from_x(i) += expected(i) / 2.;
      checker.check_below(test::relative_difference(sum, from_x, comm), tol, "export_to(" + name + ", add)");
      // a vector of another layout is refused with a message
      LinearAlgebra::distributed::Vector<double, Space> wrong(complete_index_set(partitioner->size()), MPI_COMM_SELF);
      // (on one rank the layouts agree)
      const bool thrown =
        Utilities::MPI::n_mpi_processes(comm) == 1 || test::exception_of([&] {
                                                        x.import_elements(wrong, VectorOperation::insert);
                                                      }).find("other locally owned indices") != std::string::npos;
      checker.check(thrown, "import_elements(" + name + ") of another layout throws");
    };
#define GPUMF_TEST_EXCHANGE(space) exchange(space(), #space);
    GPUMF_DEAL_II_MEMORY_SPACES(GPUMF_TEST_EXCHANGE)
#undef GPUMF_TEST_EXCHANGE

    // mismatched vectors are rejected
    {
      gpumf::Vector<double> other(std::make_shared<Utilities::MPI::Partitioner>(7), backend);
      bool                  thrown = false;
      try
        {
          other.add(1., a);
        }
      catch (const gpumf::ExcVectorMismatch &)
        {
          thrown = true;
        }
      checker.check(thrown, "add() of a vector of another size throws ExcVectorMismatch");
    }
  });
}
