/**
 * @file gpumf/vector_tools.h
 * A program's O(N) work with functions on the GPU (or the host reference backend), on a
 * gpumf::MatrixFree object with the functions as device functors, so that it runs where the
 * solution lives instead of on a host copy on one rank:
 * - integrate_difference(): norms of the error (deal.II's VectorTools::integrate_difference()
 *   and compute_global_error() in one call), per cell and global;
 * - create_right_hand_side(): the load vector of a function (deal.II's
 *   VectorTools::create_right_hand_side() with constraints);
 * - distribute_constraints(): AffineConstraints::distribute() (hanging nodes, Dirichlet values).
 * And interpolate(), deal.II's interpolation of a host Function into a gpumf::Vector (on the
 * host).
 *
 * @code
 *   struct Exact // value and gradient on host and device
 *   {
 *     __host__ __device__ double value(const dealii::Point<3, double> &p) const { return p[0] * p[1]; }
 *     __host__ __device__ dealii::Tensor<1, 3, double> gradient(const dealii::Point<3, double> &p) const
 *     { dealii::Tensor<1, 3, double> g; g[0] = p[1]; g[1] = p[0]; return g; }
 *   };
 *   dealii::Vector<float> per_cell;
 *   const double l2 = gpumf::VectorTools::integrate_difference<fe_degree, fe_degree + 2>(
 *     matrix_free, solution, Exact(), gpumf::VectorTools::L2_norm, &per_cell);
 * @endcode
 *
 * The quadrature is the MatrixFree object's (deal.II takes one per call: build the object with
 * the quadrature the norm should use). The solution is read as it is (read_dof_values_plain():
 * constrained DoFs with the values the vector holds, as deal.II's integrate_difference() reads
 * them); call AffineConstraints::distribute() on it first where deal.II's program does.
 * The functions with a device functor must be compiled by nvcc for the CUDA backend (a .cu
 * file), as a cell functor; like MatrixFree's loops they take the compiler as a defaulted last
 * template argument (internal::ThisCompiler), so that a host-compiled instantiation never
 * stands in for nvcc's.
 */
#ifndef gpumf_vector_tools_h
#define gpumf_vector_tools_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/fe_face_evaluation.h>
#include <gpumf/internal/ready/boundary_face.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/function.h>
#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>

#include <deal.II/fe/component_mask.h>

#include <deal.II/lac/vector.h>

