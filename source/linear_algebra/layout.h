// Whether two vector layouts are one: the same partitioner, or two with the same owned and ghost
// entries (deal.II's Partitioner::is_compatible()), received from the same ranks and the same
// entries sent to the same ranks.
// The last part makes the answer safe without communication: a rank that answers yes exchanges
// the same messages under either partitioner, so ranks may answer differently (a rank without
// ghosts under two partitioners that differ elsewhere) and still agree in every exchange. The one
// definition that gpumf::Vector, the loop schedule, the transfers and the operators' vector checks
// use. Internal to the library.
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
      return &a == &b || (a.is_compatible(b) && a.ghost_targets() == b.ghost_targets() &&
                          a.import_targets() == b.import_targets() && a.import_indices() == b.import_indices());
    }
  } // namespace internal
} // namespace gpumf

#endif
