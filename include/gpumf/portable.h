/**
 * @file gpumf/portable.h
 * deal.II 9.5+'s GPU matrix-free dialect (namespace Portable, deal.II's
 * portable_matrix_free.h and portable_fe_evaluation.h) on gpumf, in both of its forms: deal.II 9.5
 * and 9.6's (the functor receives the cell and its shared data) and 9.7 and 9.8's (they travel
 * in Data, the vectors as DeviceVector), for deal.II 9.4 and newer alike: a program written for
 * deal.II's Portable::MatrixFree ports by substitution (doc/porting.md). The forms mix freely
 * with each other and with deal.II 9.4's CUDAWrappers one (gpumf::MatrixFree,
 * gpumf::FEEvaluation, gpumf::SharedData are the same classes).
 *
 * | deal.II                                                       | gpumf                            |
 * |---------------------------------------------------------------|----------------------------------|
 * | Portable::MatrixFree<dim, Number> (AdditionalData(flags, ...)) | gpumf::Portable::MatrixFree       |
 * | Portable::FEEvaluation<dim, p, n_q, n_comp, Number>            | gpumf::Portable::FEEvaluation     |
 * | LinearAlgebra::distributed::Vector<Number, MemorySpace::Default> | gpumf::Vector<Number>          |
 * | 9.5/9.6: operator()(cell, gpu_data, shared_data, src, dst), Number pointers | the same         |
 * | 9.5/9.6: Portable::SharedData<dim, Number>, FEEvaluation(gpu_data, shared_data) | the same     |
 * | 9.5/9.6: apply_for_each_quad_point(f), f(fe_eval *, q)         | the same                          |
 * | 9.5/9.6: Data::local_q_point_id(cell, n_q_points, q)           | the same                          |
 * | 9.7+: operator()(const Data *data, const DeviceVector<Number> &src, DeviceVector<Number> &dst) | the same (gpumf::Portable::DeviceVector) |
 * | 9.7+: FEEvaluation(data, dof_index = 0)                        | the same (dof_index 0: one DoFHandler) |
 * | 9.7+: data->for_each_quad_point([&](const int &q) {...})       | the same                          |
 * | 9.7+: Data::local_q_point_id(cell, q), data->cell_index, data->n_q_points | the same           |
 * | 9.7+: fe_eval.get_current_cell_index(), get_matrix_free_data() | the same                          |
 * | 9.7+: only `n_q_points` required of a functor                  | the same (n_dofs_1d, n_local_dofs optional) |
 * | 9.7+: MatrixFreeTools::compute_diagonal<dim, p, n_q, n_comp, Number>(mf, diag, quad_op, eval_flags, integ_flags) | the same (gpumf/matrix_free_tools.h) |
 * | Data::get_quadrature_point(cell, q)                            | the same                          |
 * | evaluate_coefficients(f), f(gpu_data, cell, q)                 | the same                          |
 * | evaluate(EvaluationFlags::values \| EvaluationFlags::gradients) | the same with gpumf::EvaluationFlags (deal.II's operator\| runs on the host only) |
 * | DEAL_II_HOST_DEVICE                                            | `__host__ __device__` (below)     |
 * | Portable::copy_mf_data_to_host(), DataHost (local_q_point_id(), get_quadrature_point()) | the same |
 * | Kokkos::fence(), Kokkos::parallel_for(n, KOKKOS_LAMBDA(int i) {...}) | gpumf::Kokkos:: (gpumf/kokkos.h), `[=] __host__ __device__` |
 *
 * | 9.8: reinit(mapping, std::vector<const DoFHandler *>, std::vector<const AffineConstraints *>, quad, data), FEEvaluation(data, dof_index) | the same (doc/systems.md) |
 * | 9.8: LinearAlgebra::distributed::BlockVector<Number, MemorySpace::Default>, DeviceBlockVector | gpumf::BlockVector<Number>, gpumf::Portable::DeviceBlockVector |
 * | 9.8: Portable::MGTwoLevelTransfer<dim, VectorType>::reinit_geometric_transfer() | gpumf::Portable::MGTwoLevelTransfer (gpumf::MGTwoLevelTransfer) |
 * | 9.8: MGTransferMatrixFree<dim, Number, MemorySpace::Default>(transfers, initialize_dof_vector) | gpumf::MGTransferGlobalCoarsening<dim, Number> |
 * | Kokkos::DefaultExecutionSpace::name()                          | gpumf::Kokkos:: (the backend's name) |
 *
 * `data->team_member` (9.7+) and `shared_data->team_member` (9.5/9.6) with gpumf::Kokkos's team
 * loops over them work (gpumf/team_handle.h, gpumf/kokkos.h). Not available: Data's arrays as
 * Kokkos::View (gpumf's Data holds plain pointers, gpumf/matrix_free.h).
 *
 * DEAL_II_HOST_DEVICE: deal.II 9.5+ defines it from its Kokkos; where that Kokkos has no CUDA
 * (as Debian's), it marks host functions only and nvcc refuses to call them in a kernel
 * ("calling a __host__ function ... from a __global__ function"): write `__host__ __device__`
 * (or GPUMF_HOST_DEVICE) on functors. On deal.II 9.4, which has no such macro, gpumf defines it
 * as `__host__ __device__`.
 */
#ifndef gpumf_portable_h
#define gpumf_portable_h

#include <gpumf/block_vector.h>
#include <gpumf/device_vector.h>
#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/kokkos.h>
#include <gpumf/matrix_free.h>
#include <gpumf/matrix_free_tools.h>
#include <gpumf/mg_transfer_global_coarsening.h>
#include <gpumf/vector.h>

// what deal.II's Portable headers bring with them, so that a program written against them compiles
#include <deal.II/base/multithread_info.h>
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

    /// deal.II 9.8's Portable::MGTwoLevelTransfer<dim, VectorType> (VectorType gpumf::Vector<Number>).
    template <int dim, typename VectorType>
    using MGTwoLevelTransfer = gpumf::MGTwoLevelTransfer<dim, typename VectorType::value_type>;
  } // namespace Portable
} // namespace gpumf

#endif
