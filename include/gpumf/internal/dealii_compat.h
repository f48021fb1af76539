/**
 * @file gpumf/internal/dealii_compat.h
 * Everything in gpumf's C++ that differs between the deal.II versions gpumf is built
 * against: 9.4 (Debian 12; CUDAWrappers, MemorySpace::CUDA) and 9.5 or newer (Kokkos,
 * MemorySpace::Default; Portable:: from 9.6, which Debian 13 has). Every `DEAL_II_VERSION_GTE` of the
 * library and its programs lives here; the rest of the code names what this file defines.
 * (The build differs too: which step-64 the example ports, in examples/step-64/CMakeLists.txt.)
 */
#ifndef gpumf_internal_dealii_compat_h
#define gpumf_internal_dealii_compat_h

#include <gpumf/config.h>

#include <deal.II/base/config.h>

#if DEAL_II_VERSION_GTE(9, 7, 0)
#  include <deal.II/base/enable_observer_pointer.h>
#  include <deal.II/base/observer_pointer.h>
#else
#  include <deal.II/base/smartpointer.h>
#  include <deal.II/base/subscriptor.h>
#endif

#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/read_write_vector.h>

#include <type_traits>

#if !DEAL_II_VERSION_GTE(9, 4, 0)
#  error "gpumf needs deal.II 9.4 or newer (tested: 9.4.1, 9.6.2 and 9.8.0)."
#endif

/// deal.II's TrilinosWrappers are Epetra's: always before 9.7, where deal.II's Trilinos has Epetra
/// after it (Debian's deal.II 9.8 is built with Trilinos 17, which has none).
#if defined(DEAL_II_WITH_TRILINOS) && (!DEAL_II_VERSION_GTE(9, 7, 0) || defined(DEAL_II_TRILINOS_WITH_EPETRA))
#  define GPUMF_DEAL_II_HAS_EPETRA 1
#else
#  define GPUMF_DEAL_II_HAS_EPETRA 0
#endif

/// deal.II has MemorySpace::Default (Kokkos) and the 9.5 names ReadWriteVector::import_elements()
/// and LinearAlgebra::distributed::Vector::import_elements() (9.4: import()).
#define GPUMF_DEAL_II_HAS_KOKKOS DEAL_II_VERSION_GTE(9, 5, 0)

/**
 * deal.II 9.5+ marks functions for host and device with DEAL_II_HOST_DEVICE (Kokkos'
 * KOKKOS_FUNCTION). deal.II 9.4 has no such macro: gpumf defines it there as `__host__
 * __device__`, so that code written for 9.5+ compiles on 9.4 too. Where deal.II's Kokkos has
 * no CUDA (Debian's 9.6), deal.II's definition marks host functions only: a functor for gpumf's
 * GPU loops says `__host__ __device__` (what the ports write) or GPUMF_HOST_DEVICE (gpumf/config.h).
 */
#ifndef DEAL_II_HOST_DEVICE
#  define DEAL_II_HOST_DEVICE __host__ __device__
#endif

namespace gpumf
{
  template <typename Number>
  class Vector;

  namespace internal
  {
    /// The base of objects that deal.II's ObserverPointer (9.4, 9.6: SmartPointer) may watch:
    /// deal.II 9.7's EnableObserverPointer, the new name of 9.4's Subscriptor (deprecated in 9.7).
#if DEAL_II_VERSION_GTE(9, 7, 0)
    using EnableObserverPointer = dealii::EnableObserverPointer;
    template <typename T>
    using ObserverPointer = dealii::ObserverPointer<T>;
#else
    using EnableObserverPointer = dealii::Subscriptor;
    /// deal.II 9.7's ObserverPointer, the new name of 9.4's SmartPointer (deprecated in 9.7).
    template <typename T>
    using ObserverPointer = dealii::SmartPointer<T>;
#endif

    /// deal.II 9.7's running_in_debug_mode(): whether this is a debug build (DEBUG defined).
    constexpr bool
    running_in_debug_mode()
    {
#ifdef DEBUG
      return true;
#else
      return false;
#endif
    }

