#!/usr/bin/env bash
# run_step48.sh <step-48 port> <deal.II's step-48> <cuda_available program> <backend> <ranks> <dim> <compare.py>
# Runs deal.II's own CPU step-48 and its gpumf port on <backend> with <ranks> MPI ranks in <dim>
# dimensions (both with tests/step48-test.sed applied: STEP48_DIM chooses the dimension), then
# compares their outputs and prints their norms and timings side by side. Exit 77 (skipped) for
# the cuda backend on a machine without a usable GPU.
set -euo pipefail
port=$1 reference=$2 probe=$3 backend=$4 ranks=$5 dim=$6 compare=$7
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # both write solution_*.vtu here
export STEP48_DIM=$dim
run="mpirun --oversubscribe -np $ranks"
# timed <output> <command...>: the command's output, then its wall time; returns its status
timed() {
  local out=$1 start end rc=0
  shift
  start=$(date +%s.%N)
  "$@" > "$out" || rc=$?
  end=$(date +%s.%N)
  echo "Program wall time $(python3 -c "print($end - $start)")" >> "$out"
  return $rc
}
status=0
timed reference.txt $run "$reference" || status=$?
GPUMF_BACKEND=$backend timed port.txt $run "$port" || status=$?
echo "=== deal.II's step-48 (CPU, ${dim}D, $ranks ranks)"
cat reference.txt
echo "=== gpumf port ($backend, ${dim}D, $ranks ranks)"
cat port.txt
echo "==="
[ $status -eq 0 ] || { echo "FAIL: a program exited with status $status"; exit 1; }
python3 "$compare" reference.txt port.txt 1e-10 "gpumf-$backend"
