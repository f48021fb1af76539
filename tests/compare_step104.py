#!/usr/bin/env python3
"""Compares two step-104 outputs (deal.II 9.8's and gpumf's port): per refinement the same DoF
counts and GMRES iteration counts, the multigrid levels' eigenvalue estimates and the velocity
and pressure L2 errors equal to a relative tolerance. Prints one line per check and the closing
tally; exits 1 on any difference or where a file has no refinement.
Usage: compare_step104.py <deal.II's output> <the port's> <relative tolerance> [<label>]"""
import re
import sys


def parse(path):
    with open(path) as f:
        text = f.read()
    refinements = []
    for block in re.split(r"\nrefinement: ", "\n" + text)[1:]:
        head = re.match(r"(\d+), n_dofs: (\d+) = (\d+) \+ (\d+)", block)
        iterations = re.search(r"Solver converged in (\d+) iterations", block)
        errors = re.search(r"velocity error: (\S+) pressure error: (\S+)", block)
        eigenvalues = re.findall(r"level: (\d+) n_dofs: (\d+), eigenvalue spectrum: \[ (\S+), (\S+) \]", block)
        refinements.append({
            "head": head.groups() if head else None,
            "iterations": iterations.group(1) if iterations else None,
            "errors": [float(x) for x in errors.groups()] if errors else None,
            "eigenvalues": [(l, n, float(a), float(b)) for l, n, a, b in eigenvalues],
        })
    return refinements


def main():
    reference, result, rtol = parse(sys.argv[1]), parse(sys.argv[2]), float(sys.argv[3])
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed, failed = passed + bool(ok), failed + (not ok)

    def close(a, b):
        return abs(a - b) <= rtol * abs(a)

    check(len(reference) > 0 and len(reference) == len(result),
          f"{len(result)} refinements, reference {len(reference)}")
    for i, (a, b) in enumerate(zip(reference, result)):
        check(a["head"] is not None and a["head"] == b["head"],
              f"refinement {i}: DoFs {b['head']}, reference {a['head']}")
        check(a["iterations"] is not None and a["iterations"] == b["iterations"],
              f"refinement {i}: {b['iterations']} GMRES iterations, reference {a['iterations']}")
        check(len(a["eigenvalues"]) > 0 and len(a["eigenvalues"]) == len(b["eigenvalues"]) and
              all(x[:2] == y[:2] and close(x[2], y[2]) and close(x[3], y[3])
                  for x, y in zip(a["eigenvalues"], b["eigenvalues"])),
              f"refinement {i}: eigenvalue estimates {[y[2:] for y in b['eigenvalues']]}, "
              f"reference {[x[2:] for x in a['eigenvalues']]}")
        ok = a["errors"] is not None and b["errors"] is not None and \
            all(close(x, y) for x, y in zip(a["errors"], b["errors"]))
        check(ok, f"refinement {i}: errors {b['errors']}, reference {a['errors']} (relative {rtol})")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
