/**
 * @file gpumf/operator_base.h
 * The common part of matrix-free operators on gpumf::MatrixFree: constrained rows, multigrid
 * refinement edges, interface matrices, the diagonal and Jacobi. deal.II equivalents:
 * MatrixFreeOperators::Base and MatrixFreeOperators::MGInterfaceOperator (matrix_free/operators.h).
 * Host code only (the cell work is the derived class's apply_add()): include from .cc or .cu files.
 */
#ifndef gpumf_operator_base_h
#define gpumf_operator_base_h

#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/diagonal.h>
#include <gpumf/matrix_free.h>
#include <gpumf/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <memory>

namespace gpumf
{
  /// Operators on gpumf::MatrixFree (deal.II: namespace MatrixFreeOperators).
  namespace MatrixFreeOperators
  {
    /**
     * Base class of operators on a gpumf::MatrixFree object, as deal.II's
     * MatrixFreeOperators::Base<dim, VectorType>: a derived class implements apply_add()
     * (the cells' contributions, e.g. through MatrixFree::cell_loop()) and compute_diagonal();
     * this class adds what every operator shares:
     *
     * - rows of constrained DoFs (the MatrixFree object's constraints) are the identity;
     * - on a multigrid level given with MGConstrainedDoFs, the refinement-edge DoFs
     *   (MGConstrainedDoFs::get_refinement_edge_indices(level)) are Dirichlet conditions of the
     *   level matrix: read as zero, their rows the identity; vmult_interface_down() and
     *   vmult_interface_up() apply the coupling between them and the other DoFs
     *   (for deal.II's Multigrid::set_edge_matrices() through MGInterfaceOperator);
     * - the diagonal as a DiagonalMatrix, el(i, i), precondition_Jacobi() and Jacobi_step()
     *   (deal.II's PreconditionJacobi).
     *
     * Everything runs on the MatrixFree object's backend with gpumf::Vector operations; the
     * refinement-edge handling costs a few vector passes and only on levels that have such DoFs
     * (adaptively refined meshes).
     */
    template <int dim, typename VectorType>
    class Base : public internal::EnableObserverPointer
    {
    public:
      using value_type = typename VectorType::value_type;
      using size_type  = typename VectorType::size_type;
      using Number     = value_type;

      virtual ~Base() = default;

      /// Works on @p data (active cells, or a level without refinement-edge treatment).
      void
      initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &data)
      {
        this->data = data;
        edge_mask.reset();
        non_edge_mask.reset();
        have_interface_matrices = false;
        diagonal_entries.reset();
        inverse_diagonal_entries.reset();
      }

      /**
       * Works on the level @p level of @p data (AdditionalData::mg_level), treating the refinement-edge
       * DoFs of @p mg_constrained_dofs on that level as described in the class documentation
       * (deal.II: Base::initialize(data, mg_constrained_dofs, level)).
       */
      void
      initialize(const std::shared_ptr<const MatrixFree<dim, Number>> &data,
                 const dealii::MGConstrainedDoFs                      &mg_constrained_dofs,
                 const unsigned int                                    level)
      {
        initialize(data);
        AssertThrow(data->get_mg_level() == level,
                    ExcNotSupported("MatrixFreeOperators::Base::initialize(): level " + std::to_string(level) +
                                    " given, but the MatrixFree object works on " +
                                    (data->get_mg_level() == dealii::numbers::invalid_unsigned_int ?
                                       std::string("the active cells") :
                                       "level " + std::to_string(data->get_mg_level())) +
                                    " (AdditionalData::mg_level)."));
        const auto                                    &partitioner = *data->get_vector_partitioner();
        dealii::LinearAlgebra::ReadWriteVector<Number> edges(partitioner.locally_owned_range());
        bool                                           any = false;
        for (const auto i : mg_constrained_dofs.get_refinement_edge_indices(level))
          if (partitioner.in_local_range(i))
            {
              edges(i) = Number(1);
              any      = true;
            }
        have_interface_matrices = dealii::Utilities::MPI::max(int(any), partitioner.get_mpi_communicator()) > 0;
        if (!have_interface_matrices)
          return;
        edge_mask = std::make_shared<VectorType>();
        data->initialize_dof_vector(*edge_mask);
        edge_mask->import(edges, dealii::VectorOperation::insert);
        non_edge_mask  = std::make_shared<VectorType>(*edge_mask);
        *non_edge_mask = Number(1);
        non_edge_mask->add(Number(-1), *edge_mask); // 1 - edge
      }

