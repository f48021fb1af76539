#!/usr/bin/env bash
# Time to solution of deal.II's step-37 (3D, Q2, geometric multigrid) on the CPU against its
# gpumf port, both with step37-bench.sed, in one job (doc/performance.md, "Whole programs against deal.II"):
#
#   benchmarks/step37.sh [cycles] [port ranks ...]
#
#   cycles      step-37's refinement cycles (default 6: last 2.1 million DoFs; 7: 17 million)
#   port ranks  MPI ranks of the port (default 1/gpu), each a number or k/gpu: k ranks
#               on each of the node's GPUs, consecutive ranks on one GPU (gpumf::select_device); the
#               CUDA MPS daemon runs while a port with more ranks than GPUs runs (started and stopped
#               here; GPUMF_BENCH_MPS=0: not started)
#
# deal.II's program runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES; Debian's deal.II has no SIMD),
# and so does its twin at full SIMD width (dealii_step37_native, where it is built and the CPU has
# AVX-512; run_timed.sh's native_twin),
# the port with the given ranks and deal.II's threads spread over the cores (--bind-to none).
# Prints, per run: the whole program's wall time, and the last cycle's DoFs, "Total setup time"
# and solve time; with GPUMF_SETUP_PROFILE=1 also both programs' detailed set-up timings.
# The programs come from $GPUMF_BIN (default: build/benchmarks, built there when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cycles=${1:-6}
shift || true
port_ranks=("${@:-1/gpu}")
bin=${GPUMF_BIN:-$here/../build/benchmarks}
if [ ! -x "$bin/gpumf_step37" ] || [ ! -x "$bin/dealii_step37" ]; then
  cmake --build "$here/../build" --target gpumf_step37 dealii_step37
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUMF_STEP37_CYCLES=$cycles
work=$(mktemp -d)
. "$here/mps.sh"
port_ranks=($(node_ranks "${port_ranks[@]}"))
trap 'rm -rf "$work"; mps_stop' EXIT
cd "$work" # the programs write solution_*.vtu here

. "$here/run_timed.sh"

summary() {
  python3 - "$1" "$2" <<'PY'
import re, sys
label, text = sys.argv[1], open(sys.argv[2]).read()
dofs  = re.findall(r"Number of degrees of freedom: (\d+)", text)
setup = re.findall(r"Total setup time\s+\(wall\) ([\d.e+-]+)s", text)
solve = re.findall(r"Time solve \((\d+) iterations\).*?/([\d.e+-]+)s", text)
wall  = re.findall(r"Program wall time ([\d.]+)", text)
print(f"{label:<34} {int(dofs[-1]):>11} {float(setup[-1]):>10.3f} {float(solve[-1][1]):>10.3f} "
      f"{solve[-1][0]:>5} {float(wall[-1]):>10.2f}")
PY
}

cores=${GPUMF_BENCH_CORES:-$(nproc)}
run_timed "deal.II step-37, $cores ranks" dealii.log mpirun -np "$cores" "$bin/dealii_step37"
native=$(native_twin "$bin/dealii_step37")
[ -z "$native" ] || run_timed "deal.II step-37 native SIMD" dealii_native.log mpirun -np "$cores" "$native"
for ranks in "${port_ranks[@]}"; do
  # MPS only while a program with more ranks than GPUs runs
  mps_for_ranks "$ranks"
  run_timed "gpumf port, $ranks ranks" "gpumf$ranks.log" mpirun --bind-to none -np "$ranks" "$bin/gpumf_step37"
done
if [ -n "${GPUMF_SETUP_PROFILE:-}" ]; then
  for log in dealii*.log gpumf*.log; do echo "=== $log"; cat "$log"; done
fi
echo "step-37, $cycles cycles; host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
printf "%-34s %11s %10s %10s %5s %10s\n" program "DoFs (last)" "setup [s]" "solve [s]" its "wall [s]"
summary "deal.II CPU MatrixFree, $cores ranks" dealii.log
[ -z "$native" ] || summary "deal.II native SIMD, $cores ranks" dealii_native.log
for ranks in "${port_ranks[@]}"; do
  summary "gpumf port, $ranks rank(s)" "gpumf$ranks.log"
done
