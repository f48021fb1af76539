/**
 * @file gpumf/internal/ready/cell_operator.h
 * The cell functor of the ready operators (operators.h: mass, Laplace, Helmholtz; elasticity):
 * the DoF gather and scatter (constraint rows included) around the cell operation of lines.cuh
 * with the quadrature-point operation of quadrature_point.cuh (elasticity_point.cuh) on the GPU
 * in 3D; FEEvaluation's naive path on the host (the reference) and in 2D.
 */
#ifndef gpumf_internal_ready_cell_operator_h
#define gpumf_internal_ready_cell_operator_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/ready/elasticity_point.cuh>
#include <gpumf/internal/ready/lines.cuh>
#include <gpumf/internal/ready/quadrature_point.cuh>
#include <gpumf/matrix_free.h>

#include <cmath>
#include <limits>

namespace gpumf
{
  namespace internal
  {
    /**
     * The cell operation of CoefficientOperator: a cell_loop() functor (apply) and a
     * diagonal_loop() functor (one column of the cell matrix). Coefficients are arrays over
     * all quadrature points (local_q_point_id order); nullptr stands for 1.
     *
     * With @p columns (the ready operators in 3D) a thread owns a column of points; on the
     * GPU the cell operation then runs every 1D contraction in registers (Lines, lines.cuh; with
     * the even-odd forms of the 1D matrices where they are symmetric about the cell's centre),
     * reading the merged geometry @p metric on curved meshes (make() requires it there). Without
     * @p columns, and on the host, it runs FEEvaluation (a thread per point up to n_q = 10
     * without @p columns): the host reference, and the path of user functors the benchmark
     * compares with.
     *
     * With @p elasticity (ElasticityCellOperator: dim components, the gradient term only) the
     * form is linear elasticity's (2 mu eps(u), eps(v)) + (lambda div u, div v) with the Lamé
     * coefficients @p lame instead of a and kappa: the lines path runs Lines::evaluate() for
     * every component, the coupled point operation (ElasticityPoint), then Lines::integrate().
     */
    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components_,
              typename Number,
              bool with_values,
              bool with_gradients,
              bool columns    = (dim == 3),
              bool elasticity = false>
    struct CoefficientCellOperator
    {
      static_assert(!elasticity || (n_components_ == dim && !with_values && with_gradients),
                    "the elasticity form has dim components and the gradient term only");
      using FEEval = FEEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number, columns>;

      static constexpr bool thread_per_column = columns;
      static constexpr int  dimension         = dim;
      using value_type                        = Number;

      static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
      static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;
      static constexpr unsigned int n_q_points   = FEEval::n_q_points;
      static constexpr unsigned int n_components = n_components_;

      static constexpr bool lines = dim == 3 && columns;
      /// The cell operation on the GPU (3D with columns): with the even-odd forms of the 1D
      /// matrices, or with the matrices themselves where these are not symmetric about the cell's
      /// centre (make() decides); its scratch holds the DoF values of all components too (the
      /// diagonal, the constraint rows with colors).
      template <bool folded_form, bool identity = false>
      using Lines = internal::Lines<fe_degree + 1,
                                    n_q_points_1d,
                                    Number,
                                    with_values,
                                    with_gradients,
                                    folded_form,
                                    identity,
                                    n_components_ * n_q_points_1d * n_q_points_1d * n_q_points_1d>;
      /// Shared memory of a cell on the GPU, in Numbers (cell_loop()'s scratch): the lines
      /// design's scratch, its strides chosen against bank conflicts among the cells of a block
      /// (both forms share the layout).
      static constexpr unsigned int device_scratch_per_cell = [] {
        if constexpr (lines)
          {
            static_assert(Lines<true>::cell_stride == Lines<false>::cell_stride, "one layout for both forms");
            return Lines<true>::cell_stride;
          }
        else
          return 0u;
      }();

      /**
       * The blocks an SM must hold (cell_loop()'s __launch_bounds__): in double with gradients at
       * n_q = 8-10 two, which caps the registers at 128 a thread (n_q = 8, 9; 146 at n_q = 10,
       * whose blocks hold 200 threads) where the compiler otherwise takes more (kernel lab,
       * doc/performance.md: BP3 p=7 20.8 -> 31.6 GDoF/s on an H200); else 0, the compiler's
       * choice (a cap below n_q = 8 made it slower; above n_q = 10 it is not measured).
       */
      static constexpr unsigned int device_min_blocks_per_sm =
        lines && !elasticity && with_gradients && sizeof(Number) == 8 && n_q_points_1d >= 8 && n_q_points_1d <= 10 ?
          65536 / (128 * ((CellLayout<3>{n_q_points_1d, true}.max_block_threads() + 31) / 32 * 32)) :
          0;

