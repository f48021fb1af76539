/**
 * @file gpumf/fe_face_evaluation.h
 * gpumf::FEFaceEvaluation: values and gradients of a finite element function at the points of
 * one face, from one of its two sides, inside a face functor of MatrixFree::loop().
 * deal.II equivalent: FEFaceEvaluation (deal.II's CPU MatrixFree; deal.II has none on the GPU).
 */
#ifndef gpumf_fe_face_evaluation_h
#define gpumf_fe_face_evaluation_h

#include <gpumf/fe_evaluation.h>
#include <gpumf/internal/tensor_contractions.h>
#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/host_block.h>
#include <gpumf/matrix_free.h>

#include <deal.II/base/tensor.h>

#include <type_traits>

namespace gpumf
{
  /**
   * Evaluation of a finite element function (a discontinuous element: FE_DGQ and its
   * relatives; a continuous one: FE_Q; or an FESystem of @p n_components_ of one of them) at
   * the n_q_points_1d^(dim-1) points of one face,
   * from its interior (`is_interior_face` true) or exterior side, as deal.II's
   * FEFaceEvaluation. In a face functor of MatrixFree::loop():
   * @code
   *   FEFaceEvaluation<dim, p, p + 1, 1, Number> phi_m(face, data, shared, true), phi_p(face, data, shared, false);
   *   phi_m.read_dof_values(src);  phi_m.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
   *   phi_p.read_dof_values(src);  phi_p.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
   *   phi_m.apply_for_each_quad_point([&](auto *phi, const unsigned int q) { ... phi_p.get_value(q) ... });
   *   phi_m.integrate(...);  phi_m.distribute_local_to_global(dst);
   *   phi_p.integrate(...);  phi_p.distribute_local_to_global(dst);
   * @endcode
   * The points are those of the interior side (see internal::FaceData); both sides see the
   * same point q at the same place, and the same normal vector, pointing from the interior
   * to the exterior side (deal.II's convention for both evaluators).
   *
   * The loop is cell-centric: each cell runs the functor of each of its faces, and only the
   * side that is the running cell integrates and writes; for the other side integrate() and
   * distribute_local_to_global() do nothing (deal.II's loop writes both sides once; here each
   * side is written by its own cell, so the result is the same). A continuous element's DoFs
   * are read and written through the constraints, as FEEvaluation's (Dirichlet DoFs read as
   * zero, hanging nodes from their masters), with the cell loop's handling of shared DoFs
   * (colors or atomics).
   *
   * Threads: thread t of the cell (of T) owns the points t, t + T, ...; read and submit only
   * those, through apply_for_each_quad_point() (a functor `(FEFaceEvaluation *phi, unsigned
   * int q)`). Reading another thread's point stops the loop with a message on both backends:
   * on the GPU it would race with that thread's submit.
   *
   * GPU: evaluate() reduces the cell's DoFs to the face along the normal (values and normal
   * derivatives of the 1D basis at the face), interpolates within the face one direction at a
   * time, and takes tangential derivatives with the collocation derivative matrix; integrate()
   * is the transpose. Host reference: sums over all cell DoFs at every point with the full
   * tensor-product basis, O(n^(2 dim - 1)) per face: naive and independent of the GPU's
   * factorization.
   */
  template <int dim, int fe_degree, int n_q_points_1d = fe_degree + 1, int n_components_ = 1, typename Number = double>
  class FEFaceEvaluation
  {
    static_assert(dim == 2 || dim == 3, "gpumf::FEFaceEvaluation supports dim 2 and 3.");
    static_assert(fe_degree >= 0, "gpumf::FEFaceEvaluation needs fe_degree >= 0.");
    static_assert(n_q_points_1d >= fe_degree + 1,
                  "gpumf::FEFaceEvaluation needs n_q_points_1d >= fe_degree + 1 (as FEEvaluation).");

    static constexpr unsigned int nd  = fe_degree + 1;
    static constexpr unsigned int nq  = n_q_points_1d;
    static constexpr unsigned int nqf = internal::ipow(nq, dim - 1);
    static constexpr unsigned int ndf = internal::ipow(nd, dim - 1);
    static constexpr unsigned int ndc = internal::ipow(nd, dim);
    static constexpr unsigned int nc  = n_components_;

  public:
    using value_type    = std::conditional_t<n_components_ == 1, Number, dealii::Tensor<1, n_components_, Number>>;
    using gradient_type = std::conditional_t<n_components_ == 1,
                                             dealii::Tensor<1, dim, Number>,
                                             dealii::Tensor<1, n_components_, dealii::Tensor<1, dim, Number>>>;
    using data_type     = typename MatrixFree<dim, Number>::Data;

    static constexpr unsigned int dimension            = dim;
    static constexpr unsigned int n_components         = n_components_;
    static constexpr unsigned int n_q_points           = nqf;
    static constexpr unsigned int tensor_dofs_per_cell = ndc;
    static constexpr unsigned int dofs_per_cell        = nc * ndc;
    /// Numbers of a cell's scratch one object uses (MatrixFree::loop() sizes the scratch for it).
    static constexpr unsigned int scratch_size = nc * (ndc + (dim + 5) * nqf);

