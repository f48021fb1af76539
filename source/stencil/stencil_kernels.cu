// CUDA kernels of gpumf::StencilOperator: a block of 32 x 8 threads owns a 32 x 8 tile of the
// grid (3D: a column of tiles, marching in z through up to 32 planes). Each plane of the tile plus
// a one-point halo is staged once in shared memory with consecutive threads on consecutive x
// (coalesced); in 2D each thread sums its point's stencil from shared memory, in 3D each thread
// adds every plane's 3 x 3 values to the three points of its column they belong to (registers). Stencils: constant and
// semi-constant tables read through the read-only cache (a warp shares its entries), variable ones slot-major
// (consecutive points, consecutive addresses). The Gauss-Seidel sweep of one color stages the same planes (64 x 16
// points plus halo, a thread per point of the color) in a ring of three shared-memory planes.
#include <gpumf/internal/cuda_check.h>

#include "stencil/stencil_kernels.h"

namespace gpumf
{
  namespace internal
  {
    namespace cuda
    {
      namespace
      {
        constexpr unsigned int tile_x = 32, tile_y = 8;

        /// Planes a block marches through in z: 32 (each plane loaded once per 32 with its halo
        /// planes), halved (to 2 at least: even, for the colors) while the grid would have fewer
        /// than 16 blocks per multiprocessor, so that small boxes still fill the GPU.
        inline unsigned int
        planes_per_block(const unsigned int blocks_per_plane, const unsigned int n_z)
        {
          static const int n_sm = [] {
            int device = 0, count = 0;
            GPUMF_CHECK_CUDA(cudaGetDevice(&device));
            GPUMF_CHECK_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
            return count;
          }();
          unsigned int planes = 32;
          while (planes > 2 && std::size_t(blocks_per_plane) * ((n_z + planes - 1) / planes) < 16u * n_sm)
            planes /= 2;
          return planes;
        }
        constexpr unsigned int halo_x = tile_x + 2, halo_y = tile_y + 2;

        /// Whether the point of box coordinates @p b lies on a constrained face.
        template <int dim, typename Number>
        __device__ inline bool
        on_dirichlet_face(const StencilGrid<dim, Number> &g, const long b[3])
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
        load(const StencilGrid<dim, Number> &g, const Number *__restrict__ src, const long b[3])
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
          // beyond the one-point halo: staged for a partial tile, read by no point of the box
          bool in_halo = g.halo != nullptr;
          for (unsigned int d = 0; d < dim; ++d)
            in_halo = in_halo && b[d] >= -1 && b[d] <= long(g.size[d]);
          if (!in_halo)
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
        table(const StencilGrid<dim, Number> &g, const long p[3])
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

        /// What the tile of points [lo, hi] (box coordinates) of a block allows: @p rows_inside, no
        /// point on the mesh's boundary (the inside stencil of constant storage, no constrained row);
        /// @p direct, the tile and its halo inside the owned box and, for tabulated storage, away
        /// from the mesh's boundary (loads without tests).
        template <int dim, typename Number>
        __device__ inline void
        classify_tile(const StencilGrid<dim, Number> &g,
                      const long                      lo[],
                      const long                      hi[],
                      bool                           &rows_inside,
                      bool                           &direct)
        {
          bool halo_in_box = true, halo_off_boundary = true;
          rows_inside = true;
          for (unsigned int d = 0; d < dim; ++d)
            {
              const long n = g.global_size[d], f = g.first[d];
              halo_in_box       = halo_in_box && lo[d] - 1 >= 0 && hi[d] + 1 < long(g.size[d]);
              rows_inside       = rows_inside && lo[d] + f >= 1 && hi[d] + f <= n - 2;
              halo_off_boundary = halo_off_boundary && lo[d] - 1 + f >= 1 && hi[d] + 1 + f <= n - 2;
            }
          direct = halo_in_box && (halo_off_boundary || g.storage == 3);
        }

