/**
 * @file gpumf/internal/sipg_kernel.cuh
 * The fused GPU kernel of SIPGLaplaceOperator::vmult() in 3D: each cell's gradient term and
 * the penalty, jump and average terms of its six faces in one pass, writing the cell's own
 * DoFs (cell-centric, as MatrixFree::loop()). Its reference is the operator's functors run by
 * MatrixFree::loop() (the generic face path, and on the host backend FEFaceEvaluation's naive
 * sums); the tests compare the two on the GPU.
 *
 * Where the generic path evaluates each face from both sides with the full FEFaceEvaluation
 * (both sides' values and gradients interpolated to the face points, integrated back per face),
 * this kernel works in the collocation basis of the cell's Gauss points: the cell's values at
 * its points u~ = (S x S x S) u are computed once; a face's values and normal derivative on
 * the running cell's side are then one contraction along the normal (the Lagrange basis of the
 * points and its derivative at the face), the tangential derivatives the collocation derivative
 * within the face; the face's test functions add into the same collocation-space residual as
 * the cell term, and one transposed transform (S^T x S^T x S^T) maps it to the DoFs. The
 * neighbour's side: its DoFs reduced along its normal with the element's basis at the face,
 * then interpolated to its face points. Only normal derivatives are formed, with the geometry
 * J^-1 n of both sides per face point (FaceData::entry_metric; per face on affine meshes).
 *
 * Threads: n x n per cell (n = fe_degree + 1 = n_q_points_1d), several cells per block;
 * thread (a, b) keeps the column (a, b, k) of its cell in registers and is point (a, b) of
 * each of the cell's faces in their own face axes. 9 barriers per cell.
 *
 * Requirements (SIPGLaplaceOperator checks them and otherwise runs MatrixFree::loop()): 3D,
 * one component, n_q_points_1d = fe_degree + 1, no hanging faces, a cell's DoFs lexicographic.
 */
#ifndef gpumf_internal_sipg_kernel_cuh
#define gpumf_internal_sipg_kernel_cuh

#include <gpumf/internal/face_data.h>
#include <gpumf/internal/tensor_contractions.h>
#include <gpumf/matrix_free.h>

#ifdef __CUDACC__
#  include <gpumf/internal/cuda_check.h>
#endif

#include <cstddef>

namespace gpumf
{
  namespace internal
  {
    /// Sizes of the fused SIPG kernel for n = fe_degree + 1 points per direction.
    template <int n>
    struct SIPGKernelSizes
    {
      static constexpr unsigned int P  = n * n * n;
      static constexpr unsigned int F2 = n * n;
      /// Numbers of the 1D tables (S, D, S^-1, the basis and the points' Lagrange basis at the faces).
      static constexpr unsigned int tables = 3 * F2 + 8 * n + (3 * F2 + 8 * n) % 2;
      /// Numbers of one cell's scratch: two cell arrays and five sets of six face arrays.
      static constexpr unsigned int per_cell = 2 * P + 30 * F2;
      /// Cells per block: about 128 threads.
      static constexpr unsigned int cells_per_block = F2 >= 128 ? 1 : 128 / F2;

