// gpumf::VectorTools: the part of integrate_difference() that does not depend on the user's
// function (the per-point values come from a cell loop compiled in the user's translation unit):
// per-cell reduction on the object's backend, the global value over the ranks, the cells' values.
#include <gpumf/vector_tools.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "linear_algebra/vector_kernels.h"
#include "vector_tools/vector_tools_kernels.h"

namespace gpumf
{
  namespace VectorTools
  {
    namespace internal
    {
      template <int dim, typename Number>
      Number
      finish_integrate_difference(const MatrixFree<dim, Number> &mf,
                                  const Number                  *per_point,
                                  const NormType                 norm,
                                  std::vector<Number>           *per_cell)
      {
        using ::gpumf::internal::Reduction;
        const Backend                    backend = mf.backend();
        const unsigned int               n_cells = mf.n_cells();
        const bool                       maximum = norm == Linfty_norm;
        ::gpumf::internal::Array<Number> cells;
        cells.reinit(backend, n_cells);
        GPUMF_DISPATCH(backend, reduce_per_cell<Number>(per_point, n_cells, mf.n_q_points(), maximum, cells.data()));
        Number local =
          GPUMF_DISPATCH(backend,
                         reduce<Number>(maximum ? Reduction::abs_max : Reduction::sum, cells.data(), nullptr, n_cells));
        const MPI_Comm comm = mf.get_dof_handler().get_triangulation().get_communicator();
        if (dealii::Utilities::MPI::job_supports_mpi())
          local = maximum ? dealii::Utilities::MPI::max(local, comm) : dealii::Utilities::MPI::sum(local, comm);
        if (per_cell != nullptr)
          {
            *per_cell = cells.to_host();
            if (!maximum)
              for (Number &value : *per_cell)
                value = std::sqrt(value);
          }
        return maximum ? local : std::sqrt(local);
      }

#define GPUMF_INSTANTIATE(dim, Number)                                                      \
  template Number finish_integrate_difference<dim, Number>(const MatrixFree<dim, Number> &, \
                                                           const Number *,                  \
                                                           const NormType,                  \
                                                           std::vector<Number> *);
      GPUMF_INSTANTIATE(2, double)
      GPUMF_INSTANTIATE(3, double)
      GPUMF_INSTANTIATE(2, float)
      GPUMF_INSTANTIATE(3, float)
#undef GPUMF_INSTANTIATE
    } // namespace internal

