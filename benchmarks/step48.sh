#!/usr/bin/env bash
# Time per step of deal.II's step-48 (sine-Gordon, explicit time stepping, 3D, degree 4,
# hanging nodes) on the CPU against its gpumf port, both with step48-bench.sed, in one job:
#
#   benchmarks/step48.sh [refinements] [steps] [port ranks ...]
#
#   refinements  global refinements before step-48's two local ones (default 6: 73,539,441
#                DoFs; 5: 9,323,953; 4: 1,193,881)
#   steps        time steps timed (default 50)
#   port ranks   MPI ranks of the port (default 1/gpu), each a number or k/gpu: k ranks
#                on each of the node's GPUs, consecutive ranks on one GPU (gpumf::select_device); the
#                CUDA MPS daemon runs while a port with more ranks than GPUs runs (started and stopped
#                here; GPUMF_BENCH_MPS=0: not started)
#
# deal.II's program runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES; Debian's deal.II has no SIMD), and
# so does its twin at full SIMD width where it is built (run_timed.sh's native_twin),
# the port with the given ranks and deal.II's threads spread over the cores (--bind-to none).
# Prints, per run: DoFs, the set-up time (mesh, DoFs, constraints, MatrixFree::reinit, inverse
# mass matrix; MatrixFree::reinit also alone), the time per step (the GPU synchronized), the
# final solution norm (5 digits, as step-48 prints it) and the whole program's wall time.
# The programs come from $GPUMF_BIN (default: build/benchmarks, built there when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
refinements=${1:-6}
steps=${2:-50}
shift 2 || shift $# || true
port_ranks=("${@:-1/gpu}")
bin=${GPUMF_BIN:-$here/../build/benchmarks}
if [ ! -x "$bin/gpumf_step48" ] || [ ! -x "$bin/dealii_step48" ]; then
  cmake --build "$here/../build" --target gpumf_step48 dealii_step48
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GPUMF_STEP48_REFINEMENTS=$refinements GPUMF_STEP48_STEPS=$steps
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
dofs   = last(r"Number of degrees of freedom: (\d+)")
setup  = re.search(r"Setup time: (\S+)s \(make_grid_and_dofs \S+s, of which MatrixFree::reinit (\S+)s; "
                   r"inverse mass matrix (\S+)s\)", text)
step   = re.search(r"Time per step: (\S+)s \((\d+) steps\)", text)
norm   = last(r"solution norm:\s*(\S+)")
wall   = last(r"Program wall time ([\d.]+)")
print(f"{label:<34} {int(dofs):>11} {float(setup.group(1)):>9.3f} {float(setup.group(2)):>9.3f} "
      f"{float(setup.group(3)):>9.4f} {float(step.group(1)):>11.5f} {step.group(2):>5} {norm:>10} "
      f"{float(wall):>9.2f}")
PY
}

cores=${GPUMF_BENCH_CORES:-$(nproc)}
run_timed "deal.II step-48, $cores ranks" dealii.log mpirun -np "$cores" "$bin/dealii_step48"
native=$(native_twin "$bin/dealii_step48")
[ -z "$native" ] || run_timed "deal.II step-48 native SIMD" dealii_native.log mpirun -np "$cores" "$native"
for ranks in "${port_ranks[@]}"; do
  # MPS only while a program with more ranks than GPUs runs
  mps_for_ranks "$ranks"
  run_timed "gpumf port, $ranks ranks" "gpumf$ranks.log" mpirun --bind-to none -np "$ranks" "$bin/gpumf_step48"
done
for log in dealii*.log gpumf*.log; do echo "=== $log"; cat "$log"; done
echo "step-48 (3D, Q4), $refinements global refinements, $steps steps; host: $cores cores" \
     "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
printf "%-34s %11s %9s %9s %9s %11s %5s %10s %9s\n" program DoFs "setup [s]" "reinit" "inv mass" \
       "step [s]" steps "norm" "wall [s]"
summary "deal.II CPU MatrixFree, $cores ranks" dealii.log
[ -z "$native" ] || summary "deal.II native SIMD, $cores ranks" dealii_native.log
for ranks in "${port_ranks[@]}"; do
  summary "gpumf port, $ranks rank(s)" "gpumf$ranks.log"
done
