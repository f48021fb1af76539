// The process-wide set-up profile (include/gpumf/setup_profile.h).
#include <gpumf/internal/cuda_check.h>
#include <gpumf/setup_profile.h>

#include <array>
#include <chrono>
#include <iomanip>
#include <mutex>

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
