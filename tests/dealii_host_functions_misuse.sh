#!/usr/bin/env bash
# dealii_host_functions_misuse.sh <build folder>: builds the target dealii_host_functions_misuse
# (tests/dealii_host_functions_misuse.cc: deal.II's interpolate(), integrate_difference(),
# AffineConstraints::distribute() and KellyErrorEstimator::estimate() on a gpumf::Vector) and passes
# when the build fails with the compile-time errors that name gpumf's calls (deal.II 9.6+ refuses
# the estimator itself: its estimate() takes a ReadVector).
set -uo pipefail
output=$(cmake --build "$1" --target dealii_host_functions_misuse 2>&1)
status=$?
echo "$output" | grep -E "error|deleted" | cut -c1-400
if [ $status -eq 0 ]; then
  echo "FAILED: the misuse compiled"
  exit 1
fi
for expected in "call gpumf::VectorTools::interpolate(mapping, dof_handler" \
                "call gpumf::VectorTools::integrate_difference<fe_degree" \
                "distribute.*gpumf::Vector<double>" \
                "gpumf::KellyErrorEstimator<dim>::estimate()\|no matching function for call to .*KellyErrorEstimator"; do
  if ! echo "$output" | grep -q -- "$expected"; then
    echo "FAILED: no compile-time message matching '$expected'"
    exit 1
  fi
done
echo "PASSED: four compile-time errors name gpumf's calls"
