// Queries of the current CUDA device and of where the ranks run, for the library's set-up and
// exchange (defined in backend.cc, where the other device queries are). Internal to the library.
#ifndef gpumf_source_core_device_h
#define gpumf_source_core_device_h

#include <mpi.h>

#include <gpumf/backend.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpumf
{
  namespace internal
  {
    /// The shared memory one thread block of the current CUDA device may use (opt-in maximum), in
    /// bytes. Throws ExcNoGPU in a build without CUDA.
    std::size_t
    max_shared_memory_per_block();

    /// Where each rank of @p comm runs: its host name, followed on the CUDA backend by "/" and
    /// the PCI address of its GPU. Collective.
    std::vector<std::string>
    rank_placements(const MPI_Comm comm, const Backend backend);

    /// The number of distinct GPUs (host name and PCI address) that the ranks of @p comm use.
    /// Collective; CUDA backend only.
    unsigned int
    n_gpus(const MPI_Comm comm);

    /// Whether two ranks of @p comm use the same GPU (host name and PCI address). Collective;
    /// CUDA backend only.
    bool
    ranks_share_gpu(const MPI_Comm comm);

    /// The GPU (0 to n_devices - 1) that select_device() gives node-local rank @p node_rank of
    /// @p node_ranks: consecutive ranks share a GPU, the counts differ by at most one.
    unsigned int
    device_of_node_rank(const unsigned int node_rank, const unsigned int node_ranks, const unsigned int n_devices);

    /// The line select_device() writes about the placement ("16 MPI ranks on this node's 4 GPUs:
    /// GPU 0 ranks 0-3, ..."), @p mps whether CUDA MPS runs.
    std::string
    placement_summary(const unsigned int node_ranks, const unsigned int n_devices, const bool mps);
  } // namespace internal
} // namespace gpumf

#endif
