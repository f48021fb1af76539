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
#include <cassert>
#include <stdexcept>
#include <string>

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

    /**
     * deal.II 9.8's Portable::DeviceBlockVector: what a cell functor of the form
     * `operator()(const Data *data, const DeviceBlockVector<Number> &src,
     * DeviceBlockVector<Number> &dst)` receives from MatrixFree::cell_loop() with
     * gpumf::BlockVector arguments: a DeviceVector per block, block(b).
     */
    template <typename Number>
    class DeviceBlockVector
    {
    public:
      using value_type = Number;

      /// The most blocks (MatrixFree::max_dof_handlers).
      static constexpr unsigned int max_blocks = 8;

      __host__ __device__
      DeviceBlockVector() = default;

      /// One block (deal.II's DeviceBlockVector(const DeviceVector &)).
      __host__ __device__ explicit DeviceBlockVector(const DeviceVector<Number> &v)
        : n(1)
      {
        blocks[0] = v;
      }

      /// Appends a block (the loops build the argument so; at most max_blocks).
      __host__ __device__ void
      push_back(const DeviceVector<Number> &v)
      {
        blocks[n < max_blocks ? n++ : max_blocks - 1] = v;
      }

      __host__ __device__ unsigned int
      n_blocks() const
      {
        return n;
      }

      __host__ __device__ const DeviceVector<Number>                           &
      block(const unsigned int b) const
      {
        check(b);
        return blocks[b];
      }

      __host__ __device__ DeviceVector<Number>                     &
      block(const unsigned int b)
      {
        check(b);
        return blocks[b];
      }

    private:
      /// A block beyond n_blocks(): stops the kernel with a message on the GPU, throws on the host.
      __host__ __device__ void
      check(const unsigned int b) const
      {
        if (b < n)
          return;
#ifdef __CUDA_ARCH__
        __assert_fail("gpumf::Portable::DeviceBlockVector::block(): index beyond the blocks of the vector passed to "
                      "cell_loop()",
                      __FILE__,
                      __LINE__,
                      "gpumf");
#else
        throw std::out_of_range("gpumf::Portable::DeviceBlockVector::block(" + std::to_string(b) +
                                "): the vector passed to cell_loop() has " + std::to_string(n) + " blocks.");
#endif
      }

      DeviceVector<Number> blocks[max_blocks];
      unsigned int         n = 0;
    };
  } // namespace Portable
} // namespace gpumf

#endif
