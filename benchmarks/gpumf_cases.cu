// The gpumf side of the benchmark for one (dim, degree), given by the compile definitions
// BENCH_DIM and BENCH_DEGREE (benchmarks/CMakeLists.txt builds one object per pair).
#include <gpumf/operators.h>

#include <deal.II/base/timer.h>
#include <deal.II/lac/precondition.h>

#include <random>

#include "benchmark.h"
#include "cg_timing.h"

namespace bench
{
  namespace
  {
    /**
     * The ready operator's cell functor with the conflict protection switched off: every
     * cell adds without atomics in one launch. Races make the result wrong; its time is the
     * upper bound that atomics and coloring are measured against.
     */
    template <typename CellOperator, int dim>
    struct Unprotected : CellOperator
    {
      /// @p form: none, or the DeviceForm of a kernel of one form (cell_loop()'s FormsOf) where
      /// the operator has forms.
      template <typename... Form>
      __host__ __device__ void
      operator()(const unsigned int                                   cell,
                 const typename gpumf::MatrixFree<dim, double>::Data *data,
                 gpumf::SharedData<dim, double>                      *shared,
                 const double                                        *src,
                 double                                              *dst,
                 const Form... form) const
      {
        typename gpumf::MatrixFree<dim, double>::Data unprotected = *data;
        unprotected.use_coloring                                  = true;
        CellOperator::operator()(cell, &unprotected, shared, src, dst, form...);
      }
    };

    template <typename Number>
    void
    fill_random(gpumf::Vector<Number> &v)
    {
      dealii::LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
      std::mt19937                                   generator(42);
      std::uniform_real_distribution<double>         uniform(-1., 1.);
      for (auto &x : rw)
        x = uniform(generator);
      v.import(rw, dealii::VectorOperation::insert);
    }

    /// time_cg() on the ready operator with its inverse diagonal, x (zero on constrained DoFs) as
    /// the right-hand side; the FEEvaluation layout is not measured in CG.
    template <typename Operator>
    void
    run_cg(const Operator        &op,
           gpumf::Vector<double> &x,
           gpumf::Vector<double> &y,
           const Case            &c,
           const Options         &options,
           Result                &result)
    {
      if (c.layout == "points")
        {
          result.skipped = true;
          result.note    = "CG runs the ready operator (layout ready)";
          return;
        }
      op.matrix_free().set_constrained_values(0., x);
      time_cg(op, *op.get_matrix_diagonal_inverse(), x, y, c, options, result);
    }

