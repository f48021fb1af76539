// Face integrals of continuous elements through MatrixFree::loop() and FEFaceEvaluation: cell,
// inner-face and boundary-face terms of FE_Q and FESystem(FE_Q) against deal.II's CPU
// MatrixFree::loop with the same forms (tests/common/dealii_face_reference.cc), on random
// vectors. Meshes with hanging faces (2D and 3D), curved (a shell with MappingQ(3)), non-affine
// (a distorted cube); constraints with Dirichlet and hanging-node lines; coloring and atomics;
// each functor alone; the loop's diagonal (cell and boundary functors) against the operator on
// unit vectors; what the ghost exchange brings for each DataAccessOnFaces; misuse messages.
//
//   faces_continuous_test host   host backend vs deal.II: relative max difference <= 1e-11 (double)
//   faces_continuous_test cuda   CUDA backend vs deal.II, the same bounds; skipped without a GPU
#include <gpumf/fe_evaluation.h>
#include <gpumf/fe_face_evaluation.h>
#include <gpumf/matrix_free.h>
#include <gpumf/operators.h>
#include <gpumf/vector_tools.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/numerics/vector_tools.h>

#include "common/dealii_face_reference.h"
#include "common/test_utils.h"

using namespace dealii;

namespace
{
  using test::FaceTerms;
  constexpr auto values_and_gradients = gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients;

  template <int dim, int degree, int nc, typename Number>
  struct Sizes
  {
    static constexpr unsigned int n_dofs_1d    = degree + 1;
    static constexpr unsigned int n_local_dofs = nc * gpumf::internal::ipow(degree + 1, dim);
    static constexpr unsigned int n_q_points   = gpumf::internal::ipow(degree + 2, dim);
    static constexpr unsigned int n_components = nc;
    using Data                                 = typename gpumf::MatrixFree<dim, Number>::Data;
    using Shared                               = gpumf::SharedData<dim, Number>;
    using Face                                 = gpumf::FEFaceEvaluation<dim, degree, degree + 2, nc, Number>;
    using Cell                                 = gpumf::FEEvaluation<dim, degree, degree + 2, nc, Number>;
  };

  template <int dim, int degree, int nc, typename Number>
  struct CellTerm : Sizes<dim, degree, nc, Number>
  {
    using S = Sizes<dim, degree, nc, Number>;
    __host__ __device__ void
    operator()(const unsigned int      cell,
               const typename S::Data *data,
               typename S::Shared     *shared,
               const Number           *src,
               Number                 *dst) const
    {
      typename S::Cell phi(cell, data, shared);
      phi.read_dof_values(src);
      phi.evaluate(values_and_gradients);
      phi.apply_for_each_quad_point([](typename S::Cell *p, const unsigned int q) {
        p->submit_gradient(p->get_gradient(q), q);
        p->submit_value(Number(FaceTerms::cell_mass) * p->get_value(q), q);
      });
      phi.integrate(values_and_gradients);
      phi.distribute_local_to_global(dst);
    }
  };

  template <int dim, int degree, int nc, typename Number>
  struct InnerTerm : Sizes<dim, degree, nc, Number>
  {
    using S                                        = Sizes<dim, degree, nc, Number>;
    static constexpr unsigned int n_fe_evaluations = 2;
    __host__ __device__ void
    operator()(const unsigned int      face,
               const typename S::Data *data,
               typename S::Shared     *shared,
               const Number           *src,
               Number                 *dst) const
    {
      typename S::Face phi_m(face, data, shared, true), phi_p(face, data, shared, false);
      phi_m.gather_evaluate(src, values_and_gradients);
      phi_p.gather_evaluate(src, values_and_gradients);
      phi_m.apply_for_each_quad_point([&](typename S::Face *, const unsigned int q) {
        const auto jump_u = phi_m.get_value(q) - phi_p.get_value(q);
        const auto jump_d = phi_m.get_normal_derivative(q) - phi_p.get_normal_derivative(q);
        const auto t      = Number(FaceTerms::sigma) * jump_u + Number(FaceTerms::a) * jump_d;
        const auto s      = Number(FaceTerms::b) * jump_d + Number(FaceTerms::c) * jump_u;
        phi_m.submit_value(t, q);
        phi_p.submit_value(-t, q);
        phi_m.submit_normal_derivative(s, q);
        phi_p.submit_normal_derivative(-s, q);
      });
      phi_m.integrate_scatter(values_and_gradients, dst);
      phi_p.integrate_scatter(values_and_gradients, dst);
    }
  };

