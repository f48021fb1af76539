// Meshes of the benchmark and the small shared helpers of benchmark.h.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "benchmark.h"
#include "deformed_mapping.h"

namespace bench
{
  using namespace dealii;

  std::string
  to_string(const Form form)
  {
    switch (form)
      {
        case Form::bp1:
          return "bp1";
        case Form::bp3:
          return "bp3";
        case Form::bp5:
          return "bp5";
        default:
          return "helmholtz";
      }
  }

  unsigned int
  n_q_points_1d(const Form form, const unsigned int degree)
  {
    return form == Form::bp5 ? degree + 1 : degree + 2;
  }

  std::vector<std::string>
  split(const std::string &s, const bool keep_empty)
  {
    std::vector<std::string> parts;
    std::stringstream        stream(s);
    std::string              part;
    while (std::getline(stream, part, ','))
      if (!part.empty() || keep_empty)
        parts.push_back(part);
    return parts;
  }

  std::vector<unsigned int>
  parse_degrees(const std::string &s)
  {
    std::vector<unsigned int> degrees;
    for (const auto &part : split(s))
      {
        const auto dash = part.find('-');
        if (dash == std::string::npos)
          degrees.push_back(std::stoul(part));
        else
          for (unsigned int p = std::stoul(part.substr(0, dash)); p <= std::stoul(part.substr(dash + 1)); ++p)
            degrees.push_back(p);
      }
    return degrees;
  }

  Form
  parse_form(const std::string &s)
  {
    for (const Form f : {Form::bp1, Form::bp3, Form::bp5, Form::helmholtz})
      if (to_string(f) == s)
        return f;
    throw std::invalid_argument("unknown form '" + s + "' (bp1, bp3, bp5, helmholtz)");
  }

  void
  check_choice(const std::string &option, const std::string &value, const std::vector<std::string> &allowed)
  {
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
      {
        std::string list;
        for (const auto &a : allowed)
          list += (list.empty() ? "" : ", ") + a;
        throw std::invalid_argument(option + " takes " + list + "; got '" + value + "'");
      }
  }

  std::map<std::string, std::string>
  parse_arguments(const int argc, const char *const *argv, const std::vector<std::string> &known)
  {
    std::map<std::string, std::string> args;
    for (int i = 1; i < argc; ++i)
      {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h")
          {
            args["help"] = "";
            continue;
          }
        if (a.rfind("--", 0) != 0 || i + 1 >= argc)
          throw std::invalid_argument("unexpected argument '" + a + "' (options take a value)");
        check_choice("options:", a.substr(2), known);
        args[a.substr(2)] = argv[++i];
      }
    return args;
  }

