#!/usr/bin/env bash
# run_step64.sh <step-64 port> <deal.II CPU reference> <cuda_available program> <backend> <ranks> <compare.py>
# Runs the gpumf port of step-64 on <backend> and deal.II's CPU MatrixFree solve of the same
# problem with <ranks> MPI ranks, then compares their outputs. Exit 77 (skipped) for the
# cuda backend on a machine without a usable GPU.
set -euo pipefail
port=$1 reference=$2 probe=$3 backend=$4 ranks=$5 compare=$6
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
run="mpirun --oversubscribe -np $ranks"
$run "$reference" > reference.txt
GPUMF_BACKEND=$backend $run "$port" > port.txt
cat port.txt
python3 "$compare" reference.txt port.txt 1e-10
