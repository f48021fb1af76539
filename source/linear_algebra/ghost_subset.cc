// Ghost subsets (ghost_subset.h): deal.II's Partitioner computes who sends what.
#include "linear_algebra/ghost_subset.h"

#include <deal.II/base/mpi.h>

#include <algorithm>

namespace gpumf
{
  namespace internal
  {
    std::shared_ptr<const GhostSubset>
    make_ghost_subset(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &larger,
                      const std::vector<unsigned int>                                  &positions,
                      const Backend                                                     backend)
    {
      AssertThrow(larger, dealii::ExcNotInitialized());
      Assert(std::is_sorted(positions.begin(), positions.end()), dealii::ExcInternalError());
      const MPI_Comm comm    = larger->get_mpi_communicator();
      const bool     smaller = positions.size() < larger->n_ghost_indices();
      if (dealii::Utilities::MPI::max(int(smaller), comm) == 0)
        return nullptr;

      const dealii::IndexSet &all_ghosts = larger->ghost_indices();
      dealii::IndexSet        ghosts(all_ghosts.size());
      {
        std::vector<dealii::types::global_dof_index> indices;
        indices.reserve(positions.size());
        for (const unsigned int p : positions)
          {
            AssertIndexRange(p, larger->n_ghost_indices());
            indices.push_back(all_ghosts.nth_index_in_set(p));
          }
        ghosts.add_indices(indices.begin(), indices.end());
        ghosts.compress();
      }
      auto partitioner = std::make_shared<dealii::Utilities::MPI::Partitioner>(larger->locally_owned_range(), comm);
      partitioner->set_ghost_indices(ghosts, all_ghosts);

      auto subset         = std::make_shared<GhostSubset>();
      subset->larger      = larger;
      subset->partitioner = partitioner;
      subset->backend     = backend;
      std::vector<unsigned int> import;
      import.reserve(partitioner->n_import_indices());
      for (const auto &range : partitioner->import_indices())
        for (unsigned int i = range.first; i < range.second; ++i)
          import.push_back(i);
      subset->import_indices.reinit(backend, import);
      subset->positions.reinit(backend, positions);
      return subset;
    }
  } // namespace internal
} // namespace gpumf