  template <int dim, int degree, int nc, typename Number>
  struct BoundaryTerm : Sizes<dim, degree, nc, Number>
  {
    using S = Sizes<dim, degree, nc, Number>;
    __host__ __device__ void
    operator()(const unsigned int      face,
               const typename S::Data *data,
               typename S::Shared     *shared,
               const Number           *src,
               Number                 *dst) const
    {
      typename S::Face phi(face, data, shared, true);
      phi.gather_evaluate(src, values_and_gradients);
      const unsigned int id = phi.boundary_id();
      phi.apply_for_each_quad_point([&](typename S::Face *p, const unsigned int q) {
        // (both read before either submit: a submit overwrites what get_value() reads, as in deal.II)
        const auto   u     = p->get_value(q);
        const auto   d     = p->get_normal_derivative(q);
        const Number alpha = FaceTerms::alpha<Number>(p->quadrature_point(q)[0], id);
        p->submit_value(alpha * u + Number(FaceTerms::e) * d, q);
        p->submit_normal_derivative(Number(FaceTerms::f) * u, q);
      });
      phi.integrate_scatter(values_and_gradients, dst);
    }
  };

  /// max |v - expected| / max |expected| over the owned entries of all ranks.
  template <typename Number>
  double
  difference(const gpumf::Vector<Number> &v, const LinearAlgebra::ReadWriteVector<double> &expected)
  {
    const LinearAlgebra::ReadWriteVector<Number> rw = test::to_rw(v);
    LinearAlgebra::ReadWriteVector<double>       as_double(rw.get_stored_elements());
    for (const auto i : rw.get_stored_elements())
      as_double(i) = rw(i);
    return test::relative_difference(as_double, expected, MPI_COMM_WORLD);
  }

  enum class Mesh
  {
    column,    // colorized ids 0 .. 2 dim - 1, Dirichlet on id 0
    shell,     // MappingQ(3), ids 0 (inner, Dirichlet) and 1
    distorted, // non-affine cells, id 0 everywhere, no Dirichlet
  };

  std::string
  name(const Mesh mesh)
  {
    return mesh == Mesh::column ? "column" : mesh == Mesh::shell ? "shell" : "distorted cube";
  }

  template <int dim>
  struct Setup
  {
    std::unique_ptr<Triangulation<dim>> tria;
    std::unique_ptr<Mapping<dim>>       mapping;
    std::unique_ptr<DoFHandler<dim>>    dof;
    AffineConstraints<double>           constraints;
  };

  /// The mesh refined once everywhere and twice where @p hanging asks (hanging faces), the
  /// element FE_Q(degree)^nc, constraints: hanging nodes and zero Dirichlet on id 0 (column, shell).
  template <int dim>
  Setup<dim>
  make_setup(const Mesh         mesh,
             const unsigned int degree,
             const unsigned int nc,
             const bool         hanging,
             const bool         serial = false)
  {
    Setup<dim> s;
    if (serial) // (p4est balances across vertices: so does this one)
      s.tria = std::make_unique<Triangulation<dim>>(Triangulation<dim>::limit_level_difference_at_vertices);
    else
      s.tria = std::make_unique<parallel::distributed::Triangulation<dim>>(MPI_COMM_WORLD);
    const test::Domain                  domain = mesh == Mesh::column ? test::Domain::column :
                                                 mesh == Mesh::shell  ? test::Domain::shell :
                                                                        test::Domain::distorted_cube;
    std::vector<test::RefineWhere<dim>> refinements;
    if (hanging)
      refinements.push_back([](const Point<dim> &p) { return p[0] + 0.3 * p[dim - 1] < 0.45; });
    test::make_mesh(*s.tria, domain, mesh == Mesh::distorted ? 0 : 1, refinements);
    s.mapping = std::make_unique<MappingQ<dim>>(mesh == Mesh::shell ? 3 : 1);
    s.dof     = std::make_unique<DoFHandler<dim>>(*s.tria);
    if (nc == 1)
      s.dof->distribute_dofs(FE_Q<dim>(degree));
    else
      s.dof->distribute_dofs(FESystem<dim>(FE_Q<dim>(degree), nc));
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(*s.dof, relevant);
    s.constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(*s.dof, s.constraints);
    if (mesh != Mesh::distorted)
      VectorTools::interpolate_boundary_values(*s.mapping, *s.dof, 0, Functions::ZeroFunction<dim>(nc), s.constraints);
    s.constraints.close();
    return s;
  }

