#!/usr/bin/env bash
# Configures and builds gpumf, its tests and examples in build/ (CUDA when nvcc is found).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build
