/**
 * @file gpumf/setup_profile.h
 * Where gpumf's set-up time goes: wall seconds per part of MatrixFree::reinit(), the operators'
 * compute_diagonal() and MGTransferMatrixFree::build(), summed over all objects of the process
 * since the last reset. deal.II equivalent: the sections of a TimerOutput, collected by the
 * library itself so that a user's program (step-37, say) needs no change to show them.
 * On request also where the time of MatrixFree::cell_loop() goes on several ranks
 * (cell_loop_profile()).
 */
#ifndef gpumf_setup_profile_h
#define gpumf_setup_profile_h

#include <gpumf/backend.h>

#include <deal.II/base/timer.h>

#include <mpi.h>

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

  /**
   * As above for the ranks of @p comm together (collective): rank 0 writes each part's
   * fastest and slowest rank (a part a rank did not time counts 0 s there), in rank 0's order,
   * then the parts only other ranks timed. A part whose slowest rank takes much longer than
   * its fastest points at an imbalance; a part that waits for the others ("waits for the
   * slowest") at one before it.
   */
  void
  print_setup_profile(std::ostream &out, const std::string &prefix, const MPI_Comm comm);

  /**
   * Where the time of MatrixFree::cell_loop() went, summed over the loops since
   * enable_cell_loop_profile(), in seconds: the cells that touch no ghost entry (interior),
   * the others (boundary), and the rest of each loop (packing, the messages and the waits
   * for them that the cells did not hide). Taken from CUDA events on the default stream
   * (host backend: the wall clock) at the parts' ends; the device is synchronized at the end
   * of every loop while profiling, so that the loops do not overlap each other.
   */
  struct CellLoopProfile
  {
    double       interior   = 0;
    double       boundary   = 0;
    double       not_hidden = 0;
    double       total      = 0;
    unsigned int loops      = 0;
  };

  /// Starts (@p on true, from zero) or stops profiling cell_loop().
  void
  enable_cell_loop_profile(const bool on);

  /// The sums since enable_cell_loop_profile(true).
  CellLoopProfile
  cell_loop_profile();

  /**
   * Where a run's host time goes in the calls that can stall it, per process: device memory,
   * the interprocess links of the ipc exchange, the waits of the ghost exchanges, the
   * reductions (the device-to-host copy that waits for the GPU, then the MPI sum) and the
   * device synchronizations. Kept only when the environment variable GPUMF_RUN_PROFILE is set
   * at the start; then each process writes it to the standard error when it ends
   * (print_run_profile()). The counters serve to find what several ranks on one GPU add to
   * one rank's run: the calls whose number or time grows with the ranks.
   */
  struct RunProfilePart
  {
    std::string        name;
    unsigned long long calls   = 0;
    double             seconds = 0;
  };

  /// The parts with at least one call, in a fixed order.
  std::vector<RunProfilePart>
  run_profile();

  /// Writes run_profile() to @p out, a line per part, each line starting with @p prefix.
  void
  print_run_profile(std::ostream &out, const std::string &prefix = "");

  namespace internal
  {
    /// The points of cell_loop() that the profile marks, in order.
    enum class LoopMark : unsigned int
    {
      begin,
      first_start,
      first_end,
      boundary_start,
      boundary_end,
      second_start,
      second_end,
      end,
      n_marks
    };

    /// Records @p mark of the running cell_loop() when profiling (else returns at once);
    /// LoopMark::end adds the loop to cell_loop_profile().
    void
    mark_cell_loop(const Backend backend, const LoopMark mark);

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
