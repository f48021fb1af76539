// The kernel lab's runs of one degree (GPUMF_LAB_DEGREE, set by the build: one object per
// degree). See lab.h.
#include "lab.h"
#include "lab_designs.cuh"
#include "lab_dmma.cuh"
#include "lab_problem.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#ifndef GPUMF_LAB_DEGREE
#  error "GPUMF_LAB_DEGREE must be defined (the FE_Q degree of this object)"
#endif

namespace lab
{
  namespace
  {
    void
    check(const cudaError_t e, const char *what)
    {
      if (e != cudaSuccess)
        throw std::runtime_error(std::string("kernel lab: ") + what + ": " + cudaGetErrorString(e));
    }

    template <typename T>
    struct DeviceArray
    {
      T          *data = nullptr;
      std::size_t size = 0;

      explicit DeviceArray(const std::size_t n)
        : size(n)
      {
        check(cudaMalloc(&data, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc");
      }
      template <typename S>
      explicit DeviceArray(const std::vector<S> &host)
        : DeviceArray(host.size())
      {
        std::vector<T> converted(host.begin(), host.end());
        check(cudaMemcpy(data, converted.data(), size * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
      }
      ~DeviceArray()
      {
        cudaFree(data);
      }
      std::vector<T>
      download() const
      {
        std::vector<T> host(size);
        check(cudaMemcpy(host.data(), data, size * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
        return host;
      }
      DeviceArray(const DeviceArray &) = delete;
      DeviceArray &
      operator=(const DeviceArray &) = delete;
    };

    /// The stored geometry (stored_metric()) of all points: M arrays of n_cells Q entries.
    template <typename Number>
    __global__ void
    fill_metric(Number *metric, const std::size_t n_cells, const unsigned int Q, const unsigned int M, const double h)
    {
      const std::size_t stride = n_cells * Q;
      for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < stride;
           i += std::size_t(gridDim.x) * blockDim.x)
        for (unsigned int e = 0; e < M; ++e)
          metric[e * stride + i] = Number(stored_metric(M == 1 ? 6 : e, i / Q, i % Q, h));
    }

    /// One launch configuration: cells per block, blocks, dynamic shared memory.
    struct Plan
    {
      unsigned int cells = 1, blocks_per_sm = 0, grid = 0;
      std::size_t  shared      = 0;
      unsigned int cell_stride = 0; // numbers of a cell's shared scratch
      int          carveout    = 0; // the shared-memory carve-out the kernel runs with (percent)
    };

    /// The block size that keeps the most cells resident on an SM, counted with the largest
    /// shared-memory carve-out (the library's rule, but on a tie the smaller: the lab's figures
    /// were taken so), or @p forced cells per block; the kernel then runs with @p carveout
    /// (percent; -1 the driver's default) or, with -2, the least carve-out that holds those blocks
    /// (the library's rule, cell_loop.h).
    template <typename Kernel>
    Plan
    plan(Kernel                                          kernel,
         const unsigned int                              threads_per_cell,
         const unsigned int                              cell_stride,
         const std::function<std::size_t(unsigned int)> &shared,
         const unsigned int                              forced,
         const int                                       carveout)
    {
      int device = 0, optin = 0;
      check(cudaGetDevice(&device), "cudaGetDevice");
      check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "attribute");
      check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin), "cudaFuncSetAttribute");
      check(cudaFuncSetAttribute(kernel,
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared),
            "cudaFuncSetAttribute");
      Plan               best;
      const unsigned int most = std::max(1u, 256 / threads_per_cell);
      for (unsigned int g = forced ? forced : 1; g <= (forced ? forced : most); ++g)
        {
          if (shared(g) > std::size_t(optin))
            break;
          int blocks = 0;
          check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, g * threads_per_cell, shared(g)),
                "occupancy");
          if (blocks * g > best.blocks_per_sm * best.cells || (forced && g == forced))
            best = Plan{g, unsigned(blocks), 0, shared(g), cell_stride};
        }
      if (best.blocks_per_sm == 0)
        throw std::runtime_error("kernel lab: no block of this design fits an SM (" +
                                 std::to_string(shared(best.cells)) + " bytes of shared memory a block, " +
                                 std::to_string(optin) + " available)");
      const auto blocks_at = [&](const int percent) {
        check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent),
              "cudaFuncSetAttribute");
        int blocks = 0;
        check(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, best.cells * threads_per_cell, best.shared),
          "occupancy");
        return unsigned(blocks);
      };
      best.carveout = carveout;
      if (carveout == -2)
        {
          int                per_sm = 0, reserved = 0;
          cudaFuncAttributes attributes{};
          check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), "attribute");
          check(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), "attribute");
          check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
          best.carveout = gpumf::internal::least_carveout_percent(best.blocks_per_sm,
                                                                  best.shared + attributes.sharedSizeBytes + reserved,
                                                                  std::size_t(per_sm),
                                                                  blocks_at);
        }
      // the blocks at the carve-out the kernel runs with (a percent given may hold fewer)
      best.blocks_per_sm = blocks_at(best.carveout);
      if (best.blocks_per_sm == 0)
        throw std::runtime_error("kernel lab: no block of this design fits an SM at the carve-out " +
                                 std::to_string(best.carveout) + " %");
      return best;
    }

    template <int p, int nq, typename Number, bool with_values, bool with_gradients>
    struct Form
    {
      static constexpr int nd = p + 1;
      using L                 = Layout<nd, nq, Number, with_values, with_gradients>;

      /// One design: its kernel, its plan and its launch.
      struct Design
      {
        std::string                                       name;
        Variant                                           variant;
        const void                                       *kernel;
        std::function<Plan(const Options &, bool affine)> make_plan;
        std::function<void(const Plan &,
                           const Data<Number> &,
                           const Tables<nd, nq, Number> &,
                           const Number *,
                           Number *,
                           unsigned int)>
                     launch;
        unsigned int threads_per_cell = nq * nq;
      };

      template <bool compressed, bool rows = false, bool lines = false, int min_blocks = 0, bool even_odd = false>
      static Design
      tiled(const std::string &name)
      {
        auto kernel =
          tiled_kernel<nd, nq, Number, with_values, with_gradients, compressed, rows, lines, min_blocks, even_odd>;
        return Design{
          name,
          Variant{compressed, false},
          reinterpret_cast<const void *>(kernel),
          [=](const Options &o, bool) {
            // the kernel's own cell operation decides the scratch
            const unsigned int stride =
              lines ?
                gpumf::internal::Lines<nd, nq, Number, with_values, with_gradients, even_odd, nd == nq>::cell_stride :
                L::cell_stride(o.scratch_pad);
            return plan(
              kernel,
              nq * nq,
              stride,
              [=](unsigned int g) { return L::fixed(g, stride); },
              o.cells_per_block,
              o.carveout);
          },
          [=](const Plan                   &pl,
              const Data<Number>           &d,
              const Tables<nd, nq, Number> &t,
              const Number                 *src,
              Number                       *dst,
              unsigned int) {
            const unsigned int blocks = (d.n_cells + pl.cells - 1) / pl.cells;
            kernel<<<blocks, dim3(nq, nq, pl.cells), pl.shared>>>(d, t, src, dst);
          }};
      }

      template <bool compressed, bool prefetch_metric>
      static Design
      async(const std::string &name)
      {
        auto          kernel = async_kernel<nd, nq, Number, with_values, with_gradients, compressed, prefetch_metric>;
        const Variant v{compressed, prefetch_metric};
        return Design{name,
                      v,
                      reinterpret_cast<const void *>(kernel),
                      [=](const Options &o, bool affine) {
                        return plan(
                          kernel,
                          nq * nq,
                          L::cell_stride(o.scratch_pad),
                          [=](unsigned int g) {
                            return L::fixed(g, L::cell_stride(o.scratch_pad)) + L::staged(g, v, affine);
                          },
                          o.cells_per_block,
                          o.carveout);
                      },
                      [=](const Plan                   &pl,
                          const Data<Number>           &d,
                          const Tables<nd, nq, Number> &t,
                          const Number                 *src,
                          Number                       *dst,
                          unsigned int                  sms) {
                        const unsigned int groups = (d.n_cells + pl.cells - 1) / pl.cells;
                        const unsigned int grid   = std::min(groups, std::max(1u, pl.blocks_per_sm) * sms);
                        kernel<<<grid, dim3(nq, nq, pl.cells), pl.shared>>>(d, t, src, dst, groups);
                      }};
      }

      /// The blocks of 256 threads an SM must hold in the lines designs: registers capped at 128
      /// (2) where the compiler takes more, double with gradients from n_q = 8 (lines-b0 and
      /// lines-b2 in the lab); else the compiler's choice (0).
      static constexpr int lines_blocks = with_gradients && nq >= 8 && sizeof(Number) == 8 ? 2 : 0;

      /// The design dmma (lab_dmma.cuh): a warp a cell, BP5 at n = 8 in double only.
      template <int min_blocks = 0>
      static Design
      dmma(const std::string &name)
      {
        auto kernel = dmma_kernel<Number, with_values, with_gradients, min_blocks>;
        return Design{name,
                      Variant{},
                      reinterpret_cast<const void *>(kernel),
                      [=](const Options &o, bool) {
                        const unsigned int stride = 2 * nq * nq * nq; // the values, the y gradients
                        return plan(
                          kernel,
                          32,
                          stride,
                          [=](unsigned int g) { return std::size_t(g) * stride * sizeof(Number); },
                          min_blocks > 0 ? 4 : o.cells_per_block,
                          o.carveout);
                      },
                      [=](const Plan                   &pl,
                          const Data<Number>           &d,
                          const Tables<nd, nq, Number> &t,
                          const Number                 *src,
                          Number                       *dst,
                          unsigned int) {
                        const unsigned int blocks = (d.n_cells + pl.cells - 1) / pl.cells;
                        kernel<<<blocks, dim3(32, pl.cells), pl.shared>>>(d, t, src, dst);
                      },
                      32};
      }

      static std::vector<Design>
      designs()
      {
        std::vector<Design> all = designs_all_forms();
        if constexpr (nd == 8 && nq == 8 && with_gradients && !with_values && std::is_same_v<Number, double>)
          {
            all.push_back(dmma("dmma"));
            all.push_back(dmma<4>("dmma-b4"));
          }
        return all;
      }

      static std::vector<Design>
      designs_all_forms()
      {
        return {tiled<false>("tiled"),
                tiled<true>("tiled-compressed"),
                tiled<false, true>("tiled-rows"),
                tiled<false, false, true, lines_blocks>("lines"),
                tiled<false, false, true, lines_blocks, true>("lines-eo"),
                tiled<false, false, true>("lines-b0"),
                tiled<false, false, true, 2>("lines-b2"),
                tiled<false, false, true, 3>("lines-b3"),
                tiled<true, false, true>("lines-compressed"),
                async<false, false>("async"),
                async<true, false>("async-compressed"),
                async<false, true>("async-metric"),
                async<true, true>("async-compressed-metric")};
      }

      /// The arrays of one mesh on the device.
      struct Problem
      {
        Mesh                                mesh;
        gpumf::internal::CompressedDoFCodes compressed;
        std::vector<double>                 jinv, jxw;
        DeviceArray<unsigned int>           codes, bases, offsets;
        DeviceArray<Number>                 jinv_d, jxw_d, metric, shape, derivative;
        Data<Number>                        data;

        Problem(const unsigned int n,
                const unsigned int ny,
                const unsigned int nz,
                const Matrices1D  &m,
                const bool         affine,
                const int          scratch_pad)
          : mesh(n, ny, nz, p)
          , compressed(gpumf::internal::compress_dof_codes(mesh.codes.data(),
                                                           mesh.n_cells,
                                                           p,
                                                           no_dof,
                                                           [](unsigned int c) {
                                                             return !gpumf::internal::is_constraint_row(c);
                                                           }))
          , jinv(affine_jinv(mesh))
          , jxw(mesh.n_cells, mesh.h * mesh.h * mesh.h)
          , codes(mesh.codes)
          , bases(compressed.bases)
          , offsets(compressed.offsets)
          , jinv_d(jinv)
          , jxw_d(jxw)
          , metric(affine ? 0 : L::M * mesh.n_cells * nq * nq * nq)
          , shape(m.shape)
          , derivative(m.collocation_derivative)
        {
          if (!affine)
            {
              fill_metric<<<1024, 256>>>(metric.data, mesh.n_cells, nq * nq * nq, L::M, mesh.h);
              check(cudaGetLastError(), "fill_metric");
            }
          data.n_cells      = mesh.n_cells;
          data.codes        = codes.data;
          data.bases        = bases.data;
          data.offsets      = offsets.data;
          data.affine       = affine;
          data.inv_jacobian = jinv_d.data;
          data.JxW          = jxw_d.data;
          data.metric       = metric.data;
          data.stride       = mesh.n_cells * nq * nq * nq;
          data.shape_values = shape.data;
          data.derivative   = derivative.data;
          data.cell_stride  = L::cell_stride(scratch_pad);
          // the compressed designs decode every cell from its bases
          if (compressed.n_compressed != mesh.n_cells)
            throw std::runtime_error("kernel lab: a cell of the box does not follow the compressed codes");
        }

        /// J^{-1} of each cell: 1/h on the diagonal and small off-diagonal entries (all read).
        static std::vector<double>
        affine_jinv(const Mesh &mesh)
        {
          std::vector<double> j(9 * mesh.n_cells);
          for (std::size_t c = 0; c < mesh.n_cells; ++c)
            for (unsigned int r = 0; r < 3; ++r)
              for (unsigned int d = 0; d < 3; ++d)
                j[(3 * r + d) * mesh.n_cells + c] = (r == d ? 1. : 0.02 * (1 + (c + r + d) % 3)) / mesh.h;
          return j;
        }
      };

      static void
      run(const Options &o, const std::string &form, std::vector<Row> &rows)
      {
        const bool             lobatto = nd == nq;
        const Matrices1D       m(p, nq, lobatto);
        Tables<nd, nq, Number> tables;
        for (unsigned int i = 0; i < nq * nd; ++i)
          tables.table[i] = Number(m.shape[i]);
        for (unsigned int i = 0; i < nq * nq; ++i)
          tables.table[nq * nd + i] = Number(m.collocation_derivative[i]);
        for (unsigned int i = 0; i < nq; ++i)
          tables.weights[i] = Number(m.weights[i]);
        {
          // the even-odd forms of S, S^T, D, D^T (the points and nodes are symmetric about the
          // cell's centre)
          const double v =
            gpumf::internal::fold_line_tables(nd, nq, tables.table, tables.table + nq * nd, tables.folded);
          if (v > 1e-10)
            throw std::runtime_error("kernel lab: the 1D matrices are not symmetric about the cell's centre (" +
                                     std::to_string(v) + "): no even-odd form");
        }
        int device = 0, sms = 0, max_threads = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "attribute");
        check(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device), "attribute");
        const std::string number = sizeof(Number) == 8 ? "double" : "float";
        const double      eps    = std::numeric_limits<Number>::epsilon();

        for (const std::string &geometry : o.geometry)
          {
            const bool affine = geometry == "affine";
            // the check on a small box, every design against the reference
            std::vector<std::pair<double, bool>> checked;
            const std::vector<Design>            all = designs();
            std::vector<const Design *>          chosen;
            for (const auto &name : o.designs)
              {
                auto it = std::find_if(all.begin(), all.end(), [&](const Design &d) { return d.name == name; });
                if (it == all.end())
                  throw std::runtime_error(
                    "kernel lab: unknown design '" + name +
                    "' (tiled, tiled-compressed, tiled-rows, lines, lines-eo, lines-b0, lines-b2, lines-b3, lines-compressed, "
                    "async, async-compressed, async-metric, async-compressed-metric; dmma, dmma-b4: BP5 at p = 7 in double)");
                chosen.push_back(&*it);
              }
            if (o.check)
              {
                Problem                                small(3, 4, 5, m, affine, o.scratch_pad);
                std::mt19937                           rng(42);
                std::uniform_real_distribution<double> dist(-1, 1);
                std::vector<double>                    u(small.mesh.n_dofs);
                for (auto &x : u)
                  x = Number(dist(rng));
                const std::vector<double> ref =
                  reference(small.mesh, m, with_values, with_gradients, affine, small.jinv, small.jxw, u);
                double largest = 0;
                for (const double x : ref)
                  largest = std::max(largest, std::abs(x));
                DeviceArray<Number> src(u), dst(u.size());
                for (const Design *d : chosen)
                  {
                    const Plan pl = d->make_plan(o, affine);
                    check(cudaMemset(dst.data, 0, dst.size * sizeof(Number)), "cudaMemset");
                    d->launch(pl, small.data, tables, src.data, dst.data, sms);
                    check(cudaDeviceSynchronize(), d->name.c_str());
                    const std::vector<Number> v     = dst.download();
                    double                    error = 0;
                    for (std::size_t i = 0; i < v.size(); ++i)
                      error = std::isfinite(double(v[i])) ? std::max(error, std::abs(double(v[i]) - ref[i])) :
                                                            std::numeric_limits<double>::infinity();
                    error /= largest;
                    checked.emplace_back(error, error <= 1000 * eps);
                  }
              }

            // the timing on the large box
            const unsigned int  n = std::max(1., std::round((std::cbrt(o.dofs) - 1) / p));
            Problem             big(n, n, n, m, affine, o.scratch_pad);
            std::vector<Number> u(big.mesh.n_dofs);
            for (std::size_t i = 0; i < u.size(); ++i)
              u[i] = Number(1 + (i % 7) * 0.1);
            DeviceArray<Number> src(u), dst(u.size());
            for (std::size_t k = 0; k < chosen.size(); ++k)
              {
                const Design *d  = chosen[k];
                const Plan    pl = d->make_plan(o, affine);
                Row           row;
                row.design          = d->name;
                row.form            = form;
                row.geometry        = geometry;
                row.number          = number;
                row.degree          = p;
                row.n_q             = nq;
                row.cells_per_block = pl.cells;
                row.shared_bytes    = pl.shared;
                row.cell_stride     = pl.cell_stride;
                row.carveout        = pl.carveout;
                cudaFuncAttributes attributes;
                check(cudaFuncGetAttributes(&attributes, d->kernel), "cudaFuncGetAttributes");
                row.registers   = attributes.numRegs;
                row.spill_bytes = attributes.localSizeBytes;
                row.occupancy =
                  double(pl.blocks_per_sm * ((pl.cells * d->threads_per_cell + 31) / 32 * 32)) / max_threads;
                row.n_dofs                    = big.mesh.n_dofs;
                row.n_cells                   = big.mesh.n_cells;
                row.compressed_fraction       = double(big.compressed.n_compressed) / big.mesh.n_cells;
                const double geometry_numbers = affine ? (with_gradients ? 10. : 1.) : double(L::M) * nq * nq * nq;
                row.model_bytes =
                  2. * sizeof(Number) * row.n_dofs + row.n_cells * (4. * L::n + sizeof(Number) * geometry_numbers);
                row.design_bytes = row.model_bytes - (d->variant.compressed ? row.n_cells * 4. * (L::n - 27) : 0.);
                if (o.check)
                  {
                    row.error  = checked[k].first;
                    row.passed = checked[k].second;
                  }
                std::vector<float> times;
                cudaEvent_t        start, stop;
                check(cudaEventCreate(&start), "event");
                check(cudaEventCreate(&stop), "event");
                for (unsigned int r = 0; r < o.repeat + 2; ++r)
                  {
                    check(cudaEventRecord(start), "event");
                    check(cudaMemsetAsync(dst.data, 0, dst.size * sizeof(Number)), "cudaMemsetAsync");
                    d->launch(pl, big.data, tables, src.data, dst.data, sms);
                    check(cudaEventRecord(stop), "event");
                    check(cudaEventSynchronize(stop), d->name.c_str());
                    float ms = 0;
                    check(cudaEventElapsedTime(&ms, start, stop), "event");
                    if (r >= 2)
                      times.push_back(ms);
                  }
                cudaEventDestroy(start);
                cudaEventDestroy(stop);
                std::sort(times.begin(), times.end());
                row.seconds = times[times.size() / 2] * 1e-3;
                rows.push_back(row);
              }
          }
      }
    };

    template <int p, typename Number>
    void
    run_number(const Options &o, std::vector<Row> &rows)
    {
      for (const std::string &form : o.forms)
        if (form == "bp5")
          Form<p, p + 1, Number, false, true>::run(o, form, rows);
        else if (form == "bp3")
          Form<p, p + 2, Number, false, true>::run(o, form, rows);
        else if (form == "bp1")
          Form<p, p + 2, Number, true, false>::run(o, form, rows);
        else
          throw std::runtime_error("kernel lab: unknown form '" + form + "' (bp1, bp3, bp5)");
    }

    void
    run_degree(const Options &o, std::vector<Row> &rows)
    {
      for (const std::string &number : o.numbers)
        if (number == "double")
          run_number<GPUMF_LAB_DEGREE, double>(o, rows);
#ifdef GPUMF_LAB_FLOAT
        else if (number == "float")
          run_number<GPUMF_LAB_DEGREE, float>(o, rows);
#endif
        else
          throw std::runtime_error("kernel lab: number type '" + number +
                                   "' not compiled in (double; float with GPUMF_LAB_FLOAT)");
    }

    const bool registered = (registry()[GPUMF_LAB_DEGREE] = &run_degree, true);
  } // namespace
} // namespace lab
