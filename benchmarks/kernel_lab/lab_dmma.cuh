// The kernel lab's designs `dmma` and `dmma-b<blocks>` (kernel_lab.cu): the 1D contractions along x and y of a cell of
// 8 x 8 x 8 points (collocation, BP5 at p = 7) as 8 x 8 matrix products on the FP64 tensor cores
// (mma.sync m8n8k4, sm_80 and later), a warp per cell, no block barriers.
//
// Lane (r, c) = (lane / 4, lane % 4) of a cell's warp owns the two z-lines at (x, y) = (2c, r)
// and (2c + 1, r): it gathers and scatters their 16 DoFs, runs the point operation on their 16
// points and contracts them along z in registers. Along x, a z-slice U (8 x 8, rows y, columns x)
// times D^T is an m8n8k4 product whose operands are the lane's own numbers: the m8n8k4 layout
// gives lane (r, c) entry (r, c) of A and entries (r, 2c), (r, 2c + 1) of C, so with the
// contraction index split into the chunks {0, 2, 4, 6} and {1, 3, 5, 7} a slice's two z-lines
// are the A operands of the two products and the result lands on the lane's own points. Along y
// the slice is the B operand (entry (c, r): the point (x, y) = (r, c + 4 chunk)), which other
// lanes hold: the lanes store their points to the cell's scratch and load the transposed ones,
// one store and one load a point, the result again on the lane's own points. Backwards the same
// with D: BP5 costs 2 shared stores and 2 loads a point (the lines design: 7 and 8), 64 DMMA
// instructions a cell and 2 x 128 register multiply-adds a lane for z.
//
// The scratch (512 numbers a cell) stores point (x, y, z) at 64 z + 8 y + (x ^ s(y)),
// s(y) = 5 (y & 2) / 2: the stores (x = 2c + j, y = r) and the loads (x = r, y = c + 4j) of a
// half-warp then reach 16 different banks (no conflicts).
#ifndef gpumf_kernel_lab_dmma_cuh
#define gpumf_kernel_lab_dmma_cuh

#include "lab_designs.cuh"

namespace lab
{
  /// The position of point (x, y, z) in a dmma cell's scratch.
  __device__ __forceinline__ unsigned int
  dmma_at(const unsigned int x, const unsigned int y, const unsigned int z)
  {
    return 64 * z + 8 * y + (x ^ (5 * ((y >> 1) & 1)));
  }

  /// D = A B + C on the FP64 tensor cores: A 8 x 4 (this lane's entry (lane / 4, lane % 4)), B
  /// 4 x 8 (entry (lane % 4, lane / 4)), C and D 8 x 8 (entries (lane / 4, 2 (lane % 4) + j)).
  __device__ __forceinline__ void
  mma_8x8x4(double &d0, double &d1, const double a, const double b, const double c0, const double c1)
  {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\n"
        : "=d"(d0), "=d"(d1)
        : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else
    (void)a, (void)b, (void)c0, (void)c1;
    d0 = d1 = 0;
    __trap();
#endif
  }

