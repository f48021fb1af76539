// The ghost exchange around a loop over cells or points, for the library's operators (the cell
// loops of user functors overlap it with interior cells: include/gpumf/internal/cell_loop.h).
#ifndef gpumf_source_linear_algebra_exchange_around_h
#define gpumf_source_linear_algebra_exchange_around_h

#include <gpumf/vector.h>

namespace gpumf
{
  namespace internal
  {
    /**
     * Runs @p loop with the ghost entries of @p src current: they are imported first unless @p src
     * has them already, and dropped after where they were imported here. With @p dst (not null),
     * the loop also adds into the ghost entries of @p dst: they are zeroed before the loop and
     * sent to their owners after it (compress with add). A null @p src reads no ghosts.
     */
    template <typename Number, typename Loop>
    void
    exchange_around(const Vector<Number> *src, Vector<Number> *dst, Loop &&loop)
    {
      const bool import = src != nullptr && !src->has_ghost_elements();
      if (import)
        src->update_ghost_values();
      if (dst != nullptr)
        dst->zero_out_ghost_values();
      loop();
      if (dst != nullptr)
        dst->compress(dealii::VectorOperation::add);
      if (import)
        src->zero_out_ghost_values();
    }
  } // namespace internal
} // namespace gpumf

#endif
