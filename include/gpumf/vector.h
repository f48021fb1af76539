/**
 * @file gpumf/vector.h
 * gpumf::Vector: a distributed vector whose entries live in GPU memory (host memory on
 * the host backend). deal.II equivalent:
 * LinearAlgebra::distributed::Vector<Number, MemorySpace::CUDA>.
 */
#ifndef gpumf_vector_h
#define gpumf_vector_h

#include <gpumf/backend.h>
#include <gpumf/internal/dealii_compat.h>
#include <gpumf/internal/memory.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/read_write_vector.h>
#include <deal.II/lac/vector_operation.h>

#include <memory>
#include <string>

namespace dealii
{
  template <typename Number>
  class AffineConstraints;
} // namespace dealii

namespace gpumf
{
  namespace internal
  {
    template <typename Number>
    struct GhostExchange;
    struct GhostSubset;
  } // namespace internal

  /**
   * A vector distributed over MPI ranks by a deal.II Utilities::MPI::Partitioner, with
   * the entries of each rank in the memory of one Backend.
   *
   * Local storage of one rank (the same as deal.II's distributed vector):
   * @verbatim
   *   index:  0 ............ n_owned-1 | n_owned ........ n_owned+n_ghost-1
   *   entry:  locally owned entries     | ghost entries (copies of other ranks')
   * @endverbatim
   * Ghost entries are filled by update_ghost_values() and added to their owners by
   * compress(VectorOperation::add). Both exist in two halves as well (..._start() posts the
   * messages, ..._finish() waits for them), so that a program can compute while the
   * messages travel. The message buffers are allocated at the first exchange and reused
   * by every later one. exchange_method() says how the messages travel: NCCL or MPI on
   * device memory, MPI through page-locked host copies, or reads of the neighbours' memory
   * (ipc, ranks of one node); every method adds the received contributions in the same
   * order, so results are bitwise the same. With several ranks, the entries live in memory
   * that the other processes of the node can map.
   *
   * The class has the interface that deal.II's SolverCG, SolverGMRES, SolverMinRes,
   * PreconditionIdentity, DiagonalMatrix and PreconditionChebyshev need of a vector.
   * Reductions are summed over MPI. Data enter and leave through deal.II's
   * LinearAlgebra::ReadWriteVector (import(), export_to()).
   */
  template <typename Number>
  class Vector : public internal::EnableObserverPointer
  {
  public:
    using value_type = Number;
    using real_type  = typename dealii::numbers::NumberTraits<Number>::real_type;
    using size_type  = dealii::types::global_dof_index;

    /// An empty vector on the default backend.
    Vector();

    /// A deep copy (same partitioner, same backend).
    Vector(const Vector &other);

    /// A serial vector of @p size zeros; see reinit(size_type, bool).
    explicit Vector(const size_type size);

    /// See reinit(const IndexSet &, const MPI_Comm) (deal.II's distributed vector has this constructor).
    Vector(const dealii::IndexSet &locally_owned, const MPI_Comm comm);

    /// See reinit(const IndexSet &, const IndexSet &, const MPI_Comm).
    Vector(const dealii::IndexSet &locally_owned, const dealii::IndexSet &ghost, const MPI_Comm comm);

    /// See reinit(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &, Backend).
    Vector(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner,
           const Backend                                                     backend = default_backend());

    /// Copies the values of @p other; takes its layout when the layouts differ.
    Vector &
    operator=(const Vector &other);

    /// Sets every locally owned entry to @p s (and the ghost entries when s is zero).
    Vector &
    operator=(const Number s);

    /// A serial vector (one rank, MPI_COMM_SELF) of @p size entries on the default backend.
    void
    reinit(const size_type size, const bool omit_zeroing_entries = false);

    /// Owned entries @p locally_owned, no ghosts, on the default backend.
    void
    reinit(const dealii::IndexSet &locally_owned, const MPI_Comm comm);

