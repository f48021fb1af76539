// Constraints resolved inside the kernels: hanging nodes on adaptively refined,
// distributed meshes, periodicity, vector-valued elements, inhomogeneous Dirichlet values by
// the documented recipe, and the constraints gpumf rejects. Random inputs (constrained entries
// included), dim 2 and 3, FE_Q degrees 1 to 6, atomics and coloring, with and without
// overlap of communication and computation.
//
//   constraints_test host   host backend vs deal.II's CPU MatrixFree (operator and its diagonal,
//                           MatrixFreeTools::compute_diagonal) with the same constraints,
//                           and vs an assembled SparseMatrix: relative max difference <= 1e-12
//   constraints_test cuda   CUDA vs host: <= 500 ulps relative; coloring bitwise reproducible
//                           and equal with and without overlap; skipped (exit 77) without a GPU
//   constraints_test <backend> <max degree>   adaptive meshes up to that degree (compute-sanitizer)
#include <gpumf/operators.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/solver_cg.h>

#include <array>
#include <set>

#include "common/dealii_reference.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  const double host_tolerance = 1e-12;
  const double cuda_tolerance = 500 * std::numeric_limits<double>::epsilon();

  /// The L-shaped domain refined globally, then twice more near the re-entrant corner:
  /// hanging nodes on faces and (3D) edges, cells spread over the MPI ranks.
  template <int dim>
  void
  make_adaptive_mesh(parallel::distributed::Triangulation<dim> &tria)
  {
    test::make_mesh<dim>(tria,
                         test::Domain::l_shape,
                         dim == 2 ? 2 : 1,
                         {[](const Point<dim> &p) { return p.norm() < 0.6; },
                          [](const Point<dim> &p) { return p.norm() < 0.3; }});
  }

  /// Hanging-node constraints, plus zero Dirichlet values on the whole boundary unless @p dirichlet is null.
  template <int dim>
  void
  make_constraints(const Mapping<dim>        &mapping,
                   const DoFHandler<dim>     &dof,
                   AffineConstraints<double> &constraints,
                   const Function<dim>       *dirichlet)
  {
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    constraints.clear();
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    if (dirichlet)
      VectorTools::interpolate_boundary_values(mapping, dof, 0, *dirichlet, constraints);
    constraints.close();
  }

  /// Number of constrained DoFs with entries (hanging or periodic), over all ranks.
  unsigned int
  n_constrained_to_others(const AffineConstraints<double> &constraints, const IndexSet &owned, const MPI_Comm comm)
  {
    unsigned int n = 0;
    for (const auto &line : constraints.get_lines())
      n += owned.is_element(line.index) && !line.entries.empty();
    return Utilities::MPI::sum(n, comm);
  }

  /// True when no two cells of a color touch the same vector entry, through a DoF or its constraint.
  template <int dim, typename MF>
  bool
  colors_disjoint(const MF &mf, const AffineConstraints<double> &constraints)
  {
    bool                                 disjoint = true;
    std::vector<types::global_dof_index> indices;
    for (const auto &color : mf.get_colored_graph())
      {
        std::set<types::global_dof_index> seen;
        for (const auto &cell : color)
          {
            indices.resize(cell->get_fe().n_dofs_per_cell());
            cell->get_dof_indices(indices);
            std::set<types::global_dof_index> touched;
            for (const auto g : indices)
              if (!constraints.is_constrained(g))
                touched.insert(g);
              else
                for (const auto &entry : *constraints.get_constraint_entries(g))
                  touched.insert(entry.first);
            for (const auto g : touched)
              disjoint = seen.insert(g).second && disjoint;
          }
      }
    return disjoint;
  }

  /// An operator of type Op on the given setup, with the Helmholtz coefficient of the tests.
  template <typename Op, int dim>
  std::unique_ptr<Op>
  make_operator(const Mapping<dim>              &mapping,
                const DoFHandler<dim>           &dof,
                const AffineConstraints<double> &constraints,
                const gpumf::Backend             backend,
                const bool                       coloring,
                const gpumf::Implementation      implementation,
                const bool                       overlap      = false,
                const bool                       hanging_rows = false)
  {
    typename Op::AdditionalData data;
    if (hanging_rows)
      data.hanging_nodes = decltype(data.hanging_nodes)::constraint_rows;
    data.backend                           = backend;
    data.use_coloring                      = coloring;
    data.implementation                    = implementation;
    data.overlap_communication_computation = overlap;
    auto op                                = std::make_unique<Op>();
    op->reinit(mapping, dof, constraints, QGauss<1>(dof.get_fe().degree + 1), data);
    op->set_value_coefficient(test::ValueCoefficient<dim>());
    return op;
  }

  template <typename Op>
  LinearAlgebra::ReadWriteVector<double>
  apply(const Op &op)
  {
    gpumf::Vector<double> src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    test::fill_random(src);
    op.vmult(dst, src);
    return test::to_rw(dst);
  }

  /// test::check_vmult_and_dot() of @p op on a random vector.
  template <typename Op>
  void
  check_vmult_and_dot(test::Checker &checker, const Op &op, const std::string &what)
  {
    gpumf::Vector<double> src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    test::fill_random(src);
    op.vmult(dst, src);
    test::check_vmult_and_dot(checker, op, src, dst, what);
  }

  template <typename Op>
  LinearAlgebra::ReadWriteVector<double>
  diagonal(Op &op)
  {
    op.compute_diagonal();
    return test::to_rw(op.get_matrix_diagonal()->get_vector());
  }

  std::string
  variant(const bool coloring, const gpumf::Implementation implementation, const bool overlap = false)
  {
    return std::string(implementation == gpumf::Implementation::local_matrix ? "element matrices" : "tensor product") +
           (coloring ? ", coloring" : ", atomics") + (overlap ? ", overlap" : "");
  }

  /// The scalar Helmholtz operator on the adaptive mesh: every variant against deal.II (host) or the host (cuda).
  template <int dim, int degree>
  void
  check_adaptive(test::Checker &checker, const gpumf::Backend backend)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    make_adaptive_mesh(tria);
    const MappingQ<dim> mapping(2);
    FE_Q<dim>           fe(degree);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double>          constraints;
    const Functions::ZeroFunction<dim> zero;
    make_constraints(mapping, dof, constraints, &zero);
    const std::string name =
      std::to_string(dim) + "d degree " + std::to_string(degree) + " adaptive (" + std::to_string(dof.n_dofs()) +
      " DoFs, " + std::to_string(n_constrained_to_others(constraints, dof.locally_owned_dofs(), comm)) + " hanging)";
    // element matrices and diagonals (n applications per cell on the naive host) where cheap
    const bool small = dim == 2 || degree <= 3;
    using Op         = gpumf::HelmholtzOperator<dim, degree, degree + 1>;
    using I          = gpumf::Implementation;
    std::vector<I> implementations{I::tensor_product};
    if (small)
      implementations.push_back(I::local_matrix);

    const auto host_op = make_operator<Op>(mapping, dof, constraints, gpumf::Backend::host, false, I::tensor_product);
    const auto host_result   = apply(*host_op);
    const auto host_diagonal = small ? diagonal(*host_op) : LinearAlgebra::ReadWriteVector<double>();

    // hanging nodes: by interpolation (the default) on every cell with a hanging face or edge,
    // the same operator as through the constraint lines
    const auto hanging_cells = [&](const Op &op) {
      const auto [interpolated, through_rows] = op.matrix_free().n_hanging_node_cells();
      return std::array<unsigned int, 2>{Utilities::MPI::sum(interpolated, comm),
                                         Utilities::MPI::sum(through_rows, comm)};
    };
    {
      const auto rows  = make_operator<Op>(mapping, dof, constraints, backend, true, I::tensor_product, false, true);
      const auto cells = hanging_cells(*host_op), row_cells = hanging_cells(*rows);
      checker.check(cells[0] > 0 && cells[1] == 0 && row_cells[0] == 0 && row_cells[1] == cells[0],
                    name + ": " + std::to_string(cells[0]) + " cells interpolate their hanging nodes (" +
                      std::to_string(cells[1]) + " through the lines; with HangingNodes::constraint_rows " +
                      std::to_string(row_cells[0]) + " and " + std::to_string(row_cells[1]) + ")");
      checker.check_below(test::relative_difference(apply(*rows), host_result, comm),
                          backend == gpumf::Backend::host ? host_tolerance : cuda_tolerance,
                          name + ", " + gpumf::to_string(backend) +
                            " coloring, hanging nodes through the constraint lines vs interpolated (host)");
      check_vmult_and_dot(checker,
                          *rows,
                          name + ", " + gpumf::to_string(backend) +
                            " coloring, hanging nodes through the constraint lines");
      check_vmult_and_dot(checker,
                          *make_operator<Op>(mapping, dof, constraints, backend, false, I::tensor_product, false, true),
                          name + ", " + gpumf::to_string(backend) +
                            " atomics, hanging nodes through the constraint lines");
      if (degree == 2)
        {
          // lines that are not the element's interpolation: each such cell keeps its lines
          AffineConstraints<double> no_hanging;
          IndexSet                  relevant;
          DoFTools::extract_locally_relevant_dofs(dof, relevant);
          no_hanging.reinit(relevant);
          VectorTools::interpolate_boundary_values(mapping, dof, 0, zero, no_hanging);
          no_hanging.close();
          const auto plain = make_operator<Op>(mapping, dof, no_hanging, backend, false, I::tensor_product);
          const auto plain_rows =
            make_operator<Op>(mapping, dof, no_hanging, backend, false, I::tensor_product, false, true);
          const auto plain_cells = hanging_cells(*plain);
          checker.check(plain_cells[0] == 0 && plain_cells[1] == cells[0],
                        name + ", constraints without hanging-node lines: all " + std::to_string(plain_cells[1]) +
                          " cells with hanging faces keep the lines");
          checker.check_below(test::relative_difference(apply(*plain), apply(*plain_rows), comm),
                              backend == gpumf::Backend::host ? host_tolerance : cuda_tolerance,
                              name + ", constraints without hanging-node lines: the same operator either way");
        }
    }

    if (backend == gpumf::Backend::host)
      {
        test::DealiiHelmholtzOperator<dim> reference;
        reference.reinit(mapping, dof, constraints, degree + 1);
        LinearAlgebra::distributed::Vector<double> ref_src, ref_dst, ref_diagonal;
        reference.initialize_dof_vector(ref_src);
        reference.initialize_dof_vector(ref_dst);
        test::fill_random(ref_src);
        reference.vmult(ref_dst, ref_src);
        const auto expected = test::to_rw(ref_dst);
        if (small)
          reference.compute_diagonal(ref_diagonal);
        for (const auto implementation : implementations)
          for (const bool coloring : {false, true})
            {
              const auto        op   = make_operator<Op>(mapping, dof, constraints, backend, coloring, implementation);
              const std::string what = name + ", host " + variant(coloring, implementation);
              checker.check_below(test::relative_difference(apply(*op), expected, comm),
                                  host_tolerance,
                                  what + " vs deal.II CPU MatrixFree");
              if (coloring && implementation == I::tensor_product)
                checker.check(Utilities::MPI::min(int(colors_disjoint<dim>(op->matrix_free(), constraints)), comm) == 1,
                              what + ": " + std::to_string(op->matrix_free().n_colors()) +
                                " colors, no vector entry touched twice within a color");
              if (small)
                checker.check_below(test::relative_difference(diagonal(*op), test::to_rw(ref_diagonal), comm),
                                    host_tolerance,
                                    what + ": diagonal vs deal.II compute_diagonal");
            }
        const auto overlapped = make_operator<Op>(mapping, dof, constraints, backend, true, I::tensor_product, true);
        const auto colored    = make_operator<Op>(mapping, dof, constraints, backend, true, I::tensor_product);
        const auto result     = apply(*colored);
        checker.check(test::bitwise_equal(apply(*overlapped), result, comm),
                      name + ", host tensor product, coloring: overlap bitwise equal to no overlap");
        for (const auto method : test::exchange_methods(backend, comm))
          checker.check(test::bitwise_equal(test::with_exchange(gpumf::to_string(method),
                                                                [&] { return apply(*overlapped); }),
                                            result,
                                            comm),
                        name + ", host tensor product, coloring, overlap, GPUMF_EXCHANGE=" + gpumf::to_string(method) +
                          ": bitwise equal");
        return;
      }

    for (const auto implementation : implementations)
      for (const bool coloring : {true, false})
        {
          const auto        op     = make_operator<Op>(mapping, dof, constraints, backend, coloring, implementation);
          const std::string what   = name + ", cuda " + variant(coloring, implementation);
          const auto        result = apply(*op);
          checker.check_below(test::relative_difference(result, host_result, comm), cuda_tolerance, what + " vs host");
          check_vmult_and_dot(checker, *op, what);
          if (small)
            checker.check_below(test::relative_difference(diagonal(*op), host_diagonal, comm),
                                cuda_tolerance,
                                what + ": diagonal vs host");
          if (!coloring)
            continue;
          checker.check(test::bitwise_equal(apply(*op), result, comm), what + ": second application bitwise identical");
          if (implementation == I::tensor_product)
            {
              const auto overlapped = make_operator<Op>(mapping, dof, constraints, backend, true, implementation, true);
              checker.check(test::bitwise_equal(apply(*overlapped), result, comm),
                            what + ": overlap bitwise equal to no overlap");
              for (const auto method : test::exchange_methods(backend, comm))
                checker.check(test::bitwise_equal(test::with_exchange(gpumf::to_string(method),
                                                                      [&] { return apply(*overlapped); }),
                                                  result,
                                                  comm),
                              what + ", overlap, GPUMF_EXCHANGE=" + gpumf::to_string(method) + ": bitwise equal");
            }
        }
  }

  template <int dim, int degree>
  void
  check_degrees(test::Checker &checker, const gpumf::Backend backend, const int max_degree)
  {
    if (degree > max_degree)
      return;
    check_adaptive<dim, degree>(checker, backend);
    if constexpr (degree < 6)
      check_degrees<dim, degree + 1>(checker, backend, max_degree);
  }

  /// FESystem(FE_Q(2), n_components) with hanging nodes: against the assembled, condensed matrix
  /// (one rank) and the element-matrix implementation (any ranks) on the host; against the host
  /// on CUDA. (3D, 3 components: the ready kernel's scratch holds one buffer of the hanging-node
  /// sweeps, which then take a barrier more.)
  template <int dim, int n_components>
  void
  check_vector_valued(test::Checker &checker, const gpumf::Backend backend)
  {
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    make_adaptive_mesh(tria);
    const MappingQ<dim> mapping(2);
    FESystem<dim>       fe(FE_Q<dim>(2), n_components);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double>          constraints;
    const Functions::ZeroFunction<dim> zero(n_components);
    make_constraints(mapping, dof, constraints, &zero);
    using Op               = gpumf::HelmholtzOperator<dim, 2, 3, n_components>;
    using I                = gpumf::Implementation;
    const std::string name = std::to_string(dim) + "d FESystem(FE_Q(2), " + std::to_string(n_components) +
                             ") adaptive (" + std::to_string(dof.n_dofs()) + " DoFs)";
    const auto host_result =
      apply(*make_operator<Op>(mapping, dof, constraints, gpumf::Backend::host, false, I::tensor_product));
    if (backend == gpumf::Backend::host)
      {
        const auto lm = apply(*make_operator<Op>(mapping, dof, constraints, backend, true, I::local_matrix));
        checker.check_below(test::relative_difference(host_result, lm, comm),
                            host_tolerance,
                            name + ", host tensor product vs element matrices (coloring)");
        if (Utilities::MPI::n_mpi_processes(comm) == 1)
          {
            test::AssembledOperator<dim>           assembled;
            const test::ValueCoefficient<dim>      a;
            const Functions::ConstantFunction<dim> kappa(1.);
            assembled.assemble(mapping, dof, constraints, QGauss<1>(3), &a, &kappa);
            Vector<double> src(dof.n_dofs()), dst(dof.n_dofs());
            for (unsigned int i = 0; i < src.size(); ++i)
              src(i) = test::random_value(i);
            assembled.vmult(dst, src);
            LinearAlgebra::ReadWriteVector<double> expected(dof.locally_owned_dofs());
            for (unsigned int i = 0; i < dst.size(); ++i)
              expected(i) = dst(i);
            checker.check_below(test::relative_difference(host_result, expected, comm),
                                host_tolerance,
                                name + ", host tensor product vs assembled condensed SparseMatrix");
          }
        return;
      }
    for (const bool coloring : {true, false})
      for (const auto implementation : {I::tensor_product, I::local_matrix})
        {
          const auto op = make_operator<Op>(mapping, dof, constraints, backend, coloring, implementation);
          checker.check_below(test::relative_difference(apply(*op), host_result, comm),
                              cuda_tolerance,
                              name + ", cuda " + variant(coloring, implementation) + " vs host");
          check_vmult_and_dot(checker, *op, name + ", cuda " + variant(coloring, implementation));
        }
  }

  /// Periodic in x (with hanging nodes across the periodic boundary), Dirichlet in y.
  void
  check_periodic(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int                             dim = 2, degree = 3;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    GridGenerator::hyper_cube(tria, 0., 1., true);
    std::vector<GridTools::PeriodicFacePair<typename parallel::distributed::Triangulation<dim>::cell_iterator>> pairs;
    GridTools::collect_periodic_faces(tria, 0, 1, 0, pairs);
    tria.add_periodicity(pairs);
    tria.refine_global(3);
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() && cell->center()[0] < 0.2 && cell->center()[1] < 0.5)
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
    const MappingQ<dim> mapping(1);
    FE_Q<dim>           fe(degree);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    DoFTools::make_periodicity_constraints(dof, 0, 1, 0, constraints);
    for (const types::boundary_id id : {2, 3})
      VectorTools::interpolate_boundary_values(mapping, dof, id, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    using Op               = gpumf::HelmholtzOperator<dim, degree, degree + 1>;
    using I                = gpumf::Implementation;
    const std::string name = "2d degree 3 periodic + hanging (" + std::to_string(dof.n_dofs()) + " DoFs, " +
                             std::to_string(n_constrained_to_others(constraints, dof.locally_owned_dofs(), comm)) +
                             " constrained to others)";
    const auto host_result =
      apply(*make_operator<Op>(mapping, dof, constraints, gpumf::Backend::host, false, I::tensor_product));
    if (backend == gpumf::Backend::host)
      {
        test::DealiiHelmholtzOperator<dim> reference;
        reference.reinit(mapping, dof, constraints, degree + 1);
        LinearAlgebra::distributed::Vector<double> ref_src, ref_dst;
        reference.initialize_dof_vector(ref_src);
        reference.initialize_dof_vector(ref_dst);
        test::fill_random(ref_src);
        reference.vmult(ref_dst, ref_src);
        checker.check_below(test::relative_difference(host_result, test::to_rw(ref_dst), comm),
                            host_tolerance,
                            name + ", host vs deal.II CPU MatrixFree");
        return;
      }
    for (const bool coloring : {true, false})
      checker.check_below(test::relative_difference(
                            apply(*make_operator<Op>(mapping, dof, constraints, backend, coloring, I::tensor_product)),
                            host_result,
                            comm),
                          cuda_tolerance,
                          name + ", cuda " + variant(coloring, I::tensor_product) + " vs host");
  }

  /// u = 1 + x + 2y lies in the FE space on any mesh: the recipe of doc/first-operator.md for inhomogeneous
  /// Dirichlet values reproduces it to solver accuracy, hanging nodes included.
  void
  check_inhomogeneous(test::Checker &checker, const gpumf::Backend backend)
  {
    constexpr int                             dim = 2, degree = 2;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    make_adaptive_mesh(tria);
    const MappingQ<dim> mapping(2);
    FE_Q<dim>           fe(degree);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    class Linear : public Function<dim>
    {
    public:
      double
      value(const Point<dim> &p, const unsigned int = 0) const override
      {
        return 1. + p[0] + 2. * p[1];
      }
    } exact;
    AffineConstraints<double> constraints, hanging;
    make_constraints(mapping, dof, constraints, &exact);
    make_constraints<dim>(mapping, dof, hanging, nullptr);
    using Op = gpumf::LaplaceOperator<dim, degree>;
    typename Op::AdditionalData data;
    data.backend = backend;
    Op op, op_free;
    op.reinit(mapping, dof, constraints, QGauss<1>(degree + 1), data);
    op_free.reinit(mapping, dof, hanging, QGauss<1>(degree + 1), data);

    // u0: the Dirichlet values (and the hanging values they imply), zero elsewhere
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    LinearAlgebra::distributed::Vector<double> host(dof.locally_owned_dofs(), relevant, comm);
    constraints.distribute(host);
    gpumf::Vector<double> u0, rhs, x;
    op.initialize_dof_vector(u0);
    op.initialize_dof_vector(rhs);
    op.initialize_dof_vector(x);
    u0.import(test::to_rw(host), VectorOperation::insert);
    // rhs = f - A u0 (f = 0), zero in the constrained rows; solve A x = rhs; u = u0 + x
    op_free.vmult(rhs, u0);
    rhs *= -1.;
    op.matrix_free().set_constrained_values(0., rhs);
    op.compute_diagonal();
    SolverControl                   control(1000, 1e-13 * rhs.l2_norm());
    SolverCG<gpumf::Vector<double>> cg(control);
    cg.solve(op, x, rhs, *op.get_matrix_diagonal_inverse());
    x += u0;
    LinearAlgebra::ReadWriteVector<double> owned = test::to_rw(x);
    for (const auto i : dof.locally_owned_dofs())
      host(i) = owned(i);
    host.update_ghost_values();
    constraints.distribute(host);
    LinearAlgebra::distributed::Vector<double> interpolated(dof.locally_owned_dofs(), relevant, comm);
    VectorTools::interpolate(mapping, dof, exact, interpolated);
    interpolated -= host;
    checker.check_below(interpolated.linfty_norm(),
                        1e-9,
                        "2d degree 2 adaptive, inhomogeneous Dirichlet recipe, " + gpumf::to_string(backend) + ", " +
                          std::to_string(control.last_step()) + " CG iterations: max error vs exact solution");
  }

  /// What reinit() rejects, with the message naming the kind.
  void
  check_rejections(test::Checker &checker)
  {
    constexpr int                             dim  = 2;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    test::make_mesh(tria, test::Domain::unit_cube, 3);
    FE_Q<dim>       fe(2);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    const auto throws = [&](const AffineConstraints<double> &constraints, const std::string &expected) {
      gpumf::MatrixFree<dim, double>                 mf;
      gpumf::MatrixFree<dim, double>::AdditionalData data;
      data.backend = gpumf::Backend::host;
      try
        {
          mf.reinit(dof, constraints, QGauss<1>(3), data);
        }
      catch (const std::exception &e)
        {
          return std::string(e.what()).find(expected) != std::string::npos;
        }
      return false;
    };
    {
      // a mean-value constraint: DoF 0 = -(sum of all others)
      AffineConstraints<double> constraints(relevant);
      if (relevant.is_element(0))
        {
          constraints.add_line(0);
          for (types::global_dof_index i = 1; i < dof.n_dofs(); ++i)
            constraints.add_entry(0, i, -1.);
        }
      constraints.close();
      checker.check(throws(constraints, "mean-value"), "rejects a mean-value constraint, naming it");
    }
    {
      // a chain that close() would resolve
      AffineConstraints<double> constraints(relevant);
      for (const types::global_dof_index i : {0, 1})
        if (relevant.is_element(i))
          {
            constraints.add_line(i);
            constraints.add_entry(i, i + 1, 0.5);
          }
      checker.check(throws(constraints, "close()"), "rejects unclosed constraints");
    }
    {
      IndexSet first(dof.n_dofs()), some = relevant;
      first.add_index(*relevant.begin());
      some.subtract_set(first);
      AffineConstraints<double> constraints(some);
      constraints.close();
      checker.check(throws(constraints, "locally relevant"), "rejects constraints without the lines of relevant DoFs");
    }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    if (backend == gpumf::Backend::host)
      check_rejections(checker);
    check_inhomogeneous(checker, backend);
    check_periodic(checker, backend);
    check_vector_valued<2, 2>(checker, backend);
    check_vector_valued<3, 3>(checker, backend);
    const int max_degree = argc > 2 ? std::atoi(argv[2]) : 6;
    check_degrees<2, 1>(checker, backend, max_degree);
    check_degrees<3, 1>(checker, backend, max_degree);
  });
}
