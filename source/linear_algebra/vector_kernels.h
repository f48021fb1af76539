// Device kernels behind gpumf::Vector (defined in vector_kernels.cu). The host
// reference of each is the loop beside its call in vector.cc.
#ifndef gpumf_source_vector_kernels_h
#define gpumf_source_vector_kernels_h

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      enum class Reduction
      {
        dot,     // sum x[i]*y[i]
        sum,     // sum x[i]
        abs_sum, // sum |x[i]|
        abs_max  // max |x[i]|
      };

      /// x[i] = s
      template <typename Number>
      void
      fill(Number *x, std::size_t n, Number s);

      /// x[i] = (read_x ? s*x[i] : 0) + a*y[i] + b*z[i] + c; y, z may be null
      template <typename Number>
      void
      update(Number *      x,
             std::size_t   n,
             Number        s,
             bool          read_x,
             Number        a,
             const Number *y,
             Number        b,
             const Number *z,
             Number        c);

      /// x[i] *= y[i]
      template <typename Number>
      void
      scale(Number *x, std::size_t n, const Number *y);

      /// x[i] = 1 / x[i]
      template <typename Number>
      void
      reciprocal(Number *x, std::size_t n);

      /// The reduction over this rank's entries; y is used by Reduction::dot only.
      template <typename Number>
      Number
      reduce(Reduction op, const Number *x, const Number *y, std::size_t n);

      /// x += a*v, returns sum x[i]*w[i]
      template <typename Number>
      Number
      add_and_dot(Number *x, std::size_t n, Number a, const Number *v, const Number *w);

      /// CG pass 2: x += alpha p, r += alpha Ap; sums[0] = r.r, sums[1] = r.(D r) (D null: identity)
      template <typename Number>
      void
      cg_update(Number *x, Number *r, const Number *p, const Number *Ap, const Number *D, Number alpha,
                std::size_t n, Number (&sums)[2]);

      /// CG pass 3: p = -D r + (read_p ? beta p : 0) (D null: identity)
      template <typename Number>
      void
      cg_direction(Number *p, const Number *r, const Number *D, Number beta, bool read_p, std::size_t n);

      /// buffer[i] = x[indices[i]]
      template <typename Number>
      void
      gather(Number *buffer, const Number *x, const unsigned int *indices, std::size_t n);

      /// x[indices[i]] += buffer[i]; indices unique
      template <typename Number>
      void
      scatter_add(Number *x, const unsigned int *indices, const Number *buffer, std::size_t n);

      /// dst[indices[i]] = (add ? dst[indices[i]] : 0) + (src == null ? value : src[indices[i]])
      template <typename Number>
      void
      set_indexed(Number *dst, const unsigned int *indices, const Number *src, Number value, bool add, std::size_t n);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf

#endif