    /// Owned entries @p locally_owned and ghost entries @p ghost, on the default backend.
    void
    reinit(const dealii::IndexSet &locally_owned, const dealii::IndexSet &ghost, const MPI_Comm comm);

    /// The layout of @p partitioner in the memory of @p backend, entries zero.
    void
    reinit(const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &partitioner,
           const Backend                                                     backend = default_backend());

    /// The layout and backend of @p other; zero unless @p omit_zeroing_entries.
    void
    reinit(const Vector &other, const bool omit_zeroing_entries = false);

    /**
     * Replaces every locally owned entry x by f(x), on the vector's backend (ghost entries
     * stay as they are): an entry-wise operation without a round trip through the host.
     * @p f is a `__host__ __device__` function object, or an extended lambda
     * `[] __host__ __device__ (const Number x) { return ...; }` (gpumf compiles .cu files with
     * nvcc's --extended-lambda). On the CUDA backend the call must be compiled by nvcc (a .cu
     * file); from a host-compiled file it throws.
     */
    template <typename Function, typename Compiler = internal::ThisCompiler>
    void
    transform(const Function &f);

    /// x -> 1/x for every locally owned entry (an entry zero becomes infinity, as the division gives).
    void
    reciprocal();

    /// Exchanges contents (and layouts) with @p other.
    void
    swap(Vector &other);

    /// @name Vector space operations (all on the vector's backend)
    /// @{
    Vector &
    operator*=(const Number factor);
    Vector &
    operator/=(const Number factor);
    Vector &
    operator+=(const Vector &v);
    Vector &
    operator-=(const Vector &v);
    /// Adds @p a to every locally owned entry.
    void
    add(const Number a);
    /// this += a*v
    void
    add(const Number a, const Vector &v);
    /// this += a*v + b*w
    void
    add(const Number a, const Vector &v, const Number b, const Vector &w);
    /// this = s*this + v
    void
    sadd(const Number s, const Vector &v);
    /// this = s*this + a*v
    void
    sadd(const Number s, const Number a, const Vector &v);
    /// this = a*v
    void
    equ(const Number a, const Vector &v);
    /// Entry-wise product: this[i] *= scaling_factors[i]
    void
    scale(const Vector &scaling_factors);
    /// Scalar product, summed over all ranks.
    Number
    operator*(const Vector &v) const;
    /// this += a*v, then returns this*w (one pass over memory).
    Number
    add_and_dot(const Number a, const Vector &v, const Vector &w);
    real_type
    l1_norm() const;
    real_type
    l2_norm() const;
    real_type
    norm_sqr() const;
    real_type
    linfty_norm() const;
    Number
    mean_value() const;
    /// True when every entry of every rank is zero.
    bool
    all_zero() const;
    /// @}