#include <cmath>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace gpumf
{
  namespace VectorTools
  {
    /// The norms integrate_difference() computes (deal.II's VectorTools::NormType of the same names).
    enum NormType
    {
      /// (sum_K int_K |u_h - u|^2)^(1/2)
      L2_norm,
      /// (sum_K int_K |grad (u_h - u)|^2)^(1/2)
      H1_seminorm,
      /// (L2_norm^2 + H1_seminorm^2)^(1/2)
      H1_norm,
      /// max |u_h - u| over the quadrature points (as deal.II's Linfty_norm with the same quadrature)
      Linfty_norm
    };

    /// The zero function (deal.II's Functions::ZeroFunction): integrate_difference() against it
    /// gives the norm of the finite element function itself.
    template <int dim, typename Number = double>
    struct ZeroFunction
    {
      __host__ __device__ Number
      value(const dealii::Point<dim, Number> &, const unsigned int = 0) const
      {
        return Number(0);
      }

      __host__ __device__ dealii::Tensor<1, dim, Number>
                          gradient(const dealii::Point<dim, Number> &, const unsigned int = 0) const
      {
        return dealii::Tensor<1, dim, Number>();
      }
    };

    namespace internal
    {
      /// Whether @p F has `value(p, component)` (else `value(p)`).
      template <typename F, int dim, typename Number, typename = void>
      struct ValueWithComponent : std::false_type
      {};
      template <typename F, int dim, typename Number>
      struct ValueWithComponent<
        F,
        dim,
        Number,
        std::void_t<decltype(std::declval<const F &>().value(std::declval<const dealii::Point<dim, Number> &>(), 0u))>>
        : std::true_type
      {};

      /// Whether @p F has `gradient(p, component)` (else `gradient(p)`).
      template <typename F, int dim, typename Number, typename = void>
      struct GradientWithComponent : std::false_type
      {};
      template <typename F, int dim, typename Number>
      struct GradientWithComponent<
        F,
        dim,
        Number,
        std::void_t<decltype(std::declval<const F &>().gradient(std::declval<const dealii::Point<dim, Number> &>(),
                                                                0u))>> : std::true_type
      {};

      /// Whether @p F has a gradient (needed for the H1 norms).
      template <typename F, int dim, typename Number, typename = void>
      struct HasGradient : GradientWithComponent<F, dim, Number>
      {};
      template <typename F, int dim, typename Number>
      struct HasGradient<
        F,
        dim,
        Number,
        std::void_t<decltype(std::declval<const F &>().gradient(std::declval<const dealii::Point<dim, Number> &>()))>>
        : std::true_type
      {};

      /// Component @p c of @p function's value at @p p: `value(p, c)`, or `value(p)` for one component.
      template <typename Function, int dim, typename Number>
      __host__ __device__ Number
      value_of(const Function &function, const dealii::Point<dim, Number> &p, const unsigned int c)
      {
        if constexpr (ValueWithComponent<Function, dim, Number>::value)
          return function.value(p, c);
        else
          {
            (void)c;
            return function.value(p);
          }
      }

      /// Component @p c of @p function's gradient at @p p: `gradient(p, c)`, or `gradient(p)`.
      template <typename Function, int dim, typename Number>
      __host__ __device__ dealii::Tensor<1, dim, Number>
      gradient_of(const Function &function, const dealii::Point<dim, Number> &p, const unsigned int c)
      {
        if constexpr (GradientWithComponent<Function, dim, Number>::value)
          return function.gradient(p, c);
        else
          {
            (void)c;
            return function.gradient(p);
          }
      }

      /**
       * A deal.II Function (host code, virtual) evaluated on the host at every quadrature point
       * of a MatrixFree object, for the device: values [point * n_components + c] and, where the
       * H1 norms need them, gradients [(point * n_components + c) * dim + d], point in the
       * order of local_q_point_id().
       */
      template <int dim, typename Number>
      struct TabulatedFunction
      {
        const Number *values       = nullptr;
        const Number *gradients    = nullptr;
        unsigned int  n_components = 1;
      };

      template <typename F>
      struct IsTabulated : std::false_type
      {};
      template <int dim, typename Number>
      struct IsTabulated<TabulatedFunction<dim, Number>> : std::true_type
      {};
      template <int dim, typename Number>
      struct HasGradient<TabulatedFunction<dim, Number>, dim, Number> : std::true_type
      {};

      /// Component @p c of @p function at quadrature point @p point (local_q_point_id()), at @p p.
      template <typename Function, int dim, typename Number>
      __host__ __device__ Number
      value_at(const Function                   &function,
               const dealii::Point<dim, Number> &p,
               const std::size_t                 point,
               const unsigned int                c)
      {
        if constexpr (IsTabulated<Function>::value)
          {
            (void)p;
            return function.values[point * function.n_components + c];
          }
        else
          {
            (void)point;
            return value_of(function, p, c);
          }
      }

      /// The gradient of component @p c of @p function at quadrature point @p point, at @p p.
      template <typename Function, int dim, typename Number>
      __host__ __device__ dealii::Tensor<1, dim, Number>
                          gradient_at(const Function                   &function,
                                      const dealii::Point<dim, Number> &p,
                                      const std::size_t                 point,
                                      const unsigned int                c)
      {
        if constexpr (IsTabulated<Function>::value)
          {
            (void)p;
            dealii::Tensor<1, dim, Number> g;
            for (unsigned int d = 0; d < dim; ++d)
              g[d] = function.gradients[(point * function.n_components + c) * dim + d];
            return g;
          }
        else
          {
            (void)point;
            return gradient_of(function, p, c);
          }
      }

      /// Whether @p F is a deal.II Function (tabulated on the host by the VectorTools functions).
      template <typename F, int dim>
      constexpr bool is_dealii_function =
        std::is_base_of_v<dealii::Function<dim, double>, F> || std::is_base_of_v<dealii::Function<dim, float>, F>;

      /// @p function's values (and, with @p gradients, gradients) at @p points (one per entry of
      /// the table, in their order) on the host, into @p table on @p backend; returns the device view.
      template <int n_components, int dim, typename Number, typename F, typename Points>
      TabulatedFunction<dim, Number>
      tabulate_at(const Points                     &points,
                  const Backend                     backend,
                  const F                          &function,
                  const bool                        gradients,
                  ::gpumf::internal::Array<Number> &table)
      {
        AssertThrow(function.n_components == n_components,
                    dealii::ExcMessage("gpumf::VectorTools: the deal.II Function has " +
                                       std::to_string(function.n_components) + " components, the element " +
                                       std::to_string(n_components) + "."));
        const std::size_t   n = points.size();
        std::vector<Number> host(n * n_components * (gradients ? 1 + dim : 1));
        for (std::size_t q = 0; q < n; ++q)
          {
            dealii::Point<dim> x;
            for (unsigned int d = 0; d < dim; ++d)
              x[d] = points[q][d];
            for (unsigned int c = 0; c < n_components; ++c)
              {
                host[q * n_components + c] = Number(function.value(x, c));
                if (gradients)
                  {
                    const auto g = function.gradient(x, c);
                    for (unsigned int d = 0; d < dim; ++d)
                      host[n * n_components + (q * n_components + c) * dim + d] = Number(g[d]);
                  }
              }
          }
        table.reinit(backend, host);
        return TabulatedFunction<dim, Number>{table.data(),
                                              gradients ? table.data() + n * n_components : nullptr,
                                              n_components};
      }

      /// @p function's values (and, with @p gradients, gradients) at @p mf's quadrature points on
      /// the host, into @p table on @p mf's backend; returns the device view.
      template <int n_components, int dim, typename Number, typename F>
      TabulatedFunction<dim, Number>
      tabulate(const MatrixFree<dim, Number>    &mf,
               const F                          &function,
               const bool                        gradients,
               ::gpumf::internal::Array<Number> &table)
      {
        return tabulate_at<n_components, dim, Number>(
          mf.get_quadrature_points(), mf.backend(), function, gradients, table);
      }

      /**
       * The cell functor of integrate_difference(): at every quadrature point the squared error
       * (value, gradient or both) times JxW, or for Linfty_norm the largest error of the
       * components, into @p out at local_q_point_id(); each component's error times its weight
       * (1 or 0: the component mask).
       */
      template <int dim, int fe_degree, int n_q_points_1d, int n_components_, typename Number, typename Function>
      struct DifferenceAtPoints
      {
        using FEEval = FEEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number>;

        static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
        static constexpr unsigned int n_local_dofs = FEEval::dofs_per_cell;
        static constexpr unsigned int n_q_points   = FEEval::n_q_points;
        static constexpr unsigned int n_components = n_components_;

        Function exact;
        Number  *out;
        NormType norm;
        Number   weights[n_components];

        __host__ __device__ void
        operator()(const unsigned int                            cell,
                   const typename MatrixFree<dim, Number>::Data *data,
                   SharedData<dim, Number>                      *shared,
                   const Number                                 *src) const
        {
          FEEval     phi(cell, data, shared);
          const bool values    = norm != H1_seminorm;
          const bool gradients = norm == H1_seminorm || norm == H1_norm;
          phi.read_dof_values_plain(src);
          phi.evaluate(values, gradients);
          phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
            const dealii::Point<dim, Number> x      = p->quadrature_point(q);
            const std::size_t                point  = data->local_q_point_id(cell, n_q_points, q);
            Number                           result = 0;
            if (values)
              {
                const auto u = p->get_value(q);
                for (unsigned int c = 0; c < n_components; ++c)
                  {
                    Number u_c;
                    if constexpr (n_components == 1)
                      u_c = u;
                    else
                      u_c = u[c];
                    const Number e = weights[c] * (u_c - value_at(exact, x, point, c));
                    if (norm == Linfty_norm)
                      result = (e < 0 ? -e : e) > result ? (e < 0 ? -e : e) : result;
                    else
                      result += e * e;
                  }
              }
            if constexpr (HasGradient<Function, dim, Number>::value)
              if (gradients)
                {
                  const auto grad = p->get_gradient(q);
                  for (unsigned int c = 0; c < n_components; ++c)
                    {
                      const dealii::Tensor<1, dim, Number> g = gradient_at(exact, x, point, c);
                      for (unsigned int d = 0; d < dim; ++d)
                        {
                          Number e;
                          if constexpr (n_components == 1)
                            e = grad[d] - g[d];
                          else
                            e = grad[c][d] - g[d];
                          result += weights[c] * e * e;
                        }
                    }
                }
            out[point] = norm == Linfty_norm ? result : result * p->JxW(q);
          });
        }
      };

      /**
       * The cell functor of create_right_hand_side(): f at every quadrature point tested by the
       * shape functions, distributed through the constraints (homogeneously).
       */
      template <int dim, int fe_degree, int n_q_points_1d, int n_components_, typename Number, typename Function>
      struct RightHandSideAtPoints
      {
        using FEEval = FEEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number>;

        static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
        static constexpr unsigned int n_local_dofs = FEEval::dofs_per_cell;
        static constexpr unsigned int n_q_points   = FEEval::n_q_points;
        static constexpr unsigned int n_components = n_components_;

        Function f;

        __host__ __device__ void
        operator()(const unsigned int                            cell,
                   const typename MatrixFree<dim, Number>::Data *data,
                   SharedData<dim, Number>                      *shared,
                   const Number *,
                   Number *dst) const
        {
          FEEval phi(cell, data, shared);
          phi.apply_for_each_quad_point([&](FEEval *p, const unsigned int q) {
            const dealii::Point<dim, Number> x     = p->quadrature_point(q);
            const std::size_t                point = data->local_q_point_id(cell, n_q_points, q);
            typename FEEval::value_type      value;
            if constexpr (n_components == 1)
              value = value_at(f, x, point, 0);
            else
              for (unsigned int c = 0; c < n_components; ++c)
                value[c] = value_at(f, x, point, c);
            p->submit_value(value, q);
          });
          phi.integrate(true, false);
          phi.distribute_local_to_global(dst);
        }
      };

      /// @p rhs of @p mf's layout (kept where it has it, else made), and @p unused of it: the
      /// vectors of a loop that writes a load vector and reads none.
      template <int dim, typename Number>
      void
      prepare_load_vector(const MatrixFree<dim, Number> &mf, Vector<Number> &rhs, Vector<Number> &unused)
      {
        if (rhs.get_partitioner() == nullptr || rhs.backend() != mf.backend() ||
            !rhs.get_partitioner()->is_compatible(*mf.get_vector_partitioner()))
          mf.initialize_dof_vector(rhs);
        mf.initialize_dof_vector(unused);
      }

      /**
       * The boundary face functor of create_boundary_right_hand_side(): f at every point of the
       * boundary faces with an id in @p mask (all where @p all_ids) tested by the shape
       * functions, distributed through the constraints. A tabulated f is read at
       * face_index() * n_face_points + q.
       */
      template <int dim, int fe_degree, int n_q_points_1d, int n_components_, typename Number, typename Function>
      struct BoundaryRightHandSideAtPoints
      {
        using FaceEval = FEFaceEvaluation<dim, fe_degree, n_q_points_1d, n_components_, Number>;

        static constexpr unsigned int n_dofs_1d    = fe_degree + 1;
        static constexpr unsigned int n_local_dofs = FaceEval::dofs_per_cell;
        static constexpr unsigned int n_q_points   = ::gpumf::internal::ipow(n_q_points_1d, dim);
        static constexpr unsigned int n_components = n_components_;

        Function     f;
        unsigned int mask    = 0;
        bool         all_ids = true;

        __host__ __device__ void
        operator()(const unsigned int                            face,
                   const typename MatrixFree<dim, Number>::Data *data,
                   SharedData<dim, Number>                      *shared,
                   const Number *,
                   Number *dst) const
        {
          FaceEval phi(face, data, shared, true);
          if (!all_ids && !::gpumf::internal::in_boundary_mask(mask, phi.boundary_id()))
            return;
          const std::size_t first = std::size_t(phi.face_index()) * FaceEval::n_q_points;
          phi.apply_for_each_quad_point([&](FaceEval *p, const unsigned int q) {
            const dealii::Point<dim, Number> x = p->quadrature_point(q);
            typename FaceEval::value_type    value;
            if constexpr (n_components == 1)
              value = value_at(f, x, first + q, 0);
            else
              for (unsigned int c = 0; c < n_components; ++c)
                value[c] = value_at(f, x, first + q, c);
            p->submit_value(value, q);
          });
          phi.integrate(EvaluationFlags::values);
          phi.distribute_local_to_global(dst);
        }
      };

      /**
       * The rest of integrate_difference(), in the library: per-cell sums (maxima) of the
       * per-point values @p per_point (on @p mf's backend, in the order of local_q_point_id()),
       * the global value over all ranks (square root taken, except for Linfty_norm), and, where
       * @p per_cell is given, the cells' values (square roots) on the host in the order of
       * @p mf's cells (get_colored_graph()). Collective.
       */
      template <int dim, typename Number>
      Number
      finish_integrate_difference(const MatrixFree<dim, Number> &mf,
                                  const Number                  *per_point,
                                  const NormType                 norm,
                                  std::vector<Number>           *per_cell);
    } // namespace internal

    /**
     * The norm @p norm of u_h - u over all cells of @p mf (all ranks; collective), u_h the finite
     * element function @p solution and u the device functor @p exact or a deal.II Function
     * (evaluated on the host at the quadrature points, then read there on the backend: the
     * call then costs a host pass over the points; set_time() before the call): deal.II's
     * integrate_difference() followed by compute_global_error(), with @p mf's quadrature.
     * @p exact has `value(p)` or `value(p, component)`, and for the H1 norms `gradient(p)` or
     * `gradient(p, component)` (a Tensor<1, dim, Number>), callable on the host and the device.
     * Where @p cellwise is given it receives, as deal.II's integrate_difference(), the norm on
     * each locally owned active cell at its active_cell_index() (size: the triangulation's
     * active cells; 0 elsewhere). The solution's constrained DoFs are read as they are.
     * @p components selects the components whose error counts (empty: all), as deal.II's
     * integrate_difference() does with the weight ComponentSelectFunction (the velocity's error
     * of a Stokes solution, say).
     */
    template <int fe_degree,
              int n_q_points_1d = fe_degree + 1,
              int n_components  = 1,
              int dim,
              typename Number,
              typename Function,
              typename OutNumber = float,
              typename Compiler  = ::gpumf::internal::ThisCompiler>
    Number
    integrate_difference(const MatrixFree<dim, Number> &mf,
                         const Vector<Number>          &solution,
                         const Function                &exact,
                         const NormType                 norm,
                         dealii::Vector<OutNumber>     *cellwise   = nullptr,
                         const dealii::ComponentMask   &components = dealii::ComponentMask())
    {
      if constexpr (internal::is_dealii_function<Function, dim>)
        {
          // a host Function: evaluated on the host at the points, read there by the device
          ::gpumf::internal::Array<Number> table;
          const auto                       tabulated =
            internal::tabulate<n_components>(mf, exact, norm == H1_seminorm || norm == H1_norm, table);
          return integrate_difference<fe_degree,
                                      n_q_points_1d,
                                      n_components,
                                      dim,
                                      Number,
                                      internal::TabulatedFunction<dim, Number>,
                                      OutNumber,
                                      Compiler>(mf, solution, tabulated, norm, cellwise, components);
        }
      else
        {
          AssertThrow(components.size() == 0 || components.size() == n_components,
                      dealii::ExcMessage("gpumf::VectorTools::integrate_difference: a component mask of " +
                                         std::to_string(components.size()) + " entries for an element of " +
                                         std::to_string(n_components) + " components."));
          AssertThrow(components.size() == 0 || components.n_selected_components() > 0,
                      dealii::ExcMessage("gpumf::VectorTools::integrate_difference: the component mask selects no "
                                         "component."));
          constexpr bool has_gradient = internal::HasGradient<Function, dim, Number>::value;
          AssertThrow(norm == L2_norm || norm == Linfty_norm || has_gradient,
                      dealii::ExcMessage("gpumf::VectorTools::integrate_difference: the H1 norms need the exact "
                                         "solution's gradient(p) (or gradient(p, component)); the function has none."));
          AssertThrow(cellwise == nullptr || mf.get_mg_level() == dealii::numbers::invalid_unsigned_int,
                      dealii::ExcMessage("gpumf::VectorTools::integrate_difference: per-cell values are given per "
                                         "active cell; this MatrixFree object works on a multigrid level."));
          ::gpumf::internal::Array<Number> points;
          points.reinit(mf.backend(), std::size_t(mf.n_cells()) * mf.n_q_points());
          mf.template evaluate_coefficients<
            internal::DifferenceAtPoints<dim, fe_degree, n_q_points_1d, n_components, Number, Function>,
            Vector<Number>,
            Compiler>(
            [&] {
              internal::DifferenceAtPoints<dim, fe_degree, n_q_points_1d, n_components, Number, Function> f{
                exact, points.data(), norm, {}};
              for (unsigned int c = 0; c < n_components; ++c)
                f.weights[c] = components.size() == 0 || components[c] ? Number(1) : Number(0);
              return f;
            }(),
            solution);
          std::vector<Number> per_cell;
          const Number        result =
            internal::finish_integrate_difference(mf, points.data(), norm, cellwise ? &per_cell : nullptr);
          if (cellwise != nullptr)
            {
              cellwise->reinit(mf.get_dof_handler().get_triangulation().n_active_cells());
              std::size_t k = 0;
              for (const auto &color : mf.get_colored_graph())
                for (const auto &cell : color)
                  (*cellwise)[cell->active_cell_index()] = OutNumber(per_cell[k++]);
            }
          return result;
        }
    }

    /// integrate_difference() of the components @p components selects, without per-cell values.
    template <int fe_degree,
              int n_q_points_1d = fe_degree + 1,
              int n_components  = 1,
              int dim,
              typename Number,
              typename Function,
              typename Compiler = ::gpumf::internal::ThisCompiler>
    Number
    integrate_difference(const MatrixFree<dim, Number> &mf,
                         const Vector<Number>          &solution,
                         const Function                &exact,
                         const NormType                 norm,
                         const dealii::ComponentMask   &components)
    {
      return integrate_difference<fe_degree, n_q_points_1d, n_components, dim, Number, Function, float, Compiler>(
        mf, solution, exact, norm, nullptr, components);
    }

    /**
     * `constraints.distribute(v)` on the backend: every constrained DoF gets the weighted sum of
     * its masters plus its inhomogeneity (hanging nodes, periodicity, Dirichlet values). The
     * lines must be those @p mf was built with (MatrixFree keeps their rows; a rank's lines that
     * differ from the object's throw on every rank); their inhomogeneities are read from
     * @p constraints at this call, so the boundary values may change between calls (a
     * time-dependent problem) without a new reinit(). What a deal.II program does before it
     * reads the vector as it is (integrate_difference(), read_dof_values_plain(), host_copy()
     * without constraints), or to build the lift of inhomogeneous Dirichlet values from a zero
     * vector (examples/adaptive). Needs AdditionalData::store_plain_indices (the default), and
     * for inhomogeneities an object on all locally owned cells (no iterator filter). The ghost
     * values are exchanged for the masters; a vector without ghost values leaves without them,
     * one with ghost values leaves with them up to date. @p v has @p mf's layout. Collective.
     */
    template <int dim, typename Number>
    void
    distribute_constraints(const MatrixFree<dim, Number>           &mf,
                           const dealii::AffineConstraints<Number> &constraints,
                           Vector<Number>                          &v);

    /**
     * deal.II's VectorTools::interpolate() of a host dealii::Function into a gpumf::Vector
     * (locally owned entries; constrained DoFs included): on the host, as deal.II does it (O(N)
     * work on this rank), then copied to @p vector's backend. For initial values and the like;
     * the function is deal.II's, not a device functor. Number: double.
     */
    template <int dim, typename Number>
    void
    interpolate(const dealii::Mapping<dim>          &mapping,
                const dealii::DoFHandler<dim>       &dof_handler,
                const dealii::Function<dim, Number> &function,
                Vector<Number>                      &vector);

    /**
     * The load vector rhs_i = int f phi_i of the device functor @p f (`value(p)`, or
     * `value(p, component)` for an FESystem) or of a deal.II Function (evaluated on the host at
     * the quadrature points, then read there on the backend: call it again after set_time())
     * with @p mf's quadrature, the constraints of @p mf
     * applied homogeneously, as deal.II's VectorTools::create_right_hand_side() with
     * constraints (AffineConstraints::distribute_local_to_global() without a matrix: nothing
     * into Dirichlet DoFs, hanging nodes into their masters). @p rhs gets @p mf's layout
     * (initialize_dof_vector()) if it has another, and is overwritten.
     */
    template <int fe_degree,
              int n_q_points_1d = fe_degree + 1,
              int n_components  = 1,
              int dim,
              typename Number,
              typename Function,
              typename Compiler = ::gpumf::internal::ThisCompiler>
    void
    create_right_hand_side(const MatrixFree<dim, Number> &mf, const Function &f, Vector<Number> &rhs)
    {
      if constexpr (internal::is_dealii_function<Function, dim>)
        {
          // a host Function: evaluated on the host at the points, read there by the device
          ::gpumf::internal::Array<Number> table;
          const auto                       tabulated = internal::tabulate<n_components>(mf, f, false, table);
          create_right_hand_side<fe_degree,
                                 n_q_points_1d,
                                 n_components,
                                 dim,
                                 Number,
                                 internal::TabulatedFunction<dim, Number>,
                                 Compiler>(mf, tabulated, rhs);
        }
      else
        {
          // (the loop takes a source vector; the functor reads none)
          Vector<Number> unused;
          internal::prepare_load_vector(mf, rhs, unused);
          using Functor =
            internal::RightHandSideAtPoints<dim, fe_degree, n_q_points_1d, n_components, Number, Function>;
          mf.template cell_loop<Functor, Vector<Number>, Vector<Number>, Compiler>(Functor{f}, unused, rhs, true);
        }
    }

    /**
     * The boundary load vector rhs_i = int_Gamma g phi_i over the boundary faces with an id in
     * @p boundary_ids (all where empty) of the device functor @p g (`value(p)`, or
     * `value(p, component)` for an FESystem) or of a deal.II Function (evaluated on the host at
     * the face points, then read there on the backend), with @p mf's face quadrature, the
     * constraints of @p mf applied homogeneously: deal.II's
     * VectorTools::create_boundary_right_hand_side() with constraints (inhomogeneous Neumann
     * data). @p mf needs faces of its continuous element
     * (AdditionalData::mapping_update_flags_boundary_faces). @p rhs gets @p mf's layout if it has
     * another, and is overwritten; add it to the cells' load vector.
     */
    template <int fe_degree,
              int n_q_points_1d = fe_degree + 1,
              int n_components  = 1,
              int dim,
              typename Number,
              typename Function,
              typename Compiler = ::gpumf::internal::ThisCompiler>
    void
    create_boundary_right_hand_side(const MatrixFree<dim, Number>              &mf,
                                    const Function                             &g,
                                    Vector<Number>                             &rhs,
                                    const std::set<dealii::types::boundary_id> &boundary_ids = {})
    {
      AssertThrow(mf.has_continuous_faces(),
                  dealii::ExcMessage(
                    "gpumf::VectorTools::create_boundary_right_hand_side: the MatrixFree object has no "
                    "faces of a continuous element; set "
                    "AdditionalData::mapping_update_flags_boundary_faces (e.g. update_values | "
                    "update_quadrature_points) before reinit()."));
      const unsigned int mask =
        ::gpumf::internal::boundary_mask(boundary_ids, "gpumf::VectorTools::create_boundary_right_hand_side");
      if constexpr (internal::is_dealii_function<Function, dim>)
        {
          // a host Function: evaluated on the host at the face points, read there by the device
          ::gpumf::internal::Array<Number> table;
          const auto                       tabulated = internal::tabulate_at<n_components, dim, Number>(
            mf.get_face_quadrature_points(), mf.backend(), g, false, table);
          create_boundary_right_hand_side<fe_degree,
                                          n_q_points_1d,
                                          n_components,
                                          dim,
                                          Number,
                                          internal::TabulatedFunction<dim, Number>,
                                          Compiler>(mf, tabulated, rhs, boundary_ids);
        }
      else
        {
          // (the loop takes a source vector; the functor reads none)
          Vector<Number> unused;
          internal::prepare_load_vector(mf, rhs, unused);
          using Functor =
            internal::BoundaryRightHandSideAtPoints<dim, fe_degree, n_q_points_1d, n_components, Number, Function>;
          Functor functor{g, mask, boundary_ids.empty()};
          using Access = typename MatrixFree<dim, Number>::DataAccessOnFaces;
          mf.template loop<std::nullptr_t, std::nullptr_t, Functor, Compiler>(
            nullptr, nullptr, functor, rhs, unused, true, Access::none, Access::none);
        }
    }
  } // namespace VectorTools
} // namespace gpumf

#endif
