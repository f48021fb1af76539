// gpumf::VectorTools::integrate_difference() (gpumf/vector_tools.h) against deal.II's
// VectorTools::integrate_difference() + compute_global_error() with the same mapping and
// quadrature, on random vectors whose constrained DoFs (Dirichlet, hanging nodes) hold random
// values of their own: read_dof_values_plain() must read them as deal.II does. L2, H1 seminorm,
// H1 norm and Linfty; the global value and the value of every cell; a scalar FE_Q and an
// FESystem of two; curved (MappingQ(3) on a shell) and adaptively refined meshes. And
// create_right_hand_side() against deal.II's FEValues assembly with the same constraints, and
// distribute_constraints() against AffineConstraints::distribute() (homogeneous and with Dirichlet
// values, on a random vector and from zero; constraints with other lines refused). The exact
// solution and the load both as device functors and as deal.II Functions (tabulated on the
// host); the error of one component (a ComponentMask) against deal.II's weight.
//
//   vector_tools_test host   host backend vs deal.II: relative 1e-12
//   vector_tools_test cuda   CUDA vs deal.II: relative 1e-12; skipped without a GPU
#include <gpumf/vector_tools.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/filtered_iterator.h>
#include <deal.II/numerics/vector_tools.h>

#include "common/test_utils.h"

using namespace dealii;

namespace
{
  /// u(x) = sin(x0) * (1 + x1) + x_{dim-1}^2 (component c: times (1 + c)), and its gradient.
  template <int dim>
  struct Exact
  {
    __host__ __device__ double
    value(const Point<dim, double> &p, const unsigned int c = 0) const
    {
      return (1 + c) * (sin(p[0]) * (1 + p[1]) + p[dim - 1] * p[dim - 1]);
    }

    __host__ __device__ Tensor<1, dim, double>
                        gradient(const Point<dim, double> &p, const unsigned int c = 0) const
    {
      Tensor<1, dim, double> g;
      g[0] = cos(p[0]) * (1 + p[1]);
      g[1] = sin(p[0]);
      g[dim - 1] += 2 * p[dim - 1];
      return g * double(1 + c);
    }
  };

  /// The same, for deal.II's integrate_difference().
  template <int dim>
  class ExactFunction : public Function<dim>
  {
  public:
    ExactFunction(const unsigned int n_components)
      : Function<dim>(n_components)
    {}

    double
    value(const Point<dim> &p, const unsigned int c = 0) const override
    {
      return Exact<dim>().value(p, c);
    }

    Tensor<1, dim>
    gradient(const Point<dim> &p, const unsigned int c = 0) const override
    {
      return Exact<dim>().gradient(p, c);
    }
  };

  /// Only a value (no gradient): the L2 and Linfty norms work, the H1 norms are refused.
  template <int dim>
  struct ValueOnly
  {
    __host__ __device__ double
    value(const Point<dim, double> &p) const
    {
      return p[0];
    }
  };

  const char *
  name_of(const gpumf::VectorTools::NormType norm)
  {
    switch (norm)
      {
        case gpumf::VectorTools::L2_norm:
          return "L2";
        case gpumf::VectorTools::H1_seminorm:
          return "H1 seminorm";
        case gpumf::VectorTools::H1_norm:
          return "H1";
        default:
          return "Linfty";
      }
  }

  VectorTools::NormType
  dealii_norm(const gpumf::VectorTools::NormType norm)
  {
    switch (norm)
      {
        case gpumf::VectorTools::L2_norm:
          return VectorTools::L2_norm;
        case gpumf::VectorTools::H1_seminorm:
          return VectorTools::H1_seminorm;
        case gpumf::VectorTools::H1_norm:
          return VectorTools::H1_norm;
        default:
          return VectorTools::Linfty_norm;
      }
  }