      static constexpr std::size_t
      shared_bytes(const std::size_t number_size)
      {
        return number_size * (tables + cells_per_block * per_cell);
      }
    };

#ifdef __CUDACC__
    inline namespace nvcc_compiled
    {
      template <int n, typename Number>
      __global__ void
      __launch_bounds__(n *n *SIPGKernelSizes<n>::cells_per_block)
        sipg_kernel(const typename MatrixFree<3, Number>::Data data,
                    const Number                              *src,
                    Number                                    *dst,
                    const Number                               penalty,
                    const unsigned int                         dirichlet_mask)
      {
        using Sizes                    = SIPGKernelSizes<n>;
        constexpr unsigned int P       = Sizes::P;
        constexpr unsigned int F2      = Sizes::F2;
        constexpr unsigned int C       = Sizes::cells_per_block;
        using Faces                    = FaceData<3, Number>;
        const Faces             &faces = data.faces;
        extern __shared__ double sipg_shared[];
        Number *const            S    = reinterpret_cast<Number *>(sipg_shared); // [q * n + i]
        Number *const            D    = S + F2;                                  // [q * n + l]
        Number *const            Sinv = D + F2;                                  // [i * n + q]
        Number *const            phi  = Sinv + F2; // [(s * 2 + k) * n + i]: the element's basis (k = 0) and
                                                   // its derivative (k = 1) at the face s
        Number *const L = phi + 4 * n; // [(s * 2 + k) * n + q]: the same for the Lagrange basis of the points

        const unsigned int a = threadIdx.x, b = threadIdx.y, c = threadIdx.z;
        const unsigned int t = a + n * (b + n * c);
        for (unsigned int i = t; i < F2; i += n * n * C)
          {
            S[i]    = read_only(data.shape_values + i);
            D[i]    = read_only(data.co_shape_gradients + i);
            Sinv[i] = read_only(data.inverse_shape_values + i);
          }
        for (unsigned int i = t; i < 4 * n; i += n * n * C)
          phi[i] = read_only(faces.shape_on_face + i);
        __syncthreads();
        for (unsigned int i = t; i < 4 * n; i += n * n * C)
          {
            Number sum = 0;
            for (unsigned int m = 0; m < n; ++m)
              sum += phi[(i / n) * n + m] * Sinv[m * n + i % n];
            L[i] = sum;
          }

        Number *const mine = S + Sizes::tables + c * Sizes::per_cell;
        Number *const U    = mine; // cell arrays [x + n y + n^2 z]
        Number *const B    = mine + P;
        Number *const OV   = mine + 2 * P; // face arrays [f * F2 + a + n b]
        Number *const NV1  = OV + 6 * F2;
        Number *const NN1  = NV1 + 6 * F2;
        Number *const NV2  = NN1 + 6 * F2;
        Number *const NN2  = NV2 + 6 * F2;
        const auto    at   = [](const unsigned int x, const unsigned int y, const unsigned int z) {
          return x + n * y + F2 * z;
        };
        const auto fat = [](const unsigned int f, const unsigned int x, const unsigned int y) {
          return f * F2 + x + n * y;
        };

        const unsigned int cell   = blockIdx.x * C + c;
        const bool         active = cell < data.n_cells;
        const unsigned int r      = data.row_start + (active ? cell : 0);
        const unsigned int e0     = read_only(faces.cell_face_start + r);
        const unsigned int first  = read_only(faces.entry_first_dof + e0);
        const std::size_t  M      = faces.entry_metric_affine ? faces.n_entries : std::size_t(faces.n_entries) * F2;
        const auto         metric = [&](const unsigned int j, const unsigned int e, const unsigned int q) -> Number {
          return faces.entry_metric_affine ? read_only(faces.entry_metric + j * M + e) :
                                                     read_only(faces.entry_metric + j * M + std::size_t(e) * F2 + q);
        };

        // 1. The cell's column; each neighbour's DoFs reduced along its normal to its face.
        Number u[n];
#  pragma unroll
        for (unsigned int l = 0; l < n; ++l)
          u[l] = active ? read_only(src + first + at(a, b, l)) : Number(0);
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            const unsigned int nb = read_only(faces.entry_neighbor_first_dof + e0 + f);
            Number             v = 0, vn = 0;
            if (active && nb != Faces::no_neighbor)
              {
                const unsigned int fn = read_only(faces.entry_neighbor_face_no + e0 + f);
                const unsigned int dn = fn / 2, s = fn % 2;
                const unsigned int stride_n = dn == 0 ? 1 : dn == 1 ? n : F2;
                const unsigned int stride_a = dn == 0 ? n : 1;
                const unsigned int stride_b = dn == 2 ? n : F2;
                const Number      *x        = src + nb + a * stride_a + b * stride_b;
                tensor::line_dot_two_rows<n>([&](const unsigned int l) { return phi[(s * 2) * n + l]; },
                                             [&](const unsigned int l) { return phi[(s * 2 + 1) * n + l]; },
                                             [&](const unsigned int l) { return read_only(x + l * stride_n); },
                                             v,
                                             vn);
              }
            NV1[fat(f, a, b)] = v;
            NN1[fat(f, a, b)] = vn;
          }
          // the cell's values at its points: z in registers
#  pragma unroll
        for (unsigned int q = 0; q < n; ++q)
          B[at(a, b, q)] = tensor::line_dot<n, false, n>(S, q, [&](const unsigned int l) { return u[l]; });
        __syncthreads(); // 1

        // 2. x for the cell; the neighbours' traces along their first face axis
#  pragma unroll
        for (unsigned int q = 0; q < n; ++q)
          U[at(a, b, q)] = tensor::line_dot<n, false, n>(S, a, [&](const unsigned int m) { return B[at(m, b, q)]; });
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            Number v = 0, vn = 0;
            tensor::line_dot_two_inputs<n, false, n>(
              S,
              a,
              [&](const unsigned int m) { return NV1[fat(f, m, b)]; },
              [&](const unsigned int m) { return NN1[fat(f, m, b)]; },
              v,
              vn);
            NV2[fat(f, a, b)] = v;
            NN2[fat(f, a, b)] = vn;
          }
        __syncthreads(); // 2

