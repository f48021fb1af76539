// gpumf_benchmark: throughput of gpumf's operators against the empirical roofline (a copy of
// the same byte count, measured in the same run) and against deal.II's CPU MatrixFree.
// Run with --help. doc/performance.md describes the model and the results.
#include <deal.II/base/mpi.h>
#include <deal.II/base/multithread_info.h>
#include <deal.II/base/utilities.h>

#include <deal.II/base/vectorization.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "benchmark.h"

namespace bench
{
  namespace
  {
    const char *usage = R"(gpumf_benchmark [options]: gpumf operators vs the copy roofline and deal.II's CPU MatrixFree

Every combination of the list options is run (cases that do not apply are reported skipped).
  --backend B            cuda or host (default: cuda when a GPU is usable, else host)
  --dim D                2 or 3 (default 3)
  --forms LIST           bp1,bp3,bp5,helmholtz (default bp5)
                         bp1: mass q=p+2, bp3: Laplace q=p+2, bp5: Laplace Gauss-Lobatto collocation,
                         helmholtz: mass + Laplace q=p+2
  --degrees LIST         e.g. 1-8 or 2,4,6 (default 4)
  --dofs LIST            approximate DoF counts, e.g. 1e4,1e6,2e7 (default 1e6)
  --mesh LIST            cartesian,deformed,cube-adaptive,shell-adaptive (default cartesian);
                         deformed: MappingQCache(3) of a smooth displacement, curved non-affine
                         cells; cube-adaptive: the unit cube refined once in alternate slabs
                         across x (affine cells of two sizes, ~30 % with hanging nodes);
                         shell-adaptive: the shell 0.5 < |x| < 1 likewise, MappingQ(degree)
                         (curved); column hanging_share: the share of cells with hanging nodes
  --implementations LIST tp,lm,csr: sum factorization, element matrices (the storage the operator
                         chooses: shared on the cartesian mesh), or the assembled sparse
                         matrix (deal.II assembles it on all host cores; gpumf::SparseMatrix applies it:
                         cuSPARSE CSR SpMV; its CPU comparison: a Trilinos matrix on the MPI ranks)
                         (default tp); lm-cell, lm-otf: gpumf::LocalMatrixOperator with matrices
                         stored per cell or computed on the fly, kernel chosen by the operator or
                         given: lm-cell-thread, -warp, -block, lm-otf-thread, -warp, -block;
                         stencil-constant, stencil-semi, stencil-variable: FE_Q(1)'s
                         Laplacian (bp3, bp5 at degree 1, cartesian mesh) as gpumf::StencilOperator
                         with that storage (vmult) or gpumf::MultiColorGaussSeidel on it (sweep);
                         stencil-general: MultiColorGaussSeidel's ELL rows (sweep) and its stencil
                         product on them (vmult); csr and the stencils are measured once per form, degree,
                         mesh and what, with the first of --conflicts, --geometry, --cells-per-block
                         and --layouts
  --conflicts LIST       atomics,coloring,none (default atomics); none: no protection (wrong
                         results), the upper bound of the other two
  --geometry LIST        stored,affine (default stored): per quadrature point, or one Jacobian
                         per cell with JxW computed in the kernel (cartesian, cube-adaptive)
  --cells-per-block LIST 0 (automatic) or fixed counts, e.g. 0,1 (default 0)
  --layouts LIST         ready,points (default ready): the ready operator's kernel (3D: every 1D
                         contraction in registers, a column of points per thread) or FEEvaluation with a thread per point
                         up to n_q = 10 (user functors; the ready operators before their own kernel)
  --what LIST            vmult,cg,cg-fused,cg-fused-unfolded,sweep (default vmult): the operator
                         alone, deal.II's SolverCG with Jacobi on gpumf vectors, gpumf::SolverCG
                         (fused vector updates; p.Ap summed by the ready operators' cell kernel,
                         cg-fused-unfolded: in a pass of its own), one
                         forward Gauss-Seidel sweep (stencil implementations; the CPU comparison:
                         deal.II's TrilinosWrappers::PreconditionSOR, omega 1, on the MPI ranks)
  --numbers LIST         double,float (default double); float: the ready operator's vmult with
                         atomics or coloring, in 3D (no deal.II CPU comparison)
  --hanging-nodes LIST   interpolation,constraint_rows (default interpolation): how a cell on the
                         fine side of a hanging face reads its DoFs (MatrixFree::AdditionalData::
                         hanging_nodes; the adaptive meshes)
  --repeat N             timed runs per case after one warm-up, median reported (default 20;
                         CG: N/10 solves)
  --cg-iterations N      CG iterations per solve (default 50)
  --cpu-ranks N          MPI ranks of deal.II's CPU MatrixFree (default: all hardware threads; 0:
                         no MPI comparison): gpumf_benchmark first runs
                         `$GPUMF_MPIRUN -np N dealii_benchmark ...` (default GPUMF_MPIRUN=mpirun;
                         dealii_benchmark from gpumf_benchmark's directory) on the same problems
  --cpu-baselines LIST   width1,native: deal.II's CPU MatrixFree as Debian builds it
                         (dealii_benchmark, VectorizedArray<double> of width 1: the columns cpu_*)
                         and at full SIMD width (dealii_benchmark_native, AVX-512: cpu_native_*),
                         one job after the other on the same ranks; each job first measures the
                         host's copy roofline (cpu_copy_gb_per_s, cpu_native_copy_gb_per_s).
                         Default: width1, and native where dealii_benchmark_native is beside
                         gpumf_benchmark and the CPU has AVX-512
  --cpu-threads N        deal.II's CPU MatrixFree also in this process with N TBB threads
                         (default 0: off), the columns cpu_threads*
  --csv FILE             write the results as CSV (one row per case, written as they come)
  --json FILE            write the results as JSON at the end
  --help                 this text
)";