    /**
     * For face @p face (the first argument of the face functor) from its interior
     * (@p is_interior_face) or exterior side, on the next free scratch of @p shdata. deal.II's
     * @p dof_index and @p quad_index: the faces are set up for DoFHandler 0 and quadrature 0
     * (a MatrixFree with several quadratures runs its face loops on the first); others stop
     * with a message.
     */
    __host__ __device__
    FEFaceEvaluation(const unsigned int       face,
                     const data_type         *data_in,
                     SharedData<dim, Number> *shdata,
                     const bool               is_interior_face = true,
                     const unsigned int       dof_index        = 0,
                     const unsigned int       quad_index       = 0)
      : data(*data_in)
      , slot(shdata->next_slot)
      , owner(shdata)
      , interior(is_interior_face)
    {
      const internal::FaceData<dim, Number> &faces = data.faces;
      internal::require(dof_index == 0 && quad_index == 0,
                        "gpumf::FEFaceEvaluation: the faces are set up for DoFHandler 0 and quadrature 0 only "
                        "(dof_index and quad_index must be 0); use a MatrixFree object of that DoFHandler and "
                        "quadrature for other face loops.");
      internal::require(faces.available,
                        "gpumf::FEFaceEvaluation: the MatrixFree object has no faces; set "
                        "AdditionalData::mapping_update_flags_inner_faces (and _boundary_faces) before reinit().");
      internal::require(data.n_q_points_1d == nq && data.n_dofs_1d == nd && data.n_components == nc,
                        "gpumf::FEFaceEvaluation: its degree, n_q_points_1d or n_components do not match the "
                        "MatrixFree object of the loop.");
      internal::require(shdata->next_slot < shdata->n_slots,
                        "gpumf::FEFaceEvaluation: more evaluators alive in one functor than the cell's scratch "
                        "holds. A functor with k of them at once declares `static constexpr unsigned int "
                        "n_fe_evaluations = k;` (an inner face functor with both sides: 2).");
      internal::require(shdata->face_loop,
                        "gpumf::FEFaceEvaluation in a functor of cell_loop(): it works in the face functors of "
                        "MatrixFree::loop() only, whose first argument is a face (in cell_loop() it is a cell).");
      internal::require(shdata->slot_stride >= scratch_size,
                        "gpumf::FEFaceEvaluation: the scratch is too small; FEFaceEvaluation works in the face "
                        "functors of MatrixFree::loop() only.");
      shape_values       = shdata->shape_values;
      shape_gradients    = shdata->shape_gradients;
      co_shape_gradients = shdata->co_shape_gradients;

      // the face's entry in the running cell's list (internal::FaceData)
      const unsigned int index         = internal::read_only(faces.entry_face + face);
      const bool         cell_exterior = (index & internal::FaceData<dim, Number>::exterior_bit) != 0;
      face_number                      = index & ~internal::FaceData<dim, Number>::exterior_bit;
      const unsigned int neighbor      = internal::read_only(faces.entry_neighbor_first_dof + face);
      own_side                         = is_interior_face != cell_exterior;
      if (own_side)
        {
          first   = internal::read_only(faces.entry_first_dof + face);
          face_no = internal::read_only(faces.entry_face_no + face);
        }
      else
        {
          internal::require(neighbor != internal::FaceData<dim, Number>::no_neighbor,
                            "gpumf::FEFaceEvaluation: the exterior side of a boundary face (construct the "
                            "evaluator of a boundary face functor with is_interior_face = true).");
          first   = neighbor;
          face_no = internal::read_only(faces.entry_neighbor_face_no + face);
        }
      writes   = own_side && shdata->writes;
      unit_dof = shdata->unit_dof;
      // loop_diagonal(): a cell one wide across a period meets itself, and the other side is the
      // running cell too (read in that loop only: the other loops' path is unchanged)
      running_cell = own_side || (unit_dof != SharedData<dim, Number>::no_unit_dof &&
                                  first == internal::read_only(faces.entry_first_dof + face));
      if (!is_interior_face)
        {
          permutation = faces.permutations + internal::read_only(faces.exterior_permutation + face_number) * nqf;
          subface     = internal::read_only(faces.exterior_subface + face_number);
        }
      // the scratch is taken after every check: an exception above leaves the functor's other
      // evaluators' slots in order (their destructors check it)
      scratch = shdata->values + shdata->next_slot++ * shdata->slot_stride;
#ifdef __CUDA_ARCH__
      thread    = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
      n_threads = blockDim.x * blockDim.y * blockDim.z;
#else
      const internal::ThreadIndex t = internal::host_thread_index();
      thread                        = t.x + nq * (t.y + nq * t.z);
      n_threads                     = nq * nq * internal::host_block_z();
#endif
    }