        // 3. y for the cell (u~ to B and registers); the neighbours' traces along their second axis
        Number uq[n];
#  pragma unroll
        for (unsigned int q = 0; q < n; ++q)
          {
            uq[q]          = tensor::line_dot<n, false, n>(S, b, [&](const unsigned int m) { return U[at(a, m, q)]; });
            B[at(a, b, q)] = uq[q];
          }
        Number nb_normal[6];
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            Number v = 0, vn = 0;
            tensor::line_dot_two_inputs<n, false, n>(
              S,
              b,
              [&](const unsigned int m) { return NV2[fat(f, a, m)]; },
              [&](const unsigned int m) { return NN2[fat(f, a, m)]; },
              v,
              vn);
            NV1[fat(f, a, b)] = v;
            nb_normal[f]      = vn;
          }
        __syncthreads(); // 3

        // 4. The cell's own traces (value to OV, normal reference derivative in registers), its
        // reference gradient at its column, the neighbours' normal derivatives at their points.
        Number own_normal[6];
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            const unsigned int d = f / 2, s = f % 2;
            Number             v = 0, vn = 0;
            tensor::line_dot_two_rows<n>([&](const unsigned int l) { return L[(s * 2) * n + l]; },
                                         [&](const unsigned int l) { return L[(s * 2 + 1) * n + l]; },
                                         [&](const unsigned int l) {
                                           return d == 2 ? uq[l] : d == 1 ? B[at(a, l, b)] : B[at(l, a, b)];
                                         },
                                         v,
                                         vn);
            OV[fat(f, a, b)] = v;
            own_normal[f]    = vn;
          }
        Number gx[n], gy[n], gz[n];