      /// Releases the MatrixFree object and the diagonal.
      virtual void
      clear()
      {
        initialize(nullptr);
      }

      /// Global number of rows (deal.II: Base::m()).
      size_type
      m() const
      {
        return matrix_free().get_vector_partitioner()->size();
      }

      size_type
      n() const
      {
        return m();
      }

      /// The diagonal entry (row == col only; needs compute_diagonal(); one host-device copy).
      value_type
      el(const size_type row, const size_type col) const
      {
        AssertThrow(row == col, ExcNotSupported("gpumf operators give diagonal entries only (el(i, i))."));
        AssertThrow(diagonal_entries != nullptr, ExcNotSupported("call compute_diagonal() before el()."));
        return diagonal_entries->get_vector()(row);
      }

      /// Gives @p vec the layout of the MatrixFree object (deal.II: Base::initialize_dof_vector()).
      void
      initialize_dof_vector(VectorType &vec) const
      {
        matrix_free().initialize_dof_vector(vec);
      }

      /// dst = A src (a derived class may write dst in one pass instead of zeroing it first).
      virtual void
      vmult(VectorType &dst, const VectorType &src) const
      {
        dst = Number();
        vmult_add(dst, src);
      }

      /**
       * dst += A src: apply_add() on the cells, constrained rows and refinement-edge rows the
       * identity, refinement-edge columns zero.
       */
      virtual void
      vmult_add(VectorType &dst, const VectorType &src) const
      {
        if (!have_interface_matrices)
          {
            apply_add(dst, src);
            matrix_free().add_constrained_values(src, dst);
            return;
          }
        // edge DoFs as zero Dirichlet values: the cells see src without them, their rows
        // take src's values only
        masked(src, *non_edge_mask, source);
        initialize_dof_vector(result);
        apply_add(result, source);
        matrix_free().add_constrained_values(source, result);
        result.scale(*non_edge_mask);
        dst += result;
        masked(src, *edge_mask, source);
        dst += source;
      }

      /// The operators are symmetric: as vmult().
      void
      Tvmult(VectorType &dst, const VectorType &src) const
      {
        vmult(dst, src);
      }

      void
      Tvmult_add(VectorType &dst, const VectorType &src) const
      {
        vmult_add(dst, src);
      }

      /**
       * dst = the rows of the refinement-edge DoFs of A applied to src without its edge entries
       * (deal.II: Base::vmult_interface_down()); zero on levels without refinement edges.
       */
      void
      vmult_interface_down(VectorType &dst, const VectorType &src) const
      {
        dst = Number();
        if (!have_interface_matrices)
          return;
        masked(src, *non_edge_mask, source);
        apply_add(dst, source);
        dst.scale(*edge_mask);
      }

      /// The transpose of vmult_interface_down() (deal.II: Base::vmult_interface_up()).
      void
      vmult_interface_up(VectorType &dst, const VectorType &src) const
      {
        dst = Number();
        if (!have_interface_matrices)
          return;
        masked(src, *edge_mask, source);
        apply_add(dst, source);
        dst.scale(*non_edge_mask);
      }

      /// Computes diagonal_entries and inverse_diagonal_entries (constrained and edge rows 1).
      virtual void
      compute_diagonal() = 0;

      const std::shared_ptr<dealii::DiagonalMatrix<VectorType>> &
      get_matrix_diagonal() const
      {
        AssertThrow(diagonal_entries != nullptr, ExcNotSupported("call compute_diagonal() first."));
        return diagonal_entries;
      }

      const std::shared_ptr<dealii::DiagonalMatrix<VectorType>> &
      get_matrix_diagonal_inverse() const
      {
        AssertThrow(inverse_diagonal_entries != nullptr, ExcNotSupported("call compute_diagonal() first."));
        return inverse_diagonal_entries;
      }

