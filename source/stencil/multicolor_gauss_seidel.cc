// gpumf::MultiColorGaussSeidel: the stencil assembled from deal.II's FEValues, the coloring,
// the host reference loops of the sweeps and the dispatch to the CUDA kernels in
// multicolor_gauss_seidel_kernels.cu.
#include "core/coloring.h"
#include <gpumf/multicolor_gauss_seidel.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>

#include <algorithm>
#include <array>
#include <string>

#include "core/executor.h"
#include "local_matrix/element_matrices.h"
#include <gpumf/internal/loop_schedule.h>
#include "linear_algebra/layout.h"
#include "stencil/multicolor_gauss_seidel_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    constexpr unsigned int no_index = numbers::invalid_unsigned_int;

    /// The local index of @p global in @p partitioner's owned or ghost entries, or no_index.
    unsigned int
    local_index(const Utilities::MPI::Partitioner &partitioner, const types::global_dof_index global)
    {
      if (partitioner.in_local_range(global) || partitioner.is_ghost_entry(global))
        return partitioner.global_to_local(global);
      return no_index;
    }

    template <typename Number>
    internal::StencilLaunch<Number>
    launch_of(const internal::Array<unsigned int> &rows,
              const internal::Array<unsigned int> &columns,
              const internal::Array<Number>       &values,
              const internal::Array<Number>       &inverse_diagonal,
              const unsigned int                   n_slots)
    {
      return {rows.data(), columns.data(), values.data(), inverse_diagonal.data(), unsigned(rows.size()), n_slots};
    }

    /// Per owned and ghost entry of the vector of @p mf: whether its DoF is constrained.
    template <int dim, typename Number>
    std::vector<bool>
    constrained_entries(const MatrixFree<dim, Number>                            &mf,
                        const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner)
    {
      const unsigned int n_owned = partitioner->locally_owned_size();
      Vector<Number>     flags(partitioner, Backend::host);
      for (const unsigned int i : mf.get_constrained_dofs())
        flags.get_values()[i] = Number(1);
      flags.update_ghost_values();
      const unsigned int n_local = n_owned + partitioner->n_ghost_indices();
      std::vector<bool>  constrained(n_local);
      for (unsigned int i = 0; i < n_local; ++i)
        constrained[i] = flags.get_values()[i] != Number(0);
      return constrained;
    }

    /// The cells around the owned DoFs: owned and ghost cells (of the level of @p mf, if any).
    template <int dim, typename Number>
    std::vector<typename DoFHandler<dim>::cell_iterator>
    cells_around(const MatrixFree<dim, Number> &mf)
    {
      using cell_iterator                 = typename DoFHandler<dim>::cell_iterator;
      const DoFHandler<dim>     &dof      = mf.get_dof_handler();
      const Triangulation<dim>  &tria     = dof.get_triangulation();
      const bool                 on_level = mf.get_mg_level() != numbers::invalid_unsigned_int;
      const unsigned int         level    = mf.get_mg_level();
      std::vector<cell_iterator> cells;
      if (on_level)
        {
          for (const auto &level_cell : dof.mg_cell_iterators_on_level(level))
            if (!level_cell->is_artificial_on_level())
              cells.emplace_back(&tria, level_cell->level(), level_cell->index(), &dof);
        }
      else
        for (const auto &cell : dof.active_cell_iterators())
          if (!cell->is_artificial())
            cells.push_back(cell);
      return cells;
    }

    /// The rows of the owned DoFs, their diagonal, the DoFs of the cells.
    struct AssembledRows
    {
      /// per owned DoF: (local column, value)
      std::vector<std::vector<std::pair<unsigned int, double>>> entries;
      /// per cell: the local indices of its DoFs (kept for the coloring)
      std::vector<unsigned int> cell_dofs;
      std::vector<double>       diagonal;
      /// the first problem found on this rank (empty if none)
      std::string error;
    };

    /// The rows from the element matrices, cell by cell; constrained rows are identity rows.
    template <int dim, typename Number>
    AssembledRows
    assembled_rows(const MatrixFree<dim, Number>                                     &mf,
                   const typename MultiColorGaussSeidel<dim, Number>::AdditionalData &data,
                   const std::vector<typename DoFHandler<dim>::cell_iterator>        &cells,
                   const std::vector<bool>                                           &constrained)
    {
      using cell_iterator                   = typename DoFHandler<dim>::cell_iterator;
      const auto               &partitioner = mf.get_vector_partitioner();
      const FiniteElement<dim> &fe          = mf.get_fe();
      const bool                on_level    = mf.get_mg_level() != numbers::invalid_unsigned_int;
      const unsigned int        n_owned     = partitioner->locally_owned_size();
      std::string               error;
      std::vector<std::vector<std::pair<unsigned int, double>>> entries(n_owned);
      for (unsigned int i = 0; i < n_owned; ++i)
        if (constrained[i])
          entries[i].emplace_back(i, 1.);
      const MappingQ<dim> q1(1);
      const Mapping<dim> &mapping = data.mapping ? *data.mapping : static_cast<const Mapping<dim> &>(q1);
      const unsigned int  n       = fe.n_dofs_per_cell();
      // per cell: the local indices of its DoFs (kept for the coloring)
      std::vector<unsigned int>            cell_dofs(cells.size() * n);
      std::vector<bool>                    touches_row(cells.size(), false);
      std::vector<types::global_dof_index> indices(n);
      for (unsigned int c = 0; c < cells.size(); ++c)
        {
          if (on_level)
            cells[c]->get_mg_dof_indices(indices);
          else
            cells[c]->get_dof_indices(indices);
          for (unsigned int a = 0; a < n; ++a)
            {
              const unsigned int i = local_index(*partitioner, indices[a]);
              cell_dofs[c * n + a] = i;
              touches_row[c]       = touches_row[c] || (i < n_owned && !constrained[i]);
            }
          // a row of this cell couples with a DoF the vector does not hold: the first such cell names
          // its first such DoF
          for (unsigned int b = 0; b < n && touches_row[c] && error.empty(); ++b)
            if (cell_dofs[c * n + b] == no_index)
              error = "MultiColorGaussSeidel: DoF " + std::to_string(indices[b]) +
                      " couples with a locally owned DoF but is not among the vector's ghost entries.";
        }
      // element matrices in deal.II's threads, added into the rows in cell order
      internal::for_each_element_matrix<dim>(
        mapping,
        fe,
        QGauss<dim>(data.n_q_points_1d),
        cells,
        [&](const unsigned int c) { return touches_row[c]; },
        [&](const cell_iterator &cell, const FEValues<dim> &fe_values, FullMatrix<double> &matrix) {
          if (data.cell_matrix)
            data.cell_matrix(cell, fe_values, matrix);
          else
            internal::add_laplace_matrix(fe_values, matrix);
        },
        [&](const unsigned int c, const FullMatrix<double> &matrix) {
          const unsigned int *local = cell_dofs.data() + std::size_t(c) * n;
          for (unsigned int a = 0; a < n; ++a)
            {
              const unsigned int i = local[a];
              if (i >= n_owned || constrained[i])
                continue;
              for (unsigned int b = 0; b < n; ++b)
                {
                  const unsigned int j = local[b];
                  if (j == no_index || constrained[j])
                    continue; // no_index: the error above
                  auto &row = entries[i];
                  auto  it  = std::find_if(row.begin(), row.end(), [j](const auto &e) { return e.first == j; });
                  if (it == row.end())
                    row.emplace_back(j, matrix(a, b));
                  else
                    it->second += matrix(a, b);
                }
            }
        });

      // the diagonal
      std::vector<double> diagonal(n_owned, 0.);
      for (unsigned int i = 0; i < n_owned; ++i)
        {
          for (const auto &[j, value] : entries[i])
            if (j == i)
              diagonal[i] = value;
          if (diagonal[i] == 0. && error.empty())
            error = "MultiColorGaussSeidel: the diagonal entry of row " +
                    std::to_string(partitioner->local_to_global(i)) + " is zero.";
        }
      return {std::move(entries), std::move(cell_dofs), std::move(diagonal), std::move(error)};
    }

    /// Colors of the owned rows by vertex parity, and whether the mesh is logically Cartesian on this rank.
    struct VertexColors
    {
      std::vector<unsigned int> color;
      bool                      cartesian;
    };

    /// Colors: vertex parities on a logically Cartesian mesh (FE_Q(1): DoF a at vertex a).
    template <int dim>
    VertexColors
    vertex_colors(const Triangulation<dim>                                   &tria,
                  const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
                  const std::vector<unsigned int>                            &cell_dofs,
                  const unsigned int                                          n_owned)
    {
      const unsigned int        n = GeometryInfo<dim>::vertices_per_cell;
      std::vector<unsigned int> color(n_owned, no_index);
      bool                      cartesian = true;
      if (!cells.empty())
        {
          const auto coordinates = internal::cartesian_coordinates<dim>(
            tria, std::vector<typename Triangulation<dim>::cell_iterator>(cells.begin(), cells.end()));
          cartesian = coordinates.size() == cells.size();
          for (unsigned int c = 0; c < cells.size() && cartesian; ++c)
            for (unsigned int a = 0; a < n; ++a)
              {
                const unsigned int i = cell_dofs[c * n + a];
                if (i >= n_owned)
                  continue;
                // FE_Q(1): DoF a sits at vertex a, lexicographic (x fastest)
                unsigned int p = 0;
                for (unsigned int d = 0; d < dim; ++d)
                  p |= unsigned((coordinates[c][d] + ((a >> d) & 1u)) & 1) << d;
                if (color[i] == no_index)
                  color[i] = p;
                else if (color[i] != p)
                  cartesian = false; // one vertex, two coordinates
              }
          for (unsigned int i = 0; i < n_owned && cartesian; ++i)
            cartesian = color[i] != no_index;
        }
      return {std::move(color), cartesian};
    }

    /**
     * Greedy colors of the rows, replacing @p color: each row the smallest color none of its
     * (earlier) neighbors has. Returns the number of colors.
     */
    inline unsigned int
    greedy_colors(const std::vector<std::vector<std::pair<unsigned int, double>>> &entries,
                  const unsigned int                                               n_owned,
                  std::vector<unsigned int>                                       &color)
    {
      unsigned int      n_colors_ = 1;
      std::vector<bool> used;
      for (unsigned int i = 0; i < n_owned; ++i)
        {
          used.assign(n_colors_ + 1, false);
          for (const auto &[j, value] : entries[i])
            if (j < i)
              used[color[j]] = true;
          color[i]  = std::find(used.begin(), used.end(), false) - used.begin();
          n_colors_ = std::max(n_colors_, color[i] + 1);
        }
      return n_colors_;
    }

    /// The ELL arrays of MultiColorGaussSeidel, rows sorted by color.
    template <typename Number>
    struct EllArrays
    {
      std::vector<std::vector<unsigned int>> colored_rows_host;
      std::vector<unsigned int>              color_start;
      std::vector<unsigned int>              row_of_position;
      unsigned int                           n_slots;
      std::vector<unsigned int>              column_host;
      std::vector<Number>                    value_host, inverse_host;
    };

    template <typename Number>
    EllArrays<Number>
    ell_arrays(const std::vector<std::vector<std::pair<unsigned int, double>>> &entries,
               const std::vector<double>                                       &diagonal,
               const std::vector<unsigned int>                                 &color,
               const unsigned int                                               n_colors_)
    {
      const unsigned int                     n_owned = entries.size();
      std::vector<std::vector<unsigned int>> colored_rows_host(n_colors_);
      for (unsigned int i = 0; i < n_owned; ++i)
        colored_rows_host[color[i]].push_back(i);
      std::vector<unsigned int> color_start{0};
      std::vector<unsigned int> row_of_position;
      for (const auto &rows_of_color : colored_rows_host)
        {
          row_of_position.insert(row_of_position.end(), rows_of_color.begin(), rows_of_color.end());
          color_start.push_back(row_of_position.size());
        }
      unsigned int n_slots = 0;
      for (const auto &row : entries)
        n_slots = std::max<unsigned int>(n_slots, row.size());
      std::vector<unsigned int> column_host(std::size_t(n_slots) * n_owned);
      std::vector<Number>       value_host(std::size_t(n_slots) * n_owned, Number(0));
      std::vector<Number>       inverse_host(n_owned);
      for (unsigned int r = 0; r < n_owned; ++r)
        {
          const unsigned int i = row_of_position[r];
          for (unsigned int k = 0; k < n_slots; ++k)
            {
              const std::size_t s = std::size_t(k) * n_owned + r;
              column_host[s]      = k < entries[i].size() ? entries[i][k].first : i;
              value_host[s]       = k < entries[i].size() ? Number(entries[i][k].second) : Number(0);
            }
          inverse_host[r] = Number(1. / diagonal[i]);
        }
      return {std::move(colored_rows_host),
              std::move(color_start),
              std::move(row_of_position),
              n_slots,
              std::move(column_host),
              std::move(value_host),
              std::move(inverse_host)};
    }
  } // namespace

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::reinit(const MatrixFree<dim, Number> &mf, const AdditionalData &data)
  {
    clear();
    const DoFHandler<dim>    &dof  = mf.get_dof_handler();
    const Triangulation<dim> &tria = dof.get_triangulation();
    const FiniteElement<dim> &fe   = mf.get_fe();
    AssertThrow(dynamic_cast<const FE_Q<dim> *>(&fe) != nullptr && fe.degree == 1 && fe.n_components() == 1,
                ExcNotSupported("MultiColorGaussSeidel supports the scalar FE_Q(1) element (trilinear, a 3^dim-point "
                                "stencil), got " +
                                fe.get_name() + "."));
    AssertThrow(data.relaxation > 0. && data.relaxation < 2.,
                ExcNotSupported("MultiColorGaussSeidel: the relaxation parameter must lie in (0, 2), got " +
                                std::to_string(data.relaxation) + "."));
    AssertThrow(data.n_q_points_1d >= 1, ExcNotSupported("MultiColorGaussSeidel: n_q_points_1d must be positive."));
    partitioner                = mf.get_vector_partitioner();
    backend_                   = mf.backend();
    omega                      = data.relaxation;
    symmetric                  = data.symmetric;
    const MPI_Comm     comm    = partitioner->get_mpi_communicator();
    const unsigned int n_owned = partitioner->locally_owned_size();
    forward_order.resize(1u << dim);
    for (unsigned int c = 0; c < forward_order.size(); ++c)
      forward_order[c] = c;
    backward_order.assign(forward_order.rbegin(), forward_order.rend());

    // the storage on the grid, where the mesh, numbering and partition allow it
    const bool on_level = mf.get_mg_level() != numbers::invalid_unsigned_int;
    if (data.storage != StencilStorage::general && (!on_level || data.storage != StencilStorage::automatic))
      {
        typename StencilOperator<dim, Number>::AdditionalData grid_data;
        grid_data.storage       = data.storage;
        grid_data.n_q_points_1d = data.n_q_points_1d;
        grid_data.cell_matrix   = data.cell_matrix;
        grid_data.mapping       = data.mapping;
        on_grid                 = true;
        if (data.storage == StencilStorage::automatic)
          {
            // the conditions are checked collectively: every rank takes the same branch
            try
              {
                grid.reinit(mf, grid_data);
              }
            catch (const ExcNotSupported &)
              {
                on_grid = false;
              }
          }
        else
          grid.reinit(mf, grid_data);
      }
    if (on_grid)
      {
        colored_rows_host.assign(1u << dim, {});
        for (unsigned int i = 0; i < n_owned; ++i)
          colored_rows_host[grid.color_of(i)].push_back(i);
        return;
      }

    bool has_constraint_rows = false;
    for (unsigned int c = 0; c < mf.n_colors(); ++c)
      has_constraint_rows = has_constraint_rows || mf.get_data(c).has_constraint_rows;
    if (Utilities::MPI::max(int(has_constraint_rows), comm) > 0)
      {
        clear();
        AssertThrow(false,
                    ExcNotSupported("MultiColorGaussSeidel: the constraints have lines with entries (hanging "
                                    "nodes, periodicity); the stencil supports constraints without entries "
                                    "(Dirichlet conditions) on conforming meshes."));
      }

    const std::vector<bool>          constrained = constrained_entries(mf, partitioner);
    const std::vector<cell_iterator> cells       = cells_around(mf);
    AssembledRows                    assembled   = assembled_rows<dim, Number>(mf, data, cells, constrained);
    // the first problem found on this rank; thrown on every rank
    const std::string &error = assembled.error;

    VertexColors               colors = vertex_colors<dim>(tria, cells, assembled.cell_dofs, n_owned);
    std::vector<unsigned int> &color  = colors.color;
    parity                            = Utilities::MPI::min(int(colors.cartesian), comm) == 1;
    unsigned int n_colors_            = 1u << dim;
    if (!parity)
      {
        if (Utilities::MPI::n_mpi_processes(comm) > 1)
          {
            clear();
            AssertThrow(false,
                        ExcNotSupported("MultiColorGaussSeidel: the mesh is not logically Cartesian (a "
                                        "subdivided box, uniformly refined, deformed in any way); on such a "
                                        "mesh the rows are colored greedily, which gpumf supports on one MPI "
                                        "rank only."));
          }
        n_colors_ = greedy_colors(assembled.entries, n_owned, color);
      }

    for (const std::string &message : Utilities::MPI::all_gather(comm, error))
      if (!message.empty())
        {
          clear();
          AssertThrow(false, ExcNotSupported(message));
        }

    EllArrays<Number> ell = ell_arrays<Number>(assembled.entries, assembled.diagonal, color, n_colors_);
    colored_rows_host     = std::move(ell.colored_rows_host);
    color_start           = std::move(ell.color_start);
    n_slots               = ell.n_slots;
    rows.reinit(backend_, ell.row_of_position);
    columns.reinit(backend_, ell.column_host);
    values.reinit(backend_, ell.value_host);
    inverse_diagonal.reinit(backend_, ell.inverse_host);
    forward_order.resize(n_colors_);
    for (unsigned int c = 0; c < n_colors_; ++c)
      forward_order[c] = c;
    backward_order.assign(forward_order.rbegin(), forward_order.rend());
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::clear()
  {
    partitioner.reset();
    grid      = StencilOperator<dim, Number>();
    on_grid   = false;
    backend_  = Backend::host;
    omega     = 1.;
    symmetric = true;
    parity    = true;
    n_slots   = 0;
    color_start.clear();
    colored_rows_host.clear();
    forward_order.clear();
    backward_order.clear();
    rows.clear();
    columns.clear();
    values.clear();
    inverse_diagonal.clear();
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::check_vector(const VectorType &v) const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    AssertThrow(
      v.backend() == backend_ && internal::same_layout(*v.get_partitioner(), *partitioner),
      ExcVectorMismatch("a vector of another layout or backend",
                        "the layout and backend of the MatrixFree object of MultiColorGaussSeidel::reinit()"));
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::sweep(VectorType                      &x,
                                            const VectorType                &b,
                                            const std::vector<unsigned int> &order) const
  {
    check_vector(x);
    check_vector(b);
    AssertThrow(&x != &b,
                ExcNotSupported("MultiColorGaussSeidel: the solution and the right-hand side must be "
                                "different vectors."));
    const bool   exchange = partitioner->n_mpi_processes() > 1;
    const auto   stencil  = launch_of(rows, columns, values, inverse_diagonal, n_slots);
    const Number w        = Number(omega);
    for (unsigned int k = 0; k < order.size(); ++k)
      {
        const unsigned int c = order[k];
        // the rows of color c read the other colors' ghost values: fresh unless the previous
        // step was this color (which changes none of what it reads)
        if (exchange && (k == 0 || order[k - 1] != c))
          x.update_ghost_values();
        if (on_grid)
          {
            grid.relax_color(c, w, b, x);
            continue;
          }
        const unsigned int begin = color_start[c], end = color_start[c + 1];
        GPUMF_DISPATCH(backend_, gauss_seidel_color(stencil, begin, end, w, b.get_values(), x.get_values()));
      }
    if (exchange)
      x.zero_out_ghost_values();
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::forward_sweep(VectorType &x, const VectorType &b) const
  {
    sweep(x, b, forward_order);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::backward_sweep(VectorType &x, const VectorType &b) const
  {
    sweep(x, b, backward_order);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::step(VectorType &x, const VectorType &b) const
  {
    if (!symmetric)
      return sweep(x, b, forward_order);
    std::vector<unsigned int> order = forward_order;
    order.insert(order.end(), backward_order.begin(), backward_order.end());
    sweep(x, b, order);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::Tstep(VectorType &x, const VectorType &b) const
  {
    if (symmetric)
      return step(x, b); // SSOR is its own transpose (deal.II: PreconditionSSOR::Tstep())
    sweep(x, b, backward_order);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::vmult(VectorType &dst, const VectorType &src) const
  {
    check_vector(dst);
    dst = Number(0);
    step(dst, src);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::Tvmult(VectorType &dst, const VectorType &src) const
  {
    check_vector(dst);
    dst = Number(0);
    Tstep(dst, src);
  }

  template <int dim, typename Number>
  void
  MultiColorGaussSeidel<dim, Number>::stencil_vmult(VectorType &dst, const VectorType &src) const
  {
    check_vector(dst);
    check_vector(src);
    AssertThrow(&dst != &src, ExcNotSupported("MultiColorGaussSeidel::stencil_vmult(): dst and src must differ."));
    if (on_grid)
      {
        grid.vmult(dst, src);
        return;
      }
    const auto stencil = launch_of(rows, columns, values, inverse_diagonal, n_slots);
    internal::run_loop<Number>("gpumf::MultiColorGaussSeidel::stencil_vmult", &src, &dst, false, [&]() {
      GPUMF_DISPATCH(backend_, stencil_vmult(stencil, src.get_values(), dst.get_values()));
    });
    if (partitioner->n_mpi_processes() > 1)
      dst.zero_out_ghost_values();
  }

  template <int dim, typename Number>
  unsigned int
  MultiColorGaussSeidel<dim, Number>::n_colors() const
  {
    return colored_rows_host.size();
  }

  template <int dim, typename Number>
  const std::vector<std::vector<unsigned int>> &
  MultiColorGaussSeidel<dim, Number>::colored_rows() const
  {
    return colored_rows_host;
  }

  template <int dim, typename Number>
  bool
  MultiColorGaussSeidel<dim, Number>::parity_coloring() const
  {
    return parity;
  }

  template <int dim, typename Number>
  typename MultiColorGaussSeidel<dim, Number>::HostStencil
  MultiColorGaussSeidel<dim, Number>::get_stencil() const
  {
    AssertThrow(!on_grid,
                ExcNotSupported("MultiColorGaussSeidel::get_stencil(): the stencil is stored on the grid (" +
                                to_string(grid.storage()) +
                                "; StencilOperator::get_grid()); the rows "
                                "exist with AdditionalData::storage = general."));
    HostStencil result;
    result.n_slots     = n_slots;
    result.color_start = color_start;
    result.rows        = rows.to_host();
    result.columns     = columns.to_host();
    result.values      = values.to_host();
    return result;
  }

  template <int dim, typename Number>
  StencilStorage
  MultiColorGaussSeidel<dim, Number>::storage() const
  {
    return on_grid ? grid.storage() : StencilStorage::general;
  }

  template <int dim, typename Number>
  typename MultiColorGaussSeidel<dim, Number>::size_type
  MultiColorGaussSeidel<dim, Number>::m() const
  {
    AssertThrow(partitioner != nullptr, ExcNotInitialized());
    return partitioner->size();
  }

  template <int dim, typename Number>
  typename MultiColorGaussSeidel<dim, Number>::size_type
  MultiColorGaussSeidel<dim, Number>::n() const
  {
    return m();
  }

  template <int dim, typename Number>
  double
  MultiColorGaussSeidel<dim, Number>::relaxation() const
  {
    return omega;
  }

  template <int dim, typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  MultiColorGaussSeidel<dim, Number>::get_vector_partitioner() const
  {
    return partitioner;
  }

  template <int dim, typename Number>
  Backend
  MultiColorGaussSeidel<dim, Number>::backend() const
  {
    return backend_;
  }

  template <int dim, typename Number>
  std::size_t
  MultiColorGaussSeidel<dim, Number>::memory_consumption() const
  {
    std::size_t bytes = (on_grid ? grid.memory_consumption() : 0) + rows.memory_consumption() +
                        columns.memory_consumption() + values.memory_consumption() +
                        inverse_diagonal.memory_consumption() +
                        (color_start.size() + forward_order.size() + backward_order.size()) * sizeof(unsigned int);
    for (const auto &c : colored_rows_host)
      bytes += c.size() * sizeof(unsigned int);
    return bytes;
  }

  template class MultiColorGaussSeidel<2, float>;
  template class MultiColorGaussSeidel<2, double>;
  template class MultiColorGaussSeidel<3, float>;
  template class MultiColorGaussSeidel<3, double>;
} // namespace gpumf
