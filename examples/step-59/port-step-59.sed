# Ports deal.II 9.4.1's step-59 (libdeal.ii-doc: examples/step-59/step-59.cc) to gpumf: the
# symmetric interior-penalty Laplacian of FE_DGQHermite (cell, inner-face and boundary-face
# integrals through gpumf::MatrixFree::loop() and FEFaceEvaluation), its right-hand side, the
# block-Jacobi smoother by fast diagonalization (TensorProductMatrixSymmetricSumCollection),
# the float level operators on faces of the multigrid levels (periodic in x), the transfer of
# the discontinuous element and the L2 error all run on the GPU (or gpumf's host backend);
# deal.II's Multigrid, PreconditionChebyshev, PreconditionMG and SolverCG drive them unchanged.
# Mesh, DoFHandler and the 1D matrices of the smoother stay deal.II's, on the host. Applied at
# build time by examples/step-59/CMakeLists.txt; every change is numbered as in the table of
# doc/porting.md, which says why. The structural changes (5-14) come first, addressing
# deal.II's lines; the renamings (2-4) after them see only the lines those left alone.
# Generated from the C++ blocks it inserts; usage: sed -f port-step-59.sed step-59.cc > step-59.cu

# 1. Headers: gpumf's MatrixFree, FEEvaluation, FEFaceEvaluation, Vector, the transfer, the
#    tensor-product inverses and VectorTools instead of deal.II's CPU MatrixFree, FEEvaluation
#    and MGTransferMatrixFree.

/^#include <deal.II\/matrix_free\/matrix_free.h>$/c\
#include <gpumf/dg_operators.h>\
#include <gpumf/fe_evaluation.h>\
#include <gpumf/fe_face_evaluation.h>\
#include <gpumf/matrix_free.h>\
#include <gpumf/mg_transfer.h>\
#include <gpumf/tensor_product_matrix.h>\
#include <gpumf/vector.h>\
#include <gpumf/vector_tools.h>

/^#include <deal.II\/matrix_free\/fe_evaluation.h>$/d
/^#include <deal.II\/multigrid\/mg_transfer_matrix_free.h>$/d

# 5. The analytic solution and right-hand side for the device: the functors below evaluate
#    them at the quadrature points on the GPU, where deal.II's Function (virtual, host) cannot
#    run; the same formulas as the classes Solution and RightHandSide, which stay for the host.
#    And the forward declarations of the functors that replace the member functions (6-8, 11).

/^  using namespace dealii;$/a\
  // gpumf: Solution and RightHandSide below, as functions the GPU can call\
  template <int dim, typename Number>\
  __host__ __device__ double\
  solution_value(const Point<dim, Number> &p)\
  {\
    double val = 1.;\
    for (unsigned int d = 0; d < dim; ++d)\
      val *= cos(numbers::PI * 2.4 * double(p[d]));\
    return val;\
  }\
\
  template <int dim, typename Number>\
  __host__ __device__ Tensor<1, dim, double>\
  solution_gradient(const Point<dim, Number> &p)\
  {\
    const double   arg = numbers::PI * 2.4;\
    Tensor<1, dim> grad;\
    for (unsigned int d = 0; d < dim; ++d)\
      {\
        grad[d] = 1.;\
        for (unsigned int e = 0; e < dim; ++e)\
          if (d == e)\
            grad[d] *= -arg * sin(arg * double(p[e]));\
          else\
            grad[d] *= cos(arg * double(p[e]));\
      }\
    return grad;\
  }\
\
  template <int dim, typename Number>\
  __host__ __device__ double\
  right_hand_side_value(const Point<dim, Number> &p)\
  {\
    const double arg = numbers::PI * 2.4;\
    double       val = 1.;\
    for (unsigned int d = 0; d < dim; ++d)\
      val *= cos(arg * double(p[d]));\
    return dim * arg * arg * val;\
  }\
\
  // gpumf: the analytic solution as gpumf::VectorTools::integrate_difference() takes it\
  template <int dim>\
  struct SolutionFunctor\
  {\
    __host__ __device__ double\
    value(const Point<dim, double> &p) const\
    {\
      return solution_value<dim>(p);\
    }\
\
    __host__ __device__ Tensor<1, dim, double>\
    gradient(const Point<dim, double> &p) const\
    {\
      return solution_gradient<dim>(p);\
    }\
  };\