    /// @name Ghost entries and MPI
    /// @{
    /// Copies the owners' values into the ghost entries: update_ghost_values_start()
    /// followed by update_ghost_values_finish().
    void
    update_ghost_values() const;
    /**
     * First half of update_ghost_values(): packs the owned entries that other ranks need
     * into the send buffer (on the backend) and posts the MPI receives and sends (with the
     * ipc method: marks the owned entries readable and tells the neighbours, who read them in
     * their _finish()). Until
     * update_ghost_values_finish(), the owned entries may be read but not written, and
     * the ghost entries neither. Every rank must start its exchanges in the same order.
     * Throws if an exchange of this vector (ghost update or compress) is already under
     * way. The deal.II equivalent is
     * LinearAlgebra::distributed::Vector::update_ghost_values_start() (on one channel).
     */
    void
    update_ghost_values_start() const;
    /**
     * Second half of update_ghost_values(): waits for the messages posted by
     * update_ghost_values_start() and moves the received values into the ghost entries
     * (with host staging); afterwards has_ghost_elements() is true. Throws unless
     * update_ghost_values_start() came before. The deal.II equivalent is
     * LinearAlgebra::distributed::Vector::update_ghost_values_finish().
     */
    void
    update_ghost_values_finish() const;
    /**
     * Copies the owners' values into some of the ghost entries only, those of @p subset, and
     * sets the others to zero: what MatrixFree::loop() does for DataAccessOnFaces values and
     * gradients, whose subsets hold the DoFs of the ghost cells that the face functors read.
     * The messages carry those entries alone, by the method of update_ghost_values().
     * has_ghost_elements() stays false (not every ghost entry is current); end it with
     * zero_out_ghost_values(). Collective; @p subset must be made for this vector's layout.
     */
    void
    update_ghost_values(const internal::GhostSubset &subset) const;
    /// Sends ghost entries to their owners (added for VectorOperation::add, dropped
    /// otherwise) and zeroes the ghost entries: compress_start() followed by
    /// compress_finish().
    void
    compress(const dealii::VectorOperation::values operation);
    /**
     * First half of compress(): for VectorOperation::add, posts the MPI sends of the ghost
     * entries to their owners and the receives of the other ranks' contributions to the
     * owned entries (nothing to send for other operations: the ghosts are dropped). Until
     * compress_finish(), neither the ghost nor the owned entries may be written. Every
     * rank must start its exchanges in the same order. Throws if an exchange of this
     * vector is already under way. The deal.II equivalent is
     * LinearAlgebra::distributed::Vector::compress_start() (on one channel).
     */
    void
    compress_start(const dealii::VectorOperation::values operation);
    /**
     * Second half of compress(): waits for the messages of compress_start(), adds the
     * received contributions to the owned entries one sending rank after the other (in
     * rank order, so results are bitwise reproducible) and zeroes the ghost entries.
     * Throws unless compress_start() with the same @p operation came before. The deal.II
     * equivalent is LinearAlgebra::distributed::Vector::compress_finish().
     */
    void
    compress_finish(const dealii::VectorOperation::values operation);
    /// Zeroes the ghost entries.
    void
    zero_out_ghost_values() const;
    /// True between update_ghost_values() and zero_out_ghost_values()/compress().
    bool
    has_ghost_elements() const;
    /// @}

    /// @name Data exchange with deal.II's host vectors
    /// @{
    /**
     * Sets (insert) or adds (add) the locally owned entries from @p rw, which must
     * store every locally owned index of this vector. The deal.II equivalent is
     * distributed::Vector::import().
     */
    void
    import(const dealii::LinearAlgebra::ReadWriteVector<Number>                          &rw,
           const dealii::VectorOperation::values                                          operation,
           const std::shared_ptr<const dealii::Utilities::MPI::CommunicationPatternBase> &communication_pattern = {});
    /// deal.II 9.5+'s name of import(const ReadWriteVector &, ...).
    void
    import_elements(
      const dealii::LinearAlgebra::ReadWriteVector<Number>                          &rw,
      const dealii::VectorOperation::values                                          operation,
      const std::shared_ptr<const dealii::Utilities::MPI::CommunicationPatternBase> &communication_pattern = {})
    {
      import(rw, operation, communication_pattern);
    }

    /**
     * Sets (insert) or adds (add) the locally owned entries from deal.II's distributed vector
     * @p v, whose locally owned indices must be this vector's (deal.II's import from another
     * memory space). @p MemorySpace: MemorySpace::Host, or MemorySpace::Default on deal.II 9.5+.
     */
    template <typename MemorySpace>
    void
    import_elements(const dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                    const dealii::VectorOperation::values                                  operation)
    {
      check_memory_space<MemorySpace>();
      import_from_dealii(v, operation);
    }

    /// deal.II 9.4's name of import_elements() from deal.II's distributed vector.
    template <typename MemorySpace>
    void
    import(const dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
           const dealii::VectorOperation::values                                  operation)
    {
      import_elements(v, operation);
    }

