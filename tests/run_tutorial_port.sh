#!/usr/bin/env bash
# run_tutorial_port.sh <tutorial> <port> <deal.II's program> <cuda_available program> <backend> <ranks> <compare.py> [tolerance]
# Runs deal.II's own <tutorial> (step-37, step-48, step-66 on the CPU; step-104 through deal.II's
# Kokkos; or a .txt file: a recorded output of it) and its gpumf port on <backend>
# with <ranks> MPI ranks (both with the tutorial's tests/stepNN-test.sed applied; what that reads
# from the environment, e.g. STEP48_DIM, set by the caller), then compares their outputs with
# <compare.py> to the relative <tolerance> (default 1e-8) and prints their timings side by side
# (each output ends with the program's wall time). Exit 77 (skipped) for the cuda backend on a
# machine without a usable GPU.
set -euo pipefail
tutorial=$1 port=$2 reference=$3 probe=$4 backend=$5 ranks=$6 compare=$7 tolerance=${8:-1e-8}
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # both write solution_*.vtu here
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
if [[ "$reference" == *.txt ]]; then
  cp "$reference" reference.txt # a recorded output of deal.II's program
else
  timed reference.txt $run "$reference" || status=$?
fi
GPUMF_BACKEND=$backend timed port.txt $run "$port" || status=$?
echo "=== deal.II's $tutorial ($ranks ranks${STEP48_DIM:+, ${STEP48_DIM}D}; ${reference##*/})"
cat reference.txt
echo "=== gpumf port ($backend, $ranks ranks)"
cat port.txt
echo "==="
[ $status -eq 0 ] || { echo "FAIL: a program exited with status $status"; exit 1; }
python3 "$compare" reference.txt port.txt "$tolerance" "gpumf-$backend"
