/**
 * @file gpumf/team_handle.h
 * deal.II 9.5+'s `team_member` (a Kokkos team handle: the threads that work on one cell) on
 * gpumf: `data->team_member` in a functor of deal.II 9.7's form, `shared_data->team_member` in
 * one of 9.5/9.6's. The team is the cell's threads of the functor's layout (internal::CellLayout:
 * one thread per point, or per column of points); league_rank() is the cell's number in its
 * color (the functor's cell argument). With gpumf/kokkos.h, Kokkos' team loops over it
 * (gpumf::Kokkos::TeamThreadRange, parallel_for, single(PerTeam)) run on those threads.
 */
#ifndef gpumf_team_handle_h
#define gpumf_team_handle_h

#include <gpumf/internal/cell_layout.h>
#include <gpumf/internal/host_block.h>

namespace gpumf
{
  namespace Portable
  {
    class TeamHandle
    {
    public:
      __host__ __device__
      TeamHandle() = default;

      /// The team of cell @p cell (its number in its color) with @p layout's threads.
      template <int dim>
      __host__ __device__
      TeamHandle(const internal::CellLayout<dim> layout, const int cell)
        : n_q(layout.n_q)
        , block_z(layout.block_z())
        , dimension(dim)
        , cell(cell)
      {}

      /// The cell's number in its color (Kokkos: the team's index in the league).
      __host__ __device__ int
      league_rank() const
      {
        return cell;
      }

      /// The calling thread's index among the cell's threads, 0 <= team_rank() < team_size().
      __host__ __device__ int
      team_rank() const
      {
        const internal::ThreadIndex t = index();
        return t.x + n_q * (t.y + n_q * t.z);
      }

      /// The cell's threads.
      __host__ __device__ int
      team_size() const
      {
        return dimension == 1 ? n_q : (dimension == 2 ? n_q * n_q : n_q * n_q * block_z);
      }

      /// A barrier of the cell's threads (gpumf::syncthreads()).
      __host__ __device__ void
      team_barrier() const
      {
        syncthreads();
      }

    private:
      __host__ __device__ internal::ThreadIndex
                          index() const
      {
#ifdef __CUDA_ARCH__
        return internal::ThreadIndex{threadIdx.x, threadIdx.y, threadIdx.z % block_z};
#else
        return internal::host_thread_index();
#endif
      }

      unsigned int n_q       = 1;
      unsigned int block_z   = 1;
      int          dimension = 1;
      int          cell      = 0;
    };
  } // namespace Portable
} // namespace gpumf

#endif
