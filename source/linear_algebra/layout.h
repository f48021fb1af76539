// Whether two vector layouts are one: the same partitioner, or two with the same owned and ghost
// entries (deal.II's Partitioner::is_compatible()). The one definition that gpumf::Vector, the loop
// schedule and the operators' vector checks use. Internal to the library.
#ifndef gpumf_source_linear_algebra_layout_h
#define gpumf_source_linear_algebra_layout_h

#include <deal.II/base/partitioner.h>

namespace gpumf
{
  namespace internal
  {
    inline bool
    same_layout(const dealii::Utilities::MPI::Partitioner &a, const dealii::Utilities::MPI::Partitioner &b)
    {
      return &a == &b || a.is_compatible(b);
    }
  } // namespace internal
} // namespace gpumf

#endif
