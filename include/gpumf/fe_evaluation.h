/**
 * @file gpumf/fe_evaluation.h
 * gpumf::FEEvaluation: values and gradients of a finite element function at the
 * quadrature points of one cell, inside a MatrixFree::cell_loop() functor.
 * deal.II equivalent: CUDAWrappers::FEEvaluation (deal.II 9.4, cuda_fe_evaluation.h).
 */
#ifndef gpumf_fe_evaluation_h
#define gpumf_fe_evaluation_h

#include <gpumf/matrix_free.h>

#include <deal.II/base/tensor.h>
#include <deal.II/base/utilities.h>

namespace gpumf
{
  /**
   * Evaluation of a scalar FE_Q function on one cell, one thread per quadrature point
   * (n_q_points_1d = fe_degree + 1, so DoFs and quadrature points pair up one to one).
   *
   * GPU (sum factorization in shared memory): evaluate() interpolates the DoF values to
   * the quadrature points one direction at a time (dim passes of an n x n matrix), then
   * takes reference gradients with the collocation derivative matrix on the quadrature
   * points and maps them with the stored inverse Jacobian; integrate() is the transpose.
   *
   * Host reference: evaluate() and integrate() sum over all DoFs and points with the
   * full tensor-product basis, O(n^(2 dim)) per cell: deliberately naive and
   * independent of the GPU's factorization.
   *
   * Usage as in deal.II 9.4: read_dof_values(), evaluate(), apply_for_each_quad_point()
   * or get_value()/submit_value() etc., integrate(), distribute_local_to_global(), in this
   * order (the host backend checks it).
   */
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components_ = 1,
            typename Number = double>
  class FEEvaluation
  {
    static_assert(dim == 2 || dim == 3, "gpumf::FEEvaluation supports dim 2 and 3.");
    static_assert(fe_degree >= 1, "gpumf::FEEvaluation supports fe_degree >= 1.");
    static_assert(n_components_ == 1,
                  "gpumf::FEEvaluation supports scalar elements (n_components == 1) in this version.");
    static_assert(n_q_points_1d == fe_degree + 1,
                  "gpumf::FEEvaluation supports n_q_points_1d == fe_degree + 1 in this version.");
    static_assert(dealii::Utilities::pow(fe_degree + 1, dim) <= 1024,
                  "gpumf::FEEvaluation uses one thread per point: (fe_degree+1)^dim <= 1024, "
                  "i.e. fe_degree <= 9 in 3D and <= 31 in 2D.");

  public:
    using value_type    = Number;
    using gradient_type = dealii::Tensor<1, dim, Number>;
    using data_type     = typename MatrixFree<dim, Number>::Data;

    static constexpr unsigned int dimension            = dim;
    static constexpr unsigned int n_components         = n_components_;
    static constexpr unsigned int n_q_points           = dealii::Utilities::pow(n_q_points_1d, dim);
    static constexpr unsigned int tensor_dofs_per_cell = dealii::Utilities::pow(fe_degree + 1, dim);

    /// For cell number @p cell_id of the color described by @p data.
    __host__ __device__
    FEEvaluation(const unsigned int cell_id, const data_type *data, SharedData<dim, Number> *shdata)
      : data(data)
      , shared(shdata)
      , cell(data->row_start + cell_id)
      , point(internal::point_index<dim>(n_q_points_1d))
    {}

    /// Reads the cell's DoF values from @p src (constrained DoFs read as zero).
    __host__ __device__ void
    read_dof_values(const Number *src)
    {
#ifdef __CUDA_ARCH__
      const unsigned int index = data->local_to_global[cell * n_q_points + point];
      shared->values[point]    = index == dealii::numbers::invalid_unsigned_int ? Number() : src[index];
      __syncthreads();
#else
      if (host_collective_first())
        for (unsigned int i = 0; i < n_q_points; ++i)
          {
            const unsigned int index = data->local_to_global[cell * n_q_points + i];
            shared->dof_values[i] = index == dealii::numbers::invalid_unsigned_int ? Number() : src[index];
          }
#endif
    }

