// gpumf::Vector: layout, MPI ghost exchange and data exchange with deal.II.
#include <gpumf/vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/vector_memory.templates.h>

#include <cmath>

#include "vector_operations.h"

namespace gpumf
{
  using namespace dealii;

  template <typename Number>
  Vector<Number>::Vector()
  {
    reinit(0);
  }

  template <typename Number>
  Vector<Number>::Vector(const Vector &other)
    : Subscriptor()
    , partitioner(other.partitioner)
    , values(other.values)
    , import_indices(other.import_indices)
    , ghosts_valid(other.ghosts_valid)
  {}

  template <typename Number>
  Vector<Number>::Vector(const size_type size)
  {
    reinit(size);
  }

  template <typename Number>
  Vector<Number>::Vector(const IndexSet &locally_owned, const IndexSet &ghost, const MPI_Comm comm)
  {
    reinit(locally_owned, ghost, comm);
  }

  template <typename Number>
  Vector<Number>::Vector(const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
                         const Backend                                             backend)
  {
    reinit(partitioner, backend);
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Vector &other)
  {
    if (this == &other)
      return *this;
    if (partitioner.get() != other.partitioner.get() &&
        !(partitioner->is_compatible(*other.partitioner)))
      reinit(other.partitioner, backend());
    // copies between backends too: assignment is how data move host <-> device
    internal::copy(values.backend(), values.data(), other.values.backend(), other.values.data(),
                   values.size() * sizeof(Number));
    ghosts_valid = other.ghosts_valid;
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Number s)
  {
    internal::fill(backend(), values.data(), s == Number() ? values.size() : locally_owned_size(), s);
    if (s == Number())
      ghosts_valid = false;
    return *this;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const size_type size, const bool omit_zeroing_entries)
  {
    reinit(std::make_shared<Utilities::MPI::Partitioner>(size), default_backend());
    (void)omit_zeroing_entries;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const IndexSet &locally_owned, const MPI_Comm comm)
  {
    reinit(locally_owned, IndexSet(locally_owned.size()), comm);
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const IndexSet &locally_owned, const IndexSet &ghost, const MPI_Comm comm)
  {
    reinit(std::make_shared<Utilities::MPI::Partitioner>(locally_owned, ghost, comm), default_backend());
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const std::shared_ptr<const Utilities::MPI::Partitioner> &new_partitioner,
                         const Backend                                             backend)
  {
    Assert(new_partitioner, ExcNotInitialized());
    partitioner = new_partitioner;
    values.reinit(backend, partitioner->locally_owned_size() + partitioner->n_ghost_indices());
    internal::zero(backend, values.data(), values.memory_consumption());
    std::vector<unsigned int> indices;
    indices.reserve(partitioner->n_import_indices());
    for (const auto &range : partitioner->import_indices())
      for (unsigned int i = range.first; i < range.second; ++i)
        indices.push_back(i);
    import_indices.reinit(backend, indices);
    ghosts_valid = false;
  }

  template <typename Number>
  void
  Vector<Number>::reinit(const Vector &other, const bool omit_zeroing_entries)
  {
    if (partitioner.get() == other.partitioner.get() && backend() == other.backend())
      {
        if (!omit_zeroing_entries)
          internal::zero(backend(), values.data(), values.memory_consumption());
        ghosts_valid = false;
        return;
      }
    reinit(other.partitioner, other.backend());
  }

  template <typename Number>
  void
  Vector<Number>::swap(Vector &other)
  {
    std::swap(partitioner, other.partitioner);
    values.swap(other.values);
    import_indices.swap(other.import_indices);
    std::swap(ghosts_valid, other.ghosts_valid);
  }

