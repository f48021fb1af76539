// deal.II's classes laid out alike by nvcc (nvcc_layout_sizes.cu, with gpumf's compile options)
// and by g++ (this file, as libdeal.ii was built): a gpumf program hands objects of them between
// its .cu files and libdeal.ii, which would otherwise write past them. Kokkos 5 (deal.II 9.7+)
// lays out its Views differently when it sees nvcc; gpumf/internal/kokkos_nvcc_layout.h makes
// nvcc read it as g++ does. Runs without a GPU (in a build without CUDA both files are g++'s).
#include "nvcc_layout_types.h"

#include <iostream>

#define GPUMF_LAYOUT_ENTRY(T) {#T, sizeof(T), alignof(T)},

int
main()
{
  const std::vector<test::Layout> here   = {GPUMF_LAYOUT_TYPES(GPUMF_LAYOUT_ENTRY)};
  const std::vector<test::Layout> cuda   = test::layouts_in_cuda_file();
  unsigned int                    failed = 0;
  for (std::size_t i = 0; i < here.size(); ++i)
    {
      const bool same = i < cuda.size() && cuda[i].size == here[i].size && cuda[i].alignment == here[i].alignment;
      failed += same ? 0 : 1;
      std::cout << (same ? "PASS " : "FAIL ") << here[i].name << ": " << here[i].size << " bytes (align "
                << here[i].alignment << ") in C++, " << (i < cuda.size() ? cuda[i].size : 0) << " (align "
                << (i < cuda.size() ? cuda[i].alignment : 0) << ") in the CUDA file" << std::endl;
    }
  std::cout << here.size() - failed << " passed, " << failed << " failed" << std::endl;
  return failed == 0 ? 0 : 1;
}
