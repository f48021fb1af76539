#!/usr/bin/env bash
# install_test.sh <build dir> <source dir>: installs gpumf into a temporary prefix, then
# builds the Helmholtz example as a separate project with find_package(gpumf) and runs one
# cycle on the host backend.
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
# on failure, show what the failing step printed
trap 'status=$?; [ $status -eq 0 ] || tail -n 40 "$work"/*.log; rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/examples/helmholtz" -B "$work/app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/app" > "$work/build.log"
GPUMF_BACKEND=host "$work/app/helmholtz" --cycles 1 2>/dev/null | tee "$work/run.log"
grep -q "Cycle 0: 56 cells" "$work/run.log"
echo "1 passed, 0 failed"