    /// The vector of entry (global index) % 11 minus its mean, deal.II's start vector of the
    /// eigenvalue estimate of PreconditionChebyshev for its distributed vectors (vector.cc).
    template <typename Number>
    void
    chebyshev_initial_guess(gpumf::Vector<Number> &vector);

    /**
     * Whether gpumf::Vector exchanges data with deal.II's distributed vectors of @p MemorySpace:
     * MemorySpace::Host on every deal.II, MemorySpace::Default on 9.5+ (deal.II 9.4's
     * MemorySpace::CUDA needs a deal.II built with CUDA, which gpumf does not assume).
     */
    template <typename MemorySpace>
    struct IsExchangeableMemorySpace : std::false_type
    {};
    template <>
    struct IsExchangeableMemorySpace<dealii::MemorySpace::Host> : std::true_type
    {};
#if GPUMF_DEAL_II_HAS_KOKKOS
    template <>
    struct IsExchangeableMemorySpace<dealii::MemorySpace::Default> : std::true_type
    {};
/// F(space) for each deal.II memory space of IsExchangeableMemorySpace (explicit instantiations).
#  define GPUMF_DEAL_II_MEMORY_SPACES(F) F(dealii::MemorySpace::Host) F(dealii::MemorySpace::Default)
#else
#  define GPUMF_DEAL_II_MEMORY_SPACES(F) F(dealii::MemorySpace::Host)
#endif

    /// rw.import_elements(v, operation): deal.II 9.5+'s name of 9.4's ReadWriteVector::import().
    template <typename Number, typename VectorType>
    void
    import_elements(dealii::LinearAlgebra::ReadWriteVector<Number> &rw,
                    const VectorType                               &v,
                    const dealii::VectorOperation::values           operation)
    {
#if GPUMF_DEAL_II_HAS_KOKKOS
      rw.import_elements(v, operation);
#else
      rw.import(v, operation);
#endif
    }

    /// v.import_elements(rw, operation) for deal.II's distributed vector @p v (9.4: import()).
    template <typename Number, typename MemorySpace>
    void
    import_elements(dealii::LinearAlgebra::distributed::Vector<Number, MemorySpace> &v,
                    const dealii::LinearAlgebra::ReadWriteVector<Number>            &rw,
                    const dealii::VectorOperation::values                            operation)
    {
#if GPUMF_DEAL_II_HAS_KOKKOS
      v.import_elements(rw, operation);
#else
      v.import(rw, operation);
#endif
    }

    /// v.import_elements(rw, operation) for a vector of gpumf's (which has both names), so that
    /// code generic in the vector type calls one function.
    template <typename VectorType, typename Number>
    void
    import_elements(VectorType                                           &v,
                    const dealii::LinearAlgebra::ReadWriteVector<Number> &rw,
                    const dealii::VectorOperation::values                 operation)
    {
      v.import_elements(rw, operation);
    }
  } // namespace internal
} // namespace gpumf

/*
 * deal.II's PreconditionChebyshev starts its eigenvalue estimate from a vector that its
 * function set_initial_guess() makes: a high-frequency vector for deal.II's own vectors, a
 * constant one for any other type. gpumf::Vector gets deal.II's high-frequency one, so that a
 * ported program needs the iteration counts of deal.II's CPU program. The function template
 * moved from internal::PreconditionChebyshevImplementation to internal in 9.6 (9.4 and 9.6
 * tested; 9.5 is taken to be 9.4's); its generic form is the same in 9.4 to 9.8.
 */
namespace dealii
{
  namespace internal
  {
#if !DEAL_II_VERSION_GTE(9, 6, 0)
    namespace PreconditionChebyshevImplementation
    {
#endif
      template <>
      inline void
      set_initial_guess(gpumf::Vector<float> &vector)
      {
        gpumf::internal::chebyshev_initial_guess(vector);
      }

      template <>
      inline void
      set_initial_guess(gpumf::Vector<double> &vector)
      {
        gpumf::internal::chebyshev_initial_guess(vector);
      }
#if !DEAL_II_VERSION_GTE(9, 6, 0)
    } // namespace PreconditionChebyshevImplementation
#endif
  } // namespace internal
} // namespace dealii

#endif
