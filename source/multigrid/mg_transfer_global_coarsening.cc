// gpumf::MGTwoLevelTransfer and gpumf::MGTransferGlobalCoarsening: the set-up on the host with
// deal.II (the coarse cells with their children in the fine mesh, the constraints, layouts,
// weights and colors of mg_transfer_setup.h) and the dispatch to the transfer kernels of
// mg_transfer_kernels.h, which gpumf::MGTransferMatrixFree uses too.
#include <gpumf/mg_transfer_global_coarsening.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_system.h>

#include <exception>
#include <map>
#include <string>

#include <gpumf/internal/dof_access.h>
#include <gpumf/internal/loop_schedule.h>
#include <gpumf/setup_profile.h>

#include "core/device.h"
#include "core/executor.h"
#include "multigrid/mg_transfer_kernels.h"
#include "multigrid/mg_transfer_setup.h"
#include "linear_algebra/vector_kernels.h"

#include <numeric>
#include <type_traits>

namespace gpumf
{
  using namespace dealii;

  template <int dim, typename Number>
  struct MGTwoLevelTransfer<dim, Number>::Implementation
  {
    Backend      backend   = Backend::host;
    unsigned int fe_degree = 0, n_components = 1, patch_points = 0;
    MPI_Comm     comm = MPI_COMM_SELF;
    /// the coarse cells this rank handles (as the parents in the fine mesh, which the coloring
    /// of reinit_geometric_transfer() reads; not read after it: the mesh may change or go) with
    /// their patches (global indices), and their colors (made once)
    const Triangulation<dim>              *fine_tria = nullptr;
    bool                                   colored   = false;
    internal::Parents<dim>                 parents;
    std::vector<std::vector<unsigned int>> colors;
    IndexSet                               coarse_owned, fine_owned, coarse_needed, fine_needed;
    /// the layouts read and written in place, and the arrays in their local indices
    std::shared_ptr<const Utilities::MPI::Partitioner> coarse_layout, fine_layout;
    internal::Array<unsigned int>                      coarse_indices, coarse_plain_indices, fine_indices;
    internal::Array<Number>                            weights, prolongation, interpolation;
    unsigned int                                       weight_components = 1;
    std::vector<unsigned int>                          color_start{0};
    /// stand-ins for vectors of other layouts
    VectorType coarse_in, fine_in, coarse_out, fine_out;
    /// interpolate(): coarse_plain_indices on the host, 1 / (number of ranks holding an owned coarse DoF)
    std::vector<unsigned int> coarse_plain_host;
    VectorType                rank_weights;

    /// the arrays for the current layouts (collective)
    void
    make_arrays()
    {
      internal::LevelPatches<Number> patches = internal::level_patches<dim, Number>(*fine_tria,
                                                                                    parents,
                                                                                    fe_degree,
                                                                                    patch_points,
                                                                                    n_components,
                                                                                    coarse_layout,
                                                                                    fine_layout,
                                                                                    colored ? &colors : nullptr);
      colors                                 = std::move(patches.colors);
      colored                                = true;
      color_start                            = std::move(patches.color_start);
      weight_components                      = patches.weight_components;
      coarse_indices.reinit(backend, patches.coarse_local);
      coarse_plain_indices.reinit(backend, patches.coarse_plain);
      coarse_plain_host = std::move(patches.coarse_plain);
      rank_weights.reinit(0);
      fine_indices.reinit(backend, patches.fine_local);
      weights.reinit(backend, patches.weights);
    }

    internal::TransferLevel<dim, Number>
    level(const unsigned int color, const bool interpolation_matrix) const
    {
      return {interpolation_matrix ? coarse_plain_indices.data() : coarse_indices.data(),
              fine_indices.data(),
              weights.data(),
              interpolation_matrix ? interpolation.data() : prolongation.data(),
              fe_degree + 1,
              patch_points,
              n_components,
              weight_components,
              color_start[color],
              color_start[color + 1] - color_start[color]};
    }
  };

  namespace internal
  {
    namespace
    {
      /// The FE_Q of @p fe (itself, or the one base of an FESystem), after the checks of what is supported.
      template <int dim>
      const FE_Q<dim> &
      two_level_element(const FiniteElement<dim> &fe)
      {
        const FE_Q<dim> *fe_q =
          fe.n_base_elements() == 1 ? dynamic_cast<const FE_Q<dim> *>(&fe.base_element(0)) : nullptr;
        AssertThrow(fe_q != nullptr,
                    ExcNotSupported("gpumf::MGTwoLevelTransfer supports FE_Q<dim> and an FESystem<dim> of one "
                                    "FE_Q; got " +
                                    fe.get_name() +
                                    ". (For discontinuous elements on the levels of one mesh see "
                                    "gpumf::MGTransferMatrixFree.)"));
        return *fe_q;
      }

