#!/usr/bin/env bash
# misuse_message.sh <build folder> <target> <expected message>...: builds <target> (a misuse that
# must not compile) and passes when the build fails with a compile-time error matching each
# expected message (grep patterns).
set -uo pipefail
build=$1 target=$2
shift 2
output=$(cmake --build "$build" --target "$target" 2>&1)
status=$?
echo "$output" | grep -E "error" | cut -c1-400
if [ $status -eq 0 ]; then
  echo "FAILED: the misuse compiled"
  exit 1
fi
passed=0
for expected in "$@"; do
  if ! echo "$output" | grep -q -- "$expected"; then
    echo "FAILED: no compile-time message matching '$expected'"
    exit 1
  fi
  passed=$((passed + 1))
done
echo "$passed passed, 0 failed"
