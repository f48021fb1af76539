#!/usr/bin/env bash
# The sweep behind doc/performance.md: sweep.sh <gpumf_benchmark> <output-directory> [part...]
# Parts (default: all): degrees, targets, conflicts, blocks, implementations, cg, sizes, large, 2d,
# sparse, sparse2d, largest (the assembled matrix and the largest problems).
# Each part writes <output-directory>/<part>.csv; plot.py draws them. The degree sweeps need the
# benchmark configured with -DGPUMF_BENCH_MAX_DEGREE=15 -DGPUMF_BENCH_MAX_CPU_DEGREE=8 (default 4).
set -euo pipefail
bench=$1 out=$2
shift 2
parts=${*:-degrees targets conflicts blocks implementations cg sizes large 2d sparse sparse2d largest}
mkdir -p "$out"
run() { local name=$1; shift; echo "== $name: $*"; "$bench" "$@" --csv "$out/$name.csv"; }
for part in $parts; do
  case $part in
    # every degree, stored and affine geometry, ~4M DoFs (no cliff from degree 1 to 15)
    degrees) run degrees --forms bp5,bp3 --degrees 1-15 --dofs 4e6 --geometry stored,affine --layouts ready,points --numbers double,float \
               --cpu-ranks 0 ;;
    # the targets: >= 20M DoFs, degrees 4-8, stored and affine geometry, vs deal.II on all host cores (MPI ranks)
    targets) run targets --forms bp1,bp3,bp5 --degrees 4,6,8 --dofs 2e7 --geometry stored,affine --repeat 10 ;;
    # atomics vs coloring vs no protection
    conflicts) run conflicts --forms bp5,bp3 --degrees 2,4,7 --dofs 2e7 --geometry affine \
                 --conflicts atomics,coloring,none --cpu-ranks 0 ;;
    # several cells per block at low degree vs one
    blocks) run blocks --forms bp5,bp3 --degrees 1,2,3 --dofs 4e6 --geometry affine,stored \
              --cells-per-block 0,1 --cpu-ranks 0 ;;
    # element matrices vs sum factorization
    implementations) run implementations --forms bp1,bp3,helmholtz --degrees 1,2,3 --dofs 8e6 \
                       --implementations tp,lm --mesh cartesian,deformed --cpu-ranks 0 ;;
    # CG with Jacobi: deal.II's SolverCG vs gpumf's fused SolverCG, vs deal.II CPU
    cg) run cg --forms bp5 --degrees 2,4,7 --dofs 2e7 --geometry affine,stored --what cg,cg-fused \
          --cg-iterations 50 ;;
    # throughput against size
    sizes) run sizes --forms bp5,bp3 --degrees 2,4,7 --dofs 1e4,1e5,1e6,4e6,1.6e7,4e7 --geometry affine \
             --cpu-ranks 0 ;;
    # 10^8 DoFs
    large) run large --forms bp5 --degrees 4,7 --dofs 1e8 --geometry affine,stored --cpu-ranks 0 --repeat 10 ;;
    # 2D and a deformed mesh
    2d) run 2d --dim 2 --forms bp5,bp3 --degrees 1-8 --dofs 1e7 --mesh cartesian,deformed --cpu-ranks 0 ;;
    # matrix-free vs the assembled matrix (cuSPARSE; Trilinos on the CPU ranks), 3D Cartesian and deformed
    sparse) run sparse --forms bp3,bp5 --degrees 1-4 --dofs 2e6 --implementations tp,csr --geometry stored,affine \
              --mesh cartesian,deformed --what vmult,cg --repeat 10 ;;
    sparse2d) run sparse2d --dim 2 --forms bp3 --degrees 1-4 --dofs 2e6 --implementations tp,csr \
                --geometry stored,affine --repeat 10 ;;
    # the largest problems run on one H200 (max_dofs of the sparse part: what would fit)
    largest) run largest-csr --forms bp3 --degrees 2 --dofs 2e7 --implementations csr --what cg --cpu-ranks 0 \
               --repeat 10 --cg-iterations 20
             run largest-stored --forms bp3 --degrees 4 --dofs 1.3e8 --geometry stored --what cg --cpu-ranks 0 \
               --repeat 10 --cg-iterations 20
             run largest-affine --forms bp3 --degrees 4 --dofs 4.5e8 --geometry affine --what cg --cpu-ranks 0 \
               --repeat 10 --cg-iterations 20 ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done
