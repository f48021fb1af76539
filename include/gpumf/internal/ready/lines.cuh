/**
 * @file gpumf/internal/ready/lines.cuh
 * The sum factorization of one scalar 3D cell on the GPU with every 1D contraction in
 * registers: the cell operation of the ready operators (cell_operator.h), free of deal.II so
 * that the kernel lab (benchmarks/kernel_lab) builds it in seconds.
 *
 * Threads: a cell has n_q x n_q threads (tx, ty) (CellLayout with columns). Thread (a, b) owns,
 * in turn, the line along x at (y, z) = (a, b), the line along y at (x, z) = (a, b) and the line
 * along z at (x, y) = (a, b). A pass along one direction loads each thread's whole line from the
 * cell's shared scratch into registers, contracts it with a 1D matrix taken from the kernel's
 * parameters (constant operands: no loads) and stores the result: one shared-memory load and one
 * store a point and pass. The values, the three reference gradients and the quadrature-point
 * operation of a point stay with the thread that owns its z-line, which also gathers and
 * scatters the cell's DoF values (the caller's part).
 *
 * With collocation (the element's nodes are the quadrature points: interpolation is the
 * identity, BP5): the x and y derivatives by passes, the point operation, the transposed
 * derivatives by passes in place, summed by the z-line's owner. Otherwise the interpolation to
 * the points (z in registers, then passes along y and x) comes before and the integration (z in
 * registers, passes along x and y) after.
 *
 * Even-odd: the 1D matrices on points and nodes symmetric about the cell's centre satisfy
 * M(n-1-o, m-1-i) = +-M(o, i); folded (fold_line_tables()), a contraction takes half the
 * multiply-adds. The caller checks the symmetry on the host and runs Lines<..., false> where
 * it does not hold (FE_DGQLegendre, FE_DGQHermite, quadratures not symmetric).
 *
 * Each of the three buffers of the scratch has its own strides (an x-line's length, a slab's),
 * chosen at compile time, with the cell's stride and which passes map thread (tx, ty) to line
 * (ty, tx), from a count of the shared-memory wavefronts (bank conflicts) of the warps of a block
 * of cells, each buffer weighted by the directions it is accessed along.
 *
 * Measured in the kernel lab against the earlier register-tiled design (passes along x and y
 * reading a slab from shared memory for every point): doc/perf/history.md, "The kernel lab: every
 * 1D contraction in registers".
 */
#ifndef gpumf_internal_ready_lines_cuh
#define gpumf_internal_ready_lines_cuh