\
  // gpumf: |x| on host and device\
  template <typename Number>\
  __host__ __device__ Number\
  absolute_value(const Number x)\
  {\
    return x < Number(0) ? -x : x;\
  }\
\
  // gpumf: the device functors of the loops (defined where deal.II's member functions were)\
  template <int dim, int fe_degree, typename number>\
  struct LaplaceCellTerm;\
  template <int dim, int fe_degree, typename number>\
  struct LaplaceFaceTerm;\
  template <int dim, int fe_degree, typename number>\
  struct LaplaceBoundaryTerm;\
  template <int dim, int fe_degree, typename number>\
  struct BlockJacobiCellTerm;\
\
\
  // gpumf: compute_rhs()'s cell and boundary terms (right-hand side function; Dirichlet value\
  // or Neumann flux of the analytic solution), as device functors\
  template <int dim, int fe_degree>\
  struct RightHandSideCellTerm\
  {\
    using FEEval = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  cell,\
               const typename gpumf::MatrixFree<dim, double>::Data *data,\
               gpumf::SharedData<dim, double>                      *shared,\
               const double *,\
               double *dst) const\
    {\
      FEEval phi(cell, data, shared);\
      phi.apply_for_each_quad_point([](FEEval *phi, const unsigned int q) {\
        phi->submit_value(right_hand_side_value<dim>(phi->quadrature_point(q)), q);\
      });\
      phi.integrate(gpumf::EvaluationFlags::values);\
      phi.distribute_local_to_global(dst);\
    }\
  };\
\
  template <int dim, int fe_degree>\
  struct RightHandSideBoundaryTerm\
  {\
    using FEEval     = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, double>;\
    using FEFaceEval = gpumf::FEFaceEvaluation<dim, fe_degree, fe_degree + 1, 1, double>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    double penalty_factor;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  face,\
               const typename gpumf::MatrixFree<dim, double>::Data *data,\
               gpumf::SharedData<dim, double>                      *shared,\
               const double *,\
               double *dst) const\
    {\
      FEFaceEval phi_face(face, data, shared, true);\
      const bool is_dirichlet = phi_face.boundary_id() == 0;\
      phi_face.apply_for_each_quad_point([&](FEFaceEval *, const unsigned int q) {\
        const double inverse_length_normal_to_face =\
          absolute_value((phi_face.get_normal_vector(q) * phi_face.inverse_jacobian(q))[dim - 1]);\
        const double sigma = inverse_length_normal_to_face * penalty_factor;\
\
        double           test_value = 0, test_normal_derivative = 0;\
        const Point<dim> point = phi_face.quadrature_point(q);\
        if (is_dirichlet)\
          test_value = 2.0 * solution_value<dim>(point);\
        else\
          test_normal_derivative = -(phi_face.get_normal_vector(q) * solution_gradient<dim>(point));\
        phi_face.submit_value(test_value * sigma - test_normal_derivative, q);\
        phi_face.submit_normal_derivative(-0.5 * test_value, q);\
      });\
      phi_face.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
      phi_face.distribute_local_to_global(dst);\
    }\
  };

# 6. LaplaceOperator: the member functions apply_cell(), apply_face() and apply_boundary()
#    (deal.II's loop over ranges of cell and face batches) go; the same work moves into device
#    functors (the structs of 8), which vmult() hands to gpumf::MatrixFree::loop() (7). In
#    their place a member: gpumf's ready operator of the same terms (7).

0,/^  private:$/{
/^  private:$/{
N
s/\n    void$//
}
}
/^    apply_cell(const MatrixFree<dim, number> &                   data,$/,/^      const std::pair<unsigned int, unsigned int> &     face_range) const;$/c\
    // gpumf: step-59's operator, its cell and face terms fused into one GPU kernel (7)\
    gpumf::SIPGLaplaceOperator<dim, fe_degree, fe_degree + 1, number> sipg;

