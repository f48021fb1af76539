#!/usr/bin/env bash
# deal.II 9.8's step-104 (3D Stokes, Q2-Q1, GMRES with geometric multigrid on coarsened meshes)
# and its gpumf port, in one job (doc/performance.md, "step-104"):
#
#   benchmarks/step104.sh [refinements] [deal.II refinements] [port program]
#
#   refinements          the port's refinements (default 6: the last, refinement 5, has
#                        53,070,468 DoFs, the size of deal.II's published H100 figures)
#   deal.II refinements  deal.II's own step-104 (Portable::MatrixFree through Debian's Kokkos, whose
#                        only backend is Serial), one MPI rank per host core (default 5: the last
#                        6.7 million DoFs; 0 skips it)
#   port program         default gpumf_step104 (Q2-Q1); gpumf_step104_q3q2, _q4q3, _q5q4 for the higher
#                        degrees of deal.II's table (step104-bench.sed's B4)
#
# Both with step104-bench.sed: per refinement the DoFs, the set-up time, the program's own time of
# its first Stokes operator application and the mean of 20 more, the GMRES iterations and solve
# time, the errors; the whole program's wall time measured here. Prints a table per program and
# checks that both have the same iterations and errors where both ran.
# Programs from $GPUMF_BIN (default build/benchmarks; dealii_step104 exists in a build against
# deal.II 9.8), MPI's launcher from $GPUMF_MPIRUN (default mpirun).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
refinements=${1:-6}
dealii_refinements=${2:-5}
port=${3:-gpumf_step104}
bin=${GPUMF_BIN:-$here/../build/benchmarks}
mpirun=${GPUMF_MPIRUN:-mpirun}
programs=("$port")
[ "$dealii_refinements" -gt 0 ] && programs+=(dealii_step104)
for p in "${programs[@]}"; do
  [ -x "$bin/$p" ] || { echo "step104.sh: $bin/$p is missing: build ${programs[*]} (dealii_step104 against deal.II 9.8, e.g. scripts/debian-sid.sh cmake --build build-sid --target ...) and set GPUMF_BIN to a folder with them"; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
. "$here/run_timed.sh"
cores=${GPUMF_BENCH_CORES:-$(nproc)}
GPUMF_STEP104_REFINEMENTS=$refinements run_timed "gpumf port" gpumf.log $mpirun --bind-to none -np 1 "$bin/$port"
logs=(gpumf.log)
if [ "$dealii_refinements" -gt 0 ]; then
  GPUMF_STEP104_REFINEMENTS=$dealii_refinements run_timed "deal.II step-104" dealii.log \
    $mpirun --bind-to core -np "$cores" "$bin/dealii_step104"
  logs+=(dealii.log)
fi
echo "step-104 (3D Stokes, $port); host: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
python3 - "$cores" "${logs[@]}" <<'PY'
import re, sys
cores, logs = sys.argv[1], sys.argv[2:]
labels = ["gpumf port, 1 rank", f"deal.II step-104 (Kokkos Serial), {cores} ranks"]
results = []
for label, log in zip(labels, logs):
    text = open(log).read()
    print(f"\n{label} ({text.splitlines()[1] if len(text.splitlines()) > 1 else ''})")
    print(f"{'ref':>3} {'DoFs':>11} {'setup [s]':>9} {'first op [s]':>12} {'op mean [s]':>11} {'GDoF/s':>7} "
          f"{'its':>4} {'solve [s]':>9} {'u error':>10} {'p error':>10}")
    rows = {}
    for block in re.split(r"\nrefinement: ", text)[1:]:
        ref = int(re.match(r"(\d+)", block).group(1))
        dofs = int(re.search(r"n_dofs: (\d+)", block).group(1))
        first = float(re.search(r"Stokes operator: (\S+) s", block).group(1))
        mean = re.search(r"Stokes operator, mean of \d+: (\S+) s, DoFs/s: (\S+)", block)
        solve = re.search(r"Solver converged in (\d+) iterations in (\S+) seconds", block)
        errors = re.search(r"velocity error: (\S+) pressure error: (\S+)", block)
        setups = re.findall(r"Time setup_dofs (\S+) s", text)
        rows[ref] = (solve.group(1), errors.groups())
        print(f"{ref:>3} {dofs:>11} {float(setups[ref]):>9.3f} {first:>12.4g} {float(mean.group(1)):>11.4g} "
              f"{float(mean.group(2)) / 1e9:>7.2f} {solve.group(1):>4} {float(solve.group(2)):>9.3f} "
              f"{float(errors.group(1)):>10.3e} {float(errors.group(2)):>10.3e}")
    print("Program wall time", re.findall(r"Program wall time (\S+)", text)[-1], "s")
    results.append(rows)
if len(results) == 2:
    both = [r for r in results[1] if r in results[0]]
    same = len(both) > 0 and all(results[0][r][0] == results[1][r][0] and
               all(abs(float(a) - float(b)) <= 1e-6 * abs(float(b)) for a, b in zip(results[0][r][1], results[1][r][1]))
               for r in both)
    print(f"same iterations and errors (1e-6) in the {len(both)} refinements both ran:", "yes" if same else "NO")
PY