    template <int dim, typename Number>
    void
    distribute_constraints(const MatrixFree<dim, Number>           &mf,
                           const dealii::AffineConstraints<Number> &constraints,
                           Vector<Number>                          &v)
    {
      mf.check_vector(v);
      const MPI_Comm comm = mf.get_dof_handler().get_triangulation().get_communicator();
      const bool     mpi  = dealii::Utilities::MPI::job_supports_mpi();
      // The lines must be the object's: its rows and constrained DoFs come from reinit(). This
      // rank's lines of @p constraints against the object's constrained DoFs, both ways; their
      // inhomogeneities (read here: MatrixFree keeps the lines, not their values) are added
      // after the rows.
      const auto                      &partitioner = *v.get_partitioner();
      const std::vector<unsigned int> &constrained = mf.get_constrained_dofs();
      std::vector<unsigned int>        owned_lines, inhomogeneous_entries;
      std::vector<Number>              inhomogeneities;
      for (const auto &line : constraints.get_lines())
        if (partitioner.in_local_range(line.index))
          {
            const unsigned int local = partitioner.global_to_local(line.index);
            owned_lines.push_back(local);
            if (line.inhomogeneity != Number(0))
              {
                inhomogeneous_entries.push_back(local);
                inhomogeneities.push_back(line.inhomogeneity);
              }
          }
      std::sort(owned_lines.begin(), owned_lines.end());
      dealii::types::global_dof_index first_other = dealii::numbers::invalid_dof_index;
      if (owned_lines != constrained)
        {
          std::vector<unsigned int> difference;
          std::set_symmetric_difference(owned_lines.begin(),
                                        owned_lines.end(),
                                        constrained.begin(),
                                        constrained.end(),
                                        std::back_inserter(difference));
          first_other = partitioner.local_to_global(difference.front()); // (both sorted, no repeats)
        }
      // The kernel writes the constrained DoFs of the object's cells: with an iterator filter an
      // owned constrained DoF may lie on none of them, and its value would not be added to a
      // fresh one. (Counted only where there are values to add.)
      bool some_cells = false;
      if (!inhomogeneous_entries.empty())
        {
          const auto        &tria        = mf.get_dof_handler().get_triangulation();
          const unsigned int level       = mf.get_mg_level();
          unsigned int       owned_cells = 0;
          if (level == dealii::numbers::invalid_unsigned_int)
            for (const auto &cell : tria.active_cell_iterators())
              owned_cells += cell->is_locally_owned() ? 1 : 0;
          else
            for (const auto &cell : tria.cell_iterators_on_level(level))
              owned_cells += cell->is_locally_owned_on_level() ? 1 : 0;
          some_cells = mf.n_cells() < owned_cells;
        }
      // (every rank learns of another's error before the collective exchange below)
      const dealii::types::global_dof_index first_bad =
        mpi ? dealii::Utilities::MPI::min(first_other, comm) : first_other;
      AssertThrow(first_bad == dealii::numbers::invalid_dof_index,
                  dealii::ExcMessage("gpumf::VectorTools::distribute_constraints: the constraints passed and those "
                                     "the MatrixFree object was built with differ at DoF " +
                                     std::to_string(first_bad) +
                                     " (one has a line for it, the other not). Pass the constraints (the same "
                                     "lines) the MatrixFree object was built with; only their values may change."));
      AssertThrow(mpi ? dealii::Utilities::MPI::logical_or(some_cells, comm) == false : !some_cells,
                  dealii::ExcMessage("gpumf::VectorTools::distribute_constraints: constraints with inhomogeneities "
                                     "(Dirichlet values) need a MatrixFree object on all locally owned cells; this "
                                     "one was built with an iterator filter. Distribute them on the host "
                                     "(gpumf::host_copy(vector, constraints))."));
      const bool plain = mf.n_colors() == 0 || mf.n_cells() == 0 || mf.get_data(0).plain_local_to_global != nullptr;
      AssertThrow(mpi ? dealii::Utilities::MPI::min(int(plain), comm) == 1 : plain,
                  dealii::ExcMessage("gpumf::VectorTools::distribute_constraints: the MatrixFree object keeps no "
                                     "plain indices; set AdditionalData::store_plain_indices = true (the default) "
                                     "before reinit()."));
      // (every rank takes part in the exchanges, also one without cells; ghost values the vector
      // had are brought up to date first: the masters are read from them)
      const bool had_ghosts = v.has_ghost_elements();
      v.update_ghost_values();
      try
        {
          if (mf.n_colors() > 0 && mf.n_cells() > 0)
            {
              const typename MatrixFree<dim, Number>::Data data = mf.get_data(0);
              const std::size_t dofs_per_cell = data.n_components * dealii::Utilities::pow(data.n_dofs_1d, dim);
              // (get_data(0) points at the arrays of all cells: color 0 starts at cell 0)
              GPUMF_DISPATCH(mf.backend(),
                             distribute_constraints<Number>(v.get_values(),
                                                            data.local_to_global,
                                                            data.plain_local_to_global,
                                                            std::size_t(mf.n_cells()) * dofs_per_cell,
                                                            data.constraint_rows));
            }
        }
      catch (...)
        {
          if (!had_ghosts)
            v.zero_out_ghost_values();
          throw;
        }
      if (!had_ghosts)
        v.zero_out_ghost_values();
      if (!inhomogeneous_entries.empty())
        {
          // a constrained DoF now holds the weighted sum of its masters (0 without masters)
          ::gpumf::internal::Array<unsigned int> entries;
          ::gpumf::internal::Array<Number>       values;
          entries.reinit(mf.backend(), inhomogeneous_entries);
          values.reinit(mf.backend(), inhomogeneities);
          GPUMF_DISPATCH(mf.backend(),
                         scatter_add<Number>(v.get_values(), entries.data(), values.data(), entries.size()));
        }
      // a vector that came with ghost values leaves with them, the constrained ones with their
      // inhomogeneities too
      if (had_ghosts)
        v.update_ghost_values();
    }

    template <int dim, typename Number>
    void
    interpolate(const dealii::Mapping<dim>          &mapping,
                const dealii::DoFHandler<dim>       &dof_handler,
                const dealii::Function<dim, Number> &function,
                Vector<Number>                      &vector)
    {
      dealii::LinearAlgebra::distributed::Vector<Number> host(vector.get_partitioner());
      dealii::VectorTools::interpolate(mapping, dof_handler, function, host);
      vector.import_elements(host, dealii::VectorOperation::insert);
    }

    template void
    distribute_constraints(const MatrixFree<2, double> &, const dealii::AffineConstraints<double> &, Vector<double> &);
    template void
    distribute_constraints(const MatrixFree<3, double> &, const dealii::AffineConstraints<double> &, Vector<double> &);
    template void
    distribute_constraints(const MatrixFree<2, float> &, const dealii::AffineConstraints<float> &, Vector<float> &);
    template void
    distribute_constraints(const MatrixFree<3, float> &, const dealii::AffineConstraints<float> &, Vector<float> &);
    template void
    interpolate(const dealii::Mapping<2> &,
                const dealii::DoFHandler<2> &,
                const dealii::Function<2> &,
                Vector<double> &);
    template void
    interpolate(const dealii::Mapping<3> &,
                const dealii::DoFHandler<3> &,
                const dealii::Function<3> &,
                Vector<double> &);
  } // namespace VectorTools
} // namespace gpumf