      /// Whether @p constraints constrains @p i, after the checks of what is supported.
      template <typename Number2>
      bool
      dirichlet(const AffineConstraints<Number2> &constraints, const types::global_dof_index i, const char *which)
      {
        AssertThrow(constraints.can_store_line(i),
                    ExcNotSupported(std::string("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the ") +
                                    which + " constraints do not hold DoF " + std::to_string(i) +
                                    ", which a cell of this rank has: make them for the locally relevant DoFs "
                                    "(AffineConstraints::reinit(DoFTools::extract_locally_relevant_dofs(dof)))."));
        if (!constraints.is_constrained(i))
          return false;
        const auto *entries = constraints.get_constraint_entries(i);
        AssertThrow((entries == nullptr || entries->empty()) && !constraints.is_inhomogeneously_constrained(i),
                    ExcNotSupported(
                      std::string("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the ") + which +
                      " constraints constrain DoF " + std::to_string(i) +
                      (constraints.is_inhomogeneously_constrained(i) ? " to a nonzero value" : " to other DoFs") +
                      "; supported are homogeneous Dirichlet conditions (constrained DoFs without "
                      "entries, e.g. DoFTools::make_zero_boundary_constraints()), on conforming "
                      "meshes without hanging nodes or periodicity."));
        return true;
      }

      /**
       * Runs @p phase, rank-local work that may throw, and then throws on every rank where the
       * phase threw on one: a rank-local exception would leave the other ranks waiting in the set-up's
       * next collective call. The failing rank throws its own exception.
       */
      template <typename Phase>
      void
      collectively(const MPI_Comm comm, const Phase &phase)
      {
        std::exception_ptr error;
        try
          {
            phase();
          }
        catch (...)
          {
            error = std::current_exception();
          }
        if (Utilities::MPI::max(int(error != nullptr), comm) > 0)
          {
            if (error != nullptr)
              std::rethrow_exception(error);
            AssertThrow(false,
                        ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the set-up "
                                        "failed on another rank (its message says why)."));
          }
      }

