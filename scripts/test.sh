#!/usr/bin/env bash
# Builds and runs the test suite (arguments go to ctest) against the three deal.II versions gpumf
# supports. GPU tests report "Skipped" without a GPU.
#
# 1. build/: Debian 12's deal.II 9.4.1, the CUDA backend where nvcc is found (else host-only).
# 2. build-sid/: deal.II 9.8.0 in a Debian sid root (scripts/debian-sid.sh makes it at the first run,
#    about 4 minutes, and keeps it), host-only: what a machine without CUDA builds. Where CUDA is
#    installed, build-sid-cuda/: the library's kernels, portable_test and 9.8's step-64 port
#    compiled by nvcc against deal.II 9.8 (scripts/test-root.sh).
# 3. build-debian13/: deal.II 9.6.2 in a Debian 13 root (scripts/debian13.sh), host-only, and with
#    CUDA build-debian13-cuda/ as for 9.8.
#
# What each builds and runs, by default (a user's machine, with or without CUDA) and in CI
# (CI=true, no GPU), is in doc/testing.md, "What runs where". By default the test programs and
# what they run are built (the benchmark for the degrees its smoke test runs; not the example and
# benchmark programs that no test runs): GPUMF_TEST_ALL_PROGRAMS=1 builds every program too.
# GPUMF_SKIP_ROOTS=1 (or the older GPUMF_SKIP_DEBIAN13=1) skips 2 and 3 (a machine where chroot
# and mount are not allowed).
set -euo pipefail
cd "$(dirname "$0")/.."
configure=(-DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 -DGPUMF_BUILD_ALL_PROGRAMS=OFF)
if [ "${GPUMF_TEST_ALL_PROGRAMS:-0}" = 1 ]; then
  configure=(-DGPUMF_BENCH_MAX_DEGREE=8 -DGPUMF_BENCH_MAX_CPU_DEGREE=8 -DGPUMF_BUILD_ALL_PROGRAMS=ON)
fi
tests=()
targets=()
if [ "${CI:-}" = true ]; then
  # CI has no GPU: build/ is host-only (the GPU tests could only be skipped, and nvcc compiling
  # every test program's device code besides its host code takes twice the time). deal.II 9.8
  # (build-sid/) builds every test program and runs every host test; here deal.II 9.4 runs what
  # only it has: the ports of its own tutorials (step-59's exists for 9.4 alone) and its dialect;
  # and the API reference: doxygen on the public headers, any warning fails (it runs doxygen
  # itself, no build target; doc/CMakeLists.txt).
  configure+=(-DGPUMF_WITH_CUDA=OFF)
  families='portable|step64|step37|step48|step48_3d|step59|step59_2d|step66|helmholtz_example|dealii_host_functions|doxygen|readme_example|readme_excerpt'
  tests=(-L host -E '\.mpi[2-9]$' -R "^($families)(\.|$)")
  targets=(gpumf cuda_available portable_test step64_port step64_dealii_cpu step37_port step37_dealii step48_port
           step48_dealii step66_port step66_dealii helmholtz_example_test readme_example)
  # step-59's port exists for deal.II 9.4 alone (Debian 12's)
  [ "$(cut -d. -f1 /etc/debian_version 2>/dev/null)" -ge 13 ] 2>/dev/null || targets+=(step59_port step59_dealii)
fi
bash scripts/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${configure[@]}"
cmake --build build ${targets[@]+--target "${targets[@]}"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# tests in parallel on all cores (an MPI test takes as many as it has ranks)
(cd build && ctest --output-on-failure -j "$(nproc)" ${tests[@]+"${tests[@]}"} "$@")
if [ "${GPUMF_SKIP_ROOTS:-${GPUMF_SKIP_DEBIAN13:-0}}" = 1 ]; then
  echo "gpumf: GPUMF_SKIP_ROOTS=1: deal.II 9.8 (Debian sid root) and 9.6 (Debian 13 root) not tested"
  exit 0
fi
echo "gpumf: deal.II 9.8 in a Debian sid root: build-sid/"
bash scripts/debian-sid.sh bash scripts/test-root.sh sid "$@"
if [ "$(cut -d. -f1 /etc/debian_version 2>/dev/null)" -ge 13 ] 2>/dev/null || grep -q '^VERSION_CODENAME=trixie' /etc/os-release; then
  echo "gpumf: this system is Debian 13 or newer: build/ was its deal.II; no Debian 13 root needed"
  exit 0
fi
echo "gpumf: deal.II 9.6 in a Debian 13 root: build-debian13/"
bash scripts/debian13.sh bash scripts/test-root.sh debian13 "$@"
