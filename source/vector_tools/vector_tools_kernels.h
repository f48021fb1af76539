// The kernels of gpumf::VectorTools that do not depend on the user's function: the naive host
// reference in vector_tools_reference.cc, CUDA in vector_tools_kernels.cu (core/executor.h: one
// list, both executors). The per-point work runs in the user's translation unit
// (include/gpumf/vector_tools.h, through MatrixFree::evaluate_coefficients()).
#ifndef gpumf_source_vector_tools_vector_tools_kernels_h
#define gpumf_source_vector_tools_vector_tools_kernels_h

#include <gpumf/internal/dof_access.h>

#include <cstddef>

#include "core/executor.h"

#define GPUMF_VECTOR_TOOLS_KERNELS(Number, TEMPLATE)                                                             \
  /* per_cell[c] = sum (maximum: max) of points[c * n_q + q] over q < n_q, for c < n_cells */                    \
  TEMPLATE void reduce_per_cell(                                                                                 \
    const Number *points, unsigned int n_cells, unsigned int n_q, bool maximum, Number *per_cell);               \
  /* for each cell DoF k < n: v[plain[k]] = read_dof(v, codes[k]) where codes[k] is a constraint row, 0 where */ \
  /* it is no_dof (homogeneous AffineConstraints::distribute(); the masters are never constrained) */            \
  TEMPLATE void distribute_constraints(                                                                          \
    Number *v, const unsigned int *codes, const unsigned int *plain, std::size_t n, ConstraintRows<Number> rows);

GPUMF_DECLARE_KERNELS(GPUMF_VECTOR_TOOLS_KERNELS(Number, template <typename Number>))

#endif