# 9. adjust_ghost_range_if_necessary(): gpumf's vectors from the transfer and the smoothers
#    already have the layout of the level's MatrixFree object (12); a vector of another layout
#    is moved to it through a host copy of its owned entries.

/^  void adjust_ghost_range_if_necessary($/,/^  }$/c\
  void adjust_ghost_range_if_necessary(const gpumf::MatrixFree<dim, number> &data,\
                                       const gpumf::Vector<number>         &vec)\
  {\
    if (vec.get_partitioner().get() == data.get_vector_partitioner().get())\
      return;\
\
    LinearAlgebra::ReadWriteVector<number> owned(vec.locally_owned_elements());\
    vec.export_to(owned, VectorOperation::insert);\
    const_cast<gpumf::Vector<number> &>(vec).reinit(data.get_vector_partitioner());\
    const_cast<gpumf::Vector<number> &>(vec).import(owned, VectorOperation::insert);\
  }

# 7. LaplaceOperator::vmult(): gpumf's SIPGLaplaceOperator, the same terms (step-59's penalty
#    factor, Dirichlet on boundary id 0) in one fused GPU kernel, where it runs (3D, the GPU
#    backend); else gpumf's loop() with the three functors (the penalty factor passed to the
#    face functors) instead of the member-function pointers and `this`. initialize() sets it up,
#    clear() releases it.

/^    this->data = data;$/a\
    sipg.initialize(data, {0}, get_penalty_factor());

/^    data.reset();$/a\
    sipg.clear();

/^    data->loop(&LaplaceOperator::apply_cell,$/,/^               MatrixFree<dim, number>::DataAccessOnFaces::gradients);$/c\
    if (sipg.uses_fused_kernel())\
      {\
        sipg.vmult(dst, src);\
        return;\
      }\
    data->loop(LaplaceCellTerm<dim, fe_degree, number>(),\
               LaplaceFaceTerm<dim, fe_degree, number>{get_penalty_factor()},\
               LaplaceBoundaryTerm<dim, fe_degree, number>{get_penalty_factor()},\
               dst,\
               src,\
               /*zero_dst =*/true,\
               gpumf::MatrixFree<dim, number>::DataAccessOnFaces::gradients,\
               gpumf::MatrixFree<dim, number>::DataAccessOnFaces::gradients);

# 8. The cell, inner-face and boundary-face work as device functors, where deal.II's member
#    functions were, in the words of deal.II's (gather_evaluate() as read_dof_values() and
#    evaluate(), integrate_scatter() as integrate() and distribute_local_to_global()): one
#    cell (or face) per thread block instead of a batch per loop iteration, the quadrature loop
#    as apply_for_each_quad_point() (each thread its own points). The face penalty takes each
#    point's cell sizes normal to the face where deal.II takes the first point's (the same on
#    this Cartesian mesh; a thread reads only its own points).

/^  void LaplaceOperator<dim, fe_degree, number>::apply_cell($/,/^  }$/c\
  struct LaplaceCellTerm\
  {\
    using FEEval     = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    using FEFaceEval = gpumf::FEFaceEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  cell,\
               const typename gpumf::MatrixFree<dim, number>::Data *data,\
               gpumf::SharedData<dim, number>                      *shared,\
               const number                                        *src,\
               number                                              *dst) const\
    {\
      FEEval phi(cell, data, shared);\
      phi.read_dof_values(src);\
      phi.evaluate(gpumf::EvaluationFlags::gradients);\
      phi.apply_for_each_quad_point([](FEEval *phi, const unsigned int q) {\
        phi->submit_gradient(phi->get_gradient(q), q);\
      });\
      phi.integrate(gpumf::EvaluationFlags::gradients);\
      phi.distribute_local_to_global(dst);\
    }\
  };

