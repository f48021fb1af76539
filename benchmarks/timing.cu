// Timing of the benchmark: CUDA events on the GPU, a steady clock on the host; the
// device-to-device (or host memcpy) copy that serves as the empirical roofline.
#include <gpumf/backend.h>
#include <gpumf/internal/memory.h>
#if GPUMF_WITH_CUDA
#  include <gpumf/internal/cuda_check.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "benchmark.h"

namespace bench
{
  namespace
  {
    double
    median(std::vector<double> times)
    {
      std::sort(times.begin(), times.end());
      const std::size_t n = times.size();
      return n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    }
  } // namespace

  double
  median_seconds(const gpumf::Backend backend, const unsigned int repeat, const std::function<void()> &f)
  {
    f(); // warm-up: first-touch allocations, module loading, caches
    std::vector<double> times;
#if GPUMF_WITH_CUDA
    if (backend == gpumf::Backend::cuda)
      {
        cudaEvent_t start, stop;
        GPUMF_CHECK_CUDA(cudaEventCreate(&start));
        GPUMF_CHECK_CUDA(cudaEventCreate(&stop));
        for (unsigned int r = 0; r < repeat; ++r)
          {
            GPUMF_CHECK_CUDA(cudaEventRecord(start));
            f();
            GPUMF_CHECK_CUDA(cudaEventRecord(stop));
            GPUMF_CHECK_CUDA(cudaEventSynchronize(stop));
            float ms = 0;
            GPUMF_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
            times.push_back(1e-3 * ms);
          }
        GPUMF_CHECK_CUDA(cudaEventDestroy(start));
        GPUMF_CHECK_CUDA(cudaEventDestroy(stop));
        return median(times);
      }
#endif
    for (unsigned int r = 0; r < repeat; ++r)
      {
        const auto start = std::chrono::steady_clock::now();
        f();
        gpumf::synchronize(backend);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    return median(times);
  }

  double
  median_seconds_all_ranks(const MPI_Comm comm, const unsigned int repeat, const std::function<void()> &f)
  {
    return median_seconds(gpumf::Backend::host, repeat, [&]() {
      f();
      MPI_Barrier(comm);
    });
  }

  double
  copy_bandwidth(const gpumf::Backend backend, const double bytes, const unsigned int repeat)
  {
    // at most 2 x 1 GiB: large enough for the full bandwidth, small enough to fit beside any case
    const std::size_t half = std::max<std::size_t>(8, std::min<std::size_t>(std::size_t(bytes / 2), 1ul << 30) / 8 * 8);
#if GPUMF_WITH_CUDA
    if (backend == gpumf::Backend::cuda)
      {
        void *a = nullptr, *b = nullptr;
        GPUMF_CHECK_CUDA(cudaMalloc(&a, half));
        GPUMF_CHECK_CUDA(cudaMalloc(&b, half));
        GPUMF_CHECK_CUDA(cudaMemset(a, 1, half));
        const double seconds = median_seconds(backend, repeat, [&]() {
          GPUMF_CHECK_CUDA(cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice));
        });
        GPUMF_CHECK_CUDA(cudaFree(a));
        GPUMF_CHECK_CUDA(cudaFree(b));
        return 2. * half / seconds;
      }
#endif
    std::vector<char> a(half, 1), b(half);
    const double      seconds = median_seconds(backend, repeat, [&]() { std::memcpy(b.data(), a.data(), half); });
    return 2. * half / seconds;
  }

  double
  host_copy_bandwidth(const MPI_Comm comm, const unsigned int repeat)
  {
    // at least 128 MiB a rank and 2 GiB in all, far beyond the host's caches (the H200 machine's
    // 16-core Xeon slice reports 300 MiB of L3); each rank touches its arrays first, so they lie in
    // its NUMA node
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    const std::size_t half = std::max<std::size_t>(std::size_t(1) << 27, (std::size_t(1) << 30) / ranks);
    std::vector<char> a(half, 1), b(half, 0);
    const double seconds = median_seconds_all_ranks(comm, repeat, [&]() { std::memcpy(b.data(), a.data(), half); });
    return 2. * half * ranks / seconds;
  }

  bool
  device_memory(const gpumf::Backend backend, std::size_t &free_bytes, std::size_t &total_bytes)
  {
    free_bytes = total_bytes = 0;
    if (backend == gpumf::Backend::cuda)
      gpumf::internal::device_memory_info(free_bytes, total_bytes);
    return backend == gpumf::Backend::cuda;
  }
} // namespace bench
