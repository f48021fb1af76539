// TensorProductMatrixSymmetricSumCollection's set-up on the host: the distinct pairs of 1D
// matrices, their generalized eigendecompositions (LAPACK, through deal.II's LAPACKFullMatrix),
// the copy to the backend (tensor_product_matrix.h; the application is a template there).
#include <gpumf/tensor_product_matrix.h>

#include <deal.II/lac/lapack_full_matrix.h>
#include <deal.II/lac/vector.h>

#include <algorithm>
#include <map>
#include <string>

namespace gpumf
{
  using namespace dealii;

  template <int dim, typename Number>
  void
  TensorProductMatrixSymmetricSumCollection<dim, Number>::reinit(const Backend      backend_in,
                                                                 const unsigned int n_cells_in)
  {
    backend   = backend_in;
    n_cells   = n_cells_in;
    n         = 0;
    finalized = false;
    host_mass.clear();
    host_derivative.clear();
    keys.clear();
    host_pair_of_cell.assign(std::size_t(n_cells) * dim, numbers::invalid_unsigned_int);
  }

  template <int dim, typename Number>
  void
  TensorProductMatrixSymmetricSumCollection<dim, Number>::insert(const unsigned int               cell_index,
                                                                 const std::array<Matrix1D, dim> &mass_in,
                                                                 const std::array<Matrix1D, dim> &derivative_in)
  {
    AssertThrow(!finalized,
                ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::insert() after finalize(): call "
                                "reinit() to start again."));
    AssertThrow(cell_index < n_cells,
                ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::insert(): cell " +
                                std::to_string(cell_index) + ", but reinit() made room for " + std::to_string(n_cells) +
                                " cells."));
    for (unsigned int d = 0; d < dim; ++d)
      {
        const unsigned int rows = mass_in[d].m();
        if (n == 0)
          n = rows;
        AssertThrow(rows == n && mass_in[d].n() == n && derivative_in[d].m() == n && derivative_in[d].n() == n,
                    ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::insert(): the 1D matrices must "
                                    "all be square of one size (" +
                                    std::to_string(n) + "); direction " + std::to_string(d) + " of cell " +
                                    std::to_string(cell_index) + " has " + std::to_string(mass_in[d].m()) + " x " +
                                    std::to_string(mass_in[d].n()) + " and " + std::to_string(derivative_in[d].m()) +
                                    " x " + std::to_string(derivative_in[d].n()) + "."));
        std::vector<Number> key(2 * n * n);
        for (unsigned int r = 0; r < n; ++r)
          for (unsigned int c = 0; c < n; ++c)
            {
              key[r * n + c]         = mass_in[d](r, c);
              key[n * n + r * n + c] = derivative_in[d](r, c);
            }
        // the pairs are few (a Cartesian mesh: a handful): a linear search finds an equal one
        unsigned int k = 0;
        while (k < keys.size() && keys[k] != key)
          ++k;
        if (k == keys.size())
          {
            keys.push_back(key);
            host_mass.insert(host_mass.end(), key.begin(), key.begin() + n * n);
            host_derivative.insert(host_derivative.end(), key.begin() + n * n, key.end());
          }
        host_pair_of_cell[std::size_t(cell_index) * dim + d] = k;
      }
  }

  template <int dim, typename Number>
  void
  TensorProductMatrixSymmetricSumCollection<dim, Number>::finalize()
  {
    const auto unset = std::find(host_pair_of_cell.begin(), host_pair_of_cell.end(), numbers::invalid_unsigned_int);
    AssertThrow(unset == host_pair_of_cell.end(),
                ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::finalize(): cell " +
                                std::to_string((unset - host_pair_of_cell.begin()) / dim) +
                                " has no matrices; insert() every cell of reinit() first."));
    const unsigned int  n_pairs_ = keys.size();
    std::vector<Number> vectors(std::size_t(n_pairs_) * n * n), values(std::size_t(n_pairs_) * n);
    for (unsigned int k = 0; k < n_pairs_; ++k)
      {
        // K s = lambda M s with S^T M S = I (LAPACK's sygv normalization)
        LAPACKFullMatrix<double> m(n, n), kk(n, n);
        for (unsigned int r = 0; r < n; ++r)
          for (unsigned int c = 0; c < n; ++c)
            {
              m(r, c)  = keys[k][r * n + c];
              kk(r, c) = keys[k][n * n + r * n + c];
            }
        std::vector<dealii::Vector<double>> s(n, dealii::Vector<double>(n));
        try
          {
            kk.compute_generalized_eigenvalues_symmetric(m, s);
          }
        catch (...)
          {
            AssertThrow(false,
                        ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::finalize(): the generalized "
                                        "eigenproblem of a pair failed; the mass matrices must be symmetric positive "
                                        "definite and the derivative matrices symmetric."));
          }
        for (unsigned int c = 0; c < n; ++c)
          {
            values[k * n + c] = kk.eigenvalue(c).real();
            for (unsigned int r = 0; r < n; ++r)
              vectors[(std::size_t(k) * n + r) * n + c] = s[c](r);
          }
      }
    eigenvectors.reinit(backend, vectors);
    eigenvalues.reinit(backend, values);
    mass.reinit(backend, host_mass);
    derivative.reinit(backend, host_derivative);
    pair_of_cell.reinit(backend, host_pair_of_cell);
    finalized = true;
  }

  template <int dim, typename Number>
  void
  TensorProductMatrixSymmetricSumCollection<dim, Number>::clear()
  {
    *this = TensorProductMatrixSymmetricSumCollection();
  }

  template <int dim, typename Number>
  TensorProductMatrixSymmetricSumView<dim, Number>
  TensorProductMatrixSymmetricSumCollection<dim, Number>::get_view() const
  {
    AssertThrow(finalized,
                ExcNotSupported("gpumf::TensorProductMatrixSymmetricSumCollection::get_view() before finalize()."));
    TensorProductMatrixSymmetricSumView<dim, Number> view;
    view.eigenvectors = eigenvectors.data();
    view.eigenvalues  = eigenvalues.data();
    view.mass         = mass.data();
    view.derivative   = derivative.data();
    view.pair_of_cell = pair_of_cell.data();
    view.n            = n;
    view.n_cells      = n_cells;
    return view;
  }

  template <int dim, typename Number>
  unsigned int
  TensorProductMatrixSymmetricSumCollection<dim, Number>::n_pairs() const
  {
    return keys.size();
  }

  template <int dim, typename Number>
  std::size_t
  TensorProductMatrixSymmetricSumCollection<dim, Number>::memory_consumption() const
  {
    return eigenvectors.memory_consumption() + eigenvalues.memory_consumption() + mass.memory_consumption() +
           derivative.memory_consumption() + pair_of_cell.memory_consumption();
  }

  template class TensorProductMatrixSymmetricSumCollection<2, double>;
  template class TensorProductMatrixSymmetricSumCollection<3, double>;
  template class TensorProductMatrixSymmetricSumCollection<2, float>;
  template class TensorProductMatrixSymmetricSumCollection<3, float>;
} // namespace gpumf
