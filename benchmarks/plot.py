#!/usr/bin/env python3
"""Plots of a gpumf_benchmark CSV file (needs matplotlib: apt-get install python3-matplotlib).

    plot.py results.csv [more.csv ...] [output-directory]

Writes, for the rows with what == vmult (of all files together):
  throughput.png   GDoF/s against DoFs, one line per (form, degree, variant)
  roofline.png     fraction of the copy roofline against the degree, per form and variant
  gpu_vs_cpu.png   GDoF/s of gpumf and of deal.II on the CPU (MatrixFree, or Trilinos' matrix for
                   the assembled variant "csr") against the degree
  setup.png        set-up seconds against DoFs (GPU and CPU), one line per (form, degree, variant)
  memory.png       the largest DoF count that fits the GPU (max_dofs) against the degree
and, where the files have CG rows, cg.png (GDoF x iterations / s against the degree), and where
they have Gauss-Seidel rows (what == sweep), sweep.png (DoFs updated per second of one forward
sweep per storage and size, with deal.II's Trilinos SOR on the CPU).
A gpumf_scaling CSV (columns ranks, method, ...) gives instead
  scaling.png      GDoF/s of vmult and of a CG iteration against the number of GPUs, per case and
                   exchange method (overlap on), and the split of a vmult on the largest count
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(row, key):
    try:
        return float(row[key])
    except (KeyError, ValueError):
        return None


def variant(row):
    number = " float" if row.get("number") == "float" else ""
    return f"{row['implementation']} {row['conflict']} {row['geometry']} {row['mesh']} {row.get('layout', '')}{number}"


def finish(fig, ax, out, name, xlabel, ylabel, title):
    """Labels, grid and legend of one plot, saved as out/name."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.savefig(os.path.join(out, name), dpi=120, bbox_inches="tight")


