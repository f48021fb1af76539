#!/usr/bin/env python3
"""Compares two step-64 outputs: the same cycles, DoF counts and CG iteration counts,
and solution norms equal to a relative tolerance. Prints one line per check and the
closing tally; exits 1 on any difference."""
import re
import sys


def parse(path):
    with open(path) as f:
        text = f.read()
    return {
        "dofs": re.findall(r"Number of degrees of freedom: (\d+)", text),
        "iterations": re.findall(r"Solved in (\d+) iterations", text),
        "norms": [float(x) for x in re.findall(r"solution norm: (\S+)", text)],
    }


def main():
    reference, result, rtol = parse(sys.argv[1]), parse(sys.argv[2]), float(sys.argv[3])
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed, failed = passed + ok, failed + (not ok)

    check(len(reference["norms"]) > 0 and len(reference["norms"]) == len(result["norms"]),
          f"{len(result['norms'])} cycles, reference {len(reference['norms'])}")
    for cycle, (a, b) in enumerate(zip(reference["dofs"], result["dofs"])):
        check(a == b, f"cycle {cycle}: {b} DoFs, reference {a}")
    for cycle, (a, b) in enumerate(zip(reference["iterations"], result["iterations"])):
        check(a == b, f"cycle {cycle}: {b} CG iterations, reference {a}")
    for cycle, (a, b) in enumerate(zip(reference["norms"], result["norms"])):
        rel = abs(a - b) / abs(a)
        check(rel <= rtol, f"cycle {cycle}: norm {b!r}, reference {a!r}, relative difference {rel:.2e} <= {rtol}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
