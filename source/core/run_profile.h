// The counters behind gpumf::run_profile() (include/gpumf/setup_profile.h): a scope timer that
// the library puts around the calls that can stall a run. Lean (no deal.II) so that the
// kernel files can use it too.
#ifndef gpumf_source_core_run_profile_h
#define gpumf_source_core_run_profile_h

#include <chrono>

namespace gpumf
{
  namespace internal
  {
    /// The parts of run_profile().
    enum class RunPart : unsigned int
    {
      device_allocate,
      device_free,
      ipc_export,
      ipc_open,
      ipc_close,
      ipc_connect,
      exchange_wait_sources,
      exchange_wait_readers,
      exchange_wait_messages,
      exchange_host,
      ipc_record_event,
      ipc_wait_event,
      ipc_order_counters,
      exchange_launch,
      reduction_copy,
      reduction_mpi,
      device_synchronize,
      n_parts
    };

    /// Whether GPUMF_RUN_PROFILE was set when the process first asked.
    bool
    run_profile_enabled();

    /// Adds @p seconds and one call to @p part.
    void
    add_to_run_profile(const RunPart part, const double seconds);

    /// Adds the wall time of its scope to a part of run_profile() (nothing when not enabled).
    class RunTimer
    {
    public:
      explicit RunTimer(const RunPart part)
        : part(part)
        , on(run_profile_enabled())
      {
        if (on)
          start = std::chrono::steady_clock::now();
      }
      ~RunTimer()
      {
        if (on)
          add_to_run_profile(part, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      RunTimer(const RunTimer &) = delete;
      RunTimer &
      operator=(const RunTimer &) = delete;

    private:
      RunPart                               part;
      bool                                  on;
      std::chrono::steady_clock::time_point start;
    };

  } // namespace internal
} // namespace gpumf

#endif
