// dealii_benchmark_native: what Debian's libdeal.ii (built with DEAL_II_VECTORIZATION_WIDTH_IN_BITS
// 0, VectorizedArray<double> of width 1) lacks for deal.II's CPU MatrixFree at the full SIMD width
// of the shadow config.h this target compiles with (benchmarks/CMakeLists.txt: width 512, eight
// doubles): MatrixFree and its set-up for VectorizedArray<double, 8>, in 2D and 3D. The evaluation
// factories MappingInfo calls are in dealii_native_cell_factory.cc and
// dealii_native_face_factory.cc (deal.II 9.4.1's face factory header reuses the cell factory's
// include guard, so each has its own file). The DoFInfo templates of that width are in the library.
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "dealii_native_instantiations.cc is compiled with the shadow config.h of dealii_benchmark_native only"
#endif

#include <deal.II/matrix_free/evaluation_template_factory_hanging_nodes.templates.h>
#include <deal.II/matrix_free/mapping_info.templates.h>
#include <deal.II/matrix_free/mapping_info_storage.templates.h>
#include <deal.II/matrix_free/matrix_free.templates.h>
#include <deal.II/matrix_free/shape_info.templates.h>

DEAL_II_NAMESPACE_OPEN

using SIMD = VectorizedArray<double>;
static_assert(SIMD::size() > 1, "dealii_benchmark_native: expected a SIMD width above 1 (the shadow config.h)");

#define GPUMF_NATIVE_MATRIX_FREE(dim)                                        \
  template class MatrixFree<dim, double, SIMD>;                              \
  template void MatrixFree<dim, double, SIMD>::internal_reinit<double, dim>( \
    const std::shared_ptr<hp::MappingCollection<dim>> &,                     \
    const std::vector<const DoFHandler<dim, dim> *> &,                       \
    const std::vector<const AffineConstraints<double> *> &,                  \
    const std::vector<IndexSet> &,                                           \
    const std::vector<hp::QCollection<dim>> &,                               \
    const AdditionalData &);                                                 \
  template struct internal::FEEvaluationHangingNodesFactory<dim, double, SIMD>;

GPUMF_NATIVE_MATRIX_FREE(2)
GPUMF_NATIVE_MATRIX_FREE(3)

DEAL_II_NAMESPACE_CLOSE