    /// Adds the cell's DoF values into @p dst (constrained DoFs skipped); atomically unless colored.
    __host__ __device__ void
    distribute_local_to_global(Number *dst) const
    {
#ifdef __CUDA_ARCH__
      const unsigned int index = data->local_to_global[cell * n_q_points + point];
      if (index != dealii::numbers::invalid_unsigned_int)
        {
          if (data->use_coloring)
            dst[index] += shared->values[point];
          else
            atomicAdd(&dst[index], shared->values[point]);
        }
#else
      if (point == n_q_points - 1)
        for (unsigned int i = 0; i < n_q_points; ++i)
          {
            const unsigned int index = data->local_to_global[cell * n_q_points + i];
            if (index != dealii::numbers::invalid_unsigned_int)
              dst[index] += shared->dof_values[i];
          }
#endif
    }

    /// Values (and gradients) at the quadrature points from the DoF values.
    __host__ __device__ void
    evaluate(const bool evaluate_val, const bool evaluate_grad)
    {
#ifdef __CUDA_ARCH__
      if (evaluate_val || evaluate_grad)
        for (unsigned int d = 0; d < dim; ++d)
          apply_1d(d, shared->shape_values, false);
      if (evaluate_grad)
        {
          Number reference[dim];
          for (unsigned int e = 0; e < dim; ++e)
            {
              const unsigned int stride = dealii::Utilities::pow(n_q_points_1d, e);
              const unsigned int i_e    = (point / stride) % n_q_points_1d;
              const Number *     line   = shared->values + point - i_e * stride;
              Number             sum    = 0;
              for (unsigned int l = 0; l < n_q_points_1d; ++l)
                sum += shared->co_shape_gradients[i_e * n_q_points_1d + l] * line[l * stride];
              reference[e] = sum;
            }
          store_real_gradient(point, reference);
          __syncthreads();
        }
#else
      if (!host_collective_first() || !(evaluate_val || evaluate_grad))
        return;
      for (unsigned int q = 0; q < n_q_points; ++q)
        {
          Number value = 0, reference[dim] = {};
          for (unsigned int i = 0; i < n_q_points; ++i)
            {
              Number phi, grad_phi[dim];
              host_basis(i, q, phi, grad_phi);
              value += phi * shared->dof_values[i];
              for (unsigned int e = 0; e < dim; ++e)
                reference[e] += grad_phi[e] * shared->dof_values[i];
            }
          shared->values[q] = value;
          store_real_gradient(q, reference);
        }
#endif
    }

    /// DoF values from the submitted values (and gradients): the transpose of evaluate().
    __host__ __device__ void
    integrate(const bool integrate_val, const bool integrate_grad)
    {
#ifdef __CUDA_ARCH__
      __syncthreads();
      if (integrate_grad)
        {
          Number sum = integrate_val ? shared->values[point] : Number();
          for (unsigned int e = 0; e < dim; ++e)
            {
              const unsigned int stride = dealii::Utilities::pow(n_q_points_1d, e);
              const unsigned int i_e    = (point / stride) % n_q_points_1d;
              const Number *     line   = shared->gradients[e] + point - i_e * stride;
              for (unsigned int l = 0; l < n_q_points_1d; ++l)
                sum += shared->co_shape_gradients[l * n_q_points_1d + i_e] * line[l * stride];
            }
          __syncthreads();
          shared->values[point] = sum;
          __syncthreads();
        }
      if (integrate_val || integrate_grad)
        for (unsigned int d = 0; d < dim; ++d)
          apply_1d(d, shared->shape_values, true);
#else
      if (point != n_q_points - 1 || !(integrate_val || integrate_grad))
        return;
      for (unsigned int i = 0; i < n_q_points; ++i)
        {
          Number sum = 0;
          for (unsigned int q = 0; q < n_q_points; ++q)
            {
              Number phi, grad_phi[dim];
              host_basis(i, q, phi, grad_phi);
              if (integrate_val)
                sum += phi * shared->values[q];
              if (integrate_grad)
                for (unsigned int e = 0; e < dim; ++e)
                  sum += grad_phi[e] * shared->gradients[e][q];
            }
          shared->dof_values[i] = sum;
        }
#endif
    }

    /// The value at this thread's quadrature point.
    __host__ __device__ value_type
    get_value() const
    {
      return shared->values[point];
    }

    /// The DoF value this thread owns (before evaluate()).
    __host__ __device__ value_type
    get_dof_value() const
    {
      return dof_values()[point];
    }

    /// Submits the value at this thread's quadrature point (multiplied by JxW).
    __host__ __device__ void
    submit_value(const value_type &val_in)
    {
      note_submission();
      shared->values[point] = val_in * data->JxW[cell * n_q_points + point];
    }

    /// Sets the DoF value this thread owns.
    __host__ __device__ void
    submit_dof_value(const value_type &val_in)
    {
      note_submission();
      dof_values()[point] = val_in;
    }

