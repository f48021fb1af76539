// A fault on one rank ends the job, never hangs it: source/core/faults.h states the contract.
#include "core/faults.h"

#include <deal.II/base/exceptions.h>

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

namespace gpumf
{
  namespace internal
  {
    namespace
    {
      std::mutex        interruption_mutex;
      std::string       last_interruption;
      bool              hook_registered = false;
      std::atomic<bool> armed{false};

      /// GPUMF_FINALIZE_TIMEOUT in seconds (default 20; 0: no limit; at most a million).
      double
      finalize_timeout()
      {
        const char *variable = std::getenv("GPUMF_FINALIZE_TIMEOUT");
        if (variable == nullptr || *variable == '\0')
          return 20.;
        char        *end     = nullptr;
        const double seconds = std::strtod(variable, &end);
        return end != variable && seconds >= 0. ? std::min(seconds, 1e6) : 20.;
      }

      /// Deleted first in MPI_Finalize() (an attribute of MPI_COMM_SELF): from here on the
      /// process ends itself if MPI_Finalize() does not return in time, where an interruption is
      /// armed.
      int
      arm_finalize_limit(MPI_Comm, int, void *, void *)
      {
        const double seconds = finalize_timeout();
        if (seconds <= 0. || !armed.load())
          return MPI_SUCCESS;
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        try
          {
            std::string operation;
            {
              std::lock_guard<std::mutex> lock(interruption_mutex);
              operation = last_interruption;
            }
            std::thread([seconds, rank, operation]() {
              std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
              // MPI_Finalize() is still waiting, for ranks that wait for this one (MPI_Finalized()
              // cannot tell: it answers true from the start of MPI_Finalize(), Open MPI 4)
              std::cerr << "gpumf: rank " << rank << " left " << operation
                        << " by an exception, and its MPI_Finalize() has waited " << seconds
                        << " s for the other ranks, which wait for this rank's part: ending the process with "
                           "exit code 1 so that mpirun ends the job, instead of a hang (GPUMF_FINALIZE_TIMEOUT sets "
                           "the seconds, 0 waits for ever; doc/mpi.md, \"When a rank fails\")"
                        << std::endl;
              std::_Exit(1);
            }).detach();
          }
        catch (...)
          {} // no thread: MPI_Finalize() as without the limit
        return MPI_SUCCESS;
      }
    } // namespace

    void
    note_interrupted(const char *operation, const unsigned int n_ranks) noexcept
    {
      if (n_ranks < 2)
        return;
      try
        {
          std::lock_guard<std::mutex> lock(interruption_mutex);
          last_interruption = operation;
          armed.store(true);
          int initialized = 0, finalized = 0;
          MPI_Initialized(&initialized);
          MPI_Finalized(&finalized);
          if (hook_registered || !initialized || finalized)
            return;
          int key = MPI_KEYVAL_INVALID;
          if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, arm_finalize_limit, &key, nullptr) == MPI_SUCCESS &&
              MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) == MPI_SUCCESS)
            hook_registered = true;
        }
      catch (...)
        {}
    }

    void
    note_completed(const unsigned int n_ranks) noexcept
    {
      if (n_ranks > 1 && armed.load(std::memory_order_relaxed))
        armed.store(false);
    }

    void
    inject_fault(const char *where)
    {
      // "<where>:<rank>", parsed once
      static const std::pair<std::string, int> fault = []() {
        const char *variable = std::getenv("GPUMF_FAULT_INJECT");
        if (variable == nullptr || *variable == '\0')
          return std::pair<std::string, int>("", -1);
        const std::string text  = variable;
        const auto        colon = text.find(':');
        AssertThrow(colon != std::string::npos && colon + 1 < text.size(),
                    dealii::ExcMessage("GPUMF_FAULT_INJECT must be <where>:<rank> (where: loop), not \"" + text +
                                       "\""));
        char      *end  = nullptr;
        const long rank = std::strtol(text.c_str() + colon + 1, &end, 10);
        AssertThrow(text.substr(0, colon) == "loop" && *end == '\0' && rank >= 0,
                    dealii::ExcMessage("GPUMF_FAULT_INJECT=" + text +
                                       ": it takes loop:<rank>, the rank a number (loop is the one place a fault "
                                       "can be injected)"));
        return std::pair<std::string, int>(text.substr(0, colon), int(rank));
      }();
      if (fault.second < 0 || fault.first != where)
        return;
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      AssertThrow(rank != fault.second,
                  dealii::ExcMessage("gpumf: the fault that GPUMF_FAULT_INJECT=" + fault.first + ":" +
                                     std::to_string(fault.second) + " asks for, thrown on rank " +
                                     std::to_string(rank)));
    }
  } // namespace internal
} // namespace gpumf
