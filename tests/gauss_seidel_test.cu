// gpumf::MultiColorGaussSeidel: the multi-color Gauss-Seidel for FE_Q(1).
//
// For dim 2 and 3, double and float, a uniform cube and a distorted (logically Cartesian) mesh,
// active cells and one multigrid level, zero Dirichlet conditions:
//  1. the stencil times a random vector equals gpumf::LaplaceOperator<dim, 1, 2> (any number of
//     ranks) and deal.II's assembled SparseMatrix (1 rank);
//  2. the colors are conflict-free: the unconstrained DoFs of every cell have distinct colors
//     (colors of ghost DoFs exchanged), and no two rows of a color couple in the SparseMatrix (1 rank);
//  3. one symmetric sweep (and one SOR sweep, omega = 1.3) from a random x with a random b equals a
//     sequential Gauss-Seidel on the SparseMatrix in the color order and back (1 rank), and equals
//     the color-by-color update with the matrix-free LaplaceOperator and its diagonal (any ranks);
//  4. smoothing (A e = 0): the A-norm of the error decreases in every sweep; the oscillatory modes
//     of the uniform mesh lose at least a stated factor per sweep; CG preconditioned with the
//     symmetric sweep needs fewer iterations than CG and than CG with Jacobi, same solution;
//     mg::SmootherRelaxation drives it on a level.
// And: FE_Q(2) and hanging nodes rejected; a mesh that is not logically Cartesian (a ball) colored
// greedily on one rank (conflict-free, sweep = sequential Gauss-Seidel), rejected on several.
//
//   gauss_seidel_test host|cuda      (cuda: skipped without a GPU)
#include <gpumf/multicolor_gauss_seidel.h>
#include <gpumf/operators.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/base/mg_level_object.h>
#include <deal.II/multigrid/mg_smoother.h>

#include "common/dealii_reference.h"
#include "common/test_utils.h"

#include <cmath>
#include <iomanip>
#include <type_traits>

using namespace dealii;

namespace
{
  const MPI_Comm comm = MPI_COMM_WORLD;

  enum class MeshKind
  {
    cube,
    distorted
  };

  std::string
  format(const double x, const int digits = 3)
  {
    std::ostringstream s;
    s << std::setprecision(digits) << x;
    return s.str();
  }

  /// Zero Dirichlet conditions on the whole boundary, for the active DoFs or those of a level.
  template <int dim, typename Number>
  void
  make_constraints(const DoFHandler<dim> &dof, const unsigned int level, AffineConstraints<Number> &constraints)
  {
    IndexSet relevant, boundary;
    if (level == numbers::invalid_unsigned_int)
      {
        DoFTools::extract_locally_relevant_dofs(dof, relevant);
        boundary = DoFTools::extract_boundary_dofs(dof);
      }
    else
      {
        relevant = DoFTools::extract_locally_relevant_level_dofs(dof, level);
        MGConstrainedDoFs mg_constrained;
        mg_constrained.initialize(dof);
        mg_constrained.make_zero_boundary_constraints(dof, {0});
        boundary = mg_constrained.get_boundary_indices(level);
      }
    constraints.clear();
    constraints.reinit(relevant);
    for (const auto i : boundary)
      if (relevant.is_element(i))
        constraints.add_line(i);
    constraints.close();
  }

  template <typename Number>
  dealii::Vector<double>
  to_serial(const gpumf::Vector<Number> &v)
  {
    const auto             rw = test::to_rw(v);
    dealii::Vector<double> result(v.size());
    for (const auto i : rw.get_stored_elements())
      result(i) = rw(i);
    return result;
  }

  double
  relative_difference(const dealii::Vector<double> &a, const dealii::Vector<double> &b)
  {
    dealii::Vector<double> d = a;
    d -= b;
    return d.linfty_norm() / b.linfty_norm();
  }

