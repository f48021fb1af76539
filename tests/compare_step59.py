#!/usr/bin/env python3
"""Compares the output of deal.II's step-59 (CPU) with that of its gpumf port, both with
tests/step59-test.sed applied: the same cycles and DoF counts, CG iteration counts equal
within +-1 per cycle (float multigrid levels: round-off may move the last iteration), and L2
errors against the analytic solution equal to a relative tolerance. Prints one line per
check, the setup and solve times side by side, and the closing tally; exits 1 on any
difference. The checks are compare_step37.py's, with step-59's lines.

Usage: compare_step59.py <deal.II output> <gpumf output> <rtol> [<label of the gpumf run>]"""
import sys

from compare_step37 import compare

# step-59's lines: set-up and solve wall times, and the quantity compared (its L2 error)
STEP59 = {
    "setup": r"Total setup time\s+(\S+) s",
    "solve": r"Time solve \(\d+ iterations\)\s+(\S+) s",
    "value": r"Verification via L2 error:\s+(\S+)",
}

if __name__ == "__main__":
    sys.exit(compare(sys.argv, STEP59, "L2 error"))
