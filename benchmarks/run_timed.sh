# The timed run of the whole-program benchmarks (step37.sh, step48.sh, step59.sh, step64.sh,
# step66.sh source this file; adaptive.sh for native_twin):
#
#   run_timed <label> <log> <command...>
#
# runs the command with its output in <log> and stdin from /dev/null (mpirun would read it), and
# appends "Program wall time <seconds>" (process start to end) to <log>; where the command fails it
# prints <log> and stops the calling script, naming <label>.
run_timed() {
  local label=$1 log=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  "$@" > "$log" 2>&1 < /dev/null || { cat "$log"; echo "$(basename "$0"): $label failed"; exit 1; }
  end=$(date +%s.%N)
  echo "Program wall time $(python3 -c "print($end - $start)")" >> "$log"
}

# native_twin <program>: the path of <program>_native, deal.II's program at full SIMD width
# (cmake/dealiiNativeSimd.cmake), where it is beside <program>, this CPU has AVX-512 (avx512f) and
# GPUMF_BENCH_NATIVE is not 0; else nothing. The scripts run it after the width-1 program, on the
# same ranks, as the second deal.II baseline (doc/performance.md). The twins are not built by
# default: e.g. cmake --build build --target dealii_step37_native (adaptive_native,
# dealii_step48_native, dealii_step59_native, dealii_step66_cache_native); against Debian's
# deal.II 9.4.1 only.
native_twin() {
  [ "${GPUMF_BENCH_NATIVE:-1}" != 0 ] && [ -x "$1_native" ] && grep -qw avx512f /proc/cpuinfo && echo "$1_native"
  return 0
}
