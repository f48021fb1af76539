// What a rank does when an exception leaves a step that other ranks take with it (a loop's
// exchange, a vector's exchange or set-up, MatrixFree::reinit), so that a fault on one rank ends
// the job instead of hanging it. Internal to the library; the user's side is doc/mpi.md, "When a
// rank fails".
//
// The other ranks cannot know that one rank has left: they go on and wait for it in their next
// message or reduction. The rank that failed ends the job by ending itself: an uncaught exception
// aborts the process, deal.II's MPI_InitFinalize skips MPI_Finalize() while an exception unwinds
// (step-37's main()), and mpirun then ends the others. The one way to a hang is a program that
// catches the exception and calls MPI_Finalize(), which waits for ranks that wait for it: a rank
// that noted an interruption (note_interrupted()) and has completed no reduction over the ranks
// since (note_completed()) ends its process with exit code 1 when its MPI_Finalize() has not returned
// after GPUMF_FINALIZE_TIMEOUT seconds (default 20; 0: never).
#ifndef gpumf_source_core_faults_h
#define gpumf_source_core_faults_h

#include <exception>

namespace gpumf
{
  namespace internal
  {
    /// Records that an exception left @p operation, a step this rank takes with the other
    /// @p n_ranks - 1 ranks of a communicator (nothing is recorded for one rank), and arms the
    /// limit on this process's MPI_Finalize() (the message names the operation). Does not throw.
    void
    note_interrupted(const char *operation, const unsigned int n_ranks) noexcept;

    /// Records that a reduction over the @p n_ranks ranks of a communicator returned (a step no
    /// rank completes without all the others): the ranks went on together after an interruption
    /// (every rank caught it), and the limit is disarmed until the next one. Called where the
    /// library's reductions return (vector norms and dot products, SolverCG's sums).
    void
    note_completed(const unsigned int n_ranks) noexcept;

    /// note_interrupted(@p operation, @p n_ranks) when the scope is left by an exception.
    class InterruptionGuard
    {
    public:
      InterruptionGuard(const char *operation, const unsigned int n_ranks)
        : operation(operation)
        , n_ranks(n_ranks)
        , exceptions(std::uncaught_exceptions())
      {}
      InterruptionGuard(const InterruptionGuard &) = delete;
      InterruptionGuard &
      operator=(const InterruptionGuard &) = delete;
      ~InterruptionGuard()
      {
        if (std::uncaught_exceptions() > exceptions)
          note_interrupted(operation, n_ranks);
      }

    private:
      const char        *operation;
      const unsigned int n_ranks;
      const int          exceptions;
    };

    /// The faults the tests inject: GPUMF_FAULT_INJECT=<where>:<rank> makes rank <rank> of
    /// MPI_COMM_WORLD throw at the point @p where names ("loop": in a cell loop on several
    /// ranks, after the first cells, while the ghost exchange is in flight). Read once; nothing
    /// happens without the variable.
    void
    inject_fault(const char *where);
  } // namespace internal
} // namespace gpumf

#endif
