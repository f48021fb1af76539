/**
 * @file gpumf/block_vector.h
 * gpumf::BlockVector: several gpumf::Vector blocks (a velocity and a pressure, say) that
 * deal.II's solvers and preconditioners treat as one vector. deal.II equivalent:
 * LinearAlgebra::distributed::BlockVector<Number, MemorySpace::Default>.
 *
 * Each block keeps its own layout, backend and ghost exchange; the vector operations run block
 * by block, and a reduction (dot product, norm) is the sum of the blocks' reductions, each
 * summed over MPI. MatrixFree::cell_loop() takes a BlockVector as source and destination (block
 * k of DoFHandler k's layout; the functor receives a Portable::DeviceBlockVector), and
 * MatrixFree::initialize_dof_vector() makes one with a block per DoFHandler.
 */
#ifndef gpumf_block_vector_h
#define gpumf_block_vector_h

#include <gpumf/vector.h>

#include <deal.II/lac/la_parallel_block_vector.h>

#include <vector>

namespace gpumf
{
  template <typename Number>
  class BlockVector : public internal::EnableObserverPointer
  {
  public:
    using value_type = Number;
    using real_type  = typename Vector<Number>::real_type;
    using size_type  = typename Vector<Number>::size_type;
    using BlockType  = Vector<Number>;

    BlockVector() = default;

    /// @p n_blocks empty blocks (deal.II's BlockVector(n_blocks)); give each a layout, then collect_sizes().
    explicit BlockVector(const unsigned int n_blocks);

    BlockVector(const BlockVector &other);

    BlockVector &
    operator=(const BlockVector &other);

    /// Every owned entry of every block set to @p s.
    BlockVector &
    operator=(const Number s);

    /// @p n_blocks empty blocks.
    void
    reinit(const unsigned int n_blocks);

    /// The blocks of @p other's layouts and backends, zeroed unless @p omit_zeroing_entries.
    void
    reinit(const BlockVector &other, const bool omit_zeroing_entries = false);

    /// Recomputes size() after the blocks changed (as deal.II's).
    void
    collect_sizes();

    unsigned int
    n_blocks() const;

    Vector<Number> &
    block(const unsigned int b);

    const Vector<Number> &
    block(const unsigned int b) const;

    /// The entries of all blocks.
    size_type
    size() const;

    /// This rank's owned entries of all blocks.
    size_type
    locally_owned_size() const;

    void
    swap(BlockVector &other);

    BlockVector &
    operator*=(const Number factor);
    BlockVector &
    operator/=(const Number factor);
    BlockVector &
    operator+=(const BlockVector &v);
    BlockVector &
    operator-=(const BlockVector &v);
    void
    add(const Number a);
    void
    add(const Number a, const BlockVector &v);
    void
    add(const Number a, const BlockVector &v, const Number b, const BlockVector &w);
    void
    sadd(const Number s, const BlockVector &v);
    void
    sadd(const Number s, const Number a, const BlockVector &v);
    void
    equ(const Number a, const BlockVector &v);
    void
    scale(const BlockVector &scaling_factors);
    /// The dot product over all blocks (and ranks).
    Number
    operator*(const BlockVector &v) const;
    /// this += a v, then this . w, over all blocks.
    Number
    add_and_dot(const Number a, const BlockVector &v, const BlockVector &w);
    real_type
    l1_norm() const;
    real_type
    l2_norm() const;
    real_type
    norm_sqr() const;
    real_type
    linfty_norm() const;
    /// The mean of all entries of all blocks.
    Number
    mean_value() const;
    bool
    all_zero() const;

    /// The blocks' communicator (MPI_COMM_SELF without blocks).
    MPI_Comm
    get_mpi_communicator() const;

    void
    update_ghost_values() const;
    void
    zero_out_ghost_values() const;
    void
    compress(const dealii::VectorOperation::values operation);
    bool
    has_ghost_elements() const;

    /// The owned entries of deal.II's block vector @p v (LinearAlgebra::distributed::BlockVector,
    /// host or, deal.II 9.5+, default memory space; the same blocks and layouts), by @p operation
    /// (insert or add), block by block (Vector::import_elements()).
    template <typename DealIIBlockVector>
    void
    import_elements(const DealIIBlockVector &v, const dealii::VectorOperation::values operation)
    {
      check_blocks(v.n_blocks());
      for (unsigned int b = 0; b < n_blocks(); ++b)
        blocks[b].import_elements(v.block(b), operation);
    }

    /// The owned entries into deal.II's block vector @p v (Vector::export_to()).
    template <typename DealIIBlockVector>
    void
    export_to(DealIIBlockVector &v, const dealii::VectorOperation::values operation) const
    {
      check_blocks(v.n_blocks());
      for (unsigned int b = 0; b < n_blocks(); ++b)
        blocks[b].export_to(v.block(b), operation);
    }

    std::size_t
    memory_consumption() const;

  private:
    /// Throws unless @p n is n_blocks().
    void
    check_blocks(const unsigned int n) const;
    /// Throws unless @p v has as many blocks of the same sizes.
    void
    check_compatible(const BlockVector &v) const;

    std::vector<Vector<Number>> blocks;
    size_type                   total_size = 0;
  };

  /// u.swap(v) (deal.II's solvers call swap(u, v), as for deal.II's vectors).
  template <typename Number>
  inline void
  swap(BlockVector<Number> &u, BlockVector<Number> &v)
  {
    u.swap(v);
  }

  /// u.swap(v).
  template <typename Number>
  inline void
  swap(Vector<Number> &u, Vector<Number> &v)
  {
    u.swap(v);
  }
} // namespace gpumf

#endif