    /// deal.II 9.5+'s form: the face the loop gave @p shdata (SharedData::face).
    __host__ __device__
    FEFaceEvaluation(const data_type         *data_in,
                     SharedData<dim, Number> *shdata,
                     const bool               is_interior_face = true,
                     const unsigned int       dof_index        = 0,
                     const unsigned int       quad_index       = 0)
      : FEFaceEvaluation(shdata->face, data_in, shdata, is_interior_face, dof_index, quad_index)
    {}

    __host__ __device__ ~FEFaceEvaluation() noexcept(false)
    {
      --owner->next_slot;
      internal::require(owner->next_slot == slot,
                        "gpumf::FEFaceEvaluation: evaluators of one functor destroyed out of the reverse order of "
                        "their creation.");
    }

    FEFaceEvaluation(const FEFaceEvaluation &) = delete;
    FEFaceEvaluation &
    operator=(const FEFaceEvaluation &) = delete;

    /// True for the interior side.
    __host__ __device__ bool
    is_interior_face() const
    {
      return interior;
    }

    /// deal.II's boundary id of the face (numbers::internal_face_boundary_id for inner faces).
    __host__ __device__ unsigned int
    boundary_id() const
    {
      return internal::read_only(data.faces.boundary_id + face_number);
    }

    /**
     * The face's number among the faces stored on this rank (MatrixFree::n_faces()): data per
     * face point, as MatrixFree::get_face_quadrature_points() orders it, is at
     * face_index() * n_q_points + q. Both sides of a face give the same number.
     */
    __host__ __device__ unsigned int
    face_index() const
    {
      return face_number;
    }

    /// The cell's face number of this side (deal.II's face_no).
    __host__ __device__ unsigned int
    get_face_no() const
    {
      return face_no;
    }

    /// Reads the DoF values of this side's cell from @p src (ghost cells included). In
    /// MatrixFree::loop_diagonal(): the unit vector of the loop's DoF where this side is the
    /// running cell (both sides of a periodic face of a cell that is its own neighbour), zeros
    /// on the other side.
    __host__ __device__ void
    read_dof_values(const Number *src)
    {
      if (unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          const unsigned int i = running_cell ? unit_dof : SharedData<dim, Number>::no_unit_dof;
          for_each_thread_item(nc * ndc, [&](const unsigned int l) { dofs()[l] = l == i ? Number(1) : Number(0); });
          return;
        }
      internal::require(data.faces.ghost_access != internal::FaceData<dim, Number>::ghosts_none || !ghost_side(),
                        "gpumf::FEFaceEvaluation::read_dof_values: the other side of this face is a ghost cell, "
                        "but the loop did not exchange the source's ghost values (DataAccessOnFaces::none): pass "
                        "values, gradients or unspecified as src_access, or update_ghost_values() first.");
      if (data.faces.continuous)
        {
          const internal::ConstraintRows<Number> lines = rows();
          for_each_thread_item(nc * ndc,
                               [&](const unsigned int l) { dofs()[l] = internal::read_dof(src, code(l), lines); });
        }
      else
        for_each_thread_item(nc * ndc, [&](const unsigned int l) { dofs()[l] = src[dof_index(l)]; });
    }

    /// Values (EvaluationFlags::values) and gradients (EvaluationFlags::gradients) at the face points.
    __host__ __device__ void
    evaluate(const unsigned int flags)
    {
      check_flags(flags);
      const bool gradients = (flags & EvaluationFlags::gradients) != 0;
      internal::require(!gradients || data.faces.ghost_access == internal::FaceData<dim, Number>::ghosts_gradients ||
                          !ghost_side() || unit_dof != SharedData<dim, Number>::no_unit_dof,
                        "gpumf::FEFaceEvaluation::evaluate: gradients of a ghost cell (the other side of a face at "
                        "the rank's border), but the loop exchanged only what values on the faces read "
                        "(DataAccessOnFaces::values): pass gradients or unspecified as src_access.");
      GPUMF_DEVICE_OR_HOST(device_evaluate(gradients), host_collective([&]() { host_evaluate(gradients); }));
    }

    __host__ __device__ void
    gather_evaluate(const Number *src, const unsigned int flags)
    {
      read_dof_values(src);
      evaluate(flags);
    }

    /// The transpose of evaluate(): the cell's DoF values from the submitted values and
    /// gradients. Nothing on the side that is not the running cell.
    __host__ __device__ void
    integrate(const unsigned int flags)
    {
      check_flags(flags);
      syncthreads();
      if (!own_side)
        return;
      const bool values    = (flags & EvaluationFlags::values) != 0;
      const bool gradients = (flags & EvaluationFlags::gradients) != 0;
      GPUMF_DEVICE_OR_HOST(device_integrate(values, gradients),
                           host_collective([&]() { host_integrate(values, gradients); }));
    }

