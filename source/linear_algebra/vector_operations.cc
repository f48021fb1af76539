// The host reference loops of the vector operations, and the dispatch to the CUDA
// kernels in vector_kernels.cu.
#include <algorithm>
#include <cmath>

#include "core/executor.h"
#include "linear_algebra/vector_operations.h"

namespace gpumf
{
  namespace internal
  {
    template <typename Number>
    void
    fill(Backend backend, Number *x, std::size_t n, Number s)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::fill(x, n, s));
      std::fill(x, x + n, s);
    }

    template <typename Number>
    void
    update(Backend backend, Number *x, std::size_t n, Number s, bool read_x, Number a, const Number *y,
           Number b, const Number *z, Number c)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::update(x, n, s, read_x, a, y, b, z, c));
      for (std::size_t i = 0; i < n; ++i)
        {
          Number r = read_x ? s * x[i] : Number(0);
          if (y != nullptr)
            r += a * y[i];
          if (z != nullptr)
            r += b * z[i];
          x[i] = r + c;
        }
    }

    template <typename Number>
    void
    scale(Backend backend, Number *x, std::size_t n, const Number *y)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::scale(x, n, y));
      for (std::size_t i = 0; i < n; ++i)
        x[i] *= y[i];
    }

    template <typename Number>
    void
    reciprocal(Backend backend, Number *x, std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::reciprocal(x, n));
      for (std::size_t i = 0; i < n; ++i)
        x[i] = Number(1) / x[i];
    }

    template <typename Number>
    Number
    reduce(Backend backend, Reduction op, const Number *x, const Number *y, std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::reduce(op, x, y, n));
      Number r = 0;
      for (std::size_t i = 0; i < n; ++i)
        switch (op)
          {
            case Reduction::dot:
              r += x[i] * y[i];
              break;
            case Reduction::sum:
              r += x[i];
              break;
            case Reduction::abs_sum:
              r += std::abs(x[i]);
              break;
            case Reduction::abs_max:
              r = std::max<Number>(r, std::abs(x[i]));
              break;
          }
      return r;
    }

    template <typename Number>
    Number
    add_and_dot(Backend backend, Number *x, std::size_t n, Number a, const Number *v, const Number *w)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::add_and_dot(x, n, a, v, w));
      Number r = 0;
      for (std::size_t i = 0; i < n; ++i)
        {
          x[i] += a * v[i];
          r += x[i] * w[i];
        }
      return r;
    }

    template <typename Number>
    void
    cg_update(Backend backend, Number *x, Number *r, const Number *p, const Number *Ap, const Number *D,
              Number alpha, std::size_t n, Number (&sums)[2])
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::cg_update(x, r, p, Ap, D, alpha, n, sums));
      sums[0] = sums[1] = 0;
      for (std::size_t i = 0; i < n; ++i)
        {
          x[i] += alpha * p[i];
          r[i] += alpha * Ap[i];
          sums[0] += r[i] * r[i];
          sums[1] += r[i] * (D != nullptr ? D[i] * r[i] : r[i]);
        }
    }

    template <typename Number>
    void
    cg_direction(Backend backend, Number *p, const Number *r, const Number *D, Number beta, bool read_p,
                 std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::cg_direction(p, r, D, beta, read_p, n));
      for (std::size_t i = 0; i < n; ++i)
        p[i] = -(D != nullptr ? D[i] * r[i] : r[i]) + (read_p ? beta * p[i] : Number(0));
    }

    template <typename Number>
    void
    gather(Backend backend, Number *buffer, const Number *x, const unsigned int *indices, std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::gather(buffer, x, indices, n));
      for (std::size_t i = 0; i < n; ++i)
        buffer[i] = x[indices[i]];
    }

    template <typename Number>
    void
    scatter_add(Backend backend, Number *x, const unsigned int *indices, const Number *buffer, std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::scatter_add(x, indices, buffer, n));
      for (std::size_t i = 0; i < n; ++i)
        x[indices[i]] += buffer[i];
    }

    template <typename Number>
    void
    set_indexed(Backend backend, Number *dst, const unsigned int *indices, const Number *src, Number value,
                bool add, std::size_t n)
    {
      if (backend == Backend::cuda)
        GPUMF_CUDA(return cuda::set_indexed(dst, indices, src, value, add, n));
      for (std::size_t i = 0; i < n; ++i)
        dst[indices[i]] = (add ? dst[indices[i]] : Number(0)) + (src == nullptr ? value : src[indices[i]]);
    }

#define GPUMF_INSTANTIATE(Number)                                                                         \
  template void   fill<Number>(Backend, Number *, std::size_t, Number);                                   \
  template void   update<Number>(Backend, Number *, std::size_t, Number, bool, Number, const Number *,    \
                               Number, const Number *, Number);                                         \
  template void   scale<Number>(Backend, Number *, std::size_t, const Number *);                          \
  template void   reciprocal<Number>(Backend, Number *, std::size_t);                                     \
  template Number reduce<Number>(Backend, Reduction, const Number *, const Number *, std::size_t);        \
  template Number add_and_dot<Number>(Backend, Number *, std::size_t, Number, const Number *, const Number *); \
  template void   cg_update<Number>(Backend, Number *, Number *, const Number *, const Number *,          \
                                  const Number *, Number, std::size_t, Number(&)[2]);                    \
  template void   cg_direction<Number>(Backend, Number *, const Number *, const Number *, Number, bool,   \
                                     std::size_t);                                                      \
  template void   gather<Number>(Backend, Number *, const Number *, const unsigned int *, std::size_t);    \
  template void   scatter_add<Number>(Backend, Number *, const unsigned int *, const Number *, std::size_t); \
  template void   set_indexed<Number>(Backend, Number *, const unsigned int *, const Number *, Number, bool, std::size_t);
    GPUMF_INSTANTIATE(float)
    GPUMF_INSTANTIATE(double)
#undef GPUMF_INSTANTIATE
  } // namespace internal
} // namespace gpumf
