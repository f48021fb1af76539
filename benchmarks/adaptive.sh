#!/usr/bin/env bash
# The whole program of examples/adaptive (adaptive Poisson: mesh, DoFs, constraints, solve,
# errors, Kelly's estimator, refinement; every cycle) with deal.II's CPU MatrixFree solver on all
# host cores against gpumf's solver on the GPU, in one job:
#
#   benchmarks/adaptive.sh [dim] [degree] [cycles] [gpumf ranks ...]
#
#   dim, degree, cycles   as examples/adaptive's options (default 3 2 8)
#   gpumf ranks           MPI ranks of the gpumf program (default 1/gpu), each a number or k/gpu:
#                         k ranks on each of the node's GPUs; the CUDA MPS daemon runs while a
#                         gpumf program with more ranks than GPUs runs (started and stopped here;
#                         GPUMF_BENCH_MPS=0: not started)
#
# deal.II's program (`adaptive --solver dealii`) runs with one MPI rank per host core (nproc, or GPUMF_BENCH_CORES;
# Debian's deal.II has no SIMD), and so does adaptive_native's, deal.II's solver at full SIMD width,
# where it is built and the CPU has AVX-512 (run_timed.sh's native_twin); gpumf's (`adaptive --solver gpumf`) with the given ranks and
# deal.II's threads spread over the cores (--bind-to none). Prints each program's output (its
# per-cycle table, and where its whole run went: deal.II's TimerOutput by phase) and a summary:
# DoFs of the last cycle, the solver's set-up + solve + errors, the whole program's wall time
# (the process, MPI start-up included) and the ratio deal.II / gpumf of the whole programs.
# The program comes from $GPUMF_BIN (default: build/examples/adaptive).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dim=${1:-3}
degree=${2:-2}
cycles=${3:-8}
shift 3 || shift $# || true
gpumf_ranks=("${@:-1/gpu}")
bin=${GPUMF_BIN:-$here/../build/examples/adaptive}
[ -x "$bin/adaptive" ] || cmake --build "$here/../build" --target adaptive
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
. "$here/mps.sh"
gpumf_ranks=($(node_ranks "${gpumf_ranks[@]}"))
. "$here/run_timed.sh" # native_twin
trap 'rm -rf "$work"; mps_stop' EXIT
cd "$work"

# run <log> <command...>: the command's output in <log>, its wall time appended
run() {
  local log=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$@" < /dev/null > "$log" 2>&1 || { cat "$log"; echo "adaptive.sh: $* failed"; exit 1; }
  end=$(date +%s.%N)
  echo "Program wall time $(python3 -c "print($end - $start)")" >> "$log"
}

options=(--dim "$dim" --degree "$degree" --cycles "$cycles")
cores=${GPUMF_BENCH_CORES:-$(nproc)}
run dealii.log mpirun -np "$cores" "$bin/adaptive" "${options[@]}" --solver dealii
native=$(native_twin "$bin/adaptive")
[ -z "$native" ] || run dealii_native.log mpirun -np "$cores" "$native" "${options[@]}" --solver dealii
for ranks in "${gpumf_ranks[@]}"; do
  # MPS only while a program with more ranks than GPUs runs
  mps_for_ranks "$ranks"
  run "gpumf$ranks.log" mpirun --bind-to none -np "$ranks" "$bin/adaptive" "${options[@]}" --solver gpumf
done
for log in dealii*.log gpumf*.log; do echo "=== $log"; cat "$log"; done
echo "examples/adaptive ${dim}D, FE_Q($degree), $cycles cycles; host: $cores cores" \
     "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); GPU: $(nvidia-smi -L 2> /dev/null | head -1)" \
     "; MPS for more ranks than GPUs: ${GPUMF_BENCH_MPS:-1}"
python3 - dealii.log ${native:+dealii_native.log} gpumf*.log <<'PY'
import re, sys
def parse(path):
    text = open(path).read()
    dofs = re.findall(r"^\s*\d+\s+\d+\s+(\d+)\s", text, re.M)
    solver = re.search(r"(?:gpumf \(\w+\)|deal.II CPU MatrixFree) setup \+ solve \+ errors: (\S+) s", text)
    ranks = re.search(r"(\d+) MPI rank", text)
    wall = re.findall(r"Program wall time ([\d.]+)", text)
    return int(dofs[-1]), float(solver.group(1)), int(ranks.group(1)), float(wall[-1])
# the ratios: deal.II's whole program (width 1; native SIMD where it ran) over this one's
native = [p for p in sys.argv[1:] if p.endswith("dealii_native.log")]
reference = parse(sys.argv[1])
reference_native = parse(native[0]) if native else None
print(f"{'program':<34} {'ranks':>5} {'DoFs':>10} {'solver [s]':>11} {'whole [s]':>10} {'deal.II/this':>13}"
      f" {'native/this':>12}")
for path in sys.argv[1:]:
    dofs, solver, ranks, wall = parse(path)
    name = ("deal.II native SIMD" if path.endswith("dealii_native.log") else
            "deal.II CPU MatrixFree" if "dealii" in path else "gpumf")
    ratio_native = f"{reference_native[3] / wall:>12.2f}" if reference_native else f"{'-':>12}"
    print(f"{name:<34} {ranks:>5} {dofs:>10} {solver:>11.2f} {wall:>10.2f} {reference[3] / wall:>13.2f} {ratio_native}")
PY
