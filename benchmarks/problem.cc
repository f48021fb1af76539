// Meshes of the benchmark and the small shared helpers of benchmark.h.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
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
  cpu_key(const int dim, const Form form, const unsigned int degree, const std::string &mesh, const double size,
          const std::string &what, const bool assembled)
  {
    return std::to_string(dim) + " " + to_string(form) + " " + std::to_string(degree) + " " + mesh + " " +
           fmt(size) + " " + (what == "vmult" || what == "sweep" ? what : "cg") + (assembled ? " csr" : "");
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
  Problem<dim>::reinit(const std::string &mesh_kind, const unsigned int degree, const double target_dofs,
                       const MPI_Comm comm)
  {
    AssertThrow(mesh_kind == "cartesian" || mesh_kind == "deformed",
                ExcMessage("--mesh takes cartesian or deformed, got " + mesh_kind));
    Timer timer;
    mesh = mesh_kind;
    AssertThrow(!tria, ExcMessage("a bench::Problem is set up once"));
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      tria = std::make_unique<parallel::distributed::Triangulation<dim>>(comm);
    else
      tria = std::make_unique<Triangulation<dim>>();
    // n^(dim-1) m cubes with (n p + 1)^(dim-1) (m p + 1) ~ target DoFs: a coarse box of at
    // most 16 cells per direction, refined globally (large coarse meshes set up slowly)
    const double n = std::max(1., std::round((std::pow(target_dofs, 1. / dim) - 1) / degree));
    const double m = std::max(1., std::round((target_dofs / std::pow(n * degree + 1., dim - 1) - 1) / degree));
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

  template struct Problem<2>;
  template struct Problem<3>;

  double
  median_seconds_all_ranks(const MPI_Comm comm, const unsigned int repeat, const std::function<void()> &f)
  {
    return median_seconds(gpumf::Backend::host, repeat, [&]() {
      f();
      MPI_Barrier(comm);
    });
  }
} // namespace bench
