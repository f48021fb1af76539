#!/usr/bin/env bash
# run_step66.sh <step-66 port> <deal.II's step-66> <cuda_available program> <backend> <ranks> <compare.py>
# Runs deal.II's own CPU step-66 and its gpumf port on <backend> with <ranks> MPI ranks (both
# with tests/step66-test.sed applied), then compares their outputs and prints their timings
# side by side. Exit 77 (skipped) for the cuda backend on a machine without a usable GPU.
set -euo pipefail
port=$1 reference=$2 probe=$3 backend=$4 ranks=$5 compare=$6
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # both write solution_*.vtu here
run="mpirun --oversubscribe -np $ranks"
status=0
$run "$reference" > reference.txt || status=$?
GPUMF_BACKEND=$backend $run "$port" > port.txt || status=$?
echo "=== deal.II's step-66 (CPU, $ranks ranks)"
cat reference.txt
echo "=== gpumf port ($backend, $ranks ranks)"
cat port.txt
echo "==="
[ $status -eq 0 ] || { echo "FAIL: a program exited with status $status"; exit 1; }
python3 "$compare" reference.txt port.txt 1e-8 "gpumf-$backend"