  template <typename Number>
  void
  Vector<Number>::check_compatible(const Vector &v) const
  {
    AssertThrow(v.backend() == backend(),
                ExcVectorMismatch("backend " + to_string(backend()), "backend " + to_string(v.backend())));
    AssertThrow(v.locally_owned_size() == locally_owned_size() && v.size() == size(),
                ExcVectorMismatch(std::to_string(locally_owned_size()) + " owned of " +
                                    std::to_string(size()) + " entries",
                                  std::to_string(v.locally_owned_size()) + " owned of " +
                                    std::to_string(v.size()) + " entries"));
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator*=(const Number factor)
  {
    internal::update<Number>(backend(), values.data(), locally_owned_size(), factor, true, 0, nullptr, 0,
                             nullptr, 0);
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator/=(const Number factor)
  {
    AssertThrow(factor != Number(), ExcDivideByZero());
    return operator*=(Number(1) / factor);
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator+=(const Vector &v)
  {
    add(Number(1), v);
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator-=(const Vector &v)
  {
    add(Number(-1), v);
    return *this;
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a)
  {
    internal::update<Number>(backend(), values.data(), locally_owned_size(), 1, true, 0, nullptr, 0, nullptr,
                             a);
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v)
  {
    check_compatible(v);
    internal::update<Number>(backend(), values.data(), locally_owned_size(), 1, true, a, v.get_values(), 0,
                             nullptr, 0);
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v, const Number b, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    internal::update<Number>(backend(), values.data(), locally_owned_size(), 1, true, a, v.get_values(), b,
                             w.get_values(), 0);
  }

  template <typename Number>
  void
  Vector<Number>::sadd(const Number s, const Vector &v)
  {
    sadd(s, Number(1), v);
  }

  template <typename Number>
  void
  Vector<Number>::sadd(const Number s, const Number a, const Vector &v)
  {
    check_compatible(v);
    internal::update<Number>(backend(), values.data(), locally_owned_size(), s, true, a, v.get_values(), 0,
                             nullptr, 0);
  }

  template <typename Number>
  void
  Vector<Number>::equ(const Number a, const Vector &v)
  {
    check_compatible(v);
    internal::update<Number>(backend(), values.data(), locally_owned_size(), 0, false, a, v.get_values(), 0,
                             nullptr, 0);
  }

  template <typename Number>
  void
  Vector<Number>::scale(const Vector &scaling_factors)
  {
    check_compatible(scaling_factors);
    internal::scale(backend(), values.data(), locally_owned_size(), scaling_factors.get_values());
  }

  template <typename Number>
  Number
  Vector<Number>::operator*(const Vector &v) const
  {
    check_compatible(v);
    return Utilities::MPI::sum(
      internal::reduce(backend(), internal::Reduction::dot, get_values(), v.get_values(), locally_owned_size()),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::add_and_dot(const Number a, const Vector &v, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    return Utilities::MPI::sum(internal::add_and_dot(backend(), values.data(), locally_owned_size(), a,
                                                     v.get_values(), w.get_values()),
                               get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::l1_norm() const
  {
    return Utilities::MPI::sum(
      internal::reduce<Number>(backend(), internal::Reduction::abs_sum, get_values(), nullptr,
                               locally_owned_size()),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::norm_sqr() const
  {
    return Utilities::MPI::sum(
      internal::reduce(backend(), internal::Reduction::dot, get_values(), get_values(), locally_owned_size()),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::l2_norm() const
  {
    return std::sqrt(norm_sqr());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::linfty_norm() const
  {
    return Utilities::MPI::max(
      internal::reduce<Number>(backend(), internal::Reduction::abs_max, get_values(), nullptr,
                               locally_owned_size()),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::mean_value() const
  {
    AssertThrow(size() > 0, ExcEmptyObject());
    return Utilities::MPI::sum(internal::reduce<Number>(backend(), internal::Reduction::sum, get_values(),
                                                        nullptr, locally_owned_size()),
                               get_mpi_communicator()) /
           Number(size());
  }

  template <typename Number>
  bool
  Vector<Number>::all_zero() const
  {
    return linfty_norm() == real_type();
  }

  namespace
  {
    using Targets = std::vector<std::pair<unsigned int, unsigned int>>;

    /// Sends consecutive chunks of @p send to the (rank, count) pairs of @p send_targets
    /// and receives chunks from @p receive_targets into @p receive.
    template <typename Number>
    void
    exchange(const Targets &            send_targets,
             const std::vector<Number> &send,
             const Targets &            receive_targets,
             std::vector<Number> &      receive,
             const int                  tag,
             const MPI_Comm             comm)
    {
      std::vector<MPI_Request> requests;
      requests.reserve(send_targets.size() + receive_targets.size());
      unsigned int offset = 0;
      for (const auto &[rank, count] : receive_targets)
        {
          requests.emplace_back();
          MPI_Irecv(receive.data() + offset, count * sizeof(Number), MPI_BYTE, rank, tag, comm, &requests.back());
          offset += count;
        }
      offset = 0;
      for (const auto &[rank, count] : send_targets)
        {
          requests.emplace_back();
          MPI_Isend(send.data() + offset, count * sizeof(Number), MPI_BYTE, rank, tag, comm, &requests.back());
          offset += count;
        }
      const int ierr = MPI_Waitall(requests.size(), requests.data(), MPI_STATUSES_IGNORE);
      AssertThrowMPI(ierr);
    }
  } // namespace

  // Ghost exchange through host buffers: the owned entries that other ranks need are
  // gathered on the backend, copied to the host and sent; received ghosts are copied
  // into the ghost range. (Device buffers and CUDA-aware MPI: issue #5.)
  template <typename Number>
  void
  Vector<Number>::update_ghost_values() const
  {
    const Utilities::MPI::Partitioner &p = *partitioner;
    if (p.n_mpi_processes() > 1)
      {
        internal::Array<Number> buffer;
        buffer.reinit(backend(), p.n_import_indices());
        internal::gather(backend(), buffer.data(), get_values(), import_indices.data(), buffer.size());
        std::vector<Number> receive(p.n_ghost_indices());
        exchange(p.import_targets(), buffer.to_host(), p.ghost_targets(), receive, 1, p.get_mpi_communicator());
        internal::copy(backend(), get_values() + locally_owned_size(), Backend::host, receive.data(),
                       receive.size() * sizeof(Number));
      }
    ghosts_valid = true;
  }

  template <typename Number>
  void
  Vector<Number>::compress(const VectorOperation::values operation)
  {
    const Utilities::MPI::Partitioner &p = *partitioner;
    if (p.n_mpi_processes() > 1 && operation == VectorOperation::add)
      {
        std::vector<Number> send(p.n_ghost_indices()), receive(p.n_import_indices());
        internal::copy(Backend::host, send.data(), backend(), get_values() + locally_owned_size(),
                       send.size() * sizeof(Number));
        exchange(p.ghost_targets(), send, p.import_targets(), receive, 2, p.get_mpi_communicator());
        internal::Array<Number> buffer;
        buffer.reinit(backend(), receive);
        // one pass per sending rank: the indices within one pass are unique
        unsigned int offset = 0;
        for (const auto &[rank, count] : p.import_targets())
          {
            internal::scatter_add(backend(), values.data(), import_indices.data() + offset, buffer.data() + offset,
                                  count);
            offset += count;
          }
      }
    zero_out_ghost_values();
  }

  template <typename Number>
  void
  Vector<Number>::zero_out_ghost_values() const
  {
    internal::zero(backend(), get_values() + locally_owned_size(),
                   partitioner->n_ghost_indices() * sizeof(Number));
    ghosts_valid = false;
  }

  template <typename Number>
  bool
  Vector<Number>::has_ghost_elements() const
  {
    return ghosts_valid;
  }

  template <typename Number>
  void
  Vector<Number>::import(const LinearAlgebra::ReadWriteVector<Number> &rw,
                         const VectorOperation::values                 operation,
                         const std::shared_ptr<const Utilities::MPI::CommunicationPatternBase> &)
  {
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::import supports VectorOperation::insert and add."));
    const IndexSet owned = locally_owned_elements();
    AssertThrow((owned & rw.get_stored_elements()) == owned,
                ExcMessage("gpumf::Vector::import needs a ReadWriteVector that stores every locally owned "
                           "index of the vector (e.g. one made from locally_owned_elements())."));
    std::vector<Number> host(locally_owned_size());
    if (operation == VectorOperation::add)
      internal::copy(Backend::host, host.data(), backend(), get_values(), host.size() * sizeof(Number));
    unsigned int i = 0;
    for (const auto g : owned)
      {
        host[i] = (operation == VectorOperation::add ? host[i] : Number()) + rw(g);
        ++i;
      }
    internal::copy(backend(), values.data(), Backend::host, host.data(), host.size() * sizeof(Number));
  }

  template <typename Number>
  void
  Vector<Number>::export_to(LinearAlgebra::ReadWriteVector<Number> &rw,
                            const VectorOperation::values           operation) const
  {
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::export_to supports VectorOperation::insert and add."));
    const IndexSet owned = locally_owned_elements();
    AssertThrow((owned & rw.get_stored_elements()) == rw.get_stored_elements(),
                ExcMessage("gpumf::Vector::export_to needs a ReadWriteVector whose stored indices are "
                           "locally owned by the vector."));
    std::vector<Number> host(locally_owned_size());
    internal::copy(Backend::host, host.data(), backend(), get_values(), host.size() * sizeof(Number));
    for (const auto g : rw.get_stored_elements())
      {
        const Number v = host[owned.index_within_set(g)];
        rw(g)          = operation == VectorOperation::insert ? v : rw(g) + v;
      }
  }

  template <typename Number>
  Number
  Vector<Number>::get_entry(const unsigned int local_index) const
  {
    AssertIndexRange(local_index, values.size());
    Number value;
    internal::copy(Backend::host, &value, backend(), get_values() + local_index, sizeof(Number));
    return value;
  }

  template <typename Number>
  void
  Vector<Number>::set_entry(const unsigned int local_index, const Number value)
  {
    AssertIndexRange(local_index, values.size());
    internal::copy(backend(), get_values() + local_index, Backend::host, &value, sizeof(Number));
  }

  template <typename Number>
  typename Vector<Number>::size_type
  Vector<Number>::size() const
  {
    return partitioner->size();
  }

  template <typename Number>
  typename Vector<Number>::size_type
  Vector<Number>::locally_owned_size() const
  {
    return partitioner->locally_owned_size();
  }

  template <typename Number>
  IndexSet
  Vector<Number>::locally_owned_elements() const
  {
    return partitioner->locally_owned_range();
  }

  template <typename Number>
  bool
  Vector<Number>::in_local_range(const size_type global_index) const
  {
    return partitioner->in_local_range(global_index);
  }

  template <typename Number>
  const std::shared_ptr<const Utilities::MPI::Partitioner> &
  Vector<Number>::get_partitioner() const
  {
    return partitioner;
  }

  template <typename Number>
  MPI_Comm
  Vector<Number>::get_mpi_communicator() const
  {
    return partitioner->get_mpi_communicator();
  }

  template <typename Number>
  Backend
  Vector<Number>::backend() const
  {
    return values.backend();
  }

  template <typename Number>
  Number *
  Vector<Number>::get_values() const
  {
    return values.data();
  }

  template <typename Number>
  std::size_t
  Vector<Number>::memory_consumption() const
  {
    return sizeof(*this) + values.memory_consumption() + import_indices.memory_consumption() +
           partitioner->memory_consumption();
  }

  template class Vector<float>;
  template class Vector<double>;
} // namespace gpumf

// deal.II's solvers take their temporary vectors from a GrowingVectorMemory.
template class dealii::VectorMemory<gpumf::Vector<float>>;
template class dealii::VectorMemory<gpumf::Vector<double>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<float>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<double>>;

// AffineConstraints::set_zero(), which deal.II's PreconditionChebyshev calls.
template void
dealii::internal::AffineConstraintsImplementation::set_zero_all(const std::vector<dealii::types::global_dof_index> &,
                                                                 gpumf::Vector<float> &);
template void
dealii::internal::AffineConstraintsImplementation::set_zero_all(const std::vector<dealii::types::global_dof_index> &,
                                                                 gpumf::Vector<double> &);
