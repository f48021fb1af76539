# The timed run of the whole-program benchmarks (step37.sh, step48.sh, step59.sh, step64.sh,
# step66.sh source this file):
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
