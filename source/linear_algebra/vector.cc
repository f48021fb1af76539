// gpumf::Vector: layout, arithmetic and data exchange with deal.II (its ghost exchange:
// ghost_exchange.cc).
#include <gpumf/vector.h>

#include <deal.II/lac/affine_constraints.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/affine_constraints.templates.h>
#include <deal.II/lac/vector_memory.templates.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include <mpi.h>

#include "linear_algebra/exchange.h"
#include "linear_algebra/ghost_exchange.h"
#include "linear_algebra/ghost_subset.h"
#include "linear_algebra/layout.h"
#include "core/faults.h"
#include "core/run_profile.h"
#include "linear_algebra/vector_kernels.h"

namespace gpumf
{
  using namespace dealii;

  namespace
  {
    /// The sum over the ranks of the vector's reductions (timed in the run profile).
    template <typename T>
    T
    sum_over_ranks(const T local, const MPI_Comm comm)
    {
      internal::RunTimer timer(internal::RunPart::reduction_mpi);
      const T            sum = Utilities::MPI::sum(local, comm);
      internal::note_completed(Utilities::MPI::n_mpi_processes(comm));
      return sum;
    }

    /// The maximum over the ranks (timed in the run profile).
    template <typename T>
    T
    max_over_ranks(const T local, const MPI_Comm comm)
    {
      internal::RunTimer timer(internal::RunPart::reduction_mpi);
      const T            max = Utilities::MPI::max(local, comm);
      internal::note_completed(Utilities::MPI::n_mpi_processes(comm));
      return max;
    }
  } // namespace

  template <typename Number>
  Vector<Number>::Vector()
  {
    reinit(0);
  }

  template <typename Number>
  Vector<Number>::Vector(const Vector &other)
    : internal::EnableObserverPointer()
    , partitioner(other.partitioner)
    , values(other.values)
    , import_indices(other.import_indices)
    , ghosts_valid(other.ghosts_valid)
    , exchange(std::make_shared<internal::GhostExchange<Number>>())
  {}

  template <typename Number>
  Vector<Number>::Vector(const size_type size)
  {
    reinit(size);
  }

  template <typename Number>
  Vector<Number>::Vector(const IndexSet &locally_owned, const MPI_Comm comm)
  {
    reinit(locally_owned, comm);
  }

  template <typename Number>
  Vector<Number>::Vector(const IndexSet &locally_owned, const IndexSet &ghost, const MPI_Comm comm)
  {
    reinit(locally_owned, ghost, comm);
  }

