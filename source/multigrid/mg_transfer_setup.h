// The set-up shared by gpumf's multigrid transfers (mg_transfer.cc: the levels of one mesh;
// mg_transfer_global_coarsening.cc: two meshes): the 1D matrices, the parents with their patches
// of children, and the patches' local indices, weights and colors. Host code, deal.II only.
#ifndef gpumf_source_multigrid_mg_transfer_setup_h
#define gpumf_source_multigrid_mg_transfer_setup_h

#include <deal.II/base/partitioner.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_poly.h>
#include <deal.II/base/geometry_info.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <gpumf/internal/dealii_compat.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gpumf/backend.h>
#include <gpumf/internal/memory.h>
#include <gpumf/vector.h>

#include "core/coloring.h"
#include "core/threads.h"
#include "linear_algebra/layout.h"
#include "multigrid/mg_transfer_kernels.h"

namespace gpumf
{
  namespace internal
  {
    using namespace dealii;

    /// The cell DoF index of component k, lexicographic point i of @p fe (an FESystem of
    /// @p fe_poly or @p fe_poly itself): [k * (p+1)^dim + i].
    template <int dim>
    std::vector<unsigned int>
    patch_numbering(const FiniteElement<dim> &fe, const FE_Poly<dim> &fe_poly)
    {
      const std::vector<unsigned int> &lexicographic = fe_poly.get_poly_space_numbering_inverse();
      const unsigned int               n_components  = fe.n_components();
      const unsigned int               n_coarse      = Utilities::pow(fe_poly.degree + 1, dim);
      std::vector<unsigned int>        numbering(n_components * n_coarse);
      for (unsigned int k = 0; k < n_components; ++k)
        for (unsigned int i = 0; i < n_coarse; ++i)
          numbering[k * n_coarse + i] =
            n_components > 1 ? fe.component_to_system_index(k, lexicographic[i]) : lexicographic[i];
      return numbering;
    }

    /// The patch position (N points per direction) of a child's point i (n per direction,
    /// lexicographic): [child * n^dim + i]; the second child starts at N - n.
    template <int dim>
    std::vector<unsigned int>
    child_positions(const unsigned int n, const unsigned int N)
    {
      const unsigned int        n_coarse = Utilities::pow(n, dim), offset = N - n;
      std::vector<unsigned int> result(GeometryInfo<dim>::max_children_per_cell * n_coarse);
      for (unsigned int child = 0; child < GeometryInfo<dim>::max_children_per_cell; ++child)
        for (unsigned int i = 0; i < n_coarse; ++i)
          {
            unsigned int position = 0;
            for (unsigned int d = 0; d < dim; ++d)
              position += (((child >> d) & 1u) * offset + internal::coordinate(i, n, d)) * Utilities::pow(N, d);
            result[child * n_coarse + i] = position;
          }
      return result;
    }

    /// The indices of @p list not in @p owned, added to @p set (sorted, each once).
    inline void
    add_not_owned(const std::vector<types::global_dof_index> &list, const IndexSet &owned, IndexSet &set)
    {
      std::vector<types::global_dof_index> others;
      for (const types::global_dof_index g : list)
        if (!owned.is_element(g))
          others.push_back(g);
      std::sort(others.begin(), others.end());
      others.erase(std::unique(others.begin(), others.end()), others.end());
      set.add_indices(others.begin(), others.end());
    }

    /// The element's support points along one direction (lexicographic), and the 1D FE_Q
    /// through them: the 1D factor of the transfer's matrices.
    template <int dim>
    struct Element1D
    {
      explicit Element1D(const FE_Q<dim> &fe_q)
        : points(support_points(fe_q))
        , fe(Quadrature<1>(points, std::vector<double>(points.size(), 1. / points.size())))
        , renumber(fe.get_poly_space_numbering_inverse())
      {}

      static std::vector<Point<1>>
      support_points(const FE_Q<dim> &fe_q)
      {
        const std::vector<unsigned int> &lexicographic = fe_q.get_poly_space_numbering_inverse();
        std::vector<Point<1>>            result(fe_q.degree + 1);
        for (unsigned int i = 0; i <= fe_q.degree; ++i)
          result[i][0] = fe_q.get_unit_support_points()[lexicographic[i]][0];
        return result;
      }

      const std::vector<Point<1>>     points;
      const FE_Q<1>                   fe;
      const std::vector<unsigned int> renumber;
    };

