// deal.II's CPU MatrixFree at full SIMD width (cmake/dealiiNativeSimd.cmake): what Debian's
// libdeal.ii 9.4.1 (built with DEAL_II_VECTORIZATION_WIDTH_IN_BITS 0, VectorizedArray of width 1)
// lacks for the width of the shadow config.h these files compile with (512 bits: eight doubles,
// sixteen floats): MatrixFree and its set-up, in 2D and 3D, in double (the operators) and float
// (step-37's multigrid levels). The evaluation factories MappingInfo and FEEvaluation call are in
// cell_factory.cc and face_factory.cc (deal.II 9.4.1's face factory header reuses the cell
// factory's include guard, so each has its own file). The DoFInfo templates of these widths are
// in the library.
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "native_simd/matrix_free.cc is compiled with the shadow config.h of cmake/dealiiNativeSimd.cmake only"
#endif

#include <deal.II/matrix_free/evaluation_template_factory_hanging_nodes.templates.h>
#include <deal.II/matrix_free/mapping_info.templates.h>
#include <deal.II/matrix_free/mapping_info_storage.templates.h>
#include <deal.II/matrix_free/matrix_free.templates.h>
#include <deal.II/matrix_free/shape_info.templates.h>

DEAL_II_NAMESPACE_OPEN

static_assert(VectorizedArray<double>::size() > 1,
              "native_simd/matrix_free.cc: expected a SIMD width above 1 (the shadow config.h)");

#define GPUMF_NATIVE_MATRIX_FREE(dim, Number)                                                   \
  template class MatrixFree<dim, Number, VectorizedArray<Number>>;                              \
  template void MatrixFree<dim, Number, VectorizedArray<Number>>::internal_reinit<double, dim>( \
    const std::shared_ptr<hp::MappingCollection<dim>> &,                                        \
    const std::vector<const DoFHandler<dim, dim> *> &,                                          \
    const std::vector<const AffineConstraints<double> *> &,                                     \
    const std::vector<IndexSet> &,                                                              \
    const std::vector<hp::QCollection<dim>> &,                                                  \
    const AdditionalData &);                                                                    \
  template struct internal::FEEvaluationHangingNodesFactory<dim, Number, VectorizedArray<Number>>;

GPUMF_NATIVE_MATRIX_FREE(2, double)
GPUMF_NATIVE_MATRIX_FREE(3, double)
GPUMF_NATIVE_MATRIX_FREE(2, float)
GPUMF_NATIVE_MATRIX_FREE(3, float)

DEAL_II_NAMESPACE_CLOSE