def scaling(rows, out):
    """scaling.png from gpumf_scaling rows."""
    device = rows[0]["device"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 6))
    series = defaultdict(list)
    for r in rows:
        if r["overlap"] != "1":
            continue
        ranks = int(r["ranks"])
        per = number(r, "dofs") / ranks if r["mode"] == "weak" else number(r, "dofs")
        case = f"{r['mode']} {per:.1e} DoFs{' per GPU' if r['mode'] == 'weak' else ''}"
        series[(case, r["method"], "vmult")].append((ranks, number(r, "gdofs")))
        series[(case, r["method"], "CG iteration")].append(
            (ranks, number(r, "dofs") / number(r, "cg_iteration_ms") * 1e-6))
    for (case, method, what), points in sorted(series.items()):
        points.sort()
        ax.plot(*zip(*points), marker="o", linestyle="-" if what == "vmult" else ":",
                label=f"{case}, {method}, {what}")
    ax.set_xticks(sorted({p[0] for pts in series.values() for p in pts}))
    ax.set_xlabel("GPUs")
    ax.set_ylabel("GDoF/s of the machine (overlap on)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    # the split of a vmult on the most GPUs, per case, method and overlap
    most = max(int(r["ranks"]) for r in rows)
    bars = [r for r in rows if int(r["ranks"]) == most]
    labels = [f"{r['mode']} {number(r, 'dofs'):.1e}\n{r['method']} ov={r['overlap']}" for r in bars]
    bottom = [0.0] * len(bars)
    for key, name in (("interior_ms", "interior cells"), ("boundary_ms", "boundary cells"),
                      ("not_hidden_ms", "not hidden (exchange, waits)")):
        values = [number(r, key) for r in bars]
        bx.bar(range(len(bars)), values, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, values)]
    bx.set_xticks(range(len(bars)))
    bx.set_xticklabels(labels, fontsize=6, rotation=60, ha="right")
    bx.set_ylabel(f"ms per vmult, {most} GPUs (rank with the most boundary cells)")
    bx.legend(fontsize=8)
    fig.suptitle(f"gpumf_scaling, Laplace FE_Q(4) 3D double, {device}, copy roofline "
                 f"{number(rows[0], 'copy_gbs_min'):.0f} GB/s per GPU")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=120)
    plt.close(fig)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    files = [a for a in sys.argv[1:] if a.endswith(".csv")]
    rest = [a for a in sys.argv[1:] if not a.endswith(".csv")]
    scaling_rows = [r for f in files for r in csv.DictReader(open(f)) if "method" in r]
    if scaling_rows:
        os.makedirs(rest[0] if rest else ".", exist_ok=True)
        return scaling(scaling_rows, rest[0] if rest else ".")
    rows = [r for f in files for r in csv.DictReader(open(f)) if number(r, "seconds")]
    out = rest[0] if rest else "."
    os.makedirs(out, exist_ok=True)
    if not rows:
        sys.exit("no measured rows in " + " ".join(files))
    device = rows[0]["device"]
    vmult = [r for r in rows if r["what"] == "vmult"]

    # throughput against size, for every (form, degree, variant) measured at several sizes
    lines = defaultdict(list)
    for r in vmult:
        lines[(r["form"], int(r["degree"]), variant(r))].append((number(r, "dofs"), number(r, "gdofs_per_s")))
    fig, ax = plt.subplots(figsize=(9, 6))
    for (form, degree, var), points in sorted(lines.items()):
        if len(points) > 1:
            points.sort()
            ax.plot(*zip(*points), marker="o", label=f"{form} p={degree} {var}")
    ax.set_xscale("log")
    finish(fig, ax, out, "throughput.png", "DoFs", "GDoF/s (operator application)", f"gpumf throughput, {device}")

    # roofline fraction and GPU vs CPU against degree, at the largest size of each line
    largest = {}
    for r in vmult:
        key = (r["form"], int(r["degree"]), variant(r))
        if key not in largest or number(r, "dofs") > number(largest[key], "dofs"):
            largest[key] = r
    by_variant = defaultdict(list)
    for (form, degree, var), r in largest.items():
        by_variant[(form, var)].append((degree, r))
    fig, ax = plt.subplots(figsize=(9, 6))
    for (form, var), points in sorted(by_variant.items()):
        points.sort(key=lambda p: p[0])
        ax.plot([p[0] for p in points], [number(p[1], "roofline_fraction") for p in points], marker="o",
                label=f"{form} {var}")
    ax.axhline(0.8, color="gray", linestyle="--", linewidth=1)
    finish(fig, ax, out, "roofline.png", "degree", "model bytes / time / copy bandwidth",
           f"fraction of the copy roofline (largest size), {device}")

    fig, ax = plt.subplots(figsize=(9, 6))
    for (form, var), points in sorted(by_variant.items()):
        points.sort(key=lambda p: p[0])
        ax.plot([p[0] for p in points], [number(p[1], "gdofs_per_s") for p in points], marker="o",
                label=f"gpumf {form} {var}")
        cpu = [(p[0], number(p[1], "cpu_gdofs_per_s")) for p in points if number(p[1], "cpu_gdofs_per_s")]
        if cpu:
            what = "Trilinos matrix" if points[0][1]["implementation"] == "csr" else "MatrixFree"
            ax.plot(*zip(*cpu), marker="x", linestyle=":",
                    label=f"deal.II CPU {what} {form} {points[0][1]['mesh']} ({points[0][1].get('cpu_ranks', '?')} "
                          f"MPI ranks, SIMD width {points[0][1].get('cpu_simd_width', '?')})")
    ax.set_yscale("log")
    with_cpu = any(number(r, "cpu_gdofs_per_s") for r in vmult)
    finish(fig, ax, out, "gpu_vs_cpu.png", "degree", "GDoF/s",
           f"GPU ({device}) vs deal.II CPU MatrixFree, largest size" if with_cpu else f"gpumf on {device}, largest size")

    # set-up against size: what a program pays before its first vmult, GPU (gpumf) and CPU (deal.II)
    setup = defaultdict(list)
    for r in vmult:
        key = (r["form"], int(r["degree"]), variant(r))
        setup[key].append((number(r, "dofs"), number(r, "setup_seconds"), number(r, "cpu_setup_seconds")))
    fig, ax = plt.subplots(figsize=(9, 6))
    for (form, degree, var), points in sorted(setup.items()):
        points.sort()
        line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"GPU {form} p={degree} {var}")
        cpu = [(p[0], p[2]) for p in points if p[2]]
        if cpu:
            ax.plot(*zip(*cpu), marker="x", linestyle=":", color=line.get_color(), label=f"CPU {form} p={degree} {var}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    finish(fig, ax, out, "setup.png", "DoFs", "set-up seconds (operator or assembled matrix, + diagonal)",
           f"set-up: gpumf on {device} (o) and deal.II on the CPU (x)")

    # the largest problem one GPU holds at each variant's bytes per DoF
    fits = [r for r in rows if number(r, "max_dofs")]
    if fits:
        series = defaultdict(dict)
        for r in fits:
            series[(r["form"], r["what"] == "vmult", variant(r))][int(r["degree"])] = number(r, "max_dofs")
        fig, ax = plt.subplots(figsize=(9, 6))
        for (form, vmult_only, var), points in sorted(series.items()):
            if not vmult_only:
                degrees = sorted(points)
                ax.plot(degrees, [points[d] for d in degrees], marker="o", label=f"{form} {var}")
        ax.set_yscale("log")
        finish(fig, ax, out, "memory.png", "degree", "DoFs (device memory / bytes per DoF, CG's 6 vectors included)",
               f"largest problem that fits one GPU, {device}")

    cg = [r for r in rows if r["what"] in ("cg", "cg-fused", "cg-fused-unfolded")]
    if cg:
        series = defaultdict(list)
        for r in cg:
            series[(r["form"], r["what"], variant(r))].append((int(r["degree"]), number(r, "gdofs_per_s")))
        fig, ax = plt.subplots(figsize=(9, 6))
        for (form, what, var), points in sorted(series.items()):
            points.sort()
            ax.plot(*zip(*points), marker="o", label=f"{form} {what} {var}")
        finish(fig, ax, out, "cg.png", "degree", "GDoF x iterations / s (CG with Jacobi)", f"CG throughput, {device}")

    sweeps = [r for r in rows if r["what"] == "sweep" and number(r, "gdofs_per_s")]
    if sweeps:
        fig, ax = plt.subplots(figsize=(9, 6))
        sizes = sorted({number(r, "dofs") for r in sweeps})
        names = sorted({r["implementation"] for r in sweeps})
        width = 0.8 / (len(names) + 1)
        for k, name in enumerate(names):
            values = {number(r, "dofs"): number(r, "gdofs_per_s") for r in sweeps if r["implementation"] == name}
            ax.bar([i + k * width for i in range(len(sizes))], [values.get(n, 0) for n in sizes], width,
                   label=f"gpumf MultiColorGaussSeidel, {name}")
        cpu = {number(r, "dofs"): number(r, "cpu_gdofs_per_s") for r in sweeps if number(r, "cpu_gdofs_per_s")}
        if cpu:
            ranks = next(r.get("cpu_ranks", "?") for r in sweeps if number(r, "cpu_gdofs_per_s"))
            ax.bar([i + len(names) * width for i in range(len(sizes))], [cpu.get(n, 0) for n in sizes], width,
                   label=f"deal.II TrilinosWrappers::PreconditionSOR, {ranks} MPI ranks")
        ax.set_xticks([i + 0.4 for i in range(len(sizes))])
        ax.set_xticklabels([f"{n:.3g} DoFs" for n in sizes])
        ax.set_yscale("log")
        finish(fig, ax, out, "sweep.png", "problem size", "GDoF/s (DoFs updated per second, one forward sweep)",
               f"Gauss-Seidel sweep, Q1 Laplacian, {device}")


if __name__ == "__main__":
    main()
