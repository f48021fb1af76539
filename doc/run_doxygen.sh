#!/bin/sh
# run_doxygen.sh <doxygen or ""> <Doxyfile> <output directory>: the ctest test "doxygen" (doc/CMakeLists.txt).
# Runs doxygen on gpumf's public headers; fails (exit 1) on any warning, which the Doxyfile's
# WARN_AS_ERROR = FAIL_ON_WARNINGS turns into a non-zero exit status and which this script also
# catches on doxygen's output; exits 77 (ctest: Skipped) when CMake found no doxygen.
set -u
doxygen=$1
doxyfile=$2
output=$3
if [ -z "$doxygen" ] || ! command -v "$doxygen" >/dev/null 2>&1; then
  echo "gpumf: doxygen not found (Debian: apt-get install doxygen, then re-run cmake): test skipped"
  exit 77
fi
mkdir -p "$output" || exit 1
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
start=$(date +%s)
"$doxygen" "$doxyfile" >"$log" 2>&1
status=$?
end=$(date +%s)
cat "$log"
warnings=$(grep -c -i 'warning:\|error:' "$log")
echo "gpumf: $("$doxygen" --version) on the public headers: exit status $status, $warnings warning(s), $((end - start)) s;" \
     "HTML in $output/html/index.html"
[ "$status" -eq 0 ] && [ "$warnings" -eq 0 ]
