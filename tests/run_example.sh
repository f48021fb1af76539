#!/usr/bin/env bash
# run_example.sh <cuda_available program> <backend> <ranks> <program> <arguments>...: runs an
# example's program on <ranks> MPI ranks with GPUMF_BACKEND=<backend>; its exit code is the
# test's (the program checks its own results). Exit 77 (skipped) for the cuda backend on a
# machine without a usable GPU.
set -euo pipefail
probe=$1 backend=$2 ranks=$3
shift 3
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
GPUMF_BACKEND=$backend exec mpirun --oversubscribe -np "$ranks" "$@"
