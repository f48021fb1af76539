// A fault on one rank ends the job, never hangs it: source/core/faults.h states the contract.
#include "core/faults.h"

#include <deal.II/base/exceptions.h>

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

namespace gpumf
{
  namespace internal
  {
    namespace
    {
      std::mutex  interruption_mutex;
      std::string first_interruption;

      /// GPUMF_FINALIZE_TIMEOUT in seconds (default 20; 0: no limit).
      double
      finalize_timeout()
      {
        const char *variable = std::getenv("GPUMF_FINALIZE_TIMEOUT");
        if (variable == nullptr || *variable == '\0')
          return 20.;
        char        *end     = nullptr;
        const double seconds = std::strtod(variable, &end);
        return end != variable && seconds >= 0. ? seconds : 20.;
      }

      /// Deleted first in MPI_Finalize() (an attribute of MPI_COMM_SELF): from here on the
      /// process ends itself if MPI_Finalize() does not return in time.
      int
      arm_finalize_limit(MPI_Comm, int, void *, void *)
      {
        const double seconds = finalize_timeout();
        if (seconds <= 0.)
          return MPI_SUCCESS;
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        std::string operation;
        {
          std::lock_guard<std::mutex> lock(interruption_mutex);
          operation = first_interruption;
        }
        std::thread([seconds, rank, operation]() {
          std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
          // MPI_Finalize() is still waiting: for ranks that wait for this one
          std::cerr << "gpumf: rank " << rank << " left " << operation
                    << " by an exception, and its MPI_Finalize() has waited " << seconds
                    << " s for the other ranks, which wait for this rank's part: ending the process with exit "
                       "code 1 so that mpirun ends the job, instead of a hang (GPUMF_FINALIZE_TIMEOUT sets the "
                       "seconds, 0 waits for ever; doc/mpi.md, \"When a rank fails\")"
                    << std::endl;
          std::_Exit(1);
        }).detach();
        return MPI_SUCCESS;
      }
    } // namespace

    void
    note_interrupted(const std::string &operation, const unsigned int n_ranks) noexcept
    {
      if (n_ranks < 2)
        return;
      try
        {
          std::lock_guard<std::mutex> lock(interruption_mutex);
          if (!first_interruption.empty())
            return;
          first_interruption = operation;
          int initialized = 0, finalized = 0;
          MPI_Initialized(&initialized);
          MPI_Finalized(&finalized);
          if (!initialized || finalized)
            return;
          int key = MPI_KEYVAL_INVALID;
          if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, arm_finalize_limit, &key, nullptr) == MPI_SUCCESS)
            MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
        }
      catch (...)
        {}
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
        AssertThrow(text.substr(0, colon) == "loop",
                    dealii::ExcMessage("GPUMF_FAULT_INJECT=" + text +
                                       ": the places a fault can be injected are: loop"));
        return std::pair<std::string, int>(text.substr(0, colon), std::atoi(text.c_str() + colon + 1));
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