  template <int dim, int fe_degree, int n_components>
  void
  check_case(test::Checker &checker, const gpumf::Backend backend, const bool curved)
  {
    constexpr int                             n_q  = fe_degree + 2;
    const MPI_Comm                            comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<dim> tria(comm);
    if (curved)
      test::make_mesh(tria, test::Domain::shell, 1);
    else
      test::make_mesh(tria, test::Domain::l_shape, dim == 2 ? 2 : 1, {[](const Point<dim> &p) {
                        return p.norm() < 0.5;
                      }});
    const MappingQ<dim> mapping(curved ? 3 : 1);
    const FE_Q<dim>     fe_q(fe_degree);
    FESystem<dim>       fe(fe_q, n_components);
    DoFHandler<dim>     dof(tria);
    dof.distribute_dofs(fe);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof, constraints);
    VectorTools::interpolate_boundary_values(mapping, dof, 0, Functions::ZeroFunction<dim>(n_components), constraints);
    constraints.close();
    const std::string name =
      std::to_string(dim) + "d degree " + std::to_string(fe_degree) + " x" + std::to_string(n_components) +
      (curved ? " shell MappingQ(3)" : " L-shape, hanging nodes") + " (" + std::to_string(dof.n_dofs()) + " DoFs)";

    typename gpumf::MatrixFree<dim, double>::AdditionalData data;
    data.backend = backend;
    gpumf::MatrixFree<dim, double> mf;
    mf.reinit(mapping, dof, constraints, QGauss<1>(n_q), data);

    // u: near the exact solution plus random noise, on every DoF (constrained ones included)
    LinearAlgebra::distributed::Vector<double> reference(dof.locally_owned_dofs(), relevant, comm);
    VectorTools::interpolate(mapping, dof, ExactFunction<dim>(n_components), reference);
    for (const auto i : dof.locally_owned_dofs())
      reference(i) += 0.1 * test::random_value(i, 5);
    reference.update_ghost_values();
    gpumf::Vector<double> u;
    mf.initialize_dof_vector(u);
    LinearAlgebra::ReadWriteVector<double> owned(dof.locally_owned_dofs());
    for (const auto i : dof.locally_owned_dofs())
      owned(i) = reference(i);
    u.import_elements(owned, VectorOperation::insert);

    unsigned int n_constrained = 0;
    for (const auto i : dof.locally_owned_dofs())
      n_constrained += constraints.is_constrained(i);
    checker.check(Utilities::MPI::sum(n_constrained, comm) > 0, name + ": has constrained DoFs");

    // distribute_constraints() vs AffineConstraints::distribute() (zero Dirichlet values: homogeneous)
    {
      LinearAlgebra::distributed::Vector<double> distributed(reference);
      distributed.zero_out_ghost_values();
      constraints.distribute(distributed);
      gpumf::Vector<double> v;
      mf.initialize_dof_vector(v);
      v.import_elements(reference, VectorOperation::insert);
      gpumf::VectorTools::distribute_constraints(mf, constraints, v);
      checker.check_below(test::relative_difference(test::to_rw(v), test::to_rw(distributed), comm),
                          1e-14,
                          name + ": distribute_constraints vs AffineConstraints::distribute");
    }
    // the same lines with nonzero Dirichlet values (the exact solution on the boundary): on the
    // random vector, and from zero (the lift of the inhomogeneous recipe)
    {
      AffineConstraints<double> inhomogeneous(relevant);
      DoFTools::make_hanging_node_constraints(dof, inhomogeneous);
      VectorTools::interpolate_boundary_values(mapping, dof, 0, ExactFunction<dim>(n_components), inhomogeneous);
      inhomogeneous.close();
      bool has_values = false;
      for (const auto &line : inhomogeneous.get_lines())
        has_values |= line.inhomogeneity != 0.;
      checker.check(Utilities::MPI::logical_or(has_values, comm), name + ": has inhomogeneities");
      for (const std::string variant : {"", " from zero (the lift)", " on a vector with ghost values"})
        {
          const bool                                 from_zero = variant == " from zero (the lift)";
          LinearAlgebra::distributed::Vector<double> distributed(reference);
          distributed.zero_out_ghost_values();
          if (from_zero)
            distributed = 0.;
          inhomogeneous.distribute(distributed);
          gpumf::Vector<double> v;
          mf.initialize_dof_vector(v);
          if (!from_zero)
            v.import_elements(reference, VectorOperation::insert);
          const bool with_ghosts = variant == " on a vector with ghost values";
          if (with_ghosts)
            v.update_ghost_values();
          gpumf::VectorTools::distribute_constraints(mf, inhomogeneous, v);
          checker.check_below(test::relative_difference(test::to_rw(v), test::to_rw(distributed), comm),
                              1e-14,
                              name + ": distribute_constraints with Dirichlet values" + variant +
                                " vs AffineConstraints::distribute");
          if (with_ghosts)
            {
              // the ghost entries (constrained ones included) as deal.II's after update_ghost_values()
              distributed.update_ghost_values();
              const gpumf::Vector<double> &read      = v;
              double                       deviation = 0;
              for (const auto g : v.get_partitioner()->ghost_indices())
                deviation =
                  test::max_or_inf(deviation, std::abs(read(g) - distributed(g)) / (1. + std::abs(distributed(g))));
              checker.check(v.has_ghost_elements(), name + ": a vector with ghost values keeps them");
              checker.check_below(Utilities::MPI::max(deviation, comm),
                                  1e-14,
                                  name + ": its ghost entries after distribute_constraints with Dirichlet values");
            }
        }
    }