    std::string
    cpu_name()
    {
      std::ifstream info("/proc/cpuinfo");
      std::string   line;
      while (std::getline(info, line))
        if (line.rfind("model name", 0) == 0)
          return line.substr(line.find(':') + 2);
      return "unknown CPU";
    }

    /// The columns of the output, in order.
    const std::vector<std::string> columns{"device",
                                           "backend",
                                           "dim",
                                           "form",
                                           "degree",
                                           "n_q_1d",
                                           "mesh",
                                           "implementation",
                                           "conflict",
                                           "geometry",
                                           "cells_per_block",
                                           "layout",
                                           "what",
                                           "number",
                                           "hanging_nodes",
                                           "dofs",
                                           "cells",
                                           "colors",
                                           "seconds",
                                           "gdofs_per_s",
                                           "model_bytes",
                                           "gb_per_s",
                                           "copy_gb_per_s",
                                           "roofline_fraction",
                                           "gflop_per_s",
                                           "cg_iterations",
                                           "cpu_ranks",
                                           "cpu_simd_width",
                                           "cpu_seconds",
                                           "cpu_gdofs_per_s",
                                           "speedup_vs_cpu",
                                           "cpu_setup_seconds",
                                           "cpu_copy_gb_per_s",
                                           "cpu_roofline_fraction",
                                           "cpu_native_simd_width",
                                           "cpu_native_seconds",
                                           "cpu_native_gdofs_per_s",
                                           "speedup_vs_cpu_native",
                                           "cpu_native_copy_gb_per_s",
                                           "cpu_native_roofline_fraction",
                                           "cpu_threads",
                                           "cpu_threads_seconds",
                                           "speedup_vs_cpu_threads",
                                           "mesh_seconds",
                                           "hanging_share",
                                           "setup_seconds",
                                           "bytes_per_dof",
                                           "max_dofs",
                                           "note"};

    struct Output
    {
      std::ofstream                                   csv;
      std::string                                     json_file;
      std::vector<std::map<std::string, std::string>> rows;

      void
      add(std::map<std::string, std::string> row)
      {
        static bool header = false;
        const auto  line   = [&](const auto &value_of) {
          std::string s;
          for (const auto &c : columns)
            s += (s.empty() ? "" : ",") + value_of(c);
          return s;
        };
        if (csv.is_open())
          {
            if (!header)
              csv << line([](const std::string &c) { return c; }) << std::endl;
            header = true;
            csv << line([&](const std::string &c) { return row[c]; }) << std::endl;
          }
        rows.push_back(std::move(row));
      }

      void
      write_json() const
      {
        if (json_file.empty())
          return;
        std::ofstream json(json_file);
        json << "[\n";
        for (std::size_t r = 0; r < rows.size(); ++r)
          {
            json << "  {";
            bool first = true;
            for (const auto &c : columns)
              {
                const std::string &v      = rows[r].at(c);
                char              *end    = nullptr;
                const bool         number = !v.empty() && (std::strtod(v.c_str(), &end), *end == '\0');
                json << (first ? "" : ", ") << '"' << c << "\": " << (number ? v : '"' + v + '"');
                first = false;
              }
            json << (r + 1 < rows.size() ? "},\n" : "}\n");
          }
        json << "]\n";
      }
    };