    /**
     * Adds the DoF values into @p dst (this side's own cell only). A discontinuous element: no
     * atomics, no other cell writes them. A continuous one: through the constraints, as
     * FEEvaluation::distribute_local_to_global() (atomically without coloring; with coloring the
     * constraint lines one after the other, so that the result is bitwise reproducible).
     */
    __host__ __device__ void
    distribute_local_to_global(Number *dst) const
    {
      if (!own_side)
        return;
      if (data.faces.continuous)
        return distribute_continuous(dst);
      for_each_thread_item(nc * ndc, [&](const unsigned int l) {
        // MatrixFree::loop_diagonal(): the loop's DoF alone
        if (writes && (unit_dof == SharedData<dim, Number>::no_unit_dof || l == unit_dof))
          dst[dof_index(l)] += dofs()[l];
      });
    }

    __host__ __device__ void
    integrate_scatter(const unsigned int flags, Number *dst)
    {
      integrate(flags);
      distribute_local_to_global(dst);
    }

    __host__ __device__ value_type
    get_value(const unsigned int q) const
    {
      check_point(q);
      value_type v;
      for (unsigned int c = 0; c < nc; ++c)
        component(v, c) = values()[c * nqf + q];
      return v;
    }

    __host__ __device__ gradient_type
    get_gradient(const unsigned int q) const
    {
      check_point(q);
      gradient_type g;
      for (unsigned int c = 0; c < nc; ++c)
        for (unsigned int d = 0; d < dim; ++d)
          component(g, c)[d] = gradients(d)[c * nqf + q];
      return g;
    }

    /// The gradient times the normal vector.
    __host__ __device__ value_type
    get_normal_derivative(const unsigned int q) const
    {
      check_point(q);
      value_type v;
      for (unsigned int c = 0; c < nc; ++c)
        {
          Number sum = 0;
          for (unsigned int d = 0; d < dim; ++d)
            sum += gradients(d)[c * nqf + q] * normal(d, q);
          component(v, c) = sum;
        }
      return v;
    }

    /// Submits @p v (times JxW) for integrate() with EvaluationFlags::values.
    __host__ __device__ void
    submit_value(const value_type &v, const unsigned int q)
    {
      check_point(q);
      const Number jxw = JxW(q);
      for (unsigned int c = 0; c < nc; ++c)
        values()[c * nqf + q] = component(v, c) * jxw;
    }

    __host__ __device__ void
    submit_gradient(const gradient_type &g, const unsigned int q)
    {
      check_point(q);
      const Number jxw = JxW(q);
      for (unsigned int c = 0; c < nc; ++c)
        for (unsigned int d = 0; d < dim; ++d)
          gradients(d)[c * nqf + q] = component(g, c)[d] * jxw;
    }

    /// Submits @p v times the normal vector as the gradient (replaces a submitted gradient).
    __host__ __device__ void
    submit_normal_derivative(const value_type &v, const unsigned int q)
    {
      check_point(q);
      const Number jxw = JxW(q);
      for (unsigned int c = 0; c < nc; ++c)
        for (unsigned int d = 0; d < dim; ++d)
          gradients(d)[c * nqf + q] = component(v, c) * normal(d, q) * jxw;
    }

    /// The unit normal at point @p q, from the interior to the exterior side (for both sides).
    __host__ __device__ dealii::Tensor<1, dim, Number>
                        normal_vector(const unsigned int q) const
    {
      dealii::Tensor<1, dim, Number> n;
      for (unsigned int d = 0; d < dim; ++d)
        n[d] = normal(d, q);
      return n;
    }

    /// deal.II 9.4's name of normal_vector().
    __host__ __device__ dealii::Tensor<1, dim, Number>
                        get_normal_vector(const unsigned int q) const
    {
      return normal_vector(q);
    }

    /// The face's area element times the quadrature weight at point @p q.
    __host__ __device__ Number
    JxW(const unsigned int q) const
    {
      return internal::read_only(data.faces.JxW + std::size_t(face_number) * nqf + q);
    }

    /// The point @p q in real space.
    __host__ __device__ dealii::Point<dim, Number>
                        quadrature_point(const unsigned int q) const
    {
      return data.faces.q_points[std::size_t(face_number) * nqf + q];
    }

    /**
     * deal.II's inverse_jacobian() on faces: entry [d][e] is d xi / d x_d of this side's cell,
     * for the reference directions within the face (e < dim - 1, in increasing order) and the
     * face's normal direction last (e = dim - 1). So `(normal_vector(q) *
     * inverse_jacobian(q))[dim - 1]` is the inverse cell size normal to the face, step-59's
     * penalty factor.
     */
    __host__ __device__ dealii::Tensor<2, dim, Number>
                        inverse_jacobian(const unsigned int q) const
    {
      dealii::Tensor<2, dim, Number> t;
      for (unsigned int e = 0; e < dim; ++e)
        for (unsigned int d = 0; d < dim; ++d)
          t[d][e] = jinv(reference_axis(e), d, q);
      return t;
    }

