#!/usr/bin/env bash
# The part of test.sh that runs inside the Debian 13 root (scripts/debian13.sh): deal.II 9.6,
# host-only build and host tests; with CUDA, the nvcc-compiled objects against deal.II 9.6.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-debian13 -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=OFF \
      -DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 > /dev/null
cmake --build build-debian13
(cd build-debian13 && ctest --output-on-failure -j "$(nproc)" -L host "$@")
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "gpumf: nvcc against deal.II 9.6 in build-debian13-cuda/ (library, portable_test, step-64)"
  cmake -S . -B build-debian13-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=ON \
        -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > /dev/null
  cmake --build build-debian13-cuda --target gpumf portable_test step-64
fi
