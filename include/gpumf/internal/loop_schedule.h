/**
 * @file gpumf/internal/loop_schedule.h
 * The one schedule of every loop over cells or points that reads the ghost entries of its
 * sources or adds into the ghost entries of its destinations: MatrixFree's cell_loop(),
 * diagonal_loop(), evaluate_coefficients() and loop(), the fused DG kernel, and the library's
 * local-matrix, stencil, Gauss–Seidel and multigrid transfer loops. A caller names its vectors
 * and hands run() the body "run the cells of this range"; the schedule owns the rest:
 *
 * - the caller's operations on the vectors' entries before and after the loop (deal.II's
 *   operation_before_loop and operation_after_loop): the one before runs first, before any
 *   vector is read (so it may change a source: the ghost update sends its values), the one
 *   after last, when the contributions of all ranks have arrived;
 * - stand-ins: a vector with the loop layout's locally owned entries but another partitioner
 *   (deal.II's Vector(locally_owned, comm), without ghosts) is read, or written, through a
 *   temporary of the loop's layout, filled when the loop starts; a destination's owned entries
 *   are copied back after;
 * - in-place loops (LoopOptions::in_place): a vector both source and destination, where each
 *   cell reads and writes only entries no other cell touches; it is neither exchanged nor
 *   compressed;
 * - zeroing the destinations (all entries, or their ghost entries alone);
 * - the ghost update of the sources that have no ghost values yet (each vector once; all ghost
 *   entries or a GhostSubset of them), and zeroing those ghosts again afterwards;
 * - the ranges: all cells on one rank or an unsplit loop; else the first halves of the
 *   interior cells, the boundary cells and the second halves, with the ghost update overlapped
 *   with the first and the contributions to other ranks (compress with add) with the second
 *   where asked — the same order with and without overlap, so that both give bitwise the same
 *   result;
 * - unwinding: where the body throws, the exchanges this rank started are finished and its
 *   (partial) contributions sent, so that its messages match those of ranks on which nothing
 *   was thrown; the exception reaches the caller;
 * - cell_loop()'s profile marks (internal::mark_cell_loop()).
 *
 * Vectors that are not of the loop's layout (data per cell or point, checked by the caller)
 * reach the body as they are: neither exchanged nor compressed. Compiled for float and double
 * in source/linear_algebra/loop_schedule.cc.
 */
#ifndef gpumf_internal_loop_schedule_h
#define gpumf_internal_loop_schedule_h

#include <deal.II/base/partitioner.h>

