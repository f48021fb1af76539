// The schedule of every loop that exchanges ghost entries: include/gpumf/internal/loop_schedule.h
// states the contract. Written here rather than taken from deal.II: deal.II's MFWorker and
// TaskInfo::loop schedule deal.II's own vectors and cell partitions, and take no vectors of
// another library.
#include <gpumf/internal/loop_schedule.h>
#include <gpumf/internal/memory.h>
#include <gpumf/setup_profile.h>
#include <gpumf/vector.h>
#include "core/faults.h"
#include "linear_algebra/layout.h"

#include <algorithm>

namespace gpumf
{
  namespace internal
  {
    template <typename Number>
    LoopSchedule<Number>::LoopSchedule(LoopOptions options)
      : options(std::move(options))
    {}

    template <typename Number>
    LoopSchedule<Number>::~LoopSchedule() = default;

    template <typename Number>
    bool
    LoopSchedule<Number>::has_loop_layout(const Vector<Number> &v) const
    {
      const auto &layout = options.layout;
      if (layout == nullptr || same_layout(*v.get_partitioner(), *layout))
        return true;
      for (const auto &other : options.more_layouts)
        if (same_layout(*v.get_partitioner(), *other))
          return true;
      return false;
    }

    template <typename Number>
    Vector<Number> *
    LoopSchedule<Number>::stand_in(const Vector<Number> &v)
    {
      // a loop layout's owned entries under another partitioner: a temporary of the layout
      if (options.layout == nullptr || v.backend() != options.backend || has_loop_layout(v))
        return nullptr;
      std::shared_ptr<const dealii::Utilities::MPI::Partitioner> layout;
      for (std::size_t k = 0; k <= options.more_layouts.size() && layout == nullptr; ++k)
        {
          const auto &candidate = k == 0 ? options.layout : options.more_layouts[k - 1];
          if (v.locally_owned_elements() == candidate->locally_owned_range())
            layout = candidate;
        }
      if (layout == nullptr)
        return nullptr;
      // filled in run(), after the operation before the loop
      temporaries.push_back(std::make_unique<Vector<Number>>(layout, options.backend));
      copy_in.emplace_back(temporaries.back().get(), &v);
      return temporaries.back().get();
    }

    template <typename Number>
    const Vector<Number> *
    LoopSchedule<Number>::add_source(const Vector<Number> &v)
    {
      AssertThrow(options.in_place ||
                    std::find(given_destinations.begin(), given_destinations.end(), &v) == given_destinations.end(),
                  ExcNotSupported(options.name + ": a destination vector is also a source. Cells would read entries "
                                                 "other cells have already written: give the result its own vector."));
      given_sources.push_back(&v);
      // in place: the destination's stand-in (or the vector itself)
      for (std::size_t i = 0; i < given_destinations.size(); ++i)
        if (given_destinations[i] == &v)
          {
            source_list.push_back(destination_list[i]);
            return source_list.back();
          }
      // a vector given twice shares one stand-in
      for (std::size_t i = 0; i + 1 < given_sources.size(); ++i)
        if (given_sources[i] == &v)
          {
            source_list.push_back(source_list[i]);
            return source_list.back();
          }
      const Vector<Number> *t = stand_in(v);
      source_list.push_back(t != nullptr ? t : &v);
      return source_list.back();
    }

    template <typename Number>
    Vector<Number> *
    LoopSchedule<Number>::add_destination(Vector<Number> &v)
    {
      AssertThrow(std::find(given_destinations.begin(), given_destinations.end(), &v) == given_destinations.end(),
                  ExcNotSupported(options.name + ": the same vector appears twice among the destinations (its "
                                                 "cells' contributions would be added twice)."));
      const auto as_source = std::find(given_sources.begin(), given_sources.end(), &v);
      AssertThrow(options.in_place || as_source == given_sources.end(),
                  ExcNotSupported(options.name + ": a destination vector is also a source. Cells would read entries "
                                                 "other cells have already written: give the result its own vector."));
      given_destinations.push_back(&v);
      Vector<Number> *t = nullptr;
      if (as_source != given_sources.end())
        {
          // in place: the source's stand-in is written too (its entries are the vector's)
          const Vector<Number> *s = source_list[as_source - given_sources.begin()];
          if (s != &v)
            t = const_cast<Vector<Number> *>(s);
        }
      else
        t = stand_in(v);
      if (t != nullptr)
        copy_back.emplace_back(&v, t);
      destination_list.push_back(t != nullptr ? t : &v);
      return destination_list.back();
    }

    template <typename Number>
    const std::vector<const Vector<Number> *> &
    LoopSchedule<Number>::sources() const
    {
      return source_list;
    }

    template <typename Number>
    const std::vector<Vector<Number> *> &
    LoopSchedule<Number>::destinations() const
    {
      return destination_list;
    }