/^  void LaplaceOperator<dim, fe_degree, number>::apply_face($/,/^  }$/c\
  struct LaplaceFaceTerm\
  {\
    using FEEval     = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    using FEFaceEval = gpumf::FEFaceEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
    static constexpr unsigned int n_fe_evaluations = 2;\
\
    number penalty_factor;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  face,\
               const typename gpumf::MatrixFree<dim, number>::Data *data,\
               gpumf::SharedData<dim, number>                      *shared,\
               const number                                        *src,\
               number                                              *dst) const\
    {\
      FEFaceEval phi_inner(face, data, shared, true);\
      FEFaceEval phi_outer(face, data, shared, false);\
      phi_inner.read_dof_values(src);\
      phi_inner.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
      phi_outer.read_dof_values(src);\
      phi_outer.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
\
      phi_inner.apply_for_each_quad_point([&](FEFaceEval *, const unsigned int q) {\
        const number inverse_length_normal_to_face =\
          number(0.5) * (absolute_value((phi_inner.get_normal_vector(q) * phi_inner.inverse_jacobian(q))[dim - 1]) +\
                         absolute_value((phi_outer.get_normal_vector(q) * phi_outer.inverse_jacobian(q))[dim - 1]));\
        const number sigma = inverse_length_normal_to_face * penalty_factor;\
\
        const number solution_jump = (phi_inner.get_value(q) - phi_outer.get_value(q));\
        const number average_normal_derivative =\
          (phi_inner.get_normal_derivative(q) + phi_outer.get_normal_derivative(q)) * number(0.5);\
        const number test_by_value = solution_jump * sigma - average_normal_derivative;\
\
        phi_inner.submit_value(test_by_value, q);\
        phi_outer.submit_value(-test_by_value, q);\
\
        phi_inner.submit_normal_derivative(-solution_jump * number(0.5), q);\
        phi_outer.submit_normal_derivative(-solution_jump * number(0.5), q);\
      });\
\
      phi_inner.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
      phi_inner.distribute_local_to_global(dst);\
      phi_outer.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
      phi_outer.distribute_local_to_global(dst);\
    }\
  };

/^  void LaplaceOperator<dim, fe_degree, number>::apply_boundary($/,/^  }$/c\
  struct LaplaceBoundaryTerm\
  {\
    using FEEval     = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    using FEFaceEval = gpumf::FEFaceEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    number penalty_factor;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  face,\
               const typename gpumf::MatrixFree<dim, number>::Data *data,\
               gpumf::SharedData<dim, number>                      *shared,\
               const number                                        *src,\
               number                                              *dst) const\
    {\
      FEFaceEval phi_inner(face, data, shared, true);\
      phi_inner.read_dof_values(src);\
      phi_inner.evaluate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
\
      const bool is_dirichlet = (phi_inner.boundary_id() == 0);\
\
      phi_inner.apply_for_each_quad_point([&](FEFaceEval *, const unsigned int q) {\
        const number inverse_length_normal_to_face =\
          absolute_value((phi_inner.get_normal_vector(q) * phi_inner.inverse_jacobian(q))[dim - 1]);\
        const number sigma = inverse_length_normal_to_face * penalty_factor;\
\
        const number u_inner                 = phi_inner.get_value(q);\
        const number u_outer                 = is_dirichlet ? -u_inner : u_inner;\
        const number normal_derivative_inner = phi_inner.get_normal_derivative(q);\
        const number normal_derivative_outer = is_dirichlet ? normal_derivative_inner : -normal_derivative_inner;\
        const number solution_jump           = (u_inner - u_outer);\
        const number average_normal_derivative =\
          (normal_derivative_inner + normal_derivative_outer) * number(0.5);\
        const number test_by_value = solution_jump * sigma - average_normal_derivative;\
        phi_inner.submit_normal_derivative(-solution_jump * number(0.5), q);\
        phi_inner.submit_value(test_by_value, q);\
      });\
      phi_inner.integrate(gpumf::EvaluationFlags::values | gpumf::EvaluationFlags::gradients);\
      phi_inner.distribute_local_to_global(dst);\
    }\
  };

# 10. PreconditionBlockJacobi keeps one tensor-product matrix per cell in gpumf's collection
#     (each distinct pair of 1D matrices once, the eigendecompositions on the backend) instead of
#     a vector of deal.II's TensorProductMatrixSymmetricSum per mapping-data index; its 1D matrices
#     are FullMatrix (deal.II's Table of VectorizedArray).

/^    std::vector<TensorProductMatrixSymmetricSum<dim,$/,/^      cell_matrices;$/c\
    gpumf::TensorProductMatrixSymmetricSumCollection<dim, number> cell_matrices;