    /**
     * Calls `func(this, q)` for each point q of the calling thread, then waits for the cell's
     * threads (their submits are then visible to integrate()).
     */
    template <typename Functor>
    __host__ __device__ void
    apply_for_each_quad_point(const Functor &func)
    {
      for (unsigned int q = thread; q < nqf; q += n_threads)
        func(this, q);
      syncthreads();
    }

  private:
    const data_type          data;
    const unsigned int       slot;
    SharedData<dim, Number> *owner;
    const bool               interior;
    Number                  *scratch            = nullptr;
    const Number            *shape_values       = nullptr;
    const Number            *shape_gradients    = nullptr;
    const Number            *co_shape_gradients = nullptr;
    const unsigned short    *permutation        = nullptr;
    unsigned int             face_number = 0, face_no = 0, first = 0, thread = 0, n_threads = 1;
    /// The subface of a coarse exterior side (sa + 2 sb in its face axes), else no_subface.
    unsigned int subface  = internal::FaceData<dim, Number>::no_subface;
    bool         own_side = false, writes = false;
    /// MatrixFree::loop_diagonal()'s DoF (SharedData::unit_dof)
    unsigned int unit_dof = SharedData<dim, Number>::no_unit_dof;
    /// this side's cell is the one the loop runs (own_side, or the other side of a face of a
    /// cell with itself)
    bool running_cell = false;

    // scratch: [DoFs nc*nd^dim | values nc*nqf | gradients dim * nc*nqf | A0 A1 B0 B1, nc*nqf each]
    __host__ __device__ Number *
    dofs() const
    {
      return scratch;
    }
    __host__ __device__ Number *
    values() const
    {
      return scratch + nc * ndc;
    }
    __host__ __device__ Number *
    gradients(const unsigned int d) const
    {
      return values() + (d + 1) * nc * nqf;
    }
    __host__ __device__ Number *
    work(const unsigned int k) const
    {
      return values() + (dim + 1 + k) * nc * nqf;
    }

    template <typename T>
    __host__ __device__ static decltype(auto)
             component(T &v, const unsigned int c)
    {
      if constexpr (n_components_ == 1)
        return (v);
      else
        return (v[c]);
    }

    __host__ __device__ unsigned int
    dof_index(const unsigned int l) const
    {
      return first + internal::read_only(data.faces.dof_numbering + l);
    }

    /// A continuous element: the code of local DoF @p l (internal/dof_access.h), from the
    /// object's cell or the ghost cell of this side's row.
    __host__ __device__ unsigned int
    code(const unsigned int l) const
    {
      const internal::FaceData<dim, Number> &faces = data.faces;
      if (first < faces.n_object_cells)
        return internal::read_only(data.local_to_global + std::size_t(first) * (nc * ndc) + l);
      return internal::read_only(faces.ghost_codes + std::size_t(first - faces.n_object_cells) * (nc * ndc) + l);
    }

    /// A continuous element: the constraint lines code() refers to.
    __host__ __device__ internal::ConstraintRows<Number>
                        rows() const
    {
      return first < data.faces.n_object_cells ? data.constraint_rows : data.faces.ghost_rows;
    }

    /// This side's cell is not one of the object's: its DoFs are (in part) ghost entries.
    __host__ __device__ bool
    ghost_side() const
    {
      return first >= (data.faces.continuous ? data.faces.n_object_cells : data.faces.locally_owned_size);
    }

    /// distribute_local_to_global() of a continuous element.
    __host__ __device__ void
    distribute_continuous(Number *dst) const
    {
      const internal::ConstraintRows<Number> lines  = rows();
      const bool                             atomic = !data.use_coloring;
      const auto                             add    = [&](const unsigned int index, const Number value) {
        internal::add_value(dst, index, value, atomic, writes);
      };
      if (unit_dof != SharedData<dim, Number>::no_unit_dof)
        {
          // MatrixFree::loop_diagonal(): the loop's column of the cell's face matrix into the
          // diagonal of C^T A C, as FEEvaluation::distribute_local_diagonal()
          first_thread_only([&]() {
            internal::distribute_diagonal_column<Number>(
              unit_dof,
              nc * ndc,
              [&](const unsigned int l) { return code(l); },
              [&](const unsigned int l) { return dofs()[l]; },
              lines,
              add);
          });
          return;
        }
      // the unconstrained DoFs on each thread, then the constraint lines (two lines of a cell may
      // share an entry: one thread after the other where colored, else atomically)
      for_each_thread_item(nc * ndc, [&](const unsigned int l) {
        const unsigned int c = code(l);
        if (!internal::is_constraint_row(c))
          add(c, dofs()[l]);
        else if (atomic)
          internal::distribute_dof(c, dofs()[l], lines, add);
      });
      if (!atomic)
        first_thread_only([&]() {
          for (unsigned int l = 0; l < nc * ndc; ++l)
            if (internal::is_constraint_row(code(l)))
              internal::distribute_dof(code(l), dofs()[l], lines, add);
        });
    }

