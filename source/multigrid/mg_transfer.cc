// gpumf::MGTransferMatrixFree: setup on the host with deal.II (parents, children patches,
// weights, colors, copy indices), the host reference loops, and the dispatch to the CUDA
// kernels of mg_transfer_kernels.cu.
#include <gpumf/mg_transfer.h>

#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "core/coloring.h"
#include "core/device.h"
#include <gpumf/internal/dof_access.h>
#include "core/threads.h"
#include <gpumf/setup_profile.h>

#include <boost/iterator/counting_iterator.hpp>

#include <algorithm>
#include <map>
#include <numeric>

#include "core/executor.h"
#include <gpumf/internal/loop_schedule.h>
#include "faces/face_setup.h"
#include "multigrid/mg_transfer_kernels.h"
#include "multigrid/mg_transfer_setup.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace internal
  {
    namespace
    {

      /// The FE_Q or discontinuous FE_DGQ (and relatives) of @p dof's element, after the checks of
      /// what is supported.
      template <int dim>
      const FE_Poly<dim> &
      supported_element(const DoFHandler<dim> &dof)
      {
        const FiniteElement<dim> &fe       = dof.get_fe();
        const bool                one_base = fe.n_base_elements() == 1;
        const FiniteElement<dim> *base     = one_base ? &fe.base_element(0) : &fe;
        const FE_Poly<dim>       *fe_poly  = dynamic_cast<const FE_Q<dim> *>(base) != nullptr ?
                                               static_cast<const FE_Poly<dim> *>(dynamic_cast<const FE_Q<dim> *>(base)) :
                                               static_cast<const FE_Poly<dim> *>(dynamic_cast<const FE_DGQ<dim> *>(base));
        AssertThrow(one_base && fe_poly != nullptr,
                    ExcNotSupported("gpumf::MGTransferMatrixFree supports FE_Q<dim>, FE_DGQ<dim> and its relatives "
                                    "(FE_DGQHermite, FE_DGQLegendre, FE_DGQArbitraryNodes), and an FESystem<dim> of "
                                    "one of them; got " +
                                    fe.get_name() + "."));
        AssertThrow(dof.has_level_dofs(),
                    ExcNotSupported("gpumf::MGTransferMatrixFree::build(): the DoFHandler has no level DoFs; call "
                                    "dof_handler.distribute_mg_dofs() first."));
        return *fe_poly;
      }

      /**
       * The 1D embedding of a discontinuous element: the coefficients on each child of the coarse
       * basis functions, [(c * n + j) * n + i] for child c, child function j, coarse function i
       * (the element's own 1D polynomials, through their values at n Gauss points of the child:
       * exact, the coarse polynomials being of the child's degree).
       */
      template <int dim, typename Number>
      std::vector<Number>
      embedding_1d_discontinuous(const FE_Poly<dim> &fe)
      {
        const unsigned int  n = fe.degree + 1;
        const QGauss<1>     gauss(n);
        std::vector<double> x(n), x_child(2 * n), values, derivatives, child_values, unused;
        for (unsigned int q = 0; q < n; ++q)
          {
            x[q]           = gauss.point(q)[0];
            x_child[q]     = 0.5 * x[q];
            x_child[n + q] = 0.5 + 0.5 * x[q];
          }
        internal::basis_1d(fe, x, values, derivatives);        // [q * n + j]: phi_j(x_q)
        internal::basis_1d(fe, x_child, child_values, unused); // [(c n + q) * n + i]: phi_i on child c
        FullMatrix<double> v(n, n), v_inverse(n, n);
        for (unsigned int q = 0; q < n; ++q)
          for (unsigned int j = 0; j < n; ++j)
            v(q, j) = values[q * n + j];
        v_inverse.invert(v);
        std::vector<Number> embedding(2 * n * n);
        for (unsigned int c = 0; c < 2; ++c)
          for (unsigned int j = 0; j < n; ++j)
            for (unsigned int i = 0; i < n; ++i)
              {
                double sum = 0;
                for (unsigned int q = 0; q < n; ++q)
                  sum += v_inverse(j, q) * child_values[(c * n + q) * n + i];
                embedding[(c * n + j) * n + i] = Number(sum);
              }
        return embedding;
      }

      /// Per level: the parents whose children are on it, and the level's relevant DoFs plus what the patches need.
      template <int dim>
      struct Patches
      {
        std::vector<Parents<dim>> parents;
        std::vector<IndexSet>     ghosts;
      };

      /// The parents and their patches, global indices, in threads.
      template <int dim>
      Patches<dim>
      patches(const DoFHandler<dim> &dof, const FE_Poly<dim> &fe_q, const MGConstrainedDoFs *mg_constrained_dofs)
      {
        // continuous: the children share the middle points, 2p+1 per direction; discontinuous: 2p+2
        const bool                      discontinuous = dynamic_cast<const FE_DGQ<dim> *>(&fe_q) != nullptr;
        const FiniteElement<dim>       &fe            = dof.get_fe();
        const unsigned int              fe_degree     = fe_q.degree;
        const unsigned int              n_components  = fe.n_components();
        const unsigned int              n = fe_degree + 1, N = discontinuous ? 2 * n : 2 * fe_degree + 1;
        const unsigned int              n_coarse = Utilities::pow(n, dim), n_fine = Utilities::pow(N, dim);
        const std::vector<unsigned int> numbering      = internal::patch_numbering(fe, fe_q);
        const std::vector<unsigned int> child_position = internal::child_positions<dim>(n, N);
        const Triangulation<dim>       &tria           = dof.get_triangulation();
        const unsigned int              n_levels       = tria.n_global_levels();
        const auto                      is_boundary = [&](const unsigned int level, const types::global_dof_index i) {
          return mg_constrained_dofs != nullptr && mg_constrained_dofs->is_boundary_index(level, i);
        };
        const unsigned int        coarse_per_parent = n_components * n_coarse, fine_per_parent = n_components * n_fine;
        std::vector<Parents<dim>> parents(n_levels);
        std::vector<IndexSet>     ghosts(n_levels);
        for (unsigned int l = 0; l < n_levels; ++l)
          ghosts[l] = DoFTools::extract_locally_relevant_level_dofs(dof, l);
        for (unsigned int l = 1; l < n_levels; ++l)
          {
            Parents<dim> &p = parents[l];
            for (const auto &cell : dof.mg_cell_iterators_on_level(l - 1))
              if (cell->has_children() && cell->is_locally_owned_on_level())
                p.cells.emplace_back(cell);
            p.coarse.resize(p.cells.size() * coarse_per_parent);
            p.dirichlet.resize(p.coarse.size());
            p.fine.resize(p.cells.size() * fine_per_parent);
            internal::parallel_for(p.cells.size(), [&](const unsigned int begin, const unsigned int end) {
              std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
              for (unsigned int c = begin; c < end; ++c)
                {
                  const typename DoFHandler<dim>::level_cell_iterator cell(&tria, l - 1, p.cells[c]->index(), &dof);
                  cell->get_mg_dof_indices(indices);
                  for (unsigned int i = 0; i < coarse_per_parent; ++i)
                    {
                      const std::size_t k = std::size_t(c) * coarse_per_parent + i;
                      p.coarse[k]         = indices[numbering[i]];
                      p.dirichlet[k]      = is_boundary(l - 1, p.coarse[k]);
                    }
                  for (unsigned int child = 0; child < GeometryInfo<dim>::max_children_per_cell; ++child)
                    {
                      cell->child(child)->get_mg_dof_indices(indices);
                      const unsigned int *position = child_position.data() + child * n_coarse;
                      for (unsigned int k = 0; k < n_components; ++k)
                        for (unsigned int i = 0; i < n_coarse; ++i)
                          p.fine[std::size_t(c) * fine_per_parent + k * n_fine + position[i]] =
                            indices[numbering[k * n_coarse + i]];
                    }
                }
            });
            internal::add_not_owned(p.coarse, dof.locally_owned_mg_dofs(l - 1), ghosts[l - 1]);
            internal::add_not_owned(p.fine, dof.locally_owned_mg_dofs(l), ghosts[l]);
          }
        return {std::move(parents), std::move(ghosts)};
      }

      /**
       * Level layouts: the relevant level DoFs plus what the patches need (@p ghosts); an external
       * layout where it holds all of them on every rank. Collective.
       */
      template <int dim>
      std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
      level_layouts(const DoFHandler<dim>                                                 &dof,
                    std::vector<IndexSet>                                                  ghosts,
                    const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> &external_partitioners,
                    const MPI_Comm                                                         comm)
      {
        const unsigned int                                              n_levels = ghosts.size();
        std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> partitioners(n_levels);
        for (unsigned int l = 0; l < n_levels; ++l)
          {
            ghosts[l].subtract_set(dof.locally_owned_mg_dofs(l));
            ghosts[l].compress();
            bool external = l < external_partitioners.size() && external_partitioners[l] != nullptr;
            if (external)
              {
                const auto &e = *external_partitioners[l];
                external      = e.locally_owned_range() == dof.locally_owned_mg_dofs(l) &&
                           (ghosts[l] & e.ghost_indices()) == ghosts[l];
              }
            if (Utilities::MPI::min(int(external), comm) == 1)
              partitioners[l] = external_partitioners[l];
            else
              partitioners[l] =
                std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_mg_dofs(l), ghosts[l], comm);
          }
        return partitioners;
      }

      /// copy_to_mg / copy_from_mg per level: local indices of the global and the level layout, and weights.
      struct CopyIndices
      {
        std::vector<std::vector<unsigned int>> global_local, level_local;
        std::vector<std::vector<double>>       weights;
      };

      /**
       * The (global, level) index pairs of the DoFs of the locally owned active cells of each
       * level, refinement edges excluded (the coarser level holds those) unless @p skip_edges is
       * false (interpolate_to_mg(): a level's refinement edges lie on its active cells, next to
       * coarser ones, and get the global vector's values there). On adaptive meshes a pair
       * can be recorded on several ranks (the owners of the global and of the level index need not
       * own a cell with it): each rank adds weight / (number of ranks recording the pair) and the
       * compress(add) of the receiving vector sums to the value. Collective.
       */
      template <int dim>
      CopyIndices
      copy_indices(const DoFHandler<dim>                                                 &dof,
                   const std::shared_ptr<const Utilities::MPI::Partitioner>              &global_partitioner,
                   const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> &partitioners,
                   const MGConstrainedDoFs                                               *mg_constrained_dofs,
                   const bool                                                             skip_edges = true)
      {
        const Triangulation<dim> &tria     = dof.get_triangulation();
        const FiniteElement<dim> &fe       = dof.get_fe();
        const unsigned int        n_levels = partitioners.size();
        CopyIndices               result{std::vector<std::vector<unsigned int>>(n_levels),
                           std::vector<std::vector<unsigned int>>(n_levels),
                           std::vector<std::vector<double>>(n_levels)};
        std::vector<typename Triangulation<dim>::active_cell_iterator> active;
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned())
            active.push_back(cell);
        // per DoF of each active cell: its local index in the global layout (invalid at a refinement
        // edge) and its level index, in threads
        const unsigned int                   dofs_per_cell = fe.n_dofs_per_cell();
        std::vector<unsigned int>            cell_global(active.size() * std::size_t(dofs_per_cell));
        std::vector<types::global_dof_index> cell_level(cell_global.size());
        internal::parallel_for(active.size(), [&](const unsigned int begin, const unsigned int end) {
          std::vector<types::global_dof_index> global_indices(dofs_per_cell), level_indices(dofs_per_cell);
          for (unsigned int c = begin; c < end; ++c)
            {
              const typename DoFHandler<dim>::active_cell_iterator cell(&tria,
                                                                        active[c]->level(),
                                                                        active[c]->index(),
                                                                        &dof);
              const unsigned int                                   l = cell->level();
              cell->get_dof_indices(global_indices);
              cell->get_mg_dof_indices(level_indices);
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                {
                  const std::size_t k    = std::size_t(c) * dofs_per_cell + i;
                  const bool        edge = skip_edges && mg_constrained_dofs != nullptr &&
                                    mg_constrained_dofs->at_refinement_edge(l, level_indices[i]);
                  cell_global[k] =
                    edge ? numbers::invalid_unsigned_int : global_partitioner->global_to_local(global_indices[i]);
                  cell_level[k] = level_indices[i];
                }
            }
        });
        // per level and entry of the global layout: its level index (invalid where the level has none)
        const unsigned int n_global_local =
          global_partitioner->locally_owned_size() + global_partitioner->n_ghost_indices();
        std::vector<std::vector<types::global_dof_index>> level_of(n_levels);
        for (std::size_t c = 0; c < active.size(); ++c)
          {
            auto &map = level_of[active[c]->level()];
            if (map.empty())
              map.assign(n_global_local, numbers::invalid_dof_index);
            for (std::size_t k = c * dofs_per_cell; k < (c + 1) * dofs_per_cell; ++k)
              if (cell_global[k] != numbers::invalid_unsigned_int)
                map[cell_global[k]] = cell_level[k];
          }
        // how many ranks record a pair: without edges a global DoF has one level, so one count
        // over all levels serves; with edges a DoF at an edge is on two levels, counted per level
        LinearAlgebra::distributed::Vector<double> recorded(global_partitioner);
        const auto                                 count = [&](const unsigned int first, const unsigned int end) {
          recorded = 0.;
          for (unsigned int l = first; l < end; ++l)
            for (unsigned int i = 0; i < level_of[l].size(); ++i)
              if (level_of[l][i] != numbers::invalid_dof_index)
                recorded.local_element(i) += 1.;
          recorded.compress(VectorOperation::add);
          recorded.update_ghost_values();
        };
        if (skip_edges)
          count(0, n_levels);
        for (unsigned int l = 0; l < n_levels; ++l)
          {
            if (!skip_edges)
              count(l, l + 1);
            // the entries with a level index in order, in threads: counted per range, then
            // written from each range's offset
            const std::vector<types::global_dof_index> &map   = level_of[l];
            const unsigned int                          n     = map.size();
            constexpr unsigned int                      range = internal::parallel_range;
            const auto recorded_here = [&](const unsigned int i) { return map[i] != numbers::invalid_dof_index; };
            std::vector<unsigned int> offsets((n + range - 1) / range + 1, 0);
            internal::parallel_for(n, [&](const unsigned int begin, const unsigned int end) {
              offsets[begin / range + 1] =
                std::count_if(boost::make_counting_iterator(begin), boost::make_counting_iterator(end), recorded_here);
            });
            std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
            std::vector<unsigned int> global_local(offsets.back()), level_local(offsets.back());
            std::vector<double>       weights(offsets.back());
            internal::parallel_for(n, [&](const unsigned int begin, const unsigned int end) {
              unsigned int k = offsets[begin / range];
              for (unsigned int i = begin; i < end; ++i)
                if (recorded_here(i))
                  {
                    global_local[k] = i;
                    level_local[k]  = partitioners[l]->global_to_local(map[i]);
                    weights[k]      = 1. / recorded.local_element(i);
                    ++k;
                  }
            });
            result.global_local[l] = std::move(global_local);
            result.level_local[l]  = std::move(level_local);
            result.weights[l]      = std::move(weights);
          }
        return result;
      }
    } // namespace
  }   // namespace internal

  template <int dim, typename Number>
  MGTransferMatrixFree<dim, Number>::MGTransferMatrixFree(const MGConstrainedDoFs &mg_constrained_dofs)
  {
    initialize_constraints(mg_constrained_dofs);
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::initialize_constraints(const MGConstrainedDoFs &mg_constrained_dofs)
  {
    this->mg_constrained_dofs = &mg_constrained_dofs;
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::clear()
  {
    levels.clear();
    partitioners.clear();
    global_partitioner.reset();
    prolongation_matrix.clear();
    interpolation_matrix.clear();
    dof_handler      = nullptr;
    with_edges_built = false;
    ghosted.clear();
    accumulated.clear();
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::build(
    const DoFHandler<dim>                                                 &dof,
    const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> &external_partitioners,
    const Backend                                                          backend)
  {
    clear();
    if (backend == Backend::cuda)
      AssertThrow(cuda_available(), ExcNoGPU("no CUDA device is usable"));
    backend_                 = backend;
    const FE_Poly<dim> &fe_q = internal::supported_element(dof);
    fe_degree                = fe_q.degree;
    n_components             = dof.get_fe().n_components();
    discontinuous            = dynamic_cast<const FE_DGQ<dim> *>(&fe_q) != nullptr;
    patch_points             = discontinuous ? 2 * fe_degree + 2 : 2 * fe_degree + 1;
    if (backend_ == Backend::cuda)
      {
        const unsigned int n = fe_degree + 1, N = patch_points;
        const unsigned int n_fine     = Utilities::pow(N, dim);
        const std::size_t  max_shared = internal::max_shared_memory_per_block();
        const std::size_t  bytes      = (N * n + 2 * n_fine) * sizeof(Number);
        AssertThrow(bytes <= max_shared,
                    ExcNotSupported("gpumf::MGTransferMatrixFree: " + dof.get_fe().get_name() + " needs " +
                                    std::to_string(bytes) +
                                    " bytes of shared memory per parent cell; "
                                    "the GPU offers " +
                                    std::to_string(max_shared) + "."));
      }
    if (discontinuous)
      prolongation_matrix.reinit(backend_, internal::embedding_1d_discontinuous<dim, Number>(fe_q));
    else
      {
        const auto &fe_continuous = static_cast<const FE_Q<dim> &>(fe_q);
        prolongation_matrix.reinit(backend_, internal::embedding_1d<dim, Number>(fe_continuous));
        interpolation_matrix.reinit(backend_, internal::interpolation_1d<dim, Number>(fe_continuous));
      }

    const Triangulation<dim> &tria     = dof.get_triangulation();
    const MPI_Comm            comm     = tria.get_communicator();
    const unsigned int        n_levels = tria.n_global_levels();

    internal::SetupSection section("MGTransferMatrixFree::build: patches");
    internal::Patches<dim> patches =
      internal::patches(dof, fe_q, static_cast<const MGConstrainedDoFs *>(mg_constrained_dofs));

    section.next("MGTransferMatrixFree::build: level layouts");
    partitioners = internal::level_layouts(dof, std::move(patches.ghosts), external_partitioners, comm);

    section.next("MGTransferMatrixFree::build: weights, colors");
    levels.resize(n_levels);
    for (unsigned int l = 1; l < n_levels; ++l)
      {
        internal::LevelPatches<Number> level_patches = internal::level_patches<dim, Number>(
          tria, patches.parents[l], fe_degree, patch_points, n_components, partitioners[l - 1], partitioners[l]);
        Level &level      = levels[l];
        level.color_start = std::move(level_patches.color_start);
        level.coarse_indices.reinit(backend_, level_patches.coarse_local);
        level.coarse_plain_indices.reinit(backend_, level_patches.coarse_plain);
        level.fine_indices.reinit(backend_, level_patches.fine_local);
        level.weights.reinit(backend_, level_patches.weights);
      }

    section.next("MGTransferMatrixFree::build: copy_to_mg indices");
    global_partitioner                 = std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_dofs(),
                                                                       DoFTools::extract_locally_relevant_dofs(dof),
                                                                       comm);
    const internal::CopyIndices copies = internal::copy_indices(
      dof, global_partitioner, partitioners, static_cast<const MGConstrainedDoFs *>(mg_constrained_dofs));
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        levels[l].copies.global_indices.reinit(backend_, copies.global_local[l]);
        levels[l].copies.level_indices.reinit(backend_, copies.level_local[l]);
        levels[l].copies.weights.reinit(backend_, copies.weights[l]);
      }
    dof_handler      = &dof;
    with_edges_built = false;
    ghosted.resize(n_levels);
    accumulated.resize(n_levels);
  }

  template <int dim, typename Number>
  const Vector<Number> &
  MGTransferMatrixFree<dim, Number>::in_layout(const unsigned int level, const VectorType &v) const
  {
    return internal::read_in_layout(v, partitioners[level], ghosted[level], backend_, "level " + std::to_string(level));
  }

  template <int dim, typename Number>
  Vector<Number> &
  MGTransferMatrixFree<dim, Number>::accumulation_target(const unsigned int level, VectorType &dst) const
  {
    return internal::write_target(
      dst, partitioners[level], accumulated[level], backend_, "level " + std::to_string(level));
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::prolongate(const unsigned int to_level,
                                                VectorType        &dst,
                                                const VectorType  &src) const
  {
    dst = Number(0);
    prolongate_and_add(to_level, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::prolongate_and_add(const unsigned int to_level,
                                                        VectorType        &dst,
                                                        const VectorType  &src) const
  {
    apply(to_level, false, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::restrict_and_add(const unsigned int from_level,
                                                      VectorType        &dst,
                                                      const VectorType  &src) const
  {
    apply(from_level, true, dst, src);
  }

  template <int dim, typename Number>
  void
  MGTransferMatrixFree<dim, Number>::apply(const unsigned int fine_level,
                                           const bool         restriction,
                                           VectorType        &dst,
                                           const VectorType  &src) const
  {
    AssertThrow(fine_level >= 1 && fine_level < levels.size(),
                ExcNotSupported(std::string("MGTransferMatrixFree::") +
                                (restriction ? "restrict_and_add" : "prolongate") + "(): level " +
                                std::to_string(fine_level) + " is not in 1.." + std::to_string(int(levels.size()) - 1) +
                                " (call build() first)."));
    const unsigned int src_level = restriction ? fine_level : fine_level - 1;
    const unsigned int dst_level = restriction ? fine_level - 1 : fine_level;
    const VectorType  &input     = in_layout(src_level, src);
    VectorType        &output    = accumulation_target(dst_level, dst);
    const Level       &level     = levels[fine_level];
    internal::run_loop<Number>("gpumf::MGTransferMatrixFree", &input, &output, true, [&]() {
      for (unsigned int c = 0; c + 1 < level.color_start.size(); ++c)
        {
          const internal::TransferLevel<dim, Number> data{level.coarse_indices.data(),
                                                          level.fine_indices.data(),
                                                          level.weights.data(),
                                                          prolongation_matrix.data(),
                                                          fe_degree + 1,
                                                          patch_points,
                                                          n_components,
                                                          1,
                                                          level.color_start[c],
                                                          level.color_start[c + 1] - level.color_start[c]};
          if (restriction)
            GPUMF_DISPATCH(backend_, restrict_add(data, output.get_values(), input.get_values()));
          else
            GPUMF_DISPATCH(backend_, prolongate_add(data, output.get_values(), input.get_values()));
        }
    });
    if (&output != &dst)
      dst += output;
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::copy_to_mg(const DoFHandler<dim> &,
                                                MGLevelObject<VectorType> &dst,
                                                const Vector<Number2>     &src) const
  {
    copy_to_mg(dst, src, false);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::copy_to_mg(MGLevelObject<VectorType> &dst,
                                                const Vector<Number2>     &src,
                                                const bool                 with_edges) const
  {
    AssertThrow(global_partitioner != nullptr, ExcNotSupported("MGTransferMatrixFree: call build() first."));
    AssertThrow(src.locally_owned_size() == global_partitioner->locally_owned_size() && src.backend() == backend_,
                ExcVectorMismatch("a global vector with " + std::to_string(src.locally_owned_size()) +
                                    " owned entries on " + to_string(src.backend()),
                                  "the DoFHandler's " + std::to_string(global_partitioner->locally_owned_size()) +
                                    " on " + to_string(backend_)));
    const unsigned int n_levels = levels.size();
    if (dst.min_level() != 0 || dst.max_level() != n_levels - 1)
      dst.resize(0, n_levels - 1);
    // src with the ghosts of the locally relevant DoFs
    Vector<Number2>        ghosted_src;
    const Vector<Number2> *global = &src;
    if (!internal::has_layout(src, global_partitioner))
      {
        ghosted_src.reinit(global_partitioner, backend_);
        internal::copy(
          backend_, ghosted_src.get_values(), backend_, src.get_values(), src.locally_owned_size() * sizeof(Number2));
        global = &ghosted_src;
      }
    global->update_ghost_values();
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        if (!internal::has_layout(dst[l], partitioners[l]) || dst[l].backend() != backend_)
          dst[l].reinit(partitioners[l], backend_);
        else
          dst[l] = Number(0);
        const CopyPairs &indices = with_edges ? levels[l].with_edges : levels[l].copies;
        GPUMF_DISPATCH(backend_,
                       copy_indexed(dst[l].get_values(),
                                    indices.level_indices.data(),
                                    global->get_values(),
                                    indices.global_indices.data(),
                                    indices.weights.data(),
                                    indices.level_indices.size(),
                                    true));
        dst[l].compress_start(VectorOperation::add);
      }
    // the levels' exchanges travel at once (one NCCL group or set of MPI messages each)
    for (unsigned int l = 0; l < n_levels; ++l)
      dst[l].compress_finish(VectorOperation::add);
    global->zero_out_ghost_values();
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::interpolate_to_mg(const DoFHandler<dim>     &dof,
                                                       MGLevelObject<VectorType> &dst,
                                                       const Vector<Number2>     &src) const
  {
    // the active cells' values on every level, refinement edges included (deal.II's solution
    // copy indices: made at the first call), then from the finest level down the refined cells'
    // by interpolation, each level's ghosts exchanged for the patches
    AssertThrow(global_partitioner != nullptr, ExcNotSupported("MGTransferMatrixFree: call build() first."));
    AssertThrow(&dof == dof_handler,
                ExcNotSupported(
                  "MGTransferMatrixFree::interpolate_to_mg(): the DoFHandler is not the one of build()."));
    AssertThrow(!discontinuous,
                ExcNotSupported("MGTransferMatrixFree::interpolate_to_mg() supports FE_Q: a discontinuous element's "
                                "coarse functions are not interpolations of the fine ones (deal.II projects them); "
                                "use restrict_and_add() and the inverse mass matrix instead."));
    if (!with_edges_built)
      {
        internal::SetupSection      section("MGTransferMatrixFree::interpolate_to_mg: copy indices with edges");
        const internal::CopyIndices copies = internal::copy_indices(
          dof, global_partitioner, partitioners, static_cast<const MGConstrainedDoFs *>(mg_constrained_dofs), false);
        for (unsigned int l = 0; l < levels.size(); ++l)
          {
            levels[l].with_edges.global_indices.reinit(backend_, copies.global_local[l]);
            levels[l].with_edges.level_indices.reinit(backend_, copies.level_local[l]);
            levels[l].with_edges.weights.reinit(backend_, copies.weights[l]);
          }
        with_edges_built = true;
      }
    copy_to_mg(dst, src, true);
    for (unsigned int l = levels.size() - 1; l >= 1; --l)
      {
        const VectorType &fine  = dst[l];
        const Level      &level = levels[l];
        fine.update_ghost_values();
        try
          {
            for (unsigned int c = 0; c + 1 < level.color_start.size(); ++c)
              {
                const internal::TransferLevel<dim, Number> data{level.coarse_plain_indices.data(),
                                                                level.fine_indices.data(),
                                                                level.weights.data(),
                                                                interpolation_matrix.data(),
                                                                fe_degree + 1,
                                                                patch_points,
                                                                n_components,
                                                                1,
                                                                level.color_start[c],
                                                                level.color_start[c + 1] - level.color_start[c]};
                GPUMF_DISPATCH(backend_,
                               interpolate(data,
                                           partitioners[l - 1]->locally_owned_size(),
                                           dst[l - 1].get_values(),
                                           fine.get_values()));
              }
          }
        catch (...)
          {
            fine.zero_out_ghost_values();
            throw;
          }
        fine.zero_out_ghost_values();
      }
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::copy_from_mg(Vector<Number2>                 &dst,
                                                  const MGLevelObject<VectorType> &src,
                                                  const bool                       add) const
  {
    AssertThrow(global_partitioner != nullptr, ExcNotSupported("MGTransferMatrixFree: call build() first."));
    AssertThrow(dst.locally_owned_size() == global_partitioner->locally_owned_size() && dst.backend() == backend_,
                ExcVectorMismatch("a global vector with " + std::to_string(dst.locally_owned_size()) +
                                    " owned entries on " + to_string(dst.backend()),
                                  "the DoFHandler's " + std::to_string(global_partitioner->locally_owned_size()) +
                                    " on " + to_string(backend_)));
    // contributions go into a vector with the ghosts of the locally relevant DoFs, then compress(add)
    Vector<Number2>  own;
    const bool       in_place = internal::has_layout(dst, global_partitioner);
    Vector<Number2> &target   = in_place ? dst : own;
    if (in_place)
      {
        dst.zero_out_ghost_values();
        if (!add)
          dst = Number2(0);
      }
    else
      own.reinit(global_partitioner, backend_);
    // the levels' ghost updates travel at once; each level is copied when its own has arrived
    const unsigned int              end = std::min<unsigned int>(src.max_level() + 1, levels.size());
    std::vector<const VectorType *> inputs(end, nullptr);
    for (unsigned int l = src.min_level(); l < end; ++l)
      {
        inputs[l] = &in_layout(l, src[l]);
        inputs[l]->update_ghost_values_start();
      }
    for (unsigned int l = src.min_level(); l < end; ++l)
      {
        const VectorType &level = *inputs[l];
        level.update_ghost_values_finish();
        const CopyPairs &indices = levels[l].copies;
        GPUMF_DISPATCH(backend_,
                       copy_indexed(target.get_values(),
                                    indices.global_indices.data(),
                                    level.get_values(),
                                    indices.level_indices.data(),
                                    indices.weights.data(),
                                    indices.level_indices.size(),
                                    true));
        level.zero_out_ghost_values();
      }
    target.compress(VectorOperation::add);
    if (!in_place)
      {
        if (!add)
          dst = Number2(0);
        dst += own;
      }
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::copy_from_mg(const DoFHandler<dim> &,
                                                  Vector<Number2>                 &dst,
                                                  const MGLevelObject<VectorType> &src) const
  {
    copy_from_mg(dst, src, false);
  }

  template <int dim, typename Number>
  template <typename Number2>
  void
  MGTransferMatrixFree<dim, Number>::copy_from_mg_add(const DoFHandler<dim> &,
                                                      Vector<Number2>                 &dst,
                                                      const MGLevelObject<VectorType> &src) const
  {
    copy_from_mg(dst, src, true);
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MGTransferMatrixFree<dim, Number>::get_level_partitioner(const unsigned int level) const
  {
    AssertIndexRange(level, partitioners.size());
    return partitioners[level];
  }

  template <int dim, typename Number>
  unsigned int
  MGTransferMatrixFree<dim, Number>::n_colors(const unsigned int level) const
  {
    AssertIndexRange(level, levels.size());
    return levels[level].color_start.size() - 1;
  }

  template <int dim, typename Number>
  std::size_t
  MGTransferMatrixFree<dim, Number>::memory_consumption() const
  {
    std::size_t bytes = sizeof(*this) + prolongation_matrix.memory_consumption();
    for (const auto &level : levels)
      bytes += level.coarse_indices.memory_consumption() + level.coarse_plain_indices.memory_consumption() +
               level.fine_indices.memory_consumption() + level.weights.memory_consumption() +
               level.copies.global_indices.memory_consumption() + level.copies.level_indices.memory_consumption() +
               level.with_edges.global_indices.memory_consumption() +
               level.with_edges.level_indices.memory_consumption();
    for (const auto &p : partitioners)
      bytes += p->memory_consumption();
    return bytes;
  }

#define GPUMF_INSTANTIATE(dim, Number, Number2)                                                                        \
  template void MGTransferMatrixFree<dim, Number>::copy_to_mg<Number2>(const DoFHandler<dim> &,                        \
                                                                       MGLevelObject<Vector<Number>> &,                \
                                                                       const Vector<Number2> &) const;                 \
  template void MGTransferMatrixFree<dim, Number>::copy_from_mg<Number2>(const DoFHandler<dim> &,                      \
                                                                         Vector<Number2> &,                            \
                                                                         const MGLevelObject<Vector<Number>> &) const; \
  template void MGTransferMatrixFree<dim, Number>::copy_from_mg_add<Number2>(const DoFHandler<dim> &,                  \
                                                                             Vector<Number2> &,                        \
                                                                             const MGLevelObject<Vector<Number>> &)    \
    const;                                                                                                             \
  template void MGTransferMatrixFree<dim, Number>::interpolate_to_mg<Number2>(const DoFHandler<dim> &,                 \
                                                                              MGLevelObject<Vector<Number>> &,         \
                                                                              const Vector<Number2> &) const;
  template class MGTransferMatrixFree<2, float>;
  template class MGTransferMatrixFree<2, double>;
  template class MGTransferMatrixFree<3, float>;
  template class MGTransferMatrixFree<3, double>;
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