      const Number *value_coefficient;
      const Number *gradient_coefficient;
      /// Curved meshes, GPU, lines path: the merged geometry (PointData), else nullptr.
      const Number *metric        = nullptr;
      std::size_t   metric_stride = 0;
      /// The elasticity form: lambda and mu (the coefficients above are unused there).
      LameCoefficients<Number> lame{};

      /// Numbers of the 1D matrices the lines path carries (1 where unused).
      static constexpr unsigned int n_table  = lines ? n_q_points_1d * (n_dofs_1d + n_q_points_1d) : 1;
      static constexpr unsigned int n_folded = lines ? folded_tables_size(n_q_points_1d) : 1;
      /// The lines path (3D, GPU): the 1D matrices of the MatrixFree object the functor was made
      /// for (make()), shape values then collocation derivative, and their even-odd forms: kernel
      /// parameters, so that the contractions read them as constant operands.
      Number tables[n_table]  = {};
      Number folded[n_folded] = {};
      /// The lines path: the 1D quadrature weights over that of slice weight_slice (of the largest
      /// weight), w_k / w_s (the weight of point (i, j, k) is that of (i, j, s) times z_weights[k]).
      Number       z_weights[lines ? n_q_points_1d : 1] = {};
      unsigned int weight_slice                         = 0;
      bool         has_tables                           = false;
      /// Whether the 1D matrices are symmetric about the cell's centre (to rounding): the even-odd
      /// forms are exact.
      bool even_odd = false;
      /// Whether make()'s MatrixFree stores its geometry per quadrature point (not affine).
      bool per_point_geometry = false;

      /**
       * The forms of the 1D matrices in the cell operation on the GPU: with gradients and
       * n_q > n_dofs_1d (no collocation: BP3, Helmholtz on p+2 points) two, form 1 the even-odd 1D
       * matrices and form 0 the matrices themselves, each kernel with one code path and its own
       * registers (BP3 +2 to +8 %); else one that branches per launch among its paths
       * (collocation or not, even-odd or not): split, ptxas gave those kernels fewer registers and
       * spills (BP5 -5 to -10 %, BP1 -5 to -11 %; doc/performance.md, "Techniques and what each gained").
       */
      static constexpr unsigned int n_lines_forms = lines && with_gradients && n_dofs_1d != n_q_points_1d ? 2 : 1;
      /**
       * Where the 1D matrices have one form (n_q = p+1, with or without collocation, as BP5; or
       * values only, as BP1), the geometry gives two: form 0 branches per launch on the geometry
       * (the kernel of affine meshes), form 1 is compiled for geometry per point (the merged
       * geometry, PointData). A kernel for both kept the affine cell's Jacobian in registers on
       * curved meshes too: BP5 p=4 74 registers against 64 alone, and BP5 stored 5-7 %, BP1
       * stored 8-22 % faster alone on an H200. A kernel compiled for affine cells alone took more
       * registers (BP5 p=4 78) and ran 5-11 % slower, so the affine form keeps the branch; with
       * two forms of the 1D matrices (BP3) per-point kernels ran -4 to +0.6 %, so there the
       * geometry stays a branch (doc/performance.md, "Techniques and what each gained"). A functor made for a
       * MatrixFree with geometry per point therefore runs on such a MatrixFree only (form 1
       * stops on an affine one), as one made for an affine MatrixFree stops on one per point
       * (no merged geometry).
       */
      static constexpr bool geometry_forms = lines && n_lines_forms == 1;
      /// The forms of the cell operation on the GPU (cell_loop() instantiates its kernel once per
      /// form, FormsOf): those of the 1D matrices or of the geometry (above).
      static constexpr unsigned int n_device_forms = geometry_forms ? 2 : n_lines_forms;
      /// The form of the functor's cells: that of make()'s tables or of its MatrixFree's geometry.
      unsigned int
      device_form() const
      {
        if constexpr (geometry_forms)
          return per_point_geometry ? 1u : 0u;
        else
          return even_odd ? 1u : 0u;
      }
      /// The 1D matrices of device form @p form: 0 or 1 (n_lines_forms == 2), any_form where
      /// chosen per launch by branches.
      static constexpr unsigned int
      lines_form(const unsigned int form)
      {
        return form == any_form || n_lines_forms == 1 ? any_form : form;
      }
      /// The geometry of device form @p form known to its kernel: 1 per point, -1 chosen per
      /// launch.
      static constexpr int
      geometry_form(const unsigned int form)
      {
        return geometry_forms && form == 1 ? 1 : -1;
      }