s|^    std::array<Table<2, VectorizedArray<number>>, dim> mass_matrices;$|    std::array<FullMatrix<number>, dim>                 mass_matrices;|
s|^    std::array<Table<2, VectorizedArray<number>>, dim> laplace_matrices;$|    std::array<FullMatrix<number>, dim>                 laplace_matrices;|

# 11. PreconditionBlockJacobi::initialize(): the cells' scaling from each cell's extents (the
#     inverse Jacobian of an axis-aligned box, which deal.II reads per cell batch from
#     FEEvaluation and checks diagonal; here the box is checked from the vertices), one insert()
#     per cell of gpumf's order (MatrixFree::get_cell_iterator()), then finalize(). vmult(): a
#     cell_loop() with the functor that applies the inverse (deal.II's loop over cell batches
#     with apply_inverse() and set_dof_values()).

/^    cell_matrices.clear();$/,/^  }$/c\
    cell_matrices.reinit(data->backend(), data->n_cells());\
    for (unsigned int cell = 0; cell < data->n_cells(); ++cell)\
      {\
        const auto cell_iterator = data->get_cell_iterator(cell);\
\
        Tensor<2, dim> inverse_jacobian;\
        for (unsigned int d = 0; d < dim; ++d)\
          inverse_jacobian[d][d] = 1. / cell_iterator->extent_in_direction(d);\
        for (unsigned int v = 0; v < cell_iterator->n_vertices(); ++v)\
          {\
            Point<dim> box_vertex = cell_iterator->vertex(0);\
            for (unsigned int d = 0; d < dim; ++d)\
              if ((v >> d) & 1)\
                box_vertex[d] += 1. / inverse_jacobian[d][d];\
            AssertThrow(box_vertex.distance(cell_iterator->vertex(v)) <= 1e-12 * cell_iterator->diameter(),\
                        ExcNotImplemented());\
          }\
\
        double jacobian_determinant = inverse_jacobian[0][0];\
        for (unsigned int e = 1; e < dim; ++e)\
          jacobian_determinant *= inverse_jacobian[e][e];\
        jacobian_determinant = 1. / jacobian_determinant;\
\
        for (unsigned int d = 0; d < dim; ++d)\
          {\
            const double scaling_factor =\
              inverse_jacobian[d][d] * inverse_jacobian[d][d] * jacobian_determinant;\
\
            for (unsigned int i = 0; i < N; ++i)\
              for (unsigned int j = 0; j < N; ++j)\
                laplace_matrices[d](i, j) = scaling_factor * laplace_unscaled(i, j);\
          }\
        cell_matrices.insert(cell, mass_matrices, laplace_matrices);\
      }\
    cell_matrices.finalize();\
  }\
\
\
\
  // gpumf: the block-Jacobi application of one cell (vmult() below)\
  template <int dim, int fe_degree, typename number>\
  struct BlockJacobiCellTerm\
  {\
    using FEEval = gpumf::FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number>;\
    static constexpr unsigned int n_dofs_1d    = fe_degree + 1;\
    static constexpr unsigned int n_local_dofs = FEEval::tensor_dofs_per_cell;\
    static constexpr unsigned int n_q_points   = FEEval::n_q_points;\
\
    gpumf::TensorProductMatrixSymmetricSumView<dim, number> cell_matrices;\
\
    __host__ __device__ void\
    operator()(const unsigned int                                  cell,\
               const typename gpumf::MatrixFree<dim, number>::Data *data,\
               gpumf::SharedData<dim, number>                      *shared,\
               const number                                        *src,\
               number                                              *dst) const\
    {\
      FEEval phi(cell, data, shared);\
      phi.read_dof_values(src);\
      cell_matrices.apply_inverse(phi);\
      phi.distribute_local_to_global(dst);\
    }\
  };

/^    FEEvaluation<dim, fe_degree, fe_degree + 1, 1, number> phi(\*data);$/,/^  }$/c\
    data->cell_loop(BlockJacobiCellTerm<dim, fe_degree, number>{cell_matrices.get_view()}, src, dst, true);\
  }