      /// The active cell of @p tria with the id of @p cell (of another mesh), if @p tria has it
      /// on this rank as a locally owned or ghost cell; else an invalid iterator.
      template <int dim>
      typename Triangulation<dim>::cell_iterator
      same_cell(const Triangulation<dim> &tria, const CellId &id)
      {
        typename Triangulation<dim>::cell_iterator cell =
          tria.create_cell_iterator(CellId(id.get_coarse_cell_id(), {}));
        for (const std::uint8_t child : id.get_child_indices())
          {
            if (!cell->has_children())
              return tria.end();
            cell = cell->child(child);
          }
        return cell;
      }
    } // namespace
  }   // namespace internal

  template <int dim, typename Number>
  typename MGTwoLevelTransfer<dim, Number>::Implementation &
  MGTwoLevelTransfer<dim, Number>::implementation() const
  {
    AssertThrow(impl != nullptr, ExcNotSupported("gpumf::MGTwoLevelTransfer: call reinit_geometric_transfer() first."));
    return *impl;
  }

  template <int dim, typename Number>
  MGTwoLevelTransfer<dim, Number>::MGTwoLevelTransfer() = default;

  template <int dim, typename Number>
  MGTwoLevelTransfer<dim, Number>::~MGTwoLevelTransfer() = default;

  template <int dim, typename Number>
  MGTwoLevelTransfer<dim, Number>::MGTwoLevelTransfer(MGTwoLevelTransfer &&) noexcept = default;

  template <int dim, typename Number>
  MGTwoLevelTransfer<dim, Number> &
  MGTwoLevelTransfer<dim, Number>::operator=(MGTwoLevelTransfer &&) noexcept = default;

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::reinit_geometric_transfer(const DoFHandler<dim> &dof_fine,
                                                             const DoFHandler<dim> &dof_coarse,
                                                             const Backend          backend)
  {
    reinit_geometric_transfer(dof_fine,
                              dof_coarse,
                              AffineConstraints<double>(),
                              AffineConstraints<double>(),
                              numbers::invalid_unsigned_int,
                              numbers::invalid_unsigned_int,
                              backend);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTwoLevelTransfer<dim, Number>::reinit_geometric_transfer(const DoFHandler<dim>            &dof_fine,
                                                             const DoFHandler<dim>            &dof_coarse,
                                                             const AffineConstraints<Number2> &constraints_fine,
                                                             const AffineConstraints<Number2> &constraints_coarse,
                                                             const unsigned int                mg_level_fine,
                                                             const unsigned int                mg_level_coarse,
                                                             const Backend                     backend)
  {
    AssertThrow(mg_level_fine == numbers::invalid_unsigned_int && mg_level_coarse == numbers::invalid_unsigned_int,
                ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer() transfers between the "
                                "active DoFs of two meshes; between the multigrid levels of one DoFHandler use "
                                "gpumf::MGTransferMatrixFree (gpumf/mg_transfer.h)."));
    if (backend == Backend::cuda)
      AssertThrow(cuda_available(), ExcNoGPU("no CUDA device is usable"));
    const FE_Q<dim> &fe_q = internal::two_level_element(dof_fine.get_fe());
    AssertThrow(dof_coarse.get_fe() == dof_fine.get_fe(),
                ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the coarse DoFHandler's "
                                "element (" +
                                dof_coarse.get_fe().get_name() + ") differs from the fine one's (" +
                                dof_fine.get_fe().get_name() +
                                "); supported is the same element on both meshes (no p-coarsening)."));
    internal::SetupSection    section("MGTwoLevelTransfer::reinit_geometric_transfer: coarse cells and patches");
    auto                      impl_new = std::make_unique<Implementation>();
    Implementation           &d        = *impl_new;
    const FiniteElement<dim> &fe       = dof_fine.get_fe();
    d.backend                          = backend;
    d.fe_degree                        = fe_q.degree;
    d.n_components                     = fe.n_components();
    d.patch_points                     = 2 * fe_q.degree + 1;
    const Triangulation<dim> &fine     = dof_fine.get_triangulation();
    const Triangulation<dim> &coarse   = dof_coarse.get_triangulation();
    d.fine_tria                        = &fine;
    d.comm                             = fine.get_communicator();
    if (backend == Backend::cuda)
      {
        const std::size_t bytes =
          (d.patch_points * (d.fe_degree + 1) + 2 * Utilities::pow(d.patch_points, dim)) * sizeof(Number);
        AssertThrow(bytes <= internal::max_shared_memory_per_block(),
                    ExcNotSupported("gpumf::MGTwoLevelTransfer: " + fe.get_name() + " needs " + std::to_string(bytes) +
                                    " bytes of shared memory per coarse cell; the GPU offers " +
                                    std::to_string(internal::max_shared_memory_per_block()) + "."));
      }

    // the coarse cells this rank handles: the parents of the families of fine cells whose first
    // child it owns (p4est keeps families on one rank), found in the coarse mesh by their id
    // where this rank has them (owned or ghost), else asked of their owners (p4est partitions
    // the coarse mesh anew)
    const unsigned int      n = d.fe_degree + 1, N = d.patch_points;
    const unsigned int      n_coarse = Utilities::pow(n, dim), n_fine = Utilities::pow(N, dim);
    const unsigned int      coarse_per_cell = d.n_components * n_coarse, fine_per_cell = d.n_components * n_fine;
    internal::Parents<dim> &p = d.parents;
    std::vector<typename Triangulation<dim>::cell_iterator> coarse_cells; // invalid: asked of the owner
    std::vector<std::string>                                requests;     // ids of those
    internal::collectively(d.comm, [&]() {
      for (const auto &cell : fine.active_cell_iterators())
        if (cell->is_locally_owned())
          {
            AssertThrow(cell->level() > 0,
                        ExcNotSupported(
                          "gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): fine cell " +
                          cell->id().to_string() +
                          " is a cell of the coarsest mesh; supported are fine meshes that are the "
                          "coarse mesh refined once everywhere (as create_geometric_coarsening_sequence() "
                          "makes them of a globally refined mesh)."));
            const auto parent = cell->parent();
            if (parent->child(0) != cell)
              continue;
            auto        coarse_cell = internal::same_cell(coarse, parent->id());
            std::string problem;
            if (coarse_cell != coarse.end() && !coarse_cell->is_active())
              problem = "refined in the coarse mesh";
            else if (coarse_cell == coarse.end() &&
                     dynamic_cast<const parallel::TriangulationBase<dim> *>(&coarse) == nullptr)
              problem = "not a cell of the coarse mesh (which is coarser there)";
            AssertThrow(problem.empty(),
                        ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the parent " +
                                        parent->id().to_string() + " of a fine cell of this rank is " + problem +
                                        "; supported are a fine mesh that is the coarse one refined once "
                                        "everywhere."));
            if (coarse_cell == coarse.end() || coarse_cell->is_artificial())
              {
                coarse_cell = coarse.end();
                requests.push_back(parent->id().to_string());
              }
            p.cells.push_back(parent);
            coarse_cells.push_back(coarse_cell);
          }
    });
    const std::vector<unsigned int> numbering = internal::patch_numbering(fe, static_cast<const FE_Poly<dim> &>(fe_q));
    const std::vector<unsigned int> child_position = internal::child_positions<dim>(n, N);

    // the remote coarse cells: every rank's requests to all, the owners answer with the cell's
    // DoF indices and their constraint flags (per request: coarse_per_cell indices, then as many
    // flags 0/1); a failed lookup answers nothing
    std::vector<types::global_dof_index> remote(requests.size() * 2 * coarse_per_cell);
    if (Utilities::MPI::max(requests.size(), d.comm) > 0)
      {
        const std::vector<std::vector<std::string>>                  all = Utilities::MPI::all_gather(d.comm, requests);
        std::map<unsigned int, std::vector<types::global_dof_index>> answers;
        std::vector<types::global_dof_index>                         indices(fe.n_dofs_per_cell());
        internal::collectively(d.comm, [&]() {
          for (unsigned int rank = 0; rank < all.size(); ++rank)
            for (unsigned int r = 0; r < all[rank].size(); ++r)
              {
                const auto cell = internal::same_cell(coarse, CellId(all[rank][r]));
                if (cell == coarse.end() || !cell->is_active() || !cell->is_locally_owned())
                  continue;
                const typename DoFHandler<dim>::active_cell_iterator dof_cell(&coarse,
                                                                              cell->level(),
                                                                              cell->index(),
                                                                              &dof_coarse);
                dof_cell->get_dof_indices(indices);
                auto &answer = answers[rank];
                answer.push_back(r);
                for (unsigned int i = 0; i < coarse_per_cell; ++i)
                  answer.push_back(indices[numbering[i]]);
                for (unsigned int i = 0; i < coarse_per_cell; ++i)
                  answer.push_back(internal::dirichlet(constraints_coarse, indices[numbering[i]], "coarse"));
              }
        });
        std::vector<unsigned char> answered(requests.size(), 0);
        for (const auto &[rank, answer] : Utilities::MPI::some_to_some(d.comm, answers))
          for (std::size_t k = 0; k < answer.size(); k += 1 + 2 * coarse_per_cell)
            {
              const std::size_t r = answer[k];
              std::copy_n(answer.begin() + k + 1, 2 * coarse_per_cell, remote.begin() + r * 2 * coarse_per_cell);
              answered[r] = 1;
            }
        internal::collectively(d.comm, [&]() {
          for (unsigned int r = 0; r < requests.size(); ++r)
            AssertThrow(answered[r],
                        ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the parent " +
                                        requests[r] +
                                        " of a fine cell of this rank is not an active cell of the coarse mesh on "
                                        "any rank; supported are a fine mesh that is the coarse one refined once "
                                        "everywhere."));
        });
      }

    const std::size_t        n_cells = p.cells.size();
    std::vector<std::size_t> remote_index(n_cells, 0);
    for (std::size_t c = 0, r = 0; c < n_cells; ++c)
      if (coarse_cells[c] == coarse.end())
        remote_index[c] = r++;
    p.coarse.resize(n_cells * coarse_per_cell);
    p.dirichlet.resize(p.coarse.size());
    p.fine.resize(n_cells * fine_per_cell);
    p.fine_constrained.resize(p.fine.size());
    internal::collectively(d.comm, [&]() {
      internal::parallel_for(n_cells, [&](const unsigned int begin, const unsigned int end) {
        std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
        for (unsigned int c = begin; c < end; ++c)
          {
            if (coarse_cells[c] == coarse.end())
              for (unsigned int i = 0; i < coarse_per_cell; ++i)
                {
                  const std::size_t k = std::size_t(c) * coarse_per_cell + i;
                  p.coarse[k]         = remote[remote_index[c] * 2 * coarse_per_cell + i];
                  p.dirichlet[k]      = remote[remote_index[c] * 2 * coarse_per_cell + coarse_per_cell + i];
                }
            else
              {
                const typename DoFHandler<dim>::active_cell_iterator coarse_cell(&coarse,
                                                                                 coarse_cells[c]->level(),
                                                                                 coarse_cells[c]->index(),
                                                                                 &dof_coarse);
                coarse_cell->get_dof_indices(indices);
                for (unsigned int i = 0; i < coarse_per_cell; ++i)
                  {
                    const std::size_t k = std::size_t(c) * coarse_per_cell + i;
                    p.coarse[k]         = indices[numbering[i]];
                    p.dirichlet[k]      = internal::dirichlet(constraints_coarse, p.coarse[k], "coarse");
                  }
              }
            for (unsigned int child = 0; child < GeometryInfo<dim>::max_children_per_cell; ++child)
              {
                const auto child_cell = p.cells[c]->child(child);
                AssertThrow(child_cell->is_active() && !child_cell->is_artificial(),
                            ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): fine cell " +
                                            child_cell->id().to_string() +
                                            (child_cell->is_active() ? " is not available on the rank that owns its "
                                                                       "first sibling" :
                                                                       " is refined further") +
                                            "; supported are a fine mesh that is the coarse one refined once "
                                            "everywhere."));
                const typename DoFHandler<dim>::active_cell_iterator fine_cell(&fine,
                                                                               child_cell->level(),
                                                                               child_cell->index(),
                                                                               &dof_fine);
                fine_cell->get_dof_indices(indices);
                const unsigned int *position = child_position.data() + child * n_coarse;
                for (unsigned int k = 0; k < d.n_components; ++k)
                  for (unsigned int i = 0; i < n_coarse; ++i)
                    {
                      const std::size_t entry   = std::size_t(c) * fine_per_cell + k * n_fine + position[i];
                      p.fine[entry]             = indices[numbering[k * n_coarse + i]];
                      p.fine_constrained[entry] = internal::dirichlet(constraints_fine, p.fine[entry], "fine");
                    }
              }
          }
      });
    });
    AssertThrow(Utilities::MPI::sum(n_cells, d.comm) == coarse.n_global_active_cells(),
                ExcNotSupported("gpumf::MGTwoLevelTransfer::reinit_geometric_transfer(): the fine mesh covers " +
                                std::to_string(Utilities::MPI::sum(n_cells, d.comm)) + " of the coarse mesh's " +
                                std::to_string(coarse.n_global_active_cells()) +
                                " cells by their children; supported are a fine mesh that is the coarse one refined "
                                "once everywhere."));

    section.next("MGTwoLevelTransfer::reinit_geometric_transfer: layouts, weights, colors");
    // the indices the coarse cells need that this rank does not own
    const auto needed = [](const std::vector<types::global_dof_index> &list, const IndexSet &owned) {
      IndexSet set(owned.size());
      internal::add_not_owned(list, owned, set);
      set.compress();
      return set;
    };
    d.coarse_owned  = dof_coarse.locally_owned_dofs();
    d.fine_owned    = dof_fine.locally_owned_dofs();
    d.coarse_needed = needed(p.coarse, d.coarse_owned);
    d.fine_needed   = needed(p.fine, d.fine_owned);
    d.coarse_layout = std::make_shared<Utilities::MPI::Partitioner>(d.coarse_owned, d.coarse_needed, d.comm);
    d.fine_layout   = std::make_shared<Utilities::MPI::Partitioner>(d.fine_owned, d.fine_needed, d.comm);
    d.prolongation.reinit(backend, internal::embedding_1d<dim, Number>(fe_q));
    d.interpolation.reinit(backend, internal::interpolation_1d<dim, Number>(fe_q));
    d.make_arrays();
    // later layouts reuse the colors: the meshes may change or go after the set-up
    d.parents.cells.clear();
    impl = std::move(impl_new);
  }

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::enable_inplace_operations_if_possible(
    const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner_coarse,
    const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner_fine) const
  {
    Implementation &d      = implementation();
    const auto      usable = [](const std::shared_ptr<const Utilities::MPI::Partitioner> &given,
                           const IndexSet                                           &owned,
                           const IndexSet                                           &needed) {
      return given != nullptr && given->locally_owned_range() == owned && (needed & given->ghost_indices()) == needed;
    };
    const bool coarse = Utilities::MPI::min(int(usable(partitioner_coarse, d.coarse_owned, d.coarse_needed)), d.comm);
    const bool fine   = Utilities::MPI::min(int(usable(partitioner_fine, d.fine_owned, d.fine_needed)), d.comm);
    if (coarse && partitioner_coarse.get() != d.coarse_layout.get())
      d.coarse_layout = partitioner_coarse;
    if (fine && partitioner_fine.get() != d.fine_layout.get())
      d.fine_layout = partitioner_fine;
    if (coarse || fine)
      d.make_arrays();
  }

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::apply(const bool restriction, VectorType &dst, const VectorType &src) const
  {
    Implementation   &d          = implementation();
    const auto       &src_layout = restriction ? d.fine_layout : d.coarse_layout;
    const auto       &dst_layout = restriction ? d.coarse_layout : d.fine_layout;
    const VectorType &input      = internal::read_in_layout(src,
                                                       src_layout,
                                                       restriction ? d.fine_in : d.coarse_in,
                                                       d.backend,
                                                       restriction ? "the fine DoFHandler" : "the coarse DoFHandler");
    VectorType       &output     = internal::write_target(dst,
                                                dst_layout,
                                                restriction ? d.coarse_out : d.fine_out,
                                                d.backend,
                                                restriction ? "the coarse DoFHandler" : "the fine DoFHandler");
    internal::run_loop<Number>("gpumf::MGTwoLevelTransfer", &input, &output, true, [&]() {
      for (unsigned int c = 0; c + 1 < d.color_start.size(); ++c)
        {
          const internal::TransferLevel<dim, Number> level = d.level(c, false);
          if (restriction)
            GPUMF_DISPATCH(d.backend, restrict_add(level, output.get_values(), input.get_values()));
          else
            GPUMF_DISPATCH(d.backend, prolongate_add(level, output.get_values(), input.get_values()));
        }
    });
    if (&output != &dst)
      dst += output;
  }

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::prolongate_and_add(VectorType &dst, const VectorType &src) const
  {
    apply(false, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::restrict_and_add(VectorType &dst, const VectorType &src) const
  {
    apply(true, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTwoLevelTransfer<dim, Number>::interpolate(VectorType &dst, const VectorType &src) const
  {
    Implementation   &d     = implementation();
    const VectorType &input = internal::read_in_layout(src, d.fine_layout, d.fine_in, d.backend, "the fine DoFHandler");
    AssertThrow(dst.backend() == d.backend && dst.locally_owned_size() == d.coarse_layout->locally_owned_size(),
                ExcVectorMismatch("a vector with " + std::to_string(dst.locally_owned_size()) + " owned entries",
                                  "the coarse DoFHandler with " +
                                    std::to_string(d.coarse_layout->locally_owned_size())));
    // every coarse cell writes its DoFs (owned and ghost entries: a DoF's cells may all be
    // handled by other ranks); the owners sum what the ranks holding the DoF wrote (compress
    // add) and divide by their number, all having computed the same interpolated value
    if (!internal::has_layout(d.rank_weights, d.coarse_layout))
      {
        LinearAlgebra::distributed::Vector<Number> count(d.coarse_layout);
        for (const unsigned int i : d.coarse_plain_host)
          count.local_element(i) = 1;
        count.compress(VectorOperation::add);
        for (unsigned int i = 0; i < count.locally_owned_size(); ++i)
          count.local_element(i) = count.local_element(i) > 0 ? 1. / count.local_element(i) : 0.;
        d.rank_weights.reinit(d.coarse_layout, d.backend);
        d.rank_weights.import_elements(count, VectorOperation::insert);
      }
    VectorType &target = internal::write_target(dst, d.coarse_layout, d.coarse_out, d.backend, "the coarse DoFHandler");
    target             = Number(0);
    target.zero_out_ghost_values();
    // the ghosts of the input are imported here unless the caller has them, and only those zeroed after
    const bool import = !input.has_ghost_elements();
    if (import)
      input.update_ghost_values();
    try
      {
        for (unsigned int c = 0; c + 1 < d.color_start.size(); ++c)
          GPUMF_DISPATCH(d.backend,
                         interpolate(d.level(c, true),
                                     d.coarse_layout->locally_owned_size() + d.coarse_layout->n_ghost_indices(),
                                     target.get_values(),
                                     input.get_values()));
      }
    catch (...)
      {
        if (import)
          input.zero_out_ghost_values();
        target.zero_out_ghost_values();
        throw;
      }
    if (import)
      input.zero_out_ghost_values();
    target.compress(VectorOperation::add);
    target.scale(d.rank_weights);
    if (&target != &dst)
      {
        dst = Number(0);
        dst += target;
      }
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MGTwoLevelTransfer<dim, Number>::get_partitioner_coarse() const
  {
    return implementation().coarse_layout;
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MGTwoLevelTransfer<dim, Number>::get_partitioner_fine() const
  {
    return implementation().fine_layout;
  }

  template <int dim, typename Number>
  unsigned int
  MGTwoLevelTransfer<dim, Number>::n_colors() const
  {
    return impl == nullptr ? 0 : impl->color_start.size() - 1;
  }

  template <int dim, typename Number>
  Backend
  MGTwoLevelTransfer<dim, Number>::backend() const
  {
    return implementation().backend;
  }

  template <int dim, typename Number>
  std::size_t
  MGTwoLevelTransfer<dim, Number>::memory_consumption() const
  {
    if (impl == nullptr)
      return sizeof(*this);
    const Implementation &d = *impl;
    return sizeof(*this) + sizeof(d) + d.coarse_indices.memory_consumption() +
           d.coarse_plain_indices.memory_consumption() + d.fine_indices.memory_consumption() +
           d.weights.memory_consumption() +
           (d.parents.coarse.size() + d.parents.fine.size()) * sizeof(types::global_dof_index) +
           d.parents.dirichlet.size() + d.parents.fine_constrained.size();
  }

  // ---------------------------------------------------------------------------------------------

  template <int dim, typename Number>
  MGTransferGlobalCoarsening<dim, Number>::MGTransferGlobalCoarsening(
    const MGLevelObject<MGTwoLevelTransfer<dim, Number>>        &transfer,
    const std::function<void(const unsigned int, VectorType &)> &initialize_dof_vector)
    : min_level_(transfer.min_level())
    , initialize_dof_vector(initialize_dof_vector)
  {
    for (unsigned int l = transfer.min_level(); l <= transfer.max_level(); ++l)
      transfers.push_back(&transfer[l]);
    if (initialize_dof_vector)
      {
        std::vector<VectorType> vectors(transfers.size());
        for (unsigned int l = min_level(); l <= max_level(); ++l)
          initialize_dof_vector(l, vectors[l - min_level()]);
        for (unsigned int l = min_level() + 1; l <= max_level(); ++l)
          this->transfer(l, "MGTransferGlobalCoarsening()")
            .enable_inplace_operations_if_possible(vectors[l - 1 - min_level()].get_partitioner(),
                                                   vectors[l - min_level()].get_partitioner());
      }
  }

  template <int dim, typename Number>
  unsigned int
  MGTransferGlobalCoarsening<dim, Number>::min_level() const
  {
    return min_level_;
  }

  template <int dim, typename Number>
  unsigned int
  MGTransferGlobalCoarsening<dim, Number>::max_level() const
  {
    return min_level_ + transfers.size() - 1;
  }

  template <int dim, typename Number>
  const MGTwoLevelTransfer<dim, Number> &
  MGTransferGlobalCoarsening<dim, Number>::transfer(const unsigned int fine_level, const char *function) const
  {
    AssertThrow(fine_level > min_level() && fine_level <= max_level(),
                ExcNotSupported(std::string("gpumf::MGTransferGlobalCoarsening::") + function + ": level " +
                                std::to_string(fine_level) + " has no transfer from a coarser level; the levels are " +
                                std::to_string(min_level()) + ".." + std::to_string(max_level()) + "."));
    return *transfers[fine_level - min_level()];
  }

  template <int dim, typename Number>
  void
  MGTransferGlobalCoarsening<dim, Number>::prolongate(const unsigned int to_level,
                                                      VectorType        &dst,
                                                      const VectorType  &src) const
  {
    dst = Number(0);
    prolongate_and_add(to_level, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferGlobalCoarsening<dim, Number>::prolongate_and_add(const unsigned int to_level,
                                                              VectorType        &dst,
                                                              const VectorType  &src) const
  {
    transfer(to_level, "prolongate_and_add()").prolongate_and_add(dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferGlobalCoarsening<dim, Number>::restrict_and_add(const unsigned int from_level,
                                                            VectorType        &dst,
                                                            const VectorType  &src) const
  {
    transfer(from_level, "restrict_and_add()").restrict_and_add(dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferGlobalCoarsening<dim, Number>::initialize_level(const unsigned int level, VectorType &v) const
  {
    if (initialize_dof_vector)
      {
        if (v.get_partitioner() == nullptr || v.size() == 0)
          initialize_dof_vector(level, v);
        return;
      }
    AssertThrow(max_level() > min_level(),
                ExcNotSupported("gpumf::MGTransferGlobalCoarsening::copy_to_mg(): one level and no "
                                "initialize_dof_vector function: nothing tells the level vector's layout; give the "
                                "function to the constructor."));
    const auto &t      = level > min_level() ? transfer(level, "copy_to_mg()") : transfer(level + 1, "copy_to_mg()");
    const auto &layout = level > min_level() ? t.get_partitioner_fine() : t.get_partitioner_coarse();
    if (!internal::has_layout(v, layout) || v.backend() != t.backend())
      v.reinit(layout, t.backend());
  }

  template <int dim, typename Number>
  template <typename Dst, typename Src>
  void
  MGTransferGlobalCoarsening<dim, Number>::copy_owned(Vector<Dst> &dst, const Vector<Src> &src, const bool add) const
  {
    AssertThrow(dst.locally_owned_size() == src.locally_owned_size() && dst.backend() == src.backend() &&
                  dst.get_partitioner()->locally_owned_range() == src.get_partitioner()->locally_owned_range(),
                ExcVectorMismatch("a global vector with " + std::to_string(src.locally_owned_size()) +
                                    " owned entries on " + to_string(src.backend()),
                                  "the finest level's " + std::to_string(dst.locally_owned_size()) + " on " +
                                    to_string(dst.backend()) + " (the same owned DoFs)"));
    // the ghost entries are not written: not current any more
    dst.zero_out_ghost_values();
    if constexpr (std::is_same_v<Dst, Src>)
      {
        if (!add)
          internal::copy(
            dst.backend(), dst.get_values(), src.backend(), src.get_values(), dst.locally_owned_size() * sizeof(Dst));
        else
          GPUMF_DISPATCH(dst.backend(),
                         update<Dst>(dst.get_values(),
                                     dst.locally_owned_size(),
                                     Dst(add ? 1 : 0),
                                     add,
                                     Dst(1),
                                     src.get_values(),
                                     Dst(0),
                                     nullptr,
                                     Dst(0)));
      }
    else
      {
        // the indices 0, 1, ... for copy_indexed(), kept for the next copy (each V-cycle has two)
        if (identity_indices.size() < dst.locally_owned_size() || identity_indices.backend() != dst.backend())
          {
            std::vector<unsigned int> identity(dst.locally_owned_size());
            std::iota(identity.begin(), identity.end(), 0u);
            identity_indices.reinit(dst.backend(), identity);
          }
        GPUMF_DISPATCH(dst.backend(),
                       copy_indexed(dst.get_values(),
                                    identity_indices.data(),
                                    src.get_values(),
                                    identity_indices.data(),
                                    static_cast<const double *>(nullptr),
                                    dst.locally_owned_size(),
                                    add));
      }
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferGlobalCoarsening<dim, Number>::copy_to_mg(const DoFHandler<dim> &,
                                                      MGLevelObject<VectorType> &dst,
                                                      const Vector<Number2>     &src) const
  {
    if (dst.min_level() != min_level() || dst.max_level() != max_level())
      dst.resize(min_level(), max_level());
    for (unsigned int l = min_level(); l <= max_level(); ++l)
      {
        initialize_level(l, dst[l]);
        if (l < max_level())
          dst[l] = Number(0);
      }
    copy_owned(dst[max_level()], src, false);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferGlobalCoarsening<dim, Number>::copy_from_mg(Vector<Number2>                 &dst,
                                                        const MGLevelObject<VectorType> &src,
                                                        const bool                       add) const
  {
    AssertThrow(src.max_level() == max_level(),
                ExcNotSupported("gpumf::MGTransferGlobalCoarsening::copy_from_mg(): the level vectors end at level " +
                                std::to_string(src.max_level()) + ", the transfer at " + std::to_string(max_level()) +
                                "."));
    copy_owned(dst, src[max_level()], add);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferGlobalCoarsening<dim, Number>::copy_from_mg(const DoFHandler<dim> &,
                                                        Vector<Number2>                 &dst,
                                                        const MGLevelObject<VectorType> &src) const
  {
    copy_from_mg(dst, src, false);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferGlobalCoarsening<dim, Number>::copy_from_mg_add(const DoFHandler<dim> &,
                                                            Vector<Number2>                 &dst,
                                                            const MGLevelObject<VectorType> &src) const
  {
    copy_from_mg(dst, src, true);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferGlobalCoarsening<dim, Number>::interpolate_to_mg(const DoFHandler<dim>     &dof_handler,
                                                             MGLevelObject<VectorType> &dst,
                                                             const Vector<Number2>     &src) const
  {
    copy_to_mg(dof_handler, dst, src);
    for (unsigned int l = max_level(); l > min_level(); --l)
      transfer(l, "interpolate_to_mg()").interpolate(dst[l - 1], dst[l]);
  }

  template <int dim, typename Number>
  std::size_t
  MGTransferGlobalCoarsening<dim, Number>::memory_consumption() const
  {
    std::size_t bytes = sizeof(*this);
    for (const auto *t : transfers)
      bytes += t->memory_consumption();
    return bytes;
  }

#define GPUMF_INSTANTIATE(dim, Number, Number2)                                                                       \
  template void MGTwoLevelTransfer<dim, Number>::reinit_geometric_transfer<Number2>(                                  \
    const DoFHandler<dim> &,                                                                                          \
    const DoFHandler<dim> &,                                                                                          \
    const AffineConstraints<Number2> &,                                                                               \
    const AffineConstraints<Number2> &,                                                                               \
    unsigned int,                                                                                                     \
    unsigned int,                                                                                                     \
    Backend);                                                                                                         \
  template void MGTransferGlobalCoarsening<dim, Number>::copy_to_mg<Number2>(const DoFHandler<dim> &,                 \
                                                                             MGLevelObject<Vector<Number>> &,         \
                                                                             const Vector<Number2> &) const;          \
  template void MGTransferGlobalCoarsening<dim, Number>::copy_from_mg<Number2>(const DoFHandler<dim> &,               \
                                                                               Vector<Number2> &,                     \
                                                                               const MGLevelObject<Vector<Number>> &) \
    const;                                                                                                            \
  template void MGTransferGlobalCoarsening<dim, Number>::copy_from_mg_add<Number2>(                                   \
    const DoFHandler<dim> &, Vector<Number2> &, const MGLevelObject<Vector<Number>> &) const;                         \
  template void MGTransferGlobalCoarsening<dim, Number>::interpolate_to_mg<Number2>(const DoFHandler<dim> &,          \
                                                                                    MGLevelObject<Vector<Number>> &,  \
                                                                                    const Vector<Number2> &) const;
  template class MGTwoLevelTransfer<2, float>;
  template class MGTwoLevelTransfer<2, double>;
  template class MGTwoLevelTransfer<3, float>;
  template class MGTwoLevelTransfer<3, double>;
  template class MGTransferGlobalCoarsening<2, float>;
  template class MGTransferGlobalCoarsening<2, double>;
  template class MGTransferGlobalCoarsening<3, float>;
  template class MGTransferGlobalCoarsening<3, double>;
  GPUMF_INSTANTIATE(2, float, float)
  GPUMF_INSTANTIATE(2, float, double)
  GPUMF_INSTANTIATE(2, double, float)
  GPUMF_INSTANTIATE(2, double, double)
  GPUMF_INSTANTIATE(3, float, float)
  GPUMF_INSTANTIATE(3, float, double)
  GPUMF_INSTANTIATE(3, double, float)
  GPUMF_INSTANTIATE(3, double, double)
#undef GPUMF_INSTANTIATE
} // namespace gpumf