        /// 2D: each thread sums the 9-point stencil of its point from the staged tile.
        template <typename Number>
        __global__ void
        __launch_bounds__(tile_x *tile_y)
          stencil_kernel_2d(const StencilGrid<2, Number> g, const Number *__restrict__ src, Number *__restrict__ dst)
        {
          __shared__ Number  tile[halo_y][halo_x];
          const unsigned int tx = threadIdx.x, ty = threadIdx.y, t = ty * tile_x + tx;
          const long         size[2] = {long(g.size[0]), long(g.size[1])};
          const long         x0 = long(blockIdx.x) * tile_x, y0 = long(blockIdx.y) * tile_y;
          const long         lo[2]       = {x0, y0};
          const long         hi[2]       = {(x0 + tile_x < size[0] ? x0 + tile_x : size[0]) - 1,
                                            (y0 + tile_y < size[1] ? y0 + tile_y : size[1]) - 1};
          bool               rows_inside = false, direct = false;
          classify_tile<2>(g, lo, hi, rows_inside, direct);
          for (unsigned int e = t; e < halo_x * halo_y; e += tile_x * tile_y)
            {
              const long b[3] = {x0 + long(e % halo_x) - 1, y0 + long(e / halo_x) - 1, 0};
              tile[e / halo_x][e % halo_x] =
                direct ? __ldg(src + std::size_t(b[1]) * size[0] + b[0]) : load<2>(g, src, b);
            }
          __syncthreads();
          const long p[3] = {x0 + tx, y0 + ty, 0};
          if (p[0] >= size[0] || p[1] >= size[1])
            return;
          const std::size_t i = std::size_t(p[1]) * size[0] + p[0];
          if (!rows_inside && g.storage != 3 && on_dirichlet_face<2>(g, p))
            {
              dst[i] = __ldg(src + i);
              return;
            }
          const Number     *s      = g.storage == 3                ? g.stencils + i :
                                     rows_inside && g.storage == 1 ? g.stencils + 4 * 9 :
                                                                     table<2>(g, p);
          const std::size_t stride = g.storage == 3 ? g.n_owned : 1;
          Number            sum    = 0;
#pragma unroll
          for (unsigned int k = 0; k < 9; ++k)
            sum += __ldg(s + k * stride) * tile[ty + k / 3][tx + k % 3];
          dst[i] = sum;
        }

        /// 3D: the column of a thread marches in z; each plane of the tile plus halo is staged once in
        /// shared memory, and every thread reads the 3 x 3 values around its column once per plane
        /// and adds them to the three points they belong to (z - 1, z, z + 1), kept in registers:
        /// 9 shared-memory reads per point instead of 27. Blocks whose tile lies inside the mesh
        /// (no boundary rows) with a constant stencil keep its 27 entries in registers; blocks whose
        /// tile and halo lie inside the owned box and away from constrained faces load without tests.
        template <typename Number>
        __global__ void
        __launch_bounds__(tile_x *tile_y, 3) stencil_kernel_3d(const StencilGrid<3, Number> g,
                                                               const unsigned int           planes,
                                                               const Number *__restrict__ src,
                                                               Number *__restrict__ dst)
        {
          __shared__ Number  plane[halo_y][halo_x];
          const unsigned int tx = threadIdx.x, ty = threadIdx.y, t = ty * tile_x + tx;
          const long         size[3] = {long(g.size[0]), long(g.size[1]), long(g.size[2])};
          const long         x0 = long(blockIdx.x) * tile_x, y0 = long(blockIdx.y) * tile_y;
          const long         z0    = long(blockIdx.z) * planes;
          const long         z_end = z0 + planes < size[2] ? z0 + planes : size[2];
          // the tile's points [lo, hi] per direction, in box coordinates
          const long lo[3]       = {x0, y0, z0};
          const long hi[3]       = {(x0 + tile_x < size[0] ? x0 + tile_x : size[0]) - 1,
                                    (y0 + tile_y < size[1] ? y0 + tile_y : size[1]) - 1,
                                    z_end - 1};
          bool       rows_inside = false, direct = false;
          classify_tile<3>(g, lo, hi, rows_inside, direct);
          const bool uniform = g.storage == 1 && rows_inside;
          Number     c[27];
          if (uniform)
            for (unsigned int k = 0; k < 27; ++k)
              c[k] = __ldg(g.stencils + 13 * 27 + k); // class 13: inside in every direction
          const long        px = x0 + tx, py = y0 + ty;
          const bool        active     = px < size[0] && py < size[1];
          const std::size_t plane_size = std::size_t(size[0]) * size[1];
          const std::size_t column     = std::size_t(py) * size[0] + px;
          Number            previous = 0, current = 0; // points z - 1 and z, partial
          // the plane values this thread stages, fetched one plane ahead (their latency hides
          // behind the sums of the current plane)
          constexpr unsigned int per_thread = (halo_x * halo_y + tile_x * tile_y - 1) / (tile_x * tile_y);
          Number                 ahead[per_thread];
          const auto             fetch = [&](const long z) {
#pragma unroll
            for (unsigned int r = 0; r < per_thread; ++r)
              {
                const unsigned int e = t + r * tile_x * tile_y;
                if (e < halo_x * halo_y)
                  {
                    const long b[3] = {x0 + long(e % halo_x) - 1, y0 + long(e / halo_x) - 1, z};
                    ahead[r] =
                      direct ? __ldg(src + (std::size_t(b[2]) * size[1] + b[1]) * size[0] + b[0]) : load<3>(g, src, b);
                  }
              }
          };
          fetch(z0 - 1);
          for (long z = z0 - 1; z <= z_end; ++z)
            {
              __syncthreads(); // the last plane is read
#pragma unroll
              for (unsigned int r = 0; r < per_thread; ++r)
                {
                  const unsigned int e = t + r * tile_x * tile_y;
                  if (e < halo_x * halo_y)
                    plane[e / halo_x][e % halo_x] = ahead[r];
                }
              __syncthreads();
              if (z < z_end)
                fetch(z + 1);
              if (!active)
                continue;
              Number v[9];
#pragma unroll
              for (unsigned int j = 0; j < 9; ++j)
                v[j] = plane[ty + j / 3][tx + j % 3];
              // plane z is offset +1 of point z - 1, 0 of point z, -1 of point z + 1
              Number to_previous = 0, to_current = 0, to_next = 0;
              if (uniform)
                {
#pragma unroll
                  for (unsigned int j = 0; j < 9; ++j)
                    {
                      to_previous += c[18 + j] * v[j];
                      to_current += c[9 + j] * v[j];
                      to_next += c[j] * v[j];
                    }
                }
              else
                {
                  // the entries of each of the three points, where it is a point of this block
                  const auto add = [&](const long point_z, const unsigned int slice, Number &sum) {
                    if (point_z < z0 || point_z >= z_end)
                      return;
                    const long        p[3]   = {px, py, point_z};
                    const std::size_t i      = std::size_t(point_z) * plane_size + column;
                    const Number     *s      = g.storage == 3 ? g.stencils + i : table<3>(g, p);
                    const std::size_t stride = g.storage == 3 ? g.n_owned : 1;
#pragma unroll
                    for (unsigned int j = 0; j < 9; ++j)
                      sum += __ldg(s + (9 * slice + j) * stride) * v[j];
                  };
                  add(z - 1, 2, to_previous);
                  add(z, 1, to_current);
                  add(z + 1, 0, to_next);
                }
              if (z - 1 >= z0)
                {
                  const std::size_t i     = std::size_t(z - 1) * plane_size + column;
                  const long        p[3]  = {px, py, z - 1};
                  const bool        fixed = !rows_inside && g.storage != 3 && on_dirichlet_face<3>(g, p);
                  dst[i]                  = fixed ? __ldg(src + i) : previous + to_previous;
                }
              previous = current + to_current;
              current  = to_next;
            }
        }

