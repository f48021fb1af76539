// dealii_benchmark_native: the cell evaluation factory of deal.II's CPU MatrixFree for the shadow
// config.h's SIMD width (see dealii_native_instantiations.cc).
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "dealii_native_cell_factory.cc is compiled with the shadow config.h of dealii_benchmark_native only"
#endif

#include <deal.II/matrix_free/evaluation_template_factory.templates.h>

DEAL_II_NAMESPACE_OPEN
template struct internal::FEEvaluationFactory<2, VectorizedArray<double>>;
template struct internal::FEEvaluationFactory<3, VectorizedArray<double>>;
DEAL_II_NAMESPACE_CLOSE