    /**
     * The 1D embedding: the coarse basis (the element's own 1D polynomials, through its
     * support points) at the support points of the two children, lexicographic.
     */
    template <int dim, typename Number>
    std::vector<Number>
    embedding_1d(const FE_Q<dim> &fe_q)
    {
      const unsigned int               fe_degree = fe_q.degree;
      const unsigned int               n = fe_degree + 1, N = 2 * fe_degree + 1;
      const Element1D<dim>             element(fe_q);
      const FE_Q<1>                   &fe_1d    = element.fe;
      const std::vector<unsigned int> &renumber = element.renumber;
      std::vector<Number>              embedding(N * n);
      for (unsigned int c = 0; c < 2; ++c)
        {
          const FullMatrix<double> &P = fe_1d.get_prolongation_matrix(c);
          for (unsigned int j = 0; j < n; ++j)
            for (unsigned int i = 0; i < n; ++i)
              embedding[(c * fe_degree + j) * n + i] = P(renumber[j], renumber[i]);
        }
      return embedding;
    }

    /**
     * The 1D interpolation from the two children to the coarse support points (deal.II's
     * restriction matrices of FE_Q, which interpolate): I(i, j) = the j-th patch basis function
     * (the element's own polynomials on the child that holds coarse point x_i, through its
     * support points) at x_i; a point on the children's common face is taken from the second
     * child, as deal.II's last child overwrites it. Stored as [j * n + i], j < 2p+1, i < p+1.
     */
    template <int dim, typename Number>
    std::vector<Number>
    interpolation_1d(const FE_Q<dim> &fe_q)
    {
      const unsigned int               fe_degree = fe_q.degree;
      const unsigned int               n = fe_degree + 1, N = 2 * fe_degree + 1;
      const Element1D<dim>             element(fe_q);
      const std::vector<Point<1>>     &points_1d = element.points;
      const FE_Q<1>                   &fe_1d     = element.fe;
      const std::vector<unsigned int> &renumber  = element.renumber;
      std::vector<Number>              interpolation(N * n, Number(0));
      for (unsigned int i = 0; i < n; ++i)
        {
          const double       x     = points_1d[i][0];
          const unsigned int child = x < 0.5 ? 0 : 1;
          const Point<1>     local(2 * x - child);
          for (unsigned int k = 0; k < n; ++k)
            interpolation[(child * fe_degree + k) * n + i] = Number(fe_1d.shape_value(renumber[k], local));
        }
      return interpolation;
    }

    /// The parents of one level l (owned cells of level l-1 with children; or the coarse cells of a
    /// two-level transfer) and their patches.
    template <int dim>
    struct Parents
    {
      std::vector<typename Triangulation<dim>::cell_iterator> cells;
      /// per parent: its DoFs (component k, lexicographic i) and those of its children
      /// (component k, lexicographic on the patch of (2 degree + 1)^dim points), global indices
      std::vector<types::global_dof_index> coarse, fine;
      /// per coarse DoF: a Dirichlet DoF (read as zero, not written)
      std::vector<unsigned char> dirichlet;
      /// per fine DoF of the patches, or empty: a constrained DoF (weight zero: prolongation
      /// adds nothing to it, restriction reads it as zero); when given, the weights are per
      /// component
      std::vector<unsigned char> fine_constrained;
    };

    /// The parents of one level in color order: their local indices, the weights of their patch points, the colors.
    template <typename Number>
    struct LevelPatches
    {
      std::vector<unsigned int> coarse_local, fine_local;
      /// [(parent * weight_components + k) * 3^dim + class]
      std::vector<Number> weights;
      unsigned int        weight_components = 1;
      /// color c: parents [color_start[c], color_start[c+1])
      std::vector<unsigned int> color_start;
      /// as coarse_local, without no_dof for the level's Dirichlet DoFs (interpolate_to_mg())
      std::vector<unsigned int> coarse_plain;
      /// the colors as positions in @p p (given to level_patches() again, it skips the coloring)
      std::vector<std::vector<unsigned int>> colors;
    };

