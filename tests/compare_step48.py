#!/usr/bin/env python3
"""Compares the output of deal.II's step-48 (CPU) with that of its gpumf port, both with
tests/step48-test.sed applied: the same mesh (active cells, DoFs), time step size and number of
time steps, the same output times, and solution norms (16 digits) equal to a relative tolerance
at every output. Prints one line per check, the norms and the timings side by side, and the
closing tally; exits 1 on any difference.

Usage: compare_step48.py <deal.II output> <gpumf output> <rtol> [<label of the gpumf run>]"""
import re
import sys


def parse(path):
    with open(path) as f:
        text = f.read()

    def find(pattern, convert=str):
        m = re.search(pattern, text)
        return convert(m.group(1)) if m else None

    return {
        "cells": find(r"Number of global active cells: (\d+)", int),
        "dofs": find(r"Number of degrees of freedom: (\d+)", int),
        "time step": find(r"Time step size: (\S+), finest cell"),
        "steps": find(r"Performed (\d+) time steps", int),
        "per step": find(r"Average wallclock time per time step: (\S+)s", float),
        "wall": find(r"Program wall time (\S+)", float),
        "norms": [(t, float(n)) for t, n in re.findall(r"Time:\s*(\S+), solution norm:\s*(\S+)", text)],
    }


def main():
    reference, result, rtol = parse(sys.argv[1]), parse(sys.argv[2]), float(sys.argv[3])
    label = sys.argv[4] if len(sys.argv) > 4 else "gpumf"
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed, failed = passed + ok, failed + (not ok)

    for key in ("cells", "dofs", "time step", "steps"):
        check(reference[key] is not None and reference[key] == result[key],
              f"{key}: {result[key]}, deal.II {reference[key]}")
    a, b = reference["norms"], result["norms"]
    check(len(a) > 1 and len(a) == len(b), f"{len(b)} norms printed, deal.II {len(a)}")
    worst = 0.0
    w = max(18, len(label))
    print()
    print(f"{'time':>8} {'deal.II norm':>{w}} {label + ' norm':>{w}} {'rel. difference':>16}")
    for (ta, na), (tb, nb) in zip(a, b):
        rel = abs(na - nb) / abs(na)
        worst = max(worst, rel)
        print(f"{ta:>8} {na!r:>{w}} {nb!r:>{w}} {rel:>16.2e}" + ("" if ta == tb else f"  (time {tb}!)"))
        if ta != tb or rel > rtol:
            check(False, f"time {ta}: norm {nb!r} at time {tb}, deal.II {na!r}, relative difference {rel:.2e} > {rtol}")
    print()
    check(len(a) == len(b) and all(ta == tb for (ta, _), (tb, _) in zip(a, b)) and worst <= rtol,
          f"all {len(b)} norms at the same times, largest relative difference {worst:.2e} <= {rtol}")

    def show(value, fmt):
        return format(value, fmt) if value is not None else "-"

    print()
    print(f"{'':>24} {'deal.II':>11} {label:>{w}}")
    print(f"{'time per step [s]':>24} {show(reference['per step'], '.4g'):>11} {show(result['per step'], '.4g'):>{w}}")
    print(f"{'program wall time [s]':>24} {show(reference['wall'], '.4g'):>11} {show(result['wall'], '.4g'):>{w}}")
    print()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