    /// f() on the cell's first thread (on the host: between barriers), then a barrier.
    template <typename F>
    __host__ __device__ void
    first_thread_only(const F &f) const
    {
#ifdef __CUDA_ARCH__
      if (thread == 0)
        f();
      __syncthreads();
#else
      host_collective(f);
#endif
    }

    __host__ __device__ Number
    normal(const unsigned int d, const unsigned int q) const
    {
      const std::size_t N = std::size_t(data.faces.n_faces) * nqf;
      return internal::read_only(data.faces.normal + d * N + std::size_t(face_number) * nqf + q);
    }

    /// d xi_e / d x_d of this side's cell at point q.
    __host__ __device__ Number
    jinv(const unsigned int e, const unsigned int d, const unsigned int q) const
    {
      const std::size_t  N    = std::size_t(data.faces.n_faces) * nqf;
      const unsigned int side = interior ? 0 : 1;
      return internal::read_only(data.faces.inv_jacobian + ((side * dim + e) * dim + d) * N +
                                 std::size_t(face_number) * nqf + q);
    }

    /// The cell's reference direction of face direction @p e (within the face first, the normal last).
    __host__ __device__ unsigned int
    reference_axis(const unsigned int e) const
    {
      const unsigned int dn = face_no / 2;
      if (e == dim - 1)
        return dn;
      return e < dn ? e : e + 1;
    }

    /// This side's own point of point q (the exterior side's face may be rotated or flipped).
    __host__ __device__ unsigned int
    own_point(const unsigned int q) const
    {
      return permutation == nullptr ? q : internal::read_only(permutation + q);
    }

    /// The 1D basis (derivative k) at the face's end of the reference interval.
    __host__ __device__ Number
    on_face(const unsigned int k, const unsigned int i) const
    {
      return internal::read_only(data.faces.shape_on_face + ((face_no % 2) * 2 + k) * nd + i);
    }

    __host__ __device__ void
    check_point(const unsigned int q) const
    {
      internal::require(q < nqf && q >= thread && (q - thread) % n_threads == 0,
                        "gpumf::FEFaceEvaluation: a thread read or submitted a face point it does not own (thread t "
                        "of T owns the points t, t + T, ...): loop over the points with "
                        "apply_for_each_quad_point(), not over all n_q_points in every thread.");
    }

    __host__ __device__ static void
    check_flags(const unsigned int flags)
    {
      constexpr unsigned int supported = EvaluationFlags::values | EvaluationFlags::gradients;
      internal::require((flags & ~supported) == 0,
                        "gpumf::FEFaceEvaluation: evaluate()/integrate() support EvaluationFlags::values and "
                        "gradients only (no hessians).");
    }

    __host__ __device__ static void
    syncthreads()
    {
#ifdef __CUDA_ARCH__
      __syncthreads();
#else
      internal::host_barrier();
#endif
    }

    /// f(i) for the items i < n of the calling thread (on the host: all on the first thread,
    /// between barriers), then a barrier.
    template <typename F>
    __host__ __device__ void
    for_each_thread_item(const unsigned int n, const F &f) const
    {
#ifdef __CUDA_ARCH__
      for (unsigned int i = thread; i < n; i += n_threads)
        f(i);
      __syncthreads();
#else
      host_collective([&]() {
        for (unsigned int i = 0; i < n; ++i)
          f(i);
      });
#endif
    }

#ifdef __CUDA_ARCH__
    /// The in-face directions of this side's face.
    __device__ void
    axes(unsigned int &dn, unsigned int &a0, unsigned int &a1) const
    {
      dn = face_no / 2;
      a0 = dn == 0 ? 1 : 0;
      a1 = dn == 2 ? 1 : 2;
    }

    /// The n_q x n_dofs_1d interpolation matrix of in-face direction @p k (0: the lower axis):
    /// to the points of the face, or of the half of the interval a subface covers.
    __device__ const Number *
    in_face_values(const unsigned int k) const
    {
      if (subface == internal::FaceData<dim, Number>::no_subface)
        return shape_values;
      return data.faces.subface_values + ((subface >> k) & 1) * nq * nd;
    }

    __device__ static unsigned int
    stride(const unsigned int d)
    {
      return d == 0 ? 1 : d == 1 ? nd : nd * nd;
    }

