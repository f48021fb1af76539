#!/usr/bin/env bash
# run_adaptive.sh <adaptive program> <cuda_available program> <backend> <ranks> <cycles> <degree>
# Runs examples/adaptive (2D L-shape, adaptive refinement with hanging nodes) with
# --solver both: gpumf on <backend> and deal.II's CPU MatrixFree solve the same systems on the
# same meshes with <ranks> MPI ranks. Fails unless
#  (a) the L2 and H1 errors of the two agree to 1e-7 relative in every cycle (column rel.diff),
#  (b) the H1 error of gpumf's solution converges at the optimal adaptive rate: the least-squares
#      slope of log(H1) over log(DoFs) of the last three cycles within 20 % of -<degree>/2.
# Exit 77 (skipped) for the cuda backend on a machine without a usable GPU.
set -euo pipefail
program=$1 probe=$2 backend=$3 ranks=$4 cycles=$5 degree=$6
if [ "$backend" = cuda ] && ! "$probe"; then
  echo "SKIPPED: no usable CUDA device"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
GPUMF_BACKEND=$backend mpirun --oversubscribe -np "$ranks" "$program" --solver both --cycles "$cycles" \
  --degree "$degree" > output.txt
cat output.txt

# The table: a header line of one-word column names starting with "cycle", then one line per cycle.
awk -v cycles="$cycles" -v degree="$degree" '
  $1 == "cycle" { for (i = 1; i <= NF; ++i) column[$i] = i; n_columns = NF; next }
  n_columns && NF == n_columns && $1 ~ /^[0-9]+$/ {
    dofs[n] = $(column["DoFs"]); h1[n] = $(column["H1(gpumf)"]); diff = $(column["rel.diff"]) + 0
    if (diff > 1e-7) { printf "FAILED: cycle %d: gpumf and deal.II errors differ by %g > 1e-7\n", $1, diff; bad = 1 }
    if ($(column["its(gpumf)"]) != $(column["its(deal.II)"]))
      printf "note: cycle %d: CG iterations differ (gpumf %d, deal.II %d)\n", $1, $(column["its(gpumf)"]), $(column["its(deal.II)"])
    ++n
  }
  END {
    if (!("rel.diff" in column) || !("H1(gpumf)" in column)) { print "FAILED: no table in the output"; exit 1 }
    if (n != cycles) { printf "FAILED: %d cycles in the table, %d expected\n", n, cycles; exit 1 }
    if (n < 3) { print "FAILED: the rate needs at least 3 cycles"; exit 1 }
    # least-squares slope of (log DoFs, log H1) over the last three cycles
    sx = sy = sxx = sxy = 0
    for (i = n - 3; i < n; ++i) {
      x = log(dofs[i]); y = log(h1[i]); sx += x; sy += y; sxx += x * x; sxy += x * y
    }
    slope = (3 * sxy - sx * sy) / (3 * sxx - sx * sx)
    expected = -degree / 2
    deviation = (slope - expected) / expected; if (deviation < 0) deviation = -deviation
    printf "H1 rate over the last three cycles %.3f, expected %.3f (off by %.1f %%, 20 %% allowed)\n",
           slope, expected, 100 * deviation
    if (deviation > 0.2) { print "FAILED: H1 rate"; bad = 1 }
    if (bad) exit 1
    print "PASSED"
  }' output.txt