      /// dst = omega D^{-1} src (deal.II: Base::precondition_Jacobi(), for PreconditionJacobi).
      void
      precondition_Jacobi(VectorType &dst, const VectorType &src, const value_type omega) const
      {
        get_matrix_diagonal_inverse()->vmult(dst, src);
        dst *= omega;
      }

      /// dst += omega D^{-1} (src - A dst): one damped Jacobi step (for PreconditionJacobi::step()).
      void
      Jacobi_step(VectorType &dst, const VectorType &src, const value_type omega) const
      {
        VectorType residual;
        residual.reinit(dst, true);
        vmult(residual, dst);
        residual.sadd(Number(-1), Number(1), src);
        residual.scale(get_matrix_diagonal_inverse()->get_vector());
        dst.add(omega, residual);
      }

      const MatrixFree<dim, Number> &
      matrix_free() const
      {
        AssertThrow(data != nullptr, dealii::ExcNotInitialized());
        return *data;
      }

      std::shared_ptr<const MatrixFree<dim, Number>>
      get_matrix_free() const
      {
        return data;
      }

      /// True on levels with refinement-edge DoFs on some rank.
      bool
      has_interface_matrices() const
      {
        return have_interface_matrices;
      }

    protected:
      /// dst += the cells' contributions to A src (no constrained rows).
      virtual void
      apply_add(VectorType &dst, const VectorType &src) const = 0;

      /// Sets the rows of constrained and refinement-edge DoFs of @p dst to one (deal.II: Base::set_constrained_entries_to_one()).
      void
      set_constrained_entries_to_one(VectorType &dst) const
      {
        matrix_free().set_constrained_values(Number(1), dst);
        if (have_interface_matrices)
          {
            dst.scale(*non_edge_mask);
            dst += *edge_mask;
          }
      }

      /// Makes diagonal_entries from @p diagonal (cell sums) and its inverse.
      void
      set_diagonal(VectorType &&diagonal)
      {
        set_constrained_entries_to_one(diagonal);
        diagonal_entries = std::make_shared<dealii::DiagonalMatrix<VectorType>>();
        diagonal_entries->get_vector().swap(diagonal);
        inverse_diagonal_entries = internal::inverse_diagonal(diagonal_entries->get_vector());
      }

      std::shared_ptr<const MatrixFree<dim, Number>>      data;
      std::shared_ptr<dealii::DiagonalMatrix<VectorType>> diagonal_entries, inverse_diagonal_entries;

    private:
      /// out = v .* mask
      void
      masked(const VectorType &v, const VectorType &mask, VectorType &out) const
      {
        out = v;
        out.scale(mask);
      }

      std::shared_ptr<VectorType> edge_mask, non_edge_mask;
      bool                        have_interface_matrices = false;
      mutable VectorType          source, result;
    };

    /**
     * The interface matrix of a level operator for deal.II's Multigrid::set_edge_matrices():
     * vmult() is OperatorType::vmult_interface_down(), Tvmult() vmult_interface_up()
     * (deal.II: MatrixFreeOperators::MGInterfaceOperator).
     */
    template <typename OperatorType>
    class MGInterfaceOperator : public internal::EnableObserverPointer
    {
    public:
      using value_type = typename OperatorType::value_type;

      void
      initialize(const OperatorType &op)
      {
        mf_base_operator = &op;
      }

      void
      clear()
      {
        mf_base_operator = nullptr;
      }

      template <typename VectorType>
      void
      vmult(VectorType &dst, const VectorType &src) const
      {
        AssertThrow(mf_base_operator != nullptr, dealii::ExcNotInitialized());
        mf_base_operator->vmult_interface_down(dst, src);
      }

      template <typename VectorType>
      void
      Tvmult(VectorType &dst, const VectorType &src) const
      {
        AssertThrow(mf_base_operator != nullptr, dealii::ExcNotInitialized());
        mf_base_operator->vmult_interface_up(dst, src);
      }

      template <typename VectorType>
      void
      initialize_dof_vector(VectorType &vec) const
      {
        mf_base_operator->initialize_dof_vector(vec);
      }

    private:
      internal::ObserverPointer<const OperatorType> mf_base_operator;
    };
  } // namespace MatrixFreeOperators
} // namespace gpumf

#endif