    template <typename Number, int dim, int degree, int n_q, bool values, bool gradients>
    Result
    run(const Problem<dim> &problem, const Case &c, const Options &options)
    {
      constexpr bool is_double = std::is_same_v<Number, double>;
      using Operator           = gpumf::CoefficientOperator<dim, degree, n_q, 1, Number, values, gradients>;
      using Geometry           = typename gpumf::MatrixFree<dim, Number>::GeometryStorage;
      typename Operator::AdditionalData data;
      data.backend         = options.backend;
      data.use_coloring    = c.conflict == "coloring";
      data.geometry        = c.geometry == "affine" ? Geometry::affine : Geometry::per_point;
      data.cells_per_block = c.cells_per_block;
      data.hanging_nodes   = c.hanging_nodes == "constraint_rows" ?
                               gpumf::MatrixFree<dim, Number>::HangingNodes::constraint_rows :
                               gpumf::MatrixFree<dim, Number>::HangingNodes::interpolation;
      data.implementation =
        c.implementation == "lm" ? gpumf::Implementation::local_matrix : gpumf::Implementation::tensor_product;
      Result result;
      if (c.geometry == "affine" && !problem.affine_mesh())
        {
          result.skipped = true;
          result.note    = "affine geometry needs a mesh of parallelepipeds (cartesian, cube-adaptive)";
          return result;
        }
      if (!is_double && (c.what != "vmult" || c.conflict == "none" || c.layout == "points" || c.implementation == "lm"))
        {
          result.skipped = true;
          result.note    = "float is measured for the ready operator's vmult with atomics or coloring";
          return result;
        }
      if ((c.conflict == "none" || c.layout == "points") && c.implementation == "lm")
        {
          result.skipped = true;
          result.note    = "the unprotected and FEEvaluation variants are measured for sum factorization only";
          return result;
        }
      // set-up as a user's program does it: the operator and its diagonal (for Jacobi)
      gpumf::synchronize(options.backend);
      dealii::Timer setup_timer;
      Operator      op;
      if constexpr (is_double)
        op.reinit(*problem.mapping, problem.dof_handler, problem.constraints, quadrature(c.form, degree), data);
      else
        {
          dealii::AffineConstraints<Number> constraints;
          constraints.copy_from(problem.constraints);
          op.reinit(*problem.mapping, problem.dof_handler, constraints, quadrature(c.form, degree), data);
        }
      op.compute_diagonal();
      gpumf::synchronize(options.backend);
      result.setup_seconds = setup_timer.wall_time();
      const auto &mf       = op.matrix_free();
      result.data_bytes    = mf.memory_consumption();
      result.n_cells       = mf.n_cells();
      result.n_colors      = mf.n_colors();
      // the ready operator's cell functor (lines in 3D) and FEEvaluation with a thread
      // per point (the path of user functors; the ready operators' kernel before their own)
      using Ready  = typename Operator::CellOperator;
      using Points = gpumf::internal::CoefficientCellOperator<dim, degree, n_q, 1, Number, values, gradients, false>;
      result.cells_per_block = c.layout == "points" ? mf.cells_per_block(gpumf::internal::layout_of<dim, Points>()) :
                                                      mf.cells_per_block(gpumf::internal::layout_of<dim, Ready>());
      result.geometry        = mf.has_affine_geometry() ? "affine" : "stored";

      gpumf::CellTraffic traffic{dim,
                                 degree,
                                 n_q,
                                 1,
                                 values,
                                 gradients,
                                 0,
                                 mf.has_affine_geometry(),
                                 c.layout == "ready" && Ready::thread_per_column,
                                 sizeof(Number)};
      const double       n_dofs = problem.dof_handler.n_dofs();
      if (const auto *lm = op.local_matrix_operator())
        {
          const bool shared     = lm->storage() == gpumf::LocalMatrixOperator<dim, Number>::Storage::shared;
          result.implementation = shared ? "lm shared" : "lm per-cell";
          result.bytes = 2 * sizeof(Number) * n_dofs + result.n_cells * traffic.local_matrix_cell_bytes(shared);
          result.flops = result.n_cells * traffic.local_matrix_flops();
        }
      else
        {
          result.implementation = "tp";
          result.bytes          = 2 * sizeof(Number) * n_dofs + result.n_cells * traffic.tensor_product_cell_bytes();
          result.flops          = result.n_cells * traffic.tensor_product_flops();
        }

      gpumf::Vector<Number> x, y;
      op.initialize_dof_vector(x);
      op.initialize_dof_vector(y);
      fill_random(x);
      if (c.what == "vmult")
        {
          std::function<void()> apply = [&]() { op.vmult(y, x); };
          const auto            loop  = [&](const auto &functor) {
            return [&, functor]() {
              y = 0.;
              mf.cell_loop(functor, x, y);
              mf.add_constrained_values(x, y);
            };
          };
          if constexpr (is_double)
            {
              if (c.conflict == "none" && c.layout == "points")
                apply = loop(Unprotected<Points, dim>{{nullptr, nullptr}});
              else if (c.conflict == "none")
                apply = loop(Unprotected<Ready, dim>{op.cell_operator()});
              else if (c.layout == "points")
                apply = loop(Points{nullptr, nullptr});
            }
          result.seconds = median_seconds(options.backend, options.repeat, apply);
          return result;
        }
      if constexpr (is_double)
        run_cg(op, x, y, c, options, result); // (float is rejected above)
      return result;
    }
  } // namespace

  template <int dim, int degree>
  Result
  run_gpumf(const Problem<dim> &problem, const Case &c, const Options &options)
  {
    return with_form<degree>(c.form, [&](auto n_q, auto values, auto gradients) {
      constexpr int  q = decltype(n_q)::value;
      constexpr bool v = decltype(values)::value, g = decltype(gradients)::value;
      if (c.number == "double")
        return run<double, dim, degree, q, v, g>(problem, c, options);
      if constexpr (dim == 3)
        return run<float, dim, degree, q, v, g>(problem, c, options);
      Result result;
      result.skipped = true;
      result.note    = "float is measured in 3D";
      return result;
    });
  }

  template Result
  run_gpumf<BENCH_DIM, BENCH_DEGREE>(const Problem<BENCH_DIM> &, const Case &, const Options &);
} // namespace bench
