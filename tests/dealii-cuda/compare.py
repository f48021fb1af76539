#!/usr/bin/env python3
"""compare.py <expected .output> <output>: compares a test's deallog output with deal.II's
expected output as deal.II 9.4's test suite does (cmake/scripts/run_test.sh and normalize.pl):
the output is normalized, then numbers are equal within numdiff's `-a 1e-6 -r 1e-8`
(absolute OR relative), fields separated by ' \\t\\r\\n=,:;<>[](){}^'.
Prints one line and exits 0 (PASS: identical, or equal within the tolerances) or 1 (DIFF)."""
import re
import sys

SEPARATORS = re.compile(r"[ \t\r\n=,:;<>\[\](){}^]+")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
ABS, REL = 1e-6, 1e-8


def normalize(text):
    """The parts of deal.II's normalize.pl that apply to deallog output."""
    lines = []
    for line in text.splitlines():
        line = re.sub(r"JobId.*", "", line)
        line = re.sub(r"-0\.(0+)(?!\d)", r"0.\1", line)
        if re.match(r"^DEAL.*::_", line):
            continue
        lines.append(line)
    return lines


def main():
    expected = normalize(open(sys.argv[1]).read())
    actual = normalize(open(sys.argv[2]).read())
    if expected == actual:
        print("identical")
        return 0
    if len(expected) != len(actual):
        print(f"{len(actual)} lines, expected {len(expected)}; first difference: "
              + first_difference(expected, actual))
        return 1
    worst = None  # (abs difference, relative difference, line number, expected, actual)
    for n, (e, a) in enumerate(zip(expected, actual), 1):
        if e == a:
            continue
        ef = [f for f in SEPARATORS.split(e) if f]
        af = [f for f in SEPARATORS.split(a) if f]
        if len(ef) != len(af):
            print(f"line {n}: '{a}', expected '{e}'")
            return 1
        for x, y in zip(ef, af):
            if x == y:
                continue
            if not (NUMBER.match(x) and NUMBER.match(y)):
                print(f"line {n}: '{a}', expected '{e}'")
                return 1
            fx, fy = float(x), float(y)
            d = abs(fx - fy)
            r = d / max(abs(fx), abs(fy))
            if d > ABS and r > REL and (worst is None or d > worst[0]):
                worst = (d, r, n, e, a)
    if worst is None:
        print("equal within numdiff -a 1e-6 -r 1e-8 (deal.II's test suite)")
        return 0
    d, r, n, e, a = worst
    print(f"largest difference {d:.3g} (relative {r:.3g}) at line {n}: '{a}', expected '{e}'")
    return 1


def first_difference(expected, actual):
    for n, (e, a) in enumerate(zip(expected, actual), 1):
        if e != a:
            return f"line {n}: '{a}', expected '{e}'"
    n = min(len(expected), len(actual)) + 1
    return f"line {n}: " + (f"extra '{actual[n - 1]}'" if len(actual) > len(expected)
                            else f"missing '{expected[n - 1]}'")


if __name__ == "__main__":
    sys.exit(main())
