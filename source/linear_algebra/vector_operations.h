// Element-wise and reduction operations on one rank's entries, dispatched to the host
// reference loops (vector_operations.cc) or to the CUDA kernels (vector_kernels.cu).
#ifndef gpumf_source_vector_operations_h
#define gpumf_source_vector_operations_h

#include <gpumf/backend.h>

#include <cstddef>

#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  namespace internal
  {
    using cuda::Reduction;

    template <typename Number>
    void
    fill(Backend backend, Number *x, std::size_t n, Number s);

    /// x[i] = (read_x ? s*x[i] : 0) + a*y[i] + b*z[i] + c; y, z may be null
    template <typename Number>
    void
    update(Backend       backend,
           Number *      x,
           std::size_t   n,
           Number        s,
           bool          read_x,
           Number        a,
           const Number *y,
           Number        b,
           const Number *z,
           Number        c);

    template <typename Number>
    void
    scale(Backend backend, Number *x, std::size_t n, const Number *y);

    /// x[i] = 1 / x[i]
    template <typename Number>
    void
    reciprocal(Backend backend, Number *x, std::size_t n);

    template <typename Number>
    Number
    reduce(Backend backend, Reduction op, const Number *x, const Number *y, std::size_t n);

    template <typename Number>
    Number
    add_and_dot(Backend backend, Number *x, std::size_t n, Number a, const Number *v, const Number *w);

    template <typename Number>
    void
    cg_update(Backend backend, Number *x, Number *r, const Number *p, const Number *Ap, const Number *D,
              Number alpha, std::size_t n, Number (&sums)[2]);

    template <typename Number>
    void
    cg_direction(Backend backend, Number *p, const Number *r, const Number *D, Number beta, bool read_p,
                 std::size_t n);

    template <typename Number>
    void
    gather(Backend backend, Number *buffer, const Number *x, const unsigned int *indices, std::size_t n);

    template <typename Number>
    void
    scatter_add(Backend backend, Number *x, const unsigned int *indices, const Number *buffer, std::size_t n);

    template <typename Number>
    void
    set_indexed(Backend backend, Number *dst, const unsigned int *indices, const Number *src, Number value,
                bool add, std::size_t n);
  } // namespace internal
} // namespace gpumf

#endif
