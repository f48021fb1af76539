// bench::dealii_simd_width() (benchmark.h), compiled by g++: deal.II's vectorization header stays
// out of the benchmarks' nvcc translation units.
#include <deal.II/base/vectorization.h>

#include "benchmark.h"

namespace bench
{
  unsigned int
  dealii_simd_width()
  {
    return dealii::VectorizedArray<double>::size();
  }
} // namespace bench
