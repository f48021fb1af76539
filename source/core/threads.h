/**
 * @file source/core/threads.h
 * The host threads of gpumf's set-up: deal.II's (MultithreadInfo::n_threads(), TBB), as deal.II's
 * CPU MatrixFree uses them. Only for .cc files compiled by the host compiler.
 */
#ifndef gpumf_source_core_threads_h
#define gpumf_source_core_threads_h

#include <deal.II/base/multithread_info.h>
#include <deal.II/base/parallel.h>

#include <algorithm>

namespace gpumf
{
  namespace internal
  {
    /// Items per range of parallel_for().
    constexpr unsigned int parallel_range = 512;

    /**
     * Calls f(begin, end) for the ranges [k r, min(n, (k + 1) r)), k = 0, 1, ..., of
     * r = parallel_range items, in deal.II's threads. The ranges do not depend on the number of threads: what f sets
     * up per range (an FEValues, whose cell-similarity shortcut reuses the previous cell's
     * Jacobians, so that a cell's rounding depends on the cell before it) gives bitwise the same
     * result with any number of threads, one included. f writes only what belongs to its items.
     */
    template <typename Function>
    void
    parallel_for(const unsigned int n, const Function &f)
    {
      constexpr unsigned int range    = parallel_range;
      const unsigned int     n_ranges = (n + range - 1) / range;
      const auto             run      = [&](const unsigned int first, const unsigned int last) {
        for (unsigned int k = first; k < last; ++k)
          f(k * range, std::min(n, (k + 1) * range));
      };
      if (dealii::MultithreadInfo::n_threads() == 1 || n_ranges <= 1)
        run(0u, n_ranges);
      else
        dealii::parallel::apply_to_subranges(0u, n_ranges, run, 1);
    }
  } // namespace internal
} // namespace gpumf

#endif