    /// The gradient in real space at this thread's quadrature point.
    __host__ __device__ gradient_type
    get_gradient() const
    {
      gradient_type gradient;
      for (unsigned int d = 0; d < dim; ++d)
        gradient[d] = shared->gradients[d][point];
      return gradient;
    }

    /// Submits a real-space gradient, tested by the shape gradients (multiplied by JxW).
    __host__ __device__ void
    submit_gradient(const gradient_type &grad_in)
    {
      note_submission();
      const unsigned int q   = cell * n_q_points + point;
      const Number       JxW = data->JxW[q];
      for (unsigned int e = 0; e < dim; ++e)
        {
          Number sum = 0;
          for (unsigned int d = 0; d < dim; ++d)
            sum += data->inv_jacobian[(e * dim + d) * data->jacobian_stride + q] * grad_in[d];
          shared->gradients[e][point] = sum * JxW;
        }
    }

    /// Calls `func(this)` for this thread's quadrature point.
    template <typename Functor>
    __host__ __device__ void
    apply_for_each_quad_point(const Functor &func)
    {
      func(this);
#ifdef __CUDA_ARCH__
      __syncthreads();
#endif
    }

  private:
    const data_type *        data;
    SharedData<dim, Number> *shared;
    const unsigned int       cell;
    const unsigned int       point;

    __host__ __device__ Number *
    dof_values() const
    {
#ifdef __CUDA_ARCH__
      return shared->values;
#else
      return shared->dof_values;
#endif
    }

    /// gradients[d][q] = sum_e reference[e] * d xi_e / d x_d at point q of the cell
    __host__ __device__ void
    store_real_gradient(const unsigned int q, const Number (&reference)[dim])
    {
      const unsigned int k = cell * n_q_points + q;
      for (unsigned int d = 0; d < dim; ++d)
        {
          Number sum = 0;
          for (unsigned int e = 0; e < dim; ++e)
            sum += reference[e] * data->inv_jacobian[(e * dim + d) * data->jacobian_stride + k];
          shared->gradients[d][q] = sum;
        }
    }

#ifdef __CUDA_ARCH__
    /// In place on shared->values: v(.., i_d, ..) = sum_l M(i_d, l) v(.., l, ..), M transposed if asked.
    __device__ void
    apply_1d(const unsigned int direction, const Number *matrix, const bool transpose)
    {
      const unsigned int stride = dealii::Utilities::pow(n_q_points_1d, direction);
      const unsigned int i_d    = (point / stride) % n_q_points_1d;
      const Number *     line   = shared->values + point - i_d * stride;
      Number             sum    = 0;
      for (unsigned int l = 0; l < n_q_points_1d; ++l)
        sum += (transpose ? matrix[l * n_q_points_1d + i_d] : matrix[i_d * n_q_points_1d + l]) * line[l * stride];
      __syncthreads();
      shared->values[point] = sum;
      __syncthreads();
    }

    __device__ void
    note_submission() const
    {}
#else
    /// Tensor-product basis function @p i and its reference gradient at quadrature point @p q.
    void
    host_basis(const unsigned int i, const unsigned int q, Number &phi, Number (&grad_phi)[dim]) const
    {
      phi = 1;
      for (unsigned int e = 0; e < dim; ++e)
        grad_phi[e] = 1;
      unsigned int ii = i, qq = q;
      for (unsigned int d = 0; d < dim; ++d, ii /= n_q_points_1d, qq /= n_q_points_1d)
        {
          const unsigned int entry = (qq % n_q_points_1d) * n_q_points_1d + ii % n_q_points_1d;
          const Number       value = shared->shape_values[entry];
          phi *= value;
          for (unsigned int e = 0; e < dim; ++e)
            grad_phi[e] *= (e == d ? shared->shape_gradients[entry] : value);
        }
    }

    /// True on the emulated thread that runs read/evaluate for the whole cell.
    bool
    host_collective_first() const
    {
      if (point != 0)
        return false;
      AssertThrow(!shared->host_submitted,
                  ExcNotSupported("gpumf host backend: read_dof_values()/evaluate() after a submit_*() "
                                  "in the same cell functor. Use one FEEvaluation pass per functor: "
                                  "read, evaluate, quadrature-point work, integrate, distribute."));
      return true;
    }

    void
    note_submission() const
    {
      if (point == 0)
        shared->host_submitted = true;
    }
#endif
  };
} // namespace gpumf

#endif
