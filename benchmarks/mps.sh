# The node's GPUs and CUDA MPS for the whole-program benchmarks (adaptive.sh, step37.sh, step48.sh,
# step66.sh source this file): node_ranks turns "k/gpu" into k ranks on each of the node's GPUs;
# the MPS daemon runs while a gpumf program with more ranks than GPUs runs (GPUMF_BENCH_MPS=0: never
# started here, for a node whose MPS is a service already), and is stopped for programs with a rank
# per GPU and at the end.
#
# MPS is a node service: a cluster starts it once, not per job. Its server starts with the first
# client (about 0.5 s, measured on the lent H100 machine: step-37's first 4-rank run after the
# daemon started 4.21 s, the next 3.65 s); mps_for_ranks starts it with the daemon
# (start_server), so that no timed program pays it.

n_gpus=$({ nvidia-smi -L 2> /dev/null || true; } | grep -c '^GPU' || true)
mps_started=0

# node_ranks <spec>...: the MPI ranks of each spec, a number or k/gpu (k times the node's GPUs; a
# machine without a GPU counts as one), one a line
node_ranks() {
  local spec
  for spec in "$@"; do
    case "$spec" in
      */gpu) echo $((${spec%/gpu} * (n_gpus > 0 ? n_gpus : 1))) ;;
      *) echo "$spec" ;;
    esac
  done
}

# mps_for_ranks <ranks>: the daemon (and its server) on or off for a program with <ranks> ranks
mps_for_ranks() {
  if [ "${GPUMF_BENCH_MPS:-1}" = 1 ] && [ "$n_gpus" -gt 0 ] && [ "$1" -gt "$n_gpus" ] && [ "$mps_started" = 0 ]; then
    if nvidia-cuda-mps-control -d; then
      mps_started=1
      echo "start_server -uid $(id -u)" | nvidia-cuda-mps-control > /dev/null || true
    else
      echo "mps.sh: nvidia-cuda-mps-control -d failed: the program runs without a daemon started here"
    fi
  elif [ "$mps_started" = 1 ] && [ "$1" -le "$n_gpus" ]; then
    echo quit | nvidia-cuda-mps-control || true
    mps_started=0
  fi
  return 0
}

# mps_stop: the daemon off (for the scripts' EXIT trap)
mps_stop() {
  if [ "$mps_started" = 1 ]; then
    echo quit | nvidia-cuda-mps-control || true
    mps_started=0
  fi
}