    /// The path of the program @p name in gpumf_benchmark's directory.
    std::string
    sibling_program(const std::string &name)
    {
      char self[4096] = {};
      if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
        throw std::runtime_error("cannot find gpumf_benchmark's directory (/proc/self/exe)");
      const std::string path = self;
      return path.substr(0, path.rfind('/') + 1) + name;
    }

    /// Whether this CPU has AVX-512 (avx512f in /proc/cpuinfo): what dealii_benchmark_native needs.
    bool
    cpu_has_avx512()
    {
      std::ifstream info("/proc/cpuinfo");
      std::string   line;
      while (std::getline(info, line))
        if (line.rfind("flags", 0) == 0)
          return line.find(" avx512f") != std::string::npos;
      return false;
    }

    /// The MPI comparison: dealii_benchmark's rows by cpu_key().
    using CpuTable = std::map<std::string, std::map<std::string, std::string>>;

    /**
     * Runs `$GPUMF_MPIRUN -np @p ranks @p name` (dealii_benchmark or dealii_benchmark_native,
     * from gpumf_benchmark's directory) on the problems of @p args (before this process
     * initializes MPI, with the environment of an MPI job removed, so that the launcher starts a
     * job of its own) and returns its rows.
     */
    CpuTable
    run_cpu_comparison(const std::map<std::string, std::string> &args,
                       const unsigned int                        ranks,
                       const std::string                        &name)
    {
      const auto get = [&](const std::string &key, const std::string &fallback) {
        const auto it = args.find(key);
        return it == args.end() ? fallback : it->second;
      };
      std::vector<std::string> whats;
      for (const auto &w : split(get("what", "vmult")))
        {
          const std::string what = w == "vmult" || w == "sweep" ? w : "cg";
          if (std::find(whats.begin(), whats.end(), what) == whats.end())
            whats.push_back(what);
        }
      // deal.II's MatrixFree for the matrix-free implementations, Trilinos' matrix for csr
      std::string matrices;
      const auto  impls = split(get("implementations", "tp"));
      for (const auto &i : impls)
        if (i != "csr" && matrices.empty() && (whats.size() > 1 || whats[0] != "sweep"))
          matrices = "matrix-free";
      // deal.II's Gauss-Seidel sweeps an assembled matrix
      const bool assembled = std::find(impls.begin(), impls.end(), "csr") != impls.end() ||
                             std::find(whats.begin(), whats.end(), "sweep") != whats.end();
      // (deal.II's assembled baseline is Trilinos' Epetra matrix: not where deal.II's Trilinos has
      // none, as Debian's deal.II 9.8's; the rows then say so. Not at full SIMD width either: the
      // native build is of deal.II's MatrixFree, Trilinos' matrix is the library's own code)
      const bool native = name != "dealii_benchmark";
      if (assembled && GPUMF_DEAL_II_HAS_EPETRA && !native)
        matrices += matrices.empty() ? "csr" : ",csr";
      if (matrices.empty())
        return {};
      std::string degrees;
      for (const unsigned int p : parse_degrees(get("degrees", "4")))
        if (p <= GPUMF_BENCH_MAX_CPU_DEGREE || assembled)
          degrees += (degrees.empty() ? "" : ",") + std::to_string(p);
      if (degrees.empty())
        return {};
      std::string what_list;
      for (const auto &w : whats)
        what_list += (what_list.empty() ? "" : ",") + w;
      const std::string program = sibling_program(name);
      char              csv[]   = "/tmp/gpumf_benchmark_cpu_XXXXXX";
      const int         fd      = mkstemp(csv);
      if (fd < 0)
        throw std::runtime_error("cannot create a temporary file for the CPU comparison");
      close(fd);
      const char       *launcher = std::getenv("GPUMF_MPIRUN");
      const std::string command = std::string(launcher ? launcher : "mpirun") + " -np " + std::to_string(ranks) + " '" +
                                  program + "'" + " --dim " + get("dim", "3") + " --forms " + get("forms", "bp5") +
                                  " --degrees " + degrees + " --dofs " + get("dofs", "1e6") + " --mesh " +
                                  get("mesh", "cartesian") + " --what " + what_list + " --matrices " + matrices +
                                  " --repeat " + get("repeat", "20") + " --cg-iterations " +
                                  get("cg-iterations", "50") + " --csv " + csv;
      std::cout << "CPU comparison: " << command << std::endl;
      // the child must not see this process as part of an MPI job (an outer mpirun), but keeps
      // the user's settings of the launcher (OMPI_MCA_plm_rsh_agent, OMPI_ALLOW_RUN_AS_ROOT, ...)
      const auto set_by_mpirun = [](const std::string &v) {
        const auto starts = [&](const char *prefix) { return v.rfind(prefix, 0) == 0; };
        if (starts("PMIX_") || starts("PMI_"))
          return true;
        if (starts("OMPI_MCA_"))
          return starts("OMPI_MCA_orte_") || starts("OMPI_MCA_ess") || starts("OMPI_MCA_pmix") ||
                 starts("OMPI_MCA_initial_wdir") || starts("OMPI_MCA_shmem_RUNTIME_QUERY_hint");
        return starts("OMPI_") && !starts("OMPI_ALLOW_RUN_AS_ROOT");
      };
      std::vector<std::string> environment;
      for (char **e = environ; *e; ++e)
        if (!set_by_mpirun(*e))
          environment.push_back(*e);
      std::vector<char *> envp;
      for (auto &v : environment)
        envp.push_back(v.data());
      envp.push_back(nullptr);
      std::string         shell = "/bin/sh", flag = "-c", line = command;
      std::vector<char *> argv{shell.data(), flag.data(), line.data(), nullptr};
      pid_t               pid    = 0;
      int                 status = 0;
      if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv.data(), envp.data()) != 0 ||
          waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        {
          std::remove(csv);
          throw std::runtime_error("the CPU comparison (" + command +
                                   ") failed; check the MPI launcher (GPUMF_MPIRUN; as root Open MPI needs "
                                   "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1), or run with "
                                   "--cpu-ranks 0");
        }
      CpuTable table;
      for (auto &row : read_csv(csv))
        {
          // a dealii_benchmark built before the host's copy roofline was measured (the native
          // one is not rebuilt by default)
          if (row.count("copy_gb_per_s") == 0)
            {
              std::remove(csv);
              throw std::runtime_error(program +
                                       " is older than gpumf_benchmark (its CSV has no copy_gb_per_s): "
                                       "rebuild it (cmake --build <folder> --target " +
                                       name + ")");
            }
          table[row["key"]] = row;
        }
      std::remove(csv);
      return table;
    }

    /// The list options of the command line, checked.
    struct Lists
    {
      std::vector<Form>         forms;
      std::vector<unsigned int> degrees, cells_per_block;
      std::vector<double>       sizes;
      std::vector<std::string>  meshes, impls, conflicts, geometries, whats, layouts, numbers, hangings;
    };

    Lists
    parse_lists(const std::map<std::string, std::string> &args)
    {
      const auto get = [&](const std::string &key, const std::string &fallback) {
        const auto it = args.find(key);
        return it == args.end() ? fallback : it->second;
      };
      Lists l;
      for (const auto &f : split(get("forms", "bp5")))
        l.forms.push_back(parse_form(f));
      l.degrees = parse_degrees(get("degrees", "4"));
      for (const auto &s : split(get("dofs", "1e6")))
        l.sizes.push_back(std::stod(s));
      l.meshes = split(get("mesh", "cartesian"));
      l.impls = split(get("implementations", "tp")), l.conflicts = split(get("conflicts", "atomics"));
      l.geometries = split(get("geometry", "stored")), l.whats = split(get("what", "vmult"));
      l.layouts = split(get("layouts", "ready")), l.numbers = split(get("numbers", "double"));
      l.hangings = split(get("hanging-nodes", "interpolation"));
      for (const auto &k : split(get("cells-per-block", "0")))
        l.cells_per_block.push_back(std::stoul(k));
      for (const auto &m : l.meshes)
        check_choice("--mesh", m, Problem<3>::meshes);
      for (const auto &i : l.impls)
        check_choice("--implementations",
                     i,
                     {"tp",
                      "lm",
                      "csr",
                      "stencil-constant",
                      "stencil-semi",
                      "stencil-variable",
                      "stencil-general",
                      "lm-cell",
                      "lm-otf",
                      "lm-cell-thread",
                      "lm-cell-warp",
                      "lm-cell-block",
                      "lm-otf-thread",
                      "lm-otf-warp",
                      "lm-otf-block"});
      for (const auto &c : l.conflicts)
        check_choice("--conflicts", c, {"atomics", "coloring", "none"});
      for (const auto &g : l.geometries)
        check_choice("--geometry", g, {"stored", "affine"});
      for (const auto &w : l.whats)
        check_choice("--what", w, {"vmult", "cg", "cg-fused", "cg-fused-unfolded", "sweep"});
      for (const auto &n : l.layouts)
        check_choice("--layouts", n, {"ready", "points"});
      for (const auto &n : l.numbers)
        check_choice("--numbers", n, {"double", "float"});
      for (const auto &h : l.hangings)
        check_choice("--hanging-nodes", h, {"interpolation", "constraint_rows"});
      check_choice("--dim", get("dim", "3"), {"2", "3"});
      return l;
    }

    template <int dim>
    void
    run_all(const Lists    &l,
            const Options  &options,
            const CpuTable &cpu_table,
            const CpuTable &native_table,
            Output         &output)
    {
      const auto &forms   = l.forms;
      const auto &degrees = l.degrees;
      const auto &sizes   = l.sizes;
      const auto &meshes  = l.meshes;
      const auto &impls = l.impls, &conflicts = l.conflicts, &geometries = l.geometries, &whats = l.whats,
                 &layouts = l.layouts, &numbers = l.numbers, &hangings = l.hangings;
      const auto &cells_per_block = l.cells_per_block;

      const std::string device =
        options.backend == gpumf::Backend::cuda ? gpumf::device_name() : "host backend (1 thread): " + cpu_name();
      std::map<std::string, CpuResult> cpu_cache;
      std::cout << std::left << std::setw(10) << "form" << std::setw(4) << "p" << std::setw(10) << "mesh"
                << std::setw(18) << "impl" << std::setw(9) << "conflict" << std::setw(7) << "geom" << std::setw(4)
                << "cpb" << std::setw(8) << "layout" << std::setw(9) << "what" << std::setw(11) << "DoFs"
                << std::setw(11) << "time[s]" << std::setw(9) << "GDoF/s" << std::setw(9) << "GB/s" << std::setw(8)
                << "roof" << std::setw(10) << "GFlop/s" << std::setw(9) << "xCPU w1" << std::setw(9) << "xCPU nat"
                << "note" << std::endl;
      for (const double size : sizes)
        for (const unsigned int degree : degrees)
          for (const auto &mesh : meshes)
            {
              Problem<dim> problem;
              problem.reinit(mesh, degree, size);
              const double n_dofs = problem.dof_handler.n_dofs();
              for (const Form form : forms)
                for (const auto &impl : impls)
                  for (const auto &conflict : conflicts)
                    for (const auto &geometry : geometries)
                      for (const unsigned int k : cells_per_block)
                        for (const auto &layout : layouts)
                          for (const auto &what : whats)
                            for (const auto &number : numbers)
                              for (const auto &hanging : hangings)
                                {
                                  Case c;
                                  c.form = form, c.degree = degree, c.implementation = impl, c.conflict = conflict;
                                  c.geometry = geometry, c.cells_per_block = k, c.what = what, c.layout = layout;
                                  c.number = number, c.hanging_nodes = hanging;
                                  Result     r;
                                  const bool assembled = impl == "csr";
                                  const bool stencil   = impl.rfind("stencil", 0) == 0;
                                  try
                                    {
                                      if ((assembled || stencil) &&
                                          (conflict != conflicts[0] || geometry != geometries[0] ||
                                           k != cells_per_block[0] || layout != layouts[0] || hanging != hangings[0]))
                                        {
                                          r.skipped = true;
                                          r.note =
                                            "the assembled matrix and the stencil have no conflict  geometry  "
                                            "cells-per-block, layout or hanging-nodes choice: measured with the first of each";
                                        }
                                      else if (what == "sweep" && !stencil)
                                        {
                                          r.skipped = true;
                                          r.note = "the Gauss-Seidel sweep is measured for the stencil implementations "
                                                   "(MultiColorGaussSeidel)";
                                        }
                                      else if (assembled)
                                        r = run_sparse<dim>(problem, c, options);
                                      else if (stencil)
                                        r = run_stencil<dim>(problem, c, options);
                                      else if (impl.rfind("lm-", 0) == 0)
                                        r = run_local_matrix<dim>(problem, c, options);
                                      else
                                        r = dispatch_degree<GPUMF_BENCH_MAX_DEGREE>(
                                          degree, "the benchmark", [&](auto p) -> Result {
                                            if constexpr (compiled_in(true, dim, decltype(p)::value))
                                              return run_gpumf<dim, decltype(p)::value>(problem, c, options);
                                            else
                                              throw std::invalid_argument(not_compiled(true, dim, p));
                                          });
                                    }
                                  catch (const std::exception &e)
                                    {
                                      r.skipped = true;
                                      r.note    = e.what();
                                    }
                                  // a deal.II exception text has several lines: keep the one that says what
                                  std::string note = r.note;
                                  for (auto &ch : note)
                                    if (ch == '\n' || ch == ',' || ch == '"')
                                      ch = ' ';
                                  std::map<std::string, std::string> row;
                                  row["device"] = device, row["backend"] = gpumf::to_string(options.backend);
                                  row["dim"] = std::to_string(dim), row["form"] = to_string(form);
                                  row["degree"] = std::to_string(degree);
                                  row["n_q_1d"] = std::to_string(n_q_points_1d(form, degree));
                                  row["mesh"] = mesh, row["implementation"] = r.skipped ? impl : r.implementation;
                                  row["conflict"] = conflict, row["geometry"] = r.skipped ? geometry : r.geometry;
                                  row["cells_per_block"] = std::to_string(r.skipped ? k : r.cells_per_block);
                                  if (note.empty() && !GPUMF_DEAL_II_HAS_EPETRA &&
                                      (r.implementation == "csr" || what == "sweep"))
                                    note = "no CPU baseline: deal.II's Trilinos has no Epetra (Debian's deal.II 9.8)";
                                  row["what"] = what, row["dofs"] = fmt(n_dofs, 12), row["note"] = note;
                                  row["layout"] = layout, row["number"] = number, row["hanging_nodes"] = hanging;
                                  row["mesh_seconds"]  = fmt(problem.mesh_seconds);
                                  row["hanging_share"] = fmt(problem.hanging_share, 3);
                                  // every other column empty until measured (the output writes each column)
                                  for (const auto &key : columns)
                                    row.emplace(key, "");
                                  if (!r.skipped)
                                    {
                                      const double copy    = copy_bandwidth(options.backend, r.bytes, options.repeat);
                                      row["cells"]         = std::to_string(r.n_cells),
                                      row["colors"]        = std::to_string(r.n_colors);
                                      row["seconds"]       = fmt(r.seconds, 6);
                                      row["setup_seconds"] = fmt(r.setup_seconds, 4);
                                      row["bytes_per_dof"] = fmt(r.data_bytes / n_dofs, 4);
                                      // the largest problem that fits the GPU at this bytes per DoF, the
                                      // vectors of the run included (vmult: 2, CG: 6)
                                      std::size_t free_bytes = 0, total_bytes = 0;
                                      if (device_memory(options.backend, free_bytes, total_bytes))
                                        row["max_dofs"] =
                                          fmt(total_bytes / (r.data_bytes / n_dofs + (what == "vmult" ? 2 : 6) *
                                                                                       (number == "double" ? 8. : 4.)),
                                              4);
                                      row["gdofs_per_s"]       = fmt(n_dofs / r.seconds * 1e-9);
                                      row["model_bytes"]       = fmt(r.bytes, 8);
                                      row["gb_per_s"]          = fmt(r.bytes / r.seconds * 1e-9);
                                      row["copy_gb_per_s"]     = fmt(copy * 1e-9);
                                      row["roofline_fraction"] = fmt(r.bytes / r.seconds / copy, 3);
                                      row["gflop_per_s"]       = fmt(r.flops / r.seconds * 1e-9);
                                      row["cg_iterations"]     = r.iterations ? std::to_string(r.iterations) : "";
                                      if (what == "cg" || what == "cg-fused" || what == "cg-fused-unfolded")
                                        row["roofline_fraction"] = row["gb_per_s"] = row["gflop_per_s"] = "";
                                      const std::string key =
                                        cpu_key(dim, form, degree, mesh, size, what, assembled || what == "sweep");
                                      // deal.II's fraction of the host's copy roofline by this row's byte model,
                                      // where the model's geometry is the one deal.II reads: a Jacobian a cell on
                                      // the affine meshes (the GPU's affine rows), one a point on the others (its
                                      // stored rows; deal.II reads 10 numbers a point there, the model 6)
                                      const bool affine_mesh = mesh == "cartesian" || mesh == "cube-adaptive";
                                      const bool same_geometry_as_dealii =
                                        !assembled && what == "vmult" &&
                                        r.geometry == (affine_mesh ? "affine" : "stored");
                                      // the columns of one baseline: cpu_* and speedup_vs_cpu for width 1 (suffix
                                      // ""), cpu_native_* and speedup_vs_cpu_native at full width ("_native")
                                      const auto fill_baseline = [&](const CpuTable &table, const std::string &suffix) {
                                        const auto found = table.find(key);
                                        if (number != "double" || found == table.end())
                                          return;
                                        const auto       &cpu_row      = found->second;
                                        const std::string prefix       = "cpu" + suffix + "_";
                                        const double      cpu          = std::stod(cpu_row.at("seconds"));
                                        const double      host         = std::stod(cpu_row.at("copy_gb_per_s")) * 1e9;
                                        row["cpu_ranks"]               = cpu_row.at("ranks");
                                        row[prefix + "simd_width"]     = cpu_row.at("simd_width");
                                        row[prefix + "seconds"]        = fmt(cpu, 6);
                                        row[prefix + "gdofs_per_s"]    = fmt(n_dofs / cpu * 1e-9);
                                        row["speedup_vs_cpu" + suffix] = fmt(cpu / r.seconds, 3);
                                        row[prefix + "copy_gb_per_s"]  = fmt(host * 1e-9);
                                        if (same_geometry_as_dealii)
                                          row[prefix + "roofline_fraction"] = fmt(r.bytes / cpu / host, 3);
                                        if (suffix.empty())
                                          row["cpu_setup_seconds"] = cpu_row.at("setup_seconds");
                                      };
                                      fill_baseline(cpu_table, "");
                                      fill_baseline(native_table, "_native");
                                      if (options.cpu_threads > 0 && compiled_in(false, dim, degree) &&
                                          number == "double" && !assembled && what != "sweep")
                                        {
                                          if (cpu_cache.count(key) == 0)
                                            {
                                              cpu_cache[key] = dispatch_degree<GPUMF_BENCH_MAX_CPU_DEGREE>(
                                                degree, "the CPU comparison", [&](auto p) -> CpuResult {
                                                  if constexpr (compiled_in(false, dim, decltype(p)::value))
                                                    return run_dealii<dim, decltype(p)::value>(problem, c, options);
                                                  else
                                                    throw std::invalid_argument(not_compiled(false, dim, p));
                                                });
                                              dealii::MultithreadInfo::set_thread_limit(); // all cores again
                                            }
                                          const double cpu = cpu_cache[key].seconds;
                                          row["cpu_simd_width"] =
                                            std::to_string(dealii::VectorizedArray<double>::size());
                                          row["cpu_threads"]            = std::to_string(options.cpu_threads);
                                          row["cpu_threads_seconds"]    = fmt(cpu, 6);
                                          row["speedup_vs_cpu_threads"] = fmt(cpu / r.seconds, 3);
                                        }
                                    }
                                  std::cout
                                    << std::setw(10) << row["form"] << std::setw(4) << degree << std::setw(10) << mesh
                                    << std::setw(18) << row["implementation"] << std::setw(9) << conflict
                                    << std::setw(7) << row["geometry"] << std::setw(4) << row["cells_per_block"]
                                    << std::setw(8) << layout << std::setw(9) << what << std::setw(11) << row["dofs"]
                                    << std::setw(11) << row["seconds"] << std::setw(9) << row["gdofs_per_s"]
                                    << std::setw(9) << row["gb_per_s"] << std::setw(8) << row["roofline_fraction"]
                                    << std::setw(10) << row["gflop_per_s"] << std::setw(9) << row["speedup_vs_cpu"]
                                    << std::setw(9) << row["speedup_vs_cpu_native"] << note.substr(0, 160) << std::endl;
                                  output.add(std::move(row));
                                }
            }
    }
  } // namespace
} // namespace bench

