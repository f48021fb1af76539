// CUDA kernels of gpumf::MGTransferMatrixFree: a thread block per parent cell; the coarse
// values pass through shared memory one direction at a time (sum factorization with the 1D
// embedding matrix, (2p+1) x (p+1)), the fine patch is added with its weights. The parents of
// one launch are of one color: no two write the same entry, so plain additions suffice.
#include <gpumf/internal/cuda_check.h>
#include <gpumf/internal/dof_access.h>

#include <algorithm>

#include "multigrid/mg_transfer_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int threads = 128;

        /// One 1D pass in shared memory: out[a, r, b] = sum_s M(r, s) in[a, s, b], with
        /// M(r, s) = P[r * n + s] (transpose: P[s * n + r]), `a` of extent n_before (faster),
        /// r of extent n_out, s of extent n_in, b of extent n_after.
        template <typename Number>
        __device__ void
        pass(const Number      *P,
             const unsigned int n,
             const bool         transpose,
             const Number      *in,
             Number            *out,
             const unsigned int n_before,
             const unsigned int n_in,
             const unsigned int n_out,
             const unsigned int n_after)
        {
          const unsigned int total = n_before * n_out * n_after;
          for (unsigned int t = threadIdx.x; t < total; t += blockDim.x)
            {
              const unsigned int a = t % n_before, r = (t / n_before) % n_out, b = t / (n_before * n_out);
              Number             sum = 0;
              for (unsigned int s = 0; s < n_in; ++s)
                sum += (transpose ? P[s * n + r] : P[r * n + s]) * in[a + n_before * (s + n_in * b)];
              out[t] = sum;
            }
          __syncthreads();
        }

        /// restriction false: fine += weights .* (P x P x P) coarse; true: coarse += the transpose
        template <int dim, typename Number, bool restriction>
        __global__ void
        transfer_kernel(const TransferLevel<dim, Number> level, Number *out, const Number *in)
        {
          extern __shared__ unsigned char shared_bytes[];
          Number                         *P = reinterpret_cast<Number *>(shared_bytes);
          const unsigned int              n = level.n, N = level.N;
          const unsigned int n_coarse = dim == 2 ? n * n : n * n * n, n_fine = dim == 2 ? N * N : N * N * N;
          Number            *a = P + N * n, *b = a + n_fine;
          for (unsigned int t = threadIdx.x; t < N * n; t += blockDim.x)
            P[t] = level.prolongation[t];
          const unsigned int parent = level.first + blockIdx.x;
          for (unsigned int k = 0; k < level.n_components; ++k)
            {
              const Number *w      = weights_of(level, parent, k);
              const auto    weight = [&](const unsigned int t) {
                return w[weight_class(t % N, N) + 3 * weight_class((t / N) % N, N) +
                         (dim == 3 ? 9 * weight_class(t / (N * N), N) : 0)];
              };
              const unsigned int *ci = level.coarse_indices + (std::size_t(parent) * level.n_components + k) * n_coarse;
              const unsigned int *fi = level.fine_indices + (std::size_t(parent) * level.n_components + k) * n_fine;
              if (restriction)
                {
                  for (unsigned int t = threadIdx.x; t < n_fine; t += blockDim.x)
                    a[t] = weight(t) * in[fi[t]];
                  __syncthreads();
                  if (dim == 2)
                    {
                      pass(P, n, true, a, b, N, N, n, 1); // y
                      pass(P, n, true, b, a, 1, N, n, n); // x
                    }
                  else
                    {
                      pass(P, n, true, a, b, N * N, N, n, 1); // z
                      pass(P, n, true, b, a, N, N, n, n);     // y
                      pass(P, n, true, a, b, 1, N, n, n * n); // x
                    }
                  const Number *result = dim == 2 ? a : b;
                  for (unsigned int t = threadIdx.x; t < n_coarse; t += blockDim.x)
                    if (ci[t] != no_dof)
                      out[ci[t]] += result[t];
                }
              else
                {
                  for (unsigned int t = threadIdx.x; t < n_coarse; t += blockDim.x)
                    a[t] = ci[t] == no_dof ? Number(0) : in[ci[t]];
                  __syncthreads();
                  if (dim == 2)
                    {
                      pass(P, n, false, a, b, 1, n, N, n); // x
                      pass(P, n, false, b, a, N, n, N, 1); // y
                    }
                  else
                    {
                      pass(P, n, false, a, b, 1, n, N, n * n); // x
                      pass(P, n, false, b, a, N, n, N, n);     // y
                      pass(P, n, false, a, b, N * N, n, N, 1); // z
                    }
                  const Number *result = dim == 2 ? a : b;
                  for (unsigned int t = threadIdx.x; t < n_fine; t += blockDim.x)
                    out[fi[t]] += weight(t) * result[t];
                }
              __syncthreads();
            }
        }

        template <typename Number>
        std::size_t
        shared_bytes(const unsigned int n, const unsigned int N, const int dim)
        {
          return (N * n + 2 * (dim == 2 ? N * N : N * N * N)) * sizeof(Number);
        }

        template <typename Kernel>
        void
        allow_shared(Kernel kernel, const std::size_t bytes)
        {
          if (bytes > 48 * 1024)
            GPUMF_CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        }

        template <typename Dst, typename Src>
        __global__ void
        copy_indexed_kernel(Dst                *dst,
                            const unsigned int *dst_indices,
                            const Src          *src,
                            const unsigned int *src_indices,
                            const double       *weights,
                            std::size_t         n,
                            bool                add)
        {
          for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            {
              const Dst value =
                weights == nullptr ? Dst(src[src_indices[i]]) : Dst(weights[i] * double(src[src_indices[i]]));
              if (add)
                dst[dst_indices[i]] += value;
              else
                dst[dst_indices[i]] = value;
            }
        }
      } // namespace

      namespace
      {
        /// A thread per coarse DoF of the parents of one color: its value as the sum over the
        /// patch, skipping the zeros of the 1D interpolation (each coarse point lies in one child).
        template <int dim, typename Number>
        __global__ void
        interpolate_kernel(const TransferLevel<dim, Number> level,
                           const unsigned int               n_owned,
                           Number                          *coarse,
                           const Number                    *fine)
        {
          const unsigned int n = level.n, N = level.N;
          const unsigned int n_coarse = dim == 2 ? n * n : n * n * n, n_fine = dim == 2 ? N * N : N * N * N;
          const std::size_t  total = std::size_t(level.n_parents) * level.n_components * n_coarse;
          for (std::size_t t = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; t < total;
               t += std::size_t(gridDim.x) * blockDim.x)
            {
              const unsigned int  i     = t % n_coarse;
              const std::size_t   block = std::size_t(level.first) * level.n_components + t / n_coarse;
              const unsigned int  index = level.coarse_indices[block * n_coarse + i];
              const unsigned int *fi    = level.fine_indices + block * n_fine;
              if (index >= n_owned)
                continue;
              const unsigned int ix = i % n, iy = (i / n) % n, iz = dim == 3 ? i / (n * n) : 0;
              Number             value = 0;
              for (unsigned int jz = 0; jz < (dim == 3 ? N : 1); ++jz)
                {
                  const Number wz = dim == 3 ? level.prolongation[jz * n + iz] : Number(1);
                  if (wz == Number(0))
                    continue;
                  for (unsigned int jy = 0; jy < N; ++jy)
                    {
                      const Number wy = level.prolongation[jy * n + iy];
                      if (wy == Number(0))
                        continue;
                      for (unsigned int jx = 0; jx < N; ++jx)
                        {
                          const Number wx = level.prolongation[jx * n + ix];
                          if (wx != Number(0))
                            value += wz * wy * wx * fine[fi[(jz * N + jy) * N + jx]];
                        }
                    }
                }
              coarse[index] = value;
            }
        }

        template <int dim, typename Number, bool restriction>
        void
        launch(const TransferLevel<dim, Number> &level, Number *out, const Number *in)
        {
          if (level.n_parents == 0)
            return;
          const std::size_t bytes = shared_bytes<Number>(level.n, level.N, dim);
          allow_shared(transfer_kernel<dim, Number, restriction>, bytes);
          transfer_kernel<dim, Number, restriction><<<level.n_parents, threads, bytes>>>(level, out, in);
          GPUMF_CHECK_CUDA(cudaGetLastError());
        }
      } // namespace

      template <int dim, typename Number>
      void
      prolongate_add(const TransferLevel<dim, Number> &level, Number *fine, const Number *coarse)
      {
        launch<dim, Number, false>(level, fine, coarse);
      }

      template <int dim, typename Number>
      void
      restrict_add(const TransferLevel<dim, Number> &level, Number *coarse, const Number *fine)
      {
        launch<dim, Number, true>(level, coarse, fine);
      }

      template <int dim, typename Number>
      void
      interpolate(const TransferLevel<dim, Number> &level,
                  const unsigned int                n_owned,
                  Number                           *coarse,
                  const Number                     *fine)
      {
        if (level.n_parents == 0)
          return;
        const unsigned int n      = level.n;
        const std::size_t  total  = std::size_t(level.n_parents) * level.n_components * (dim == 2 ? n * n : n * n * n);
        const unsigned int blocks = static_cast<unsigned int>(std::min<std::size_t>(65535, (total + 255) / 256));
        interpolate_kernel<dim, Number><<<blocks, 256>>>(level, n_owned, coarse, fine);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <typename Dst, typename Src>
      void
      copy_indexed(Dst                *dst,
                   const unsigned int *dst_indices,
                   const Src          *src,
                   const unsigned int *src_indices,
                   const double       *weights,
                   std::size_t         n,
                   bool                add)
      {
        if (n == 0)
          return;
        const unsigned int blocks = static_cast<unsigned int>(std::min<std::size_t>(1024, (n + 255) / 256));
        copy_indexed_kernel<<<blocks, 256>>>(dst, dst_indices, src, src_indices, weights, n, add);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      GPUMF_MG_TRANSFER_INSTANTIATIONS
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
