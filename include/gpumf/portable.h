/**
 * @file gpumf/portable.h
 * deal.II 9.5+'s GPU matrix-free dialect (namespace Portable, deal.II's
 * portable_matrix_free.h and portable_fe_evaluation.h) on gpumf, for deal.II 9.4 and newer
 * alike: a program written for deal.II's Portable::MatrixFree ports by substitution
 * (doc/porting.md, "deal.II 9.5 and newer").
 *
 * | deal.II 9.5+                                                  | gpumf                            |
 * |---------------------------------------------------------------|----------------------------------|
 * | Portable::MatrixFree<dim, Number> (AdditionalData(flags, ...)) | gpumf::Portable::MatrixFree       |
 * | Portable::FEEvaluation<dim, p, n_q, n_comp, Number>            | gpumf::Portable::FEEvaluation     |
 * | Portable::SharedData<dim, Number>                              | gpumf::Portable::SharedData       |
 * | FEEvaluation(gpu_data, shared_data)                            | the same                          |
 * | evaluate(EvaluationFlags::values | EvaluationFlags::gradients) | the same with gpumf::EvaluationFlags (deal.II's operator| runs on the host only) |
 * | apply_for_each_quad_point(f), f(fe_eval *, q)                  | the same                          |
 * | Data::local_q_point_id(cell, n_q_points, q)                    | the same                          |
 * | Data::get_quadrature_point(cell, q)                            | the same                          |
 * | evaluate_coefficients(f), f(gpu_data, cell, q)                 | the same                          |
 * | LinearAlgebra::distributed::Vector<Number, MemorySpace::Default> | gpumf::Vector<Number>          |
 * | DEAL_II_HOST_DEVICE                                            | `__host__ __device__` (below)     |
 * | Kokkos::fence()                                                | gpumf::synchronize()              |
 * | Portable::copy_mf_data_to_host(), DataHost                     | the same                          |
 *
 * Not available: what reaches into Kokkos (shared_data->team_member and Kokkos loops over
 * it, Data's arrays as Kokkos::View): gpumf's Data holds plain pointers (gpumf/matrix_free.h),
 * and a functor runs on the threads of a cell (internal::CellLayout).
 *
 * These are gpumf's own classes under deal.II's names (the same as gpumf::MatrixFree,
 * gpumf::FEEvaluation and gpumf::SharedData, which also keep deal.II 9.4's CUDAWrappers
 * interface): the two dialects mix freely.
 *
 * DEAL_II_HOST_DEVICE: deal.II 9.5+ defines it from its Kokkos; where that Kokkos has no CUDA
 * (as Debian's), it marks host functions only and nvcc refuses to call them in a kernel
 * ("calling a __host__ function ... from a __global__ function"): write `__host__ __device__`
 * (or GPUMF_HOST_DEVICE) on functors. On deal.II 9.4, which has no such macro, gpumf defines it
 * as `__host__ __device__`.
 */
#ifndef gpumf_portable_h
#define gpumf_portable_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

// what deal.II's Portable headers bring with them, so that a program written against them compiles
#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/matrix_free/evaluation_flags.h>

namespace gpumf
{
  namespace Portable
  {
    using gpumf::copy_mf_data_to_host;
    using gpumf::DataHost;
    using gpumf::MatrixFree;
    using gpumf::SharedData;

    /// deal.II 9.5+'s Portable::FEEvaluation (same template arguments): gpumf::FEEvaluation.
    template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components = 1, typename Number = double>
    using FEEvaluation = gpumf::FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>;
  } // namespace Portable
} // namespace gpumf

#endif