    /**
     * The local indices, weights and colors of the parents @p p of a level, between the layouts
     * @p coarse (level l-1) and @p fine (level l). The colors are @p colors where given (an
     * earlier call's LevelPatches::colors: @p tria and p.cells are then not read), else made from
     * the cells @p p.cells of @p tria. Collective.
     */
    template <int dim, typename Number>
    LevelPatches<Number>
    level_patches(const Triangulation<dim>                                 &tria,
                  const Parents<dim>                                       &p,
                  const unsigned int                                        fe_degree,
                  const unsigned int                                        N,
                  const unsigned int                                        n_components,
                  const std::shared_ptr<const Utilities::MPI::Partitioner> &coarse,
                  const std::shared_ptr<const Utilities::MPI::Partitioner> &fine,
                  const std::vector<std::vector<unsigned int>>             *colors = nullptr)
    {
      const unsigned int n        = fe_degree + 1;
      const unsigned int n_coarse = Utilities::pow(n, dim), n_fine = Utilities::pow(N, dim);
      const unsigned int coarse_per_parent = n_components * n_coarse, fine_per_parent = n_components * n_fine;
      const unsigned int n_parents = p.coarse.size() / coarse_per_parent;
      // local indices of the patches (parent order), in threads
      std::vector<unsigned int> coarse_patch(p.coarse.size()), fine_patch(p.fine.size()), plain_patch(p.coarse.size());
      internal::parallel_for(n_parents, [&](const unsigned int begin, const unsigned int end) {
        for (std::size_t k = std::size_t(begin) * coarse_per_parent; k < std::size_t(end) * coarse_per_parent; ++k)
          {
            plain_patch[k]  = coarse->global_to_local(p.coarse[k]);
            coarse_patch[k] = p.dirichlet[k] ? internal::no_dof : plain_patch[k];
          }
        for (std::size_t k = std::size_t(begin) * fine_per_parent; k < std::size_t(end) * fine_per_parent; ++k)
          fine_patch[k] = fine->global_to_local(p.fine[k]);
      });
      // how many parents (of all ranks) have each fine DoF in their patch
      LinearAlgebra::distributed::Vector<double> touch(fine);
      for (std::size_t k = 0; k < fine_patch.size(); ++k)
        touch.local_element(fine_patch[k]) += 1.;
      touch.compress(VectorOperation::add);
      touch.update_ghost_values();

      // colors: parents sharing a coarse DoF (all that share a fine DoF do) are apart; by the
      // parity of their coordinates (2^dim colors) where the mesh is logically Cartesian
      std::vector<unsigned int> order;
      std::vector<unsigned int> color_start{0};
      const auto                touched = [&](const unsigned int c) {
        return std::vector<types::global_dof_index>(p.coarse.begin() + std::size_t(c) * coarse_per_parent,
                                                    p.coarse.begin() + std::size_t(c + 1) * coarse_per_parent);
      };
      std::vector<std::vector<unsigned int>> made;
      if (colors == nullptr)
        made = internal::color_cells<dim>(tria, p.cells, touched).colors;
      for (const auto &color : colors != nullptr ? *colors : made)
        {
          order.insert(order.end(), color.begin(), color.end());
          color_start.push_back(order.size());
        }
      // the patches in color order, with the weights 1/touch (0 at a constrained fine DoF) of
      // the 3^dim classes of patch points (a vertex, edge, face or the inside of the parent),
      // per component where constraints are given; a class's points must agree
      const unsigned int        n_classes         = Utilities::pow(3u, dim);
      const bool                constrained       = !p.fine_constrained.empty();
      const unsigned int        weight_components = constrained ? n_components : 1;
      std::vector<unsigned int> coarse_local(p.coarse.size()), fine_local(p.fine.size()), coarse_plain(p.coarse.size());
      std::vector<Number>       weights(std::size_t(n_parents) * weight_components * n_classes);
      std::vector<unsigned int> classes(n_fine);
      for (unsigned int j = 0; j < n_fine; ++j)
        for (unsigned int d = 0; d < dim; ++d)
          classes[j] += Utilities::pow(3u, d) * internal::weight_class(internal::coordinate(j, N, d), N);
      std::atomic<bool> uniform{true};
      internal::parallel_for(n_parents, [&](const unsigned int begin, const unsigned int end) {
        std::vector<double> seen(n_classes);
        for (unsigned int position = begin; position < end; ++position)
          {
            const unsigned int c = order[position];
            std::copy_n(coarse_patch.begin() + std::size_t(c) * coarse_per_parent,
                        coarse_per_parent,
                        coarse_local.begin() + std::size_t(position) * coarse_per_parent);
            std::copy_n(plain_patch.begin() + std::size_t(c) * coarse_per_parent,
                        coarse_per_parent,
                        coarse_plain.begin() + std::size_t(position) * coarse_per_parent);
            std::copy_n(fine_patch.begin() + std::size_t(c) * fine_per_parent,
                        fine_per_parent,
                        fine_local.begin() + std::size_t(position) * fine_per_parent);
            for (unsigned int k = 0; k < weight_components; ++k)
              {
                std::fill(seen.begin(), seen.end(), -1.);
                for (unsigned int j = 0; j < n_fine; ++j)
                  {
                    const std::size_t entry = std::size_t(c) * fine_per_parent + k * n_fine + j;
                    const double      weight =
                      constrained && p.fine_constrained[entry] ? 0. : 1. / touch.local_element(fine_patch[entry]);
                    if (seen[classes[j]] >= 0. && seen[classes[j]] != weight)
                      uniform = false;
                    seen[classes[j]] = weight;
                  }
                for (unsigned int cls = 0; cls < n_classes; ++cls)
                  weights[(std::size_t(position) * weight_components + k) * n_classes + cls] = Number(seen[cls]);
              }
          }
      });
      // on every rank where one found it (its next collective call would wait for the others)
      AssertThrow(Utilities::MPI::min(int(bool(uniform)), fine->get_mpi_communicator()) == 1,
                  ExcNotSupported("gpumf's multigrid transfer: the fine DoFs on one vertex, edge or face of a "
                                  "coarse cell differ in their number of coarse cells or in being constrained "
                                  "(Dirichlet conditions on part of a face's DoFs?); supported are conforming "
                                  "meshes with constraints that treat a face's, an edge's or the inside's DoFs "
                                  "alike per component."));
      return {std::move(coarse_local),
              std::move(fine_local),
              std::move(weights),
              weight_components,
              std::move(color_start),
              std::move(coarse_plain),
              colors != nullptr ? *colors : std::move(made)};
    }


