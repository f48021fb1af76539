// Meshes, deterministic random vectors, comparisons and the frame of a test program, shared
// by the tests.
#ifndef gpumf_tests_test_utils_h
#define gpumf_tests_test_utils_h

#include <gpumf/backend.h>
#include <gpumf/vector.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/read_write_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include "coefficient.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace test
{
  using namespace dealii;

  /// Exit code that ctest reads as "skipped" (SKIP_RETURN_CODE).
  constexpr int skip_return_code = 77;

  /// A reproducible pseudo-random number in [-1, -0.1] or [0.1, 1] for index @p i.
  inline double
  random_value(const std::uint64_t i, const std::uint64_t seed = 1)
  {
    std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    const double u = double(x % 1000003) / 1000003.; // [0, 1)
    return (x & (1ull << 40) ? 1. : -1.) * (0.1 + 0.9 * u);
  }

  /// A variable diffusion coefficient for the tests: kappa(x) = 1 + x_0^2 / 2.
  template <int dim>
  class Kappa : public Function<dim>
  {
  public:
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      return 1. + 0.5 * p[0] * p[0];
    }
  };

  /// The Helmholtz coefficient a(x) of coefficient.h as a deal.II Function.
  template <int dim>
  class ValueCoefficient : public Function<dim>
  {
  public:
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      return helmholtz_coefficient(p);
    }
  };

  enum class MeshKind
  {
    cartesian,
    curved
  };

  inline std::string
  to_string(const MeshKind kind)
  {
    return kind == MeshKind::cartesian ? "cartesian" : "curved";
  }

  /// The coarse meshes the tests start from.
  enum class Domain
  {
    box,            ///< 3 x 2 (x 2) cells on [0, 1.5] x [0, 1]^(dim - 1)
    shell,          ///< a shell of radii 0.5 and 1 (spherical manifold), 8 (2D) or 6 (3D) cells
    unit_cube,      ///< [0, 1]^dim, one cell
    cube,           ///< [-1, 1]^dim, one cell
    inexact_cube,   ///< [0, 0.7]^dim, one cell: cell sizes not exact in floating point
    column,         ///< [0, 1]^(dim - 1) x [0, 2], 2 cells along the last direction, boundary ids by face
    distorted_cube, ///< [0, 1]^dim, 3^dim cells whose interior vertices are moved at random (the
                    ///< same on every rank): logically Cartesian, every refined cell non-affine
    l_shape         ///< deal.II's hyper_L on [-1, 1]^dim
  };

  /// One round of local refinement: the locally owned active cells whose center it accepts.
  template <int dim>
  using RefineWhere = std::function<bool(const Point<dim> &)>;

  /// The coarse mesh of @p domain refined @p n_refinements times, then once more for each of
  /// @p local_refinements in turn where it accepts a cell's center (hanging nodes).
  template <int dim>
  void
  make_mesh(Triangulation<dim>                  &tria,
            const Domain                         domain,
            const unsigned int                   n_refinements,
            const std::vector<RefineWhere<dim>> &local_refinements = {})
  {
    switch (domain)
      {
        case Domain::box:
          {
            std::vector<unsigned int> subdivisions(dim, 2);
            subdivisions[0] = 3;
            Point<dim> corner;
            for (unsigned int d = 0; d < dim; ++d)
              corner[d] = d == 0 ? 1.5 : 1.;
            GridGenerator::subdivided_hyper_rectangle(tria, subdivisions, Point<dim>(), corner);
            break;
          }
        case Domain::shell:
          GridGenerator::hyper_shell(tria, Point<dim>(), 0.5, 1., dim == 2 ? 8 : 6);
          break;
        case Domain::unit_cube:
          GridGenerator::hyper_cube(tria, 0., 1.);
          break;
        case Domain::cube:
          GridGenerator::hyper_cube(tria, -1., 1.);
          break;
        case Domain::inexact_cube:
          GridGenerator::hyper_cube(tria, 0., 0.7);
          break;
        case Domain::column:
          {
            std::vector<unsigned int> repetitions(dim, 1);
            repetitions[dim - 1] = 2;
            Point<dim> top;
            for (unsigned int d = 0; d < dim; ++d)
              top[d] = d + 1 == dim ? 2. : 1.;
            GridGenerator::subdivided_hyper_rectangle(tria, repetitions, Point<dim>(), top, true);
            break;
          }
        case Domain::distorted_cube:
          GridGenerator::subdivided_hyper_cube(tria, 3, 0., 1.);
          GridTools::transform(
            [](const Point<dim> &p) {
              Point<dim>    q        = p;
              std::uint64_t key      = 0;
              bool          interior = true;
              for (unsigned int d = 0; d < dim; ++d)
                {
                  const long i = std::lround(p[d] * 3.);
                  interior     = interior && i > 0 && i < 3;
                  key          = key * 4 + i;
                }
              if (interior)
                for (unsigned int d = 0; d < dim; ++d)
                  q[d] += 0.08 * random_value(key * dim + d, 7);
              return q;
            },
            tria);
          break;
        case Domain::l_shape:
          GridGenerator::hyper_L(tria, -1., 1.);
          break;
      }
    tria.refine_global(n_refinements);
    for (const auto &refine_where : local_refinements)
      {
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned() && refine_where(cell->center()))
            cell->set_refine_flag();
        tria.execute_coarsening_and_refinement();
      }
  }

  /// The two meshes of the operator tests. Cartesian: the box refined (2D twice, 3D once);
  /// curved: the shell refined once.
  template <int dim>
  void
  make_mesh(Triangulation<dim> &tria, const MeshKind kind)
  {
    if (kind == MeshKind::cartesian)
      make_mesh(tria, Domain::box, dim == 2 ? 2 : 1);
    else
      make_mesh(tria, Domain::shell, 1);
  }

  template <int dim>
  std::unique_ptr<Mapping<dim>>
  make_mapping(const MeshKind kind)
  {
    return std::make_unique<MappingQ<dim>>(kind == MeshKind::cartesian ? 1 : 3);
  }

  /// Zero Dirichlet values on boundary id 0 (all of the box, the inner sphere of the shell).
  template <int dim>
  void
  make_constraints(const Mapping<dim> &mapping, const DoFHandler<dim> &dof, AffineConstraints<double> &constraints)
  {
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    constraints.clear();
    constraints.reinit(relevant);
    VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
  }

  /// The locally owned cells: the active ones where @p level is numbers::invalid_unsigned_int,
  /// else those of multigrid level @p level.
  template <int dim>
  std::vector<typename DoFHandler<dim>::cell_iterator>
  cells_of(const DoFHandler<dim> &dof, const unsigned int level)
  {
    std::vector<typename DoFHandler<dim>::cell_iterator> cells;
    if (level == numbers::invalid_unsigned_int)
      for (const auto &cell : dof.active_cell_iterators())
        {
          if (cell->is_locally_owned())
            cells.push_back(cell);
        }
    else
      for (const auto &cell : dof.mg_cell_iterators_on_level(level))
        if (cell->is_locally_owned_on_level())
          cells.emplace_back(&dof.get_triangulation(), cell->level(), cell->index(), &dof);
    return cells;
  }

  /// The DoF indices of @p cell: the active ones, or those of multigrid level @p level.
  template <int dim>
  std::vector<types::global_dof_index>
  dof_indices(const typename DoFHandler<dim>::cell_iterator &cell, const unsigned int level)
  {
    std::vector<types::global_dof_index> indices(cell->get_fe().n_dofs_per_cell());
    if (level == numbers::invalid_unsigned_int)
      cell->get_dof_indices(indices);
    else
      cell->get_mg_dof_indices(indices);
    return indices;
  }

  /// The owned entries of a gpumf vector, by global index.
  template <typename Number>
  LinearAlgebra::ReadWriteVector<Number>
  to_rw(const gpumf::Vector<Number> &v)
  {
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    v.export_to(rw, VectorOperation::insert);
    return rw;
  }

  template <typename Number>
  LinearAlgebra::ReadWriteVector<Number>
  to_rw(const LinearAlgebra::distributed::Vector<Number> &v)
  {
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    gpumf::internal::import_elements(rw, v, VectorOperation::insert);
    return rw;
  }

  /// Fills the owned entries with random_value(global index, seed).
  template <typename VectorType>
  void
  fill_random(VectorType &v, const std::uint64_t seed = 1)
  {
    LinearAlgebra::ReadWriteVector<typename VectorType::value_type> rw(v.locally_owned_elements());
    for (const auto i : rw.get_stored_elements())
      rw(i) = random_value(i, seed);
    gpumf::internal::import_elements(v, rw, VectorOperation::insert);
  }

  /// max(a, b), or infinity where either is NaN (std::max() passes over a NaN in its second
  /// argument, and so would the checks of an error that became NaN; infinity survives MPI's max).
  inline double
  max_or_inf(const double a, const double b)
  {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::infinity() : std::max(a, b);
  }

  /// max |a - b| / max |b| over all ranks' entries (a and b store the same indices); NaN where
  /// an entry of either is not finite (std::max() would pass over a NaN, and a check_below() of
  /// the result with it).
  template <typename Number>
  double
  relative_difference(const LinearAlgebra::ReadWriteVector<Number> &a,
                      const LinearAlgebra::ReadWriteVector<Number> &b,
                      const MPI_Comm                                comm)
  {
    double       diff = 0, scale = 0;
    unsigned int not_finite = 0;
    for (const auto i : b.get_stored_elements())
      {
        not_finite += !std::isfinite(double(a(i))) || !std::isfinite(double(b(i)));
        diff  = std::max(diff, double(std::abs(a(i) - b(i))));
        scale = std::max(scale, double(std::abs(b(i))));
      }
    diff  = Utilities::MPI::max(diff, comm);
    scale = Utilities::MPI::max(scale, comm);
    if (Utilities::MPI::sum(not_finite, comm) > 0)
      return std::numeric_limits<double>::quiet_NaN();
    return scale == 0 ? diff : diff / scale;
  }

  /// True when a and b store bitwise identical entries on every rank.
  template <typename Number>
  bool
  bitwise_equal(const LinearAlgebra::ReadWriteVector<Number> &a,
                const LinearAlgebra::ReadWriteVector<Number> &b,
                const MPI_Comm                                comm)
  {
    unsigned int differ = 0;
    for (const auto i : b.get_stored_elements())
      {
        const Number x = a(i), y = b(i);
        differ += std::memcmp(&x, &y, sizeof(Number)) != 0;
      }
    return Utilities::MPI::sum(differ, comm) == 0;
  }

  /// The owned entries of a gpumf vector in their global order (what the deal.II references
  /// of tests/common take and return).
  template <typename Number>
  std::vector<double>
  owned_values(const gpumf::Vector<Number> &v)
  {
    const auto          rw = to_rw(v);
    std::vector<double> result;
    for (const auto i : rw.get_stored_elements())
      result.push_back(rw(i));
    return result;
  }

  /// relative_difference() of @p v and @p expected, the owned entries in their global order.
  template <typename Number>
  double
  relative_difference(const gpumf::Vector<Number> &v, const std::vector<double> &expected, const MPI_Comm comm)
  {
    const auto                             rw = to_rw(v);
    LinearAlgebra::ReadWriteVector<Number> expected_rw(rw.get_stored_elements());
    AssertThrow(expected.size() == rw.get_stored_elements().n_elements(), ExcInternalError());
    unsigned int k = 0;
    for (const auto i : expected_rw.get_stored_elements())
      expected_rw(i) = expected[k++];
    return relative_difference(rw, expected_rw, comm);
  }

  /// @p x as the checks print numbers (the stream's default format).
  inline std::string
  sci(const double x)
  {
    std::ostringstream s;
    s << x;
    return s.str();
  }

  /// Counts checks; prints a line per check on rank 0 and the closing tally.
  class Checker
  {
  public:
    explicit Checker(const MPI_Comm comm)
      : comm(comm)
    {}

    bool
    check(const bool ok, const std::string &what)
    {
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        std::cout << (ok ? "PASS " : "FAIL ") << what << std::endl;
      (ok ? passed : failed) += 1;
      return ok;
    }

    /// A value below a bound, both printed.
    bool
    check_below(const double value, const double bound, const std::string &what)
    {
      std::ostringstream s;
      s << what << ": " << value << " <= " << bound;
      return check(value <= bound, s.str());
    }

    /// Prints "N passed, N failed" and returns the exit code: 1 where a check failed or none
    /// ran (a test that checked nothing must not pass; a skipped one exits 77 before this).
    int
    finish() const
    {
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        {
          std::cout << passed << " passed, " << failed << " failed" << std::endl;
          if (passed + failed == 0)
            std::cout << "FAIL no check ran" << std::endl;
        }
      return failed == 0 && passed + failed > 0 ? 0 : 1;
    }

  private:
    MPI_Comm     comm;
    unsigned int passed = 0, failed = 0;
  };

  /// @p op's vmult_and_dot() on @p x (on the GPU in 3D: the cells' energies summed by the cell
  /// kernel, the constrained rows added, over the ranks) against x . y, y = A x by vmult(), and
  /// the A x it gives against y.
  template <typename Operator, typename Number>
  void
  check_vmult_and_dot(Checker                     &checker,
                      const Operator              &op,
                      const gpumf::Vector<Number> &x,
                      const gpumf::Vector<Number> &y,
                      const std::string           &what)
  {
    gpumf::Vector<Number> z;
    op.initialize_dof_vector(z);
    const Number fused = op.vmult_and_dot(z, x), expected = x * y;
    checker.check_below(std::abs(double(fused) - double(expected)) / std::abs(double(expected)),
                        1e4 * std::numeric_limits<Number>::epsilon(),
                        what + ": vmult_and_dot() against x . (A x)");
    checker.check_below(relative_difference(to_rw(z), to_rw(y), MPI_COMM_WORLD),
                        500 * std::numeric_limits<Number>::epsilon(),
                        what + ": vmult_and_dot()'s A x against vmult()'s");
  }

  /// Parses "host" or "cuda"; for "cuda" without a usable GPU prints SKIPPED and returns false.
  inline bool
  backend_from_argument(const int argc, char **argv, gpumf::Backend &backend)
  {
    const std::string arg = argc > 1 ? argv[1] : "host";
    AssertThrow(arg == "host" || arg == "cuda", ExcMessage("usage: " + std::string(argv[0]) + " host|cuda"));
    backend = arg == "host" ? gpumf::Backend::host : gpumf::Backend::cuda;
    if (backend == gpumf::Backend::cuda && !gpumf::cuda_available())
      {
        if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
          std::cout << "SKIPPED: no usable CUDA device (" << gpumf::device_name() << ")" << std::endl;
        return false;
      }
    if (backend == gpumf::Backend::cuda)
      gpumf::select_device(MPI_COMM_WORLD); // one GPU per rank where there are several
    if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
      std::cout << "backend " << gpumf::to_string(backend) << ", device " << gpumf::device_name() << ", "
                << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " MPI ranks" << std::endl;
    return true;
  }

  /// The message of the exception that @p f throws, "" when it throws none; runs of white
  /// space (deal.II breaks long lines) as one space.
  template <typename F>
  std::string
  exception_of(F &&f)
  {
    try
      {
        f();
      }
    catch (const std::exception &e)
      {
        std::string message;
        for (const char c : std::string(e.what()))
          if (!std::isspace(static_cast<unsigned char>(c)))
            message += c;
          else if (!message.empty() && message.back() != ' ')
            message += ' ';
        return message;
      }
    return "";
  }

  /// Runs @p body with the environment variable @p name set to @p value ("" unsets it),
  /// then restores the variable; returns what @p body returns.
  template <typename Body>
  auto
  with_variable(const char *name, const std::string &value, const Body &body)
  {
    const char       *original = std::getenv(name);
    const std::string saved    = original != nullptr ? original : "";
    const bool        was_set  = original != nullptr;
    const auto        restore  = [&] {
      if (was_set)
        setenv(name, saved.c_str(), 1);
      else
        unsetenv(name);
    };
    if (value.empty())
      unsetenv(name);
    else
      setenv(name, value.c_str(), 1);
    try
      {
        auto result = body();
        restore();
        return result;
      }
    catch (...)
      {
        restore();
        throw;
      }
  }

  /// Runs @p body with GPUMF_EXCHANGE set to @p method ("" unsets it), then restores the
  /// variable; returns what @p body returns.
  template <typename Body>
  auto
  with_exchange(const std::string &method, const Body &body)
  {
    return with_variable("GPUMF_EXCHANGE", method, body);
  }

  /**
   * The exchange methods worth trying on @p backend, each with why it is tried: mpi,
   * staged_mpi and ipc (shared host memory) on the host backend; on the CUDA backend
   * staged_mpi, nccl when exchange_method() chooses it by itself, ipc where it can serve
   * (ranks of one host), and mpi when MPI is CUDA-aware. Collective.
   */
  inline std::vector<gpumf::ExchangeMethod>
  exchange_methods(const gpumf::Backend backend, const MPI_Comm comm)
  {
    using M        = gpumf::ExchangeMethod;
    const bool ipc = with_exchange("ipc", [&] { return gpumf::exchange_method(comm, backend); }) == M::ipc;
    if (backend == gpumf::Backend::host)
      return ipc ? std::vector<M>{M::mpi, M::staged_mpi, M::ipc} : std::vector<M>{M::mpi, M::staged_mpi};
    std::vector<M> methods{M::staged_mpi};
    if (with_exchange("", [&] { return gpumf::exchange_method(comm, backend); }) == M::nccl)
      methods.push_back(M::nccl);
    if (ipc)
      methods.push_back(M::ipc);
    if (gpumf::cuda_aware_mpi())
      methods.push_back(M::mpi);
    return methods;
  }

  /**
   * The frame of a test program called as `program host|cuda [...]`: MPI, the backend
   * (exit 77 for cuda without a GPU), `body(checker, backend)`, the closing tally, and
   * exceptions reported as failures.
   */
  template <typename Body>
  int
  run(int argc, char **argv, Body &&body)
  {
    Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
    try
      {
        gpumf::Backend backend;
        if (!backend_from_argument(argc, argv, backend))
          return skip_return_code;
        Checker checker(MPI_COMM_WORLD);
        body(checker, backend);
        return checker.finish();
      }
    catch (std::exception &e)
      {
        std::cerr << "Exception: " << e.what() << std::endl;
        return 1;
      }
  }
} // namespace test

#endif