  /// The design dmma: BP5 (collocation, gradients only) at n = 8, double; blockDim (32, cells).
  /// (@p min_blocks: blocks of 4 cells (128 threads) an SM must hold, which caps the registers;
  /// 0: the compiler's choice, blocks of up to 8 cells.)
  template <typename Number, bool with_values, bool with_gradients, int min_blocks = 0>
  __global__ void
  __launch_bounds__(min_blocks > 0 ? 128 : 256, min_blocks)
    dmma_kernel(const Data<Number> d, const Tables<8, 8, Number> tables, const Number *src, Number *dst)
  {
    static_assert(std::is_same_v<Number, double> && with_gradients && !with_values,
                  "the dmma design runs BP5 in double");
    constexpr unsigned int n = 8;
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned int                            cell = blockIdx.x * blockDim.y + threadIdx.y;
    if (cell >= d.n_cells)
      return; // a warp is a cell: no barrier of the block follows
    Number            *scratch = reinterpret_cast<Number *>(smem) + threadIdx.y * 2 * n * n * n;
    const unsigned int lane = threadIdx.x, r = lane >> 2, c = lane & 3;
    const Number      *D = tables.table + n * n; // D[q n + l]

    // the 1D derivative as this lane's tensor-core operands: x forward B(l = 2c + j, i = r),
    // y forward A(y = r, l = c + 4j), x backward B(q = 2c + j, i = r) = D(q, i), y backward
    // A(y = r, q = c + 4j) = D(q, y)
    Number bx[2], ay[2], bxt[2], ayt[2];
#pragma unroll
    for (unsigned int j = 0; j < 2; ++j)
      {
        bx[j]  = read_only(d.derivative + r * n + 2 * c + j);
        ay[j]  = read_only(d.derivative + r * n + c + 4 * j);
        bxt[j] = read_only(d.derivative + (2 * c + j) * n + r);
        ayt[j] = read_only(d.derivative + (c + 4 * j) * n + r);
      }

    // gather the two z-lines
    Number u[2][n];
#pragma unroll
    for (unsigned int k = 0; k < n; ++k)
#pragma unroll
      for (unsigned int j = 0; j < 2; ++j)
        {
          const unsigned int i = read_only(d.codes + std::size_t(cell) * n * n * n + 2 * c + j + n * r + n * n * k);
          u[j][k]              = i == no_dof ? Number(0) : read_only(src + i);
        }

#pragma unroll
    for (unsigned int k = 0; k < n; ++k)
#pragma unroll
      for (unsigned int j = 0; j < 2; ++j)
        scratch[dmma_at(2 * c + j, r, k)] = u[j][k];
    __syncwarp();

    // the geometry of the lane's two columns: affine, JxW J^{-1} J^{-T} of the cell and the
    // columns' weights; stored, the merged geometry of each point
    constexpr unsigned int Q    = n * n * n; // BP5: 6 numbers of stored geometry a point
    Number                 g[6] = {}, column_weight[2] = {};
    const std::size_t      first = std::size_t(cell) * Q + 2 * c + n * r;
    if (d.affine)
      {
        gpumf::internal::symmetric_metric(d.inv_jacobian + cell, d.n_cells, read_only(d.JxW + cell), g);
        column_weight[0] = tables.weights[2 * c] * tables.weights[r];
        column_weight[1] = tables.weights[2 * c + 1] * tables.weights[r];
      }

    // slice by slice: the three derivatives of the slice's points, the point operation, the
    // x derivative backwards onto the slice, the z derivative backwards onto all slices (v),
    // the y gradients stored for the y derivative backwards after the loop
    Number *gy_buffer = scratch + Q;
    Number  v[2][n]   = {};
#pragma unroll
    for (unsigned int k = 0; k < n; ++k)
      {
        Number gx[2], gy[2], gz[2], e0, e1;
        mma_8x8x4(e0, e1, u[0][k], bx[0], 0., 0.);
        mma_8x8x4(gx[0], gx[1], u[1][k], bx[1], e0, e1);
        mma_8x8x4(e0, e1, ay[0], scratch[dmma_at(r, c, k)], 0., 0.);
        mma_8x8x4(gy[0], gy[1], ay[1], scratch[dmma_at(r, c + 4, k)], e0, e1);
#pragma unroll
        for (unsigned int j = 0; j < 2; ++j)
          {
            Number s = 0;
#pragma unroll
            for (unsigned int l = 0; l < n; ++l)
              s += D[k * n + l] * u[j][l];
            gz[j] = s;
            Number m[6];
            if (d.affine)
              {
                const Number w = column_weight[j] * tables.weights[k];
#pragma unroll
                for (unsigned int e = 0; e < 6; ++e)
                  m[e] = w * g[e];
              }
            else
#pragma unroll
              for (unsigned int e = 0; e < 6; ++e)
                m[e] = read_only(d.metric + e * d.stride + first + j + n * n * k);
            gpumf::internal::apply_symmetric(m, gx[j], gy[j], gz[j]);
            gy_buffer[dmma_at(2 * c + j, r, k)] = gy[j];
#pragma unroll
            for (unsigned int l = 0; l < n; ++l)
              v[j][l] += D[k * n + l] * gz[j];
          }
        mma_8x8x4(v[0][k], v[1][k], gx[0], bxt[0], v[0][k], v[1][k]);
        mma_8x8x4(v[0][k], v[1][k], gx[1], bxt[1], v[0][k], v[1][k]);
      }
    __syncwarp();
#pragma unroll
    for (unsigned int k = 0; k < n; ++k)
      {
        mma_8x8x4(v[0][k], v[1][k], ayt[0], gy_buffer[dmma_at(r, c, k)], v[0][k], v[1][k]);
        mma_8x8x4(v[0][k], v[1][k], ayt[1], gy_buffer[dmma_at(r, c + 4, k)], v[0][k], v[1][k]);
      }

#pragma unroll
    for (unsigned int k = 0; k < n; ++k)
#pragma unroll
      for (unsigned int j = 0; j < 2; ++j)
        {
          const unsigned int i = read_only(d.codes + std::size_t(cell) * n * n * n + 2 * c + j + n * r + n * n * k);
          if (i != no_dof)
            atomicAdd(dst + i, v[j][k]);
        }
  }
} // namespace lab

#endif
