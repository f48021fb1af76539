#!/usr/bin/env bash
# Builds everything and runs the test suite. GPU tests report "Skipped" without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure "$@"
