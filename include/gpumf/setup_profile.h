/**
 * @file gpumf/setup_profile.h
 * Where gpumf's set-up time goes: wall seconds per part of MatrixFree::reinit(), the operators'
 * compute_diagonal() and MGTransferMatrixFree::build(), summed over all objects of the process
 * since the last reset. deal.II equivalent: the sections of a TimerOutput, collected by the
 * library itself so that a user's program (step-37, say) needs no change to show them.
 */
#ifndef gpumf_setup_profile_h
#define gpumf_setup_profile_h

#include <gpumf/backend.h>

#include <deal.II/base/timer.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gpumf
{
  /// The parts timed so far, in the order they were first timed: (name, wall seconds).
  std::vector<std::pair<std::string, double>>
  setup_profile();

  /// Forgets all parts (e.g. before each refinement cycle).
  void
  reset_setup_profile();

  /**
   * Writes the parts as a table (name, seconds, share of their sum) to @p out, one line each,
   * with @p prefix before every line. Writes nothing when no part was timed.
   */
  void
  print_setup_profile(std::ostream &out, const std::string &prefix = "");

  namespace internal
  {
    /**
     * Adds the wall time from its construction (or the last next()) to the part @p name of
     * setup_profile(). With the CUDA backend the device is synchronized before the time is
     * taken, so that the part includes its kernels and copies.
     */
    class SetupSection
    {
    public:
      SetupSection(const std::string &name, const Backend backend = Backend::host);
      /// Ends the current part and starts part @p name.
      void
      next(const std::string &name);
      ~SetupSection();

    private:
      void
      stop();

      std::string   name;
      Backend       backend;
      dealii::Timer timer;
    };
  } // namespace internal
} // namespace gpumf

#endif
