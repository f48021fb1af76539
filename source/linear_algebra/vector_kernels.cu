// CUDA kernels behind gpumf::Vector. Grid-stride loops; reductions in two stages
// (per-block partial results, summed on the host in a fixed order: reproducible).
#include <gpumf/internal/cuda_check.h>

#include <algorithm>
#include <vector>

#include "linear_algebra/vector_kernels.h"
#include "core/run_profile.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int block_size = 256;
        constexpr unsigned int max_blocks = 1024;

        unsigned int
        n_blocks(const std::size_t n)
        {
          return static_cast<unsigned int>(
            std::max<std::size_t>(1, std::min<std::size_t>(max_blocks, (n + block_size - 1) / block_size)));
        }

        void
        check_launch()
        {
          GPUMF_CHECK_CUDA(cudaGetLastError());
        }

        template <typename Number>
        __global__ void
        fill_kernel(Number *x, std::size_t n, Number s)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[i] = s;
        }

        template <typename Number>
        __global__ void
        update_kernel(Number       *x,
                      std::size_t   n,
                      Number        s,
                      bool          read_x,
                      Number        a,
                      const Number *y,
                      Number        b,
                      const Number *z,
                      Number        c)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            {
              Number r = read_x ? s * x[i] : Number(0);
              if (y != nullptr)
                r += a * y[i];
              if (z != nullptr)
                r += b * z[i];
              x[i] = r + c;
            }
        }

        template <typename Number>
        __global__ void
        scale_kernel(Number *x, std::size_t n, const Number *y)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[i] *= y[i];
        }

        template <typename Number>
        __global__ void
        reciprocal_kernel(Number *x, std::size_t n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[i] = Number(1) / x[i];
        }

        template <typename Number>
        __device__ Number
        combine(const Reduction op, const Number a, const Number b)
        {
          return op == Reduction::abs_max ? (a > b ? a : b) : a + b;
        }

        // Reduces within a block; thread 0 writes the block's result to partial[blockIdx.x].
        template <typename Number>
        __device__ void
        block_reduce(Reduction op, Number value, Number *partial)
        {
          __shared__ Number buffer[block_size];
          buffer[threadIdx.x] = value;
          __syncthreads();
          for (unsigned int s = block_size / 2; s > 0; s /= 2)
            {
              if (threadIdx.x < s)
                buffer[threadIdx.x] = combine(op, buffer[threadIdx.x], buffer[threadIdx.x + s]);
              __syncthreads();
            }
          if (threadIdx.x == 0)
            partial[blockIdx.x] = buffer[0];
        }

        template <typename Number>
        __global__ void
        reduce_kernel(Reduction op, const Number *x, const Number *y, std::size_t n, Number *partial)
        {
          Number r = 0;
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            {
              const Number v = op == Reduction::dot ? x[i] * y[i] :
                               op == Reduction::sum ? x[i] :
                                                      (x[i] < 0 ? -x[i] : x[i]);
              r              = combine(op, r, v);
            }
          block_reduce(op, r, partial);
        }

        template <typename Number>
        __global__ void
        sum_and_indexed_squares_kernel(const Number       *x,
                                       std::size_t         n,
                                       const Number       *y,
                                       const unsigned int *indices,
                                       std::size_t         m,
                                       Number             *partial)
        {
          Number r = 0;
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n + m; i += gridDim.x * blockDim.x)
            r += i < n ? x[i] : y[indices[i - n]] * y[indices[i - n]];
          block_reduce(Reduction::sum, r, partial);
        }

        template <typename Number>
        __global__ void
        add_and_dot_kernel(Number *x, std::size_t n, Number a, const Number *v, const Number *w, Number *partial)
        {
          Number r = 0;
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            {
              const Number xi = x[i] + a * v[i];
              x[i]            = xi;
              r += xi * w[i];
            }
          block_reduce(Reduction::sum, r, partial);
        }

        template <typename Number>
        __global__ void
        cg_update_kernel(Number       *x,
                         Number       *r,
                         const Number *p,
                         const Number *Ap,
                         const Number *D,
                         Number        alpha,
                         std::size_t   n,
                         Number       *partial)
        {
          Number rr = 0, rDr = 0;
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            {
              x[i]            = x[i] + alpha * p[i];
              const Number ri = r[i] + alpha * Ap[i];
              r[i]            = ri;
              rr += ri * ri;
              rDr += ri * (D != nullptr ? D[i] * ri : ri);
            }
          block_reduce(Reduction::sum, rr, partial);
          __syncthreads();
          block_reduce(Reduction::sum, rDr, partial + gridDim.x);
        }

        template <typename Number>
        __global__ void
        cg_direction_kernel(Number *p, const Number *r, const Number *D, Number beta, bool read_p, std::size_t n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            p[i] = -(D != nullptr ? D[i] * r[i] : r[i]) + (read_p ? beta * p[i] : Number(0));
        }

        template <typename Number>
        Number
        finish_reduction(Reduction op, const Number *partial_device, unsigned int n_partial)
        {
          std::vector<Number> partial(n_partial);
          RunTimer            timer(RunPart::reduction_copy);
          GPUMF_CHECK_CUDA(
            cudaMemcpy(partial.data(), partial_device, n_partial * sizeof(Number), cudaMemcpyDeviceToHost));
          Number r = 0;
          for (const Number p : partial)
            r = op == Reduction::abs_max ? std::max(r, p) : r + p;
          return r;
        }

        // A per-process scratch buffer for the partial results of reductions.
        template <typename Number>
        Number *
        partial_buffer()
        {
          static Number *buffer = nullptr;
          if (buffer == nullptr)
            GPUMF_CHECK_CUDA(cudaMalloc(&buffer, 2 * max_blocks * sizeof(Number)));
          return buffer;
        }

        template <typename Number>
        __global__ void
        gather_kernel(Number *buffer, const Number *x, const unsigned int *indices, std::size_t n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            buffer[i] = x[indices[i]];
        }

        template <typename Number>
        __global__ void
        copy_to_positions_kernel(Number             *x,
                                 const unsigned int *positions,
                                 const Number       *src,
                                 const unsigned int *indices,
                                 std::size_t         n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[positions[i]] = src[indices == nullptr ? i : indices[positions[i]]];
        }

        template <typename Number>
        __global__ void
        scatter_add_kernel(Number *x, const unsigned int *indices, const Number *buffer, std::size_t n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            x[indices[i]] += buffer[i];
        }

        /// The neighbour whose range of the concatenated list holds @p i.
        template <typename Number>
        __device__ unsigned int
        peer_of(const PeerEntries<Number> &peers, const unsigned int i)
        {
          unsigned int s = 0;
          while (s + 1 < peers.n_peers && i >= peers.starts[s + 1])
            ++s;
          return s;
        }

        template <typename Number>
        __global__ void
        gather_from_peers_kernel(Number *buffer, const PeerEntries<Number> peers, const unsigned int *indices)
        {
          const unsigned int n = peers.starts[peers.n_peers];
          for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            buffer[i] = peers.values[peer_of(peers, i)][indices[i]];
        }

        template <typename Number>
        __global__ void
        scatter_add_from_peers_kernel(Number                   *x,
                                      const PeerEntries<Number> peers,
                                      const unsigned int       *rows,
                                      const unsigned int       *row_starts,
                                      const unsigned int       *positions,
                                      const std::size_t         n_rows)
        {
          for (std::size_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n_rows; k += gridDim.x * blockDim.x)
            {
              Number sum = x[rows[k]];
              for (unsigned int p = row_starts[k]; p < row_starts[k + 1]; ++p)
                {
                  const unsigned int i = positions[p], s = peer_of(peers, i);
                  sum += peers.values[s][i - peers.starts[s]];
                }
              x[rows[k]] = sum;
            }
        }

        template <typename Number>
        __global__ void
        set_indexed_kernel(Number             *dst,
                           const unsigned int *indices,
                           const Number       *src,
                           Number              value,
                           bool                add,
                           std::size_t         n)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            dst[indices[i]] = (add ? dst[indices[i]] : Number(0)) + (src == nullptr ? value : src[indices[i]]);
        }
      } // namespace

      template <typename Number>
      void
      fill(Number *x, std::size_t n, Number s)
      {
        if (n == 0)
          return;
        fill_kernel<<<n_blocks(n), block_size>>>(x, n, s);
        check_launch();
      }

      template <typename Number>
      void
      update(Number       *x,
             std::size_t   n,
             Number        s,
             bool          read_x,
             Number        a,
             const Number *y,
             Number        b,
             const Number *z,
             Number        c)
      {
        if (n == 0)
          return;
        update_kernel<<<n_blocks(n), block_size>>>(x, n, s, read_x, a, y, b, z, c);
        check_launch();
      }

      template <typename Number>
      void
      scale(Number *x, std::size_t n, const Number *y)
      {
        if (n == 0)
          return;
        scale_kernel<<<n_blocks(n), block_size>>>(x, n, y);
        check_launch();
      }

      template <typename Number>
      void
      reciprocal(Number *x, std::size_t n)
      {
        if (n == 0)
          return;
        reciprocal_kernel<<<n_blocks(n), block_size>>>(x, n);
        check_launch();
      }

      template <typename Number>
      Number
      reduce(Reduction op, const Number *x, const Number *y, std::size_t n)
      {
        if (n == 0)
          return 0;
        const unsigned int blocks = n_blocks(n);
        reduce_kernel<<<blocks, block_size>>>(op, x, y, n, partial_buffer<Number>());
        check_launch();
        return finish_reduction(op, partial_buffer<Number>(), blocks);
      }

      template <typename Number>
      Number
      sum_and_indexed_squares(const Number       *x,
                              std::size_t         n,
                              const Number       *y,
                              const unsigned int *indices,
                              std::size_t         m)
      {
        if (n + m == 0)
          return 0;
        const unsigned int blocks = n_blocks(n + m);
        sum_and_indexed_squares_kernel<<<blocks, block_size>>>(x, n, y, indices, m, partial_buffer<Number>());
        check_launch();
        return finish_reduction(Reduction::sum, partial_buffer<Number>(), blocks);
      }

      template <typename Number>
      Number
      add_and_dot(Number *x, std::size_t n, Number a, const Number *v, const Number *w)
      {
        if (n == 0)
          return 0;
        const unsigned int blocks = n_blocks(n);
        add_and_dot_kernel<<<blocks, block_size>>>(x, n, a, v, w, partial_buffer<Number>());
        check_launch();
        return finish_reduction(Reduction::sum, partial_buffer<Number>(), blocks);
      }

      template <typename Number>
      void
      cg_update(Number       *x,
                Number       *r,
                const Number *p,
                const Number *Ap,
                const Number *D,
                Number        alpha,
                std::size_t   n,
                Number (&sums)[2])
      {
        sums[0] = sums[1] = 0;
        if (n == 0)
          return;
        const unsigned int blocks = n_blocks(n);
        cg_update_kernel<<<blocks, block_size>>>(x, r, p, Ap, D, alpha, n, partial_buffer<Number>());
        check_launch();
        std::vector<Number> partial(2 * blocks);
        RunTimer            timer(RunPart::reduction_copy);
        GPUMF_CHECK_CUDA(
          cudaMemcpy(partial.data(), partial_buffer<Number>(), 2 * blocks * sizeof(Number), cudaMemcpyDeviceToHost));
        for (unsigned int b = 0; b < blocks; ++b)
          {
            sums[0] += partial[b];
            sums[1] += partial[blocks + b];
          }
      }

      template <typename Number>
      void
      cg_direction(Number *p, const Number *r, const Number *D, Number beta, bool read_p, std::size_t n)
      {
        if (n == 0)
          return;
        cg_direction_kernel<<<n_blocks(n), block_size>>>(p, r, D, beta, read_p, n);
        check_launch();
      }

      template <typename Number>
      void
      gather(Number *buffer, const Number *x, const unsigned int *indices, std::size_t n)
      {
        if (n == 0)
          return;
        gather_kernel<<<n_blocks(n), block_size>>>(buffer, x, indices, n);
        check_launch();
      }

      template <typename Number>
      void
      copy_to_positions(Number             *x,
                        const unsigned int *positions,
                        const Number       *src,
                        const unsigned int *indices,
                        std::size_t         n)
      {
        if (n == 0)
          return;
        copy_to_positions_kernel<<<n_blocks(n), block_size>>>(x, positions, src, indices, n);
        check_launch();
      }

      template <typename Number>
      void
      scatter_add(Number *x, const unsigned int *indices, const Number *buffer, std::size_t n)
      {
        if (n == 0)
          return;
        scatter_add_kernel<<<n_blocks(n), block_size>>>(x, indices, buffer, n);
        check_launch();
      }

      template <typename Number>
      void
      gather_from_peers(Number *buffer, const PeerEntries<Number> &peers, const unsigned int *indices)
      {
        const std::size_t n = peers.starts[peers.n_peers];
        if (n == 0)
          return;
        gather_from_peers_kernel<<<n_blocks(n), block_size>>>(buffer, peers, indices);
        check_launch();
      }

      template <typename Number>
      void
      scatter_add_from_peers(Number *x,
                             const unsigned int *,
                             const PeerEntries<Number> &peers,
                             const unsigned int        *rows,
                             const unsigned int        *row_starts,
                             const unsigned int        *positions,
                             std::size_t                n_rows)
      {
        if (n_rows == 0)
          return;
        scatter_add_from_peers_kernel<<<n_blocks(n_rows), block_size>>>(x, peers, rows, row_starts, positions, n_rows);
        check_launch();
      }

      template <typename Number>
      void
      set_indexed(Number *dst, const unsigned int *indices, const Number *src, Number value, bool add, std::size_t n)
      {
        if (n == 0)
          return;
        set_indexed_kernel<<<n_blocks(n), block_size>>>(dst, indices, src, value, add, n);
        check_launch();
      }

      GPUMF_VECTOR_KERNELS(float, template)
      GPUMF_VECTOR_KERNELS(double, template)
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
