#!/usr/bin/env bash
# Builds everything and runs the test suite. GPU tests report "Skipped" without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
# tests in parallel on all cores (an MPI test takes as many as it has ranks)
ctest --output-on-failure -j "$(nproc)" "$@"