      /**
       * The functor for cell_loop() and diagonal_loop() on @p mf (its quadrature: the functor
       * carries the 1D matrices), with the coefficients @p a and @p kappa per quadrature point
       * (local_q_point_id order; nullptr: 1) and the merged geometry @p metric (internal::PointData;
       * needed in 3D on the GPU where the geometry is stored per point: the operator's
       * cell_operator() carries it, a functor made here without it throws ExcNotSupported).
       * The functor runs on MatrixFree objects of @p mf's geometry (affine or per point) only:
       * its kernel for geometry per point stops (a device-side trap with a message) on an
       * affine one; make it anew after a reinit() that changes the geometry.
       */
      static CoefficientCellOperator
      make(const MatrixFree<dim, Number> &mf,
           const Number                  *a,
           const Number                  *kappa,
           const Number                  *metric        = nullptr,
           const std::size_t              metric_stride = 0)
      {
        // the ready kernels read quadrature 0's tables, geometry and coefficients
        AssertThrow(mf.n_q_points(0) == internal::ipow(n_q_points_1d, dim),
                    ExcNotSupported("gpumf: a ready operator with n_q_points_1d = " + std::to_string(n_q_points_1d) +
                                    " on a MatrixFree object whose quadrature 0 has " +
                                    std::to_string(mf.n_q_points(0)) +
                                    " points per cell: the ready operators run on quadrature 0 (with several "
                                    "quadratures, list the operator's first)."));
        CoefficientCellOperator op{a, kappa, metric, metric_stride};
        op.per_point_geometry = !mf.has_affine_geometry();
        if constexpr (lines && !elasticity)
          AssertThrow(mf.backend() != Backend::cuda || mf.has_affine_geometry() || metric != nullptr ||
                        mf.n_cells() == 0,
                      ExcNotSupported("gpumf: CellOperator::make() on a mesh with geometry per quadrature point "
                                      "(curved cells or GeometryStorage::per_point) needs the merged geometry "
                                      "(metric) on the GPU: use the operator's cell_operator(), which carries it; "
                                      "CellOperator::make(matrix_free, a, kappa) alone serves affine meshes."));
        if constexpr (lines)
          if (mf.n_colors() > 0)
            {
              const auto data = mf.get_data(0);
              copy(
                Backend::host, op.tables, mf.backend(), data.shape_values, n_q_points_1d * n_dofs_1d * sizeof(Number));
              copy(Backend::host,
                   op.tables + n_q_points_1d * n_dofs_1d,
                   mf.backend(),
                   data.co_shape_gradients,
                   n_q_points_1d * n_q_points_1d * sizeof(Number));
              constexpr unsigned int slab = n_q_points_1d * n_q_points_1d;
              Number                 w[n_q_points_1d * slab];
              copy(Backend::host, w, mf.backend(), data.quadrature_weights, sizeof(w));
              // relative to the point of the largest weight, (i, j, s): a quadrature may weigh a
              // 1D point zero (the first, for instance), which must not divide; the weight of
              // (a, b, k) is w(a, b, s) w(i, j, k) / w(i, j, s)
              unsigned int largest = 0;
              for (unsigned int p = 0; p < n_q_points_1d * slab; ++p)
                if (std::abs(w[p]) > std::abs(w[largest]))
                  largest = p;
              op.weight_slice = largest / slab;
              for (unsigned int k = 0; k < n_q_points_1d; ++k)
                op.z_weights[k] = w[largest] != Number(0) ? w[largest % slab + k * slab] / w[largest] : Number(0);
              // exact to rounding where symmetric (FE_Q, FE_DGQ on symmetric quadratures); FE_DGQHermite,
              // FE_DGQLegendre and quadratures not symmetric take the matrices themselves
              const double violation =
                fold_line_tables(n_dofs_1d, n_q_points_1d, op.tables, op.tables + n_q_points_1d * n_dofs_1d, op.folded);
              op.even_odd   = violation <= 16. * n_q_points_1d * std::numeric_limits<Number>::epsilon();
              op.has_tables = true;
            }
        return op;
      }

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst) const
      {
        apply_cell<any_form>(cell, data, shared, src, dst);
      }

      /// The cell operation of form @p form (n_device_forms; cell_loop()'s kernel of that form).
      template <unsigned int form>
      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst,
                 DeviceForm<form>) const
      {
        apply_cell<form>(cell, data, shared, src, dst);
      }

