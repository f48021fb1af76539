#!/usr/bin/env bash
# deal.II's step-59 (interior-penalty Laplacian of FE_DGQHermite, degree 8, 3D, geometric
# multigrid with a block-Jacobi Chebyshev smoother, CG) on the CPU against its gpumf port,
# both with step59-bench.sed, in one job:
#
#   benchmarks/step59.sh [cycles]
#
#   cycles  the program's cycles (default 5: the last 32^3 cells, 23,887,872 DoFs; 4: 2,985,984)
#
# deal.II's program runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES; Debian's deal.II has no SIMD), and
# so does its twin at full SIMD width where it is built (run_timed.sh's native_twin),
# the port with one rank (the GPU). Prints the programs' outputs (per cycle: DoFs, set-up time
# as step-59 counts it, solve time and CG iterations, the L2 error) and a table of the last
# cycle and the whole programs' wall times (start to end, every cycle), and the GPU's copy
# roofline (gpumf_dg --copy-roofline) for vectors of the last cycle's size. The programs come from
# $GPUMF_BIN (default: build/benchmarks, built there when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cycles=${1:-5}
bin=${GPUMF_BIN:-$here/../build/benchmarks}
if [ ! -x "$bin/gpumf_step59" ] || [ ! -x "$bin/dealii_step59" ] || [ ! -x "$bin/gpumf_dg" ]; then
  cmake --build "$here/../build" --target gpumf_step59 dealii_step59 gpumf_dg
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GPUMF_STEP59_CYCLES=$cycles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

. "$here/run_timed.sh"

summary() {
  python3 - "$1" "$2" <<'PY'
import re, sys
label, text = sys.argv[1], open(sys.argv[2]).read()
def last(pattern):
    found = re.findall(pattern, text)
    return found[-1] if found else None
dofs  = last(r"Number of degrees of freedom: (\d+)")
setup = last(r"Total setup time\s+(\S+) s")
solve = re.findall(r"Time solve \((\d+) iterations\)\s+(\S+) s", text)[-1]
error = last(r"Verification via L2 error:\s+(\S+)")
wall  = last(r"Program wall time ([\d.]+)")
print(f"{label:<34} {int(dofs):>11} {float(setup):>10.3f} {float(solve[1]):>10.3f} {solve[0]:>5} "
      f"{error:>12} {float(wall):>9.2f}")
PY
}

cores=${GPUMF_BENCH_CORES:-$(nproc)}
run_timed "deal.II step-59, $cores ranks" dealii.log mpirun -np "$cores" "$bin/dealii_step59"
native=$(native_twin "$bin/dealii_step59")
[ -z "$native" ] || run_timed "deal.II step-59 native SIMD" dealii_native.log mpirun -np "$cores" "$native"
run_timed "gpumf port, 1 rank" gpumf.log mpirun --bind-to none -np 1 "$bin/gpumf_step59"
for log in dealii*.log gpumf.log; do echo "=== $log"; cat "$log"; done
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "step-59 (3D, FE_DGQHermite(8)), $cycles cycles; host: $cores cores" \
     "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); GPU: ${device:-none}"
printf "%-34s %11s %10s %10s %5s %12s %9s\n" "program (last cycle)" DoFs "setup [s]" "solve [s]" its \
       "L2 error" "wall [s]"
summary "deal.II CPU MatrixFree, $cores ranks" dealii.log
[ -z "$native" ] || summary "deal.II native SIMD, $cores ranks" dealii_native.log
summary "gpumf port, 1 rank" gpumf.log
# the copy roofline of this machine, for vectors of the last cycle's size
dofs=$(grep -o "Number of degrees of freedom: [0-9]*" gpumf.log | tail -1 | grep -o "[0-9]*$")
"$bin/gpumf_dg" --copy-roofline "$dofs"
