/**
 * @file gpumf/internal/memory.h
 * A typed buffer in the memory of one backend (host or CUDA device).
 */
#ifndef gpumf_internal_memory_h
#define gpumf_internal_memory_h

#include <gpumf/backend.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// Allocates @p bytes in the backend's memory (throws ExcDeviceOutOfMemory).
    void *
    allocate(const Backend backend, const std::size_t bytes);

    /// The free and total bytes of the current CUDA device (cudaMemGetInfo; ExcNoGPU without CUDA).
    void
    device_memory_info(std::size_t &free_bytes, std::size_t &total_bytes);

    /// Frees what allocate() returned.
    void
    deallocate(const Backend backend, void *ptr);

    /**
     * Allocates @p bytes of page-locked host memory (cudaMallocHost), which the GPU copies
     * from and to at full speed; plain host memory when the library has no CUDA. For
     * staging the MPI messages of the CUDA backend. Throws ExcCudaError on failure.
     */
    void *
    allocate_pinned(const std::size_t bytes);

    /// Frees what allocate_pinned() returned.
    void
    deallocate_pinned(void *ptr);

    /**
     * Allocates @p bytes that other processes of the node can map (the ipc exchange
     * method): cudaMalloc on the CUDA backend, a memfd mapping on the host backend. Defined
     * with the lifetime protocol in source/linear_algebra/ipc.cc.
     */
    void *
    allocate_shareable(const Backend backend, const std::size_t bytes);

    /**
     * Frees what allocate_shareable() returned, or defers the free while another process
     * still has the memory open (source/linear_algebra/ipc.cc): the memory stays valid until the last
     * importer has closed it.
     */
    void
    deallocate_shareable(const Backend backend, void *ptr);

    /// The state of the lifetime protocol of shareable memory in this process (for tests).
    struct ShareableStatistics
    {
      /// Allocations exported to other processes (and not yet freed), among them those
      /// freed by their owner and waiting for the last importer to close them, and other
      /// processes' allocations open here.
      unsigned int exported = 0, deferred = 0, imported = 0;
      /// The counters this process has signalled (ipc links ordered by counters: two per
      /// exchange of a vector with neighbours).
      unsigned long long signals = 0;
    };

    /// Frees the deferred allocations that no process has open any more, then counts.
    ShareableStatistics
    shareable_statistics();

    /// Copies @p bytes between any two backends' memories.
    void
    copy(const Backend dst_backend, void *dst, const Backend src_backend, const void *src, const std::size_t bytes);

    /// Sets @p bytes to zero.
    void
    zero(const Backend backend, void *ptr, const std::size_t bytes);

    /**
     * An owning array of @p T in one backend's memory. Copyable (deep copy; a copy of
     * shareable memory is shareable, a copy of page-locked memory is ordinary). On the host
     * backend it is host memory that the host reference code reads directly.
     */
    template <typename T>
    class Array
    {
    public:
      Array() = default;

      Array(const Array &other)
      {
        *this = other;
      }

      Array(Array &&other) noexcept
      {
        swap(other);
      }

      ~Array()
      {
        clear();
      }

      Array &
      operator=(const Array &other)
      {
        if (this != &other)
          {
            if (other.kind == Kind::shareable)
              reinit_shareable(other.backend_, other.n);
            else
              reinit(other.backend_, other.n);
            copy(backend_, ptr, other.backend_, other.ptr, n * sizeof(T));
          }
        return *this;
      }

      Array &
      operator=(Array &&other) noexcept
      {
        swap(other);
        return *this;
      }

      /// Resizes to @p size uninitialized entries in @p backend's memory.
      void
      reinit(const Backend backend, const std::size_t size)
      {
        if (backend == backend_ && size == n && kind == Kind::ordinary)
          return;
        clear();
        backend_ = backend;
        if (size > 0)
          ptr = static_cast<T *>(allocate(backend, size * sizeof(T)));
        n = size;
      }

      /**
       * Resizes to @p size uninitialized entries of page-locked host memory
       * (allocate_pinned()); backend() is then Backend::host. A copy of the array is
       * ordinary host memory.
       */
      void
      reinit_pinned(const std::size_t size)
      {
        if (kind == Kind::pinned && size == n)
          return;
        clear();
        backend_ = Backend::host;
        if (size > 0)
          {
            ptr  = static_cast<T *>(allocate_pinned(size * sizeof(T)));
            kind = Kind::pinned;
          }
        n = size;
      }

      /// Resizes to @p size uninitialized entries of memory that other processes of the
      /// node can map (allocate_shareable()).
      void
      reinit_shareable(const Backend backend, const std::size_t size)
      {
        if (kind == Kind::shareable && backend == backend_ && size == n)
          return;
        clear();
        backend_ = backend;
        if (size > 0)
          {
            ptr  = static_cast<T *>(allocate_shareable(backend, size * sizeof(T)));
            kind = Kind::shareable;
          }
        n = size;
      }

      /// Resizes and fills with the entries of @p host_data.
      void
      reinit(const Backend backend, const std::vector<T> &host_data)
      {
        reinit(backend, host_data.data(), host_data.size());
      }

      /// Resizes to @p size entries and fills them from @p host_data (host memory).
      void
      reinit(const Backend backend, const T *host_data, const std::size_t size)
      {
        reinit(backend, size);
        copy(backend, ptr, Backend::host, host_data, n * sizeof(T));
      }

      /// Copies the entries to the host.
      std::vector<T>
      to_host() const
      {
        std::vector<T> result(n);
        copy(Backend::host, result.data(), backend_, ptr, n * sizeof(T));
        return result;
      }

      void
      clear()
      {
        if (kind == Kind::pinned)
          deallocate_pinned(ptr);
        else if (kind == Kind::shareable)
          deallocate_shareable(backend_, ptr);
        else if (ptr != nullptr)
          deallocate(backend_, ptr);
        ptr  = nullptr;
        n    = 0;
        kind = Kind::ordinary;
      }

      void
      swap(Array &other) noexcept
      {
        std::swap(backend_, other.backend_);
        std::swap(ptr, other.ptr);
        std::swap(n, other.n);
        std::swap(kind, other.kind);
      }

      T *
      data() const
      {
        return ptr;
      }

      std::size_t
      size() const
      {
        return n;
      }

      Backend
      backend() const
      {
        return backend_;
      }

      std::size_t
      memory_consumption() const
      {
        return n * sizeof(T);
      }

    private:
      Backend     backend_ = Backend::host;
      T          *ptr      = nullptr;
      std::size_t n        = 0;
      /// Where the memory comes from: allocate(), allocate_pinned() or allocate_shareable()
      /// (freed by the matching function).
      enum class Kind
      {
        ordinary,
        pinned,
        shareable
      } kind = Kind::ordinary;
    };
  } // namespace internal
} // namespace gpumf

#endif
