// The kernels behind gpumf::Vector and gpumf::SolverCG, on one rank's entries: the naive host
// reference in vector_reference.cc, CUDA in vector_kernels.cu (core/executor.h: one list, both
// executors, called through GPUMF_DISPATCH).
#ifndef gpumf_source_linear_algebra_vector_kernels_h
#define gpumf_source_linear_algebra_vector_kernels_h

#include <cstddef>

#include "core/executor.h"

namespace gpumf
{
  namespace internal
  {
    enum class Reduction
    {
      dot,     // sum x[i]*y[i]
      sum,     // sum x[i]
      abs_sum, // sum |x[i]|
      abs_max  // max |x[i]|
    };

    /// The neighbours' entries that one kernel of the ipc exchange reads (kernel
    /// parameters, no device table): neighbour s holds the entries [starts[s],
    /// starts[s+1]) of the exchange's concatenated list, at values[s].
    template <typename Number>
    struct PeerEntries
    {
      static constexpr unsigned int max_peers             = 16;
      const Number                 *values[max_peers]     = {};
      unsigned int                  starts[max_peers + 1] = {};
      unsigned int                  n_peers               = 0;
    };
  } // namespace internal
} // namespace gpumf

#define GPUMF_VECTOR_KERNELS(Number, TEMPLATE)                                                                        \
  /* x[i] = s */                                                                                                      \
  TEMPLATE void fill(Number *x, std::size_t n, Number s);                                                             \
  /* x[i] = (read_x ? s*x[i] : 0) + a*y[i] + b*z[i] + c; y, z may be null */                                          \
  TEMPLATE void update(                                                                                               \
    Number *x, std::size_t n, Number s, bool read_x, Number a, const Number *y, Number b, const Number *z, Number c); \
  /* x[i] *= y[i] */                                                                                                  \
  TEMPLATE void scale(Number *x, std::size_t n, const Number *y);                                                     \
  /* x[i] = 1 / x[i] */                                                                                               \
  TEMPLATE void reciprocal(Number *x, std::size_t n);                                                                 \
  /* the reduction over this rank's entries; y is used by Reduction::dot only */                                      \
  TEMPLATE Number reduce(Reduction op, const Number *x, const Number *y, std::size_t n);                              \
  /* sum x[i] (i < n) + sum y[indices[j]]^2 (j < m), in a fixed order: a matrix-free operator's src.(A src) from      \
     its cells' energies x and its constrained rows (the identity) */                                                 \
  TEMPLATE Number sum_and_indexed_squares(                                                                            \
    const Number *x, std::size_t n, const Number *y, const unsigned int *indices, std::size_t m);                     \
  /* x += a*v, returns sum x[i]*w[i] */                                                                               \
  TEMPLATE Number add_and_dot(Number *x, std::size_t n, Number a, const Number *v, const Number *w);                  \
  /* CG pass 2: x += alpha p, r += alpha Ap; sums[0] = r.r, sums[1] = r.(D r) (D null: identity) */                   \
  TEMPLATE void cg_update(Number       *x,                                                                            \
                          Number       *r,                                                                            \
                          const Number *p,                                                                            \
                          const Number *Ap,                                                                           \
                          const Number *D,                                                                            \
                          Number        alpha,                                                                        \
                          std::size_t   n,                                                                            \
                          Number(&sums)[2]);                                                                          \
  /* CG pass 3: p = -D r + (read_p ? beta p : 0) (D null: identity) */                                                \
  TEMPLATE void cg_direction(Number *p, const Number *r, const Number *D, Number beta, bool read_p, std::size_t n);   \
  /* buffer[i] = x[indices[i]] */                                                                                     \
  TEMPLATE void gather(Number *buffer, const Number *x, const unsigned int *indices, std::size_t n);                  \
  /* x[positions[i]] = src[indices == null ? i : indices[positions[i]]] (a ghost subset's received entries) */        \
  TEMPLATE void copy_to_positions(                                                                                    \
    Number *x, const unsigned int *positions, const Number *src, const unsigned int *indices, std::size_t n);         \
  /* x[indices[i]] += buffer[i]; indices unique */                                                                    \
  TEMPLATE void scatter_add(Number *x, const unsigned int *indices, const Number *buffer, std::size_t n);             \
  /* buffer[i] = peers.values[s][indices[i]] for the i of neighbour s (ghost update of the ipc method) */             \
  TEMPLATE void gather_from_peers(Number *buffer, const PeerEntries<Number> &peers, const unsigned int *indices);     \
  /* x[indices[i]] += peers.values[s][i - peers.starts[s]], neighbour after neighbour (compress of the ipc method);   \
     the kernel sums by owned entry instead (rows[k] gets the entries positions[row_starts[k] .. row_starts[k+1]),    \
     in that order): bitwise the same, one thread per row */                                                          \
  TEMPLATE void scatter_add_from_peers(Number                    *x,                                                  \
                                       const unsigned int        *indices,                                            \
                                       const PeerEntries<Number> &peers,                                              \
                                       const unsigned int        *rows,                                               \
                                       const unsigned int        *row_starts,                                         \
                                       const unsigned int        *positions,                                          \
                                       std::size_t                n_rows);                                                           \
  /* dst[indices[i]] = (add ? dst[indices[i]] : 0) + (src == null ? value : src[indices[i]]) */                       \
  TEMPLATE void set_indexed(                                                                                          \
    Number *dst, const unsigned int *indices, const Number *src, Number value, bool add, std::size_t n);

GPUMF_DECLARE_KERNELS(GPUMF_VECTOR_KERNELS(Number, template <typename Number>))

#endif