  template <int dim, typename Number>
  typename gpumf::MatrixFree<dim, Number>::AdditionalData
  face_data(const gpumf::Backend backend, const bool coloring)
  {
    typename gpumf::MatrixFree<dim, Number>::AdditionalData additional_data;
    additional_data.backend                          = backend;
    additional_data.use_coloring                     = coloring;
    additional_data.mapping_update_flags             = update_values | update_gradients | update_JxW_values;
    additional_data.mapping_update_flags_inner_faces = update_values | update_gradients | update_normal_vectors;
    additional_data.mapping_update_flags_boundary_faces =
      update_values | update_gradients | update_normal_vectors | update_quadrature_points;
    return additional_data;
  }

  template <int dim, int degree, int nc, typename Number = double>
  void
  check(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh, const bool hanging, const bool coloring)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    Setup<dim>     s    = make_setup<dim>(mesh, degree, nc, hanging);
    using MF            = gpumf::MatrixFree<dim, Number>;
    AffineConstraints<Number> constraints;
    constraints.copy_from(s.constraints);
    MF mf;
    mf.reinit(*s.mapping, *s.dof, constraints, QGauss<1>(degree + 2), face_data<dim, Number>(backend, coloring));

    gpumf::Vector<Number> src, dst, again;
    mf.initialize_dof_vector(src);
    mf.initialize_dof_vector(dst);
    mf.initialize_dof_vector(again);
    test::fill_random(src, 5);
    const double      bound = std::is_same_v<Number, double> ? 1e-11 : 2e-5;
    const std::string what  = std::to_string(dim) + "D " + name(mesh) + (hanging ? " with hanging faces" : "") +
                             ", FE_Q(" + std::to_string(degree) + ")" + (nc > 1 ? "^" + std::to_string(nc) : "") +
                             (coloring ? ", colored" : ", atomics") + (std::is_same_v<Number, float> ? ", float" : "") +
                             ", " + std::to_string(s.tria->n_global_active_cells()) + " cells, " +
                             std::to_string(mf.n_faces()) + " faces on rank 0";
    const CellTerm<dim, degree, nc, Number>     cell_term;
    const InnerTerm<dim, degree, nc, Number>    inner_term;
    const BoundaryTerm<dim, degree, nc, Number> boundary_term;
    using Access = typename MF::DataAccessOnFaces;

    // all three functors, and each alone
    mf.loop(cell_term, inner_term, boundary_term, dst, src, true, Access::gradients, Access::gradients);
    const auto expected =
      test::dealii_face_loop<dim>(*s.mapping, *s.dof, s.constraints, degree + 2, test::FaceLoopParts{}, 5);
    const double all = difference(dst, expected);
    mf.loop(cell_term, inner_term, boundary_term, again, src, true, Access::gradients, Access::gradients);
    const bool repeatable = test::bitwise_equal(test::to_rw(dst), test::to_rw(again), comm);
    // deal.II's distributed loop, DoF by DoF, on one rank; on several ranks the check by
    // support point below is the reference (deal.II's own distributed loop of a continuous
    // element disagrees with it at rank borders: with hanging faces its constraints lack ghost
    // cells' lines, which deal.II makes from the coarse side; without, from three ranks on)
    const bool direct = Utilities::MPI::n_mpi_processes(comm) == 1;
    checker.check((all <= bound || !direct) && (repeatable || !coloring),
                  what +
                    (direct ? ": cell, inner and boundary terms vs deal.II's loop " + test::sci(all) +
                                " <= " + test::sci(bound) :
                              ": cell, inner and boundary terms") +
                    (coloring ? (repeatable ? ", bitwise the same twice" : ", NOT bitwise the same twice") : ""));

