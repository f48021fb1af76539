// gpumf::KellyErrorEstimator (gpumf/error_estimator.h): the faces and cells on the host, the
// integrals on the backend (error_estimator_kernels.h).
//
// The faces are deal.II's (numerics/error_estimator.templates.h): per face piece ("item") the
// integral of the squared jump of the normal derivative at the points of the 1D quadrature's
// tensor product, with the normal and JxW of one side (side A: the cell of lower index on a
// regular face, the fine cell on a hanging one, the cell on a Neumann face), and each cell's
// indicator sqrt(cell factor * sum of its faces' integrals). A rank makes the items of the faces
// of its cells once: a face between two of its cells at the cell of lower index (or the coarse
// one), a face to a ghost cell always; as each rank of deal.II does.
#include <gpumf/error_estimator.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>

#include <gpumf/internal/memory.h>
#include <gpumf/setup_profile.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "core/executor.h"
#include "core/threads.h"
#include "faces/face_setup.h"
#include "faces/face_topology.h"
#include "matrix_free/geometry.h"
#include "vector_tools/error_estimator_kernels.h"

namespace gpumf
{
  namespace
  {
    using namespace dealii;

    /// A face piece: sides A and B (B unused on a Neumann face), as KellyData holds them.
    struct Item
    {
      unsigned int  slot[2]    = {0, 0};
      unsigned char face[2]    = {0, 0};
      unsigned char subface[2] = {internal::no_face_subface, internal::no_face_subface};
      unsigned char order      = 0;
      unsigned char kind       = 0;
      double        factor     = 1;
      unsigned int  neumann    = ~0u;
    };

    /// The 1D quadrature whose tensor product @p quadrature is, or a message.
    template <int dim>
    Quadrature<1>
    quadrature_1d(const Quadrature<dim - 1> &quadrature)
    {
      Quadrature<1> q1;
      if constexpr (dim == 2)
        q1 = quadrature;
      else
        {
          AssertThrow(quadrature.is_tensor_product() &&
                        quadrature.get_tensor_basis()[0].get_points() ==
                          quadrature.get_tensor_basis()[1].get_points() &&
                        quadrature.get_tensor_basis()[0].get_weights() ==
                          quadrature.get_tensor_basis()[1].get_weights(),
                      ExcNotSupported("gpumf::KellyErrorEstimator: the face quadrature must be the tensor product of "
                                      "one 1D quadrature in both directions (QGauss<dim - 1>(n), as deal.II's "
                                      "tutorials give); got another quadrature."));
          q1 = quadrature.get_tensor_basis()[0];
        }
      const unsigned int n = q1.size();
      AssertThrow(n > 0, ExcNotSupported("gpumf::KellyErrorEstimator: the face quadrature has no points."));
      for (unsigned int k = 0; k < n; ++k)
        AssertThrow(std::abs(q1.point(k)[0] + q1.point(n - 1 - k)[0] - 1.) < 1e-13 &&
                      std::abs(q1.weight(k) - q1.weight(n - 1 - k)) < 1e-13 * std::abs(q1.weight(k)),
                    ExcNotSupported("gpumf::KellyErrorEstimator: the 1D face quadrature must be symmetric about 1/2 "
                                    "(QGauss, QGaussLobatto, QMidpoint, ...): the two sides of a rotated or flipped "
                                    "face see its points in reversed order."));
      for (unsigned int k = 0; k + 1 < n; ++k)
        AssertThrow(q1.point(k)[0] < q1.point(k + 1)[0],
                    ExcNotSupported("gpumf::KellyErrorEstimator: the 1D face quadrature's points must be sorted."));
      return q1;
    }
  } // namespace

