#!/usr/bin/env bash
# Builds everything and runs the test suite (arguments go to ctest). GPU tests report "Skipped"
# without a GPU.
#
# build/ is the default configuration: the CUDA backend where nvcc is found, else host-only.
# Where build/ has CUDA, the host-only configuration (-DGPUMF_WITH_CUDA=OFF: what a machine
# without CUDA builds) is built too, in build-host/, and its host tests run: a library call that
# reaches a CUDA kernel without the host-only guard, or code that compiles only with nvcc, fails
# there and nowhere else. Its benchmark is compiled to degree 2, the degrees its smoke test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# tests in parallel on all cores (an MPI test takes as many as it has ranks)
(cd build && ctest --output-on-failure -j "$(nproc)" "$@")
if grep -q '^GPUMF_WITH_CUDA:BOOL=ON' build/CMakeCache.txt; then
  echo "gpumf: the host-only configuration (-DGPUMF_WITH_CUDA=OFF) in build-host/"
  cmake -S . -B build-host -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=OFF \
        -DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 > /dev/null
  cmake --build build-host
  (cd build-host && ctest --output-on-failure -j "$(nproc)" -L host "$@")
fi