  /// x_i += omega (b_i - (A x)_i) / a_ii, row after row: colors in order, then (symmetric) in reverse.
  void
  sequential_gauss_seidel(const SparseMatrix<double>                   &A,
                          dealii::Vector<double>                       &x,
                          const dealii::Vector<double>                 &b,
                          const std::vector<std::vector<unsigned int>> &colors,
                          const double                                  omega,
                          const bool                                    symmetric)
  {
    const auto update = [&](const unsigned int i) {
      double sum = b(i);
      for (auto it = A.begin(i); it != A.end(i); ++it)
        sum -= it->value() * x(it->column());
      x(i) += omega * sum / A.diag_element(i);
    };
    for (const auto &color : colors)
      for (const unsigned int i : color)
        update(i);
    if (symmetric)
      for (auto color = colors.rbegin(); color != colors.rend(); ++color)
        for (auto i = color->rbegin(); i != color->rend(); ++i)
          update(*i);
  }

  /// The owned entries of @p v from f(global index).
  template <typename Number, typename F>
  void
  fill(gpumf::Vector<Number> &v, const F &f)
  {
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    for (const auto i : rw.get_stored_elements())
      rw(i) = f(i);
    v.import(rw, VectorOperation::insert);
  }

  /// What the smoothing checks measured, for the summary.
  struct Figures
  {
    std::vector<std::string> lines;
  };