    __device__ void
    device_evaluate(const bool with_gradients)
    {
      unsigned int dn, a0, a1;
      axes(dn, a0, a1);
      Number *A0 = work(0), *A1 = work(1), *B0 = work(2), *B1 = work(3);
      // the DoFs along the normal to the face: values and normal derivatives on the face's DoF grid
      for (unsigned int k = thread; k < nc * ndf; k += n_threads)
        {
          const unsigned int c = k / ndf, m = k % ndf;
          const unsigned int base = c * ndc + (m % nd) * stride(a0) + (dim == 3 ? (m / nd) * stride(a1) : 0);
          Number             v0 = 0, v1 = 0;
          internal::tensor::line_dot_two_rows<nd>([&](const unsigned int i) { return on_face(0, i); },
                                                  [&](const unsigned int i) { return on_face(1, i); },
                                                  [&](const unsigned int i) { return dofs()[base + i * stride(dn)]; },
                                                  v0,
                                                  v1,
                                                  with_gradients);
          A0[c * nqf + m] = v0;
          A1[c * nqf + m] = v1;
        }
      __syncthreads();
      // within the face: one direction at a time to the points
      const Number *S0 = in_face_values(0), *S1 = in_face_values(1);
      internal::tensor::face_pass<0, false, nq, nd>(
        S0, A0, A1, B0, B1, with_gradients, dim == 3 ? nd : 1, nc, nqf, thread, n_threads);
      __syncthreads();
      Number *point_values = B0, *point_normal = B1;
      if constexpr (dim == 3)
        {
          internal::tensor::face_pass<1, false, nq, nd>(
            S1, B0, B1, A0, A1, with_gradients, nq, nc, nqf, thread, n_threads);
          __syncthreads();
          point_values = A0, point_normal = A1;
        }
      // in the order of the interior side, tangential derivatives, real gradients
      for (unsigned int k = thread; k < nc * nqf; k += n_threads)
        {
          const unsigned int c = k / nqf, q = k % nqf, p = own_point(q), pa = p % nq, pb = p / nq;
          const Number      *line = point_values + c * nqf;
          values()[c * nqf + q]   = line[p];
          if (!with_gradients)
            {
              // as on the host: no stale gradients of an earlier evaluator in this slot
              for (unsigned int d = 0; d < dim; ++d)
                gradients(d)[c * nqf + q] = Number(0);
              continue;
            }
          Number reference[dim];
          reference[dn] = point_normal[c * nqf + p];
          const Number t0 =
            internal::tensor::line_dot<nq, false, nq>(co_shape_gradients, pa, [&](const unsigned int r) {
              return line[r + nq * pb];
            });
          const Number t1 =
            dim == 3 ?
              internal::tensor::line_dot<nq, false, nq>(co_shape_gradients,
                                                        pb,
                                                        [&](const unsigned int r) { return line[pa + nq * r]; }) :
              Number(0);
          // on a subface the points' coordinate is (x + s) / 2: derivatives in the cell's twice those
          const Number scale = subface == internal::FaceData<dim, Number>::no_subface ? Number(1) : Number(2);
          reference[a0]      = scale * t0;
          if (dim == 3)
            reference[a1] = scale * t1;
          for (unsigned int d = 0; d < dim; ++d)
            {
              Number sum = 0;
              for (unsigned int e = 0; e < dim; ++e)
                sum += reference[e] * jinv(e, d, q);
              gradients(d)[c * nqf + q] = sum;
            }
        }
      __syncthreads();
    }

    __device__ void
    device_integrate(const bool with_values, const bool with_gradients)
    {
      unsigned int dn, a0, a1;
      axes(dn, a0, a1);
      Number *A0 = work(0), *A1 = work(1), *B0 = work(2), *B1 = work(3);
      // to this side's own point order, reference components
      for (unsigned int k = thread; k < nc * nqf; k += n_threads)
        {
          const unsigned int c = k / nqf, q = k % nqf, p = own_point(q);
          A0[c * nqf + p] = with_values ? values()[c * nqf + q] : Number(0);
          if (!with_gradients)
            continue;
          Number reference[dim];
          for (unsigned int e = 0; e < dim; ++e)
            {
              Number sum = 0;
              for (unsigned int d = 0; d < dim; ++d)
                sum += jinv(e, d, q) * gradients(d)[c * nqf + q];
              reference[e] = sum;
            }
          const Number scale = subface == internal::FaceData<dim, Number>::no_subface ? Number(1) : Number(2);
          A1[c * nqf + p]    = reference[dn];
          B0[c * nqf + p]    = scale * reference[a0];
          B1[c * nqf + p]    = dim == 3 ? scale * reference[a1] : Number(0);
        }
      __syncthreads();
      Number *point_values = A0;
      if (with_gradients)
        {
          // the transpose of the tangential derivatives, added to the values
          Number *sum_out = values();
          for (unsigned int k = thread; k < nc * nqf; k += n_threads)
            {
              const unsigned int c = k / nqf, p = k % nqf, pa = p % nq, pb = p / nq;
              Number             sum = A0[c * nqf + p];
              for (unsigned int r = 0; r < nq; ++r)
                {
                  sum += co_shape_gradients[r * nq + pa] * B0[c * nqf + r + nq * pb];
                  if (dim == 3)
                    sum += co_shape_gradients[r * nq + pb] * B1[c * nqf + pa + nq * r];
                }
              sum_out[c * nqf + p] = sum;
            }
          __syncthreads();
          point_values = sum_out;
        }
      Number       *face0 = B0, *face1 = B1;
      const Number *S0 = in_face_values(0), *S1 = in_face_values(1);
      if constexpr (dim == 3)
        {
          internal::tensor::face_pass<1, true, nq, nd>(
            S1, point_values, A1, B0, B1, with_gradients, nq, nc, nqf, thread, n_threads);
          __syncthreads();
          internal::tensor::face_pass<0, true, nq, nd>(
            S0, B0, B1, A0, A1, with_gradients, nd, nc, nqf, thread, n_threads);
          __syncthreads();
          face0 = A0, face1 = A1;
        }
      else
        {
          internal::tensor::face_pass<0, true, nq, nd>(
            S0, point_values, A1, B0, B1, with_gradients, 1, nc, nqf, thread, n_threads);
          __syncthreads();
        }
      // along the normal into the cell's DoFs
      for (unsigned int k = thread; k < nc * ndc; k += n_threads)
        {
          const unsigned int c = k / ndc, l = k % ndc;
          const unsigned int i0 = l % nd, i1 = (l / nd) % nd, i2 = l / (nd * nd);
          const unsigned int index[3] = {i0, i1, i2};
          const unsigned int m        = index[a0] + (dim == 3 ? nd * index[a1] : 0);
          Number             v        = on_face(0, index[dn]) * face0[c * nqf + m];
          if (with_gradients)
            v += on_face(1, index[dn]) * face1[c * nqf + m];
          dofs()[k] = v;
        }
      __syncthreads();
    }
#else
    template <typename F>
    void
    host_collective(const F &f) const
    {
      internal::host_barrier();
      if (thread == 0)
        f();
      internal::host_barrier();
    }

