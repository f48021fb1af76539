#!/usr/bin/env bash
# fault_test.sh <fault_test> <mpiexec> <backend> <ranks> [all]: runs fault_test.cc's faults under
# mpirun and checks that every run ends within the limit (30 s) with the right exit code: a fault on
# rank 1 ends all ranks with a non-zero code and rank 1's message ("fault_test: rank 1 failed" or,
# uncaught, std::terminate's "what():"); no fault, or one that every rank handles, exits 0.
# The exchange methods are those GPUMF_EXCHANGE takes on this backend. Without "all": each fault
# in the form that would hang without gpumf's limit (caught), the others in one method; with
# "all": every fault in every form and method (the GPU machine's run); GPUMF_FAULT_METHODS=m1,m2
# chooses the methods.
set -uo pipefail
program=$1 mpiexec=$2 backend=$3 ranks=$4 scope=${5:-ci}
limit=30
export GPUMF_BACKEND=$backend OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the limit on MPI_Finalize() of a rank that failed (default 20 s), short for the test
export GPUMF_FINALIZE_TIMEOUT=${GPUMF_FINALIZE_TIMEOUT:-2}
if [ "$backend" = cuda ]; then
  "$program" cuda none caught >/dev/null 2>&1 < /dev/null
  if [ $? = 77 ]; then echo "SKIPPED: no usable CUDA device"; exit 77; fi
  methods=(auto ipc staged_mpi)
else
  methods=(mpi ipc staged_mpi)
fi
# GPUMF_FAULT_METHODS=m1,m2: these methods only
[ -z "${GPUMF_FAULT_METHODS:-}" ] || IFS=, read -ra methods <<< "$GPUMF_FAULT_METHODS"
failed=0 passed=0
check() { # method fault form
  local method=$1 fault=$2 form=$3 inject= out rc start seconds
  [ "$fault" = loop ] && inject=loop:1
  out=$(mktemp)
  start=$(date +%s%N)
  GPUMF_EXCHANGE=$method GPUMF_FAULT_INJECT=$inject timeout -s KILL $((limit + 30)) \
    "$mpiexec" --oversubscribe -np "$ranks" "$program" "$backend" "$fault" "$form" > "$out" 2>&1 < /dev/null
  rc=$?
  local ms=$((($(date +%s%N) - start) / 1000000)) seconds
  seconds=$((ms / 1000)).$(((ms % 1000) / 100))
  local ok=1 why=""
  if [ "$fault" = none ] || [ "$fault" = recovered ]; then
    [ $rc = 0 ] || { ok=0; why="exit code $rc, expected 0"; }
    grep -q "fault_test: solved in" "$out" || { ok=0; why="$why; the solve did not finish"; }
  else
    [ $rc != 0 ] || { ok=0; why="exit code 0 after a fault"; }
    # deal.II breaks long messages into lines: read the output as one line
    tr -s '\n ' '  ' < "$out" | grep -Eq "fault_test: rank 1 failed|thrown on rank 1|rank 1 throws|Out of" ||
      { ok=0; why="$why; rank 1's message is missing"; }
  fi
  [ $ms -lt $((limit * 1000)) ] || { ok=0; why="$why; took ${seconds} s (limit $limit s)"; }
  printf '%-5s %-10s %-10s %-10s rc %3s %6s s %s\n' "$([ $ok = 1 ] && echo PASS || echo FAIL)" "$method" "$fault" \
    "$form" "$rc" "$seconds" "$why"
  if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); sed 's/^/    | /' "$out" | tail -25; fi
  rm -f "$out"
}
for method in "${methods[@]}"; do
  for fault in none loop exchange oom recovered; do
    if [ "$scope" = all ]; then forms=(caught tutorial uncaught); else forms=(caught); fi
    for form in "${forms[@]}"; do
      [ "$scope" != all ] && [ "$method" != "${methods[0]}" ] && { [ "$fault" = none ] || [ "$fault" = recovered ]; } && continue
      check "$method" "$fault" "$form"
    done
  done
done
if [ "$scope" != all ]; then
  check "${methods[0]}" loop tutorial
  check "${methods[0]}" loop uncaught
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
