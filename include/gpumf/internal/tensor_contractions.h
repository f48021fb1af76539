/**
 * @file gpumf/internal/tensor_contractions.h
 * The one home of the 1D contractions of sum factorization (deal.II's EvaluatorTensorProduct
 * idea): applying a 1D matrix M (n_out x n_in, row-major with leading dimension ld; or its
 * transpose) along one direction of a tensor of values. FEEvaluation's passes, FEFaceEvaluation's
 * face passes, the ready operators' register lines (ready/lines.cuh), the fused SIPG kernel and
 * the hanging-node sweeps are written with these; the naive host references are not (they stay
 * independent of them).
 *
 * Two families, each entry of the result a sum over l = 0, 1, ... in that order, starting from
 * zero or an accumulator (so that results are bitwise those of the loops written out):
 * - line dots: one entry of the result, the input reached through a callable x(l) (shared
 *   memory, registers or global memory at any stride): line_dot(), line_dot_n() (run-time size,
 *   the matrix through the read-only cache), line_dot_two_inputs(), line_dot_two_rows();
 * - whole lines and passes: apply_line() and apply_line_even_odd() (register arrays in and
 *   out), face_pass() (a pass over a face's 2D tensor by the threads of a block, two arrays at
 *   once).
 *
 * Everything is __host__ __device__ and inlined; sizes are template constants where the callers
 * know them, so that every loop unrolls. deal.II-free (the kernel lab includes it).
 */
#ifndef gpumf_internal_tensor_contractions_h
#define gpumf_internal_tensor_contractions_h

#include <gpumf/config.h>
#include <gpumf/internal/cell_layout.h>

namespace gpumf
{
  namespace internal
  {
    namespace tensor
    {
      /// Entry (i, l) of M with leading dimension ld, or of its transpose.
      template <bool transpose, unsigned int ld>
      __host__ __device__ constexpr unsigned int
      entry(const unsigned int i, const unsigned int l)
      {
        return transpose ? l * ld + i : i * ld + l;
      }

      /// acc + sum_{l < n} M(i, l) x(l) (@p transpose: M(l, i)).
      template <unsigned int n, bool transpose, unsigned int ld, typename Number, typename X>
      __host__ __device__ inline Number
      line_dot(const Number *M, const unsigned int i, const X &x, Number acc = Number(0))
      {
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int l = 0; l < n; ++l)
          acc += M[entry<transpose, ld>(i, l)] * x(l);
        return acc;
      }

      /// sum_{l < n} W(i, l) x(l) (@p transpose: W(l, i)) for a square n x n matrix in global
      /// memory (read through the read-only cache) of run-time size: the hanging-node sweeps.
      template <bool transpose, typename Number, typename X>
      __host__ __device__ inline Number
      line_dot_n(const Number *W, const unsigned int i, const X &x, const unsigned int n)
      {
        Number sum = 0;
#ifdef __CUDA_ARCH__
#  pragma unroll // (n is a constant where the GPU sweeps inline it: x may be registers)
#endif
        for (unsigned int l = 0; l < n; ++l)
          sum += read_only(W + (transpose ? l * n + i : i * n + l)) * x(l);
        return sum;
      }

      /// Row i of M (or of its transpose) applied to two inputs at once: v0 += M(i, l) x0(l), and
      /// where @p second v1 += M(i, l) x1(l) (else v1 stays as given).
      template <unsigned int n, bool transpose, unsigned int ld, typename Number, typename X0, typename X1>
      __host__ __device__ inline void
      line_dot_two_inputs(const Number      *M,
                          const unsigned int i,
                          const X0          &x0,
                          const X1          &x1,
                          Number            &v0,
                          Number            &v1,
                          const bool         second = true)
      {
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int l = 0; l < n; ++l)
          {
            const Number m = M[entry<transpose, ld>(i, l)];
            v0 += m * x0(l);
            if (second)
              v1 += m * x1(l);
          }
      }