# 12. compute_rhs(): the cell term (the right-hand side function at the points) and the
#     boundary terms (the Dirichlet value, or the Neumann flux, of the analytic solution at the
#     face points) as device functors in one gpumf loop() over cells and boundary faces (deal.II:
#     a loop over cell batches and one over boundary face batches, with the functions evaluated
#     lane by lane on the host); loop() needs a source vector, which it does not read.

/^    const MatrixFree<dim, double> &data = \*system_matrix.get_matrix_free();$/,/^    system_rhs.compress(VectorOperation::add);$/c\
    const gpumf::MatrixFree<dim, double> &data = *system_matrix.get_matrix_free();\
    data.loop(RightHandSideCellTerm<dim, fe_degree>(),\
              nullptr,\
              RightHandSideBoundaryTerm<dim, fe_degree>{system_matrix.get_penalty_factor()},\
              system_rhs,\
              solution,\
              false,\
              gpumf::MatrixFree<dim, double>::DataAccessOnFaces::none,\
              gpumf::MatrixFree<dim, double>::DataAccessOnFaces::none);\
\
    system_rhs.compress(VectorOperation::add);

# 13. solve(): gpumf's transfer, built with the level operators' vector layouts (deal.II's
#     build(dof_handler) makes its own, which adjust_ghost_range_if_necessary() then moves).

/^    mg_transfer.build(dof_handler);$/c\
    std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> partitioners;\
    for (unsigned int level = mg_matrices.min_level(); level <= mg_matrices.max_level(); ++level)\
      partitioners.push_back(mg_matrices[level].get_matrix_free()->get_vector_partitioner());\
    mg_transfer.build(dof_handler, partitioners);

# 14. analyze_results(): the L2 error on the backend (gpumf::VectorTools::integrate_difference()
#     with the analytic solution as a device functor, on a MatrixFree object with deal.II's
#     QGauss(degree + 2)) instead of deal.II's integrate_difference() on the host; the same sum
#     over the cells of all ranks.

/^    Vector<float> error_per_cell(triangulation.n_active_cells());$/,/^          << std::endl;$/c\
    typename gpumf::MatrixFree<dim, double>::AdditionalData additional_data;\
    additional_data.mapping_update_flags = update_values | update_JxW_values | update_quadrature_points;\
    AffineConstraints<double> dummy;\
    dummy.close();\
    gpumf::MatrixFree<dim, double> error_data;\
    error_data.reinit(mapping, dof_handler, dummy, QGauss<1>(fe.degree + 2), additional_data);\
    pcout << "Verification via L2 error:    "\
          << gpumf::VectorTools::integrate_difference<fe_degree, fe_degree + 2>(error_data,\
                                                                                 solution,\
                                                                                 SolutionFunctor<dim>(),\
                                                                                 gpumf::VectorTools::L2_norm)\
          << std::endl;

# 15. One GPU per MPI rank (or the host backend, with a notice, where there is none).

/^      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);$/a\
      gpumf::select_device(MPI_COMM_WORLD);

# 16. Threads: gpumf's set-up (MatrixFree::reinit with its faces, MGTransferMatrixFree::build)
#     runs in deal.II's threads. deal.II's step-59 limits each rank to one thread (one rank per
#     core); with one rank per GPU the cores of the node are shared by the ranks on it
#     (MPI_InitFinalize's default).

s|^      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv, 1);$|      Utilities::MPI::MPI_InitFinalize mpi_init(argc, argv,\
                                                numbers::invalid_unsigned_int);|

# 4. gpumf's MatrixFree has no task parallelism on the host: no tasks_parallel_scheme.

/^ *additional_data\.tasks_parallel_scheme =$/{
N
d
}

# 2. Vector type (not in comments): gpumf::Vector, in GPU memory, for the solution, the
#    right-hand side and every level vector.

/^ *\/\//!s/LinearAlgebra::distributed::Vector</gpumf::Vector</g

# 3. Namespace (not in comments): gpumf's MatrixFree and MGTransferMatrixFree.

/^ *\/\//!s/\bMatrixFree</gpumf::MatrixFree</g
/^ *\/\//!s/\bMGTransferMatrixFree</gpumf::MGTransferMatrixFree</g