    /// The tensor-product basis function @p l at own point @p p: value and reference gradient.
    void
    host_basis(const unsigned int l, const unsigned int p, Number &phi, Number (&grad)[dim]) const
    {
      const unsigned int dn = face_no / 2;
      unsigned int point[dim];
      unsigned int half[dim] = {}; // on a subface: the half of the interval in direction d
      for (unsigned int d = 0, k = 0, rest = p; d < dim; ++d)
        if (d != dn)
          {
            point[d] = rest % nq;
            half[d] = (subface >> k) & 1;
            rest /= nq;
            ++k;
          }
        else
          point[d] = 0;
      const bool sub = subface != internal::FaceData<dim, Number>::no_subface;
      const Number *values = shape_values, *derivatives = shape_gradients;
      phi = 1;
      for (unsigned int e = 0; e < dim; ++e)
        grad[e] = 1;
      for (unsigned int d = 0, rest = l; d < dim; ++d, rest /= nd)
        {
          const unsigned int i = rest % nd;
          const unsigned int entry = ((sub ? half[d] * nq : 0) + point[d]) * nd + i;
          const Number value = d == dn ? on_face(0, i) : (sub ? data.faces.subface_values : values)[entry];
          const Number deriv = d == dn ? on_face(1, i) : (sub ? data.faces.subface_gradients : derivatives)[entry];
          phi *= value;
          for (unsigned int e = 0; e < dim; ++e)
            grad[e] *= e == d ? deriv : value;
        }
    }

    void
    host_evaluate(const bool with_gradients)
    {
      for (unsigned int c = 0; c < nc; ++c)
        for (unsigned int q = 0; q < nqf; ++q)
          {
            Number value = 0, reference[dim] = {};
            for (unsigned int l = 0; l < ndc; ++l)
              {
                Number phi, grad[dim];
                host_basis(l, own_point(q), phi, grad);
                const Number u = dofs()[c * ndc + l];
                value += phi * u;
                for (unsigned int e = 0; e < dim; ++e)
                  reference[e] += grad[e] * u;
              }
            values()[c * nqf + q] = value;
            for (unsigned int d = 0; d < dim; ++d)
              {
                Number sum = 0;
                for (unsigned int e = 0; e < dim; ++e)
                  sum += reference[e] * jinv(e, d, q);
                gradients(d)[c * nqf + q] = with_gradients ? sum : Number(0);
              }
          }
    }

    void
    host_integrate(const bool with_values, const bool with_gradients)
    {
      for (unsigned int c = 0; c < nc; ++c)
        for (unsigned int l = 0; l < ndc; ++l)
          {
            Number sum = 0;
            for (unsigned int q = 0; q < nqf; ++q)
              {
                Number phi, grad[dim];
                host_basis(l, own_point(q), phi, grad);
                if (with_values)
                  sum += phi * values()[c * nqf + q];
                if (with_gradients)
                  for (unsigned int e = 0; e < dim; ++e)
                    {
                      Number reference = 0;
                      for (unsigned int d = 0; d < dim; ++d)
                        reference += jinv(e, d, q) * gradients(d)[c * nqf + q];
                      sum += grad[e] * reference;
                    }
              }
            dofs()[c * ndc + l] = sum;
          }
    }
#endif
  };
} // namespace gpumf

#endif
