/**
 * @file gpumf/internal/loop_operations.h
 * The operations before and after a loop over cells (deal.II's operation_before_loop and
 * operation_after_loop of MatrixFree::cell_loop() and loop()): what kinds of function a user
 * may pass, and how one runs over a vector's locally owned entries on the loop's backend.
 * internal::LoopSchedule decides when (internal/loop_schedule.h).
 *
 * An operation is called as `op(begin, end)` and handles the local indices [begin, end) of
 * the locally owned entries. Accepted:
 * - a function object with a `__host__ __device__` call operator, or an extended lambda
 *   `[=] __host__ __device__ (const unsigned int begin, const unsigned int end) {...}`: on the
 *   host backend one call op(0, n), on the CUDA backend a kernel with op(i, i + 1) on a thread
 *   per entry (the call must then be compiled by nvcc, as Vector::transform());
 * - std::function<void(unsigned int, unsigned int)> (deal.II's type): on the host backend only;
 *   an empty one is no operation on either backend;
 * - nullptr: no operation.
 */
#ifndef gpumf_internal_loop_operations_h
#define gpumf_internal_loop_operations_h

#include <gpumf/backend.h>
#include <gpumf/internal/index_loop.h>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>

namespace gpumf
{
  namespace internal
  {
    template <typename T>
    struct IsStdFunction : std::false_type
    {};
    template <typename R, typename... Args>
    struct IsStdFunction<std::function<R(Args...)>> : std::true_type
    {};

    /// True for the types an operation before or after a loop may have (see the file head).
    template <typename Operation>
    constexpr bool is_loop_operation = std::is_same_v<Operation, std::nullptr_t> ||
                                       (!std::is_arithmetic_v<Operation> && !std::is_enum_v<Operation> &&
                                        std::is_invocable_v<const Operation &, unsigned int, unsigned int>);

    /// The kernel body: op(i, i + 1).
    template <typename Operation>
    struct OperationOnEntry
    {
      Operation op;

      __host__ __device__ void
      operator()(const std::size_t i) const
      {
        op(static_cast<unsigned int>(i), static_cast<unsigned int>(i + 1));
      }
    };

    /**
     * @p op over the locally owned entries [0, @p n) on @p backend, as a function the schedule
     * calls (empty for no operation). @p what names the argument in messages
     * ("gpumf::MatrixFree::cell_loop: operation_before_loop").
     */
    template <typename Operation>
    std::function<void()>
    loop_operation(const Operation &op, const std::size_t n, const Backend backend, const std::string &what)
    {
      static_assert(is_loop_operation<Operation>,
                    "gpumf::MatrixFree::cell_loop / loop: an operation before or after the loop is called as "
                    "op(begin, end) on local indices of the owned entries: pass a __host__ __device__ function "
                    "object, an extended lambda [=] __host__ __device__ (const unsigned int begin, const unsigned "
                    "int end) { ... }, a std::function<void(unsigned int, unsigned int)> (host backend only), or "
                    "nullptr for none.");
      if constexpr (std::is_same_v<Operation, std::nullptr_t>)
        return {};
      else if constexpr (IsStdFunction<Operation>::value)
        {
          if (!op)
            return {};
          AssertThrow(backend == Backend::host,
                      ExcNotSupported(what + " is a std::function, which runs on the host, while the vectors are in "
                                             "GPU memory (Backend::cuda). Pass a __host__ __device__ function object "
                                             "or an extended lambda [=] __host__ __device__ (const unsigned int "
                                             "begin, const unsigned int end) { ... } that reads the vectors "
                                             "through their get_values() pointers."));
          return [op, n]() { op(0u, static_cast<unsigned int>(n)); };
        }
      else if (backend == Backend::host)
        return [op, n]() { op(0u, static_cast<unsigned int>(n)); };
      else
        return [op, n, what]() { cuda_for_each_index(n, OperationOnEntry<Operation>{op}, what.c_str()); };
    }
  } // namespace internal
} // namespace gpumf

#endif
