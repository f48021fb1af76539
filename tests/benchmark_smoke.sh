#!/usr/bin/env bash
# benchmark_smoke.sh <gpumf_benchmark> <host|cuda> <cuda_available>: runs the benchmark on a
# tiny 2D and 3D problem with every option, and checks that its CSV has a measured row for
# every case that applies (and a reason for every one that does not), with deal.II's CPU
# figures on 2 MPI ranks (dealii_benchmark, launched by the benchmark) and 1 thread; the
# assembled matrix (csr) against Trilinos' on the same 2 ranks.
set -euo pipefail
bench=$1 backend=$2 cuda_available=$3
if [ "$backend" = cuda ] && ! "$cuda_available"; then
  echo "no usable GPU: skipped"; exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for dim in 2 3; do
  "$bench" --backend "$backend" --dim $dim --forms bp1,bp3,bp5,helmholtz --degrees 1,2 --dofs 300 \
    --mesh cartesian,deformed --implementations tp,lm,csr --conflicts atomics,coloring,none \
    --geometry stored,affine --cells-per-block 0,1 --layouts ready,points --what vmult,cg,cg-fused,cg-fused-unfolded --repeat 2 --cg-iterations 3 \
    --cpu-ranks 2 --cpu-threads 1 --csv "$out/$dim.csv" --json "$out/$dim.json" > "$out/$dim.log"
done
# float: measured for the ready operator's vmult with atomics or coloring in 3D, skipped otherwise
for dim in 2 3; do
  "$bench" --backend "$backend" --dim $dim --forms bp3,bp5 --degrees 1,2 --dofs 300 --mesh cartesian \
    --implementations tp,lm --conflicts atomics,coloring,none --geometry stored,affine --layouts ready,points \
    --what vmult,cg --numbers float --repeat 2 --cg-iterations 3 --cpu-ranks 2 --cpu-threads 1 --csv "$out/float$dim.csv" \
    > "$out/float$dim.log"
done
# the stencils: measured for bp3 at degree 1 on the cartesian mesh (vmult), a reason otherwise
for dim in 2 3; do
  "$bench" --backend "$backend" --dim $dim --forms bp1,bp3 --degrees 1,2 --dofs 300 --mesh cartesian,deformed \
    --implementations stencil-constant,stencil-semi,stencil-variable --what vmult,cg --repeat 2 --cpu-ranks 0 \
    --csv "$out/stencil$dim.csv" > "$out/stencil$dim.log"
done
# the adaptive meshes (hanging nodes; the shell curved): sum factorization with both conflict
# strategies, stored and affine geometry, beside deal.II's CPU MatrixFree on 2 ranks
for dim in 2 3; do
  "$bench" --backend "$backend" --dim $dim --forms bp3,bp5 --degrees 1,2 --dofs 5000 --mesh cube-adaptive,shell-adaptive \
    --implementations tp --conflicts atomics,coloring --geometry stored,affine --what vmult --repeat 2 --cpu-ranks 2 \
    --cpu-threads 0 --csv "$out/adaptive$dim.csv" > "$out/adaptive$dim.log"
done
python3 - "$out" <<'PY'
import csv, glob, json, sys
out = sys.argv[1]
bad = 0
# a benchmark built without the degrees or dimensions run here (GPUMF_BENCH_DEGREES, _DIMS) skips
# their cases: say so, rather than check rows that could not be measured
missing = sorted({r["note"] for f in glob.glob(f"{out}/*.csv") for r in csv.DictReader(open(f))
                  if "not compiled in" in r.get("note", "")})
if missing:
    print("this test runs degrees 1 and 2 in 2D and 3D, but the benchmark was built without some of them:")
    for note in missing:
        print("  " + note)
    print("configure with the defaults (or GPUMF_BENCH_DEGREES and GPUMF_BENCH_DIMS that include them)")
    sys.exit(1)