int
main(int argc, char **argv)
{
  const std::vector<std::string> known{
    "backend",   "dim",           "forms",           "degrees",     "dofs", "mesh",    "implementations",
    "conflicts", "geometry",      "cells-per-block", "layouts",     "what", "numbers", "hanging-nodes",
    "repeat",    "cg-iterations", "cpu-ranks",       "cpu-threads", "csv",  "json",    "cpu-baselines"};
  std::map<std::string, std::string> args;
  bench::Lists                       lists;
  bench::CpuTable                    cpu_table, native_table;
  try
    {
      // the CPU comparison runs first, as a job of its own: before this process starts MPI
      args = bench::parse_arguments(argc, argv, known);
      if (args.count("help"))
        {
          std::cout << bench::usage;
          return 0;
        }
      lists = bench::parse_lists(args);
      const unsigned int cpu_ranks =
        args.count("cpu-ranks") ? std::stoul(args["cpu-ranks"]) : std::max(1u, std::thread::hardware_concurrency());
      const bool               native_built = std::ifstream(bench::sibling_program("dealii_benchmark_native")).good();
      const bool               avx512       = bench::cpu_has_avx512();
      std::vector<std::string> baselines{"width1"};
      if (args.count("cpu-baselines"))
        baselines = bench::split(args["cpu-baselines"]);
      else if (native_built && avx512)
        baselines.push_back("native");
      for (const auto &b : baselines)
        bench::check_choice("--cpu-baselines", b, {"width1", "native"});
      const auto asked = [&](const char *b) {
        return std::find(baselines.begin(), baselines.end(), b) != baselines.end();
      };
      if (cpu_ranks > 0 && asked("native"))
        {
          if (!native_built)
            throw std::invalid_argument(
              "--cpu-baselines native: dealii_benchmark_native is not beside gpumf_benchmark; build it with "
              "cmake --build <folder> --target dealii_benchmark_native (Debian's deal.II 9.4.1 only)");
          if (!avx512)
            throw std::invalid_argument("--cpu-baselines native: this CPU has no AVX-512 (avx512f), which "
                                        "dealii_benchmark_native is compiled for (GPUMF_NATIVE_SIMD_MARCH)");
        }
      // width 1 first, then native, on the same ranks
      if (cpu_ranks > 0 && asked("width1"))
        cpu_table = bench::run_cpu_comparison(args, cpu_ranks, "dealii_benchmark");
      if (cpu_ranks > 0 && asked("native"))
        native_table = bench::run_cpu_comparison(args, cpu_ranks, "dealii_benchmark_native");
    }
  catch (const std::exception &e)
    {
      std::cerr << "gpumf_benchmark: " << e.what() << "\n(see --help)\n";
      return 2;
    }
  // gpumf's set-up (and the assembly of --implementations csr) runs in deal.II's threads: all
  // cores, as the README tells users; the in-process CPU comparison sets its own count
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, dealii::numbers::invalid_unsigned_int);
  try
    {
      bench::Options    options;
      const std::string backend = args.count("backend") ? args["backend"] : gpumf::to_string(gpumf::default_backend());
      bench::check_choice("--backend", backend, {"host", "cuda"});
      options.backend = backend == "cuda" ? gpumf::Backend::cuda : gpumf::Backend::host;
      if (options.backend == gpumf::Backend::cuda && !gpumf::cuda_available())
        throw std::invalid_argument("--backend cuda: no usable CUDA device (" + gpumf::device_name() + ")");
      options.repeat        = args.count("repeat") ? std::stoul(args["repeat"]) : 20;
      options.cg_iterations = args.count("cg-iterations") ? std::stoul(args["cg-iterations"]) : 50;
      options.cpu_threads   = args.count("cpu-threads") ? std::stoul(args["cpu-threads"]) : 0;
      bench::Output output;
      if (args.count("csv"))
        output.csv.open(args["csv"]);
      if (args.count("json"))
        output.json_file = args["json"];
      const std::string simd = "VectorizedArray<double> width " +
                               std::to_string(dealii::VectorizedArray<double>::size()) +
                               (dealii::VectorizedArray<double>::size() == 1 ? ", no SIMD" : "");
      std::cout << "gpumf benchmark on "
                << (options.backend == gpumf::Backend::cuda ? gpumf::device_name() : "the host backend")
                << "; deal.II CPU MatrixFree (" << simd << ") on " << bench::cpu_name() << ": "
                << (cpu_table.empty() ? std::string("no MPI comparison") :
                                        cpu_table.begin()->second.at("ranks") + " MPI ranks")
                << (native_table.empty() ?
                      std::string() :
                      "; at full SIMD width (dealii_benchmark_native, VectorizedArray<double> width " +
                        native_table.begin()->second.at("simd_width") + ") on " +
                        native_table.begin()->second.at("ranks") + " MPI ranks: the columns cpu_native_*")
                << (options.cpu_threads ? ", and " + std::to_string(options.cpu_threads) + " threads in this process" :
                                          std::string())
                << std::endl;
      if (args.count("dim") && args["dim"] == "2")
        bench::run_all<2>(lists, options, cpu_table, native_table, output);
      else
        bench::run_all<3>(lists, options, cpu_table, native_table, output);
      output.write_json();
    }
  catch (const std::exception &e)
    {
      std::cerr << "gpumf_benchmark: " << e.what() << "\n(see --help)\n";
      return 2;
    }
  return 0;
}