    /**
     * The reverse of import(): writes (or adds) this vector's entries into @p rw, whose
     * stored indices must be locally owned here. Stands for deal.II's
     * `rw.import(vector, operation)` (9.5+: `rw.import_elements(...)`), which deal.II offers for
     * its own vector types only.
     */
    void
    export_to(dealii::LinearAlgebra::ReadWriteVector<Number> &rw,
              const dealii::VectorOperation::values           operation) const;

    /**
     * The reverse of import_elements(): writes (insert) or adds (add) this vector's locally
     * owned entries into deal.II's distributed vector @p v, whose locally owned indices must be
     * this vector's; @p v's ghost entries are left as they are (call v.update_ghost_values()).
     * @p MemorySpace: MemorySpace::Host, or MemorySpace::Default on deal.II 9.5+.
     */
    template <typename MemorySpace>
    void
    export_to(dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
              const dealii::VectorOperation::values                            operation) const
    {
      check_memory_space<MemorySpace>();
      export_to_dealii(v, operation);
    }
    /// @}

    /// @name Access to single entries (one host-device copy each: for setup, not for loops)
    /// @{
    /// Reads or writes the entry of a locally owned or ghost index.
    class ElementReference
    {
    public:
      operator Number() const
      {
        return vector.get_entry(local_index);
      }
      ElementReference &
      operator=(const Number value)
      {
        vector.set_entry(local_index, value);
        return *this;
      }

    private:
      ElementReference(Vector &vector, const unsigned int local_index)
        : vector(vector)
        , local_index(local_index)
      {}
      Vector            &vector;
      const unsigned int local_index;
      friend class Vector;
    };

    ElementReference
    operator()(const size_type global_index)
    {
      return ElementReference(*this, partitioner->global_to_local(global_index));
    }

    Number
    operator()(const size_type global_index) const
    {
      return get_entry(partitioner->global_to_local(global_index));
    }

    ElementReference
    operator[](const size_type global_index)
    {
      return operator()(global_index);
    }

    Number
    operator[](const size_type global_index) const
    {
      return operator()(global_index);
    }

    /// The entry of local index @p local_index (owned entries first, then the ghosts), as
    /// deal.II's local_element(): read and written one at a time (on the CUDA backend each a
    /// copy between host and GPU; for whole vectors use transform(), get_values() in a kernel or
    /// import()).
    ElementReference
    local_element(const size_type local_index)
    {
      return ElementReference(*this, static_cast<unsigned int>(local_index));
    }

    Number
    local_element(const size_type local_index) const
    {
      return get_entry(static_cast<unsigned int>(local_index));
    }
    /// @}

    /// @name Layout
    /// @{
    size_type
    size() const;
    size_type
    locally_owned_size() const;
    /// deal.II 9.4's older name of locally_owned_size().
    size_type
    local_size() const
    {
      return locally_owned_size();
    }
    dealii::IndexSet
    locally_owned_elements() const;
    bool
    in_local_range(const size_type global_index) const;
    const std::shared_ptr<const dealii::Utilities::MPI::Partitioner> &
    get_partitioner() const;
    MPI_Comm
    get_mpi_communicator() const;
    Backend
    backend() const;
    /// Pointer to the first local entry, in the memory of backend().
    Number *
    get_values() const;
    /// Bytes of the entries, the index lists and the (persistent) MPI message buffers.
    std::size_t
    memory_consumption() const;
    /// @}

  private:
    template <typename MemorySpace>
    static constexpr void
    check_memory_space()
    {
      static_assert(internal::IsExchangeableMemorySpace<MemorySpace>::value,
                    "gpumf::Vector exchanges data with deal.II's LinearAlgebra::distributed::Vector in "
                    "MemorySpace::Host, and in MemorySpace::Default on deal.II 9.5 or newer; a deal.II vector in "
                    "another memory space goes through a LinearAlgebra::ReadWriteVector.");
    }