      /// Two rows applied to one input: v0 += r0(l) x(l), and where @p second v1 += r1(l) x(l)
      /// (a face's value and normal derivative from a line through the cell).
      template <unsigned int n, typename Number, typename R0, typename R1, typename X>
      __host__ __device__ inline void
      line_dot_two_rows(const R0 &r0, const R1 &r1, const X &x, Number &v0, Number &v1, const bool second = true)
      {
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int l = 0; l < n; ++l)
          {
            const Number value = x(l);
            v0 += r0(l) * value;
            if (second)
              v1 += r1(l) * value;
          }
      }

      /// w = M v (@p transpose: M^T v) for a line held in registers, M of leading dimension ld.
      template <unsigned int n_in, unsigned int n_out, bool transpose, unsigned int ld, typename Number>
      __host__ __device__ inline void
      apply_line(const Number *M, const Number (&v)[n_in], Number (&w)[n_out])
      {
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int o = 0; o < n_out; ++o)
          w[o] = line_dot<n_in, transpose, ld>(M, o, [&](const unsigned int l) { return v[l]; });
      }

      /**
       * w = M v for a line in registers by the even-odd decomposition: M's folded form @p F
       * (n_out/2 rows of n_in numbers, the halves for the sums and the differences of mirrored
       * entries of v; see ready/lines.cuh, which makes it), half the multiply-adds. @p odd: M is
       * a derivative, M(rev o, rev i) = -M(o, i); else M(rev o, rev i) = M(o, i).
       */
      template <bool odd, unsigned int n_in, unsigned int n_out, typename Number>
      __host__ __device__ inline void
      apply_line_even_odd(const Number *F, const Number (&v)[n_in], Number (&w)[n_out])
      {
        constexpr unsigned int h = n_in / 2;
        Number                 e[h > 0 ? h : 1], d[h > 0 ? h : 1];
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int i = 0; i < h; ++i)
          {
            e[i] = v[i] + v[n_in - 1 - i];
            d[i] = v[i] - v[n_in - 1 - i];
          }
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
        for (unsigned int o = 0; o < n_out / 2; ++o)
          {
            Number a = 0, b = 0;
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
            for (unsigned int i = 0; i < h; ++i)
              {
                a += F[o * n_in + i] * e[i];
                b += F[o * n_in + h + i] * d[i];
              }
            if constexpr (n_in % 2 == 1)
              a += F[o * n_in + 2 * h] * v[h];
            w[o]             = a + b;
            w[n_out - 1 - o] = odd ? b - a : a - b;
          }
        if constexpr (n_out % 2 == 1)
          {
            constexpr unsigned int o = n_out / 2;
            Number                 a = 0;
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
            for (unsigned int i = 0; i < h; ++i)
              a += odd ? F[o * n_in + h + i] * d[i] : F[o * n_in + i] * e[i];
            if constexpr (n_in % 2 == 1 && !odd)
              a += F[o * n_in + 2 * h] * v[h];
            w[o] = a;
          }
      }

      /**
       * One pass over the 2D tensors of a face (components c < @p n_components, @p c_stride
       * apart), index i0 + n0 * i1, by the @p n_threads threads of a block (this one @p thread):
       * along @p axis, with the matrix S (n_q x n_d, leading dimension n_d), n_d -> n_q values
       * or (@p transpose) n_q -> n_d; @p n_other is the other axis' extent. @p in0 to @p out0,
       * and where @p second @p in1 to @p out1 (else out1 is zero). No barrier: the caller's.
       */
      template <unsigned int axis, bool transpose, unsigned int nq, unsigned int nd, typename Number>
      __host__ __device__ inline void
      face_pass(const Number      *S,
                const Number      *in0,
                const Number      *in1,
                Number            *out0,
                Number            *out1,
                const bool         second,
                const unsigned int n_other,
                const unsigned int n_components,
                const unsigned int c_stride,
                const unsigned int thread,
                const unsigned int n_threads)
      {
        constexpr unsigned int n_from = transpose ? nq : nd, n_out = transpose ? nd : nq;
        const unsigned int     per_component = n_out * n_other;
        for (unsigned int k = thread; k < n_components * per_component; k += n_threads)
          {
            const unsigned int c = k / per_component, m = k % per_component;
            // (o: the output's index along the axis, j: along the other axis)
            const unsigned int o = axis == 0 ? m % n_out : m / n_other;
            const unsigned int j = axis == 0 ? m / n_out : m % n_other;
            const auto index     = [&](const unsigned int l) { return axis == 0 ? l + n_from * j : j + n_other * l; };
            Number     v0 = 0, v1 = 0;
            line_dot_two_inputs<n_from, transpose, nd>(
              S,
              o,
              [&](const unsigned int l) { return in0[c * c_stride + index(l)]; },
              [&](const unsigned int l) { return in1[c * c_stride + index(l)]; },
              v0,
              v1,
              second);
            out0[c * c_stride + m] = v0;
            out1[c * c_stride + m] = v1;
          }
      }
    } // namespace tensor
  }   // namespace internal
} // namespace gpumf

#endif
