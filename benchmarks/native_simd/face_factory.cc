// deal.II's CPU MatrixFree at full SIMD width: the face evaluation factories (with and without
// the gather from the vector) for the shadow config.h's width, in double and float (see
// matrix_free.cc).
#include <deal.II/base/config.h>

#if DEAL_II_VECTORIZATION_WIDTH_IN_BITS == 0
#  error "native_simd/face_factory.cc is compiled with the shadow config.h of cmake/dealiiNativeSimd.cmake only"
#endif

#include <deal.II/matrix_free/evaluation_template_face_factory.templates.h>

DEAL_II_NAMESPACE_OPEN
template struct internal::FEFaceEvaluationFactory<2, VectorizedArray<double>>;
template struct internal::FEFaceEvaluationFactory<3, VectorizedArray<double>>;
template struct internal::FEFaceEvaluationFactory<2, VectorizedArray<float>>;
template struct internal::FEFaceEvaluationFactory<3, VectorizedArray<float>>;
template struct internal::FEFaceEvaluationGatherFactory<2, double, VectorizedArray<double>>;
template struct internal::FEFaceEvaluationGatherFactory<3, double, VectorizedArray<double>>;
template struct internal::FEFaceEvaluationGatherFactory<2, float, VectorizedArray<float>>;
template struct internal::FEFaceEvaluationGatherFactory<3, float, VectorizedArray<float>>;
DEAL_II_NAMESPACE_CLOSE
