// gpumf::VectorTools: the part of integrate_difference() that does not depend on the user's
// function (the per-point values come from a cell loop compiled in the user's translation unit):
// per-cell reduction on the object's backend, the global value over the ranks, the cells' values.
#include <gpumf/vector_tools.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
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
      // the inhomogeneities of this rank's own constrained DoFs, added after the rows: from
      // @p constraints at this call (MatrixFree keeps the lines, not their values)
      std::vector<unsigned int>        inhomogeneous_entries;
      std::vector<Number>              inhomogeneities;
      const auto                      &partitioner           = *v.get_partitioner();
      const std::vector<unsigned int> &constrained           = mf.get_constrained_dofs();
      dealii::types::global_dof_index  not_constrained_in_mf = dealii::numbers::invalid_dof_index;
      for (const auto &line : constraints.get_lines())
        if (line.inhomogeneity != Number(0) && partitioner.in_local_range(line.index))
          {
            const unsigned int local = partitioner.global_to_local(line.index);
            if (!std::binary_search(constrained.begin(), constrained.end(), local))
              not_constrained_in_mf = std::min(not_constrained_in_mf, line.index);
            inhomogeneous_entries.push_back(local);
            inhomogeneities.push_back(line.inhomogeneity);
          }
      // (every rank learns of another's error before the collective exchange below)
      const dealii::types::global_dof_index first_bad =
        mpi ? dealii::Utilities::MPI::min(not_constrained_in_mf, comm) : not_constrained_in_mf;
      AssertThrow(first_bad == dealii::numbers::invalid_dof_index,
                  dealii::ExcMessage("gpumf::VectorTools::distribute_constraints: DoF " + std::to_string(first_bad) +
                                     " has an inhomogeneity in the constraints passed, but the MatrixFree object was "
                                     "not built with it constrained. Pass the constraints (the same lines) the "
                                     "MatrixFree object was built with; only their values may change."));
      const bool plain = mf.n_colors() == 0 || mf.n_cells() == 0 || mf.get_data(0).plain_local_to_global != nullptr;
      AssertThrow(mpi ? dealii::Utilities::MPI::min(int(plain), comm) == 1 : plain,
                  dealii::ExcMessage("gpumf::VectorTools::distribute_constraints: the MatrixFree object keeps no "
                                     "plain indices; set AdditionalData::store_plain_indices = true (the default) "
                                     "before reinit()."));
      // (every rank takes part in the exchange, also one without cells)
      const bool had_ghosts = v.has_ghost_elements();
      if (!had_ghosts)
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
