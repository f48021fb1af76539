// gpumf::LocalMatrixOperator: element matrices from deal.II's FEValues, the kernel's launch data
// (kernels in local_matrix_kernels.cu, host reference in local_matrix_reference.cc).
#include <gpumf/internal/diagonal.h>
#include <gpumf/local_matrix_operator.h>

#include <deal.II/base/quadrature.h>

#include <cmath>
#include <limits>

#include <gpumf/internal/loop_schedule.h>
#include "local_matrix/element_matrices.h"
#include "local_matrix/local_matrix_kernels.h"

namespace gpumf
{
  using namespace dealii;

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::reinit(const Mapping<dim>              &mapping,
                                           const DoFHandler<dim>           &dof_handler,
                                           const AffineConstraints<Number> &constraints,
                                           const Quadrature<1>             &quad,
                                           const CellMatrixFunction        &cell_matrix,
                                           const AdditionalData            &additional_data)
  {
    mf.reinit(mapping, dof_handler, constraints, quad, additional_data.matrix_free);
    const std::vector<unsigned int> &numbering = mf.get_dof_numbering();
    const unsigned int               n         = numbering.size();
    dofs_per_cell                              = n;

    kernel_ = additional_data.kernel == Kernel::automatic ?
                (n <= 32 ? Kernel::thread_per_element : Kernel::block_per_element) :
                additional_data.kernel;
    AssertThrow(kernel_ != Kernel::thread_per_element || n <= 64,
                ExcNotSupported("LocalMatrixOperator: the thread-per-element kernel supports at most 64 DoFs per "
                                "cell, got " +
                                std::to_string(n) + "; use the warp- or block-per-element kernel."));
    AssertThrow(kernel_ != Kernel::warp_per_element || n <= 768,
                ExcNotSupported("LocalMatrixOperator: the warp-per-element kernel supports at most 768 DoFs per "
                                "cell (shared memory), got " +
                                std::to_string(n) + "; use the block-per-element kernel."));
    AssertThrow(n <= 1024,
                ExcNotSupported("LocalMatrixOperator supports at most 1024 DoFs per cell, got " + std::to_string(n) +
                                "."));
    const bool on_the_fly = additional_data.storage == Storage::on_the_fly;
    laplace_coefficient   = additional_data.laplace_coefficient;
    mass_coefficient      = additional_data.mass_coefficient;
    reference.clear();
    matrices.clear();
    storage_ = additional_data.storage;
    if (on_the_fly && mf.has_affine_geometry())
      {
        // the reference matrices from the 1D integrals of the element's shape functions
        const auto          first = mf.get_data(0);
        const unsigned int  n1 = first.n_dofs_1d, nq = first.n_q_points_1d, ns = Utilities::pow(n1, dim);
        std::vector<Number> values(nq * n1), gradients(nq * n1);
        internal::copy(Backend::host, values.data(), mf.backend(), first.shape_values, values.size() * sizeof(Number));
        internal::copy(
          Backend::host, gradients.data(), mf.backend(), first.shape_gradients, gradients.size() * sizeof(Number));
        // M1 = (phi_a, phi_b), D1 = (phi_a', phi_b'), C1 = (phi_a', phi_b) on [0, 1]
        std::vector<double> M1(n1 * n1), D1(n1 * n1), C1(n1 * n1);
        for (unsigned int a = 0; a < n1; ++a)
          for (unsigned int b = 0; b < n1; ++b)
            for (unsigned int q = 0; q < nq; ++q)
              {
                const double w = quad.weight(q);
                M1[a * n1 + b] += w * values[q * n1 + a] * values[q * n1 + b];
                D1[a * n1 + b] += w * gradients[q * n1 + a] * gradients[q * n1 + b];
                C1[a * n1 + b] += w * gradients[q * n1 + a] * values[q * n1 + b];
              }
        const unsigned int  n_terms = 1 + dim * (dim + 1) / 2;
        std::vector<Number> tensors(std::size_t(n_terms) * ns * ns);
        for (unsigned int i = 0; i < ns; ++i)
          for (unsigned int j = 0; j < ns; ++j)
            {
              unsigned int ia[3] = {0, 0, 0}, ja[3] = {0, 0, 0};
              for (unsigned int d = 0, ri = i, rj = j; d < dim; ++d, ri /= n1, rj /= n1)
                ia[d] = ri % n1, ja[d] = rj % n1;
              // the product of the mass factors of all directions but e and e2
              const auto mass_except = [&](const int e, const int e2) {
                double product = 1;
                for (int d = 0; d < dim; ++d)
                  if (d != e && d != e2)
                    product *= M1[ia[d] * n1 + ja[d]];
                return product;
              };
              tensors[std::size_t(j) * ns + i] = mass_except(-1, -1);
              unsigned int t                   = 1;
              for (int e = 0; e < dim; ++e)
                for (int e2 = e; e2 < dim; ++e2, ++t)
                  {
                    const double value                          = e == e2 ? D1[ia[e] * n1 + ja[e]] * mass_except(e, e) :
                                                                            (C1[ia[e] * n1 + ja[e]] * C1[ja[e2] * n1 + ia[e2]] +
                                                    C1[ja[e] * n1 + ia[e]] * C1[ia[e2] * n1 + ja[e2]]) *
                                                     mass_except(e, e2);
                    tensors[(std::size_t(t) * ns + j) * ns + i] = Number(value);
                  }
            }
        reference.reinit(mf.backend(), tensors);
      }

    // element matrices, permuted to gpumf's DoF order, cells in the order of the colors (on the
    // fly: the first cell of each color, to check the form)
    std::vector<cell_iterator> cells;
    std::vector<bool>          first_of_color;
    for (const auto &color : mf.get_colored_graph())
      for (const auto &cell : color)
        {
          cells.push_back(cell);
          first_of_color.push_back(cell == color.front());
        }
    std::vector<Number>       all(std::size_t(on_the_fly ? mf.n_colors() : mf.n_cells()) * n * n);
    std::vector<unsigned int> checked_cells;
    std::size_t               c = 0;
    internal::for_each_element_matrix<dim>(
      mapping,
      mf.get_fe(),
      Quadrature<dim>(quad),
      cells,
      [&](const unsigned int position) { return !on_the_fly || first_of_color[position]; },
      cell_matrix,
      [&](const unsigned int position, const FullMatrix<double> &local) {
        for (unsigned int i = 0; i < n; ++i)
          for (unsigned int j = 0; j < n; ++j)
            all[(c * n + i) * n + j] = local(numbering[i], numbering[j]);
        checked_cells.push_back(position);
        ++c;
      });
    const MPI_Comm comm = mf.get_vector_partitioner()->get_mpi_communicator();
    if (on_the_fly)
      {
        // the computed matrices of the checked cells (host copies of the geometry) against the callback's
        auto                host = launch_data(0, false, false);
        std::vector<Number> inv_jacobian, JxW, tensors;
        const auto          to_host = [&](const Number *p, const std::size_t size, std::vector<Number> &out) {
          out.resize(size);
          internal::copy(Backend::host, out.data(), mf.backend(), p, size * sizeof(Number));
          return out.data();
        };
        auto &f        = host.on_the_fly;
        f.inv_jacobian = to_host(f.inv_jacobian, std::size_t(dim) * dim * f.jacobian_stride, inv_jacobian);
        f.JxW          = to_host(f.JxW, f.jacobian_stride, JxW);
        std::vector<Number> values, gradients;
        f.shape_values    = to_host(f.shape_values, std::size_t(f.n_q_1d) * f.n_dofs_1d, values);
        f.shape_gradients = to_host(f.shape_gradients, std::size_t(f.n_q_1d) * f.n_dofs_1d, gradients);
        if (f.affine)
          f.reference = to_host(f.reference, reference.size(), tensors);
        int agree = 1;
        for (unsigned int k = 0; k < checked_cells.size() && agree; ++k)
          {
            const std::vector<Number> computed = internal::on_the_fly_matrix(host, checked_cells[k]);
            double                    scale = 0, difference = 0;
            for (std::size_t e = 0; e < computed.size(); ++e)
              {
                scale      = std::max(scale, double(std::abs(all[k * n * n + e])));
                difference = std::max(difference, double(std::abs(all[k * n * n + e] - computed[e])));
              }
            agree = difference <= 1e3 * std::numeric_limits<Number>::epsilon() * scale;
          }
        AssertThrow(Utilities::MPI::min(agree, comm) == 1,
                    ExcNotSupported(
                      "LocalMatrixOperator: Storage::on_the_fly computes the form laplace_coefficient (grad "
                      "u, grad v) + mass_coefficient (u, v) with the constants of AdditionalData, " +
                      std::to_string(laplace_coefficient) + " and " + std::to_string(mass_coefficient) +
                      ", but the element matrices of cell_matrix differ (another form or a coefficient "
                      "that varies); set them, or store the matrices (Storage::per_cell)."));
      }
    else
      {
        // one matrix for all cells when they agree (on every rank)
        bool agree = true;
        if (additional_data.storage != Storage::per_cell && !all.empty())
          {
            double scale = 0;
            for (std::size_t k = 0; k < std::size_t(n) * n; ++k)
              scale = std::max(scale, double(std::abs(all[k])));
            for (std::size_t k = std::size_t(n) * n; k < all.size() && agree; ++k)
              agree = std::abs(all[k] - all[k % (std::size_t(n) * n)]) <= 1e-12 * scale;
          }
        agree    = additional_data.storage != Storage::per_cell && Utilities::MPI::min(int(agree), comm) == 1;
        storage_ = agree ? Storage::shared : Storage::per_cell;
        AssertThrow(additional_data.storage != Storage::shared || agree,
                    ExcNotSupported("LocalMatrixOperator: Storage::shared was asked for, but the element matrices of "
                                    "the cells differ; use Storage::per_cell or automatic."));
        if (agree)
          all.resize(std::min<std::size_t>(all.size(), std::size_t(n) * n));
        matrices.reinit(mf.backend(), all);
      }
    diagonal.reset();
    inverse_diagonal.reset();
  }

