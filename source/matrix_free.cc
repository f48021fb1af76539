// gpumf::MatrixFree setup: everything is computed on the host with deal.II's own
// DoFHandler, FE_Q, FEValues and Mapping, then copied to the backend's memory.
#include <gpumf/matrix_free.h>

#include <deal.II/base/graph_coloring.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q1.h>

#include <array>
#include <atomic>
#include <map>
#include <set>

#include <gpumf/internal/cuda_check.h>

#include "vector_operations.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    std::atomic<unsigned int> next_id{0};

    template <int dim>
    MPI_Comm
    communicator_of(const Triangulation<dim> &tria)
    {
      if (const auto *parallel = dynamic_cast<const parallel::TriangulationBase<dim> *>(&tria))
        return parallel->get_communicator();
      return MPI_COMM_SELF;
    }

    /**
     * Integer coordinates of the active cells of a logically Cartesian mesh: the coarse
     * cells are placed by walking face neighbors (face 2d/2d+1 = -/+ direction d, standard
     * orientation required), the active cells, all on one level, by their child path (children
     * are numbered lexicographically). Empty when the mesh is not of that kind.
     */
    template <int dim, typename Iterator>
    std::vector<std::array<long, dim>>
    cartesian_coordinates(const Triangulation<dim> &tria, const std::vector<Iterator> &cells)
    {
      if (cells.empty() || tria.n_vertices() == 0)
        return {};
      const unsigned int level = cells.front()->level();
      for (const auto &cell : cells)
        if (cell->level() != int(level))
          return {};
      // coarse cells by a walk over face neighbors
      std::map<unsigned int, std::array<long, dim>> coarse;
      std::set<std::array<long, dim>>               used;
      std::vector<typename Triangulation<dim>::cell_iterator> todo{tria.begin(0)};
      coarse[tria.begin(0)->index()] = std::array<long, dim>{};
      used.insert(std::array<long, dim>{});
      while (!todo.empty())
        {
          const auto cell = todo.back();
          todo.pop_back();
          for (unsigned int f = 0; f < 2 * dim; ++f)
            {
              if (cell->at_boundary(f))
                continue;
              if (!cell->face_orientation(f) || cell->face_flip(f) || cell->face_rotation(f) ||
                  cell->neighbor_of_neighbor(f) != (f ^ 1u))
                return {};
              const auto neighbor = cell->neighbor(f);
              auto       position = coarse[cell->index()];
              position[f / 2] += (f % 2 == 0 ? -1 : 1);
              const auto known = coarse.find(neighbor->index());
              if (known != coarse.end())
                {
                  if (known->second != position)
                    return {};
                  continue;
                }
              if (!used.insert(position).second)
                return {};
              coarse[neighbor->index()] = position;
              todo.push_back(neighbor);
            }
        }
      if (coarse.size() != tria.n_cells(0))
        return {};
      std::vector<std::array<long, dim>> result;
      for (const auto &cell : cells)
        {
          std::array<long, dim>                       position{};
          typename Triangulation<dim>::cell_iterator c = cell;
          for (unsigned int l = level; l > 0; --l)
            {
              const auto   parent = c->parent();
              unsigned int child  = 0;
              while (parent->child(child) != c)
                ++child;
              for (unsigned int d = 0; d < dim; ++d)
                position[d] += long((child >> d) & 1u) << (level - l);
              c = parent;
            }
          for (unsigned int d = 0; d < dim; ++d)
            position[d] += coarse[c->index()][d] << level;
          result.push_back(position);
        }
      return result;
    }
  } // namespace

  template <int dim, typename Number>
  MatrixFree<dim, Number>::MatrixFree()
    : id(next_id++)
  {}

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::reinit(const Mapping<dim> &             mapping,
                                  const DoFHandler<dim> &          dof_handler,
                                  const AffineConstraints<Number> &constraints,
                                  const Quadrature<1> &            quad,
                                  const AdditionalData &           additional_data)
  {
    internal_reinit(mapping, dof_handler, constraints, quad, [](const cell_iterator &) { return true; },
                    additional_data);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::reinit(const DoFHandler<dim> &          dof_handler,
                                  const AffineConstraints<Number> &constraints,
                                  const Quadrature<1> &            quad,
                                  const AdditionalData &           additional_data)
  {
    reinit(MappingQ1<dim>(), dof_handler, constraints, quad, additional_data);
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::internal_reinit(const Mapping<dim> &                              mapping,
                                           const DoFHandler<dim> &                           dof,
                                           const AffineConstraints<Number> &                 constraints,
                                           const Quadrature<1> &                             quad,
                                           const std::function<bool(const cell_iterator &)> &filter,
                                           const AdditionalData &                            additional_data)
  {
    // What is supported, checked before any work.
    AssertThrow(additional_data.parallelization_scheme == parallel_in_elem,
                ExcNotSupported("gpumf::MatrixFree supports AdditionalData::parallel_in_elem only."));
    AssertThrow(!additional_data.overlap_communication_computation,
                ExcNotSupported("gpumf::MatrixFree does not implement "
                                "AdditionalData::overlap_communication_computation in this version; "
                                "set it to false."));
    AssertThrow(!dof.has_hp_capabilities() || dof.get_fe_collection().size() == 1,
                ExcNotSupported("gpumf::MatrixFree supports DoFHandlers with a single element (no hp)."));
    // FE_Q, or FESystem of one FE_Q base element with any multiplicity
    const FiniteElement<dim> &fe         = dof.get_fe();
    const bool                one_base   = fe.n_base_elements() == 1;
    const auto *              fe_q       = dynamic_cast<const FE_Q<dim> *>(one_base ? &fe.base_element(0) : &fe);
    AssertThrow(one_base && fe_q != nullptr,
                ExcNotSupported("gpumf::MatrixFree supports FE_Q<dim> and FESystem<dim> of one FE_Q<dim> "
                                "(all components of the same degree), got " + fe.get_name() + "."));
    const unsigned int degree = fe_q->degree;
    const unsigned int n      = degree + 1;
    const unsigned int n_q    = quad.size();
    AssertThrow(n_q >= n && n_q <= 32,
                ExcNotSupported("gpumf::MatrixFree supports 1D quadratures with fe_degree + 1 = " +
                                std::to_string(n) + " to 32 points (Gauss with n_q >= fe_degree + 1, "
                                "Gauss-Lobatto with fe_degree + 1 points), got " + std::to_string(n_q) +
                                " points for FE_Q degree " + std::to_string(degree) + "."));

    free();
    dof_handler   = &dof;
    backend_      = additional_data.backend;
    fe_degree     = degree;
    n_q_points_1d = n_q;
    n_components_ = fe.n_components();
    if (backend_ == Backend::cuda)
      {
        AssertThrow(cuda_available(), ExcNoGPU("no CUDA device is usable"));
#if GPUMF_WITH_CUDA
        int device = 0, max_shared = 0;
        GPUMF_CHECK_CUDA(cudaGetDevice(&device));
        GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        max_shared_memory = max_shared;
        AssertThrow(shared_memory_per_block_for(1) <= std::size_t(max_shared),
                    ExcNotSupported("gpumf::MatrixFree: a cell of FE_Q degree " + std::to_string(degree) + " with " +
                                    std::to_string(n_components_) + " components and " + std::to_string(n_q) +
                                    " points per direction needs " + std::to_string(shared_memory_per_block_for(1)) +
                                    " bytes of shared memory; the GPU offers " + std::to_string(max_shared) +
                                    " per block. Use fewer quadrature points, components or a lower degree."));
#endif
      }
    requested_cells_per_block = additional_data.cells_per_block;

    const MPI_Comm comm = communicator_of(dof.get_triangulation());
    IndexSet       relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    partitioner = std::make_shared<Utilities::MPI::Partitioner>(dof.locally_owned_dofs(), relevant, comm);

    // Constraints: Dirichlet rows (no entries) are supported; the operator skips them.
    std::vector<unsigned int> constrained;
    for (const auto &line : constraints.get_lines())
      if (partitioner->in_local_range(line.index) || partitioner->is_ghost_entry(line.index))
        {
          AssertThrow(line.entries.empty(),
                      ExcNotSupported("gpumf::MatrixFree supports constraints without entries "
                                      "(Dirichlet conditions); DoF " + std::to_string(line.index) +
                                      " is constrained to other DoFs (hanging node, periodic or "
                                      "similar), which this version does not support."));
          if (partitioner->in_local_range(line.index))
            constrained.push_back(partitioner->global_to_local(line.index));
        }
    std::sort(constrained.begin(), constrained.end());
    constrained_dofs.reinit(backend_, constrained);

    // Cells and colors.
    std::vector<cell_iterator> cells;
    for (const auto &cell : dof.active_cell_iterators())
      if (cell->is_locally_owned() && filter(cell))
        cells.push_back(cell);
    const bool use_coloring = additional_data.use_coloring;
    const auto coordinates  = use_coloring ? cartesian_coordinates<dim>(dof.get_triangulation(), cells) :
                                            std::vector<std::array<long, dim>>();
    if (!coordinates.empty())
      {
        // two cells of equal coordinate parities are two cells apart: no shared vertex
        strategy = ConflictStrategy::cartesian_coloring;
        std::vector<std::vector<cell_iterator>> parity(1u << dim);
        for (unsigned int c = 0; c < cells.size(); ++c)
          {
            unsigned int color = 0;
            for (unsigned int d = 0; d < dim; ++d)
              color |= unsigned(coordinates[c][d] & 1) << d;
            parity[color].push_back(cells[c]);
          }
        for (auto &color : parity)
          if (!color.empty())
            graph.push_back(std::move(color));
      }
    else if (use_coloring)
      {
        strategy = ConflictStrategy::graph_coloring;
        const auto conflicts = [](const cell_iterator &cell) {
          std::vector<types::global_dof_index> indices(cell->get_fe().n_dofs_per_cell());
          cell->get_dof_indices(indices);
          return indices;
        };
        if (!cells.empty())
          {
            using Iterator = typename std::vector<cell_iterator>::const_iterator;
            const std::vector<std::vector<Iterator>> colors = GraphColoring::make_graph_coloring(
              Iterator(cells.begin()), Iterator(cells.end()),
              std::function<std::vector<types::global_dof_index>(const Iterator &)>(
                [&](const Iterator &it) { return conflicts(*it); }));
            for (const auto &color : colors)
              {
                graph.emplace_back();
                for (const auto &it : color)
                  graph.back().push_back(*it);
              }
          }
      }
    else
      {
        strategy = ConflictStrategy::atomics;
        graph.push_back(cells);
      }
    color_start.assign(1, 0);
    for (const auto &color : graph)
      color_start.push_back(color_start.back() + color.size());

    // Per-cell data from FEValues on the tensor-product quadrature (x fastest).
    const Quadrature<dim>      quadrature(quad);
    const unsigned int         n_points = quadrature.size();
    const unsigned int         n_cells  = cells.size();
    const std::size_t          n_total  = std::size_t(n_cells) * n_points;
    const std::vector<unsigned int> &lexicographic = fe_q->get_poly_space_numbering_inverse();
    const unsigned int               n_tensor_dofs = lexicographic.size();
    const unsigned int               dofs_per_cell = n_components_ * n_tensor_dofs;
    dof_numbering.resize(dofs_per_cell);
    for (unsigned int k = 0; k < n_components_; ++k)
      for (unsigned int i = 0; i < n_tensor_dofs; ++i)
        dof_numbering[k * n_tensor_dofs + i] =
          n_components_ > 1 ? fe.component_to_system_index(k, lexicographic[i]) : lexicographic[i];
    FEValues<dim> fe_values(mapping, fe, quadrature,
                            update_quadrature_points | update_JxW_values | update_inverse_jacobians);
    AssertThrow(n_total * dim * dim < std::numeric_limits<unsigned int>::max(),
                ExcNotSupported("gpumf::MatrixFree: more than 2^32 point entries on one rank."));
    std::vector<point_type>              host_points(n_total);
    std::vector<Number>                  host_JxW(n_total), host_inv_jacobian(dim * dim * n_total);
    std::vector<unsigned int>            host_indices(std::size_t(n_cells) * dofs_per_cell);
    std::vector<types::global_dof_index> dof_indices(fe.n_dofs_per_cell());
    unsigned int                         c = 0;
    for (const auto &color : graph)
      for (const auto &cell : color)
        {
          fe_values.reinit(cell);
          for (unsigned int q = 0; q < n_points; ++q)
            {
              const std::size_t k = std::size_t(c) * n_points + q;
              for (unsigned int d = 0; d < dim; ++d)
                host_points[k][d] = fe_values.quadrature_point(q)[d];
              host_JxW[k]                  = fe_values.JxW(q);
              const auto inverse_jacobian = fe_values.inverse_jacobian(q);
              for (unsigned int e = 0; e < dim; ++e)
                for (unsigned int d = 0; d < dim; ++d)
                  host_inv_jacobian[(e * dim + d) * n_total + k] = inverse_jacobian[e][d];
            }
          cell->get_dof_indices(dof_indices);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              const types::global_dof_index g = dof_indices[dof_numbering[i]];
              host_indices[std::size_t(c) * dofs_per_cell + i] =
                constraints.is_constrained(g) ? numbers::invalid_unsigned_int : partitioner->global_to_local(g);
            }
          ++c;
        }
    q_points.reinit(backend_, host_points);
    local_to_global.reinit(backend_, host_indices);

    // Geometry per point, or per cell where every cell is a parallelepiped (constant Jacobian).
    std::vector<Number> weights(n_points);
    for (unsigned int q = 0; q < n_points; ++q)
      weights[q] = quadrature.weight(q);
    const auto first_non_affine = [&]() -> int {
      for (unsigned int c = 0; c < n_cells; ++c)
        {
          const std::size_t k0    = std::size_t(c) * n_points;
          const double      det   = host_JxW[k0] / weights[0];
          double            scale = 0;
          for (unsigned int i = 0; i < dim * dim; ++i)
            scale = std::max(scale, std::abs(double(host_inv_jacobian[i * n_total + k0])));
          for (unsigned int q = 1; q < n_points; ++q)
            {
              if (std::abs(host_JxW[k0 + q] / weights[q] - det) > 1e-12 * std::abs(det))
                return c;
              for (unsigned int i = 0; i < dim * dim; ++i)
                if (std::abs(host_inv_jacobian[i * n_total + k0 + q] - host_inv_jacobian[i * n_total + k0]) >
                    1e-12 * scale)
                  return c;
            }
        }
      return -1;
    };
    using G = GeometryStorage;
    if (additional_data.geometry != G::per_point)
      {
        const int bad = first_non_affine();
        AssertThrow(bad < 0 || additional_data.geometry == G::automatic,
                    ExcNotSupported("gpumf::MatrixFree: GeometryStorage::affine needs parallelepiped cells "
                                    "(constant Jacobian), but the Jacobian varies within locally owned cell " +
                                    std::to_string(bad) + " in color order. Use GeometryStorage::per_point "
                                    "or automatic."));
        affine = bad < 0;
      }
    if (affine)
      {
        std::vector<Number> cell_det(n_cells), cell_inverse(dim * dim * std::size_t(n_cells));
        for (unsigned int c = 0; c < n_cells; ++c)
          {
            cell_det[c] = host_JxW[std::size_t(c) * n_points] / weights[0];
            for (unsigned int i = 0; i < dim * dim; ++i)
              cell_inverse[i * std::size_t(n_cells) + c] = host_inv_jacobian[i * n_total + std::size_t(c) * n_points];
          }
        JxW.reinit(backend_, cell_det);
        inv_jacobian.reinit(backend_, cell_inverse);
      }
    else
      {
        JxW.reinit(backend_, host_JxW);
        inv_jacobian.reinit(backend_, host_inv_jacobian);
      }
    quadrature_weights.reinit(backend_, weights);

    // 1D tables from the element itself: along the x axis the tensor-product basis
    // function with lexicographic index i is phi_i(x) * 1 * 1.
    std::vector<Number> values_1d(n_q * n), gradients_1d(n_q * n), derivatives_on_points(n_q * n_q);
    const std::vector<Polynomials::Polynomial<double>> lagrange_on_points =
      Polynomials::generate_complete_Lagrange_basis(quad.get_points());
    for (unsigned int q = 0; q < n_q; ++q)
      {
        Point<dim> x;
        x[0] = quad.point(q)[0];
        for (unsigned int i = 0; i < n; ++i)
          {
            values_1d[q * n + i]    = fe_q->shape_value(lexicographic[i], x);
            gradients_1d[q * n + i] = fe_q->shape_grad(lexicographic[i], x)[0];
          }
        for (unsigned int r = 0; r < n_q; ++r)
          {
            std::vector<double> value_and_derivative(2);
            lagrange_on_points[r].value(quad.point(q)[0], value_and_derivative);
            derivatives_on_points[q * n_q + r] = value_and_derivative[1];
          }
      }
    // collocation: the element's nodes are the quadrature points, interpolation is the identity
    collocation = n_q == n;
    for (unsigned int q = 0; q < n_q && collocation; ++q)
      for (unsigned int i = 0; i < n; ++i)
        if (std::abs(values_1d[q * n + i] - Number(q == i ? 1 : 0)) > 1e-12)
          collocation = false;
    shape_values.reinit(backend_, values_1d);
    shape_gradients.reinit(backend_, gradients_1d);
    co_shape_gradients.reinit(backend_, derivatives_on_points);
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::Data
  MatrixFree<dim, Number>::get_data(const unsigned int color) const
  {
    AssertIndexRange(color, n_colors());
    Data data;
    data.q_points           = q_points.data();
    data.local_to_global    = local_to_global.data();
    data.inv_jacobian       = inv_jacobian.data();
    data.JxW                = JxW.data();
    data.shape_values       = shape_values.data();
    data.shape_gradients    = shape_gradients.data();
    data.co_shape_gradients = co_shape_gradients.data();
    data.quadrature_weights = quadrature_weights.data();
    data.id                 = id;
    data.n_cells            = color_start[color + 1] - color_start[color];
    data.row_start          = color_start[color];
    data.jacobian_stride    = JxW.size();
    data.n_dofs_1d          = fe_degree + 1;
    data.n_q_points_1d      = n_q_points_1d;
    data.n_components       = n_components_;
    data.cells_per_block    = 1; // set per launch (cells_per_block(layout))
    data.use_coloring       = strategy != ConflictStrategy::atomics;
    data.affine             = affine;
    data.collocation        = collocation;
    return data;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_colors() const
  {
    return graph.size();
  }

  template <int dim, typename Number>
  typename MatrixFree<dim, Number>::ConflictStrategy
  MatrixFree<dim, Number>::conflict_strategy() const
  {
    return strategy;
  }

  template <int dim, typename Number>
  bool
  MatrixFree<dim, Number>::has_affine_geometry() const
  {
    return affine;
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_functor(const unsigned int n_dofs_1d,
                                         const unsigned int n_local_dofs,
                                         const unsigned int n_q_points,
                                         const unsigned int n_components) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    const unsigned int n_tensor_dofs = Utilities::pow(fe_degree + 1, dim);
    AssertThrow(n_dofs_1d == fe_degree + 1 && n_q_points == this->n_q_points() &&
                  (n_local_dofs == n_tensor_dofs || n_local_dofs == n_components * n_tensor_dofs) &&
                  n_components == n_components_,
                ExcNotSupported("The functor declares n_dofs_1d = " + std::to_string(n_dofs_1d) +
                                ", n_local_dofs = " + std::to_string(n_local_dofs) + ", n_q_points = " +
                                std::to_string(n_q_points) + ", n_components = " + std::to_string(n_components) +
                                ", but this MatrixFree object has FE_Q degree " + std::to_string(fe_degree) + ", " +
                                std::to_string(n_q_points_1d) + " quadrature points per direction and " +
                                std::to_string(n_components_) + " components."));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::check_vector(const Vector<Number> &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(v.backend() == backend_,
                ExcVectorMismatch("vector on backend " + to_string(v.backend()),
                                  "MatrixFree on backend " + to_string(backend_)));
    AssertThrow(v.get_partitioner().get() == partitioner.get() || v.get_partitioner()->is_compatible(*partitioner),
                ExcVectorMismatch("a vector with another partitioner",
                                  "the partitioner of MatrixFree::initialize_dof_vector()"));
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::copy_constrained_values(const Vector<Number> &src, Vector<Number> &dst) const
  {
    check_vector(src);
    check_vector(dst);
    internal::set_indexed(backend_, dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), false,
                          constrained_dofs.size());
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::add_constrained_values(const Vector<Number> &src, Vector<Number> &dst) const
  {
    check_vector(src);
    check_vector(dst);
    internal::set_indexed(backend_, dst.get_values(), constrained_dofs.data(), src.get_values(), Number(), true,
                          constrained_dofs.size());
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::set_constrained_values(const Number val, Vector<Number> &dst) const
  {
    check_vector(dst);
    internal::set_indexed<Number>(backend_, dst.get_values(), constrained_dofs.data(), nullptr, val, false,
                                  constrained_dofs.size());
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::initialize_dof_vector(Vector<Number> &vec) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    vec.reinit(partitioner, backend_);
  }

  template <int dim, typename Number>
  const std::vector<std::vector<typename MatrixFree<dim, Number>::cell_iterator>> &
  MatrixFree<dim, Number>::get_colored_graph() const
  {
    return graph;
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MatrixFree<dim, Number>::get_vector_partitioner() const
  {
    return partitioner;
  }

  template <int dim, typename Number>
  void
  MatrixFree<dim, Number>::free()
  {
    graph.clear();
    color_start.assign(1, 0);
    partitioner.reset();
    q_points.clear();
    local_to_global.clear();
    inv_jacobian.clear();
    JxW.clear();
    shape_values.clear();
    shape_gradients.clear();
    co_shape_gradients.clear();
    quadrature_weights.clear();
    constrained_dofs.clear();
    dof_handler     = nullptr;
    affine                    = false;
    collocation               = false;
    requested_cells_per_block = 0;
  }

  template <int dim, typename Number>
  const DoFHandler<dim> &
  MatrixFree<dim, Number>::get_dof_handler() const
  {
    Assert(dof_handler != nullptr, ExcNotInitialized());
    return *dof_handler;
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::memory_consumption() const
  {
    std::size_t bytes = sizeof(*this) + q_points.memory_consumption() + local_to_global.memory_consumption() +
                        inv_jacobian.memory_consumption() + JxW.memory_consumption() +
                        shape_values.memory_consumption() + shape_gradients.memory_consumption() +
                        co_shape_gradients.memory_consumption() + quadrature_weights.memory_consumption() +
                        constrained_dofs.memory_consumption();
    for (const auto &color : graph)
      bytes += color.size() * sizeof(cell_iterator);
    if (partitioner)
      bytes += partitioner->memory_consumption();
    return bytes;
  }

  template <int dim, typename Number>
  Backend
  MatrixFree<dim, Number>::backend() const
  {
    return backend_;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_cells() const
  {
    return color_start.back();
  }

  template <int dim, typename Number>
  const std::vector<unsigned int> &
  MatrixFree<dim, Number>::get_dof_numbering() const
  {
    return dof_numbering;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_components() const
  {
    return n_components_;
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::n_q_points() const
  {
    return Utilities::pow(n_q_points_1d, dim);
  }

  template <int dim, typename Number>
  std::vector<typename MatrixFree<dim, Number>::point_type>
  MatrixFree<dim, Number>::get_quadrature_points() const
  {
    return q_points.to_host();
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_cell() const
  {
    return (dim + 1) * n_components_ * n_q_points() * sizeof(Number);
  }

  template <int dim, typename Number>
  std::size_t
  MatrixFree<dim, Number>::shared_memory_per_block_for(const unsigned int cells) const
  {
    return (n_q_points_1d * (fe_degree + 1) + n_q_points_1d * n_q_points_1d) * sizeof(Number) +
           cells * shared_memory_per_cell();
  }

  template <int dim, typename Number>
  unsigned int
  MatrixFree<dim, Number>::cells_per_block(const internal::CellLayout<dim> layout) const
  {
    if (backend_ != Backend::cuda)
      return 1;
    const unsigned int most = layout.max_cells_per_block();
    unsigned int k = requested_cells_per_block == 0 ? most : std::min(requested_cells_per_block, most);
    while (k > 1 && shared_memory_per_block_for(k) > max_shared_memory)
      --k;
    return k;
  }

  template class MatrixFree<2, float>;
  template class MatrixFree<2, double>;
  template class MatrixFree<3, float>;
  template class MatrixFree<3, double>;
} // namespace gpumf
