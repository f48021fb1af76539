#!/usr/bin/env bash
# test-root.sh <root> [ctest arguments]: the part of test.sh that runs inside a Debian root that
# scripts/debian-root.sh makes: that root's deal.II, the host-only build and its host tests; with
# CUDA, the objects nvcc compiles against that deal.II.
#   debian13  deal.II 9.6.2: build-debian13/ (host), build-debian13-cuda/ (nvcc with g++ 14)
#   sid       deal.II 9.8.0: build-sid/ (host), build-sid-cuda/ (nvcc with g++ 15: nvcc 13.0
#             refuses sid's g++ 16)
#
# CI (CI=true) on its 2-core budget (the split is in doc/testing.md): deal.II 9.8, the newest,
# builds every test program and runs every host test on 1 and 2 ranks; deal.II 9.6 builds the
# library and the tests of its dialect, its step-64 port and the vectors' exchange with deal.II's
# and runs them on one rank. Where CUDA is installed, deal.II 9.8's root compiles with nvcc the library's kernels,
# portable_test and the step-64 port, and builds and runs nvcc_layout_test (in CI too: the nvcc
# check); deal.II 9.6's outside CI only.
# Without CI=true: every test program and every host test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-}
shift || true
case "$root" in
  debian13) build=build-debian13 cuda_host_compiler=g++ ;;
  sid) build=build-sid cuda_host_compiler=g++-15 ;;
  *)
    echo "usage: scripts/test-root.sh debian13|sid [ctest arguments] (inside that root: scripts/debian-root.sh)" >&2
    exit 2
    ;;
esac
all_programs=OFF # the test programs and what they run (GPUMF_TEST_ALL_PROGRAMS=1: every program)
[ "${GPUMF_TEST_ALL_PROGRAMS:-0}" = 1 ] && all_programs=ON
tests=(-L host)
targets=()
if [ "${CI:-}" = true ]; then
  if [ "$root" = debian13 ]; then
    families='portable|step64|vector'
    tests=(-L host -E '\.mpi[2-9]$' -R "^($families)(\.|$)")
    targets=(portable_test step64_port step64_dealii_cpu cuda_available vector_test)
  else
    tests=(-L host -E '\.mpi[3-9]$') # every host test on 1 and 2 ranks
  fi
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=OFF \
      -DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 -DGPUMF_BUILD_ALL_PROGRAMS=$all_programs > /dev/null
cmake --build "$build" ${targets[@]+--target "${targets[@]}"}
(cd "$build" && ctest --output-on-failure -j "$(nproc)" "${tests[@]}" "$@")
nvcc=/usr/local/cuda/bin/nvcc
[ -x /opt/gpumf-cuda/bin/nvcc ] && nvcc=/opt/gpumf-cuda/bin/nvcc # scripts/debian-root.sh: glibc 2.42's rsqrt
if [ -x "$nvcc" ] && { [ "$root" = sid ] || [ "${CI:-}" != true ]; }; then
  # nvcc: the library's kernels, and the sources that include deal.II's headers, portable_test and
  # step-64's port; each object by its own command, at most one per core (ninja would first build
  # the whole library, whose C++ files the host build above compiled; nothing here can run
  # without a GPU)
  cuda_build=$build-cuda
  echo "gpumf: nvcc against this root's deal.II in $cuda_build/ (the library's kernels, portable_test, step-64)"
  cmake -S . -B "$cuda_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=ON \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_HOST_COMPILER="$cuda_host_compiler" > /dev/null
  # step-64's port from the root's deal.II's tutorial (its sed command)
  (cd "$cuda_build" && eval "$(ninja -t commands examples/step-64/step-64.cu | tail -n 1)")
  mapfile -t objects < <(cd "$cuda_build" && ninja -t targets all |
    sed -n 's#^\(\(source\|tests/CMakeFiles/portable_test\.dir\|examples/step-64/CMakeFiles\)/[^:]*\.cu\.o\): .*#\1#p')
  [ "${#objects[@]}" -ge 3 ] || { echo "gpumf: no nvcc objects found in $cuda_build/"; exit 1; }
  # shellcheck disable=SC2016
  printf '%s\n' "${objects[@]}" | xargs -P "$(nproc)" -n 1 bash -c '
    set -euo pipefail
    command=$(ninja -C "$0" -t commands "$1" | tail -n 1)
    case "$command" in
      *nvcc*) ;;
      *) echo "gpumf: no nvcc command for $1 in $0/"; exit 1 ;;
    esac
    echo "gpumf: nvcc $1"
    mkdir -p "$0/$(dirname "$1")"
    cd "$0" && eval "$command"' "$cuda_build"
  # deal.II's classes laid out alike by nvcc and g++ (Kokkos 5 reads __NVCC__): built and run,
  # no GPU needed
  cmake --build "$cuda_build" --target nvcc_layout_test
  "$cuda_build/tests/nvcc_layout_test"
  echo "gpumf: nvcc against this root's deal.II: done"
fi