        /// The points of one color of a block of the Gauss-Seidel sweep: 64 x 16 grid points (every
        /// second point in x and y belongs to the color: a thread each), in 3D marching in z through
        /// up to 32 planes (every second plane); the planes z - 1, z, z + 1 of the block's points plus
        /// halo in a ring of three shared-memory planes staged as in the application (coalesced along x,
        /// two new planes per point plane).
        constexpr unsigned int relax_x = 2 * tile_x, relax_y = 2 * tile_y;
        constexpr unsigned int relax_halo_x = relax_x + 2, relax_halo_y = relax_y + 2;

        /// x_i += omega (b_i - sum_k s_ik x_k) / s_ii for the points of @p color. x is read and written:
        /// the values a thread reads belong to other colors (no thread of the launch writes them) or
        /// to its own point, read before it writes it.
        template <int dim, typename Number>
        __global__ void
        __launch_bounds__(tile_x *tile_y, 3) stencil_relax_kernel(const StencilGrid<dim, Number> g,
                                                                  const unsigned int             planes,
                                                                  const unsigned int             color,
                                                                  const Number                   omega,
                                                                  const Number *__restrict__ b,
                                                                  Number *x)
        {
          constexpr unsigned int n_entries = dim == 2 ? 9 : 27, n_slots = dim == 2 ? 1 : 3;
          __shared__ Number      staged[n_slots][relax_halo_y][relax_halo_x];
          const unsigned int     tx = threadIdx.x, ty = threadIdx.y, t = ty * tile_x + tx;
          const long             size[3] = {long(g.size[0]), long(g.size[1]), long(g.size[2])};
          const long             x0 = long(blockIdx.x) * relax_x, y0 = long(blockIdx.y) * relax_y;
          const long             z0    = dim == 3 ? long(blockIdx.z) * planes : 0;
          const long             z_end = dim == 3 ? (z0 + planes < size[2] ? z0 + planes : size[2]) : 1;
          // box coordinates of the color's points: o[d] + 2 k (planes is even)
          long o[3] = {0, 0, 0};
          for (unsigned int d = 0; d < dim; ++d)
            o[d] = ((color >> d) ^ g.first[d]) & 1u;
          const long lo[3]       = {x0, y0, z0};
          const long hi[3]       = {(x0 + relax_x < size[0] ? x0 + relax_x : size[0]) - 1,
                                    (y0 + relax_y < size[1] ? y0 + relax_y : size[1]) - 1,
                                    z_end - 1};
          bool       rows_inside = false, direct = false;
          classify_tile<dim>(g, lo, hi, rows_inside, direct);
          const bool uniform = g.storage == 1 && rows_inside;
          Number     c[n_entries];
          if (uniform)
            for (unsigned int k = 0; k < n_entries; ++k)
              c[k] = __ldg(g.stencils + (n_entries / 2) * n_entries + k); // inside in every direction
          const long lx = 2 * long(tx) + o[0], ly = 2 * long(ty) + o[1];  // the point's -1 neighbour in the plane
          const long px = x0 + lx, py = y0 + ly;
          const bool active = px < size[0] && py < size[1];
          const auto stage  = [&](const long z) {
            const unsigned int slot = dim == 3 ? unsigned(z + 3) % 3 : 0;
            for (unsigned int e = t; e < relax_halo_x * relax_halo_y; e += tile_x * tile_y)
              {
                const long b3[3] = {x0 + long(e % relax_halo_x) - 1, y0 + long(e / relax_halo_x) - 1, z};
                staged[slot][e / relax_halo_x][e % relax_halo_x] =
                  direct ? __ldg(x + (std::size_t(b3[2]) * size[1] + b3[1]) * size[0] + b3[0]) : load<dim>(g, x, b3);
              }
          };
          long z = z0 + o[2];
          if (dim == 3)
            stage(z - 1);
          for (; z < z_end; z += 2)
            {
              __syncthreads(); // the planes of the last point plane are read
              stage(z);
              if (dim == 3)
                stage(z + 1);
              __syncthreads();
              if (!active)
                continue;
              const long        p[3]   = {px, py, z};
              const std::size_t i      = (std::size_t(z) * size[1] + py) * size[0] + px;
              const Number      center = staged[dim == 3 ? unsigned(z + 3) % 3 : 0][ly + 1][lx + 1];
              if (!rows_inside && g.storage != 3 && on_dirichlet_face<dim>(g, p))
                {
                  // identity row; the staged value of a constrained point is zero (as a column)
                  const Number own = x[i];
                  x[i]             = own + omega * (__ldg(b + i) - own);
                  continue;
                }
              const Number     *s      = g.storage == 3 ? g.stencils + i : uniform ? nullptr : table<dim>(g, p);
              const std::size_t stride = g.storage == 3 ? g.n_owned : 1;
              Number            sum    = 0;
#pragma unroll
              for (unsigned int k = 0; k < n_entries; ++k)
                {
                  const unsigned int slot  = dim == 3 ? unsigned(z - 1 + k / 9 + 3) % 3 : 0;
                  const Number       entry = uniform ? c[k] : __ldg(s + k * stride);
                  sum += entry * staged[slot][ly + (k / 3) % 3][lx + k % 3];
                }
              const Number diagonal = uniform ? c[n_entries / 2] : __ldg(s + (n_entries / 2) * stride);
              x[i]                  = center + omega * (__ldg(b + i) - sum) / diagonal;
            }
        }
      } // namespace