    // the load vector of the exact solution as f: deal.II's FEValues assembly with the constraints
    {
      LinearAlgebra::distributed::Vector<double> rhs_dealii(dof.locally_owned_dofs(), relevant, comm);
      FEValues<dim>                              fe_values(mapping,
                              fe,
                              QGauss<dim>(n_q),
                              update_values | update_quadrature_points | update_JxW_values);
      Vector<double>                             cell_rhs(fe.n_dofs_per_cell());
      std::vector<types::global_dof_index>       indices(fe.n_dofs_per_cell());
      const ExactFunction<dim>                   f(n_components);
      for (const auto &cell : dof.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            fe_values.reinit(cell);
            cell_rhs = 0;
            for (const unsigned int q : fe_values.quadrature_point_indices())
              for (const unsigned int i : fe_values.dof_indices())
                cell_rhs(i) += fe_values.shape_value(i, q) *
                               f.value(fe_values.quadrature_point(q), fe.system_to_component_index(i).first) *
                               fe_values.JxW(q);
            cell->get_dof_indices(indices);
            constraints.distribute_local_to_global(cell_rhs, indices, rhs_dealii);
          }
      rhs_dealii.compress(VectorOperation::add);
      gpumf::Vector<double> rhs; // no layout yet: create_right_hand_side() gives it mf's
      gpumf::VectorTools::create_right_hand_side<fe_degree, n_q, n_components>(mf, Exact<dim>(), rhs);
      checker.check_below(test::relative_difference(test::to_rw(rhs), test::to_rw(rhs_dealii), comm),
                          1e-12,
                          name + ": create_right_hand_side vs deal.II's assembly");
      gpumf::Vector<double> rhs_function;
      gpumf::VectorTools::create_right_hand_side<fe_degree, n_q, n_components>(mf, f, rhs_function);
      checker.check_below(test::relative_difference(test::to_rw(rhs_function), test::to_rw(rhs_dealii), comm),
                          1e-12,
                          name + ": create_right_hand_side of a deal.II Function vs deal.II's assembly");
    }

