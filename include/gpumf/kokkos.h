/**
 * @file gpumf/kokkos.h
 * What deal.II's GPU tutorials (9.5 and newer) call of Kokkos directly, on gpumf's backends, under
 * Kokkos' names in namespace gpumf::Kokkos: a program ports by writing `gpumf::Kokkos::` for
 * `Kokkos::` and `[=] __host__ __device__` for `KOKKOS_LAMBDA` (doc/porting.md).
 *
 * | Kokkos                                   | gpumf::Kokkos                                          |
 * |------------------------------------------|--------------------------------------------------------|
 * | fence()                                  | gpumf::synchronize() (default_backend())               |
 * | initialize(argc, argv), finalize()       | nothing to do (gpumf needs no initialization; pick the GPU with gpumf::select_device()) |
 * | parallel_for(n, f), parallel_for(label, n, f) | f(i) for i in [0, n) on default_backend(): a CUDA kernel (the call compiled by nvcc) or a host loop |
 *
 *
 * Inside a cell functor, over `data->team_member` (deal.II 9.7+) or `shared_data->team_member`
 * (9.5/9.6), a gpumf::Portable::TeamHandle (gpumf/team_handle.h: the cell's threads):
 *
 * | Kokkos                                   | gpumf::Kokkos                                          |
 * |------------------------------------------|--------------------------------------------------------|
 * | parallel_for(TeamThreadRange(team, n), f), TeamVectorRange | f(i) for i in [0, n), spread over the cell's threads (no barrier after it, as in Kokkos) |
 * | parallel_for(ThreadVectorRange(team, n), f) | f(i) for i in [0, n) by the calling thread (gpumf has no vector level below a thread) |
 * | single(PerTeam(team), f), single(PerThread(team), f) | f() by the cell's first thread, by each thread |
 * | team.team_barrier(), team_rank(), team_size(), league_rank() | the same (gpumf::syncthreads() is the barrier) |
 *
 * Data::for_each_quad_point() is deal.II's own loop over the points (then a barrier).
 */
#ifndef gpumf_kokkos_h
#define gpumf_kokkos_h

#include <gpumf/backend.h>
#include <gpumf/config.h>
#include <gpumf/internal/index_loop.h>
#include <gpumf/team_handle.h>

#include <deal.II/base/exceptions.h>

#include <cstddef>
#include <string>

namespace gpumf
{
  namespace Kokkos
  {
    /// Kokkos::fence(): waits for the GPU's work.
    inline void
    fence()
    {
      synchronize();
    }

    /// Kokkos::fence(label).
    inline void
    fence(const std::string &)
    {
      synchronize();
    }

    /// Kokkos::initialize(): gpumf needs none (deal.II's MPI_InitFinalize initializes deal.II's own Kokkos).
    inline void
    initialize(int &, char **&)
    {}

    inline void
    initialize()
    {}

    /// Kokkos::DefaultExecutionSpace: name() tells gpumf's default backend ("gpumf cuda", "gpumf host").
    struct DefaultExecutionSpace
    {
      static std::string
      name()
      {
        return "gpumf " + to_string(default_backend());
      }
    };

    /// Kokkos::finalize(): nothing to do.
    inline void
    finalize()
    {}

    /**
     * Kokkos::parallel_for(n, f): `f(i)` for every i in [0, n) on default_backend(), as a CUDA
     * kernel or a host loop (Kokkos' default execution space); the call returns before the GPU
     * is done, as Kokkos' does (fence() waits). @p f is a `[=] __host__ __device__` lambda
     * (Kokkos: KOKKOS_LAMBDA) or a functor with a __host__ __device__ operator()(i). The data it
     * touches must live there: a vector made for another backend than the default (an object's
     * AdditionalData::backend) takes Vector::transform(), which runs on the vector's backend.
     */
    template <typename Function, typename Compiler = internal::ThisCompiler>
    void
    parallel_for(const std::size_t n, const Function &f)
    {
      if (default_backend() == Backend::host)
        for (std::size_t i = 0; i < n; ++i)
          f(i);
      else
        internal::cuda_for_each_index(n, f, "gpumf::Kokkos::parallel_for() on the CUDA backend");
    }

    /// Kokkos::parallel_for(label, n, f).
    template <typename Function, typename Compiler = internal::ThisCompiler>
    void
    parallel_for(const std::string &, const std::size_t n, const Function &f)
    {
      parallel_for<Function, Compiler>(n, f);
    }

    /// The indices [begin, end) spread over the threads of a cell (TeamThreadRange).
    template <typename Index>
    struct TeamRange
    {
      const Portable::TeamHandle *team;
      Index                       begin;
      Index                       end;
    };

    /// The indices [begin, end) that each thread runs through alone (ThreadVectorRange).
    template <typename Index>
    struct ThreadRange
    {
      Index begin;
      Index end;
    };

    template <typename Index>
    __host__ __device__ TeamRange<Index>
                        TeamThreadRange(const Portable::TeamHandle &team, const Index n)
    {
      return {&team, Index(0), n};
    }

    template <typename Index>
    __host__ __device__ TeamRange<Index>
                        TeamThreadRange(const Portable::TeamHandle &team, const Index begin, const Index end)
    {
      return {&team, begin, end};
    }

    /// Kokkos' team-and-vector level: gpumf has no vector level below a thread, so TeamThreadRange.
    template <typename Index>
    __host__ __device__ TeamRange<Index>
                        TeamVectorRange(const Portable::TeamHandle &team, const Index n)
    {
      return TeamThreadRange(team, n);
    }

    template <typename Index>
    __host__ __device__ TeamRange<Index>
                        TeamVectorRange(const Portable::TeamHandle &team, const Index begin, const Index end)
    {
      return TeamThreadRange(team, begin, end);
    }

    template <typename Index>
    __host__ __device__ ThreadRange<Index>
                        ThreadVectorRange(const Portable::TeamHandle &, const Index n)
    {
      return {Index(0), n};
    }

    template <typename Index>
    __host__ __device__ ThreadRange<Index>
                        ThreadVectorRange(const Portable::TeamHandle &, const Index begin, const Index end)
    {
      return {begin, end};
    }

    /// f(i) for the indices of @p range, spread over the cell's threads (no barrier after them).
    template <typename Index, typename Function>
    __host__ __device__ void
    parallel_for(const TeamRange<Index> &range, const Function &f)
    {
      const Index rank = range.team->team_rank(), size = range.team->team_size();
      for (Index i = range.begin + rank; i < range.end; i += size)
        f(i);
    }

    /// f(i) for the indices of @p range, by the calling thread.
    template <typename Index, typename Function>
    __host__ __device__ void
    parallel_for(const ThreadRange<Index> &range, const Function &f)
    {
      for (Index i = range.begin; i < range.end; ++i)
        f(i);
    }

    struct PerTeamTag
    {
      const Portable::TeamHandle *team;
    };

    struct PerThreadTag
    {};

    __host__ __device__ inline PerTeamTag
    PerTeam(const Portable::TeamHandle &team)
    {
      return {&team};
    }

    __host__ __device__ inline PerThreadTag
    PerThread(const Portable::TeamHandle &)
    {
      return {};
    }

    /// f() by the cell's first thread (no barrier: team_barrier() before others read what it wrote).
    template <typename Function>
    __host__ __device__ void
    single(const PerTeamTag tag, const Function &f)
    {
      if (tag.team->team_rank() == 0)
        f();
    }

    /// f() by each thread.
    template <typename Function>
    __host__ __device__ void
    single(const PerThreadTag, const Function &f)
    {
      f();
    }
  } // namespace Kokkos
} // namespace gpumf

#endif
