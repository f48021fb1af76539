// The kernel lab's problems: a box of nx x ny x nz cells in the order of a globally refined
// deal.II mesh (Morton order), DoFs numbered by entity the way deal.II's DoFHandler numbers
// them (on each cell in turn its vertices, lines, faces and interior not numbered yet, each
// entity's DoFs contiguous), homogeneous Dirichlet DoFs on the boundary (code no_dof); the 1D
// matrices of FE_Q on Gauss-Lobatto nodes at Gauss or Gauss-Lobatto points; and the naive host
// reference of BP1/BP3/BP5.
#ifndef gpumf_kernel_lab_problem_h
#define gpumf_kernel_lab_problem_h

#include <gpumf/internal/dof_access.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace lab
{
  /// Gauss (@p lobatto false) or Gauss-Lobatto points and weights on [0, 1], ascending.
  inline void
  quadrature_1d(const unsigned int n, const bool lobatto, std::vector<double> &x, std::vector<double> &w)
  {
    x.assign(n, 0);
    w.assign(n, 0);
    const auto legendre = [](const unsigned int m, const double t, double &pm, double &pm1) {
      // pm = P_m(t), pm1 = P_{m-1}(t)
      double a = 1, b = t;
      if (m == 0)
        {
          pm  = 1;
          pm1 = 0;
          return;
        }
      for (unsigned int k = 2; k <= m; ++k)
        {
          const double c = ((2 * k - 1) * t * b - (k - 1) * a) / k;
          a              = b;
          b              = c;
        }
      pm  = b;
      pm1 = a;
    };
    for (unsigned int i = 0; i < n; ++i)
      {
        double t;
        if (!lobatto)
          {
            t = std::cos(M_PI * (i + 0.75) / (n + 0.5));
            for (int it = 0; it < 100; ++it)
              {
                double p, p1;
                legendre(n, t, p, p1);
                const double dp = n * (t * p - p1) / (t * t - 1);
                const double dt = p / dp;
                t -= dt;
                if (std::abs(dt) < 1e-16)
                  break;
              }
            double p, p1;
            legendre(n, t, p, p1);
            const double dp = n * (t * p - p1) / (t * t - 1);
            w[i]            = 2 / ((1 - t * t) * dp * dp);
          }
        else
          {
            const unsigned int N = n - 1;
            t                    = std::cos(M_PI * i / N);
            for (int it = 0; it < 100; ++it)
              {
                double p, p1;
                legendre(N, t, p, p1);
                const double dt = (t * p - p1) / (n * p);
                t -= dt;
                if (std::abs(dt) < 1e-16)
                  break;
              }
            double p, p1;
            legendre(N, t, p, p1);
            w[i] = 2. / (N * n * p * p);
          }
        x[i] = (1 - t) / 2; // cos runs from 1 down: ascending on [0, 1]
        w[i] /= 2;
      }
  }

  /// L_i(t) and L_i'(t) of the Lagrange basis on @p nodes.
  inline void
  lagrange(const std::vector<double> &nodes, const unsigned int i, const double t, double &value, double &derivative)
  {
    value      = 1;
    derivative = 0;
    for (unsigned int j = 0; j < nodes.size(); ++j)
      if (j != i)
        {
          derivative = derivative * (t - nodes[j]) / (nodes[i] - nodes[j]) + value / (nodes[i] - nodes[j]);
          value *= (t - nodes[j]) / (nodes[i] - nodes[j]);
        }
  }

  /// The 1D matrices of degree p at n_q points: shape values [q nd + i] and derivatives
  /// [q nd + i] of the GLL Lagrange basis, the collocation derivative [q n_q + l] on the points.
  struct Matrices1D
  {
    std::vector<double> points, weights, shape, shape_derivative, collocation_derivative;

    Matrices1D(const unsigned int p, const unsigned int n_q, const bool lobatto)
    {
      std::vector<double> nodes, node_weights;
      quadrature_1d(p + 1, true, nodes, node_weights);
      quadrature_1d(n_q, lobatto, points, weights);
      shape.resize(n_q * (p + 1));
      shape_derivative.resize(n_q * (p + 1));
      collocation_derivative.resize(n_q * n_q);
      for (unsigned int q = 0; q < n_q; ++q)
        {
          for (unsigned int i = 0; i <= p; ++i)
            lagrange(nodes, i, points[q], shape[q * (p + 1) + i], shape_derivative[q * (p + 1) + i]);
          for (unsigned int l = 0; l < n_q; ++l)
            {
              double v;
              lagrange(points, l, points[q], v, collocation_derivative[q * n_q + l]);
            }
        }
    }
  };

  /// A box of cells with deal.II's entity numbering (see the file documentation).
  struct Mesh
  {
    unsigned int              p       = 0;
    std::size_t               n_cells = 0, n_dofs = 0;
    std::vector<unsigned int> codes; // (p+1)^3 a cell, lexicographic
    double                    h = 1;

    Mesh(const unsigned int nx, const unsigned int ny, const unsigned int nz, const unsigned int p)
      : p(p)
      , n_cells(std::size_t(nx) * ny * nz)
      , h(1. / nx)
    {
      const auto morton = [](unsigned int x, unsigned int y, unsigned int z) {
        std::uint64_t key = 0;
        for (unsigned int b = 0; b < 21; ++b)
          key |= (std::uint64_t((x >> b) & 1) << (3 * b)) | (std::uint64_t((y >> b) & 1) << (3 * b + 1)) |
                 (std::uint64_t((z >> b) & 1) << (3 * b + 2));
        return key;
      };
      std::vector<std::pair<std::uint64_t, std::array<unsigned int, 3>>> keyed;
      keyed.reserve(n_cells);
      for (unsigned int z = 0; z < nz; ++z)
        for (unsigned int y = 0; y < ny; ++y)
          for (unsigned int x = 0; x < nx; ++x)
            keyed.push_back({morton(x, y, z), {x, y, z}});
      std::sort(keyed.begin(), keyed.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
      std::vector<std::array<unsigned int, 3>> cells(n_cells);
      for (std::size_t c = 0; c < n_cells; ++c)
        cells[c] = keyed[c].second;

      // entities on the doubled lattice: (2x + cx, 2y + cy, 2z + cz), c = 0, 1 (inside), 2
      const std::size_t         Ex = 2 * nx + 1, Ey = 2 * ny + 1, Ez = 2 * nz + 1;
      std::vector<unsigned int> start(Ex * Ey * Ez, std::numeric_limits<unsigned int>::max());
      const auto odd = [](const unsigned int c) { return (c % 3 == 1) + (c / 3 % 3 == 1) + (c / 9 == 1); };
      std::vector<unsigned int> order(27);
      for (unsigned int e = 0; e < 27; ++e)
        order[e] = e;
      std::stable_sort(order.begin(), order.end(), [&](unsigned int a, unsigned int b) { return odd(a) < odd(b); });
      const auto entity = [&](const std::array<unsigned int, 3> &c, const unsigned int e) {
        return (2 * c[0] + e % 3) + Ex * ((2 * c[1] + e / 3 % 3) + Ey * (2 * c[2] + e / 9));
      };
      std::size_t next = 0;
      for (const auto &c : cells)
        for (const unsigned int e : order)
          {
            auto &s = start[entity(c, e)];
            if (s == std::numeric_limits<unsigned int>::max())
              {
                s = static_cast<unsigned int>(next);
                next += std::size_t(std::pow(p - 1, odd(e)));
              }
          }
      n_dofs = next;

      const unsigned int n = (p + 1) * (p + 1) * (p + 1);
      codes.resize(n_cells * n);
      for (std::size_t cell = 0; cell < n_cells; ++cell)
        for (unsigned int k = 0, l = 0; k <= p; ++k)
          for (unsigned int j = 0; j <= p; ++j)
            for (unsigned int i = 0; i <= p; ++i, ++l)
              {
                const unsigned int ijk[3] = {i, j, k}, size[3] = {nx, ny, nz};
                const auto        &c = cells[cell];
                unsigned int       e = 0, offset = 0, stride = 1;
                bool               boundary = false;
                for (unsigned int d = 0, s = 1; d < 3; ++d, s *= 3)
                  {
                    const unsigned int cd = ijk[d] == 0 ? 0 : (ijk[d] == p ? 2 : 1);
                    e += cd * s;
                    if (cd == 1)
                      {
                        offset += (ijk[d] - 1) * stride;
                        stride *= p - 1;
                      }
                    else if ((c[d] == 0 && cd == 0) || (c[d] + 1 == size[d] && cd == 2))
                      boundary = true;
                  }
                codes[cell * n + l] = boundary ? gpumf::internal::no_dof : start[entity(c, e)] + offset;
              }
    }
  };

  /// The merged geometry of the stored cases at entry e of point q of cell c (e < 6: the
  /// gradient entries, e = 6: the value term; those of a cube of size h, perturbed per point):
  /// the same on the device (filled there) and in the reference.
  __host__ __device__ inline double
  stored_metric(const unsigned int e, const std::size_t cell, const unsigned int q, const double h)
  {
    const double perturbation = 1 + 0.1 * ((cell * 7 + q * 13 + e * 5) % 17) / 17.;
    // G = JxW J^{-1} J^{-T} of a cube of size h: diagonal h, off-diagonal small
    const double base = (e == 0 || e == 3 || e == 5) ? h : (e == 6 ? h * h * h : 0.01 * h);
    return base * perturbation;
  }

  /// The naive reference of v = A u on the cells of @p mesh: values and reference gradients at
  /// each point as sums over all DoFs of the cell (no sum factorization), the point operation,
  /// the sums back. Affine: JxW J^{-1} J^{-T} w_q with the cell's J^{-1} = @p jinv (9 entries a
  /// cell, [(3 r + d) n_cells + c]) and JxW; stored: stored_metric().
  inline std::vector<double>
  reference(const Mesh                &mesh,
            const Matrices1D          &m,
            const bool                 with_values,
            const bool                 with_gradients,
            const bool                 affine,
            const std::vector<double> &jinv,
            const std::vector<double> &jxw,
            const std::vector<double> &u)
  {
    const unsigned int  p = mesh.p, nd = p + 1, nq = m.points.size(), n = nd * nd * nd, Q = nq * nq * nq;
    std::vector<double> v(mesh.n_dofs, 0.), ue(n), out(n);
    for (std::size_t c = 0; c < mesh.n_cells; ++c)
      {
        for (unsigned int l = 0; l < n; ++l)
          {
            const unsigned int code = mesh.codes[c * n + l];
            ue[l]                   = code == gpumf::internal::no_dof ? 0 : u[code];
          }
        std::fill(out.begin(), out.end(), 0.);
        double g[6];
        if (affine)
          {
            unsigned int e = 0;
            for (unsigned int r = 0; r < 3; ++r)
              for (unsigned int s = r; s < 3; ++s, ++e)
                {
                  g[e] = 0;
                  for (unsigned int d = 0; d < 3; ++d)
                    g[e] += jinv[(3 * r + d) * mesh.n_cells + c] * jinv[(3 * s + d) * mesh.n_cells + c];
                  g[e] *= jxw[c];
                }
          }
        for (unsigned int q = 0; q < Q; ++q)
          {
            const unsigned int a = q % nq, b = q / nq % nq, z = q / (nq * nq);
            const double       w     = m.weights[a] * m.weights[b] * m.weights[z];
            double             value = 0, grad[3] = {0, 0, 0};
            for (unsigned int l = 0; l < n; ++l)
              {
                const unsigned int i = l % nd, j = l / nd % nd, k = l / (nd * nd);
                const double       si = m.shape[a * nd + i], sj = m.shape[b * nd + j], sk = m.shape[z * nd + k];
                const double       di = m.shape_derivative[a * nd + i], dj = m.shape_derivative[b * nd + j],
                             dk = m.shape_derivative[z * nd + k];
                value += si * sj * sk * ue[l];
                grad[0] += di * sj * sk * ue[l];
                grad[1] += si * dj * sk * ue[l];
                grad[2] += si * sj * dk * ue[l];
              }
            double G[6], value_scale;
            for (unsigned int e = 0; e < 6; ++e)
              G[e] = affine ? w * g[e] : stored_metric(e, c, q, mesh.h);
            value_scale = affine ? w * jxw[c] : stored_metric(6, c, q, mesh.h);
            value *= value_scale;
            const double tg[3] = {G[0] * grad[0] + G[1] * grad[1] + G[2] * grad[2],
                                  G[1] * grad[0] + G[3] * grad[1] + G[4] * grad[2],
                                  G[2] * grad[0] + G[4] * grad[1] + G[5] * grad[2]};
            for (unsigned int l = 0; l < n; ++l)
              {
                const unsigned int i = l % nd, j = l / nd % nd, k = l / (nd * nd);
                const double       si = m.shape[a * nd + i], sj = m.shape[b * nd + j], sk = m.shape[z * nd + k];
                if (with_values)
                  out[l] += si * sj * sk * value;
                if (with_gradients)
                  out[l] += m.shape_derivative[a * nd + i] * sj * sk * tg[0] +
                            si * m.shape_derivative[b * nd + j] * sk * tg[1] +
                            si * sj * m.shape_derivative[z * nd + k] * tg[2];
              }
          }
        for (unsigned int l = 0; l < n; ++l)
          {
            const unsigned int code = mesh.codes[c * n + l];
            if (code != gpumf::internal::no_dof)
              v[code] += out[l];
          }
      }
    return v;
  }
} // namespace lab

#endif