    // All ranks against deal.II on the whole mesh (a serial Triangulation on each rank, every
    // constraint line at hand), matched by support point and component: on several ranks with
    // hanging faces deal.II's own distributed loop reads ghost cells whose hanging-node lines
    // its constraints lack (deal.II makes them from the coarse side, which may be invisible),
    // while gpumf takes each ghost cell's lines from its owner.
    {
      const auto smooth = [](const Point<dim> &p, const unsigned int c) {
        return std::sin(3. * p[0] + 1.3 * c) * std::cos(2. * p[1] - 0.4) + (dim == 3 ? 0.7 * p[dim - 1] * p[0] : 0.);
      };
      const auto key = [](const Point<dim> &p, const unsigned int c) {
        std::array<long long, dim + 1> k;
        for (unsigned int d = 0; d < dim; ++d)
          k[d] = std::llround(p[d] * 1e8);
        k[dim] = c;
        return k;
      };
      const auto support = [](const Mapping<dim> &mapping, const DoFHandler<dim> &dof) {
        std::map<types::global_dof_index, Point<dim>> points;
        DoFTools::map_dofs_to_support_points(mapping, dof, points);
        std::map<types::global_dof_index, std::pair<Point<dim>, unsigned int>> result;
        std::vector<types::global_dof_index>                                   indices(dof.get_fe().n_dofs_per_cell());
        for (const auto &cell : dof.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              cell->get_dof_indices(indices);
              for (unsigned int i = 0; i < indices.size(); ++i)
                result[indices[i]] = {points.at(indices[i]), dof.get_fe().system_to_component_index(i).first};
            }
        return result;
      };
      Setup<dim> serial = make_setup<dim>(mesh, degree, nc, hanging, true);
      const auto expected_serial =
        test::dealii_face_loop<dim>(*serial.mapping, *serial.dof, serial.constraints, degree + 2, {}, 0, smooth);
      std::map<std::array<long long, dim + 1>, double> by_point;
      // (a hanging vertex of FE_Q(2) and up lies where the coarse edge's DoF lies: the
      // constrained DoFs, zero in both results, are left out)
      for (const auto &[i, at] : support(*serial.mapping, *serial.dof))
        if (!serial.constraints.is_constrained(i))
          by_point[key(at.first, at.second)] = expected_serial(i);
      const auto                             here = support(*s.mapping, *s.dof);
      LinearAlgebra::ReadWriteVector<Number> src_rw(src.locally_owned_elements());
      for (const auto i : src_rw.get_stored_elements())
        src_rw(i) = smooth(here.at(i).first, here.at(i).second);
      gpumf::internal::import_elements(src, src_rw, VectorOperation::insert);
      mf.loop(cell_term, inner_term, boundary_term, dst, src, true, Access::gradients, Access::gradients);
      const auto result = test::to_rw(dst);
      double     diff = 0, scale = 0;
      unsigned   missing = 0;
      for (const auto i : result.get_stored_elements())
        {
          if (s.constraints.is_constrained(i))
            continue;
          const auto found = by_point.find(key(here.at(i).first, here.at(i).second));
          if (found == by_point.end())
            {
              ++missing;
              continue;
            }
          diff  = test::max_or_inf(diff, std::abs(result(i) - found->second));
          scale = std::max(scale, std::abs(found->second));
        }
      diff    = Utilities::MPI::max(diff, comm);
      scale   = Utilities::MPI::max(scale, comm);
      missing = Utilities::MPI::sum(missing, comm);
      checker.check(missing == 0 && diff <= bound * scale,
                    what + ": all terms vs deal.II's loop on the whole mesh on one rank, by support point " +
                      test::sci(diff / scale) + " <= " + test::sci(bound) +
                      (missing > 0 ? ", " + std::to_string(missing) + " DoFs without a match" : ""));
      test::fill_random(src, 5);
    }

