// The process-wide set-up profile (include/gpumf/setup_profile.h).
#include <gpumf/setup_profile.h>

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
