/**
 * @file gpumf/device_vector.h
 * deal.II 9.7+'s Portable::DeviceVector on gpumf: what a cell functor of the form
 * `operator()(const Data *data, const DeviceVector<Number> &src, DeviceVector<Number> &dst)`
 * receives from MatrixFree::cell_loop(). A view of a vector's locally owned entries (deal.II:
 * an unmanaged Kokkos::View of `locally_owned_size()` entries) in the memory of the loop's
 * backend; the ghost entries follow them in memory, as in deal.II, and the DoF codes of
 * FEEvaluation reach them. It owns nothing and is copied by value into the kernels.
 *
 * A functor passes it to FEEvaluation::read_dof_values() and distribute_local_to_global(),
 * or reads and writes entries with `v(i)` / `v[i]` (Kokkos' `operator()`), `v.data()`,
 * `v.size()` / `v.extent(0)`.
 */
#ifndef gpumf_device_vector_h
#define gpumf_device_vector_h

#include <gpumf/config.h>

#include <cstddef>

namespace gpumf
{
  namespace Portable
  {
    template <typename Number>
    class DeviceVector
    {
    public:
      using value_type = Number;

      __host__ __device__
      DeviceVector() = default;

      /// A view of @p size entries at @p values (deal.II: Kokkos::View(pointer, size)).
      __host__ __device__
      DeviceVector(Number *values, const std::size_t size)
        : values(values)
        , n(size)
      {}

      __host__ __device__ Number *
      data() const
      {
        return values;
      }

      /// The locally owned entries (what deal.II's view spans).
      __host__ __device__ std::size_t
                          size() const
      {
        return n;
      }

      __host__ __device__ std::size_t
                          extent(const unsigned int) const
      {
        return n;
      }

      __host__ __device__ Number &
      operator()(const std::size_t i) const
      {
        return values[i];
      }

      __host__ __device__ Number &
      operator[](const std::size_t i) const
      {
        return values[i];
      }

    private:
      Number     *values = nullptr;
      std::size_t n      = 0;
    };
  } // namespace Portable
} // namespace gpumf

#endif
