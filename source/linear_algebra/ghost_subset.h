// A part of a vector layout's ghost entries that one exchange moves (what deal.II's MatrixFree
// calls the tight partitioners of DataAccessOnFaces): the face loops send only the DoFs of the
// ghost cells that their functors read. Internal to the library.
#ifndef gpumf_source_linear_algebra_ghost_subset_h
#define gpumf_source_linear_algebra_ghost_subset_h

#include <deal.II/base/partitioner.h>

#include <gpumf/backend.h>
#include <gpumf/internal/memory.h>

#include <memory>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /**
     * Some of the ghost entries of the layout @p larger: a partitioner of the same owned
     * entries whose ghosts are those entries (deal.II's Partitioner::set_ghost_indices() with
     * a larger ghost set), which says what each rank sends and receives, and where each
     * received entry goes in the larger layout's ghost range. Vector::update_ghost_values()
     * with a subset moves these entries only and leaves the other ghost entries zero.
     */
    struct GhostSubset
    {
      /// the layout of the vectors it serves
      std::shared_ptr<const dealii::Utilities::MPI::Partitioner> larger;
      /// the same owned entries, the subset as ghosts (in the larger ghost range's order)
      std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
      Backend                                                    backend = Backend::host;
      /// the owned entries other ranks import, as local indices in partitioner's import order
      Array<unsigned int> import_indices;
      /// [i]: position in the larger ghost range of the subset's i-th ghost entry (on the host:
      /// partitioner->ghost_indices_within_larger_ghost_set())
      Array<unsigned int> positions;

      unsigned int
      n_ghost_indices() const
      {
        return partitioner->n_ghost_indices();
      }
    };

    /**
     * The subset of the ghost entries of @p larger at the ascending positions @p positions of
     * its ghost range, on @p backend; nullptr where no rank's subset leaves an entry out (the
     * full exchange is then as cheap). Collective over @p larger's communicator.
     */
    std::shared_ptr<const GhostSubset>
    make_ghost_subset(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &larger,
                      const std::vector<unsigned int>                                  &positions,
                      const Backend                                                     backend);
  } // namespace internal
} // namespace gpumf

#endif
