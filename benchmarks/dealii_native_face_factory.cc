// dealii_benchmark_native: the face evaluation factory of deal.II's CPU MatrixFree for the shadow
// config.h's SIMD width (see dealii_native_instantiations.cc).
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "dealii_native_face_factory.cc is compiled with the shadow config.h of dealii_benchmark_native only"
#endif

#include <deal.II/matrix_free/evaluation_template_face_factory.templates.h>

DEAL_II_NAMESPACE_OPEN
template struct internal::FEFaceEvaluationFactory<2, VectorizedArray<double>>;
template struct internal::FEFaceEvaluationFactory<3, VectorizedArray<double>>;
DEAL_II_NAMESPACE_CLOSE