  template <int dim>
  template <typename Number>
  void
  KellyErrorEstimator<dim>::estimate(const Mapping<dim>                                                &mapping,
                                     const DoFHandler<dim>                                             &dof,
                                     const Quadrature<dim - 1>                                         &quadrature,
                                     const std::map<types::boundary_id, const Function<dim, Number> *> &neumann_bc,
                                     const Vector<Number>                                              &solution,
                                     dealii::Vector<float>                                             &error,
                                     const ComponentMask                                               &component_mask,
                                     const Function<dim>                                               *coefficients,
                                     const unsigned int,
                                     const types::subdomain_id subdomain_id,
                                     const types::material_id  material_id,
                                     const Strategy            strategy)
  {
    using cell_iterator                   = typename DoFHandler<dim>::active_cell_iterator;
    const Triangulation<dim> &tria        = dof.get_triangulation();
    const auto               *distributed = dynamic_cast<const parallel::TriangulationBase<dim> *>(&tria);

    // What is supported (the same on every rank: the arguments and the mesh's kind)
    AssertThrow(distributed == nullptr || dynamic_cast<const parallel::DistributedTriangulationBase<dim> *>(&tria),
                ExcNotSupported("gpumf::KellyErrorEstimator: parallel::shared::Triangulation is not supported (deal.II "
                                "computes every cell's indicator there); use a parallel::distributed::Triangulation or "
                                "a serial one."));
    AssertThrow(!tria.get_anisotropic_refinement_flag(),
                ExcNotSupported("gpumf::KellyErrorEstimator: anisotropic refinement is not supported."));
    AssertThrow(coefficients == nullptr,
                ExcNotSupported("gpumf::KellyErrorEstimator: a coefficient is not supported; call deal.II's "
                                "KellyErrorEstimator on gpumf::host_copy(solution, constraints) for one."));
    AssertThrow(material_id == numbers::invalid_material_id,
                ExcNotSupported("gpumf::KellyErrorEstimator: a material id is not supported (the indicators of all "
                                "cells are computed); pass numbers::invalid_material_id."));
    AssertThrow(subdomain_id == numbers::invalid_subdomain_id ||
                  (distributed != nullptr && subdomain_id == distributed->locally_owned_subdomain()),
                ExcNotSupported("gpumf::KellyErrorEstimator: a subdomain id other than the locally owned one is not "
                                "supported; pass numbers::invalid_subdomain_id."));
    AssertThrow(dof.get_fe_collection().size() == 1,
                ExcNotSupported("gpumf::KellyErrorEstimator: hp DoFHandlers (several elements) are not supported."));
    const FiniteElement<dim> &fe   = dof.get_fe();
    const auto               *fe_q = dynamic_cast<const FE_Q<dim> *>(&fe.base_element(0));
    AssertThrow(fe_q != nullptr && fe.n_base_elements() == 1,
                ExcNotSupported("gpumf::KellyErrorEstimator supports FE_Q and an FESystem of one FE_Q; got " +
                                fe.get_name() + "."));
    const auto *mapping_q = dynamic_cast<const MappingQ<dim> *>(&mapping);
    AssertThrow(mapping_q != nullptr,
                ExcNotSupported("gpumf::KellyErrorEstimator supports polynomial mappings (MappingQ, MappingQ1, "
                                "MappingQCache); got another mapping."));
    const unsigned int n_components = fe.n_components();
    AssertThrow(component_mask.size() == 0 || component_mask.represents_n_components(n_components),
                ExcNotSupported("gpumf::KellyErrorEstimator: the component mask has " +
                                std::to_string(component_mask.size()) + " entries; the element has " +
                                std::to_string(n_components) + " components."));
    AssertThrow(component_mask.n_selected_components(n_components) > 0,
                ExcNotSupported("gpumf::KellyErrorEstimator: the component mask selects no component."));
    for (const auto &[id, function] : neumann_bc)
      AssertThrow(function != nullptr && function->n_components == n_components,
                  ExcNotSupported("gpumf::KellyErrorEstimator: the Neumann function of boundary id " +
                                  std::to_string(id) + " has " +
                                  std::to_string(function == nullptr ? 0u : function->n_components) +
                                  " components; the element has " + std::to_string(n_components) + "."));
    // What may differ between ranks is agreed on before the first collective step: every rank
    // throws the first error of any rank
    const MPI_Comm comm     = tria.get_communicator();
    const bool     with_mpi = Utilities::MPI::job_supports_mpi() && Utilities::MPI::n_mpi_processes(comm) > 1;
    const auto     agree    = [&](const std::string &error) {
      for (const std::string &message :
           with_mpi ? Utilities::MPI::all_gather(comm, error) : std::vector<std::string>{error})
        AssertThrow(message.empty(), ExcNotSupported(message));
    };
    const auto partitioner = solution.get_partitioner();
    agree(partitioner != nullptr && partitioner->size() == dof.n_dofs() &&
              partitioner->locally_owned_range() == dof.locally_owned_dofs() ?
            std::string() :
            std::string("gpumf::KellyErrorEstimator: the solution's locally owned entries are not the "
                        "DoFHandler's on rank ") +
              std::to_string(Utilities::MPI::this_mpi_process(comm)) +
              " (a vector of another DoFHandler, of a mesh since repartitioned, or of a MatrixFree object with "
              "renumbered DoFs?).");
    const Quadrature<1> quad    = quadrature_1d<dim>(quadrature);
    const Backend       backend = solution.backend();

    const unsigned int     degree       = fe_q->degree;
    const unsigned int     n_dofs_1d    = degree + 1;
    const unsigned int     n_dofs_cell  = Utilities::pow(n_dofs_1d, dim);
    const unsigned int     n_support_1d = mapping_q->get_degree() + 1;
    const unsigned int     n_support    = Utilities::pow(n_support_1d, dim);
    const unsigned int     n_q          = quad.size();
    const unsigned int     n_points     = Utilities::pow(n_q, dim - 1);
    constexpr unsigned int n_subfaces   = 1u << (dim - 1);

    internal::SetupSection section("KellyErrorEstimator: faces (host)", backend);
    // Slots: this rank's cells (the indicators' cells, in active order), then the ghost cells
    std::vector<unsigned int>  slot_of(tria.n_active_cells(), numbers::invalid_unsigned_int);
    std::vector<cell_iterator> slot_cells, owned;
    for (const auto &cell : dof.active_cell_iterators())
      if (cell->is_locally_owned())
        owned.push_back(cell);
    const unsigned int n_owned = owned.size();
    slot_cells                 = owned;
    for (const auto &cell : dof.active_cell_iterators())
      if (cell->is_ghost())
        slot_cells.push_back(cell);
    for (unsigned int s = 0; s < slot_cells.size(); ++s)
      slot_of[slot_cells[s]->active_cell_index()] = s;
    // the cells' vertex numbers, once (deal.II finds a hexahedron's through its faces and lines)
    constexpr unsigned int    n_vertices = 1u << dim;
    std::vector<unsigned int> vertices(slot_cells.size() * n_vertices);
    // and the cell factors of the strategy (deal.II's cell_factor())
    std::vector<double> cell_factor(n_owned);
    internal::parallel_for(slot_cells.size(), [&](const unsigned int begin, const unsigned int end) {
      for (unsigned int s = begin; s < end; ++s)
        {
          for (unsigned int v = 0; v < n_vertices; ++v)
            vertices[s * n_vertices + v] = slot_cells[s]->vertex_index(v);
          if (s < n_owned)
            cell_factor[s] = strategy == dealii::KellyErrorEstimator<dim>::cell_diameter_over_24 ?
                               slot_cells[s]->diameter() / 24 :
                             strategy == dealii::KellyErrorEstimator<dim>::cell_diameter ? slot_cells[s]->diameter() :
                                                                                           1.;
        }
    });

    // deal.II's factor of a face piece's integral: the face's diameter / (degree times 2 between
    // two cells, times 1 on the boundary) with face_diameter_over_twice_max_degree, else 1
    const auto face_factor = [&](const auto &face, const double sides) {
      return strategy == dealii::KellyErrorEstimator<dim>::face_diameter_over_twice_max_degree ?
               face->diameter() / degree / sides :
               1.;
    };

    // Items, and (owned cell, its face, position on the face, item) for the cells' sums: per
    // range of cells in deal.II's threads, joined in the ranges' order (the same on any number
    // of threads)
    struct Range
    {
      std::vector<Item>                        items;
      std::vector<std::array<unsigned int, 4>> cell_item;
      const std::vector<unsigned int>         *slot_of;
      void
      add_to(const cell_iterator &cell, const unsigned int face, const unsigned int position, const unsigned int item)
      {
        if (cell->is_locally_owned())
          cell_item.push_back({(*slot_of)[cell->active_cell_index()], face, position, item});
      }
    };
    std::vector<Range> ranges((n_owned + internal::parallel_range - 1) / internal::parallel_range);
    std::string        failure;
    std::mutex         failure_mutex;
    internal::parallel_for(n_owned, [&](const unsigned int begin, const unsigned int end) {
      Range &range  = ranges[begin / internal::parallel_range];
      range.slot_of = &slot_of;
      try
        {
          for (unsigned int c = begin; c < end; ++c)
            {
              const cell_iterator &cell = owned[c]; // slot c
              for (unsigned int f = 0; f < 2 * dim; ++f)
                {
                  const auto face = cell->face(f);
                  if (cell->at_boundary(f))
                    {
                      // a Neumann face; any other boundary face contributes nothing (deal.II's)
                      if (neumann_bc.find(face->boundary_id()) == neumann_bc.end())
                        continue;
                      Item item;
                      item.slot[0] = c;
                      item.face[0] = f;
                      item.kind    = internal::kelly_boundary;
                      item.factor  = face_factor(face, 1.);
                      range.items.push_back(item);
                      range.add_to(cell, f, 0, range.items.size() - 1);
                      continue;
                    }
                  if (face->has_children())
                    {
                      // finer neighbours: an item per subface, A the fine cell
                      const unsigned int neighbor_face = cell->neighbor_of_neighbor(f);
                      // the coarse face's vertex lattice once for its subfaces
                      const internal::FaceLattice<dim> lattice = internal::face_lattice<dim>(cell, f, true);
                      for (unsigned int s = 0; s < n_subfaces; ++s)
                        {
                          const cell_iterator fine    = cell->neighbor_child_on_subface(f, s);
                          const auto [subface, order] = internal::face_topology<dim>(lattice, fine, neighbor_face);
                          Item item;
                          item.slot[0]    = slot_of[fine->active_cell_index()];
                          item.face[0]    = neighbor_face;
                          item.slot[1]    = c;
                          item.face[1]    = f;
                          item.subface[1] = subface;
                          item.order      = order;
                          item.kind       = internal::kelly_crossed;
                          item.factor     = face_factor(fine->face(neighbor_face), 2.);
                          range.items.push_back(item);
                          // the coarse cell sums its subfaces in the order of the face's children
                          unsigned int child = 0;
                          while (child + 1 < n_subfaces && face->child(child) != fine->face(neighbor_face))
                            ++child;
                          range.add_to(cell, f, child, range.items.size() - 1);
                          range.add_to(fine, neighbor_face, 0, range.items.size() - 1);
                        }
                      continue;
                    }
                  const cell_iterator neighbor = cell->neighbor(f);
                  if (cell->neighbor_is_coarser(f))
                    {
                      // made at the coarse cell where that is this rank's
                      if (neighbor->is_locally_owned())
                        continue;
                      const unsigned int neighbor_face = cell->neighbor_of_coarser_neighbor(f).first;
                      const auto [subface, order] =
                        internal::face_topology<dim>(cell, f, neighbor, neighbor_face, true);
                      Item item;
                      item.slot[0]    = c;
                      item.face[0]    = f;
                      item.slot[1]    = slot_of[neighbor->active_cell_index()];
                      item.face[1]    = neighbor_face;
                      item.subface[1] = subface;
                      item.order      = order;
                      item.kind       = internal::kelly_crossed;
                      item.factor     = face_factor(face, 2.);
                      range.items.push_back(item);
                      range.add_to(cell, f, 0, range.items.size() - 1);
                      continue;
                    }
                  // a regular face: A the cell of lower index (deal.II's choice), made once
                  const bool cell_first = cell->index() < neighbor->index() ||
                                          (cell->index() == neighbor->index() && cell->level() < neighbor->level());
                  if (neighbor->is_locally_owned() && !cell_first)
                    continue;
                  const unsigned int   neighbor_face = cell->neighbor_of_neighbor(f);
                  const cell_iterator &a = cell_first ? cell : neighbor, &b = cell_first ? neighbor : cell;
                  const unsigned int   f_a = cell_first ? f : neighbor_face, f_b = cell_first ? neighbor_face : f;
                  const unsigned int   order =
                    internal::face_order<dim>(&vertices[slot_of[a->active_cell_index()] * n_vertices],
                                              f_a,
                                              &vertices[slot_of[b->active_cell_index()] * n_vertices],
                                              f_b);
                  Item item;
                  item.slot[0] = slot_of[a->active_cell_index()];
                  item.face[0] = f_a;
                  item.slot[1] = slot_of[b->active_cell_index()];
                  item.face[1] = f_b;
                  item.order   = order;
                  item.factor  = face_factor(face, 2.);
                  range.items.push_back(item);
                  range.add_to(cell, f, 0, range.items.size() - 1);
                  range.add_to(neighbor, neighbor_face, 0, range.items.size() - 1);
                }
            }
        }
      catch (const std::exception &e)
        {
          const std::lock_guard<std::mutex> lock(failure_mutex);
          failure = e.what();
        }
    });
    agree(failure);
    std::vector<Item>                        items;
    std::vector<std::array<unsigned int, 4>> cell_item;
    for (Range &range : ranges)
      {
        const unsigned int offset = items.size();
        items.insert(items.end(), range.items.begin(), range.items.end());
        for (auto entry : range.cell_item)
          {
            entry[3] += offset;
            cell_item.push_back(entry);
          }
      }
    ranges.clear();
    unsigned int n_neumann_points = 0;
    for (Item &item : items)
      if (item.kind == internal::kelly_boundary)
        {
          item.neumann = n_neumann_points;
          n_neumann_points += n_points;
        }
    const unsigned int n_items = items.size();
    const unsigned int n_slots = slot_cells.size();

    // Each owned cell's items by face (its slot is its position in `owned`), counted, then
    // placed: a hanging face's subfaces in the order of the face's children
    std::vector<unsigned int> cell_first_item(n_owned * 2 * dim + 1, 0), cell_items(cell_item.size());
    for (const auto &entry : cell_item)
      ++cell_first_item[entry[0] * 2 * dim + entry[1] + 1];
    for (unsigned int j = 0; j < n_owned * 2 * dim; ++j)
      cell_first_item[j + 1] += cell_first_item[j];
    for (const auto &entry : cell_item)
      cell_items[cell_first_item[entry[0] * 2 * dim + entry[1]] + entry[2]] = entry[3];

    section.next("KellyErrorEstimator: DoF indices, support points (host threads)");
    // The slots' DoFs (lexicographic per component) and the mapping's support points, in
    // deal.II's threads
    const std::vector<unsigned int> hierarchic_to_lexicographic =
      FETools::hierarchic_to_lexicographic_numbering<dim>(degree);
    const unsigned int                   dofs_per_cell = fe.n_dofs_per_cell();
    std::vector<types::global_dof_index> global(std::size_t(n_slots) * dofs_per_cell);
    std::vector<unsigned int>            position(dofs_per_cell);
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      {
        const auto [component, base_index] = fe.system_to_component_index(i);
        position[i]                        = component * n_dofs_cell + hierarchic_to_lexicographic[base_index];
      }
    std::vector<double> support(std::size_t(n_slots) * n_support * dim);
    internal::parallel_for(n_slots, [&](const unsigned int begin, const unsigned int end) {
      std::vector<types::global_dof_index> indices(dofs_per_cell);
      try
        {
          for (unsigned int s = begin; s < end; ++s)
            {
              slot_cells[s]->get_dof_indices(indices);
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                global[std::size_t(s) * dofs_per_cell + position[i]] = indices[i];
              internal::lexicographic_support_points(*mapping_q,
                                                     typename Triangulation<dim>::cell_iterator(slot_cells[s]),
                                                     support.data() + std::size_t(s) * n_support * dim);
            }
        }
      catch (const std::exception &e)
        {
          const std::lock_guard<std::mutex> lock(failure_mutex);
          failure = e.what();
        }
    });
    agree(failure);

    section.next("KellyErrorEstimator: ghost values (exchange)");
    // The ghost cells' DoFs through an exchange of our own: the solution's ghosts may be others
    IndexSet ghosts(dof.n_dofs());
    {
      std::vector<types::global_dof_index> needed;
      const IndexSet                      &owned_dofs = dof.locally_owned_dofs();
      for (const types::global_dof_index i : global)
        if (!owned_dofs.is_element(i))
          needed.push_back(i);
      std::sort(needed.begin(), needed.end());
      needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
      ghosts.add_indices(needed.begin(), needed.end());
    }
    const auto kelly_partitioner =
      std::make_shared<const Utilities::MPI::Partitioner>(dof.locally_owned_dofs(), ghosts, comm);
    Vector<Number> values(kelly_partitioner, backend);
    internal::copy(backend,
                   values.get_values(),
                   backend,
                   solution.get_values(),
                   std::size_t(partitioner->locally_owned_size()) * sizeof(Number));
    values.update_ghost_values();
    std::vector<unsigned int> dofs(global.size());
    internal::parallel_for(n_slots, [&](const unsigned int begin, const unsigned int end) {
      for (std::size_t k = std::size_t(begin) * dofs_per_cell; k < std::size_t(end) * dofs_per_cell; ++k)
        dofs[k] = kelly_partitioner->global_to_local(global[k]);
    });
    global.clear();
    global.shrink_to_fit();

    section.next("KellyErrorEstimator: tables, copies to the backend");
    // The 1D bases at the abscissae 0, 1, x_k, x_k / 2, (x_k + 1) / 2
    std::vector<double> abscissae = {0., 1.};
    for (unsigned int half = 0; half < 3; ++half)
      for (unsigned int k = 0; k < n_q; ++k)
        abscissae.push_back(half == 0 ? quad.point(k)[0] : (quad.point(k)[0] + (half - 1)) / 2);
    std::vector<double> fe_values, fe_derivatives, map_values, map_derivatives;
    internal::basis_1d(*fe_q, abscissae, fe_values, fe_derivatives);
    // MappingQ's basis: Lagrange polynomials on the Gauss-Lobatto points (geometry.cc)
    internal::basis_1d(Polynomials::generate_complete_Lagrange_basis(QGaussLobatto<1>(n_support_1d).get_points()),
                       abscissae,
                       map_values,
                       map_derivatives);
    std::vector<double> weights(n_q);
    for (unsigned int k = 0; k < n_q; ++k)
      weights[k] = quad.weight(k);
    std::vector<unsigned char> mask(n_components);
    for (unsigned int c = 0; c < n_components; ++c)
      mask[c] = component_mask.size() == 0 || component_mask[c];

    // To the backend
    std::vector<unsigned int>  item_slot(2 * n_items), item_neumann(n_items);
    std::vector<unsigned char> item_face(2 * n_items), item_subface(2 * n_items), item_order(n_items),
      item_kind(n_items);
    std::vector<double> item_factor(n_items);
    for (unsigned int i = 0; i < n_items; ++i)
      {
        for (unsigned int side = 0; side < 2; ++side)
          {
            item_slot[2 * i + side]    = items[i].slot[side];
            item_face[2 * i + side]    = items[i].face[side];
            item_subface[2 * i + side] = items[i].subface[side];
          }
        item_order[i]   = items[i].order;
        item_kind[i]    = items[i].kind;
        item_factor[i]  = items[i].factor;
        item_neumann[i] = items[i].neumann;
      }
    using internal::Array;
    Array<double> d_fe_values, d_fe_derivatives, d_map_values, d_map_derivatives, d_weights, d_support, d_item_factor,
      d_item_integral, d_cell_factor, d_neumann, d_points;
    Array<unsigned int>  d_dofs, d_item_slot, d_item_neumann, d_cell_first_item, d_cell_items;
    Array<unsigned char> d_item_face, d_item_subface, d_item_order, d_item_kind, d_mask;
    Array<float>         d_cell_error;
    d_fe_values.reinit(backend, fe_values);
    d_fe_derivatives.reinit(backend, fe_derivatives);
    d_map_values.reinit(backend, map_values);
    d_map_derivatives.reinit(backend, map_derivatives);
    d_weights.reinit(backend, weights);
    d_support.reinit(backend, support);
    d_dofs.reinit(backend, dofs);
    d_item_slot.reinit(backend, item_slot);
    d_item_face.reinit(backend, item_face);
    d_item_subface.reinit(backend, item_subface);
    d_item_order.reinit(backend, item_order);
    d_item_kind.reinit(backend, item_kind);
    d_item_factor.reinit(backend, item_factor);
    d_item_neumann.reinit(backend, item_neumann);
    d_mask.reinit(backend, mask);
    d_item_integral.reinit(backend, n_items);
    d_cell_first_item.reinit(backend, cell_first_item);
    d_cell_items.reinit(backend, cell_items);
    d_cell_factor.reinit(backend, cell_factor);
    d_cell_error.reinit(backend, n_owned);
    d_points.reinit(backend, std::size_t(n_neumann_points) * dim);

    internal::KellyData<dim, Number> k{};
    k.n_dofs_1d       = n_dofs_1d;
    k.n_components    = n_components;
    k.n_support_1d    = n_support_1d;
    k.n_q             = n_q;
    k.n_items         = n_items;
    k.n_cells         = n_owned;
    k.fe_values       = d_fe_values.data();
    k.fe_derivatives  = d_fe_derivatives.data();
    k.map_values      = d_map_values.data();
    k.map_derivatives = d_map_derivatives.data();
    k.weights         = d_weights.data();
    k.solution        = values.get_values();
    k.dofs            = d_dofs.data();
    k.support         = d_support.data();
    k.item_slot       = d_item_slot.data();
    k.item_face       = d_item_face.data();
    k.item_subface    = d_item_subface.data();
    k.item_order      = d_item_order.data();
    k.item_kind       = d_item_kind.data();
    k.item_factor     = d_item_factor.data();
    k.item_neumann    = d_item_neumann.data();
    k.component_mask  = d_mask.data();
    k.item_integral   = d_item_integral.data();
    k.cell_first_item = d_cell_first_item.data();
    k.cell_items      = d_cell_items.data();
    k.cell_factor     = d_cell_factor.data();
    k.cell_error      = d_cell_error.data();
    k.points          = d_points.data();

    section.next("KellyErrorEstimator: face integrals, indicators (backend)");
    // Neumann data: the backend's points of the Neumann faces, the functions on the host
    if (n_neumann_points > 0)
      {
        GPUMF_DISPATCH(backend, kelly_neumann_points(k));
        std::vector<double> points(std::size_t(n_neumann_points) * dim);
        internal::copy(Backend::host, points.data(), backend, d_points.data(), points.size() * sizeof(double));
        std::vector<double>                 g(std::size_t(n_neumann_points) * n_components);
        std::vector<Point<dim>>             face_points(n_points);
        std::vector<Number>                 g_scalar(n_points);
        std::vector<dealii::Vector<Number>> g_vector(n_points, dealii::Vector<Number>(n_components));
        for (unsigned int i = 0; i < n_items; ++i)
          if (items[i].neumann != ~0u)
            {
              const unsigned int first = items[i].neumann;
              for (unsigned int q = 0; q < n_points; ++q)
                for (unsigned int d = 0; d < dim; ++d)
                  face_points[q][d] = points[(std::size_t(first) + q) * dim + d];
              const Function<dim, Number> &function =
                *neumann_bc.at(slot_cells[items[i].slot[0]]->face(items[i].face[0])->boundary_id());
              if (n_components == 1)
                {
                  function.value_list(face_points, g_scalar);
                  for (unsigned int q = 0; q < n_points; ++q)
                    g[std::size_t(first) + q] = g_scalar[q];
                }
              else
                {
                  function.vector_value_list(face_points, g_vector);
                  for (unsigned int q = 0; q < n_points; ++q)
                    for (unsigned int c = 0; c < n_components; ++c)
                      g[(std::size_t(first) + q) * n_components + c] = g_vector[q][c];
                }
            }
        d_neumann.reinit(backend, g);
        k.neumann_values = d_neumann.data();
      }

    if (n_items > 0)
      GPUMF_DISPATCH(backend, kelly_face_integrals(k));
    if (n_owned > 0)
      GPUMF_DISPATCH(backend, kelly_cell_errors(k));
    std::vector<float> cell_error(n_owned);
    internal::copy(Backend::host, cell_error.data(), backend, d_cell_error.data(), n_owned * sizeof(float));
    error.reinit(tria.n_active_cells());
    for (unsigned int c = 0; c < n_owned; ++c)
      error[owned[c]->active_cell_index()] = cell_error[c];
  }