      template <int dim, typename Number>
      void
      stencil_apply(const StencilGrid<dim, Number> &grid, const Number *src, Number *dst)
      {
        if (grid.n_owned == 0)
          return;
        const unsigned int bx = (grid.size[0] + tile_x - 1) / tile_x, by = (grid.size[1] + tile_y - 1) / tile_y;
        const unsigned int planes = dim == 3 ? planes_per_block(bx * by, grid.size[2]) : 1;
        const dim3         blocks(bx, by, dim == 3 ? (grid.size[2] + planes - 1) / planes : 1);
        if constexpr (dim == 3)
          stencil_kernel_3d<Number><<<blocks, dim3(tile_x, tile_y)>>>(grid, planes, src, dst);
        else
          stencil_kernel_2d<Number><<<blocks, dim3(tile_x, tile_y)>>>(grid, src, dst);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      template <int dim, typename Number>
      void
      stencil_relax_color(const StencilGrid<dim, Number> &grid,
                          const unsigned int              color,
                          const Number                    omega,
                          const Number                   *b,
                          Number                         *x)
      {
        if (grid.n_owned == 0)
          return;
        const unsigned int bx = (grid.size[0] + relax_x - 1) / relax_x, by = (grid.size[1] + relax_y - 1) / relax_y;
        const unsigned int planes = dim == 3 ? planes_per_block(bx * by, grid.size[2]) : 1;
        const dim3         blocks(bx, by, dim == 3 ? (grid.size[2] + planes - 1) / planes : 1);
        stencil_relax_kernel<dim, Number><<<blocks, dim3(tile_x, tile_y)>>>(grid, planes, color, omega, b, x);
        GPUMF_CHECK_CUDA(cudaGetLastError());
      }

      GPUMF_STENCIL_INSTANTIATIONS
    } // namespace cuda
  }   // namespace internal
} // namespace gpumf