for dim in (2, 3):
    rows = list(csv.DictReader(open(f"{out}/adaptive{dim}.csv")))
    if len(rows) != 2 * 2 * 2 * 2 * 2:
        print(f"{dim}d adaptive: {len(rows)} rows"); bad += 1
    for r in rows:
        measured = r["seconds"] != ""
        applies = not (r["geometry"] == "affine" and r["mesh"] == "shell-adaptive")
        if measured != applies or (not measured and not r["note"]):
            print(f"{dim}d adaptive: unexpected row {r}"); bad += 1
        if not 0 < float(r["hanging_share"]) < 1:
            print(f"{dim}d adaptive: hanging_share {r['hanging_share']} in {r}"); bad += 1
        if measured and not (float(r["gdofs_per_s"]) > 0 and float(r["setup_seconds"]) > 0
                             and float(r["cpu_seconds"]) > 0 and r["cpu_ranks"] == "2"):
            print(f"{dim}d adaptive: figures wrong in {r}"); bad += 1
    print(f"{dim}d adaptive: {len(rows)} rows checked")
for dim in (2, 3):
    rows = list(csv.DictReader(open(f"{out}/stencil{dim}.csv")))
    if len(rows) != 2 * 2 * 2 * 3 * 2:
        print(f"{dim}d stencil: {len(rows)} rows"); bad += 1
    for r in rows:
        measured = r["seconds"] != ""
        applies = r["form"] == "bp3" and r["degree"] == "1" and r["mesh"] == "cartesian" and r["what"] == "vmult"
        if measured != applies or (not measured and not r["note"]):
            print(f"{dim}d stencil: unexpected row {r}"); bad += 1
        if measured and not (r["implementation"].startswith("stencil-") and float(r["gdofs_per_s"]) > 0
                             and float(r["roofline_fraction"]) > 0 and float(r["setup_seconds"]) > 0):
            print(f"{dim}d stencil: figures wrong in {r}"); bad += 1
    print(f"{dim}d stencil: {len(rows)} rows checked")
