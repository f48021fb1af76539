// deal.II's CPU MatrixFree at full SIMD width: the cell evaluation factory and the cell-wise
// inverse mass (MatrixFreeOperators::CellwiseInverseMassMatrix) for the shadow config.h's width,
// in double and float (see matrix_free.cc).
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "native_simd/cell_factory.cc is compiled with the shadow config.h of cmake/dealiiNativeSimd.cmake only"
#endif

#include <deal.II/matrix_free/evaluation_template_factory.templates.h>

DEAL_II_NAMESPACE_OPEN
template struct internal::FEEvaluationFactory<2, VectorizedArray<double>>;
template struct internal::FEEvaluationFactory<3, VectorizedArray<double>>;
template struct internal::FEEvaluationFactory<2, VectorizedArray<float>>;
template struct internal::FEEvaluationFactory<3, VectorizedArray<float>>;
template struct internal::CellwiseInverseMassFactory<2, VectorizedArray<double>>;
template struct internal::CellwiseInverseMassFactory<3, VectorizedArray<double>>;
template struct internal::CellwiseInverseMassFactory<2, VectorizedArray<float>>;
template struct internal::CellwiseInverseMassFactory<3, VectorizedArray<float>>;
DEAL_II_NAMESPACE_CLOSE