#  pragma unroll
        for (unsigned int k = 0; k < n; ++k)
          {
            gx[k] = tensor::line_dot<n, false, n>(D, a, [&](const unsigned int m) { return B[at(m, b, k)]; });
            gy[k] = tensor::line_dot<n, false, n>(D, b, [&](const unsigned int m) { return B[at(a, m, k)]; });
            gz[k] = tensor::line_dot<n, false, n>(D, k, [&](const unsigned int m) { return uq[m]; });
          }
        if (active)
          {
            // kappa = 1: JxW J^-1 J^-T per cell (affine) or per point
            const std::size_t stride = data.jacobian_stride;
            const auto apply = [&](const std::size_t index, const Number scale, Number &x, Number &y, Number &z) {
              Number j[3][3];
#  pragma unroll
              for (unsigned int e = 0; e < 3; ++e)
#  pragma unroll
                for (unsigned int d = 0; d < 3; ++d)
                  j[e][d] = read_only(data.inv_jacobian + (e * 3 + d) * stride + index);
              // reference gradient g -> J^-T g -> J^-1 (J^-T g) scale
              Number real[3];
#  pragma unroll
              for (unsigned int d = 0; d < 3; ++d)
                real[d] = j[0][d] * x + j[1][d] * y + j[2][d] * z;
              x = scale * (j[0][0] * real[0] + j[0][1] * real[1] + j[0][2] * real[2]);
              y = scale * (j[1][0] * real[0] + j[1][1] * real[1] + j[1][2] * real[2]);
              z = scale * (j[2][0] * real[0] + j[2][1] * real[1] + j[2][2] * real[2]);
            };
#  pragma unroll
            for (unsigned int k = 0; k < n; ++k)
              {
                const unsigned int q = at(a, b, k);
                if (data.affine)
                  apply(r, read_only(data.JxW + r) * read_only(data.quadrature_weights + q), gx[k], gy[k], gz[k]);
                else
                  apply(std::size_t(r) * P + q, read_only(data.JxW + std::size_t(r) * P + q), gx[k], gy[k], gz[k]);
              }
          }
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            const unsigned int e = e0 + f;
            if (read_only(faces.entry_neighbor_first_dof + e) == Faces::no_neighbor)
              continue;
            const Number da =
              tensor::line_dot<n, false, n>(D, a, [&](const unsigned int m) { return NV1[fat(f, m, b)]; });
            const Number db =
              tensor::line_dot<n, false, n>(D, b, [&](const unsigned int m) { return NV1[fat(f, a, m)]; });
            const unsigned int p = a + n * b; // the neighbour's own point
            NN1[fat(f, a, b)]    = metric(3, e, p) * da + metric(4, e, p) * db + metric(5, e, p) * nb_normal[f];
          }
        __syncthreads(); // 4

        // 5. The tested gradient to U and B; the fluxes at the cell's points (the running cell's
        // side: jump = u- - u+, average of the derivatives along its outward normal)
#  pragma unroll
        for (unsigned int k = 0; k < n; ++k)
          {
            U[at(a, b, k)] = gx[k];
            B[at(a, b, k)] = gy[k];
          }
        Number value_test[6], normal_test[6];
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            const unsigned int e   = e0 + f;
            const unsigned int q   = a + n * b;
            const Number       u_m = OV[fat(f, a, b)];
            const Number       da =
              tensor::line_dot<n, false, n>(D, a, [&](const unsigned int m) { return OV[fat(f, m, b)]; });
            const Number db =
              tensor::line_dot<n, false, n>(D, b, [&](const unsigned int m) { return OV[fat(f, a, m)]; });
            const Number c0 = metric(0, e, q), c1 = metric(1, e, q), c2 = metric(2, e, q);
            const Number dn_m = c0 * da + c1 * db + c2 * own_normal[f];
            Number       jxw  = metric(6, e, q);
            if (faces.entry_metric_affine)
              jxw *= read_only(faces.face_weights + q);
            const unsigned int nb   = read_only(faces.entry_neighbor_first_dof + e);
            Number             jump = 0, average = 0, sigma = 0;
            if (nb != Faces::no_neighbor)
              {
                const unsigned int p =
                  read_only(faces.entry_other_point + read_only(faces.entry_permutation + e) * F2 + q);
                jump            = u_m - NV1[f * F2 + p];
                average         = Number(0.5) * (dn_m + NN1[f * F2 + p]);
                const Number cp = metric(5, e, p);
                sigma           = Number(0.5) * penalty * ((c2 < 0 ? -c2 : c2) + (cp < 0 ? -cp : cp));
              }
            else
              {
                const unsigned int id =
                  read_only(faces.boundary_id + (read_only(faces.entry_face + e) & ~Faces::exterior_bit));
                if (id < 32 && ((dirichlet_mask >> id) & 1u) != 0)
                  {
                    jump    = Number(2) * u_m;
                    average = dn_m;
                    sigma   = penalty * (c2 < 0 ? -c2 : c2);
                  }
              }
            const Number test = Number(-0.5) * jump * jxw;
            value_test[f]     = (jump * sigma - average) * jxw;
            normal_test[f]    = test * c2;
            NV2[fat(f, a, b)] = test * c0;
            NN2[fat(f, a, b)] = test * c1;
          }
        __syncthreads(); // 5

        // 6. The residual at the column: the gradient tested, the faces' tangential tests, the
        // z faces; the x and y faces' tests to OV (values) and NV1 (normal derivatives)
        Number R[n];
