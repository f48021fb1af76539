// gpumf::BlockVector: include/gpumf/block_vector.h states the contract. Written here rather than
// taken from deal.II's BlockVectorBase, which reads and writes single entries through the
// blocks' operator() (a host-device copy each for gpumf::Vector) and whose reductions assume
// deal.II's vectors; the operations here are the blocks' own.
#include <gpumf/block_vector.h>

#include <deal.II/lac/vector_memory.templates.h>

#include <algorithm>
#include <cmath>

namespace gpumf
{
  template <typename Number>
  BlockVector<Number>::BlockVector(const unsigned int n_blocks)
  {
    reinit(n_blocks);
  }

  template <typename Number>
  BlockVector<Number>::BlockVector(const BlockVector &other)
    : internal::EnableObserverPointer()
    , blocks(other.blocks)
    , total_size(other.total_size)
  {}

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator=(const BlockVector &other)
  {
    if (this == &other)
      return *this;
    if (blocks.size() != other.blocks.size())
      blocks.resize(other.blocks.size());
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b] = other.blocks[b];
    total_size = other.total_size;
    return *this;
  }

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator=(const Number s)
  {
    for (auto &v : blocks)
      v = s;
    return *this;
  }

  template <typename Number>
  void
  BlockVector<Number>::reinit(const unsigned int n_blocks)
  {
    blocks.clear();
    blocks.resize(n_blocks);
    total_size = 0;
  }

  template <typename Number>
  void
  BlockVector<Number>::reinit(const BlockVector &other, const bool omit_zeroing_entries)
  {
    if (blocks.size() != other.blocks.size())
      blocks.resize(other.blocks.size());
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].reinit(other.blocks[b], omit_zeroing_entries);
    collect_sizes();
  }

  template <typename Number>
  void
  BlockVector<Number>::collect_sizes()
  {
    total_size = 0;
    for (const auto &v : blocks)
      total_size += v.size();
  }

  template <typename Number>
  unsigned int
  BlockVector<Number>::n_blocks() const
  {
    return blocks.size();
  }

  template <typename Number>
  Vector<Number> &
  BlockVector<Number>::block(const unsigned int b)
  {
    AssertThrow(b < n_blocks(),
                ExcNotSupported("gpumf::BlockVector::block(" + std::to_string(b) + "): the vector has " +
                                std::to_string(n_blocks()) + " blocks."));
    return blocks[b];
  }

  template <typename Number>
  const Vector<Number> &
  BlockVector<Number>::block(const unsigned int b) const
  {
    AssertThrow(b < n_blocks(),
                ExcNotSupported("gpumf::BlockVector::block(" + std::to_string(b) + "): the vector has " +
                                std::to_string(n_blocks()) + " blocks."));
    return blocks[b];
  }

  template <typename Number>
  typename BlockVector<Number>::size_type
  BlockVector<Number>::size() const
  {
    return total_size;
  }

  template <typename Number>
  typename BlockVector<Number>::size_type
  BlockVector<Number>::locally_owned_size() const
  {
    size_type n = 0;
    for (const auto &v : blocks)
      n += v.locally_owned_size();
    return n;
  }

  template <typename Number>
  void
  BlockVector<Number>::swap(BlockVector &other)
  {
    std::swap(blocks, other.blocks);
    std::swap(total_size, other.total_size);
  }

  template <typename Number>
  void
  BlockVector<Number>::check_blocks(const unsigned int n) const
  {
    AssertThrow(n == n_blocks(),
                ExcVectorMismatch("a block vector of " + std::to_string(n) + " blocks",
                                  "this gpumf::BlockVector of " + std::to_string(n_blocks()) + " blocks"));
  }

  template <typename Number>
  void
  BlockVector<Number>::check_compatible(const BlockVector &v) const
  {
    check_blocks(v.n_blocks());
    for (unsigned int b = 0; b < n_blocks(); ++b)
      AssertThrow(
        blocks[b].size() == v.blocks[b].size(),
        ExcVectorMismatch("block " + std::to_string(b) + " of " + std::to_string(v.blocks[b].size()) + " entries",
                          "block " + std::to_string(b) + " of " + std::to_string(blocks[b].size()) + " entries"));
  }

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator*=(const Number factor)
  {
    for (auto &v : blocks)
      v *= factor;
    return *this;
  }

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator/=(const Number factor)
  {
    for (auto &v : blocks)
      v /= factor;
    return *this;
  }

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator+=(const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b] += v.blocks[b];
    return *this;
  }

  template <typename Number>
  BlockVector<Number> &
  BlockVector<Number>::operator-=(const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b] -= v.blocks[b];
    return *this;
  }

  template <typename Number>
  void
  BlockVector<Number>::add(const Number a)
  {
    for (auto &v : blocks)
      v.add(a);
  }

  template <typename Number>
  void
  BlockVector<Number>::add(const Number a, const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].add(a, v.blocks[b]);
  }

  template <typename Number>
  void
  BlockVector<Number>::add(const Number a, const BlockVector &v, const Number c, const BlockVector &w)
  {
    check_compatible(v);
    check_compatible(w);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].add(a, v.blocks[b], c, w.blocks[b]);
  }

  template <typename Number>
  void
  BlockVector<Number>::sadd(const Number s, const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].sadd(s, v.blocks[b]);
  }

  template <typename Number>
  void
  BlockVector<Number>::sadd(const Number s, const Number a, const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].sadd(s, a, v.blocks[b]);
  }

  template <typename Number>
  void
  BlockVector<Number>::equ(const Number a, const BlockVector &v)
  {
    check_compatible(v);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].equ(a, v.blocks[b]);
  }

  template <typename Number>
  void
  BlockVector<Number>::scale(const BlockVector &scaling_factors)
  {
    check_compatible(scaling_factors);
    for (unsigned int b = 0; b < n_blocks(); ++b)
      blocks[b].scale(scaling_factors.blocks[b]);
  }

  template <typename Number>
  Number
  BlockVector<Number>::operator*(const BlockVector &v) const
  {
    check_compatible(v);
    Number sum = 0;
    for (unsigned int b = 0; b < n_blocks(); ++b)
      sum += blocks[b] * v.blocks[b];
    return sum;
  }

  template <typename Number>
  Number
  BlockVector<Number>::add_and_dot(const Number a, const BlockVector &v, const BlockVector &w)
  {
    check_compatible(v);
    check_compatible(w);
    Number sum = 0;
    for (unsigned int b = 0; b < n_blocks(); ++b)
      sum += blocks[b].add_and_dot(a, v.blocks[b], w.blocks[b]);
    return sum;
  }

  template <typename Number>
  typename BlockVector<Number>::real_type
  BlockVector<Number>::l1_norm() const
  {
    real_type sum = 0;
    for (const auto &v : blocks)
      sum += v.l1_norm();
    return sum;
  }

  template <typename Number>
  typename BlockVector<Number>::real_type
  BlockVector<Number>::norm_sqr() const
  {
    real_type sum = 0;
    for (const auto &v : blocks)
      sum += v.norm_sqr();
    return sum;
  }

  template <typename Number>
  typename BlockVector<Number>::real_type
  BlockVector<Number>::l2_norm() const
  {
    return std::sqrt(norm_sqr());
  }

  template <typename Number>
  typename BlockVector<Number>::real_type
  BlockVector<Number>::linfty_norm() const
  {
    real_type most = 0;
    for (const auto &v : blocks)
      most = std::max(most, v.linfty_norm());
    return most;
  }

  template <typename Number>
  Number
  BlockVector<Number>::mean_value() const
  {
    Number sum = 0;
    for (const auto &v : blocks)
      sum += v.mean_value() * Number(v.size());
    return total_size == 0 ? Number(0) : sum / Number(total_size);
  }

  template <typename Number>
  bool
  BlockVector<Number>::all_zero() const
  {
    return std::all_of(blocks.begin(), blocks.end(), [](const Vector<Number> &v) { return v.all_zero(); });
  }

  template <typename Number>
  MPI_Comm
  BlockVector<Number>::get_mpi_communicator() const
  {
    return blocks.empty() ? MPI_COMM_SELF : blocks[0].get_mpi_communicator();
  }

  template <typename Number>
  void
  BlockVector<Number>::update_ghost_values() const
  {
    for (const auto &v : blocks)
      v.update_ghost_values();
  }

  template <typename Number>
  void
  BlockVector<Number>::zero_out_ghost_values() const
  {
    for (const auto &v : blocks)
      v.zero_out_ghost_values();
  }

  template <typename Number>
  void
  BlockVector<Number>::compress(const dealii::VectorOperation::values operation)
  {
    for (auto &v : blocks)
      v.compress(operation);
  }

  template <typename Number>
  bool
  BlockVector<Number>::has_ghost_elements() const
  {
    return std::any_of(blocks.begin(), blocks.end(), [](const Vector<Number> &v) { return v.has_ghost_elements(); });
  }

  template <typename Number>
  std::size_t
  BlockVector<Number>::memory_consumption() const
  {
    std::size_t bytes = sizeof(*this);
    for (const auto &v : blocks)
      bytes += v.memory_consumption();
    return bytes;
  }

  template class BlockVector<float>;
  template class BlockVector<double>;
} // namespace gpumf

// deal.II's solvers take their temporary vectors from a GrowingVectorMemory.
template class dealii::VectorMemory<gpumf::BlockVector<float>>;
template class dealii::VectorMemory<gpumf::BlockVector<double>>;
template class dealii::GrowingVectorMemory<gpumf::BlockVector<float>>;
template class dealii::GrowingVectorMemory<gpumf::BlockVector<double>>;
