#!/usr/bin/env bash
# deal.II 9.7/9.8's step-64 three ways, in one job (doc/performance.md, "Whole programs against deal.II"):
#
#   benchmarks/step64.sh [cycles] [port ranks]
#
#   cycles      step-64's refinement cycles (default 6: last 7.2 million DoFs; 4: 117,649 (step-64's
#               own); 5: 912,673; 7: 57 million)
#   port ranks  MPI ranks of the gpumf port, sharing the node's GPUs (gpumf::select_device) (default 1)
#
# 1. deal.II's own step-64: Portable::MatrixFree through the Kokkos deal.II was built with
#    (Debian's Kokkos 5 enables the Serial backend alone: one core per MPI rank), one rank per
#    host core (nproc, or GPUMF_BENCH_CORES);
# 2. the same problem and solver with deal.II's CPU MatrixFree (step64_matrixfree.cc), one rank
#    per host core (Debian's deal.II: VectorizedArray of one lane);
# 3. the gpumf port of deal.II's step-64 on the GPU.
# All three with step64-bench.sed's timings: set-up, the solve (diagonal, Chebyshev, CG) and one
# operator application; the whole program's wall time measured here. Prints a table, and checks
# that the three solved in the same number of iterations to the same solution norm.
# Programs from $GPUMF_BIN (default build/benchmarks; a build against deal.II 9.7 or newer),
# MPI's launcher from $GPUMF_MPIRUN (default mpirun; on the GPU machine the sid pack's bin/mpirun).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cycles=${1:-6}
port_ranks=${2:-1}
bin=${GPUMF_BIN:-$here/../build/benchmarks}
mpirun=${GPUMF_MPIRUN:-mpirun}
programs=(dealii_step64 dealii_step64_matrixfree gpumf_step64)
for p in "${programs[@]}"; do
  [ -x "$bin/$p" ] || { echo "step64.sh: $bin/$p is missing: build ${programs[*]} in a build folder against deal.II 9.7 or newer (dealii_step64 and gpumf_step64 exist from 9.7 on; e.g. scripts/debian-sid.sh cmake --build build-sid --target ...) and set GPUMF_BIN to a folder with all three"; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GPUMF_STEP64_CYCLES=$cycles
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # the programs write solution_*.vtu here

. "$here/run_timed.sh"

cores=${GPUMF_BENCH_CORES:-$(nproc)}
run_timed "deal.II step-64 (Portable::MatrixFree, Kokkos)" portable.log $mpirun --bind-to core -np "$cores" "$bin/dealii_step64"
run_timed "deal.II CPU MatrixFree" matrixfree.log $mpirun --bind-to core -np "$cores" "$bin/dealii_step64_matrixfree"
run_timed "gpumf port" gpumf.log $mpirun --bind-to none -np "$port_ranks" "$bin/gpumf_step64"

echo "step-64 (3D, FE_Q(3), Chebyshev(5)-Jacobi CG), $cycles cycles; host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
python3 - "$cores" "$port_ranks" portable.log matrixfree.log gpumf.log <<'PY'
import re, sys
cores, port_ranks = sys.argv[1], sys.argv[2]
labels = [f"deal.II step-64, Portable (Kokkos), {cores} ranks",
          f"deal.II CPU MatrixFree, {cores} ranks",
          f"gpumf port, {port_ranks} rank(s)"]
print(f"{'program':<44} {'DoFs (last)':>11} {'setup [s]':>9} {'solve [s]':>9} {'its':>4} "
      f"{'vmult [s]':>10} {'GDoF/s':>7} {'wall [s]':>8}  solution norm")
results = []
for label, log in zip(labels, sys.argv[3:]):
    text = open(log).read()
    dofs = int(re.findall(r"Number of degrees of freedom: (\d+)", text)[-1])
    setup = float(re.findall(r"Time setup ([\d.e+-]+) s", text)[-1])
    its, solve = re.findall(r"Time solve \((\d+) iterations\) ([\d.e+-]+) s", text)[-1]
    vmult = float(re.findall(r"Time vmult ([\d.e+-]+) s", text)[-1])
    norm = re.findall(r"solution norm: (\S+)", text)[-1]
    wall = float(re.findall(r"Program wall time ([\d.]+)", text)[-1])
    results.append((int(its), float(norm)))
    print(f"{label:<44} {dofs:>11} {setup:>9.3f} {float(solve):>9.3f} {its:>4} {vmult:>10.3e} "
          f"{dofs / vmult * 1e-9:>7.2f} {wall:>8.2f}  {norm}")
its = {r[0] for r in results}
norms = [r[1] for r in results]
if len(its) != 1 or max(norms) - min(norms) > 1e-6 * max(abs(n) for n in norms):
    print(f"step64.sh: the programs disagree: iterations {sorted(its)}, norms {norms}")
    sys.exit(1)
print(f"all three: {its.pop()} iterations, solution norm {norms[0]:.8g}")
PY