      /**
       * The cell operation of form @p form that also writes the cell's energy u_c . (A_c u_c)
       * (src's values on the cell, constraints resolved) to @p cell_energy[row_start + cell]:
       * summed at the quadrature points, each thread over its column, then over the cell's
       * threads in a fixed order (bitwise repeatable). The GPU's lines path only (3D with
       * columns); CellEnergyOperator is its functor.
       */
      template <unsigned int form>
      __host__ __device__ void
      apply_with_energy(const unsigned int                            cell,
                        const typename MatrixFree<dim, Number>::Data *data,
                        SharedData<dim, Number>                      *shared,
                        const Number                                 *src,
                        Number                                       *dst,
                        Number                                       *cell_energy) const
      {
        static_assert(lines, "the cell energy is summed by the lines path only (3D with columns)");
#ifdef __CUDA_ARCH__
        apply_cell<form, true>(cell, data, shared, src, dst, cell_energy);
#else
        (void)cell, (void)data, (void)shared, (void)src, (void)dst, (void)cell_energy;
        AssertThrow(false,
                    ExcNotSupported(
                      "gpumf: the cell energy (CoefficientOperator::vmult_and_dot()) is summed in the "
                      "GPU's cell kernel; on the host vmult_and_dot() takes vmult() and the dot product."));
#endif
      }

