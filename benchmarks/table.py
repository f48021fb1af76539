#!/usr/bin/env python3
"""Markdown table of a gpumf_benchmark CSV (used for doc/performance.md).

    table.py results.csv [column,column,...] [--where column=value ...]
"""
import csv
import sys

DEFAULT = "form,degree,mesh,implementation,conflict,geometry,layout,cells_per_block,what,dofs,gdofs_per_s,roofline_fraction,gflop_per_s,speedup_vs_cpu"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--where")]
    where = [a.split("=", 1)[1].split("=", 1) for a in sys.argv[1:] if a.startswith("--where=")]
    if not args:
        sys.exit(__doc__)
    columns = (args[1] if len(args) > 1 else DEFAULT).split(",")
    rows = [r for r in csv.DictReader(open(args[0])) if all(r.get(k) == v for k, v in where)]
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c, "")
            if c == "dofs" and v:
                v = f"{float(v):.3g}"
            if c == "note" and len(v) > 60:
                v = v[:60] + "..."
            cells.append(v if v != "" else "–")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