  template <typename Number>
  Vector<Number>::Vector(const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner, const Backend backend)
  {
    reinit(partitioner, backend);
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Vector &other)
  {
    if (this == &other)
      return *this;
    if (!internal::same_layout(*partitioner, *other.partitioner))
      reinit(other.partitioner, backend());
    // copies between backends too: assignment is how data move host <-> device
    internal::copy(
      values.backend(), values.data(), other.values.backend(), other.values.data(), values.size() * sizeof(Number));
    ghosts_valid = other.ghosts_valid;
    return *this;
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator=(const Number s)
  {
    GPUMF_DISPATCH(backend(), fill(values.data(), s == Number() ? values.size() : locally_owned_size(), s));
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
    internal::InterruptionGuard guard("gpumf::Vector::reinit()", new_partitioner->n_mpi_processes());
    if (exchange)
      exchange->check_idle("reinit()");
    exchange    = std::make_shared<internal::GhostExchange<Number>>();
    partitioner = new_partitioner;
    // several ranks: memory that the neighbours can map (the ipc exchange method)
    if (partitioner->n_mpi_processes() > 1)
      values.reinit_shareable(backend, partitioner->locally_owned_size() + partitioner->n_ghost_indices());
    else
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
    std::swap(exchange, other.exchange);
  }

  template <typename Number>
  void
  Vector<Number>::check_compatible(const Vector &v) const
  {
    AssertThrow(v.backend() == backend(),
                ExcVectorMismatch("backend " + to_string(backend()), "backend " + to_string(v.backend())));
    AssertThrow(
      v.locally_owned_size() == locally_owned_size() && v.size() == size(),
      ExcVectorMismatch(std::to_string(locally_owned_size()) + " owned of " + std::to_string(size()) + " entries",
                        std::to_string(v.locally_owned_size()) + " owned of " + std::to_string(v.size()) + " entries"));
  }

  template <typename Number>
  Vector<Number> &
  Vector<Number>::operator*=(const Number factor)
  {
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), factor, true, 0, nullptr, 0, nullptr, 0));
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
    GPUMF_DISPATCH(backend(), update<Number>(values.data(), locally_owned_size(), 1, true, 0, nullptr, 0, nullptr, a));
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v)
  {
    check_compatible(v);
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), 1, true, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::add(const Number a, const Vector &v, const Number b, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    GPUMF_DISPATCH(
      backend(), update<Number>(values.data(), locally_owned_size(), 1, true, a, v.get_values(), b, w.get_values(), 0));
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
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), s, true, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::equ(const Number a, const Vector &v)
  {
    check_compatible(v);
    GPUMF_DISPATCH(backend(),
                   update<Number>(values.data(), locally_owned_size(), 0, false, a, v.get_values(), 0, nullptr, 0));
  }

  template <typename Number>
  void
  Vector<Number>::reciprocal()
  {
    zero_out_ghost_values(); // they would no longer match
    GPUMF_DISPATCH(backend(), reciprocal(values.data(), locally_owned_size()));
  }

  template <typename Number>
  void
  Vector<Number>::scale(const Vector &scaling_factors)
  {
    check_compatible(scaling_factors);
    GPUMF_DISPATCH(backend(), scale(values.data(), locally_owned_size(), scaling_factors.get_values()));
  }

  template <typename Number>
  Number
  Vector<Number>::operator*(const Vector &v) const
  {
    check_compatible(v);
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), reduce(internal::Reduction::dot, get_values(), v.get_values(), locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::add_and_dot(const Number a, const Vector &v, const Vector &w)
  {
    check_compatible(v);
    check_compatible(w);
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), add_and_dot(values.data(), locally_owned_size(), a, v.get_values(), w.get_values())),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::l1_norm() const
  {
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(),
                     reduce<Number>(internal::Reduction::abs_sum, get_values(), nullptr, locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  typename Vector<Number>::real_type
  Vector<Number>::norm_sqr() const
  {
    return sum_over_ranks(
      GPUMF_DISPATCH(backend(), reduce(internal::Reduction::dot, get_values(), get_values(), locally_owned_size())),
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
    return max_over_ranks(
      GPUMF_DISPATCH(backend(),
                     reduce<Number>(internal::Reduction::abs_max, get_values(), nullptr, locally_owned_size())),
      get_mpi_communicator());
  }

  template <typename Number>
  Number
  Vector<Number>::mean_value() const
  {
    AssertThrow(size() > 0, ExcEmptyObject());
    return sum_over_ranks(
             GPUMF_DISPATCH(backend(),
                            reduce<Number>(internal::Reduction::sum, get_values(), nullptr, locally_owned_size())),
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
    /// Throws unless deal.II's vector (owning @p theirs) and a gpumf::Vector (@p ours) own the same indices.
    void
    check_same_owned(const IndexSet &theirs, const IndexSet &ours, const std::string &function)
    {
      AssertThrow(theirs == ours,
                  ExcMessage("gpumf::Vector::" + function + ": deal.II's vector has other locally owned indices (" +
                             std::to_string(theirs.n_elements()) + " of " + std::to_string(theirs.size()) +
                             ") than this one (" + std::to_string(ours.n_elements()) + " of " +
                             std::to_string(ours.size()) + "); make both from the same locally owned IndexSet."));
    }
  } // namespace

  template <typename Number>
  template <typename MemorySpace>
  void
  Vector<Number>::import_from_dealii(const LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                                     const VectorOperation::values                                  operation)
  {
    check_same_owned(v.locally_owned_elements(), locally_owned_elements(), "import_elements");
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    internal::import_elements(rw, v, VectorOperation::insert);
    import(rw, operation);
  }

  template <typename Number>
  template <typename MemorySpace>
  void
  Vector<Number>::export_to_dealii(LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                                   const VectorOperation::values                            operation) const
  {
    check_same_owned(v.locally_owned_elements(), locally_owned_elements(), "export_to");
    AssertThrow(operation == VectorOperation::insert || operation == VectorOperation::add,
                ExcMessage("gpumf::Vector::export_to supports VectorOperation::insert and add."));
    LinearAlgebra::ReadWriteVector<Number> rw(v.locally_owned_elements());
    export_to(rw, VectorOperation::insert);
    internal::import_elements(v, rw, operation);
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
  Vector<Number>::export_to(LinearAlgebra::ReadWriteVector<Number> &rw, const VectorOperation::values operation) const
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
           exchange->memory_consumption() + partitioner->memory_consumption();
  }

  template <typename Number>
  LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const IndexSet &ghosts)
  {
    LinearAlgebra::distributed::Vector<Number> host(v.locally_owned_elements(), ghosts, v.get_mpi_communicator());
    v.export_to(host, VectorOperation::insert);
    host.update_ghost_values();
    return host;
  }

  template <typename Number>
  LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const AffineConstraints<Number> &constraints)
  {
    // (constraints made without an IndexSet of lines: the vector's own ghosts, which in a
    // MatrixFree layout hold the locally relevant DoFs)
    const IndexSet                            &lines = constraints.get_local_lines();
    LinearAlgebra::distributed::Vector<Number> host(v.locally_owned_elements(),
                                                    lines.size() > 0 ? lines : v.get_partitioner()->ghost_indices(),
                                                    v.get_mpi_communicator());
    v.export_to(host, VectorOperation::insert);
    constraints.distribute(host);
    host.update_ghost_values();
    return host;
  }

  template class Vector<float>;
  template class Vector<double>;
  template LinearAlgebra::distributed::Vector<float>
  host_copy(const Vector<float> &, const IndexSet &);
  template LinearAlgebra::distributed::Vector<double>
  host_copy(const Vector<double> &, const IndexSet &);
  template LinearAlgebra::distributed::Vector<float>
  host_copy(const Vector<float> &, const AffineConstraints<float> &);
  template LinearAlgebra::distributed::Vector<double>
  host_copy(const Vector<double> &, const AffineConstraints<double> &);

#define GPUMF_INSTANTIATE(space)                                                                              \
  template void Vector<float>::import_from_dealii(const LinearAlgebra::distributed::Vector<float, space> &,   \
                                                  const VectorOperation::values);                             \
  template void Vector<double>::import_from_dealii(const LinearAlgebra::distributed::Vector<double, space> &, \
                                                   const VectorOperation::values);                            \
  template void Vector<float>::export_to_dealii(LinearAlgebra::distributed::Vector<float, space> &,           \
                                                const VectorOperation::values) const;                         \
  template void Vector<double>::export_to_dealii(LinearAlgebra::distributed::Vector<double, space> &,         \
                                                 const VectorOperation::values) const;
  GPUMF_DEAL_II_MEMORY_SPACES(GPUMF_INSTANTIATE)
#undef GPUMF_INSTANTIATE

  namespace internal
  {
    template <typename Number>
    void
    chebyshev_initial_guess(gpumf::Vector<Number> &vector)
    {
      const IndexSet                        &owned = vector.locally_owned_elements();
      const types::global_dof_index          first = owned.is_empty() ? 0 : owned.nth_index_in_set(0);
      LinearAlgebra::ReadWriteVector<Number> entries(owned);
      for (unsigned int i = 0; i < vector.locally_owned_size(); ++i)
        entries.local_element(i) = (i + first) % 11;
      vector.import(entries, VectorOperation::insert);
      const Number mean = vector.mean_value();
      vector.add(-mean);
    }

    template void
    chebyshev_initial_guess(gpumf::Vector<float> &);
    template void
    chebyshev_initial_guess(gpumf::Vector<double> &);
  } // namespace internal
} // namespace gpumf

// deal.II's solvers take their temporary vectors from a GrowingVectorMemory.
template class dealii::VectorMemory<gpumf::Vector<float>>;
template class dealii::VectorMemory<gpumf::Vector<double>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<float>>;
template class dealii::GrowingVectorMemory<gpumf::Vector<double>>;

// DiagonalMatrix<gpumf::Vector>::operator()(i, j), declared in vector.h.
namespace dealii
{
  namespace
  {
    template <typename Number>
    Number &
    diagonal_entry(const gpumf::Vector<Number>  &diagonal,
                   const types::global_dof_index i,
                   const types::global_dof_index j)
    {
      AssertThrow(i == j, ExcIndexRange(j, i, i + 1));
      AssertThrow(diagonal.backend() == gpumf::Backend::host,
                  gpumf::ExcNotSupported("DiagonalMatrix<gpumf::Vector>::operator()(i, j) (a matrix's el(i, i), "
                                         "called by deal.II's PreconditionChebyshev when it is given no "
                                         "preconditioner): the entries live in GPU memory, which hands out no "
                                         "reference. Give PreconditionChebyshev the inverse diagonal "
                                         "(AdditionalData::preconditioner), as deal.II's step-64 does."));
      return const_cast<Number *>(diagonal.get_values())[diagonal.get_partitioner()->global_to_local(i)];
    }
  } // namespace

  template <>
  gpumf::Vector<double>::value_type &
  DiagonalMatrix<gpumf::Vector<double>>::operator()(const size_type i, const size_type j)
  {
    return diagonal_entry(get_vector(), i, j);
  }


  template <>
  gpumf::Vector<float>::value_type &
  DiagonalMatrix<gpumf::Vector<float>>::operator()(const size_type i, const size_type j)
  {
    return diagonal_entry(get_vector(), i, j);
  }

} // namespace dealii

// AffineConstraints::set_zero(), which deal.II's PreconditionChebyshev and the tutorials call:
// one scatter of zeros on the vector's backend (deal.II's generic version writes entry by entry).
namespace dealii
{
  namespace internal
  {
    namespace AffineConstraintsImplementation
    {
      namespace
      {
        template <typename Number>
        void
        set_zero_on_backend(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<Number> &vec)
        {
          const auto               &partitioner = *vec.get_partitioner();
          std::vector<unsigned int> local;
          for (const auto index : constrained)
            if (partitioner.in_local_range(index))
              local.push_back(partitioner.global_to_local(index));
          gpumf::internal::Array<unsigned int> indices;
          indices.reinit(vec.backend(), local);
          GPUMF_DISPATCH(
            vec.backend(),
            set_indexed<Number>(vec.get_values(), indices.data(), nullptr, Number(0), false, local.size()));
        }
      } // namespace

      template <>
      void
      set_zero_all(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<float> &vec)
      {
        set_zero_on_backend(constrained, vec);
      }

      template <>
      void
      set_zero_all(const std::vector<types::global_dof_index> &constrained, gpumf::Vector<double> &vec)
      {
        set_zero_on_backend(constrained, vec);
      }
    } // namespace AffineConstraintsImplementation
  }   // namespace internal
} // namespace dealii
