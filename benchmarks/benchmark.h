// The gpumf benchmark: shared declarations of the driver (benchmark.cc), the mesh setup
// (problem.cc), the gpumf cases (gpumf_cases.cu, one object per dim and degree) and deal.II's
// CPU MatrixFree (dealii_cases.cc, one object per dim and degree). doc/performance.md
// explains the figures.
#ifndef gpumf_benchmarks_benchmark_h
#define gpumf_benchmarks_benchmark_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <functional>
#include <string>
#include <vector>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace bench
{
  /// The CEED bake-off problems (BP1 mass, BP3 Laplace with q = p+2, BP5 Laplace with
  /// Gauss-Lobatto collocation) and Helmholtz (mass + Laplace, q = p+2).
  enum class Form
  {
    bp1,
    bp3,
    bp5,
    helmholtz
  };

  std::string
  to_string(Form form);

  /// n_q_points_1d of a form at degree p.
  unsigned int
  n_q_points_1d(Form form, unsigned int degree);

  /// The 1D quadrature of a form (Gauss p+2, or Gauss-Lobatto p+1 for BP5).
  dealii::Quadrature<1>
  quadrature(Form form, unsigned int degree);

  /// The comma-separated parts of @p s (empty ones dropped unless @p keep_empty).
  std::vector<std::string>
  split(const std::string &s, bool keep_empty = false);

  /// "1-8" or "2,4,6" as a list of degrees.
  std::vector<unsigned int>
  parse_degrees(const std::string &s);

  Form
  parse_form(const std::string &s);

  /// Throws std::invalid_argument naming @p option and the @p allowed values unless @p value is one.
  void
  check_choice(const std::string &option, const std::string &value, const std::vector<std::string> &allowed);

  /// "--key value" pairs of the command line (keys from @p known; "--help" gives the key "help").
  std::map<std::string, std::string>
  parse_arguments(int argc, const char *const *argv, const std::vector<std::string> &known);

  /// The rows of a CSV file with a header line (no quoted fields), as column -> value.
  std::vector<std::map<std::string, std::string>>
  read_csv(const std::string &file);

  /// @p v with @p precision significant digits.
  std::string
  fmt(double v, int precision = 4);

  /// The CPU comparison's key of a case: deal.II runs one CG for both CG variants.
  std::string
  cpu_key(int                dim,
          Form               form,
          unsigned int       degree,
          const std::string &mesh,
          double             size,
          const std::string &what,
          bool               assembled = false);

  /**
   * Calls f(n_q, with_values, with_gradients), each a std::integral_constant, with the
   * compile-time description of @p form at @p degree: the one place where a form becomes
   * template arguments (for gpumf_cases.cu and dealii_cases.cc alike).
   */
  template <unsigned int degree, typename F>
  auto
  with_form(const Form form, const F &f)
  {
    using Yes = std::true_type;
    using No  = std::false_type;
    switch (form)
      {
        case Form::bp1:
          return f(std::integral_constant<unsigned int, degree + 2>(), Yes(), No());
        case Form::bp3:
          return f(std::integral_constant<unsigned int, degree + 2>(), No(), Yes());
        case Form::bp5:
          return f(std::integral_constant<unsigned int, degree + 1>(), No(), Yes());
        default:
          return f(std::integral_constant<unsigned int, degree + 2>(), Yes(), Yes());
      }
  }

  /// One measured configuration.
  struct Case
  {
    Form         form   = Form::bp5;
    unsigned int degree = 4;
    /// "tp" (sum factorization), "lm" (element matrices), "lm-cell", "lm-otf" (per cell, on the
    /// fly; with -thread, -warp, -block), "csr" (assembled), "stencil-constant", "stencil-semi",
    /// "stencil-variable", "stencil-general" (gpumf::StencilOperator, MultiColorGaussSeidel, FE_Q(1))
    std::string implementation = "tp";
    /// "atomics", "coloring", or "none" (no protection: wrong results, the upper bound of both)
    std::string conflict = "atomics";
    /// "stored" (per quadrature point) or "affine" (one Jacobian per cell, computed in the kernel)
    std::string geometry = "stored";
    /// cells per CUDA block, 0 = automatic
    unsigned int cells_per_block = 0;
    /// Sum factorization kernel: "ready" (the ready operator's: every 1D contraction in registers in 3D) or "points"
    /// (FEEvaluation with a thread per point up to n_q = 10, as user functors run)
    std::string layout = "ready";
    /// "vmult", "cg" (deal.II's SolverCG + Jacobi on gpumf vectors), "cg-fused" (gpumf::SolverCG + Jacobi) or
    /// "cg-fused-unfolded" (the same with p.Ap in a pass of its own)
    std::string what = "vmult";
    /// "double" or "float" (float: the ready operator's vmult with atomics or coloring)
    std::string number = "double";
    /// "interpolation" or "constraint_rows" (MatrixFree::AdditionalData::hanging_nodes)
    std::string hanging_nodes = "interpolation";
  };

  /// The mesh, element, mapping and constraints of one size.
  template <int dim>
  struct Problem
  {
    /// The mesh kinds: "cartesian" (a box of cubes), "deformed" (a smooth non-affine
    /// deformation of it, represented by a MappingQCache of degree 3), "cube-adaptive" (the unit
    /// cube, refined once in alternate slabs across x: affine cells of two sizes, hanging nodes
    /// on about 30 % of the cells) and "shell-adaptive" (the shell 0.5 < |x| < 1, likewise, with
    /// MappingQ of the element's degree: curved cells).
    static inline const std::vector<std::string> meshes{"cartesian", "deformed", "cube-adaptive", "shell-adaptive"};
    std::string                                  mesh;
    /// serial on one rank (gpumf on one GPU, deal.II with threads), else distributed by p4est
    std::unique_ptr<dealii::Triangulation<dim>> tria;
    std::unique_ptr<dealii::Mapping<dim>>       mapping;
    dealii::DoFHandler<dim>                     dof_handler;
    dealii::AffineConstraints<double>           constraints;
    /// wall seconds of the mesh, DoFs and constraints (deal.II's work in a user's program)
    double mesh_seconds = 0;
    /// the share of cells with a hanging node (a DoF constrained to others; adaptive meshes)
    double hanging_share = 0;

    /// True where every cell is a parallelepiped (affine geometry can be stored per cell).
    bool
    affine_mesh() const
    {
      return mesh == "cartesian" || mesh == "cube-adaptive";
    }

    /// A box of n_1 x ... cells chosen so that FE_Q(degree) has about target_dofs DoFs,
    /// homogeneous Dirichlet conditions on its boundary (once per object); on the ranks of @p comm (more than
    /// one: a parallel::distributed::Triangulation, constraints on the locally relevant DoFs).
    void
    reinit(const std::string &mesh, unsigned int degree, double target_dofs, MPI_Comm comm = MPI_COMM_SELF);

  private:
    /// The adaptive meshes: uniform to about target_dofs after the slabs, then the slabs refined.
    void
    make_adaptive(unsigned int degree, double target_dofs);
  };

  struct Options
  {
    gpumf::Backend backend       = gpumf::Backend::cuda;
    unsigned int   repeat        = 20;
    unsigned int   cg_iterations = 50;
    /// threads of deal.II's CPU MatrixFree; 0: no CPU comparison
    unsigned int cpu_threads = 0;
  };

  /// What one case measured (times in seconds, medians over Options::repeat runs after a warm-up).
  struct Result
  {
    bool         skipped = false;
    std::string  note;
    unsigned int n_cells = 0, n_colors = 0, cells_per_block = 0;
    double       seconds    = 0;    // per operator application (vmult) or per CG iteration
    double       bytes      = 0;    // model: what the operator must move per application
    double       flops      = 0;    // model, per application
    unsigned int iterations = 0;    // CG iterations timed
    std::string  implementation;    // what ran ("tp", "lm shared", "lm per-cell")
    std::string  geometry;          // what ran ("stored", "affine")
    double       setup_seconds = 0; // the operator's reinit() and compute_diagonal(), wall
    double       data_bytes    = 0; // MatrixFree::memory_consumption() (device memory on the GPU backend)
  };

  /// gpumf on Options::backend (gpumf_cases.cu).
  template <int dim, int degree>
  Result
  run_gpumf(const Problem<dim> &problem, const Case &c, const Options &options);

  /// gpumf::StencilOperator (implementations stencil-constant, stencil-semi, stencil-variable;
  /// FE_Q(1) Laplacian on the cartesian mesh), stencil.cc.
  template <int dim>
  Result
  run_stencil(const Problem<dim> &problem, const Case &c, const Options &options);

  /// gpumf::LocalMatrixOperator with per-cell or on-the-fly matrices (implementations lm-cell,
  /// lm-otf, optionally -thread, -warp, -block), local_matrix.cc.
  template <int dim>
  Result
  run_local_matrix(const Problem<dim> &problem, const Case &c, const Options &options);

  /// What deal.II's CPU MatrixFree measured.
  struct CpuResult
  {
    double seconds       = 0; // per vmult or per CG iteration (median, slowest rank)
    double setup_seconds = 0; // MatrixFree::reinit() (and the inverse diagonal for CG), wall
    double result_norm   = 0; // vmult: |A x| (x random, seed 42 on each rank), to compare builds
  };

  /// deal.II's CPU MatrixFree on the ranks of the problem's mesh with Options::cpu_threads
  /// threads each (dealii_cases.cc): seconds per vmult (what = vmult) or per iteration of
  /// deal.II's SolverCG with Jacobi (cg, cg-fused).
  template <int dim, int degree>
  CpuResult
  run_dealii(const Problem<dim> &problem, const Case &c, const Options &options);

#ifdef GPUMF_BENCH_GPU_MASK_3
  /// Whether (dim, degree) is compiled into gpumf_benchmark's GPU cases (@p gpu) or deal.II's CPU
  /// cases (GPUMF_BENCH_DEGREES, GPUMF_BENCH_DIMS, GPUMF_BENCH_MAX_CPU_DEGREE).
  constexpr bool
  compiled_in(const bool gpu, const int dim, const int degree)
  {
    const unsigned long long mask = gpu ? (dim == 2 ? GPUMF_BENCH_GPU_MASK_2 : GPUMF_BENCH_GPU_MASK_3) :
                                          (dim == 2 ? GPUMF_BENCH_CPU_MASK_2 : GPUMF_BENCH_CPU_MASK_3);
    return degree >= 0 && degree < 64 && ((mask >> degree) & 1ull) != 0;
  }

  /// The message of a case whose (dim, degree) is not compiled in.
  inline std::string
  not_compiled(const bool gpu, const int dim, const int degree)
  {
    return std::string(gpu ? "gpumf" : "deal.II CPU") + " cases of dim " + std::to_string(dim) + " degree " +
           std::to_string(degree) +
           " are not compiled in: configure with GPUMF_BENCH_DEGREES and GPUMF_BENCH_DIMS that include them" +
           (gpu ? "" : " (and GPUMF_BENCH_MAX_CPU_DEGREE)");
  }
#endif

  /**
   * f(std::integral_constant<int, p>()) for the run-time degree @p p in 1..max_degree: the one
   * place where a degree becomes a template argument (run_gpumf(), run_dealii()); throws,
   * naming @p what, for a degree that is not compiled in.
   */
  template <int max_degree, int degree = 1, typename F>
  auto
  dispatch_degree(const unsigned int p, const std::string &what, const F &f)
    -> decltype(f(std::integral_constant<int, 1>()))
  {
    if constexpr (degree > max_degree)
      throw std::invalid_argument("degree " + std::to_string(p) + " is not compiled into " + what + " (1 to " +
                                  std::to_string(max_degree) + ")");
    else
      return p == degree ? f(std::integral_constant<int, degree>()) :
                           dispatch_degree<max_degree, degree + 1>(p, what, f);
  }

  /// Median of the times of @p repeat runs of f() after one warm-up, timed with CUDA events
  /// on the GPU backend, with a steady clock on the host.
  double
  median_seconds(gpumf::Backend backend, unsigned int repeat, const std::function<void()> &f);

  /// median_seconds() on the host of f() followed by a barrier on @p comm: every rank's time
  /// includes waiting for the slowest (deal.II's CPU runs on MPI ranks).
  double
  median_seconds_all_ranks(MPI_Comm comm, unsigned int repeat, const std::function<void()> &f);

  /// Measured bandwidth (bytes read + written per second) of copying bytes/2 bytes within
  /// the backend's memory: the empirical roofline for an operator moving @p bytes.
  double
  copy_bandwidth(gpumf::Backend backend, double bytes, unsigned int repeat);

  /// The host's copy roofline on the ranks of @p comm (STREAM's copy): bytes read + written per
  /// second of all ranks copying at once with memcpy, each max(128 MiB, 1 GiB / ranks), median of
  /// @p repeat runs of the slowest rank.
  double
  host_copy_bandwidth(MPI_Comm comm, unsigned int repeat);

  /// VectorizedArray<double>::size() of the deal.II the benchmarks are built against (1: no SIMD;
  /// dealii_simd_width.cc).
  unsigned int
  dealii_simd_width();

  /// The free and total bytes of the GPU (true) or nothing on the host backend (false).
  bool
  device_memory(gpumf::Backend backend, std::size_t &free_bytes, std::size_t &total_bytes);

  /**
   * The assembled-matrix baseline (sparse.cc): the form's global sparse matrix assembled by
   * deal.II on the host (all of its cores) and applied by gpumf::SparseMatrix on
   * Options::backend (cuSPARSE on the GPU), vmult or CG with Jacobi; throws
   * gpumf::ExcMatrixDoesNotFit before assembling a matrix the GPU cannot hold.
   */
  template <int dim>
  Result
  run_sparse(const Problem<dim> &problem, const Case &c, const Options &options);

  /// The same matrix as a TrilinosWrappers::SparseMatrix on the ranks of the problem's mesh
  /// (Options::cpu_threads threads each): vmult or deal.II's SolverCG with Trilinos' Jacobi.
  template <int dim>
  CpuResult
  run_sparse_cpu(const Problem<dim> &problem, const Case &c, const Options &options);
} // namespace bench

#endif
