#!/usr/bin/env bash
# deal.II's step-59 (interior-penalty Laplacian of FE_DGQHermite, degree 8, 3D, geometric
# multigrid with a block-Jacobi Chebyshev smoother, CG) on the CPU against its gpumf port,
# both with step59-bench.sed, in one job:
#
#   benchmarks/step59.sh [cycles] [port ranks ...]
#
#   cycles      the program's cycles (default 5: the last 32^3 cells, 23,887,872 DoFs; 4: 2,985,984)
#   port ranks  MPI ranks of the port (default 1/gpu), each a number or k/gpu: k ranks on each of
#               the node's GPUs (gpumf::select_device); the CUDA MPS daemon runs while a port with
#               more ranks than GPUs runs (GPUMF_BENCH_MPS=0: not started)
#
# deal.II's program runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES; Debian's deal.II has no SIMD), and
# so does its twin at full SIMD width where it is built (run_timed.sh's native_twin),
# the port with the given ranks. Prints the programs' outputs (per cycle: DoFs, set-up time
# as step-59 counts it, solve time and CG iterations, the L2 error) and a table of the last
# cycle and the whole programs' wall times (start to end, every cycle), and the GPU's copy
# roofline (gpumf_dg --copy-roofline) for vectors of the last cycle's size. The programs come from
# $GPUMF_BIN (default: build/benchmarks, built there when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cycles=${1:-5}
shift || true
port_ranks=("${@:-1/gpu}")
bin=${GPUMF_BIN:-$here/../build/benchmarks}
if [ ! -x "$bin/gpumf_step59" ] || [ ! -x "$bin/dealii_step59" ] || [ ! -x "$bin/gpumf_dg" ]; then
  cmake --build "$here/../build" --target gpumf_step59 dealii_step59 gpumf_dg
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GPUMF_STEP59_CYCLES=$cycles
work=$(mktemp -d)
. "$here/mps.sh"
port_ranks=($(node_ranks "${port_ranks[@]}"))
trap 'rm -rf "$work"; mps_stop' EXIT
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
for ranks in "${port_ranks[@]}"; do
  # MPS only while a program with more ranks than GPUs runs
  mps_for_ranks "$ranks"
  run_timed "gpumf port, $ranks ranks" "gpumf$ranks.log" mpirun --bind-to none -np "$ranks" "$bin/gpumf_step59"
done
mps_stop
for log in dealii*.log gpumf*.log; do echo "=== $log"; cat "$log"; done
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
echo "step-59 (3D, FE_DGQHermite(8)), $cycles cycles; host: $cores cores" \
     "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); GPU: ${device:-none}"
printf "%-34s %11s %10s %10s %5s %12s %9s\n" "program (last cycle)" DoFs "setup [s]" "solve [s]" its \
       "L2 error" "wall [s]"
summary "deal.II CPU MatrixFree, $cores ranks" dealii.log
[ -z "$native" ] || summary "deal.II native SIMD, $cores ranks" dealii_native.log
for ranks in "${port_ranks[@]}"; do
  summary "gpumf port, $ranks rank(s)" "gpumf$ranks.log"
done
# the copy roofline of this machine (one GPU), for vectors of the last cycle's size
dofs=$(grep -o "Number of degrees of freedom: [0-9]*" "gpumf${port_ranks[0]}.log" | tail -1 | grep -o "[0-9]*$")
"$bin/gpumf_dg" --copy-roofline "$dofs"