    template <typename MemorySpace>
    void
    import_from_dealii(const dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                       const dealii::VectorOperation::values                                  operation);

    template <typename MemorySpace>
    void
    export_to_dealii(dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                     const dealii::VectorOperation::values                            operation) const;

    Number
    get_entry(const unsigned int local_index) const;

    void
    set_entry(const unsigned int local_index, const Number value);

    /// Throws unless @p v has this vector's backend and number of owned entries.
    void
    check_compatible(const Vector &v) const;

    std::shared_ptr<const dealii::Utilities::MPI::Partitioner> partitioner;
    /// owned + ghost entries
    internal::Array<Number> values;
    /// Local indices of the owned entries that other ranks import, in import_targets() order.
    internal::Array<unsigned int> import_indices;
    mutable bool                  ghosts_valid = false;
    /// Message buffers and requests of the ghost exchange, created by reinit(), buffers
    /// sized at the first exchange (never shared between vectors: each may have its own
    /// exchange under way).
    std::shared_ptr<internal::GhostExchange<Number>> exchange;
  };

  /**
   * Whether MPI can send from and receive into CUDA device memory: Open MPI is asked at
   * run time (MPIX_Query_cuda_support(), where its mpi-ext.h declares it), and any other
   * MPI library counts as not CUDA-aware. Call it after MPI_Init. deal.II has no run-time
   * equivalent: it decides at configure time (DEAL_II_MPI_WITH_CUDA_SUPPORT).
   */
  bool
  cuda_aware_mpi();

  /**
   * How Vector's ghost exchange (update_ghost_values(), compress()) moves its messages.
   */
  enum class ExchangeMethod
  {
    /// MPI reads and writes the vector's memory: the host backend, or CUDA-aware MPI on
    /// device memory. The host waits for the messages in the _finish() calls.
    mpi,
    /// MPI on page-locked host copies of the messages (copied off the GPU before the
    /// sends, onto it after the receives): works with any MPI, costs two copies and a
    /// host synchronization per exchange.
    staged_mpi,
    /// NCCL point-to-point (ncclSend/ncclRecv in one group per vector and exchange) on
    /// device memory, ordered on the GPU: a high-priority stream of its own waits for the
    /// packing, and the default stream waits for the messages, so that the host never
    /// blocks and the messages travel over NVLink/PCIe peer-to-peer while the GPU computes.
    nccl,
    /// Ranks of one node read each other's memory (CUDA IPC; shared host memory on the host
    /// backend): a rank gathers its ghost entries straight from the owners' entries, and
    /// compress adds the neighbours' ghost entries straight from their memory, so that
    /// nothing is packed or copied. Two empty MPI messages per neighbour and exchange and
    /// interprocess CUDA events order the reads on the GPU; the host never waits for the
    /// GPU. Each rank maps a neighbour's vector at the first exchange after the vector's
    /// reinit() (or copy), and an allocation that another rank still has mapped outlives its
    /// vector until that rank closes it, so vectors may be destroyed in any order on any
    /// rank. A rank's _finish() returns when its neighbours have reached theirs: every rank
    /// finishes a vector's exchanges in the order it starts them. The way for several ranks
    /// on one GPU, where NCCL cannot serve.
    ipc
  };

  /// "mpi", "staged_mpi", "nccl" or "ipc": the values GPUMF_EXCHANGE takes.
  std::string
  to_string(const ExchangeMethod method);

