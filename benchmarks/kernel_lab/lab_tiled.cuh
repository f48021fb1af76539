/**
 * The kernel lab's design `tiled`: the register-tiled sum factorization of one scalar 3D cell,
 * the ready operators' cell operation until the lines design (include/gpumf/internal/ready/
 * lines.cuh) replaced it; kept here as the lab's baseline.
 *
 * Threads: a cell has n_q x n_q threads (tx, ty) (CellLayout with columns); thread (tx, ty)
 * keeps the column of points (tx, ty, k), k < n_q, in registers. Contractions along z run in
 * registers, the 1D matrices coming with the functor as kernel parameters (constant operands,
 * no loads); those along x and y read one slab of the cell from shared memory, with the
 * thread's own row (or column) of the 1D matrix held in registers, so that each multiply-add
 * reads one operand from shared memory, and the threads of a warp read at most n_q distinct
 * addresses per instruction (broadcasts). The values and the three reference gradients of a
 * point stay in registers through the quadrature-point operation.
 *
 * Shared scratch of a cell: three buffers of n_q^3 numbers whose x-lines are padded to an odd
 * length where they fit (no bank conflicts between the lines a warp reads); the DoF values
 * travel in registers (read and distributed by each thread for its column).
 */
#ifndef gpumf_kernel_lab_tiled_cuh
#define gpumf_kernel_lab_tiled_cuh

#include <gpumf/internal/ready/metric.cuh>
#include <gpumf/internal/tensor_contractions.h>

#include <cstddef>

namespace lab
{
  using gpumf::internal::read_only;

  /// Length of an x-line in RegisterTiled's scratch for @p n_q points: odd (padded) where three
  /// padded slabs fit into 4 n_q^3 numbers.
  constexpr unsigned int
  register_tiled_row(const unsigned int n_q)
  {
    return n_q % 2 == 1 || 3 * (n_q + 1) * n_q * n_q > 4 * n_q * n_q * n_q ? n_q : n_q + 1;
  }

  /// Numbers of one of RegisterTiled's three scratch buffers.
  constexpr unsigned int
  register_tiled_buffer(const unsigned int n_q)
  {
    return register_tiled_row(n_q) * n_q * n_q;
  }

#ifdef __CUDACC__
  /**
   * The register-tiled cell operation of one component: @p u holds the DoF values
   * u(tx, ty, k), k < n_dofs_1d (where tx, ty < n_dofs_1d) on entry and the result on exit.
   * All threads of the cell call it (it has barriers); it uses 3 buffers of the cell's
   * scratch (the whole scratch of a scalar element: the values must be in registers).
   */
  template <int n_dofs_1d, int n_q, typename Number, bool with_values, bool with_gradients>
  struct RegisterTiled
  {
    static constexpr unsigned int nd   = n_dofs_1d;
    static constexpr unsigned int row  = register_tiled_row(n_q);
    static constexpr unsigned int slab = row * n_q;
    /// Numbers of one scratch buffer.
    static constexpr unsigned int buffer = register_tiled_buffer(n_q);
    static_assert(3 * buffer <= 4 * n_q * n_q * n_q, "three buffers must fit a cell's scratch");

    __device__ static unsigned int
    at(const unsigned int i, const unsigned int j, const unsigned int k)
    {
      return i + row * j + slab * k;
    }

    /// Numbers of the 1D matrices: shape values [q * nd + i], then the collocation derivative
    /// [q * n_q + l].
    static constexpr unsigned int n_table = n_q * (nd + n_q);

