// The process-wide set-up profile (include/gpumf/setup_profile.h).
#include "core/run_profile.h"

#include <gpumf/internal/cuda_check.h>
#include <gpumf/setup_profile.h>

#include <deal.II/base/mpi.h>

#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>

namespace gpumf
{
  namespace
  {
    std::mutex                                  profile_mutex;
    std::vector<std::pair<std::string, double>> profile;
  } // namespace

  std::vector<std::pair<std::string, double>>
  setup_profile()
  {
    std::lock_guard<std::mutex> lock(profile_mutex);
    return profile;
  }

  namespace
  {
    /// The marks of the running loop: CUDA events, or host times on the host backend.
    struct LoopMarks
    {
      bool                                                 enabled = false;
      CellLoopProfile                                      sums;
      constexpr static unsigned int                        n = static_cast<unsigned int>(internal::LoopMark::n_marks);
      std::array<std::chrono::steady_clock::time_point, n> host;
      std::array<bool, n>                                  marked{};
#if GPUMF_WITH_CUDA
      std::array<cudaEvent_t, n> events{};
#endif

      /// Seconds from mark @p a to mark @p b of the loop just ended (0 if either is missing).
      double
      seconds(const Backend backend, const internal::LoopMark a, const internal::LoopMark b) const
      {
        const unsigned int i = static_cast<unsigned int>(a), j = static_cast<unsigned int>(b);
        if (!marked[i] || !marked[j])
          return 0;
#if GPUMF_WITH_CUDA
        if (backend == Backend::cuda)
          {
            float ms = 0;
            GPUMF_CHECK_CUDA(cudaEventElapsedTime(&ms, events[i], events[j]));
            return ms * 1e-3;
          }
#endif
        (void)backend;
        return std::chrono::duration<double>(host[j] - host[i]).count();
      }
    };

    LoopMarks loop_marks;
  } // namespace

  void
  enable_cell_loop_profile(const bool on)
  {
    loop_marks.enabled = on;
    loop_marks.sums    = CellLoopProfile();
  }

  CellLoopProfile
  cell_loop_profile()
  {
    return loop_marks.sums;
  }

  namespace internal
  {
    void
    mark_cell_loop(const Backend backend, const LoopMark mark)
    {
      LoopMarks &m = loop_marks;
      if (!m.enabled)
        return;
      const unsigned int i = static_cast<unsigned int>(mark);
      if (mark == LoopMark::begin)
        m.marked.fill(false);
      m.marked[i] = true;
#if GPUMF_WITH_CUDA
      if (backend == Backend::cuda)
        {
          if (m.events[i] == nullptr)
            GPUMF_CHECK_CUDA(cudaEventCreate(&m.events[i]));
          GPUMF_CHECK_CUDA(cudaEventRecord(m.events[i], cudaStreamLegacy));
          if (mark == LoopMark::end)
            GPUMF_CHECK_CUDA(cudaEventSynchronize(m.events[i]));
        }
#endif
      m.host[i] = std::chrono::steady_clock::now();
      if (mark != LoopMark::end)
        return;
      CellLoopProfile &s        = m.sums;
      const double     interior = m.seconds(backend, LoopMark::first_start, LoopMark::first_end) +
                              m.seconds(backend, LoopMark::second_start, LoopMark::second_end);
      const double boundary = m.seconds(backend, LoopMark::boundary_start, LoopMark::boundary_end);
      const double total    = m.seconds(backend, LoopMark::begin, LoopMark::end);
      s.interior += interior;
      s.boundary += boundary;
      s.total += total;
      s.not_hidden += total - interior - boundary;
      ++s.loops;
    }
  } // namespace internal

  namespace
  {
    constexpr unsigned int n_run_parts = static_cast<unsigned int>(internal::RunPart::n_parts);

    /// The names of the run profile's parts, in the order of internal::RunPart.
    constexpr std::array<const char *, n_run_parts> run_part_names = {
      {"device memory: allocate",
       "device memory: free",
       "ipc: export an allocation",
       "ipc: open a neighbour's allocation",
       "ipc: close a neighbour's allocation",
       "ipc: connect a vector (handshake)",
       "exchange: wait for the sources' ready",
       "exchange: wait for the readers' done",
       "exchange: wait for MPI messages",
       "exchange: all host calls (ghost update, compress)",
       "ipc: record an interprocess event",
       "ipc: stream waits for a neighbour's event",
       "ipc: signal and wait for counters",
       "exchange: launch the reads of the neighbours' memory",
       "reduction: device-to-host copy (waits for the GPU)",
       "reduction: MPI sum",
       "device synchronize"}};

    struct RunCounters
    {
      std::array<std::atomic<unsigned long long>, n_run_parts> calls{};
      std::array<std::atomic<long long>, n_run_parts>          nanoseconds{};
      std::chrono::steady_clock::time_point                    first = std::chrono::steady_clock::now();
    };

    /// The process's rank as the MPI launcher tells it (no MPI call: the profile is written
    /// after MPI_Finalize, and counted from any thread); "?" if none does.
    std::string
    launcher_rank()
    {
      for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"})
        if (const char *value = std::getenv(name))
          return value;
      return "?";
    }

