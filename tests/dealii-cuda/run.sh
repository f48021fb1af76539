#!/usr/bin/env bash
# run.sh <deal.II tests/cuda dir> <gpumf build dir> <work dir>
#
# Ports deal.II 9.4.1's own matrix-free tests (tests/cuda of the deal.II repository, with
# tests/tests.h one folder up; deal.II's files are not part of gpumf) to gpumf with port.sed
# alone, builds them as one CMake project against gpumf installed from <gpumf build dir>
# (find_package(gpumf), gpumf_add_executable: .cu compiled as C++ in a host-only gpumf),
# runs each on gpumf's host backend (GPUMF_BACKEND, default host) with the MPI ranks of each
# of deal.II's expected outputs (*.mpirun=N.output) and compares the deallog file `output`
# with deal.II's as deal.II's test suite does (compare.py: numdiff -a 1e-6 -r 1e-8).
# Writes <work dir>/results.txt, one line a test:
#   PASS | DIFF (largest difference) | COMPILE-FAIL (first error) | RUN-FAIL (first cause)
# Environment: TESTS (names without .cu; default: the matrix-free tests below), JOBS
# (parallel compilations, default 2), GPUMF_PREFIX (an installed gpumf: skips the install),
# TIMEOUT (seconds per run, default 900), GPUMF_BACKEND (default host), EXTRA_SED (sed
# scripts applied after port.sed, to try changes beyond the mechanical ones).
# Exit status 0 when every test passes.
set -uo pipefail
[ $# -eq 3 ] || { sed -n '2,3p' "$0"; exit 2; }
mkdir -p "$3"
cuda_dir=$(realpath "$1") build=$(realpath "$2") work=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
export GPUMF_BACKEND=${GPUMF_BACKEND:-host}
jobs=${JOBS:-2}
timeout_s=${TIMEOUT:-900}

# deal.II 9.4.1's tests of CUDAWrappers::MatrixFree / FEEvaluation (the others in tests/cuda
# test CUDA vectors, sparse matrices, cuSOLVER, ArrayView and partitioners)
tests=${TESTS:-"coefficient_eval cuda_evaluate_1d_shape cuda_evaluate_2d_shape
  matrix_free_initialize_vector matrix_free_matrix_vector_01 matrix_free_matrix_vector_02
  matrix_free_matrix_vector_03 matrix_free_matrix_vector_03b matrix_free_matrix_vector_04
  matrix_free_matrix_vector_05 matrix_free_matrix_vector_06 matrix_free_matrix_vector_06a
  matrix_free_matrix_vector_06b matrix_free_matrix_vector_09 matrix_free_matrix_vector_10
  matrix_free_matrix_vector_10a matrix_free_matrix_vector_19 matrix_free_matrix_vector_25
  matrix_free_multiple_objects matrix_free_no_index_initialize matrix_free_reinit_01
  precondition_03"}

# 1. gpumf, installed as a user project finds it (tests/install_test.sh)
prefix=${GPUMF_PREFIX:-$work/prefix}
if [ -z "${GPUMF_PREFIX:-}" ]; then
  # the whole install needs the benchmarks built; without them: headers, package, library
  cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cmake -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LOCAL_ONLY=ON \
            -P "$build/cmake_install.cmake" &&
      cmake -DCMAKE_INSTALL_PREFIX="$prefix" -P "$build/source/cmake_install.cmake"; } \
      >> "$work/install.log" 2>&1 ||
    { echo "installing gpumf from $build failed: $work/install.log"; exit 2; }
fi

# 2. The ported sources: tests/cuda/*.cu and *.h through port.sed; tests.h & co. unchanged
rm -rf "$work/src" "$work/run"
mkdir -p "$work/src/cuda" "$work/run"
cp "$cuda_dir"/../*.h "$work/src/"
scripts=(-f "$here/port.sed")
for extra in ${EXTRA_SED:-}; do scripts+=(-f "$(realpath "$extra")"); done
for h in "$cuda_dir"/*.h; do
  sed "${scripts[@]}" "$h" > "$work/src/cuda/$(basename "$h")"
done
for t in $tests; do
  sed "${scripts[@]}" "$cuda_dir/$t.cu" > "$work/src/cuda/$t.cu"
done
cat > "$work/src/cuda/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(dealii_cuda_tests_on_gpumf LANGUAGES CXX)
find_package(gpumf REQUIRED)
if(GPUMF_WITH_CUDA)
  enable_language(CUDA)
endif()
foreach(t $(echo $tests))
  gpumf_add_executable(\${t} \${t}.cu)
endforeach()
EOF

# 3. Build every test (keep going past failures)
cmake -S "$work/src/cuda" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" 2>&1 ||
  { echo "configure failed: $work/configure.log"; tail -n 20 "$work/configure.log"; exit 2; }
ninja -C "$work/build" -k 0 -j "$jobs" > "$work/build.log" 2>&1

# The compiler's (or linker's) messages for target $1 in ninja's log
build_messages() {
  awk -v t="/$1.dir/" '
    /^FAILED: / { inblock = index($0, t) > 0; skip = 1; next }
    /^\[[0-9]+\/[0-9]+\] / || /^ninja: / { inblock = 0 }
    inblock { if (skip) { skip = 0; next } print }' "$work/build.log"
}

# The first cause of a failed run, from its stderr/stdout
run_cause() {
  local log=$1 rc=$2 cause
  cause=$(awk '/Additional information:/ { on = 1; next }
               on && (/^ *$/ || /^---/) { exit }
               on { sub(/^ +/, ""); printf "%s ", $0 }' "$log")
  [ -n "$cause" ] || cause=$(grep -m1 '^\*\*\* The ' "$log" | sed 's/^\*\*\* //')
  [ -n "$cause" ] || cause=$(awk '/The violated condition was:/ { getline; sub(/^ +/, ""); print "violated: " $0; exit }' "$log")
  [ -n "$cause" ] || cause=$(grep -m1 -E "what\(\)|terminate called|Segmentation|Abort|error" "$log")
  [ -n "$cause" ] || cause=$(grep -v '^ *$' "$log" | grep -v "^gpumf: .*host reference backend" | tail -n 1)
  [ $rc -gt 128 ] && [ $rc -ne 124 ] && cause="signal $((rc - 128)); $cause"
  [ $rc -eq 124 ] && cause="timeout after ${timeout_s} s; $cause"
  echo "${cause:0:300}"
}

# 4. Run and compare
results="$work/results.txt"
: > "$results"
report() { printf '%-62s %s\n' "$1" "$2" | tee -a "$results"; }
for t in $tests; do
  if [ ! -x "$work/build/$t" ]; then
    build_messages "$t" > "$work/build/$t.errors"
    first=$(grep -m1 -E "error:|error [0-9]+:|undefined reference" "$work/build/$t.errors" |
            sed -e "s|$work/src/||")
    report "$t" "COMPILE-FAIL ${first:-see $work/build.log}"
    continue
  fi
  if [ -f "$cuda_dir/$t.output" ]; then
    variants="$cuda_dir/$t.output"
  else
    variants=$(ls "$cuda_dir/$t".*.output 2> /dev/null)
  fi
  for expected in $variants; do
    ranks=$(basename "$expected" | sed -n 's/.*mpirun=\([0-9]*\).*/\1/p')
    name=$t${ranks:+ (mpirun=$ranks)}
    dir="$work/run/$t${ranks:+.mpirun$ranks}"
    mkdir -p "$dir"
    if [ -n "$ranks" ]; then
      launch=(mpirun --oversubscribe --allow-run-as-root -np "$ranks")
    else
      launch=()
    fi
    (cd "$dir" && timeout "$timeout_s" "${launch[@]}" "$work/build/$t" > stdout 2> stderr) 2> /dev/null
    rc=$?
    if [ $rc -ne 0 ]; then
      report "$name" "RUN-FAIL (exit $rc) $(cat "$dir/stderr" "$dir/stdout" > "$dir/log"; run_cause "$dir/log" $rc)"
    elif [ ! -f "$dir/output" ]; then
      report "$name" "RUN-FAIL no file 'output' written"
    elif verdict=$(/usr/bin/python3 "$here/compare.py" "$expected" "$dir/output"); then
      report "$name" "PASS ($verdict)"
    else
      report "$name" "DIFF $verdict"
    fi
  done
done
echo "results: $results; ported sources: $work/src/cuda; logs: $work/build.log, $work/run/*"
! grep -q -v " PASS " "$results"
