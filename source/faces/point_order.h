// How the two sides of a face number its points: the other side's point for one side's point
// under the transforms (swap, flips) of the face's relative orientation. Without deal.II, for the
// host set-up (face_topology.h) and the kernels that read both sides (vector_tools/
// error_estimator_kernels.h) alike.
#ifndef gpumf_source_faces_point_order_h
#define gpumf_source_faces_point_order_h

#include <gpumf/config.h>

namespace gpumf
{
  namespace internal
  {
    /// The exterior's point that is the interior's point @p q of n^(dim-1) (face_points() order,
    /// the lower axis fastest) under the transforms of @p order (face_topology(): bit 2 swaps the
    /// axes, bits 0/1 flip the first / second).
    template <int dim>
    GPUMF_HOST_DEVICE inline unsigned int
    point_in_order(const unsigned int order, const unsigned int q, const unsigned int n)
    {
      unsigned int a = dim == 3 ? q % n : q, b = dim == 3 ? q / n : 0;
      if (order & 4)
        {
          const unsigned int t = a;
          a                    = b;
          b                    = t;
        }
      if (order & 1)
        a = n - 1 - a;
      if (order & 2)
        b = n - 1 - b;
      return a + n * b;
    }
  } // namespace internal
} // namespace gpumf

#endif
