#!/usr/bin/env bash
# Builds everything and runs the test suite (arguments go to ctest) against both deal.II versions
# gpumf supports. GPU tests report "Skipped" without a GPU.
#
# 1. build/: Debian 12's deal.II 9.4, the CUDA backend where nvcc is found (else host-only); all tests
#    (CI=true: host-only, the host tests).
# 2. build-debian13/: deal.II 9.6 in a Debian 13 root (scripts/debian13.sh makes it at the first run
#    and keeps it), the host-only configuration (-DGPUMF_WITH_CUDA=OFF: what a machine without CUDA
#    builds); its host tests (with CI=true those whose code meets the interfaces that differ
#    between the versions, on one rank: scripts/test-debian13.sh). A library call that reaches a
#    CUDA kernel without the host-only guard, code that compiles only with nvcc, or code that
#    compiles only against one deal.II, fails here. Its benchmark is compiled to degree 2.
# 3. build-debian13-cuda/: where CUDA is installed, the library's kernels, the 9.5+ dialect's test
#    and deal.II 9.6's step-64 port compiled by nvcc against deal.II 9.6's headers (run on a GPU by hand:
#    doc/testing.md).
# GPUMF_SKIP_DEBIAN13=1 skips 2 and 3 (e.g. on a machine where chroot and mount are not allowed).
set -euo pipefail
cd "$(dirname "$0")/.."
# CI (CI=true) builds what its tests run: the benchmark for the degrees its smoke test runs (1
# and 2), as build-debian13/ does, and none of the example and benchmark programs that no test
# runs (-DGPUMF_BUILD_ALL_PROGRAMS=OFF: the tests compile the tutorials' ports from the same
# sed scripts; the kernel lab and the scaling, multigrid and set-up benchmarks need a GPU to
# say anything). Each of those is minutes of nvcc on a 2-core machine.
# CI has no GPU: its build/ is the host-only configuration (the GPU tests could only be skipped;
# nvcc compiles each test program's device code besides its host code, twice the time), and the
# nvcc check is the Debian 13 part's (scripts/test-debian13.sh: the library's kernels,
# portable_test and step-64 against deal.II 9.6).
configure=()
tests=()
if [ "${CI:-}" = true ]; then
  configure=(-DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 -DGPUMF_BUILD_ALL_PROGRAMS=OFF -DGPUMF_WITH_CUDA=OFF)
  tests=(-L host)
fi
bash scripts/build.sh "${configure[@]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# tests in parallel on all cores (an MPI test takes as many as it has ranks)
(cd build && ctest --output-on-failure -j "$(nproc)" ${tests[@]+"${tests[@]}"} "$@")
if [ "${GPUMF_SKIP_DEBIAN13:-0}" = 1 ]; then
  echo "gpumf: GPUMF_SKIP_DEBIAN13=1: deal.II 9.6 (Debian 13 root) not tested"
  exit 0
fi
if [ "$(cut -d. -f1 /etc/debian_version 2>/dev/null)" -ge 13 ] 2>/dev/null || grep -q '^VERSION_CODENAME=trixie' /etc/os-release; then
  echo "gpumf: this system is Debian 13 or newer: build/ was its deal.II; no Debian 13 root needed"
  exit 0
fi
echo "gpumf: deal.II 9.6 in a Debian 13 root: the host-only configuration in build-debian13/"
bash scripts/debian13.sh bash scripts/test-debian13.sh "$@"