    for (const auto norm : {gpumf::VectorTools::L2_norm,
                            gpumf::VectorTools::H1_seminorm,
                            gpumf::VectorTools::H1_norm,
                            gpumf::VectorTools::Linfty_norm})
      {
        Vector<double> dealii_cells(tria.n_active_cells());
        VectorTools::integrate_difference(
          mapping, dof, reference, ExactFunction<dim>(n_components), dealii_cells, QGauss<dim>(n_q), dealii_norm(norm));
        const double dealii_global = VectorTools::compute_global_error(tria, dealii_cells, dealii_norm(norm));

        Vector<double> cells;
        const double   global =
          gpumf::VectorTools::integrate_difference<fe_degree, n_q, n_components>(mf, u, Exact<dim>(), norm, &cells);
        const std::string what = name + ", " + name_of(norm) + " norm";
        checker.check_below(std::abs(global - dealii_global) / dealii_global,
                            1e-12,
                            what + ": global value vs deal.II");
        // the exact solution as a deal.II Function (tabulated on the host at the points)
        const double from_function = gpumf::VectorTools::integrate_difference<fe_degree, n_q, n_components>(
          mf, u, ExactFunction<dim>(n_components), norm);
        checker.check_below(std::abs(from_function - dealii_global) / dealii_global,
                            1e-12,
                            what + ": with a deal.II Function, global value vs deal.II");
        double cell_difference = 0, largest = 0;
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned())
            {
              const unsigned int c = cell->active_cell_index();
              cell_difference      = test::max_or_inf(cell_difference, std::abs(cells[c] - dealii_cells[c]));
              largest              = std::max(largest, std::abs(dealii_cells[c]));
            }
        cell_difference = Utilities::MPI::max(cell_difference, comm);
        largest         = Utilities::MPI::max(largest, comm);
        checker.check_below(cell_difference / largest, 1e-12, what + ": per-cell values vs deal.II");
        // one component's error: a component mask, as deal.II's weight ComponentSelectFunction
        if constexpr (n_components > 1)
          {
            const ComponentSelectFunction<dim> last(n_components - 1, n_components);
            VectorTools::integrate_difference(mapping,
                                              dof,
                                              reference,
                                              ExactFunction<dim>(n_components),
                                              dealii_cells,
                                              QGauss<dim>(n_q),
                                              dealii_norm(norm),
                                              &last);
            const double      dealii_last = VectorTools::compute_global_error(tria, dealii_cells, dealii_norm(norm));
            std::vector<bool> mask(n_components, false);
            mask.back()       = true;
            const double only = gpumf::VectorTools::integrate_difference<fe_degree, n_q, n_components>(
              mf, u, Exact<dim>(), norm, ComponentMask(mask));
            checker.check_below(std::abs(only - dealii_last) / dealii_last,
                                1e-12,
                                what + ", the last component alone (a component mask): vs deal.II's weight");
            checker.check(std::abs(only - global) > 1e-3 * global || norm == gpumf::VectorTools::Linfty_norm,
                          what + ": the last component's error differs from all components'");
          }
        // the norm of u itself (against zero): as deal.II's, against ZeroFunction
        if (norm == gpumf::VectorTools::L2_norm && n_components == 1)
          {
            VectorTools::integrate_difference(mapping,
                                              dof,
                                              reference,
                                              Functions::ZeroFunction<dim>(n_components),
                                              dealii_cells,
                                              QGauss<dim>(n_q),
                                              VectorTools::L2_norm);
            const double zero_dealii = VectorTools::compute_global_error(tria, dealii_cells, VectorTools::L2_norm);
            const double zero        = gpumf::VectorTools::integrate_difference<fe_degree, n_q>(
              mf, u, gpumf::VectorTools::ZeroFunction<dim>(), gpumf::VectorTools::L2_norm);
            checker.check_below(std::abs(zero - zero_dealii) / zero_dealii,
                                1e-12,
                                name + ": L2 norm of u (ZeroFunction)");
          }
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  return test::run(argc, argv, [&](test::Checker &checker, const gpumf::Backend backend) {
    for (const bool curved : {false, true})
      {
        check_case<2, 3, 1>(checker, backend, curved);
        check_case<3, 2, 1>(checker, backend, curved);
      }
    check_case<2, 2, 2>(checker, backend, false);

    // refused: the H1 norms without a gradient; plain reading without plain indices
    parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    FE_Q<2>       fe(1);
    DoFHandler<2> dof(tria);
    dof.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    constraints.close();
    gpumf::MatrixFree<2, double>::AdditionalData data;
    data.backend = backend;
    gpumf::MatrixFree<2, double> mf;
    mf.reinit(MappingQ<2>(1), dof, constraints, QGauss<1>(2), data);
    gpumf::Vector<double> u;
    mf.initialize_dof_vector(u);
    u = 1.;
    const double l2 =
      gpumf::VectorTools::integrate_difference<1, 2>(mf, u, ValueOnly<2>(), gpumf::VectorTools::L2_norm);
    // int_[0,1]^2 (1 - x)^2 = 1/3
    checker.check_below(std::abs(l2 * l2 - 1. / 3.), 1e-14, "L2 norm of 1 - x on the unit square");
    std::string message = test::exception_of(
      [&] { gpumf::VectorTools::integrate_difference<1, 2>(mf, u, ValueOnly<2>(), gpumf::VectorTools::H1_norm); });
    checker.check(message.find("need the exact solution's gradient") != std::string::npos,
                  "the H1 norm without a gradient() throws: " + message);
    message = test::exception_of([&] {
      gpumf::VectorTools::integrate_difference<1, 2>(
        mf, u, ValueOnly<2>(), gpumf::VectorTools::L2_norm, ComponentMask(std::vector<bool>{true, false}));
    });
    checker.check(message.find("a component mask of 2 entries for an element of 1 components") != std::string::npos,
                  "a component mask of the wrong size throws");
    message = test::exception_of([&] {
      gpumf::VectorTools::integrate_difference<1, 2>(mf, u, ExactFunction<2>(2), gpumf::VectorTools::L2_norm);
    });
    checker.check(message.find("the deal.II Function has 2 components, the element 1") != std::string::npos,
                  "a deal.II Function of other components than the element's throws");
    {
      // a value for a DoF that the MatrixFree object does not have constrained: other lines, refused
      AffineConstraints<double> other_lines;
      other_lines.add_line(0);
      other_lines.set_inhomogeneity(0, 1.);
      other_lines.close();
      message = test::exception_of([&] { gpumf::VectorTools::distribute_constraints(mf, other_lines, u); });
      checker.check(message.find("differ at DoF 0") != std::string::npos,
                    "distribute_constraints() with constraints of other lines throws: " + message);
      // the same with a homogeneous line: the lines are compared, not only those with values
      AffineConstraints<double> other_homogeneous;
      other_homogeneous.add_line(0);
      other_homogeneous.close();
      message = test::exception_of([&] { gpumf::VectorTools::distribute_constraints(mf, other_homogeneous, u); });
      checker.check(message.find("differ at DoF 0") != std::string::npos,
                    "distribute_constraints() with a homogeneous line of its own throws: " + message);
    }
    {
      // Dirichlet values with an object on some of the cells (an iterator filter): refused, since
      // an owned constrained DoF may lie on none of its cells
      for (const auto &cell : tria.active_cell_iterators())
        cell->set_material_id(cell->center()[0] < 0.5 ? 1 : 0);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      AffineConstraints<double> boundary_values(relevant);
      VectorTools::interpolate_boundary_values(dof, 0, Functions::ConstantFunction<2>(1.), boundary_values);
      boundary_values.close();
      gpumf::MatrixFree<2, double> some_cells;
      some_cells.reinit(
        MappingQ<2>(1), dof, boundary_values, QGauss<1>(2), IteratorFilters::MaterialIdEqualTo(1), data);
      gpumf::Vector<double> v;
      some_cells.initialize_dof_vector(v);
      message = test::exception_of([&] { gpumf::VectorTools::distribute_constraints(some_cells, boundary_values, v); });
      checker.check(message.find("iterator filter") != std::string::npos,
                    "distribute_constraints() with Dirichlet values on a filtered object throws: " + message);
    }
    if (backend == gpumf::Backend::host)
      {
        data.store_plain_indices = false;
        mf.reinit(MappingQ<2>(1), dof, constraints, QGauss<1>(2), data);
        message = test::exception_of(
          [&] { gpumf::VectorTools::integrate_difference<1, 2>(mf, u, ValueOnly<2>(), gpumf::VectorTools::L2_norm); });
        checker.check(message.find("store_plain_indices = true") != std::string::npos,
                      "read_dof_values_plain() without plain indices throws: " + message);
      }
  });
}