    /// Whether @p v has the layout @p partitioner (linear_algebra/layout.h).
    template <typename Number>
    bool
    has_layout(const Vector<Number> &v, const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner)
    {
      return v.get_partitioner() != nullptr && internal::same_layout(*v.get_partitioner(), *partitioner);
    }

    /**
     * The vector a transfer reads: @p v itself when it has the layout @p layout, else @p own
     * (made with that layout where it has another) holding a copy of v's owned entries, its
     * ghosts zero. @p what names the vector in messages.
     */
    template <typename Number>
    const Vector<Number> &
    read_in_layout(const Vector<Number>                                     &v,
                   const std::shared_ptr<const Utilities::MPI::Partitioner> &layout,
                   Vector<Number>                                           &own,
                   const Backend                                             backend,
                   const std::string                                        &what)
    {
      AssertThrow(v.backend() == backend && v.get_partitioner() != nullptr &&
                    v.get_partitioner()->locally_owned_range() == layout->locally_owned_range(),
                  ExcVectorMismatch("a vector with " + std::to_string(v.locally_owned_size()) + " owned entries on " +
                                      to_string(v.backend()),
                                    what + " with " + std::to_string(layout->locally_owned_size()) + " on " +
                                      to_string(backend) + " (the same owned DoFs)"));
      if (has_layout(v, layout))
        return v;
      if (!has_layout(own, layout))
        own.reinit(layout, backend);
      own.zero_out_ghost_values();
      copy(backend, own.get_values(), backend, v.get_values(), v.locally_owned_size() * sizeof(Number));
      return own;
    }

    /**
     * Where a transfer adds its contributions to @p dst: @p dst itself (ghost entries zeroed)
     * when it has the layout @p layout, else @p own zeroed (the caller adds it to dst after).
     */
    template <typename Number>
    Vector<Number> &
    write_target(Vector<Number>                                           &dst,
                 const std::shared_ptr<const Utilities::MPI::Partitioner> &layout,
                 Vector<Number>                                           &own,
                 const Backend                                             backend,
                 const std::string                                        &what)
    {
      AssertThrow(dst.backend() == backend && dst.get_partitioner() != nullptr &&
                    dst.get_partitioner()->locally_owned_range() == layout->locally_owned_range(),
                  ExcVectorMismatch("a vector with " + std::to_string(dst.locally_owned_size()) + " owned entries on " +
                                      to_string(dst.backend()),
                                    what + " with " + std::to_string(layout->locally_owned_size()) + " on " +
                                      to_string(backend) + " (the same owned DoFs)"));
      if (has_layout(dst, layout))
        {
          dst.zero_out_ghost_values();
          return dst;
        }
      if (!has_layout(own, layout))
        own.reinit(layout, backend);
      else
        own = Number(0);
      return own;
    }
  } // namespace internal
} // namespace gpumf

#endif