      /// The form chosen per launch, by branches (the diagonal, functors that wrap this one).
      static constexpr unsigned int any_form = ~0u;

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const unsigned int                            i,
                 Number                                       *diagonal) const
      {
        check_tables();
#ifdef __CUDA_ARCH__
        if constexpr (lines)
          {
            {
              FEEval phi(cell, data, shared);
              phi.set_unit_dof_values(i);
            }
            through_shared(cell, data, shared);
            FEEval phi(cell, data, shared);
            phi.distribute_local_diagonal(i, diagonal);
            return;
          }
#endif
        FEEval phi(cell, data, shared);
        phi.set_unit_dof_values(i);
        apply(phi, cell, data);
        phi.distribute_local_diagonal(i, diagonal);
      }

    private:
      /// The apply of operator(), with the cell operation of form @p form (any_form: chosen per call);
      /// with @p energy (the lines path) also the cell's energy into @p cell_energy (apply_with_energy()).
      template <unsigned int form, bool energy = false>
      __host__ __device__ void
      apply_cell(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst,
                 Number                                       *cell_energy = nullptr) const
      {
        check_tables();
#ifdef __CUDA_ARCH__
        if constexpr (lines)
          {
            // each thread reads and adds its column of DoFs itself, no shared-memory staging; a DoF
            // with a constraint row is read through its row (read_dof) like any other
            const unsigned int tx = threadIdx.x, ty = threadIdx.y;
            const bool         owner = tx < n_dofs_1d && ty < n_dofs_1d;
            // on the fine side of a hanging face the coarse side's DoFs (internal/hanging_nodes.h)
            const unsigned int *codes =
              (data->hanging_local_to_global != nullptr ? data->hanging_local_to_global : data->local_to_global) +
              std::size_t(data->row_start + cell) * n_components * n_local_dofs;
            const unsigned short mask =
              data->hanging_masks != nullptr ? read_only(data->hanging_masks + data->row_start + cell) : 0;
            constexpr unsigned int slab = n_dofs_1d * n_dofs_1d;
            Number                 u[n_components][n_q_points_1d];
            // The codes of the column first, all of them in flight at once, then the values: a
            // load per DoF whose branch waited for its own code (the code's row flag) left each
            // code's latency exposed in turn (ncu: the kernel waited on the codes, half the time
            // of BP5 p=8; doc/performance.md).
            const auto load_codes = [&](const unsigned int c, unsigned int(&code)[n_dofs_1d]) {
#  pragma unroll
              for (unsigned int k = 0; k < n_dofs_1d; ++k)
                code[k] = read_only(codes + c * n_local_dofs + tx + n_dofs_1d * ty + k * slab);
            };
            if (owner)
#  pragma unroll
              for (unsigned int c = 0; c < n_components; ++c)
                {
                  unsigned int code[n_dofs_1d];
                  load_codes(c, code);
                  bool rows = false;
#  pragma unroll
                  for (unsigned int k = 0; k < n_dofs_1d; ++k)
                    rows |= is_constraint_row(code[k]);
                  if (!rows)
#  pragma unroll
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      u[c][k] = code[k] == no_dof ? Number(0) : read_only(src + code[k]);
                  else
#  pragma unroll
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      u[c][k] = read_dof(src, code[k], data->constraint_rows);
                }
            if (data->hanging_masks != nullptr && __syncthreads_or(mask != 0))
              resolve_hanging_nodes<false>(mask, owner, data->hanging_weights, *shared, u);
            Number e = 0; // (energy: this thread's part of the cell's)
            apply_lines<form, energy>(cell, *data, *shared, u, e);
            if (data->hanging_masks != nullptr && __syncthreads_or(mask != 0)) // (after the scratch's last use)
              resolve_hanging_nodes<true>(mask, owner, data->hanging_weights, *shared, u);
            // written: a DoF without a row at once; a row's entries atomically with atomics, and
            // with colors (no atomics: bitwise repeatable) by the cell's first thread, in DoF order,
            // after every thread's direct writes (a row's master can be a DoF of the cell too)
            const bool atomic = !data->use_coloring;
            if (owner && shared->writes)
#  pragma unroll
              for (unsigned int c = 0; c < n_components; ++c)
                {
                  unsigned int code[n_dofs_1d];
                  load_codes(c, code);
                  if (atomic)
#  pragma unroll
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      distribute_dof(code[k],
                                     u[c][k],
                                     data->constraint_rows,
                                     [&](const unsigned int index, const Number value) {
                                       atomicAdd(dst + index, value);
                                     });
                  else
                    {
                      // the column's entries are distinct DoFs, and no other cell of the color
                      // writes them: all old values loaded before any store
                      Number old[n_dofs_1d];
#  pragma unroll
                      for (unsigned int k = 0; k < n_dofs_1d; ++k)
                        old[k] = code[k] == no_dof || is_constraint_row(code[k]) ? Number(0) : dst[code[k]];
#  pragma unroll
                      for (unsigned int k = 0; k < n_dofs_1d; ++k)
                        if (code[k] != no_dof && !is_constraint_row(code[k]))
                          dst[code[k]] = old[k] + u[c][k];
                    }
                }
            if (!atomic && data->has_constraint_rows) // (the same for all cells of the launch)
              {
                constexpr unsigned int nq = n_q_points_1d, P = nq * nq * nq;
                const bool             cell_rows = mask != 0 ?
                                                     (mask & hanging::has_rows) != 0 :
                                                     read_only(data->cell_has_constraint_rows + data->row_start + cell) != 0;
                __syncthreads(); // apply_lines() reads the scratch no more
                if (cell_rows && owner)
#  pragma unroll
                  for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      shared->values[c * P + tx + nq * ty + k * nq * nq] = u[c][k];
                __syncthreads();
                if (cell_rows && tx == 0 && ty == 0)
                  for (unsigned int c = 0; c < n_components; ++c)
                    for (unsigned int k = 0; k < n_dofs_1d; ++k)
                      for (unsigned int j = 0; j < n_dofs_1d; ++j)
                        for (unsigned int i = 0; i < n_dofs_1d; ++i)
                          {
                            const unsigned int code =
                              read_only(codes + c * n_local_dofs + i + n_dofs_1d * j + k * slab);
                            if (is_constraint_row(code))
                              distribute_dof(code,
                                             shared->values[c * P + i + nq * j + k * nq * nq],
                                             data->constraint_rows,
                                             [&](const unsigned int index, const Number value) {
                                               add_value(dst, index, value, false, shared->writes);
                                             });
                          }
              }
            if constexpr (energy)
              sum_cell_energy(e, *shared, cell_energy + data->row_start + cell);
            return;
          }
#endif
        FEEval phi(cell, data, shared);
        phi.read_dof_values(src);
        apply(phi, cell, data);
        phi.distribute_local_to_global(dst);
      }

      /// The lines path needs the tables of make(); the host says so where they are missing.
      __host__ __device__ void
      check_tables() const
      {
        if constexpr (lines)
          {
#ifdef __CUDA_ARCH__
            if (!has_tables)
              __trap();
#else
            AssertThrow(has_tables,
                        ExcNotSupported(
                          "gpumf: the cell functor of a ready operator (CoefficientOperator::CellOperator) "
                          "in 3D must be made by CellOperator::make(matrix_free, a, kappa) or by the "
                          "operator's cell_operator(): it carries the 1D matrices of its MatrixFree "
                          "object."));
#endif
          }
      }