  template <int dim, typename Number>
  internal::LocalMatrixLaunch<Number>
  LocalMatrixOperator<dim, Number>::launch_data(const unsigned int color,
                                                const bool         transpose,
                                                const bool         diagonal_only) const
  {
    const auto                 data = mf.get_data(color);
    internal::OnTheFly<Number> f{};
    f.dim             = dim;
    f.n_dofs_1d       = data.n_dofs_1d;
    f.n_q_1d          = data.n_q_points_1d;
    f.n_scalar        = Utilities::pow(data.n_dofs_1d, dim);
    f.n_q_points      = Utilities::pow(data.n_q_points_1d, dim);
    f.affine          = data.affine;
    f.laplace         = Number(laplace_coefficient);
    f.mass            = Number(mass_coefficient);
    f.reference       = reference.size() > 0 ? reference.data() : nullptr;
    f.shape_values    = data.shape_values;
    f.shape_gradients = data.shape_gradients;
    f.inv_jacobian    = data.inv_jacobian;
    f.JxW             = data.JxW;
    f.jacobian_stride = data.jacobian_stride;
    return {data.local_to_global,
            data.constraint_rows,
            data.cell_has_constraint_rows,
            data.has_constraint_rows,
            storage_ == Storage::on_the_fly ? nullptr : matrices.data(),
            storage_ == Storage::shared,
            f,
            dofs_per_cell,
            data.row_start,
            data.n_cells,
            !data.use_coloring,
            transpose,
            diagonal_only,
            kernel_ == Kernel::thread_per_element ? internal::LocalMatrixKernel::thread_per_element :
            kernel_ == Kernel::warp_per_element   ? internal::LocalMatrixKernel::warp_per_element :
                                                    internal::LocalMatrixKernel::block_per_element};
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::apply(VectorType       &dst,
                                          const VectorType &src,
                                          const bool        transpose,
                                          const bool        diagonal_only) const
  {
    mf.check_vector(src);
    mf.check_vector(dst);
    internal::run_loop<Number>("gpumf::LocalMatrixOperator::vmult", diagonal_only ? nullptr : &src, &dst, true, [&]() {
      for (unsigned int color = 0; color < mf.n_colors(); ++color)
        GPUMF_DISPATCH(mf.backend(),
                       local_matrix_apply(launch_data(color, transpose, diagonal_only),
                                          src.get_values(),
                                          dst.get_values()));
    });
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::vmult(VectorType &dst, const VectorType &src) const
  {
    dst = Number();
    vmult_add(dst, src);
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::vmult_add(VectorType &dst, const VectorType &src) const
  {
    apply(dst, src, false, false);
    mf.add_constrained_values(src, dst);
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::Tvmult(VectorType &dst, const VectorType &src) const
  {
    dst = Number();
    Tvmult_add(dst, src);
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::Tvmult_add(VectorType &dst, const VectorType &src) const
  {
    apply(dst, src, true, false);
    mf.add_constrained_values(src, dst);
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::size_type
  LocalMatrixOperator<dim, Number>::m() const
  {
    return mf.get_vector_partitioner()->size();
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::size_type
  LocalMatrixOperator<dim, Number>::n() const
  {
    return m();
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::initialize_dof_vector(VectorType &vec) const
  {
    mf.initialize_dof_vector(vec);
  }

  template <int dim, typename Number>
  void
  LocalMatrixOperator<dim, Number>::compute_diagonal()
  {
    VectorType diagonal;
    initialize_dof_vector(diagonal);
    apply(diagonal, diagonal, false, true);
    mf.set_constrained_values(Number(1), diagonal);
    inverse_diagonal = internal::inverse_diagonal(diagonal);
    this->diagonal   = std::make_shared<DiagonalMatrix<VectorType>>();
    this->diagonal->get_vector().swap(diagonal);
  }

  template <int dim, typename Number>
  const std::shared_ptr<DiagonalMatrix<typename LocalMatrixOperator<dim, Number>::VectorType>> &
  LocalMatrixOperator<dim, Number>::get_matrix_diagonal() const
  {
    AssertThrow(diagonal != nullptr, ExcNotSupported("call compute_diagonal() first."));
    return diagonal;
  }

  template <int dim, typename Number>
  const std::shared_ptr<DiagonalMatrix<typename LocalMatrixOperator<dim, Number>::VectorType>> &
  LocalMatrixOperator<dim, Number>::get_matrix_diagonal_inverse() const
  {
    AssertThrow(inverse_diagonal != nullptr, ExcNotSupported("call compute_diagonal() first."));
    return inverse_diagonal;
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::Storage
  LocalMatrixOperator<dim, Number>::storage() const
  {
    return storage_;
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::Kernel
  LocalMatrixOperator<dim, Number>::kernel() const
  {
    return kernel_;
  }

  template <int dim, typename Number>
  const MatrixFree<dim, Number> &
  LocalMatrixOperator<dim, Number>::matrix_free() const
  {
    return mf;
  }

  template <int dim, typename Number>
  std::size_t
  LocalMatrixOperator<dim, Number>::memory_consumption() const
  {
    return mf.memory_consumption() + matrices.memory_consumption() + reference.memory_consumption();
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::CellMatrixFunction
  LocalMatrixOperator<dim, Number>::coefficient_form(const PointCoefficient &kappa, const PointCoefficient &a)
  {
    return [kappa, a](const cell_iterator &cell, const FEValues<dim> &fe_values, FullMatrix<double> &matrix) {
      const FiniteElement<dim> &fe = fe_values.get_fe();
      for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
        {
          const Point<dim> &x  = fe_values.quadrature_point(q);
          const double      kq = kappa ? kappa(cell, q, x) : 0.;
          const double      aq = a ? a(cell, q, x) : 0.;
          for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
            for (unsigned int j = 0; j < fe.n_dofs_per_cell(); ++j)
              if (fe.system_to_component_index(i).first == fe.system_to_component_index(j).first)
                matrix(i, j) += (aq * fe_values.shape_value(i, q) * fe_values.shape_value(j, q) +
                                 kq * (fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q))) *
                                fe_values.JxW(q);
        }
    };
  }

  namespace
  {
    /// f(x), or 1 for a null function.
    template <int dim>
    std::function<double(const typename DoFHandler<dim>::active_cell_iterator &, unsigned int, const Point<dim> &)>
    at_points(const Function<dim> *f)
    {
      return [f](const typename DoFHandler<dim>::active_cell_iterator &, unsigned int, const Point<dim> &x) {
        return f ? f->value(x) : 1.;
      };
    }
  } // namespace

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::CellMatrixFunction
  LocalMatrixOperator<dim, Number>::mass(const Function<dim> *a)
  {
    return coefficient_form({}, at_points<dim>(a));
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::CellMatrixFunction
  LocalMatrixOperator<dim, Number>::laplace(const Function<dim> *kappa)
  {
    return coefficient_form(at_points<dim>(kappa), {});
  }

  template <int dim, typename Number>
  typename LocalMatrixOperator<dim, Number>::CellMatrixFunction
  LocalMatrixOperator<dim, Number>::helmholtz(const Function<dim> *kappa, const Function<dim> *a)
  {
    return coefficient_form(at_points<dim>(kappa), at_points<dim>(a));
  }

  template class LocalMatrixOperator<2, float>;
  template class LocalMatrixOperator<2, double>;
  template class LocalMatrixOperator<3, float>;
  template class LocalMatrixOperator<3, double>;
} // namespace gpumf