    /**
     * @p S: shape values [q * nd + i], @p D: collocation derivative [q * n_q + l] in shared
     * memory (the rows a thread keeps in registers); @p table: the same in the kernel's
     * parameters (read at indices known at compile time: constant operands of the z
     * contractions); @p scratch: the cell's scratch; @p point(k, value, gx, gy, gz) applies the
     * quadrature-point operation to point (tx, ty, k) in place.
     */
    template <typename Point>
    __device__ static void
    apply(Number (&u)[n_q],
          const bool    collocation,
          const Number *S,
          const Number *D,
          const Number (&table)[n_table],
          Number            *scratch,
          const unsigned int tx,
          const unsigned int ty,
          const Point       &point)
    {
      const Number *const Sz = table, *const Dz = table + n_q * nd;
      Number *const A = scratch, *const B = scratch + buffer, *const C = scratch + 2 * buffer;
      __syncthreads(); // the previous readers of the scratch are done
      Number q[n_q];
      if (collocation)
        {
#  pragma unroll
          for (unsigned int k = 0; k < n_q; ++k)
            q[k] = u[k];
        }
      else
        interpolate(u, S, Sz, A, B, tx, ty, q);

      if constexpr (with_gradients)
        {
          // (interpolate() read A last before its second barrier, B in its last pass)
#  pragma unroll
          for (unsigned int k = 0; k < n_q; ++k)
            A[at(tx, ty, k)] = q[k];
          Number gz[n_q];
#  pragma unroll
          for (unsigned int k = 0; k < n_q; ++k)
            gz[k] =
              gpumf::internal::tensor::line_dot<n_q, false, n_q>(Dz, k, [&](const unsigned int m) { return q[m]; });
          __syncthreads();
          // one row of the 1D derivative in registers at a time (fewer registers: more
          // cells resident per SM). x derivatives to B; then per point the y derivative,
          // the point operation on the thread's own x entry, the tested x and y components
          // back to B and C.
          {
            Number d[n_q];
#  pragma unroll
            for (unsigned int m = 0; m < n_q; ++m)
              d[m] = D[tx * n_q + m];
            contract<true>(d, A, tx, ty, [&](const unsigned int k, const Number v) { B[at(tx, ty, k)] = v; });
#  pragma unroll
            for (unsigned int m = 0; m < n_q; ++m)
              d[m] = D[ty * n_q + m];
            contract<false>(d, A, tx, ty, [&](const unsigned int k, Number gy) {
              Number gx = B[at(tx, ty, k)]; // the thread's own entry: no barrier
              point(k, q[k], gx, gy, gz[k]);
              B[at(tx, ty, k)] = gx;
              C[at(tx, ty, k)] = gy;
            });
          }
          __syncthreads();
          // the transposed derivatives, summed into u: z and x, then y; A is free (read
          // before the barrier above)
          {
            Number d[n_q];
#  pragma unroll
            for (unsigned int m = 0; m < n_q; ++m)
              d[m] = D[m * n_q + tx];
#  pragma unroll
            for (unsigned int k = 0; k < n_q; ++k)
              {
                Number sum = with_values ? q[k] : Number(0);
#  pragma unroll
                for (unsigned int m = 0; m < n_q; ++m)
                  sum += Dz[m * n_q + k] * gz[m] + d[m] * B[at(m, ty, k)];
                u[k] = sum;
              }
#  pragma unroll
            for (unsigned int m = 0; m < n_q; ++m)
              d[m] = D[m * n_q + ty];
            contract<false>(d, C, tx, ty, [&](const unsigned int k, const Number v) {
              u[k] += v;
              if (!collocation)
                A[at(tx, ty, k)] = u[k];
            });
          }
          if (!collocation)
            integrate(A, B, S, Sz, tx, ty, u);
        }
      else
        {
          Number none = 0;
#  pragma unroll
          for (unsigned int k = 0; k < n_q; ++k)
            point(k, q[k], none, none, none);
          if (collocation)
            {
#  pragma unroll
              for (unsigned int k = 0; k < n_q; ++k)
                u[k] = q[k];
            }
          else
            {
              // A was read last before interpolate()'s second barrier
#  pragma unroll
              for (unsigned int k = 0; k < n_q; ++k)
                A[at(tx, ty, k)] = q[k];
              integrate(A, B, S, Sz, tx, ty, u);
            }
        }
    }

  private:
    /// store(k, sum_l s[l] in(l, ty, k)) (a line along x) or store(k, sum_l s[l] in(tx, l, k)) (along
    /// y) for k < n_q: one contraction of a slab in shared memory with the thread's row @p s.
    template <bool along_x, unsigned int n_in, typename Store>
    __device__ static void
    contract(const Number (&s)[n_in],
             const Number      *in,
             const unsigned int tx,
             const unsigned int ty,
             const Store       &store)
    {
#  pragma unroll
      for (unsigned int k = 0; k < n_q; ++k)
        store(k, gpumf::internal::tensor::line_dot<n_in, false, n_in>(s, 0, [&](const unsigned int l) {
                return in[along_x ? at(l, ty, k) : at(tx, l, k)];
              }));
    }

    /// q(tx, ty, k) at the quadrature points from the DoF values u: z in registers, then x, y.
    __device__ static void
    interpolate(const Number (&u)[n_q],
                const Number      *S,
                const Number      *Sz,
                Number            *A,
                Number            *B,
                const unsigned int tx,
                const unsigned int ty,
                Number (&q)[n_q])
    {
      if (tx < nd && ty < nd)
#  pragma unroll
        for (unsigned int k = 0; k < n_q; ++k)
          A[at(tx, ty, k)] =
            gpumf::internal::tensor::line_dot<nd, false, nd>(Sz, k, [&](const unsigned int l) { return u[l]; });
      __syncthreads();
      Number s[nd];
      if (ty < nd)
        {
#  pragma unroll
          for (unsigned int l = 0; l < nd; ++l)
            s[l] = S[tx * nd + l];
          contract<true>(s, A, tx, ty, [&](const unsigned int k, const Number v) { B[at(tx, ty, k)] = v; });
        }
      __syncthreads();
#  pragma unroll
      for (unsigned int l = 0; l < nd; ++l)
        s[l] = S[ty * nd + l];
      contract<false>(s, B, tx, ty, [&](const unsigned int k, const Number v) { q[k] = v; });
    }

    /// The transpose of interpolate(): u(tx, ty, k), k < nd, from the values at the points in
    /// A (each thread has written its column): y, x, then z.
    __device__ static void
    integrate(const Number      *A,
              Number            *B,
              const Number      *S,
              const Number      *Sz,
              const unsigned int tx,
              const unsigned int ty,
              Number (&u)[n_q])
    {
      __syncthreads(); // A complete, the readers of B done
      Number s[n_q];
      if (ty < nd)
        {
#  pragma unroll
          for (unsigned int l = 0; l < n_q; ++l)
            s[l] = S[l * nd + ty];
          contract<false>(s, A, tx, ty, [&](const unsigned int k, const Number v) { B[at(tx, ty, k)] = v; });
        }
      __syncthreads();
      if (tx < nd && ty < nd)
        {
#  pragma unroll
          for (unsigned int l = 0; l < n_q; ++l)
            s[l] = S[l * nd + tx];
          Number w[n_q];
          contract<true>(s, B, tx, ty, [&](const unsigned int k, const Number v) { w[k] = v; });
#  pragma unroll
          for (unsigned int k = 0; k < nd; ++k)
            u[k] = gpumf::internal::tensor::line_dot<n_q, true, nd>(Sz, k, [&](const unsigned int l) { return w[l]; });
        }
    }
  };
#endif
} // namespace lab

#endif
