/**
 * @file gpumf/internal/vector_transform.h
 * Vector::transform(): a CUDA kernel where the caller is compiled by nvcc
 * (internal/index_loop.h), the host loop otherwise.
 */
#ifndef gpumf_internal_vector_transform_h
#define gpumf_internal_vector_transform_h

#include <gpumf/internal/index_loop.h>
#include <gpumf/vector.h>

namespace gpumf
{
  namespace internal
  {
    /// Entry i of the vector's values mapped through f (Vector::transform()'s kernel body).
    template <typename Number, typename Function>
    struct TransformEntry
    {
      Number  *x;
      Function f;

      __host__ __device__ void
      operator()(const std::size_t i) const
      {
        x[i] = f(x[i]);
      }
    };
  } // namespace internal

  template <typename Number>
  template <typename Function, typename Compiler>
  void
  Vector<Number>::transform(const Function &f)
  {
    zero_out_ghost_values(); // they would no longer match
    Number *const     x = get_values();
    const std::size_t n = locally_owned_size();
    if (backend() == Backend::host)
      for (std::size_t i = 0; i < n; ++i)
        x[i] = f(x[i]);
    else
      internal::cuda_for_each_index(n,
                                    internal::TransformEntry<Number, Function>{x, f},
                                    "gpumf::Vector::transform() on a vector of the CUDA backend");
  }
} // namespace gpumf

#endif