    mf.loop(nullptr, inner_term, nullptr, dst, src, true, Access::gradients, Access::gradients);
    const auto inner_ref =
      test::dealii_face_loop<dim>(*s.mapping, *s.dof, s.constraints, degree + 2, {false, true, false}, 5);
    const double inner = difference(dst, inner_ref);
    mf.loop(nullptr, nullptr, boundary_term, dst, src, true, Access::values, Access::values);
    const double boundary =
      difference(dst,
                 test::dealii_face_loop<dim>(*s.mapping, *s.dof, s.constraints, degree + 2, {false, false, true}, 5));
    checker.check((inner <= bound || !direct) && boundary <= bound,
                  what + ": " + (direct ? "inner terms alone " + test::sci(inner) + ", " : std::string()) +
                    "boundary terms alone (DataAccessOnFaces::values) " + test::sci(boundary) +
                    " <= " + test::sci(bound) + " vs deal.II's loop");
  }

  /// The diagonal of the cell and boundary terms (loop_diagonal()) against the operator applied
  /// to each unit vector, on the unconstrained DoFs; and the exchange each access brings.
  template <int dim, int degree>
  void
  check_diagonal(test::Checker &checker, const gpumf::Backend backend, const bool coloring)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    Setup<dim>     s    = make_setup<dim>(Mesh::column, degree, 1, true);
    using MF            = gpumf::MatrixFree<dim, double>;
    MF mf;
    mf.reinit(*s.mapping, *s.dof, s.constraints, QGauss<1>(degree + 2), face_data<dim, double>(backend, coloring));
    gpumf::Vector<double> diagonal, unit, column;
    mf.initialize_dof_vector(diagonal);
    mf.initialize_dof_vector(unit);
    mf.initialize_dof_vector(column);
    const CellTerm<dim, degree, 1, double>     cell_term;
    const BoundaryTerm<dim, degree, 1, double> boundary_term;
    mf.loop_diagonal(cell_term, nullptr, boundary_term, diagonal);
    const auto  computed = test::to_rw(diagonal);
    double      diff = 0, scale = 0;
    const auto &owned = s.dof->locally_owned_dofs();
    for (types::global_dof_index i = 0; i < s.dof->n_dofs(); ++i)
      {
        LinearAlgebra::ReadWriteVector<double> rw(owned);
        if (owned.is_element(i))
          rw(i) = 1.;
        gpumf::internal::import_elements(unit, rw, VectorOperation::insert);
        mf.loop(cell_term, nullptr, boundary_term, column, unit, true);
        const auto result = test::to_rw(column);
        if (owned.is_element(i) && !s.constraints.is_constrained(i))
          {
            diff  = std::max(diff, std::abs(computed(i) - result(i)));
            scale = std::max(scale, std::abs(result(i)));
          }
      }
    diff  = Utilities::MPI::max(diff, comm);
    scale = Utilities::MPI::max(scale, comm);
    checker.check_below(diff / scale,
                        1e-12,
                        std::to_string(dim) + "D column with hanging faces, FE_Q(" + std::to_string(degree) + ")" +
                          (coloring ? ", colored" : ", atomics") +
                          ": loop_diagonal() of cell and boundary terms vs the operator on unit vectors");

    // the exchange: none brings the cells' own ghost entries, gradients the most
    const unsigned int none      = mf.n_exchanged_ghost_entries(MF::DataAccessOnFaces::none),
                       values    = mf.n_exchanged_ghost_entries(MF::DataAccessOnFaces::values),
                       gradients = mf.n_exchanged_ghost_entries(MF::DataAccessOnFaces::gradients),
                       all       = mf.get_vector_partitioner()->n_ghost_indices();
    const bool ordered           = none <= values && values <= gradients && gradients <= all &&
                         (Utilities::MPI::n_mpi_processes(comm) == 1 || Utilities::MPI::max(none, comm) > 0);
    checker.check(Utilities::MPI::min(int(ordered), comm) == 1,
                  "ghost entries exchanged on rank 0: none " + std::to_string(none) + ", values " +
                    std::to_string(values) + ", gradients " + std::to_string(gradients) + " of " + std::to_string(all));

    // misuse: the diagonal of inner face terms of a continuous element
    const InnerTerm<dim, degree, 1, double> inner_term;
    const std::string message = test::exception_of([&] { mf.loop_diagonal(cell_term, inner_term, nullptr, diagonal); });
    checker.check(message.find("couples the two sides of a shared DoF") != std::string::npos,
                  "loop_diagonal() with an inner face functor of FE_Q refused: " + message.substr(0, 120));
  }
  /// beta(x) = FaceTerms::alpha(x, id) as a deal.II Function.
  template <int dim>
  class Alpha : public Function<dim>
  {
  public:
    explicit Alpha(const unsigned int id)
      : id(id)
    {}
    double
    value(const Point<dim> &p, const unsigned int = 0) const override
    {
      return FaceTerms::alpha<double>(p[0], id);
    }

  private:
    const unsigned int id;
  };

  /// g(x) = FaceTerms::alpha(x, 0) as a device functor.
  template <int dim, typename Number>
  struct NeumannData
  {
    __host__ __device__ Number
    value(const Point<dim, Number> &p) const
    {
      return FaceTerms::alpha<Number>(p[0], 0);
    }
  };

  /**
   * HelmholtzOperator with a Robin term on some boundary ids (set by a Function, by values per
   * face point), its diagonal, and create_boundary_right_hand_side(), against deal.II's CPU loop.
   */
  template <int dim, int degree>
  void
  check_robin(test::Checker &checker, const gpumf::Backend backend, const Mesh mesh, const bool coloring)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    Setup<dim>     s    = make_setup<dim>(mesh, degree, 1, true);
    using Operator      = gpumf::HelmholtzOperator<dim, degree, degree + 2>;
    const std::set<types::boundary_id> robin_ids =
      mesh == Mesh::shell ? std::set<types::boundary_id>{1} : std::set<types::boundary_id>{1, 2, 3};
    unsigned int mask = 0;
    for (const auto id : robin_ids)
      mask |= 1u << id;
    Operator op;
    auto     additional_data = face_data<dim, double>(backend, coloring);
    op.reinit(*s.mapping, *s.dof, s.constraints, QGauss<1>(degree + 2), additional_data);
    for (const auto id : robin_ids)
      op.set_boundary_coefficient(id, Alpha<dim>(id));
    gpumf::Vector<double> src, dst;
    op.initialize_dof_vector(src);
    op.initialize_dof_vector(dst);
    test::fill_random(src, 7);
    op.vmult(dst, src);
    const std::string what = std::to_string(dim) + "D " + name(mesh) + " with hanging faces, FE_Q(" +
                             std::to_string(degree) + ")" + (coloring ? ", colored" : ", atomics");
    const double bound = 1e-11;
    const double robin =
      difference(dst, test::dealii_robin_helmholtz<dim>(*s.mapping, *s.dof, s.constraints, degree + 2, mask, 7));

    // the same beta given per face point: bitwise the same operator
    const gpumf::MatrixFree<dim, double> &mf     = op.matrix_free();
    const std::vector<Point<dim>>         points = mf.get_face_quadrature_points();
    const std::vector<types::boundary_id> ids    = mf.get_face_boundary_ids();
    std::vector<double>                   beta(points.size());
    for (std::size_t i = 0; i < points.size(); ++i)
      beta[i] =
        ids[i / mf.n_face_points()] < 32 ? FaceTerms::alpha<double>(points[i][0], ids[i / mf.n_face_points()]) : 0.;
    Operator by_points;
    by_points.reinit(*s.mapping, *s.dof, s.constraints, QGauss<1>(degree + 2), additional_data);
    by_points.set_boundary_coefficient(beta, robin_ids);
    gpumf::Vector<double> again;
    op.initialize_dof_vector(again);
    by_points.vmult(again, src);
    const bool   same              = !coloring || test::bitwise_equal(test::to_rw(dst), test::to_rw(again), comm);
    const double points_difference = test::relative_difference(test::to_rw(again), test::to_rw(dst), comm);
    checker.check(robin <= bound && same && points_difference <= bound,
                  what + ": HelmholtzOperator with a Robin term vs deal.II's loop " + test::sci(robin) +
                    " <= " + test::sci(bound) + ", beta per face point vs by Function " + test::sci(points_difference) +
                    (coloring ? (same ? " (bitwise)" : " (NOT bitwise)") : ""));

    // the exact diagonal against the operator on unit vectors
    op.compute_diagonal();
    const auto            diagonal = test::to_rw(op.get_matrix_diagonal()->get_vector());
    const IndexSet       &owned    = s.dof->locally_owned_dofs();
    double                diff = 0, scale = 0;
    gpumf::Vector<double> unit;
    op.initialize_dof_vector(unit);
    for (types::global_dof_index i = 0; i < s.dof->n_dofs(); ++i)
      {
        LinearAlgebra::ReadWriteVector<double> rw(owned);
        if (owned.is_element(i))
          rw(i) = 1.;
        gpumf::internal::import_elements(unit, rw, VectorOperation::insert);
        op.vmult(dst, unit);
        if (owned.is_element(i) && !s.constraints.is_constrained(i))
          {
            const auto column = test::to_rw(dst);
            diff              = std::max(diff, std::abs(column(i) - diagonal(i)));
            scale             = std::max(scale, std::abs(column(i)));
          }
      }
    diff  = Utilities::MPI::max(diff, comm);
    scale = Utilities::MPI::max(scale, comm);
    checker.check_below(diff / scale,
                        1e-12,
                        what + ": compute_diagonal() with the Robin term vs the operator on unit vectors");

    // Neumann data: the boundary load vector of a device functor and of a Function
    gpumf::Vector<double> rhs, rhs_function;
    gpumf::VectorTools::create_boundary_right_hand_side<degree, degree + 2>(mf,
                                                                            NeumannData<dim, double>(),
                                                                            rhs,
                                                                            robin_ids);
    gpumf::VectorTools::create_boundary_right_hand_side<degree, degree + 2>(mf, Alpha<dim>(0), rhs_function, robin_ids);
    const auto   expected = test::dealii_boundary_rhs<dim>(*s.mapping, *s.dof, s.constraints, degree + 2, mask);
    const double functor  = difference(rhs, expected);
    const double function = difference(rhs_function, expected);
    checker.check(functor <= bound && function <= bound,
                  what + ": create_boundary_right_hand_side() vs deal.II's loop, device functor " + test::sci(functor) +
                    ", deal.II Function " + test::sci(function) + " <= " + test::sci(bound));
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [](test::Checker &checker, const gpumf::Backend backend) {
    check<2, 2, 1>(checker, backend, Mesh::column, true, true);
    check<2, 1, 2>(checker, backend, Mesh::column, true, true);
    check<3, 2, 1>(checker, backend, Mesh::column, true, true);
    check<3, 3, 1>(checker, backend, Mesh::distorted, true, false);
    check<3, 2, 1>(checker, backend, Mesh::shell, false, true);
#ifndef __CUDACC__
    // (host builds only: nvcc's time for each instantiation counts in the README's test command;
    // the GPU's curved and float face paths are those dg_test runs)
    check<2, 3, 1>(checker, backend, Mesh::shell, true, false);
    check<3, 2, 1, float>(checker, backend, Mesh::column, true, true);
#endif
    check_robin<2, 2>(checker, backend, Mesh::column, true);
    check_robin<3, 2>(checker, backend, Mesh::shell, false);
    check_diagonal<2, 2>(checker, backend, true);
    check_diagonal<3, 1>(checker, backend, false);
  });
}