  template <int dim>
  template <typename Number>
  void
  KellyErrorEstimator<dim>::estimate(const DoFHandler<dim>                                             &dof,
                                     const Quadrature<dim - 1>                                         &quadrature,
                                     const std::map<types::boundary_id, const Function<dim, Number> *> &neumann_bc,
                                     const Vector<Number>                                              &solution,
                                     dealii::Vector<float>                                             &error,
                                     const ComponentMask                                               &component_mask,
                                     const Function<dim>                                               *coefficients,
                                     const unsigned int                                                 n_threads,
                                     const types::subdomain_id                                          subdomain_id,
                                     const types::material_id                                           material_id,
                                     const Strategy                                                     strategy)
  {
    estimate(MappingQ1<dim>(),
             dof,
             quadrature,
             neumann_bc,
             solution,
             error,
             component_mask,
             coefficients,
             n_threads,
             subdomain_id,
             material_id,
             strategy);
  }

#define GPUMF_INSTANTIATE(dim, Number)                                   \
  template void KellyErrorEstimator<dim>::estimate<Number>(              \
    const Mapping<dim> &,                                                \
    const DoFHandler<dim> &,                                             \
    const Quadrature<dim - 1> &,                                         \
    const std::map<types::boundary_id, const Function<dim, Number> *> &, \
    const Vector<Number> &,                                              \
    dealii::Vector<float> &,                                             \
    const ComponentMask &,                                               \
    const Function<dim> *,                                               \
    const unsigned int,                                                  \
    const types::subdomain_id,                                           \
    const types::material_id,                                            \
    const Strategy);                                                     \
  template void KellyErrorEstimator<dim>::estimate<Number>(              \
    const DoFHandler<dim> &,                                             \
    const Quadrature<dim - 1> &,                                         \
    const std::map<types::boundary_id, const Function<dim, Number> *> &, \
    const Vector<Number> &,                                              \
    dealii::Vector<float> &,                                             \
    const ComponentMask &,                                               \
    const Function<dim> *,                                               \
    const unsigned int,                                                  \
    const types::subdomain_id,                                           \
    const types::material_id,                                            \
    const Strategy);
  GPUMF_INSTANTIATE(2, double)
  GPUMF_INSTANTIATE(3, double)
  GPUMF_INSTANTIATE(2, float)
  GPUMF_INSTANTIATE(3, float)
#undef GPUMF_INSTANTIATE
  template class KellyErrorEstimator<2>;
  template class KellyErrorEstimator<3>;
} // namespace gpumf
