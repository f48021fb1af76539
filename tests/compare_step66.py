#!/usr/bin/env python3
"""Compares the output of deal.II's step-66 (CPU) with that of its gpumf port, both with
tests/step66-test.sed applied: per problem (2D, then 3D) and cycle the same cells and DoF
counts, the same number of Newton steps, CG iterations per Newton step equal within +-1 (float
multigrid levels: round-off may move the last iteration), the l2 norms of the solution vectors
equal to a relative tolerance and the H1 seminorms to 1e-6 (deal.II's program sums per-cell
norms stored in float). Prints one line per check, the set-up + solve times side by side, and
the closing tally; exits 1 on any difference.

Usage: compare_step66.py <deal.II output> <gpumf output> <rtol> [<label of the gpumf run>]"""
import re
import sys


def parse(path):
    """One dict per cycle, in the order printed (the 2D problem's cycles, then the 3D one's)."""
    with open(path) as f:
        text = f.read()
    cycles = []
    for problem in re.split(r"^Finite element space: ", text, flags=re.M)[1:]:
        element = problem.split("\n", 1)[0].strip()
        for block in re.split(r"^Cycle \d+$", problem, flags=re.M)[1:]:
            def find(pattern, convert):
                m = re.search(pattern, block)
                return convert(m.group(1)) if m else None
            cycles.append({
                "element": element,
                "cells": find(r"Triangulation: (\d+) cells", int),
                "dofs": find(r"DoFHandler:\s+(\d+) DoFs", int),
                "iterations": [int(i) for i in re.findall(r"Nstep \d+, .*, it = (\d+)", block)],
                "converged": find(r"Convergence step (\d+)", int),
                "time": find(r"Time for setup\+solve \(CPU/Wall\) \S+/(\S+) s", float),
                "norm": find(r"H1 seminorm: (\S+)", float),
                "l2": find(r"Solution l2 norm: (\S+)", float),
            })
    return cycles


def main():
    reference, result, rtol = parse(sys.argv[1]), parse(sys.argv[2]), float(sys.argv[3])
    label = sys.argv[4] if len(sys.argv) > 4 else "gpumf"
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed, failed = passed + ok, failed + (not ok)

    check(len(reference) > 0 and len(reference) == len(result),
          f"{len(result)} cycles, deal.II {len(reference)}")
    for n, (a, b) in enumerate(zip(reference, result)):
        name = f"{a['element']} cycle {n}"
        complete = all(v is not None for v in list(a.values()) + list(b.values())) and bool(a["iterations"]) and bool(b["iterations"])
        check(complete, f"{name}: cells, DoFs, Newton steps, times and norms printed by both")
        if not complete:
            continue
        check(a["element"] == b["element"] and a["cells"] == b["cells"] and a["dofs"] == b["dofs"],
              f"{name}: {b['element']} {b['cells']} cells {b['dofs']} DoFs, deal.II {a['cells']} cells {a['dofs']} DoFs")
        check(a["converged"] == b["converged"],
              f"{name}: converged in Newton step {b['converged']}, deal.II {a['converged']}")
        check(len(a["iterations"]) == len(b["iterations"]) and
              all(abs(i - j) <= 1 for i, j in zip(a["iterations"], b["iterations"])),
              f"{name}: CG iterations per Newton step {b['iterations']}, deal.II {a['iterations']} (+-1)")
        rel = abs(a["l2"] - b["l2"]) / abs(a["l2"])
        check(rel <= rtol,
              f"{name}: solution l2 norm {b['l2']!r}, deal.II {a['l2']!r}, relative difference {rel:.2e} <= {rtol}")
        rel = abs(a["norm"] - b["norm"]) / abs(a["norm"])
        check(rel <= 1e-6,
              f"{name}: H1 seminorm {b['norm']!r}, deal.II {a['norm']!r} (float sum), relative difference "
              f"{rel:.2e} <= 1e-6")

    # the times side by side (wall seconds; deal.II's CPU program and the port on its backend)
    w = max(11, len(label))

    def show(value, fmt):
        return format(value, fmt) if value is not None else "-"

    print()
    print(f"{'':>24} | {'set-up + solve (wall) [s]':^{2 * w + 1}}")
    print(f"{'cycle':>13} {'DoFs':>10} | {'deal.II':>{w}} {label:>{w}}")
    for n, (a, b) in enumerate(zip(reference, result)):
        print(f"{a['element'][:10]:>10} {n:>2} {show(a['dofs'], 'd'):>10} | {show(a['time'], '.4g'):>{w}} "
              f"{show(b['time'], '.4g'):>{w}}")
    print()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
