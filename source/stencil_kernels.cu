// CUDA kernel of gpumf::StencilOperator: a block of 32 x 8 threads owns a 32 x 8 tile of the
// grid (3D: a column of tiles, marching in z). The planes of the tile plus a one-point halo are
// staged in shared memory (three planes in a ring in 3D), each loaded once with consecutive
// threads on consecutive x (coalesced); each thread sums the stencil of its point from shared
// memory. Stencils: constant and semi-constant tables read through the read-only cache (a warp
// shares its entries), variable ones slot-major (consecutive points, consecutive addresses).
#include <gpumf/internal/cuda_check.h>

#include "stencil_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int tile_x = 32, tile_y = 8, planes_per_block = 32;
        constexpr unsigned int halo_x = tile_x + 2, halo_y = tile_y + 2;

        /// Whether the point of box coordinates @p b lies on a constrained face.
        template <int dim, typename Number>
        __device__ inline bool
        on_dirichlet_face(const StencilGrid<Number> &g, const long b[3])
        {
          for (unsigned int d = 0; d < dim; ++d)
            {
              const long global = b[d] + g.first[d];
              if (((g.dirichlet_faces >> (2 * d)) & 1u) && global == 0)
                return true;
              if (((g.dirichlet_faces >> (2 * d + 1)) & 1u) && global + 1 == long(g.global_size[d]))
                return true;
            }
          return false;
        }

        /// src at box coordinates @p b (owned, halo ghost, or zero outside the mesh), zero on
        /// constrained points for the tabulated storages.
        template <int dim, typename Number>
        __device__ inline Number
        load(const StencilGrid<Number> &g, const Number *__restrict__ src, const long b[3])
        {
          bool in_box = true, in_mesh = true;
          for (unsigned int d = 0; d < dim; ++d)
            {
              in_box        = in_box && b[d] >= 0 && b[d] < long(g.size[d]);
              const long gl = b[d] + g.first[d];
              in_mesh       = in_mesh && gl >= 0 && gl < long(g.global_size[d]);
            }
          if (!in_mesh)
            return Number(0);
          if (g.storage != 3 && on_dirichlet_face<dim>(g, b))
            return Number(0);
          if (in_box)
            {
              std::size_t i = 0;
              for (int d = dim - 1; d >= 0; --d)
                i = i * g.size[d] + b[d];
              return __ldg(src + i);
            }
          if (g.halo == nullptr)
            return Number(0);
          std::size_t e = 0;
          for (int d = dim - 1; d >= 0; --d)
            e = e * (g.size[d] + 2) + (b[d] + 1);
          const unsigned int j = __ldg(g.halo + e);
          return j != ~0u ? __ldg(src + j) : Number(0);
        }

        /// The stencil entries of the point at box coordinates @p p (tabulated storages).
        template <int dim, typename Number>
        __device__ inline const Number *
        table(const StencilGrid<Number> &g, const long p[3])
        {
          constexpr unsigned int n_entries = dim == 2 ? 9 : 27;
          unsigned int           c         = 0;
          for (int d = dim - 1; d >= 0; --d)
            if (g.storage == 1 || unsigned(d) != g.direction)
              {
                const long gl = p[d] + g.first[d];
                c             = 3 * c + (gl == 0 ? 0 : (gl + 1 == long(g.global_size[d]) ? 2 : 1));
              }
          const std::size_t key =
            g.storage == 1 ? c : std::size_t(p[g.direction] + g.first[g.direction]) * (n_entries / 3) + c;
          return g.stencils + key * n_entries;
        }

        template <int dim, typename Number>
        __global__ void __launch_bounds__(tile_x *tile_y)
        stencil_kernel(const StencilGrid<Number> g, const Number *__restrict__ src, Number *__restrict__ dst)
        {
          constexpr unsigned int n_planes  = dim == 3 ? 3 : 1;
          constexpr unsigned int n_entries = dim == 2 ? 9 : 27;
          __shared__ Number      planes[n_planes][halo_y][halo_x];
          const unsigned int     tx = threadIdx.x, ty = threadIdx.y, t = ty * tile_x + tx;
          const long             x0 = long(blockIdx.x) * tile_x, y0 = long(blockIdx.y) * tile_y;
          const long             z0 = dim == 3 ? long(blockIdx.z) * planes_per_block : 0;
          const long             z_end =
            dim == 3 ? (z0 + planes_per_block < long(g.size[2]) ? z0 + planes_per_block : long(g.size[2])) : 1;
          const auto stage = [&](const long z, Number(&plane)[halo_y][halo_x]) {
            for (unsigned int e = t; e < halo_x * halo_y; e += tile_x * tile_y)
              {
                const long b[3] = {x0 + long(e % halo_x) - 1, y0 + long(e / halo_x) - 1, z};
                plane[e / halo_x][e % halo_x] = load<dim>(g, src, b);
              }
          };
          if constexpr (dim == 3)
            {
              stage(z0 - 1, planes[(z0 + 2) % 3]); // plane z lives in slot (z + 3) % 3
              stage(z0, planes[z0 % 3]);
            }
          const long        p[3]   = {x0 + tx, y0 + ty, 0};
          const bool        inside = p[0] < long(g.size[0]) && p[1] < long(g.size[1]);
          for (long z = z0; z < z_end; ++z)
            {
              if constexpr (dim == 3)
                stage(z + 1, planes[(z + 1) % 3]);
              else
                stage(0, planes[0]);
              __syncthreads();
              const long point[3] = {p[0], p[1], z};
              if (inside)
                {
                  std::size_t i = 0;
                  for (int d = dim - 1; d >= 0; --d)
                    i = i * g.size[d] + point[d];
                  Number sum = 0;
                  if (g.storage != 3 && on_dirichlet_face<dim>(g, point))
                    sum = __ldg(src + i);
                  else
                    {
                      const Number *s = g.storage == 3 ? g.stencils + i : table<dim>(g, point);
                      const std::size_t stride = g.storage == 3 ? g.n_owned : 1;
#pragma unroll
                      for (unsigned int k = 0; k < n_entries; ++k)
                        {
                          const unsigned int dx = k % 3, dy = (k / 3) % 3, dz = k / 9;
                          const Number       v  = planes[dim == 3 ? (z + 2 + dz) % 3 : 0][ty + dy][tx + dx];
                          sum += __ldg(s + k * stride) * v;
                        }
                    }
                  dst[i] = sum;
                }
              __syncthreads();
            }
        }
      } // namespace

      template <int dim, typename Number>
      void
      stencil_apply(const StencilGrid<Number> &grid, const Number *src, Number *dst)
      {
        if (grid.n_owned == 0)
          return;
        const dim3 blocks((grid.size[0] + tile_x - 1) / tile_x, (grid.size[1] + tile_y - 1) / tile_y,
                          dim == 3 ? (grid.size[2] + planes_per_block - 1) / planes_per_block : 1);
        stencil_kernel<dim, Number><<<blocks, dim3(tile_x, tile_y)>>>(grid, src, dst);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template void stencil_apply<2, float>(const StencilGrid<float> &, const float *, float *);
      template void stencil_apply<2, double>(const StencilGrid<double> &, const double *, double *);
      template void stencil_apply<3, float>(const StencilGrid<float> &, const float *, float *);
      template void stencil_apply<3, double>(const StencilGrid<double> &, const double *, double *);
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