  template <int dim, typename Number>
  void
  run_case(test::Checker       &checker,
           const gpumf::Backend backend,
           const MeshKind       kind,
           const bool           on_level,
           Figures             &figures)
  {
    using VectorType         = gpumf::Vector<Number>;
    using Operator           = gpumf::LaplaceOperator<dim, 1, 2, 1, Number>;
    using GaussSeidel        = gpumf::MultiColorGaussSeidel<dim, Number>;
    const bool        serial = Utilities::MPI::n_mpi_processes(comm) == 1;
    const double      eps    = std::numeric_limits<Number>::epsilon();
    const std::string name   = std::to_string(dim) + "D " + (std::is_same_v<Number, double> ? "double" : "float") +
                             (kind == MeshKind::cube ? " cube" : " distorted") + (on_level ? " level" : " active");

    parallel::distributed::Triangulation<dim> tria(
      comm,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
    // cube: [0,1]^dim refined uniformly; distorted: 3^dim coarse cells moved at random, refined
    if (kind == MeshKind::cube)
      test::make_mesh(tria, test::Domain::unit_cube, dim == 2 ? 5 : 4);
    else
      test::make_mesh(tria, test::Domain::distorted_cube, dim == 2 ? 3 : 2);
    const FE_Q<dim> fe(1);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    dof.distribute_mg_dofs();
    const unsigned int        level = on_level ? tria.n_global_levels() - 2 : numbers::invalid_unsigned_int;
    AffineConstraints<Number> constraints;
    make_constraints(dof, level, constraints);
    const MappingQ<dim> mapping(1);

    typename gpumf::MatrixFree<dim, Number>::AdditionalData mf_data;
    mf_data.backend  = backend;
    mf_data.mg_level = level;
    auto mf          = std::make_shared<gpumf::MatrixFree<dim, Number>>();
    mf->reinit(mapping, dof, constraints, QGauss<1>(2), mf_data);
    Operator op;
    op.initialize(mf);
    op.compute_diagonal();
    GaussSeidel gs;
    gs.initialize(op);
    const auto &partitioner = *mf->get_vector_partitioner();
    const auto  n_rows      = Utilities::MPI::sum(partitioner.locally_owned_size(), comm);

    checker.check(gs.parity_coloring() && gs.n_colors() == (1u << dim),
                  name + ": " + std::to_string(gs.n_colors()) + " parity colors, " + std::to_string(n_rows) + " rows");

    // 1. the stencil against the matrix-free operator (and the SparseMatrix)
    VectorType x, y, z, b;
    mf->initialize_dof_vector(x);
    mf->initialize_dof_vector(y);
    mf->initialize_dof_vector(z);
    mf->initialize_dof_vector(b);
    test::fill_random(x, 3);
    test::fill_random(b, 4);
    gs.stencil_vmult(y, x);
    op.vmult(z, x);
    const double tol_apply = std::is_same_v<Number, double> ? 1e-12 : 2e-5;
    checker.check_below(test::relative_difference(test::to_rw(y), test::to_rw(z), comm),
                        tol_apply,
                        name + ": stencil A x vs LaplaceOperator<dim, 1, 2> (max-norm relative)");
    SparsityPattern      pattern;
    SparseMatrix<double> A;
    if (serial)
      {
        test::assemble_laplace_matrix(mapping, dof, level, constraints, 2, pattern, A);
        dealii::Vector<double> Ax(A.m());
        A.vmult(Ax, to_serial(x));
        checker.check_below(relative_difference(to_serial(y), Ax),
                            tol_apply,
                            name + ": stencil A x vs deal.II SparseMatrix");
      }

    // 2. conflict-free colors
    {
      const auto               &colors = gs.colored_rows();
      std::vector<unsigned int> seen(partitioner.locally_owned_size(), 0);
      for (const auto &color : colors)
        for (const unsigned int i : color)
          ++seen[i];
      checker.check(Utilities::MPI::max(
                      unsigned(std::count_if(seen.begin(), seen.end(), [](const unsigned int s) { return s != 1; })),
                      comm) == 0,
                    name + ": every owned row in exactly one color");
      gpumf::Vector<double> color_of(mf->get_vector_partitioner(), gpumf::Backend::host);
      for (unsigned int c = 0; c < colors.size(); ++c)
        for (const unsigned int i : colors[c])
          color_of.get_values()[i] = c + 1;
      color_of.update_ghost_values();
      unsigned int conflicts = 0, cells = 0;
      for (const auto &cell : test::cells_of(dof, level))
        {
          std::vector<unsigned int> cell_colors;
          for (const auto g : test::dof_indices<dim>(cell, level))
            if (!constraints.is_constrained(g))
              cell_colors.push_back(unsigned(color_of.get_values()[partitioner.global_to_local(g)]));
          std::sort(cell_colors.begin(), cell_colors.end());
          conflicts += std::adjacent_find(cell_colors.begin(), cell_colors.end()) != cell_colors.end() ||
                       std::count(cell_colors.begin(), cell_colors.end(), 0u) > 0;
          ++cells;
        }
      conflicts = Utilities::MPI::sum(conflicts, comm);
      checker.check(conflicts == 0,
                    name + ": the unconstrained DoFs of each of " + std::to_string(Utilities::MPI::sum(cells, comm)) +
                      " cells have distinct colors (ghost colors exchanged)");
      if (serial)
        {
          std::vector<unsigned int> color(A.m());
          for (unsigned int c = 0; c < colors.size(); ++c)
            for (const unsigned int i : colors[c])
              color[i] = c;
          unsigned int couplings = 0, same = 0;
          for (unsigned int i = 0; i < A.m(); ++i)
            for (auto it = A.begin(i); it != A.end(i); ++it)
              if (it->column() != i && !constraints.is_constrained(i) && !constraints.is_constrained(it->column()))
                {
                  ++couplings;
                  same += color[i] == color[it->column()];
                }
          checker.check(same == 0,
                        name + ": no two rows of one color couple in the SparseMatrix (" + std::to_string(couplings) +
                          " couplings)");
        }
    }

    // 3. sweeps = sequential Gauss-Seidel in color order; = color-by-color matrix-free updates
    const auto              inverse_diagonal = op.get_matrix_diagonal_inverse()->get_vector();
    std::vector<VectorType> masks(gs.n_colors());
    for (unsigned int c = 0; c < gs.n_colors(); ++c)
      {
        mf->initialize_dof_vector(masks[c]);
        std::vector<bool> in(partitioner.locally_owned_size(), false);
        for (const unsigned int i : gs.colored_rows()[c])
          in[i] = true;
        fill(masks[c], [&](const types::global_dof_index g) { return Number(in[partitioner.global_to_local(g)]); });
      }
    for (const double omega : {1., 1.3})
      for (const bool symmetric : {true, false})
        {
          if (omega == 1.3 && symmetric == false)
            continue;
          typename GaussSeidel::AdditionalData data(omega, symmetric);
          GaussSeidel                          sweep;
          sweep.reinit(*mf, data);
          VectorType xs;
          mf->initialize_dof_vector(xs);
          test::fill_random(xs, 5);
          const VectorType x0 = xs;
          sweep.step(xs, b);
          const std::string what = name + (symmetric ? ": symmetric sweep" : ": forward sweep") +
                                   (omega == 1. ? "" : " (SSOR omega " + format(omega) + ")");
          const double tol_sweep = 300 * eps;
          if (serial)
            {
              dealii::Vector<double> reference = to_serial(x0);
              sequential_gauss_seidel(A, reference, to_serial(b), gs.colored_rows(), omega, symmetric);
              checker.check_below(relative_difference(to_serial(xs), reference),
                                  tol_sweep,
                                  what + " vs sequential Gauss-Seidel on the SparseMatrix, color order");
            }
          // the same with the matrix-free operator: residual, then the rows of one color
          VectorType xr = x0, r;
          mf->initialize_dof_vector(r);
          std::vector<unsigned int> order;
          for (unsigned int c = 0; c < gs.n_colors(); ++c)
            order.push_back(c);
          if (symmetric)
            for (unsigned int c = gs.n_colors(); c-- > 0;)
              order.push_back(c);
          for (const unsigned int c : order)
            {
              op.vmult(r, xr);
              r.sadd(Number(-1), Number(1), b);
              r.scale(inverse_diagonal);
              r.scale(masks[c]);
              xr.add(Number(omega), r);
            }
          checker.check_below(test::relative_difference(test::to_rw(xs), test::to_rw(xr), comm),
                              tol_sweep,
                              what + " vs color-by-color updates with LaplaceOperator");
        }
    {
      // vmult = step from zero; Tvmult = vmult for the symmetric sweep (SSOR is symmetric)
      VectorType u, v;
      mf->initialize_dof_vector(u);
      mf->initialize_dof_vector(v);
      gs.vmult(u, b);
      v = Number(0);
      gs.step(v, b);
      bool same = test::bitwise_equal(test::to_rw(u), test::to_rw(v), comm);
      gs.Tvmult(v, b);
      same = same && test::bitwise_equal(test::to_rw(u), test::to_rw(v), comm);
      checker.check(same, name + ": vmult = step from zero, symmetric Tvmult = vmult (bitwise)");
      // without symmetric: Tvmult = backward sweep from zero = the transpose of vmult, (x, P b) = (P^T x, b)
      GaussSeidel forward;
      forward.reinit(*mf, typename GaussSeidel::AdditionalData(1., false));
      forward.vmult(u, b);
      forward.Tvmult(v, x);
      const double xu = double(x * u), vb = double(v * b);
      checker.check_below(std::abs(xu - vb) / std::abs(xu),
                          1e3 * eps,
                          name + ": forward sweep: Tvmult is the transpose of vmult, |(x,Pb)-(P^T x,b)|/|(x,Pb)|");
      // P^{-1} is symmetric: (x, P^{-1} b) = (b, P^{-1} x)
      gs.vmult(u, b);
      gs.vmult(v, x);
      const double xs = double(x * u), bv = double(b * v);
      checker.check_below(std::abs(xs - bv) / std::abs(xs),
                          1e3 * eps,
                          name + ": symmetric sweep as a preconditioner is symmetric, |(x,Pb)-(b,Px)|/|(x,Pb)|");
    }

    // 4. smoothing on A e = 0
    VectorType Ae;
    mf->initialize_dof_vector(Ae);
    const auto a_norm = [&](const VectorType &e) {
      op.vmult(Ae, e);
      const double energy = double(e * Ae);
      return std::isnan(energy) ? energy : std::sqrt(std::max(0., energy)); // (a NaN must fail the check)
    };
    VectorType zero;
    mf->initialize_dof_vector(zero);
    for (const bool symmetric : {false, true})
      {
        GaussSeidel smoother;
        smoother.reinit(*mf, typename GaussSeidel::AdditionalData(1., symmetric));
        VectorType e;
        mf->initialize_dof_vector(e);
        test::fill_random(e, 6);
        mf->set_constrained_values(Number(0), e);
        std::vector<double> norms{a_norm(e)};
        for (unsigned int s = 0; s < 6; ++s)
          {
            smoother.step(e, zero);
            norms.push_back(a_norm(e));
          }
        bool        decreasing = true;
        std::string factors;
        for (unsigned int s = 1; s < norms.size(); ++s)
          {
            decreasing = decreasing && norms[s] < norms[s - 1];
            factors += (s > 1 ? " " : "") + format(norms[s] / norms[s - 1], 2);
          }
        checker.check(decreasing,
                      name + (symmetric ? ": symmetric" : ": forward") +
                        " sweeps, random error: A-norm decreases in each sweep, factors " + factors);
        // the first sweep takes out most of a random error (mostly oscillatory)
        const double bound = symmetric ? 0.2 : 0.3;
        checker.check_below(norms[1] / norms[0],
                            bound,
                            name + (symmetric ? ": symmetric" : ": forward") +
                              " sweep, random error: first-sweep A-norm factor");
      }

    if (kind == MeshKind::cube)
      {
        // oscillatory modes of the uniform grid: e = prod_d sin(pi k_d x_d / h), grid index from the vertex
        const unsigned int      N = 1u << (on_level ? level : tria.n_global_levels() - 1);
        std::vector<Point<dim>> position(partitioner.locally_owned_size());
        for (const auto &cell : test::cells_of(dof, level))
          {
            const auto indices = test::dof_indices<dim>(cell, level);
            for (unsigned int v = 0; v < indices.size(); ++v)
              if (partitioner.in_local_range(indices[v]))
                position[partitioner.global_to_local(indices[v])] = cell->vertex(v);
          }
        struct Mode
        {
          std::string               name;
          std::array<unsigned, dim> k;
          double                    bound;
        };
        std::vector<Mode>         modes;
        std::array<unsigned, dim> k_checker, k_x, k_half;
        for (unsigned int d = 0; d < dim; ++d)
          {
            k_checker[d] = N - 1;
            k_x[d]       = d == 0 ? N - 1 : 1;
            k_half[d]    = d == 0 ? N / 2 : 1;
          }
        // bounds per forward sweep (symmetric: squared), about 1.3-1.5 times what was measured;
        // undamped Jacobi leaves 0.5 of the x-oscillatory mode, a GS that updated all colors at
        // once would too
        modes.push_back({"checkerboard k=(N-1,..)", k_checker, dim == 2 ? 0.25 : 0.5});
        modes.push_back({"x-oscillatory k=(N-1,1,..)", k_x, 0.3});
        modes.push_back({"k=(N/2,1,..)", k_half, 0.3});
        for (const auto &mode : modes)
          for (const bool symmetric : {false, true})
            {
              GaussSeidel smoother;
              smoother.reinit(*mf, typename GaussSeidel::AdditionalData(1., symmetric));
              VectorType e;
              mf->initialize_dof_vector(e);
              fill(e, [&](const types::global_dof_index g) {
                const Point<dim> &p     = position[partitioner.global_to_local(g)];
                double            value = 1;
                for (unsigned int d = 0; d < dim; ++d)
                  value *= std::sin(numbers::PI * mode.k[d] * std::round(p[d] * N) / N);
                return Number(value);
              });
              mf->set_constrained_values(Number(0), e);
              const double before = a_norm(e);
              smoother.step(e, zero);
              const double factor = a_norm(e) / before;
              const double bound  = symmetric ? mode.bound * mode.bound : mode.bound;
              checker.check_below(factor,
                                  bound,
                                  name + ": " + (symmetric ? "symmetric" : "forward") + " sweep on mode " + mode.name +
                                    ", N=" + std::to_string(N) + ": A-norm factor");
              figures.lines.push_back(name + " " + (symmetric ? "symmetric " : "forward ") + mode.name + ": " +
                                      format(factor));
            }
      }

    // CG: none, Jacobi, symmetric Gauss-Seidel
    {
      const double tolerance = std::is_same_v<Number, double> ? 1e-10 : 1e-4;
      VectorType   rhs, x_plain, x_jacobi, x_gs;
      mf->initialize_dof_vector(rhs);
      mf->initialize_dof_vector(x_plain);
      mf->initialize_dof_vector(x_jacobi);
      mf->initialize_dof_vector(x_gs);
      test::fill_random(rhs, 8);
      mf->set_constrained_values(Number(0), rhs);
      const auto solve = [&](VectorType &solution, const auto &preconditioner) {
        SolverControl        control(5000, tolerance * rhs.l2_norm());
        SolverCG<VectorType> cg(control);
        cg.solve(op, solution, rhs, preconditioner);
        return control.last_step();
      };
      const unsigned int n_plain  = solve(x_plain, PreconditionIdentity());
      const unsigned int n_jacobi = solve(x_jacobi, *op.get_matrix_diagonal_inverse());
      const unsigned int n_gs     = solve(x_gs, gs);
      checker.check(n_gs < n_plain && n_gs < n_jacobi,
                    name + ": CG + symmetric Gauss-Seidel " + std::to_string(n_gs) + " iterations < CG " +
                      std::to_string(n_plain) + ", CG + Jacobi " + std::to_string(n_jacobi));
      checker.check_below(test::relative_difference(test::to_rw(x_gs), test::to_rw(x_plain), comm),
                          std::is_same_v<Number, double> ? 1e-7 : 2e-2,
                          name + ": CG + Gauss-Seidel, same solution as CG");
      figures.lines.push_back(name + " CG iterations: none " + std::to_string(n_plain) + ", Jacobi " +
                              std::to_string(n_jacobi) + ", symmetric GS " + std::to_string(n_gs));
    }

    // mg::SmootherRelaxation drives it (initialize(), step()) on the level
    if (on_level)
      {
        MGLevelObject<Operator> level_ops(level, level);
        level_ops[level].initialize(mf);
        mg::SmootherRelaxation<GaussSeidel, VectorType> smoother;
        smoother.initialize(level_ops, typename GaussSeidel::AdditionalData(1., true));
        smoother.set_steps(2);
        VectorType u, v;
        mf->initialize_dof_vector(u);
        test::fill_random(u, 9);
        v = u;
        smoother.smooth(level, u, b);
        gs.step(v, b);
        gs.step(v, b);
        checker.check(test::bitwise_equal(test::to_rw(u), test::to_rw(v), comm),
                      name + ": mg::SmootherRelaxation<MultiColorGaussSeidel>::smooth() = 2 x step()");
      }
  }

  /// FE_Q(2) and hanging nodes rejected; a ball: greedy colors on one rank, rejected on several.
  void
  run_special_cases(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int dim    = 2;
    const bool    serial = Utilities::MPI::n_mpi_processes(comm) == 1;
    using GaussSeidel    = gpumf::MultiColorGaussSeidel<dim, double>;
    const MappingQ<dim>                                     mapping(1);
    typename gpumf::MatrixFree<dim, double>::AdditionalData mf_data;
    mf_data.backend   = backend;
    const auto throws = [](const auto &f, const std::string &needle) {
      try
        {
          f();
        }
      catch (const gpumf::ExcNotSupported &e)
        {
          return std::string(e.what()).find(needle) != std::string::npos;
        }
      return false;
    };
    {
      parallel::distributed::Triangulation<dim> tria(comm);
      test::make_mesh(tria, test::Domain::unit_cube, 3);
      const FE_Q<dim> fe(2);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      AffineConstraints<double> constraints;
      make_constraints(dof, numbers::invalid_unsigned_int, constraints);
      gpumf::MatrixFree<dim, double> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(3), mf_data);
      GaussSeidel gs;
      checker.check(throws([&] { gs.reinit(mf); }, "FE_Q(1)"), "FE_Q(2) rejected, naming FE_Q(1)");
    }
    {
      parallel::distributed::Triangulation<dim> tria(comm);
      test::make_mesh<dim>(tria, test::Domain::unit_cube, 3, {[](const Point<dim> &p) {
                             return p[0] < 0.2 && p[1] < 0.2;
                           }});
      const FE_Q<dim> fe(1);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      AffineConstraints<double> constraints(relevant);
      DoFTools::make_hanging_node_constraints(dof, constraints);
      VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(), constraints);
      constraints.close();
      gpumf::MatrixFree<dim, double> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(2), mf_data);
      GaussSeidel gs;
      checker.check(throws([&] { gs.reinit(mf); }, "hanging"), "hanging-node constraints rejected");
    }
    {
      parallel::distributed::Triangulation<dim> tria(comm);
      GridGenerator::hyper_ball(tria);
      tria.refine_global(3);
      const FE_Q<dim> fe(1);
      DoFHandler<dim> dof(tria);
      dof.distribute_dofs(fe);
      AffineConstraints<double> constraints;
      make_constraints(dof, numbers::invalid_unsigned_int, constraints);
      gpumf::MatrixFree<dim, double> mf;
      mf.reinit(mapping, dof, constraints, QGauss<1>(2), mf_data);
      GaussSeidel gs;
      if (!serial)
        {
          checker.check(throws([&] { gs.reinit(mf); }, "logically Cartesian"),
                        "ball (not logically Cartesian) rejected on several ranks");
          return;
        }
      gs.reinit(mf);
      SparsityPattern      pattern;
      SparseMatrix<double> A;
      test::assemble_laplace_matrix(mapping, dof, numbers::invalid_unsigned_int, constraints, 2, pattern, A);
      std::vector<unsigned int> color(A.m());
      for (unsigned int c = 0; c < gs.n_colors(); ++c)
        for (const unsigned int i : gs.colored_rows()[c])
          color[i] = c;
      unsigned int same = 0;
      for (unsigned int i = 0; i < A.m(); ++i)
        for (auto it = A.begin(i); it != A.end(i); ++it)
          same += it->column() != i && color[i] == color[it->column()] && !constraints.is_constrained(i) &&
                  !constraints.is_constrained(it->column());
      checker.check(!gs.parity_coloring() && same == 0,
                    "ball, 1 rank: greedy coloring with " + std::to_string(gs.n_colors()) +
                      " colors, no two rows of a color couple");
      gpumf::Vector<double> x, b;
      mf.initialize_dof_vector(x);
      mf.initialize_dof_vector(b);
      test::fill_random(x, 11);
      test::fill_random(b, 12);
      dealii::Vector<double> reference = to_serial(x);
      gs.step(x, b);
      sequential_gauss_seidel(A, reference, to_serial(b), gs.colored_rows(), 1., true);
      checker.check_below(relative_difference(to_serial(x), reference),
                          300 * std::numeric_limits<double>::epsilon(),
                          "ball, 1 rank: symmetric sweep vs sequential Gauss-Seidel in color order");
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    Figures figures;
    for (const bool on_level : {false, true})
      for (const MeshKind kind : {MeshKind::cube, MeshKind::distorted})
        {
          run_case<2, double>(checker, backend, kind, on_level, figures);
          run_case<2, float>(checker, backend, kind, on_level, figures);
          run_case<3, double>(checker, backend, kind, on_level, figures);
          run_case<3, float>(checker, backend, kind, on_level, figures);
        }
    run_special_cases(checker, backend);
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      {
        std::cout << "measured:" << std::endl;
        for (const auto &line : figures.lines)
          std::cout << "  " << line << std::endl;
      }
  });
}