#  pragma unroll
        for (unsigned int k = 0; k < n; ++k)
          {
            Number sum = 0;
#  pragma unroll
            for (unsigned int m = 0; m < n; ++m)
              sum += D[m * n + k] * gz[m] + D[m * n + a] * U[at(m, b, k)] + D[m * n + b] * B[at(a, m, k)];
            R[k] = sum;
          }
#  pragma unroll
        for (unsigned int f = 0; f < 6; ++f)
          {
            Number g = value_test[f];
#  pragma unroll
            for (unsigned int m = 0; m < n; ++m)
              g += D[m * n + a] * NV2[fat(f, m, b)] + D[m * n + b] * NN2[fat(f, a, m)];
            if (f >= 4)
              {
                const unsigned int s = f % 2;
#  pragma unroll
                for (unsigned int k = 0; k < n; ++k)
                  R[k] += L[(s * 2) * n + k] * g + L[(s * 2 + 1) * n + k] * normal_test[f];
              }
            else
              {
                OV[fat(f, a, b)]  = g;
                NV1[fat(f, a, b)] = normal_test[f];
              }
          }
        __syncthreads(); // 6

        // 7. The x faces (face point (y, z)) and y faces (face point (x, z)); back along z
#  pragma unroll
        for (unsigned int k = 0; k < n; ++k)
#  pragma unroll
          for (unsigned int s = 0; s < 2; ++s)
            R[k] += L[(s * 2) * n + a] * OV[fat(s, b, k)] + L[(s * 2 + 1) * n + a] * NV1[fat(s, b, k)] +
                    L[(s * 2) * n + b] * OV[fat(2 + s, a, k)] + L[(s * 2 + 1) * n + b] * NV1[fat(2 + s, a, k)];
#  pragma unroll
        for (unsigned int i = 0; i < n; ++i)
          U[at(a, b, i)] = tensor::line_dot<n, true, n>(S, i, [&](const unsigned int q) { return R[q]; });
        __syncthreads(); // 7

        // 8. back along x
#  pragma unroll
        for (unsigned int i = 0; i < n; ++i)
          B[at(a, b, i)] = tensor::line_dot<n, true, n>(S, a, [&](const unsigned int m) { return U[at(m, b, i)]; });
        __syncthreads(); // 8

        // 9. back along y, into the cell's DoFs
        if (active)
#  pragma unroll
          for (unsigned int i = 0; i < n; ++i)
            dst[first + at(a, b, i)] =
              tensor::line_dot<n, true, n>(S, b, [&](const unsigned int m) { return B[at(a, m, i)]; });
      }

      /// Runs the fused kernel over every cell of @p mf (src's ghosts exchanged by the caller).
      template <int n, typename Number>
      void
      sipg_fused_apply(const MatrixFree<3, Number> &mf,
                       const Number                *src,
                       Number                      *dst,
                       const Number                 penalty,
                       const unsigned int           dirichlet_mask)
      {
        using Sizes              = SIPGKernelSizes<n>;
        const std::size_t bytes  = Sizes::shared_bytes(sizeof(Number));
        const auto        kernel = sipg_kernel<n, Number>;
        if (bytes > 48 * 1024)
          GPUMF_CHECK_CUDA(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        for (unsigned int color = 0; color < mf.n_colors(); ++color)
          {
            const typename MatrixFree<3, Number>::Data data = mf.get_data(color);
            if (data.n_cells == 0)
              continue;
            const unsigned int blocks = (data.n_cells + Sizes::cells_per_block - 1) / Sizes::cells_per_block;
            kernel<<<blocks, dim3(n, n, Sizes::cells_per_block), bytes>>>(data, src, dst, penalty, dirichlet_mask);
            GPUMF_CHECK_CUDA(cudaGetLastError());
          }
      }
    } // namespace nvcc_compiled
#else
    inline namespace host_compiled
    {
      template <int n, typename Number>
      void
      sipg_fused_apply(const MatrixFree<3, Number> &, const Number *, Number *, const Number, const unsigned int)
      {
        throw_not_compiled_by_nvcc();
      }
    } // namespace host_compiled
#endif
  } // namespace internal
} // namespace gpumf

#endif
