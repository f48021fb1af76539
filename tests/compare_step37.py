#!/usr/bin/env python3
"""Compares the output of deal.II's step-37 (CPU) with that of its gpumf port, both with
tests/step37-test.sed applied: the same cycles and DoF counts, CG iteration counts equal
within +-1 per cycle (float multigrid levels: round-off may move the last iteration), and
solution norms equal to a relative tolerance. Prints one line per check, the setup and
solve times side by side, and the closing tally; exits 1 on any difference.

Usage: compare_step37.py <deal.II output> <gpumf output> <rtol> [<label of the gpumf run>]"""
import re
import sys


# step-37's lines: set-up and solve wall times, and the quantity compared (its solution norm)
STEP37 = {
    "setup": r"Total setup time\s+\(wall\) (\S+)s",
    "solve": r"Time solve \(\d+ iterations\)\s*\(CPU/wall\) \S+s/(\S+)s",
    "value": r"Solution norm: (\S+)",
}


def parse(path, patterns):
    """One dict per cycle: dofs, iterations, setup and solve (wall) times, the compared value."""
    with open(path) as f:
        text = f.read()
    cycles = []
    for block in re.split(r"^Cycle \d+$", text, flags=re.M)[1:]:
        def find(pattern, convert):
            m = re.search(pattern, block)
            return convert(m.group(1)) if m else None
        cycles.append({
            "dofs": find(r"Number of degrees of freedom: (\d+)", int),
            "iterations": find(r"Time solve \((\d+) iterations\)", int),
            "setup": find(patterns["setup"], float),
            "solve": find(patterns["solve"], float),
            "value": find(patterns["value"], float),
        })
    return cycles


def compare(argv, patterns, value_name):
    """The checks and the table for the outputs argv[1] (deal.II) and argv[2] (the port), the
    relative tolerance argv[3] on the value patterns["value"] (printed as value_name) and the
    label argv[4] of the port's run; the exit code. Also used by compare_step59.py."""
    reference, result, rtol = parse(argv[1], patterns), parse(argv[2], patterns), float(argv[3])
    label = argv[4] if len(argv) > 4 else "gpumf"
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed, failed = passed + ok, failed + (not ok)

    check(len(reference) > 0 and len(reference) == len(result),
          f"{len(result)} cycles, deal.II {len(reference)}")
    for cycle, (a, b) in enumerate(zip(reference, result)):
        complete = all(v is not None for v in list(a.values()) + list(b.values()))
        check(complete, f"cycle {cycle}: DoFs, iterations, times and {value_name} printed by both")
        if not complete:
            continue
        check(a["dofs"] == b["dofs"], f"cycle {cycle}: {b['dofs']} DoFs, deal.II {a['dofs']}")
        check(abs(a["iterations"] - b["iterations"]) <= 1,
              f"cycle {cycle}: {b['iterations']} CG iterations, deal.II {a['iterations']} (+-1)")
        rel = abs(a["value"] - b["value"]) / abs(a["value"])
        check(rel <= rtol,
              f"cycle {cycle}: {value_name} {b['value']!r}, deal.II {a['value']!r}, relative difference {rel:.2e} "
              f"<= {rtol}")

    # the times side by side (wall seconds; deal.II's CPU program and the port on its backend)
    w = max(11, len(label))

    def show(value, fmt):
        return format(value, fmt) if value is not None else "-"

    print()
    print(f"{'':>16} | {'CG iterations':^{2 * w + 1}} | {'setup (wall) [s]':^{2 * w + 1}} | "
          f"{'solve (wall) [s]':^{2 * w + 1}}")
    print(f"{'cycle':>5} {'DoFs':>10} |" + f" {'deal.II':>{w}} {label:>{w}} |" * 2 + f" {'deal.II':>{w}} {label:>{w}}")
    for cycle, (a, b) in enumerate(zip(reference, result)):
        print(f"{cycle:>5} {show(a['dofs'], 'd'):>10} | {show(a['iterations'], 'd'):>{w}} "
              f"{show(b['iterations'], 'd'):>{w}} | {show(a['setup'], '.4g'):>{w}} {show(b['setup'], '.4g'):>{w}} | "
              f"{show(a['solve'], '.4g'):>{w}} {show(b['solve'], '.4g'):>{w}}")
    print()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(compare(sys.argv, STEP37, "norm"))