#include <gpumf/backend.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpumf
{
  template <typename Number>
  class Vector;

  namespace internal
  {
    struct GhostSubset;

    /// The cells (or points) one call of a loop's body covers: LoopSchedule::run().
    enum class LoopRange
    {
      all,
      interior_first,
      boundary,
      interior_second
    };

    /// How a loop is run: the vectors' layout, the ranges, the exchanges (see the file head).
    struct LoopOptions
    {
      /// The loop's vector layout. Null: every vector's own (none is a stand-in or per cell).
      std::shared_ptr<const dealii::Utilities::MPI::Partitioner> layout;
      /// Further layouts of the loop (a MatrixFree with several DoFHandlers: the others'); a
      /// vector of any of them is exchanged and compressed, and a stand-in takes the first whose
      /// locally owned entries the vector has.
      std::vector<std::shared_ptr<const dealii::Utilities::MPI::Partitioner>> more_layouts;
      Backend                                                                 backend = Backend::host;
      /// Several ranks: run the interior first halves, boundary and interior second halves (the
      /// body takes every LoopRange); else one call with LoopRange::all.
      bool split = false;
      /// With split: the ghost update travels during the first halves, the contributions during
      /// the second (AdditionalData::overlap_communication_computation).
      bool overlap = false;
      /// Destinations are set to zero before the loop; otherwise their ghost entries alone are.
      bool zero_destinations = false;
      /// The destinations' ghost entries are added to their owners after the loop (compress with
      /// add). Without, the loop writes owned entries alone and the ghost entries are not touched
      /// (DG loops: each cell writes its own DoFs).
      bool send_contributions = true;
      /// The sources import these ghost entries alone (null: all); not overlapped.
      const GhostSubset *ghost_subset = nullptr;
      /// A vector may be a source and a destination at once (the caller has checked that each
      /// cell touches only its own entries: a discontinuous element). Such a vector is neither
      /// exchanged nor compressed, and its ghost entries are zeroed first. Needs
      /// send_contributions false and zero_destinations false.
      bool in_place = false;
      /// Run before anything else (the vectors' entries as the caller left them) and after
      /// everything else (the stand-ins copied back): deal.II's operation_before_loop and
      /// operation_after_loop over all locally owned entries at once. Empty: nothing.
      std::function<void()> before, after;
      /// The profile marks of cell_loop() (internal::mark_cell_loop()).
      bool marks = false;
      /// The caller's name, for messages ("gpumf::MatrixFree::cell_loop").
      std::string name = "loop";
    };

    /**
     * One run of a loop (see the file head): add the sources, then the destinations, check the
     * vectors the loop will use (sources(), destinations(): stand-ins in place of their
     * originals), run(). An object serves one run.
     */
    template <typename Number>
    class LoopSchedule
    {
    public:
      explicit LoopSchedule(LoopOptions options);
      ~LoopSchedule();
      LoopSchedule(const LoopSchedule &) = delete;
      LoopSchedule &
      operator=(const LoopSchedule &) = delete;

      /// Adds a vector the loop reads (several times: once exchanged); returns the vector the
      /// body reads: @p v or its stand-in.
      const Vector<Number> *
      add_source(const Vector<Number> &v);

      /// Adds a vector the loop writes; returns the vector the body writes: @p v or its
      /// stand-in. Throws for a vector added twice, or also added as a source unless
      /// LoopOptions::in_place (cells would read entries other cells have already written).
      Vector<Number> *
      add_destination(Vector<Number> &v);

      /// The vectors the body reads and writes, in the order added.
      const std::vector<const Vector<Number> *> &
      sources() const;
      const std::vector<Vector<Number> *> &
      destinations() const;

      /// True if @p v has the loop's layout (is exchanged and compressed).
      bool
      has_loop_layout(const Vector<Number> &v) const;

      /// Runs the loop: the operation before, fills the stand-ins, zeroes, exchanges, calls @p body
      /// for each range (see LoopOptions), sends the contributions, zeroes the imported ghosts,
      /// copies stand-ins back, the operation after. Collective over
      /// the layout's communicator where there are several ranks.
      void
      run(const std::function<void(LoopRange)> &body);

    private:
      Vector<Number> *
      stand_in(const Vector<Number> &v);

      LoopOptions                                                      options;
      std::vector<const Vector<Number> *>                              source_list;
      std::vector<Vector<Number> *>                                    destination_list;
      std::vector<const Vector<Number> *>                              given_sources;      // as given: the checks
      std::vector<const Vector<Number> *>                              given_destinations; // of add_destination()
      std::vector<std::pair<Vector<Number> *, Vector<Number> *>>       copy_back;          // (destination, stand-in)
      std::vector<std::pair<Vector<Number> *, const Vector<Number> *>> copy_in;            // (stand-in, original)
      std::vector<std::unique_ptr<Vector<Number>>>                     temporaries;
    };

    /**
     * The loop of an operator whose vectors are of one layout (checked by the caller), over all
     * cells or rows at once: LoopSchedule with @p src (null: no ghosts read) as the source and
     * @p dst (null: none) as the destination, its ghost entries zeroed and sent to their owners
     * after (compress with add) where @p send_contributions, else not touched. The library's
     * local-matrix, stencil, Gauss–Seidel and multigrid transfer loops. @p name is the caller's,
     * for messages.
     */
    template <typename Number>
    void
    run_loop(const std::string           &name,
             const Vector<Number>        *src,
             Vector<Number>              *dst,
             const bool                   send_contributions,
             const std::function<void()> &body);
  } // namespace internal
} // namespace gpumf

#endif
