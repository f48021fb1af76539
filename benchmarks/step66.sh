#!/usr/bin/env bash
# Whole-program time of deal.II's step-66 (the Gelfand problem by Newton's method, Q4 on a curved
# ball with MappingQ(4), float geometric multigrid with level coefficients from the solution) on
# the CPU against its gpumf port, both with step66-bench.sed, in one job:
#
#   benchmarks/step66.sh [dim] [cycles] [port ranks ...]
#
#   dim         2, 3 (default) or both (the tutorial's main(): the 2D problem, then the 3D one)
#   cycles      refinement cycles (default deal.II's 9 - dim: 3D up to 14.7 million DoFs, 2D 1.3
#               million)
#   port ranks  MPI ranks of the port (default 1/gpu), each a number or k/gpu: k ranks
#               on each of the node's GPUs, consecutive ranks on one GPU (gpumf::select_device); the
#               CUDA MPS daemon runs while a port with more ranks than GPUs runs (started and stopped
#               here; GPUMF_BENCH_MPS=0: not started)
#
# deal.II's program runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES; Debian's deal.II has no SIMD), as
# the tutorial is (MappingQ) and, unless GPUMF_STEP66_DEALII_CACHE=0, with the port's change 14 too
# (MappingQCache: each cell's support points computed once per mesh, which also speeds up deal.II);
# then the stronger of these two (the MappingQCache one unless it is off) at full SIMD width where
# its twin is built (run_timed.sh's native_twin);
# the port with the given ranks and deal.II's threads spread over the cores (--bind-to none).
# Both write step-66's VTU files (below 10^6 cells) unless GPUMF_STEP66_OUTPUT=0.
# Prints, per run: the last cycle's DoFs, Newton steps and CG iterations, its TimerOutput sections
# (set-up, Newton solve, of which the linear solves "compute update") and "setup+solve" time, and
# the whole program's wall time.
# The programs come from $GPUMF_BIN (default: build/benchmarks, built there when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dim=${1:-3}
[ "$dim" = both ] && unset GPUMF_STEP66_DIM || export GPUMF_STEP66_DIM=$dim
[ -n "${2:-}" ] && export GPUMF_STEP66_CYCLES=$2
shift 2 || shift $# || true
port_ranks=("${@:-1/gpu}")
bin=${GPUMF_BIN:-$here/../build/benchmarks}
with_cache=${GPUMF_STEP66_DEALII_CACHE:-1}
if [ ! -x "$bin/gpumf_step66" ] || [ ! -x "$bin/dealii_step66" ] ||
   { [ "$with_cache" = 1 ] && [ ! -x "$bin/dealii_step66_cache" ]; }; then
  cmake --build "$here/../build" --target gpumf_step66 dealii_step66 dealii_step66_cache
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
. "$here/mps.sh"
port_ranks=($(node_ranks "${port_ranks[@]}"))
trap 'rm -rf "$work"; mps_stop' EXIT
cd "$work" # the programs write solution_*.vtu here

. "$here/run_timed.sh"
# step-66 writes VTU files every cycle: removed after each program
run() {
  run_timed "$@"
  rm -f ./*.vtu ./*.pvtu
}

summary() {
  python3 - "$1" "$2" <<'PY'
import re, sys
label, text = sys.argv[1], open(sys.argv[2]).read()
last_cycle = re.split(r"^Cycle \d+$", text, flags=re.M)[-1]
def find(pattern, block=last_cycle, convert=float):
    m = re.findall(pattern, block)
    return convert(m[-1]) if m else float("nan")
dofs  = find(r"DoFHandler:\s+(\d+) DoFs", convert=int)
its   = re.findall(r"Nstep \d+, .*, it = (\d+)", last_cycle)
setup = find(r"\| setup system\s+\|\s+\d+ \|\s+(\S+)s")
solve = find(r"\| solve\s+\|\s+\d+ \|\s+(\S+)s")
upd   = find(r"\| compute update\s+\|\s+\d+ \|\s+(\S+)s")
both  = find(r"Time for setup\+solve \(CPU/Wall\) \S+/(\S+) s")
wall  = find(r"Program wall time ([\d.]+)", text)
print(f"{label:<34} {dofs:>11} {len(its):>3} {'+'.join(its):>12} {setup:>9.3f} {solve:>9.3f} {upd:>9.3f} "
      f"{both:>9.3f} {wall:>9.2f}")
PY
}

cores=${GPUMF_BENCH_CORES:-$(nproc)}
run "deal.II step-66, $cores ranks" dealii.log mpirun -np "$cores" "$bin/dealii_step66"
if [ "$with_cache" = 1 ]; then
  run "deal.II step-66 with MappingQCache, $cores ranks" dealii_cache.log mpirun -np "$cores" "$bin/dealii_step66_cache"
fi
# deal.II at full SIMD width: the strongest of the two above (with MappingQCache unless it is off)
[ "$with_cache" = 1 ] && native=$(native_twin "$bin/dealii_step66_cache") || native=$(native_twin "$bin/dealii_step66")
[ -z "$native" ] || run "deal.II step-66 native SIMD" dealii_native.log mpirun -np "$cores" "$native"
for ranks in "${port_ranks[@]}"; do
  # MPS only while a program with more ranks than GPUs runs
  mps_for_ranks "$ranks"
  run "gpumf port, $ranks ranks" "gpumf$ranks.log" mpirun --bind-to none -np "$ranks" "$bin/gpumf_step66"
done
for log in dealii*.log gpumf*.log; do echo "=== $log"; cat "$log"; done
echo "step-66 (Q4, MappingQ(4)), dim $dim, ${GPUMF_STEP66_CYCLES:-9 - dim} cycles, output" \
     "${GPUMF_STEP66_OUTPUT:-1}; host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
printf "%-34s %11s %3s %12s %9s %9s %9s %9s %9s\n" "program (last cycle; whole run)" DoFs "N" "CG its" \
       "setup[s]" "Newton[s]" "update[s]" "set+sol" "wall[s]"
summary "deal.II CPU MatrixFree, $cores ranks" dealii.log
[ "$with_cache" = 1 ] && summary "deal.II, MappingQCache, $cores ranks" dealii_cache.log
[ -z "$native" ] || summary "deal.II native SIMD$([ "$with_cache" = 1 ] && echo ', cache'), $cores ranks" dealii_native.log
for ranks in "${port_ranks[@]}"; do
  summary "gpumf port, $ranks rank(s)" "gpumf$ranks.log"
done