  /**
   * The method of the next ghost exchange of vectors on @p comm and @p backend. The
   * environment variable GPUMF_EXCHANGE chooses ("auto", "ipc", "nccl", "mpi",
   * "staged_mpi"; read at every exchange, so that each follows it); "auto" (the default)
   * means:
   * - host backend: mpi;
   * - CUDA backend, two ranks share a GPU: ipc when it can serve (all ranks on one host,
   *   each GPU the same as or peer-accessible from the others), else mpi when
   *   cuda_aware_mpi(), else staged_mpi;
   * - CUDA backend, a GPU for each rank: nccl when NCCL loads on every rank (libnccl.so.2
   *   from the loader's path, or the file GPUMF_NCCL_LIBRARY names), else ipc when it can
   *   serve, else mpi when cuda_aware_mpi(), else staged_mpi.
   *
   * GPUMF_EXCHANGE=nccl or ipc where that method cannot serve falls back to the automatic
   * choice and says why in one line on std::cerr (rank 0, once per communicator); on the
   * host backend ipc works between the processes of one host (shared memory), nccl falls
   * back to mpi;
   * GPUMF_EXCHANGE=mpi on the CUDA backend trusts that MPI reads device memory.
   * staged_mpi also works on the host backend (the copies are then memcpy). The NCCL
   * communicator is created at the first NCCL exchange on @p comm and freed with @p comm.
   * Collective over @p comm at its first call for the CUDA backend, and at the first call
   * with GPUMF_EXCHANGE=ipc on the host backend.
   *
   * The ipc method's reads are ordered by counters that the GPUs wait for (the host on the
   * host backend), whether the ranks share one GPU or use several; where a rank's CUDA driver
   * has no stream memory operations, by MPI messages and interprocess events;
   * GPUMF_IPC_ORDER ("auto", "counters", "messages") chooses, alike on all ranks
   * (doc/mpi.md, "How `ipc` orders the reads").
   */
  ExchangeMethod
  exchange_method(const MPI_Comm comm, const Backend backend = default_backend());

  /**
   * The host copy of @p v for the work that stays on the host (deal.II's DataOut,
   * KellyErrorEstimator, GridRefinement's indicators, its VectorTools): deal.II's distributed
   * vector with @p v's locally owned entries, @p constraints distributed
   * (AffineConstraints::distribute(): Dirichlet values, hanging nodes), ghost entries for
   * constraints.get_local_lines() (the locally relevant DoFs when the constraints were made
   * with them) with their values. One call instead of a ReadWriteVector round trip; collective.
   * deal.II's host functions do not take a gpumf::Vector (they are compiled into deal.II for
   * its own vectors): pass them this copy.
   */
  template <typename Number>
  dealii::LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const dealii::AffineConstraints<Number> &constraints);

  /// As above without constraints: ghost entries @p ghosts (e.g. the locally relevant DoFs),
  /// values as they are.
  template <typename Number>
  dealii::LinearAlgebra::distributed::Vector<Number>
  host_copy(const Vector<Number> &v, const dealii::IndexSet &ghosts);

  /// @name Exceptions
  /// @{
  DeclException2(ExcVectorMismatch,
                 std::string,
                 std::string,
                 << "Vectors do not match: " << arg1 << " versus " << arg2
                 << ". Create both from the same partitioner and backend, "
                    "e.g. with MatrixFree::initialize_dof_vector().");
  /// @}
} // namespace gpumf

namespace dealii
{
  /*
   * DiagonalMatrix<gpumf::Vector>::operator()(i, j) (non-const) hands out a reference to an entry,
   * which a vector in GPU memory cannot give: deal.II's generic version does not compile
   * (gpumf::Vector's element proxy is no reference), and deal.II's PreconditionChebyshev
   * compiles a call of it through the matrix's el() (deal.II 9.8's step-64 defines one). These
   * give the entry's reference on the host backend and throw, naming the cause, on the CUDA
   * backend (deal.II calls el() only where no preconditioner is given: none is needed there).
   */
  template <>
  gpumf::Vector<double>::value_type &
  DiagonalMatrix<gpumf::Vector<double>>::operator()(const size_type i, const size_type j);
  template <>
  gpumf::Vector<float>::value_type &
  DiagonalMatrix<gpumf::Vector<float>>::operator()(const size_type i, const size_type j);
} // namespace dealii

#include <gpumf/internal/vector_transform.h>

#endif