  std::vector<std::map<std::string, std::string>>
  read_csv(const std::string &file)
  {
    std::ifstream in(file);
    if (!in)
      throw std::runtime_error("cannot read " + file);
    std::string line;
    std::getline(in, line);
    const auto                                      header = split(line, true);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line))
      {
        const auto                         fields = split(line, true);
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < header.size() && c < fields.size(); ++c)
          row[header[c]] = fields[c];
        rows.push_back(std::move(row));
      }
    return rows;
  }

  std::string
  fmt(const double v, const int precision)
  {
    std::ostringstream s;
    s << std::setprecision(precision) << v;
    return s.str();
  }

  std::string
  cpu_key(const int          dim,
          const Form         form,
          const unsigned int degree,
          const std::string &mesh,
          const double       size,
          const std::string &what,
          const bool         assembled)
  {
    return std::to_string(dim) + " " + to_string(form) + " " + std::to_string(degree) + " " + mesh + " " + fmt(size) +
           " " + (what == "vmult" || what == "sweep" ? what : "cg") + (assembled ? " csr" : "");
  }

  Quadrature<1>
  quadrature(const Form form, const unsigned int degree)
  {
    if (form == Form::bp5)
      return QGaussLobatto<1>(degree + 1);
    return QGauss<1>(degree + 2);
  }

  template <int dim>
  void
  Problem<dim>::reinit(const std::string &mesh_kind,
                       const unsigned int degree,
                       const double       target_dofs,
                       const MPI_Comm     comm)
  {
    AssertThrow(std::find(meshes.begin(), meshes.end(), mesh_kind) != meshes.end(),
                ExcMessage("--mesh takes cartesian, deformed, cube-adaptive or shell-adaptive, got " + mesh_kind));
    Timer timer;
    mesh = mesh_kind;
    AssertThrow(!tria, ExcMessage("a bench::Problem is set up once"));
    // 2:1 at vertices on one rank as p4est balances on several, so that both refine alike
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      tria = std::make_unique<parallel::distributed::Triangulation<dim>>(comm);
    else
      tria = std::make_unique<Triangulation<dim>>(Triangulation<dim>::limit_level_difference_at_vertices);
    if (mesh == "cube-adaptive" || mesh == "shell-adaptive")
      {
        make_adaptive(degree, target_dofs);
        mesh_seconds = timer.wall_time();
        return;
      }
    // n^(dim-1) m cubes with (n p + 1)^(dim-1) (m p + 1) ~ target DoFs: a coarse box of at
    // most 16 cells per direction, refined globally (large coarse meshes set up slowly)
    const double       n = std::max(1., std::round((std::pow(target_dofs, 1. / dim) - 1) / degree));
    const double       m = std::max(1., std::round((target_dofs / std::pow(n * degree + 1., dim - 1) - 1) / degree));
    const unsigned int levels = n >= 16 ? unsigned(std::floor(std::log2(n / 8))) : 0;
    std::vector<unsigned int> repetitions(dim, std::max(1., std::round(n / (1u << levels))));
    repetitions[dim - 1] = std::max(1., std::round(m / (1u << levels)));
    Point<dim> corner;
    for (unsigned int d = 0; d < dim; ++d)
      corner[d] = double(repetitions[d]) / repetitions[0];
    GridGenerator::subdivided_hyper_rectangle(*tria, repetitions, Point<dim>(), corner);
    tria->refine_global(levels);
    dof_handler.reinit(*tria);
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
    if (mesh == "cartesian")
      mapping = std::make_unique<MappingQ1<dim>>();
    else
      mapping = deformed_mapping(*tria);
    constraints.clear();
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      constraints.reinit(relevant);
    }
    VectorTools::interpolate_boundary_values(*mapping, dof_handler, 0, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    mesh_seconds = timer.wall_time();
  }

  template <int dim>
  void
  Problem<dim>::make_adaptive(const unsigned int degree, const double target_dofs)
  {
    // A uniform mesh, then refined once in alternate slabs of three of its cells across x:
    // each slab's fine cells next to the coarse ones carry the hanging nodes, about 30 % of the
    // cells (2 fine layers with rows among 3 coarse and 6 fine layers per period, in 3D). A test
    // of each cell alone, so that one rank and several refine the same cells.
    const bool shell = mesh == "shell-adaptive";
    if (shell)
      GridGenerator::hyper_shell(*tria, Point<dim>(), 0.5, 1., dim == 3 ? 6 : 8);
    else
      GridGenerator::hyper_cube(*tria);
    const FE_Q<dim> fe(degree);
    dof_handler.reinit(*tria);
    dof_handler.distribute_dofs(fe);
    // after the slabs: about 1 + (2^dim - 1) / 2 times the cells of the uniform mesh
    const double growth = 1 + (Utilities::pow(2, dim) - 1) / 2.;
    unsigned int levels = 0;
    while (dof_handler.n_dofs() * Utilities::pow(2, dim) * growth < 1.4 * target_dofs)
      {
        tria->refine_global(1);
        dof_handler.distribute_dofs(fe);
        ++levels;
      }
    // three cells across x: the cube's cell size, or the shell's cells along the sphere |x| = 0.75
    // (its coarse cells span a quarter (3D) or an eighth (2D) of a great circle)
    const double cell_size = shell ? 0.75 * numbers::PI / (dim == 3 ? 2 : 4) : 1.;
    const double width     = 3 * cell_size / (1u << levels);
    for (const auto &cell : tria->active_cell_iterators())
      if (cell->is_locally_owned() && int(std::floor(cell->center()[0] / width)) % 2 == 0)
        cell->set_refine_flag();
    tria->execute_coarsening_and_refinement();
    dof_handler.distribute_dofs(fe);
    if (shell)
      mapping = std::make_unique<MappingQ<dim>>(degree);
    else
      mapping = std::make_unique<MappingQ1<dim>>();
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    constraints.clear();
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    for (const types::boundary_id id : tria->get_boundary_ids())
      VectorTools::interpolate_boundary_values(*mapping, dof_handler, id, Functions::ZeroFunction<dim>(), constraints);
    constraints.close();
    // the share of locally owned cells with a DoF constrained to others (a hanging node)
    std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
    unsigned int                         cells = 0, hanging = 0;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          cell->get_dof_indices(indices);
          ++cells;
          hanging += std::any_of(indices.begin(), indices.end(), [&](const types::global_dof_index i) {
            const auto *entries = constraints.get_constraint_entries(i);
            return entries != nullptr && !entries->empty();
          });
        }
    const MPI_Comm comm = dof_handler.get_communicator();
    hanging_share       = Utilities::MPI::sum(double(hanging), comm) / Utilities::MPI::sum(double(cells), comm);
  }

  template struct Problem<2>;
  template struct Problem<3>;
} // namespace bench