#ifdef __CUDA_ARCH__
      /// The lines cell operation on the DoF values @p u of the thread's column (all components), of
      /// form @p form (n_device_forms; any_form: the form of make()'s tables and @p data).
      template <unsigned int form, bool energy = false>
      __device__ void
      apply_lines(const unsigned int                            cell,
                  const typename MatrixFree<dim, Number>::Data &data,
                  const SharedData<dim, Number>                &shared,
                  Number (&u)[n_components][n_q_points_1d],
                  Number &e) const
      {
        constexpr unsigned int nq = n_q_points_1d;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y;
        if constexpr (elasticity)
          {
            static_assert(!energy, "the cell energy is summed by the coefficient operators only");
            (void)e;
            const ElasticityPoint<nq, Number, geometry_form(form)> point(
              data, cell, lame, z_weights, weight_slice, tx, ty);
            run_lines_of_form<form>(u, data.collocation, shared, point);
          }
        else
          {
            const CoefficientPoint<nq, Number, with_values, with_gradients, geometry_form(form)> point(
              data,
              cell,
              PointData<Number>{metric, metric_stride, value_coefficient, gradient_coefficient},
              z_weights,
              weight_slice,
              tx,
              ty);
            if constexpr (energy)
              run_lines_of_form<form>(u,
                                      data.collocation,
                                      shared,
                                      EnergyPoint<decltype(point), Number, with_values, with_gradients>{point, e});
            else
              {
                (void)e;
                run_lines_of_form<form>(u, data.collocation, shared, point);
              }
          }
      }

      template <unsigned int form, typename Point>
      __device__ void
      run_lines_of_form(Number (&u)[n_components][n_q_points_1d],
                        const bool                     collocation,
                        const SharedData<dim, Number> &shared,
                        const Point                   &point) const
      {
        if constexpr (lines_form(form) != any_form) // (n_q > n_dofs_1d: no collocation)
          run_lines<lines_form(form) == 1>(u, false, shared, point);
        // uniform branches (the same for all cells of a launch)
        else if (even_odd)
          run_lines<true>(u, collocation, shared, point);
        else
          run_lines<false>(u, collocation, shared, point);
      }

      /**
       * Sums the cell's threads' parts @p e of its energy in a fixed order (the threads of x = i
       * for each i, then those sums) and writes the sum to @p out. Called by all threads of the
       * block (barriers); the padding cells write nothing.
       */
      __device__ void
      sum_cell_energy(const Number e, const SharedData<dim, Number> &shared, Number *out) const
      {
        constexpr unsigned int nq = n_q_points_1d;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y;
        __syncthreads(); // the scratch is read no more
        shared.values[tx + nq * ty] = e;
        __syncthreads();
        if (ty == 0)
          {
            Number column = 0;
            for (unsigned int j = 0; j < nq; ++j)
              column += shared.values[tx + nq * j];
            shared.values[tx] = column; // (read by this thread only above)
          }
        __syncthreads();
        if (tx == 0 && ty == 0 && shared.writes)
          {
            Number sum = 0;
            for (unsigned int i = 0; i < nq; ++i)
              sum += shared.values[i];
            *out = sum;
          }
      }

      template <bool folded_form, typename Point>
      __device__ void
      run_lines(Number (&u)[n_components][n_q_points_1d],
                const bool                     collocation,
                const SharedData<dim, Number> &shared,
                const Point                   &point) const
      {
        if constexpr (n_dofs_1d == n_q_points_1d)
          if (collocation)
            {
              run_lines_of<Lines<folded_form, true>>(u, shared, point);
              return;
            }
        run_lines_of<Lines<folded_form>>(u, shared, point);
      }

      template <typename CellOperation, typename Point>
      __device__ void
      run_lines_of(Number (&u)[n_components][n_q_points_1d],
                   const SharedData<dim, Number> &shared,
                   const Point                   &point) const
      {
        if constexpr (elasticity)
          {
            // every component to the points, the coupled point operation, every component back
            // (q: each component's values in turn, unused: the form has no value term)
            constexpr unsigned int nq = n_q_points_1d;
            Number                 q[nq], gx[dim][nq], gy[dim][nq], gz[dim][nq];
#  pragma unroll
            for (unsigned int c = 0; c < dim; ++c)
              CellOperation::evaluate(
                u[c], tables, folded, shared.values, threadIdx.x, threadIdx.y, q, gx[c], gy[c], gz[c]);
#  pragma unroll
            for (unsigned int k = 0; k < nq; ++k)
              {
                Number g[dim][3];
#  pragma unroll
                for (unsigned int c = 0; c < dim; ++c)
                  g[c][0] = gx[c][k], g[c][1] = gy[c][k], g[c][2] = gz[c][k];
                point(k, g);
#  pragma unroll
                for (unsigned int c = 0; c < dim; ++c)
                  gx[c][k] = g[c][0], gy[c][k] = g[c][1], gz[c][k] = g[c][2];
              }
#  pragma unroll
            for (unsigned int c = 0; c < dim; ++c)
              CellOperation::integrate(
                u[c], tables, folded, shared.values, threadIdx.x, threadIdx.y, q, gx[c], gy[c], gz[c]);
          }
        else
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
            CellOperation::apply(u[c], tables, folded, shared.values, threadIdx.x, threadIdx.y, point);
      }

      /**
       * The interpolation of internal/hanging_nodes.h (@p transpose: its transpose) on the DoF
       * values @p u of the thread's column. The sweep along z runs in the thread's registers (its
       * column is a z-line, interpolated as a whole or not at all); the sweeps along x and y go
       * through the cell's shared memory, from one buffer into a second where the scratch holds
       * two (two barriers, else three). Forward x, y, z; transposed z, y, x. Called by all
       * threads of the block; cells without a mask keep their values. The next use of the
       * scratch must begin with a barrier (Lines::apply() does; so does the colored constraint
       * rows' distribution after the transpose).
       */
      template <bool transpose>
      __device__ void
      resolve_hanging_nodes(const unsigned short           mask,
                            const bool                     owner,
                            const Number                  *weights,
                            const SharedData<dim, Number> &shared,
                            Number (&u)[n_components][n_q_points_1d]) const
      {
        constexpr unsigned int nq = n_q_points_1d, nd = n_dofs_1d, P = nq * nq * nq;
        constexpr bool         two_buffers = 2 * n_components * P <= device_scratch_per_cell;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y;
        const bool             active = owner && (mask & hanging::kind_bits) != 0;
        Number                *in     = shared.values;
        Number                *out    = shared.values + (two_buffers ? n_components * P : 0);
        if constexpr (transpose)
          hanging_z_sweep<true>(active, mask, weights, u);
        if (active)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < nd; ++k)
              in[c * P + tx + nq * ty + k * nq * nq] = u[c][k];
        __syncthreads();
        Number result[n_components][nd];
        hanging_xy_sweep<transpose, transpose ? 1 : 0>(active, mask, weights, in, result);
        if constexpr (!two_buffers)
          __syncthreads();
        if (active)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < nd; ++k)
              out[c * P + tx + nq * ty + k * nq * nq] = result[c][k];
        __syncthreads();
        hanging_xy_sweep<transpose, transpose ? 0 : 1>(active, mask, weights, out, result);
        if (active)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < nd; ++k)
              u[c][k] = result[c][k];
        if constexpr (!transpose)
          hanging_z_sweep<false>(active, mask, weights, u);
      }

      /// The sweep along z of resolve_hanging_nodes(), in the thread's registers.
      template <bool transpose>
      __device__ void
      hanging_z_sweep(const bool           active,
                      const unsigned short mask,
                      const Number        *weights,
                      Number (&u)[n_components][n_q_points_1d]) const
      {
        constexpr unsigned int nd   = n_dofs_1d;
        const unsigned int     i[3] = {threadIdx.x, threadIdx.y, 0};
        if (!active || !hanging_in_sweep<3>(mask, 2, i, nd))
          return;
        const Number *W = weights + (mask_bit(mask, 2) ? 0 : nd * nd);
#  pragma unroll
        for (unsigned int c = 0; c < n_components; ++c)
          {
            Number v[nd];
#  pragma unroll
            for (unsigned int m = 0; m < nd; ++m)
              v[m] = u[c][m];
#  pragma unroll
            for (unsigned int k = 0; k < nd; ++k)
              u[c][k] = hanging_line_value<transpose>(W, v, k, nd, 1);
          }
      }

      /// The sweep along @p d (x or y) of resolve_hanging_nodes(): @p result the thread's column
      /// after it, from the cell's DoF values @p values in shared memory.
      template <bool transpose, unsigned int d>
      __device__ void
      hanging_xy_sweep(const bool           active,
                       const unsigned short mask,
                       const Number        *weights,
                       const Number        *values,
                       Number (&result)[n_components][n_dofs_1d]) const
      {
        constexpr unsigned int nq = n_q_points_1d, nd = n_dofs_1d, P = nq * nq * nq;
        constexpr unsigned int d_stride = d == 0 ? 1 : nq;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y, i_d = d == 0 ? tx : ty;
        if (!active)
          return;
        const Number *W = weights + (mask_bit(mask, d) ? 0 : nd * nd);
#  pragma unroll
        for (unsigned int k = 0; k < nd; ++k)
          {
            const unsigned int i[3] = {tx, ty, k};
            const bool         in   = hanging_in_sweep<3>(mask, d, i, nd);
#  pragma unroll
            for (unsigned int c = 0; c < n_components; ++c)
              {
                const unsigned int p = c * P + tx + nq * ty + k * nq * nq;
                result[c][k] =
                  in ? hanging_line_value<transpose>(W, values + p - i_d * d_stride, i_d, nd, d_stride) : values[p];
              }
          }
      }

      /// The lines cell operation on the DoF values in shared->values, in place.
      __device__ void
      through_shared(const unsigned int                            cell,
                     const typename MatrixFree<dim, Number>::Data *data,
                     SharedData<dim, Number>                      *shared) const
      {
        constexpr unsigned int nq = n_q_points_1d, P = nq * nq * nq;
        const unsigned int     tx = threadIdx.x, ty = threadIdx.y;
        const bool             owner = tx < n_dofs_1d && ty < n_dofs_1d;
        Number                 u[n_components][nq];
        if (owner)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < n_dofs_1d; ++k)
              u[c][k] = shared->values[c * P + tx + nq * ty + k * nq * nq];
        Number e = 0;
        apply_lines<any_form>(cell, *data, *shared, u, e); // (it uses all of the scratch)
        __syncthreads();                                   // the scratch is read no more
        if (owner)