for dim in (2, 3):
    rows = list(csv.DictReader(open(f"{out}/{dim}.csv")))
    assert len(json.load(open(f"{out}/{dim}.json"))) == len(rows), "JSON and CSV differ"
    # 4 forms x 2 degrees x 2 meshes x 3 impl x 3 conflicts x 2 geometries x 2 cpb x 2 layouts x 4 whats
    expected = 4 * 2 * 2 * 3 * 3 * 2 * 2 * 2 * 4
    if len(rows) != expected:
        print(f"{dim}d: {len(rows)} rows, expected {expected}"); bad += 1
    n_csr = 0
    for r in rows:
        measured = r["seconds"] != ""
        if r["implementation"] == "csr" or r["geometry"] == "assembled":
            # measured once: with the first conflict, geometry, cells per block and layout
            applies = r["conflict"] == "atomics" and r["geometry"] in ("stored", "assembled") and \
                      r["cells_per_block"] == "0" and r["layout"] == "ready"
            if measured != applies or (not measured and not r["note"]):
                print(f"{dim}d: unexpected csr row {r}"); bad += 1
            # (no CPU figures where deal.II's Trilinos has no Epetra: the note says so)
            no_epetra = "no Epetra" in r["note"]
            if measured and not (r["implementation"] == "csr" and r["geometry"] == "assembled"
                                 and float(r["gdofs_per_s"]) > 0 and float(r["copy_gb_per_s"]) > 0
                                 and float(r["setup_seconds"]) > 0 and float(r["bytes_per_dof"]) > 0
                                 and float(r["gflop_per_s"] or 1) > 0
                                 and (no_epetra and r["cpu_seconds"] == "" or
                                      r["cpu_ranks"] == "2" and float(r["cpu_seconds"]) > 0
                                      and float(r["cpu_setup_seconds"]) > 0)
                                 and r["cpu_threads_seconds"] == ""
                                 and (r["max_dofs"] != "") == (r["backend"] == "cuda")):
                print(f"{dim}d: missing csr figures in {r}"); bad += 1
            n_csr += measured
            continue
        applies = not (r["geometry"] == "affine" and r["mesh"] == "deformed") and \
                  not ((r["conflict"] == "none" or r["layout"] == "points") and r["implementation"].startswith("lm")) and \
                  not (r["layout"] == "points" and r["what"] != "vmult")
        if measured != applies or (not measured and not r["note"]):
            print(f"{dim}d: unexpected row {r}"); bad += 1
        if measured and not (float(r["gdofs_per_s"]) > 0 and float(r["copy_gb_per_s"]) > 0
                             and float(r["cpu_seconds"]) > 0 and float(r["setup_seconds"]) > 0
                             and float(r["bytes_per_dof"]) > 0 and r["cpu_ranks"] == "2"
                             and float(r["cpu_setup_seconds"]) > 0 and float(r["cpu_threads_seconds"]) > 0
                             and int(r["cpu_simd_width"]) >= 1):
            print(f"{dim}d: missing figures in {r}"); bad += 1
        # the host's copy roofline of the CPU job, and deal.II's fraction of it in the vmult rows
        # whose geometry is deal.II's (affine on the cartesian mesh, stored on the deformed one)
        dealii_geometry = r["geometry"] == ("affine" if r["mesh"] in ("cartesian", "cube-adaptive") else "stored")
        if measured and not (float(r["cpu_copy_gb_per_s"]) > 0 and
                             (r["cpu_roofline_fraction"] != "") == (r["what"] == "vmult" and dealii_geometry) and
                             float(r["cpu_roofline_fraction"] or 1) > 0):
            print(f"{dim}d: host roofline columns wrong in {r}"); bad += 1
        # deal.II at full SIMD width: where dealii_benchmark_native is built and the CPU has AVX-512
        # (not in CI), every column of it, else none
        native = [r[c] for c in ("cpu_native_simd_width", "cpu_native_seconds", "speedup_vs_cpu_native",
                                 "cpu_native_copy_gb_per_s")]
        try:
            native_ok = all(v == "" for v in native) or (int(native[0]) > 1 and all(float(v) > 0 for v in native[1:]))
        except ValueError:
            native_ok = False
        if measured and not native_ok:
            print(f"{dim}d: native SIMD columns wrong in {r}"); bad += 1
    # 4 forms x 2 degrees x 2 meshes x 4 whats
    if n_csr != 4 * 2 * 2 * 4:
        print(f"{dim}d: {n_csr} csr rows measured, expected {4 * 2 * 2 * 4}"); bad += 1
    print(f"{dim}d: {len(rows)} rows checked ({n_csr} of the assembled matrix)")
    rows = list(csv.DictReader(open(f"{out}/float{dim}.csv")))
    # 2 forms x 2 degrees x 2 impl x 3 conflicts x 2 geometries x 2 layouts x 2 whats
    if len(rows) != 2 * 2 * 2 * 3 * 2 * 2 * 2:
        print(f"{dim}d float: {len(rows)} rows"); bad += 1
    for r in rows:
        measured = r["seconds"] != ""
        applies = dim == 3 and r["number"] == "float" and r["what"] == "vmult" and r["conflict"] != "none" and \
                  r["layout"] == "ready" and r["implementation"] == "tp"
        if measured != applies or (not measured and not r["note"]):
            print(f"{dim}d float: unexpected row {r}"); bad += 1
        if measured and not (float(r["gdofs_per_s"]) > 0 and float(r["setup_seconds"]) > 0
                             and r["cpu_seconds"] == "" and float(r["model_bytes"]) > 0):
            print(f"{dim}d float: figures wrong in {r}"); bad += 1
    print(f"{dim}d float: {len(rows)} rows checked")
sys.exit(1 if bad else 0)
PY
echo "benchmark smoke test passed"