    RunCounters &
    run_counters()
    {
      static RunCounters *counters = new RunCounters(); // never destroyed: used up to the exit
      return *counters;
    }

    /// At the exit of a process with GPUMF_RUN_PROFILE set: its run profile to stderr.
    void
    print_run_profile_at_exit()
    {
      std::ostringstream out;
      const RunCounters &c      = run_counters();
      const double       wall   = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.first).count();
      const std::string  prefix = "gpumf run profile, rank " + launcher_rank() + ": ";
      out << prefix << "wall seconds since the first call counted " << std::fixed << std::setprecision(3) << wall
          << '\n';
      print_run_profile(out, prefix);
      std::cerr << out.str() << std::flush;
    }
  } // namespace

  std::vector<RunProfilePart>
  run_profile()
  {
    std::vector<RunProfilePart> parts;
    const RunCounters          &c = run_counters();
    for (unsigned int i = 0; i < n_run_parts; ++i)
      if (c.calls[i] > 0)
        parts.push_back({run_part_names[i], c.calls[i].load(), 1e-9 * static_cast<double>(c.nanoseconds[i].load())});
    return parts;
  }

  void
  print_run_profile(std::ostream &out, const std::string &prefix)
  {
    for (const RunProfilePart &part : run_profile())
      out << prefix << std::setw(52) << std::left << part.name << std::setw(10) << std::right << part.calls << " calls "
          << std::setw(10) << std::fixed << std::setprecision(4) << part.seconds << " s" << std::defaultfloat << '\n';
  }

  namespace internal
  {
    bool
    run_profile_enabled()
    {
      static const bool enabled = [] {
        const char *value = std::getenv("GPUMF_RUN_PROFILE");
        if (value == nullptr || std::string(value) == "0")
          return false;
        run_counters();
        std::atexit(print_run_profile_at_exit);
        return true;
      }();
      return enabled;
    }

    void
    add_to_run_profile(const RunPart part, const double seconds)
    {
      RunCounters       &c = run_counters();
      const unsigned int i = static_cast<unsigned int>(part);
      ++c.calls[i];
      c.nanoseconds[i] += static_cast<long long>(seconds * 1e9);
    }
  } // namespace internal

  void
  reset_setup_profile()
  {
    std::lock_guard<std::mutex> lock(profile_mutex);
    profile.clear();
  }

  void
  print_setup_profile(std::ostream &out, const std::string &prefix)
  {
    const auto parts = setup_profile();
    double     total = 0;
    for (const auto &part : parts)
      total += part.second;
    for (const auto &[name, seconds] : parts)
      out << prefix << std::setw(48) << std::left << name << std::setw(10) << std::right << std::fixed
          << std::setprecision(4) << seconds << " s " << std::setw(6) << std::setprecision(1)
          << (total > 0 ? 100. * seconds / total : 0.) << " %" << std::defaultfloat << '\n';
    if (!parts.empty())
      out << prefix << std::setw(48) << std::left << "sum" << std::setw(10) << std::right << std::fixed
          << std::setprecision(4) << total << " s" << std::defaultfloat << std::endl;
  }

  void
  print_setup_profile(std::ostream &out, const std::string &prefix, const MPI_Comm comm)
  {
    const auto all = dealii::Utilities::MPI::all_gather(comm, setup_profile());
    if (dealii::Utilities::MPI::this_mpi_process(comm) != 0)
      return;
    std::vector<std::string> names;
    for (const auto &parts : all)
      for (const auto &part : parts)
        if (std::find(names.begin(), names.end(), part.first) == names.end())
          names.push_back(part.first);
    for (const std::string &name : names)
      {
        double fastest = std::numeric_limits<double>::max(), slowest = 0;
        for (const auto &parts : all)
          {
            double seconds = 0;
            for (const auto &part : parts)
              if (part.first == name)
                seconds = part.second;
            fastest = std::min(fastest, seconds);
            slowest = std::max(slowest, seconds);
          }
        out << prefix << std::setw(48) << std::left << name << std::right << std::fixed << std::setprecision(4)
            << " fastest rank " << std::setw(8) << fastest << " s, slowest " << std::setw(8) << slowest << " s"
            << std::defaultfloat << '\n';
      }
    out << std::flush;
  }

  namespace internal
  {
    SetupSection::SetupSection(const std::string &name, const Backend backend)
      : name(name)
      , backend(backend)
    {}

    void
    SetupSection::stop()
    {
      synchronize(backend);
      const double                seconds = timer.wall_time();
      std::lock_guard<std::mutex> lock(profile_mutex);
      for (auto &part : profile)
        if (part.first == name)
          {
            part.second += seconds;
            return;
          }
      profile.emplace_back(name, seconds);
    }

    void
    SetupSection::next(const std::string &next_name)
    {
      stop();
      name = next_name;
      timer.restart();
    }

    SetupSection::~SetupSection()
    {
      try
        {
          stop();
        }
      catch (...)
        {} // no throw from a destructor (e.g. while an exception unwinds)
    }
  } // namespace internal
} // namespace gpumf
