// What the operations before and after a cell loop save: a low-storage Runge–Kutta stage of a
// DG program (step-67's perform_stage()), k = M^-1 r and then next = x + a dt k, x += b dt k,
// on FE_DGQ(p) in 3D, once as separate steps (cell_loop with zero_dst, then three vector
// operations) and once as one cell_loop with an operation before (k = 0) and after (both
// updates in one pass). Also the inverse mass in place (cell_loop(f, r, r) with
// set_dof_values()). Median of 20 runs of each; the copy roofline of the same run.
//
//   gpumf_loop_operations [degree 2..5 (4)] [refinements (5)]
#include <gpumf/cellwise_inverse_mass_matrix.h>
#include <gpumf/dg_operators.h>
#include <gpumf/matrix_free.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace dealii;

namespace loop_operations
{
  /// M_K^-1 written over the cell's values.
  template <int p>
  struct InverseMassInPlace
  {
    static constexpr unsigned int n_dofs_1d    = p + 1;
    static constexpr unsigned int n_local_dofs = gpumf::internal::ipow(p + 1, 3);
    static constexpr unsigned int n_q_points   = gpumf::internal::ipow(p + 1, 3);

    __host__ __device__ void
    operator()(const unsigned int                                 cell,
               const typename gpumf::MatrixFree<3, double>::Data *data,
               gpumf::SharedData<3, double>                      *shared,
               const double                                      *src,
               double                                            *dst) const
    {
      gpumf::FEEvaluation<3, p, p + 1, 1, double> phi(cell, data, shared);
      phi.read_dof_values(src);
      gpumf::CellwiseInverseMassMatrix<3, p, 1, double> inverse(phi);
      inverse.apply();
      phi.set_dof_values(dst);
    }
  };

  double
  median_ms(const std::function<void()> &f)
  {
    std::vector<double> t;
    f(); // warm-up
    for (unsigned int i = 0; i < 20; ++i)
      {
        cudaDeviceSynchronize();
        const auto start = std::chrono::steady_clock::now();
        f();
        cudaDeviceSynchronize();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  template <int p>
  void
  run(const unsigned int refinements)
  {
    parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(refinements);
    DoFHandler<3> dof(tria);
    dof.distribute_dofs(FE_DGQ<3>(p));
    AffineConstraints<double> none;
    none.close();
    auto                                                  mf = std::make_shared<gpumf::MatrixFree<3, double>>();
    typename gpumf::MatrixFree<3, double>::AdditionalData data;
    data.backend              = gpumf::Backend::cuda;
    data.mapping_update_flags = update_values | update_JxW_values;
    mf->reinit(MappingQ1<3>(), dof, none, QGauss<1>(p + 1), data);
    gpumf::InverseMassOperator<3, p> inverse;
    inverse.initialize(mf);
    const typename gpumf::InverseMassOperator<3, p>::CellOperation cell_op;

    gpumf::Vector<double> r, k, x, next, x_fused, next_fused, copy;
    for (gpumf::Vector<double> *v : {&r, &k, &x, &next, &x_fused, &next_fused, &copy})
      mf->initialize_dof_vector(*v);
    r                 = 1.5;
    x                 = 2.;
    const double a_dt = 0.3, b_dt = 0.7;
    const auto   n = r.locally_owned_size();

    // separate steps, as a program without the operations writes them
    const double separate = median_ms([&] {
      mf->cell_loop(cell_op, r, k, true);
      next.equ(a_dt, k);
      next += x;
      x.add(b_dt, k);
    });
    // one loop: k zeroed before, both updates in one pass after
    double *const kp = k.get_values(), *const xp = x_fused.get_values(), *const np = next_fused.get_values();
    x_fused                 = 2.;
    const double fused_time = median_ms([&] {
      mf->cell_loop(
        cell_op,
        r,
        k,
        [=] __host__ __device__(const unsigned int begin, const unsigned int end) {
          for (unsigned int i = begin; i < end; ++i)
            kp[i] = 0.;
        },
        [=] __host__ __device__(const unsigned int begin, const unsigned int end) {
          for (unsigned int i = begin; i < end; ++i)
            {
              np[i] = xp[i] + a_dt * kp[i];
              xp[i] += b_dt * kp[i];
            }
        });
    });
    // the same numbers: both ran 21 times from x = 2
    gpumf::Vector<double> difference(x_fused);
    difference.add(-1., x);
    const double x_difference = difference.linfty_norm() / x.linfty_norm();
    difference                = next_fused;
    difference.add(-1., next);
    const double next_difference = difference.linfty_norm() / next.linfty_norm();

    // the inverse mass alone: into another vector, and in place
    const double into_other = median_ms([&] { mf->cell_loop(cell_op, r, k, true); });
    const double in_place   = median_ms([&] { mf->cell_loop(InverseMassInPlace<p>(), copy, copy); });
    // the copy roofline: y = x reads and writes n doubles
    const double copy_ms = median_ms([&] { copy = r; });

    cudaDeviceProp prop;
    int            device;
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&prop, device);
    std::printf("%s, FE_DGQ(%d) 3D, %lu DoFs, copy roofline %.0f GB/s\n",
                prop.name,
                p,
                static_cast<unsigned long>(n),
                2. * n * sizeof(double) / (copy_ms * 1e-3) * 1e-9);
    std::printf("  RK stage, separate steps (cell_loop zero_dst + equ, +=, add): %.3f ms\n", separate);
    std::printf("  RK stage, one cell_loop with operations before and after:    %.3f ms  (%.2fx; results differ by "
                "%.1e, %.1e)\n",
                fused_time,
                separate / fused_time,
                x_difference,
                next_difference);
    std::printf("  inverse mass into another vector (zero_dst): %.3f ms; in place (set_dof_values): %.3f ms (%.2fx)\n",
                into_other,
                in_place,
                into_other / in_place);
  }
} // namespace loop_operations

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const int                        degree      = argc > 1 ? std::atoi(argv[1]) : 4;
  const unsigned int               refinements = argc > 2 ? std::atoi(argv[2]) : 5;
  switch (degree)
    {
      case 2:
        loop_operations::run<2>(refinements);
        break;
      case 3:
        loop_operations::run<3>(refinements);
        break;
      case 4:
        loop_operations::run<4>(refinements);
        break;
      case 5:
        loop_operations::run<5>(refinements);
        break;
      default:
        std::printf("degree 2 to 5\n");
        return 1;
    }
  return 0;
}
