#!/usr/bin/env bash
# The part of test.sh that runs inside the Debian 13 root (scripts/debian13.sh): deal.II 9.6,
# host-only build and host tests; with CUDA, the nvcc-compiled objects against deal.II 9.6.
set -euo pipefail
cd "$(dirname "$0")/.."
# CI (CI=true), on its 2-core budget (build/ ran every test against deal.II 9.4 on 1 to 3 ranks):
# the library, and the tests whose code meets the interfaces that differ between deal.II 9.4 and
# 9.6 (the Portable:: dialect, step-64's and the other tutorials' ports of 9.6's sources,
# constraints and hanging nodes, VectorTools, geometry, multigrid transfer, faces, deal.II's
# MatrixFree as the reference, the installed package, the compile-time messages), on one rank
# (what several ranks add, the exchange and its set-up, is gpumf's own code).
all_programs=ON
tests=(-L host)
if [ "${CI:-}" = true ]; then
  all_programs=OFF
  families='portable|step64|constraints|vector_tools|geometry|multigrid|dg|helmholtz_example|exceptions|step37|step48|step48_3d|step66|install|dealii_host_functions'
  tests=(-L host -E '\.mpi[2-9]$' -R "^($families)(\.|$)")
  targets=(portable_test step64_port step64_dealii_cpu cuda_available constraints_test vector_tools_test geometry_test
           multigrid_test dg_test helmholtz_example_test exceptions_test step37_port step37_dealii step48_port
           step48_dealii step66_port step66_dealii)
fi
cmake -S . -B build-debian13 -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=OFF \
      -DGPUMF_BENCH_MAX_DEGREE=2 -DGPUMF_BENCH_MAX_CPU_DEGREE=2 -DGPUMF_BUILD_ALL_PROGRAMS=$all_programs > /dev/null
cmake --build build-debian13 ${targets:+--target "${targets[@]}"}
(cd build-debian13 && ctest --output-on-failure -j "$(nproc)" "${tests[@]}" "$@")
if [ -x /usr/local/cuda/bin/nvcc ]; then
  # nvcc: the library's kernels, and the sources that include deal.II's headers, portable_test and
  # deal.II 9.6's step-64 port; each object by its own command, at most one per core (ninja would
  # first build the whole library, whose C++ files build-debian13 above compiled; nothing here
  # can run without a GPU)
  echo "gpumf: nvcc against deal.II 9.6 in build-debian13-cuda/ (the library's kernels, portable_test, step-64)"
  cmake -S . -B build-debian13-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUMF_WITH_CUDA=ON \
        -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > /dev/null
  # step-64's port from deal.II 9.6's tutorial (its sed command)
  (cd build-debian13-cuda && eval "$(ninja -t commands examples/step-64/step-64.cu | tail -n 1)")
  mapfile -t objects < <(cd build-debian13-cuda && ninja -t targets all |
    sed -n 's#^\(\(source\|tests/CMakeFiles/portable_test\.dir\|examples/step-64/CMakeFiles\)/[^:]*\.cu\.o\): .*#\1#p')
  [ "${#objects[@]}" -ge 3 ] || { echo "gpumf: no nvcc objects found in build-debian13-cuda/"; exit 1; }
  # shellcheck disable=SC2016
  printf '%s\n' "${objects[@]}" | xargs -P "$(nproc)" -n 1 bash -c '
    set -euo pipefail
    command=$(ninja -C build-debian13-cuda -t commands "$1" | tail -n 1)
    case "$command" in
      *nvcc*) ;;
      *) echo "gpumf: no nvcc command for $1 in build-debian13-cuda/"; exit 1 ;;
    esac
    echo "gpumf: nvcc $1"
    mkdir -p "build-debian13-cuda/$(dirname "$1")"
    cd build-debian13-cuda && eval "$command"' _
  echo "gpumf: nvcc against deal.II 9.6: done"
fi
