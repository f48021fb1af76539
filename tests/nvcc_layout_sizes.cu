// The layouts of nvcc_layout_types.h's classes as nvcc (with gpumf's compile options) lays them
// out; nvcc_layout_test.cc compares them with g++'s.
#include "nvcc_layout_types.h"

#define GPUMF_LAYOUT_ENTRY(T) {#T, sizeof(T), alignof(T)},

std::vector<test::Layout>
test::layouts_in_cuda_file()
{
  return {GPUMF_LAYOUT_TYPES(GPUMF_LAYOUT_ENTRY)};
}