    template <typename Number>
    void
    LoopSchedule<Number>::run(const std::function<void(LoopRange)> &body)
    {
      const auto mark = [&](const LoopMark m) {
        if (options.marks)
          mark_cell_loop(options.backend, m);
      };
      Assert(!options.in_place || (!options.send_contributions && !options.zero_destinations),
             dealii::ExcInternalError());
      if (options.before)
        options.before();
      for (const auto &[temporary, original] : copy_in)
        copy(options.backend,
             temporary->get_values(),
             options.backend,
             original->get_values(),
             original->locally_owned_size() * sizeof(Number));
      const auto is_destination = [&](const Vector<Number> *v) {
        return std::find(destination_list.begin(), destination_list.end(), v) != destination_list.end();
      };
      for (Vector<Number> *v : destination_list)
        if (options.zero_destinations)
          *v = Number(0);
        else if (options.send_contributions || options.in_place)
          v->zero_out_ghost_values();
      // the vectors of the loop's layout send contributions and import ghosts; those of data per
      // cell are the body's alone
      std::vector<Vector<Number> *> compressed;
      if (options.send_contributions)
        for (Vector<Number> *v : destination_list)
          if (has_loop_layout(*v))
            compressed.push_back(v);
      const auto copy_results_back = [&]() {
        for (const auto &[destination, temporary] : copy_back)
          copy(options.backend,
               destination->get_values(),
               options.backend,
               temporary->get_values(),
               destination->locally_owned_size() * sizeof(Number));
      };
      const auto compress_all = [&]() {
        for (Vector<Number> *v : compressed)
          v->compress(dealii::VectorOperation::add);
      };
      unsigned int n_ranks = 1;
      if (options.layout != nullptr)
        n_ranks = options.layout->n_mpi_processes();
      else if (!source_list.empty() || !destination_list.empty())
        n_ranks = (source_list.empty() ? destination_list[0]->get_partitioner() : source_list[0]->get_partitioner())
                    ->n_mpi_processes();

      mark(LoopMark::begin);
      if (n_ranks == 1)
        {
          mark(LoopMark::first_start);
          body(LoopRange::all);
          mark(LoopMark::first_end);
          compress_all(); // zeroes the ghosts: nothing to send
          copy_results_back();
          mark(LoopMark::end);
          if (options.after)
            options.after();
          return;
        }

      // each source without ghost values once; the exchanges finish in the order they started,
      // on every rank
      std::vector<const Vector<Number> *> exchanged;
      for (const Vector<Number> *v : source_list)
        if (has_loop_layout(*v) && !v->has_ghost_elements() && !is_destination(v) &&
            std::find(exchanged.begin(), exchanged.end(), v) == exchanged.end())
          exchanged.push_back(v);
      const bool   overlap = options.split && options.overlap && options.ghost_subset == nullptr;
      unsigned int started = 0, finished = 0, imported = 0;
      const auto   zero_ghosts = [&]() {
        for (unsigned int i = 0; i < imported; ++i)
          exchanged[i]->zero_out_ghost_values();
      };
      const auto finish_updates = [&]() {
        while (finished < started)
          exchanged[finished++]->update_ghost_values_finish();
      };
      try
        {
          for (const Vector<Number> *v : exchanged)
            {
              if (overlap)
                {
                  v->update_ghost_values_start();
                  ++started;
                }
              else if (options.ghost_subset != nullptr)
                v->update_ghost_values(*options.ghost_subset);
              else
                v->update_ghost_values();
              ++imported;
            }
          if (!options.split)
            {
              mark(LoopMark::first_start);
              body(LoopRange::all);
              mark(LoopMark::first_end);
              inject_fault("loop");
            }
          else
            {
              mark(LoopMark::first_start);
              body(LoopRange::interior_first);
              mark(LoopMark::first_end);
              inject_fault("loop");
              finish_updates();
              mark(LoopMark::boundary_start);
              body(LoopRange::boundary);
              mark(LoopMark::boundary_end);
            }
        }
      catch (...)
        {
          // this rank's messages must match those of ranks on which nothing was thrown; the
          // other ranks go on and wait for this one in their next exchange or reduction
          finish_updates();
          compress_all();
          zero_ghosts();
          note_interrupted(options.name.c_str(), n_ranks);
          throw;
        }
      // the second halves, with the contributions travelling where overlapped
      unsigned int compressing = 0;
      try
        {
          if (overlap)
            for (Vector<Number> *v : compressed)
              {
                v->compress_start(dealii::VectorOperation::add);
                ++compressing;
              }
          if (options.split)
            {
              mark(LoopMark::second_start);
              body(LoopRange::interior_second);
              mark(LoopMark::second_end);
            }
        }
      catch (...)
        {
          for (unsigned int i = 0; i < compressing; ++i)
            compressed[i]->compress_finish(dealii::VectorOperation::add);
          if (!overlap)
            compress_all();
          zero_ghosts();
          note_interrupted(options.name.c_str(), n_ranks);
          throw;
        }
      if (overlap)
        for (Vector<Number> *v : compressed)
          v->compress_finish(dealii::VectorOperation::add);
      else
        compress_all();
      zero_ghosts();
      copy_results_back();
      mark(LoopMark::end);
      if (options.after)
        options.after();
    }

    template <typename Number>
    void
    run_loop(const std::string           &name,
             const Vector<Number>        *src,
             Vector<Number>              *dst,
             const bool                   send_contributions,
             const std::function<void()> &body)
    {
      LoopOptions options;
      options.send_contributions = send_contributions;
      options.name               = name;
      LoopSchedule<Number> schedule(options);
      if (src != nullptr)
        schedule.add_source(*src);
      if (dst != nullptr)
        schedule.add_destination(*dst);
      schedule.run([&](LoopRange) { body(); });
    }

    template class LoopSchedule<float>;
    template class LoopSchedule<double>;
    template void
    run_loop(const std::string &, const Vector<float> *, Vector<float> *, bool, const std::function<void()> &);
    template void
    run_loop(const std::string &, const Vector<double> *, Vector<double> *, bool, const std::function<void()> &);
  } // namespace internal
} // namespace gpumf