#  pragma unroll
          for (unsigned int c = 0; c < n_components; ++c)
#  pragma unroll
            for (unsigned int k = 0; k < n_dofs_1d; ++k)
              shared->values[c * P + tx + nq * ty + k * nq * nq] = u[c][k];
        __syncthreads(); // the distribution may read every thread's column
      }
#endif

      /// FEEvaluation's cell operation: the host reference, 2D, and the thread-per-point functor.
      __host__ __device__ void
      apply(FEEval &phi, const unsigned int cell, const typename MatrixFree<dim, Number>::Data *data) const
      {
        phi.evaluate(with_values, with_gradients);
        const unsigned int first = (data->row_start + cell) * n_q_points;
        if constexpr (elasticity)
          {
            // sigma = 2 mu eps + lambda tr(eps) I
            phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
              auto         eps    = p->get_symmetric_gradient(q);
              const Number mu     = lame.mu_at(first + q);
              const Number lambda = lame.lambda_at(first + q);
              Number       trace  = 0;
              for (unsigned int d = 0; d < dim; ++d)
                trace += eps.access_raw_entry(d);
              for (unsigned int k = 0; k < eps.n_independent_components; ++k)
                eps.access_raw_entry(k) *= 2 * mu;
              for (unsigned int d = 0; d < dim; ++d)
                eps.access_raw_entry(d) += lambda * trace;
              p->submit_symmetric_gradient(eps, q);
            });
            phi.integrate(with_values, with_gradients);
            return;
          }
        phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
          if constexpr (with_values)
            {
              auto value = p->get_value(q);
              if (value_coefficient != nullptr)
                value *= value_coefficient[first + q];
              p->submit_value(value, q);
            }
          if constexpr (with_gradients)
            {
              auto gradient = p->get_gradient(q);
              if (gradient_coefficient != nullptr)
                gradient *= gradient_coefficient[first + q];
              p->submit_gradient(gradient, q);
            }
        });
        phi.integrate(with_values, with_gradients);
      }
    };

    /// The cell functor of ElasticityOperator: the elasticity form of CoefficientCellOperator
    /// (make() it with null coefficients, then set its Lamé coefficients, lame).
    template <int dim, int fe_degree, int n_q_points_1d, typename Number>
    using ElasticityCellOperator =
      CoefficientCellOperator<dim, fe_degree, n_q_points_1d, dim, Number, false, true, dim == 3, true>;

    /**
     * The cell functor of CoefficientOperator::vmult_and_dot(): the cell operation of
     * @p CellOperator (a CoefficientCellOperator on the GPU's lines path) that also writes each
     * cell's energy to @p cell_energy (one number a cell of the MatrixFree object, by
     * row_start + cell). Its own type, so that cell_loop() instantiates its kernels only where
     * vmult_and_dot() is used.
     */
    template <typename CellOperator>
    struct CellEnergyOperator : CellOperator
    {
      using Number = typename CellOperator::value_type;

      Number *cell_energy = nullptr;

      static constexpr int dim = CellOperator::dimension;

      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst) const
      {
        this->template apply_with_energy<CellOperator::any_form>(cell, data, shared, src, dst, cell_energy);
      }

      template <unsigned int form>
      __host__ __device__ void
      operator()(const unsigned int                            cell,
                 const typename MatrixFree<dim, Number>::Data *data,
                 SharedData<dim, Number>                      *shared,
                 const Number                                 *src,
                 Number                                       *dst,
                 DeviceForm<form>) const
      {
        this->template apply_with_energy<form>(cell, data, shared, src, dst, cell_energy);
      }
    };
  } // namespace internal
} // namespace gpumf

#endif
