#!/usr/bin/env bash
# run_tutorial_port.sh <tutorial> <port> <deal.II's program> <cuda_available program> <backend> <ranks> <compare.py>
# Runs deal.II's own CPU <tutorial> (step-37, step-66) and its gpumf port on <backend> with <ranks>
# MPI ranks (both with the tutorial's tests/stepNN-test.sed applied), then compares their outputs
# and prints their timings side by side. Exit 77 (skipped) for the cuda backend on a machine
# without a usable GPU.
set -euo pipefail
tutorial=$1 port=$2 reference=$3 probe=$4 backend=$5 ranks=$6 compare=$7
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
echo "=== deal.II's $tutorial (CPU, $ranks ranks)"
cat reference.txt
echo "=== gpumf port ($backend, $ranks ranks)"
cat port.txt
echo "==="
[ $status -eq 0 ] || { echo "FAIL: a program exited with status $status"; exit 1; }
python3 "$compare" reference.txt port.txt 1e-8 "gpumf-$backend"
