// The naive host reference of the vector kernels (vector_kernels.h): one loop each, in index order.
#include <algorithm>
#include <cmath>

#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace host
    {
      template <typename Number>
      void
      fill(Number *x, std::size_t n, Number s)
      {
        std::fill(x, x + n, s);
      }

      template <typename Number>
      void
      update(Number       *x,
             std::size_t   n,
             Number        s,
             bool          read_x,
             Number        a,
             const Number *y,
             Number        b,
             const Number *z,
             Number        c)
      {
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
      scale(Number *x, std::size_t n, const Number *y)
      {
        for (std::size_t i = 0; i < n; ++i)
          x[i] *= y[i];
      }

      template <typename Number>
      void
      reciprocal(Number *x, std::size_t n)
      {
        for (std::size_t i = 0; i < n; ++i)
          x[i] = Number(1) / x[i];
      }

      template <typename Number>
      Number
      reduce(Reduction op, const Number *x, const Number *y, std::size_t n)
      {
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
      add_and_dot(Number *x, std::size_t n, Number a, const Number *v, const Number *w)
      {
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
      cg_update(Number       *x,
                Number       *r,
                const Number *p,
                const Number *Ap,
                const Number *D,
                Number        alpha,
                std::size_t   n,
                Number (&sums)[2])
      {
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
      cg_direction(Number *p, const Number *r, const Number *D, Number beta, bool read_p, std::size_t n)
      {
        for (std::size_t i = 0; i < n; ++i)
          p[i] = -(D != nullptr ? D[i] * r[i] : r[i]) + (read_p ? beta * p[i] : Number(0));
      }

      template <typename Number>
      void
      gather(Number *buffer, const Number *x, const unsigned int *indices, std::size_t n)
      {
        for (std::size_t i = 0; i < n; ++i)
          buffer[i] = x[indices[i]];
      }

      template <typename Number>
      void
      copy_to_positions(Number             *x,
                        const unsigned int *positions,
                        const Number       *src,
                        const unsigned int *indices,
                        std::size_t         n)
      {
        for (std::size_t i = 0; i < n; ++i)
          x[positions[i]] = src[indices == nullptr ? i : indices[positions[i]]];
      }

      template <typename Number>
      void
      scatter_add(Number *x, const unsigned int *indices, const Number *buffer, std::size_t n)
      {
        for (std::size_t i = 0; i < n; ++i)
          x[indices[i]] += buffer[i];
      }

      template <typename Number>
      void
      gather_from_peers(Number *buffer, const PeerEntries<Number> &peers, const unsigned int *indices)
      {
        for (unsigned int s = 0; s < peers.n_peers; ++s)
          for (unsigned int i = peers.starts[s]; i < peers.starts[s + 1]; ++i)
            buffer[i] = peers.values[s][indices[i]];
      }

      // the plain order: neighbour after neighbour (the row lists serve the GPU only)
      template <typename Number>
      void
      scatter_add_from_peers(Number                    *x,
                             const unsigned int        *indices,
                             const PeerEntries<Number> &peers,
                             const unsigned int *,
                             const unsigned int *,
                             const unsigned int *,
                             std::size_t)
      {
        for (unsigned int s = 0; s < peers.n_peers; ++s)
          for (unsigned int i = peers.starts[s]; i < peers.starts[s + 1]; ++i)
            x[indices[i]] += peers.values[s][i - peers.starts[s]];
      }

      template <typename Number>
      Number
      sum_and_indexed_squares(const Number       *x,
                              std::size_t         n,
                              const Number       *y,
                              const unsigned int *indices,
                              std::size_t         m)
      {
        Number sum = 0;
        for (std::size_t i = 0; i < n; ++i)
          sum += x[i];
        for (std::size_t j = 0; j < m; ++j)
          sum += y[indices[j]] * y[indices[j]];
        return sum;
      }

      template <typename Number>
      void
      set_indexed(Number *dst, const unsigned int *indices, const Number *src, Number value, bool add, std::size_t n)
      {
        for (std::size_t i = 0; i < n; ++i)
          dst[indices[i]] = (add ? dst[indices[i]] : Number(0)) + (src == nullptr ? value : src[indices[i]]);
      }

      GPUMF_VECTOR_KERNELS(float, template)
      GPUMF_VECTOR_KERNELS(double, template)
    } // namespace host
  }   // namespace internal
} // namespace gpumf