#include <gpumf/config.h>
#include <gpumf/internal/tensor_contractions.h>

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    /// The scratch of Lines (in numbers): buffer k (A, B, C) of a cell at offset[k], point (x, y, z)
    /// at x + row[k] y + slab[k] z in it, cell c at c * cell; @p swap[dir]: the passes along x (0)
    /// and y (1) give thread (tx, ty) the line (a, b) = (ty, tx) instead of (tx, ty) (a pass reads
    /// and writes with the same mapping).
    struct LineScratch
    {
      unsigned int row[3] = {}, slab[3] = {}, offset[3] = {}, cell = 0;
      bool         swap[2] = {false, false};
    };

    /// Wavefronts of one shared-memory access of every warp of a block of @p cells cells of n x n
    /// threads to a buffer of strides (@p row, @p slab), each thread's line (a, b) of cell c
    /// accessing the number at c cell + (dir 0) row a + slab b, (dir 1) a + slab b, (dir 2) a + row b;
    /// numbers of @p bytes bytes (8: 16 threads a wavefront at most, 16 banks of 8 bytes; 4: 32 and 32).
    constexpr unsigned int
    line_wavefronts(const unsigned int n,
                    const unsigned int row,
                    const unsigned int slab,
                    const unsigned int cell,
                    const bool         swap,
                    const unsigned int cells,
                    const unsigned int dir,
                    const unsigned int bytes)
    {
      const unsigned int g = bytes == 8 ? 16 : 32, T = cells * n * n;
      unsigned int       total = 0;
      for (unsigned int first = 0; first < T; first += g)
        {
          // the lines of a block are disjoint (row >= n, slab >= row n, cell >= the buffers): no two
          // threads access the same number
          unsigned int per_bank[32] = {}, worst = 0;
          for (unsigned int t = first; t < first + g && t < T; ++t)
            {
              const unsigned int c = t / (n * n), tx = t % n, ty = (t / n) % n;
              const unsigned int a = swap && dir < 2 ? ty : tx, b = swap && dir < 2 ? tx : ty;
              const unsigned int w = c * cell + (dir == 0 ? row * a + slab * b : dir == 1 ? a + slab * b : a + row * b);
              const unsigned int k = ++per_bank[w % g];
              worst                = k > worst ? k : worst;
            }
          total += worst;
        }
      return total;
    }

    /// The scratch with the fewest wavefronts: @p weights[k][dir] counts the accesses along dir to
    /// buffer k a point (a buffer without accesses takes no room). For each choice of the swaps,
    /// each buffer's strides on one cell, then the cell stride (at least @p min_cell) on a block of
    /// the most cells (256 threads); the swaps with the fewest wavefronts on that block.
    constexpr LineScratch
    choose_line_scratch(const unsigned int n,
                        const unsigned int bytes,
                        const unsigned int (&weights)[3][3],
                        const unsigned int min_cell = 0)
    {
      const unsigned int most_cells = 256 / (n * n) > 0 ? 256 / (n * n) : 1;
      const auto         cost       = [&](const LineScratch &s, const unsigned int cells) {
        unsigned int c = 0;
        for (unsigned int k = 0; k < 3; ++k)
          for (unsigned int dir = 0; dir < 3; ++dir)
            if (weights[k][dir] > 0)
              c += weights[k][dir] *
                   line_wavefronts(n, s.row[k], s.slab[k], s.cell, dir < 2 && s.swap[dir], cells, dir, bytes);
        return c;
      };
      LineScratch  chosen{};
      unsigned int chosen_cost = ~0u;
      for (unsigned int swap = 0; swap < 4; ++swap)
        {
          LineScratch s{};
          s.swap[0] = (swap & 1) != 0;
          s.swap[1] = (swap & 2) != 0;
          for (unsigned int k = 0; k < 3; ++k)
            {
              unsigned int least = ~0u;
              s.row[k] = n, s.slab[k] = n * n;
              for (unsigned int row = n; row <= n + 1; ++row)
                for (unsigned int slab = row * n; slab < row * n + 16; ++slab)
                  {
                    unsigned int c = 0;
                    for (unsigned int dir = 0; dir < 3; ++dir)
                      c += weights[k][dir] * line_wavefronts(n, row, slab, 0, dir < 2 && s.swap[dir], 1, dir, bytes);
                    if (c < least)
                      least = c, s.row[k] = row, s.slab[k] = slab;
                  }
            }
          unsigned int size = 0;
          for (unsigned int k = 0; k < 3; ++k)
            {
              s.offset[k] = size;
              if (weights[k][0] + weights[k][1] + weights[k][2] > 0)
                size += s.slab[k] * n;
            }
          size = size > min_cell ? size : min_cell;
          for (unsigned int cell = size; cell < size + 32; ++cell)
            {
              s.cell               = cell;
              const unsigned int c = cost(s, most_cells);
              if (c < chosen_cost)
                chosen = s, chosen_cost = c;
            }
        }
      return chosen;
    }

    /// The 1D matrices of a cell operation: shape values S (n_q x nd), its transpose, the
    /// collocation derivative D (n_q x n_q), its transpose.
    enum LineMatrix : unsigned int
    {
      shape_matrix = 0,
      shape_transpose,
      derivative_matrix,
      derivative_transpose,
      n_line_matrices
    };

    /// Numbers of one folded matrix for n_q points (at most n_q x n_q).
    __host__ __device__ constexpr unsigned int
    folded_size(const unsigned int n)
    {
      return (n + 1) / 2 * n;
    }

    /// Numbers of the folded tables of Lines with even_odd: the four LineMatrix kinds.
    __host__ __device__ constexpr unsigned int
    folded_tables_size(const unsigned int n)
    {
      return n_line_matrices * folded_size(n);
    }

    /// The even-odd form of a matrix M (@p n_out x @p n_in, M(o, i) = @p m(o, i)) whose entries satisfy
    /// M(n_out-1-o, n_in-1-i) = @p sign M(o, i) (+1 for values, -1 for derivatives): row
    /// o < (n_out+1)/2 of @p folded (n_in numbers) holds (M(o, i) + M(o, n_in-1-i))/2 for i < n_in/2,
    /// then (M(o, i) - M(o, n_in-1-i))/2, then M(o, n_in/2) where n_in is odd. Returns the largest
    /// violation of the symmetry over the largest entry.
    template <typename Matrix, typename Number>
    double
    fold_matrix(const Matrix &m, const unsigned int n_out, const unsigned int n_in, const int sign, Number *folded)
    {
      const unsigned int h         = n_in / 2;
      double             violation = 0, largest = 0;
      for (unsigned int o = 0; o < n_out; ++o)
        for (unsigned int i = 0; i < n_in; ++i)
          {
            const double d = double(m(n_out - 1 - o, n_in - 1 - i)) - sign * double(m(o, i));
            violation      = d > violation ? d : -d > violation ? -d : violation;
            largest        = double(m(o, i)) > largest  ? double(m(o, i)) :
                             -double(m(o, i)) > largest ? -double(m(o, i)) :
                                                          largest;
          }
      for (unsigned int o = 0; o < (n_out + 1) / 2; ++o)
        {
          for (unsigned int i = 0; i < h; ++i)
            {
              folded[o * n_in + i]     = Number(0.5 * (double(m(o, i)) + double(m(o, n_in - 1 - i))));
              folded[o * n_in + h + i] = Number(0.5 * (double(m(o, i)) - double(m(o, n_in - 1 - i))));
            }
          if (n_in % 2 == 1)
            folded[o * n_in + 2 * h] = Number(m(o, h));
        }
      return largest > 0 ? violation / largest : violation;
    }

    /// The folded tables of Lines (folded_tables_size(n_q) numbers at @p folded) from the shape
    /// values @p S [q nd + i] and the collocation derivative @p D [q n_q + l] (a host copy); returns
    /// the largest relative violation of their symmetry about the cell's centre (even-odd is exact
    /// where it is at rounding level).
    template <typename Number>
    double
    fold_line_tables(const unsigned int nd, const unsigned int n_q, const Number *S, const Number *D, Number *folded)
    {
      const unsigned int F = folded_size(n_q);
      const auto         s = [&](const unsigned int q, const unsigned int i) { return S[q * nd + i]; };
      const auto         d = [&](const unsigned int q, const unsigned int l) { return D[q * n_q + l]; };
      double             v = fold_matrix(s, n_q, nd, 1, folded + shape_matrix * F);
      const double       t =
        fold_matrix([&](unsigned int i, unsigned int q) { return s(q, i); }, nd, n_q, 1, folded + shape_transpose * F);
      const double u = fold_matrix(d, n_q, n_q, -1, folded + derivative_matrix * F);
      const double w = fold_matrix(
        [&](unsigned int l, unsigned int q) { return d(q, l); }, n_q, n_q, -1, folded + derivative_transpose * F);
      v = t > v ? t : v;
      v = u > v ? u : v;
      return w > v ? w : v;
    }

    /// The scratch layout of Lines for @p n points, numbers of @p bytes bytes, the passes of
    /// collocation (@p collocation) or interpolation, with or without gradients, cells of at least
    /// @p min_cell numbers.
    template <unsigned int n, unsigned int bytes, bool collocation, bool with_gradients, unsigned int min_cell>
    struct LineLayout
    {
      /// Accesses a point to each buffer along x, y, z (the order of Lines::apply()).
      static constexpr unsigned int weights[3][3]        = {{collocation ? 1u : 3u,
                                                      collocation ? 1u : 3u,
                                                      collocation ? 1u : 4u},
                                                            {collocation ? 3u : 5u, collocation ? 0u : 2u, 3},
                                                            {0, 3, 3}};
      static constexpr unsigned int values_weights[3][3] = {{2, 2, 4}, {2, 2, 0}, {0, 0, 0}};
      static constexpr LineScratch  value =
        choose_line_scratch(n, bytes, with_gradients ? weights : values_weights, min_cell);
    };

    /**
     * The cell operation of one component. @p table: S [q nd + i], then D [q n + l] (kernel
     * parameters); @p folded: fold_line_tables() (kernel parameters; read with even_odd only).
     * @p identity: the shape values are the identity (collocation: n_q = n_dofs_1d and the
     * element's nodes are the points). @p min_cell: the least numbers of a cell's scratch (a
     * caller that keeps more there). The scratch's layout depends on neither even_odd nor
     * identity: a caller may run every form on one scratch.
     */
    template <int nd,
              int n,
              typename Number,
              bool         with_values,
              bool         with_gradients,
              bool         even_odd,
              bool         identity,
              unsigned int min_cell = 0>
    struct Lines
    {
      static_assert(nd <= n, "the cell operation needs at least as many points as DoFs per direction");
      static_assert(!identity || nd == n, "collocation needs as many points as DoFs per direction");
      /// Whether collocation is possible (n_q = n_dofs_1d): the scratch is laid out for it then.
      static constexpr bool collocation = nd == n;
      /// Numbers of the 1D matrices in @p table.
      static constexpr unsigned int n_table = n * (nd + n);

      /// The scratch's layout (one per size and term, shared by the forms: computed once).
      static constexpr LineScratch scratch_layout =
        LineLayout<n, sizeof(Number), collocation, with_gradients, min_cell>::value;
      /// Numbers of a cell's scratch.
      static constexpr unsigned int cell_stride = scratch_layout.cell;

#ifdef __CUDACC__
      /**
       * @p u: the DoF values u(a, b, k), k < nd, of the thread's z-line on entry (where a, b < nd),
       * the result on exit; @p point(k, value, gx, gy, gz) at point (a, b, k); @p scratch: the
       * cell's scratch (cell_stride numbers). All threads of the cell call it (it has barriers).
       * Each x and y gradient goes from the scratch through the point operation back to the
       * scratch at once: kept in arrays for the whole column instead (as evaluate() and
       * integrate() do), BP3 p=4 took 127 registers against 80 and ran 11 % slower (kernel lab, H200).
       */
      template <typename Point>
      __device__ static void
      apply(Number (&u)[n],
            const Number (&table)[n_table],
            const Number      *folded,
            Number            *scratch,
            const unsigned int a,
            const unsigned int b,
            const Point       &point)
      {
        Number q[n], r[n];
        to_points(u, table, folded, scratch, a, b, q);
        if constexpr (with_gradients)
          {
            Number gz[n];
            reference_gradients(q, table, folded, scratch, a, b, gz);
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              {
                Number gx = scratch[at<1>(a, b, k)], gy = scratch[at<2>(a, b, k)];
                point(k, q[k], gx, gy, gz[k]);
                scratch[at<1>(a, b, k)] = gx;
                scratch[at<2>(a, b, k)] = gy;
              }
            from_reference_gradients(q, gz, table, folded, scratch, a, b, r);
          }
        else
          {
            Number none = 0;
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              {
                point(k, q[k], none, none, none);
                r[k] = q[k];
              }
          }
        to_dofs(r, table, folded, scratch, a, b, u);
      }

      /**
       * The first half of apply() for a caller that couples components (the elasticity
       * operator): the values @p q and the reference gradients (@p gx, @p gy, @p gz;
       * with_gradients only, else zero) at the points (a, b, k) of the thread's z-line, from the
       * DoF values @p u. Run for each component, then the point operation on all of them, then
       * integrate() for each: the scratch is free again when this returns (its next use begins
       * with a barrier).
       */
      __device__ static void
      evaluate(const Number (&u)[n],
               const Number (&table)[n_table],
               const Number      *folded,
               Number            *scratch,
               const unsigned int a,
               const unsigned int b,
               Number (&q)[n],
               Number (&gx)[n],
               Number (&gy)[n],
               Number (&gz)[n])
      {
        to_points(u, table, folded, scratch, a, b, q);
        if constexpr (with_gradients)
          {
            reference_gradients(q, table, folded, scratch, a, b, gz);
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              {
                gx[k] = scratch[at<1>(a, b, k)];
                gy[k] = scratch[at<2>(a, b, k)];
              }
          }
        else
#  pragma unroll
          for (unsigned int k = 0; k < n; ++k)
            gx[k] = gy[k] = gz[k] = Number(0);
      }

      /**
       * The second half of apply(): the DoF values @p u of the thread's z-line from what the
       * point operation submitted at its points, values @p q (with_values) and reference
       * gradients @p gx, @p gy, @p gz (with_gradients). The scratch must be free: evaluate() of
       * this cell returned before, any use since ended with a barrier after which each thread
       * read only its own line (as integrate() and evaluate() end).
       */
      __device__ static void
      integrate(Number (&u)[n],
                const Number (&table)[n_table],
                const Number      *folded,
                Number            *scratch,
                const unsigned int a,
                const unsigned int b,
                const Number (&q)[n],
                const Number (&gx)[n],
                const Number (&gy)[n],
                const Number (&gz)[n])
      {
        Number r[n];
        if constexpr (with_gradients)
          {
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              {
                scratch[at<1>(a, b, k)] = gx[k];
                scratch[at<2>(a, b, k)] = gy[k];
              }
            from_reference_gradients(q, gz, table, folded, scratch, a, b, r);
          }
        else
#  pragma unroll
          for (unsigned int k = 0; k < n; ++k)
            r[k] = q[k];
        to_dofs(r, table, folded, scratch, a, b, u);
      }

    private:
      /// The values @p q at the thread's points from the DoF values @p u: the interpolation (z in
      /// registers, then passes along y and x), or a copy with collocation. Begins with a barrier.
      __device__ static void
      to_points(const Number (&u)[n],
                const Number (&table)[n_table],
                const Number      *folded,
                Number            *scratch,
                const unsigned int a,
                const unsigned int b,
                Number (&q)[n])
      {
        __syncthreads(); // the previous readers of the scratch are done
        if constexpr (identity)
          {
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              q[k] = u[k];
          }
        else
          {
            // to the points: z in registers (a, b < nd), then y (x < nd), then x
            if (a < nd && b < nd)
              {
                Number v[nd], w[n];
#  pragma unroll
                for (unsigned int l = 0; l < nd; ++l)
                  v[l] = u[l];
                contract<shape_matrix>(v, table, folded, w);
#  pragma unroll
                for (unsigned int k = 0; k < n; ++k)
                  scratch[at<0>(a, b, k)] = w[k];
              }
            __syncthreads();
            pass<1, 0, 1, nd, n, shape_matrix, nd, n>(scratch, table, folded, a, b);
            __syncthreads();
            pass<0, 1, 0, nd, n, shape_matrix, n, n>(scratch, table, folded, a, b);
            __syncthreads();
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              q[k] = scratch[at<0>(a, b, k)];
          }
      }

      /// The reference gradients at the thread's points from the values @p q there: z in
      /// registers (@p gz), x and y into buffers B and C at the thread's line (after a barrier).
      __device__ static void
      reference_gradients(const Number (&q)[n],
                          const Number (&table)[n_table],
                          const Number      *folded,
                          Number            *scratch,
                          const unsigned int a,
                          const unsigned int b,
                          Number (&gz)[n])
      {
        if constexpr (identity)
          {
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              scratch[at<0>(a, b, k)] = q[k];
            __syncthreads();
          }
        contract<derivative_matrix>(q, table, folded, gz);
        pass<0, 0, 1, n, n, derivative_matrix, n, n>(scratch, table, folded, a, b);
        pass<1, 0, 2, n, n, derivative_matrix, n, n>(scratch, table, folded, a, b);
        __syncthreads();
      }

      /// @p r: the transposed derivatives of the submitted gradients (@p gz in registers, x and
      /// y in buffers B and C at the thread's line) plus the submitted values @p q (with_values).
      __device__ static void
      from_reference_gradients(const Number (&q)[n],
                               const Number (&gz)[n],
                               const Number (&table)[n_table],
                               const Number      *folded,
                               Number            *scratch,
                               const unsigned int a,
                               const unsigned int b,
                               Number (&r)[n])
      {
        contract<derivative_transpose>(gz, table, folded, r);
        if constexpr (with_values)
#  pragma unroll
          for (unsigned int k = 0; k < n; ++k)
            r[k] += q[k];
        __syncthreads();
        pass<0, 1, 1, n, n, derivative_transpose, n, n>(scratch, table, folded, a, b);
        pass<1, 2, 2, n, n, derivative_transpose, n, n>(scratch, table, folded, a, b);
        __syncthreads();
#  pragma unroll
        for (unsigned int k = 0; k < n; ++k)
          r[k] += scratch[at<1>(a, b, k)] + scratch[at<2>(a, b, k)];
      }

      /// The DoF values @p u of the thread's line from @p r at its points: z in registers, then x
      /// (z < nd), then y (x, z < nd); A was last read by other threads at least two barriers ago
      /// (its own line since). A copy with collocation.
      __device__ static void
      to_dofs(const Number (&r)[n],
              const Number (&table)[n_table],
              const Number      *folded,
              Number            *scratch,
              const unsigned int a,
              const unsigned int b,
              Number (&u)[n])
      {
        if constexpr (identity)
          {
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              u[k] = r[k];
          }
        else
          {
            {
              Number w[nd];
              contract<shape_transpose>(r, table, folded, w);
#  pragma unroll
              for (unsigned int l = 0; l < nd; ++l)
                scratch[at<0>(a, b, l)] = w[l];
            }
            __syncthreads();
            pass<0, 0, 1, n, nd, shape_transpose, n, nd>(scratch, table, folded, a, b);
            __syncthreads();
            pass<1, 1, 0, n, nd, shape_transpose, nd, nd>(scratch, table, folded, a, b);
            __syncthreads();
            if (a < nd && b < nd)
#  pragma unroll
              for (unsigned int l = 0; l < nd; ++l)
                u[l] = scratch[at<0>(a, b, l)];
          }
      }

      /// Index of point (or DoF) (x, y, z) of buffer @p k in the cell's scratch.
      template <unsigned int k>
      __device__ static constexpr unsigned int
      at(const unsigned int x, const unsigned int y, const unsigned int z)
      {
        return scratch_layout.offset[k] + x + scratch_layout.row[k] * y + scratch_layout.slab[k] * z;
      }

      /// Index of entry @p i of the line along @p dir owned by thread (a, b) in buffer @p k.
      template <unsigned int dir, unsigned int k>
      __device__ static constexpr unsigned int
      line(const unsigned int a, const unsigned int b, const unsigned int i)
      {
        return dir == 0 ? at<k>(i, a, b) : dir == 1 ? at<k>(a, i, b) : at<k>(a, b, i);
      }

      /// w = M v for the matrix @p kind (LineMatrix), from @p table or, with even_odd, from its
      /// folded form (slot kind of folded_size(n) numbers in @p folded): half the multiply-adds, the
      /// sums and differences of mirrored entries of v first.
      template <unsigned int kind, unsigned int n_in, unsigned int n_out>
      __device__ static void
      contract(const Number (&v)[n_in], const Number (&table)[n_table], const Number *folded, Number (&w)[n_out])
      {
        if constexpr (!even_odd)
          tensor::apply_line < n_in, n_out, kind % 2 == 1, kind<2 ? nd : n>(kind < 2 ? table : table + n * nd, v, w);
        else
          tensor::apply_line_even_odd<kind >= 2>(folded + kind * folded_size(n), v, w);
      }

      /// One pass along @p dir by the threads whose line (a, b) has a < @p ext_a, b < @p ext_b:
      /// out = M in with the matrix @p kind, from buffer @p in to buffer @p out; the whole line is
      /// loaded before any store (in place when @p in == @p out).
      template <unsigned int dir,
                unsigned int in,
                unsigned int out,
                unsigned int n_in,
                unsigned int n_out,
                unsigned int kind,
                unsigned int ext_a,
                unsigned int ext_b>
      __device__ static void
      pass(Number *scratch,
           const Number (&table)[n_table],
           const Number      *folded,
           const unsigned int tx,
           const unsigned int ty)
      {
        const bool         swap = scratch_layout.swap[dir];
        const unsigned int a = swap ? ty : tx, b = swap ? tx : ty;
        if ((ext_a < n && a >= ext_a) || (ext_b < n && b >= ext_b))
          return;
        Number v[n_in], w[n_out];
#  pragma unroll
        for (unsigned int i = 0; i < n_in; ++i)
          v[i] = scratch[line<dir, in>(a, b, i)];
        contract<kind>(v, table, folded, w);
#  pragma unroll
        for (unsigned int o = 0; o < n_out; ++o)
          scratch[line<dir, out>(a, b, o)] = w[o];
      }
#endif
    };
  } // namespace internal
} // namespace gpumf

#endif
