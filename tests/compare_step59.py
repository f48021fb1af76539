#!/usr/bin/env python3
"""Compares the output of deal.II's step-59 (CPU) with that of its gpumf port, both with
tests/step59-test.sed applied: the same cycles and DoF counts, CG iteration counts equal
within +-1 per cycle (float multigrid levels: round-off may move the last iteration), and L2
errors against the analytic solution equal to a relative tolerance. Prints one line per
check, the setup and solve times side by side, and the closing tally; exits 1 on any
difference.

Usage: compare_step59.py <deal.II output> <gpumf output> <rtol> [<label of the gpumf run>]"""
import re
import sys


def parse(path):
    """One dict per cycle: dofs, iterations, setup and solve (wall) times, L2 error."""
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
            "setup": find(r"Total setup time\s+(\S+) s", float),
            "solve": find(r"Time solve \(\d+ iterations\)\s+(\S+) s", float),
            "error": find(r"Verification via L2 error:\s+(\S+)", float),
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
    for cycle, (a, b) in enumerate(zip(reference, result)):
        complete = all(v is not None for v in list(a.values()) + list(b.values()))
        check(complete, f"cycle {cycle}: DoFs, iterations, times and L2 error printed by both")
        if not complete:
            continue
        check(a["dofs"] == b["dofs"], f"cycle {cycle}: {b['dofs']} DoFs, deal.II {a['dofs']}")
        check(abs(a["iterations"] - b["iterations"]) <= 1,
              f"cycle {cycle}: {b['iterations']} CG iterations, deal.II {a['iterations']} (+-1)")
        rel = abs(a["error"] - b["error"]) / abs(a["error"])
        check(rel <= rtol,
              f"cycle {cycle}: L2 error {b['error']!r}, deal.II {a['error']!r}, relative difference {rel:.2e} <= {rtol}")

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
    sys.exit(main())
