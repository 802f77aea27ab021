# Running the host benchmark programs (tests/bench/host) and reading their wall time, shared by
# scripts/bench.d/host and scripts/bench.d/host_scaling. Needs nothing but the programs: the
# scaling runner also runs on a machine with no build tree.
# shellcheck shell=bash

# host_run <bin-dir> <kernel> <config> <threads> <ranks> [args...]: runs one configuration
# (plain, plain_guarded, openmp, sequential, threads, mpi) and prints its stdout; the loop nest's wall time
# (the slowest rank's) goes to the file named by $HOST_RUN_SECONDS.
host_run() {
  local dir="$1" kernel="$2" config="$3" threads="$4" ranks="$5"
  shift 5
  local err status=0 out
  err="$(mktemp)"
  case "$config" in
    plain | plain_guarded) out="$(S2P_BENCH_TIMING=1 "$dir/bench_host_baselines" "$kernel" "$config" "$@" 2>"$err")" || status=$? ;;
    openmp) out="$(OMP_NUM_THREADS=$threads S2P_BENCH_TIMING=1 "$dir/bench_host_baselines" "$kernel" openmp "$@" 2>"$err")" || status=$? ;;
    sequential) out="$(S2P_BENCH_TIMING=1 "$dir/bench_host_${kernel}_seq" "$@" 2>"$err")" || status=$? ;;
    threads) out="$(S2P_BACKEND=threads S2P_THREADS=$threads S2P_BENCH_TIMING=1 "$dir/bench_host_${kernel}_par" "$@" 2>"$err")" || status=$? ;;
    mpi) out="$(S2P_BACKEND=mpi S2P_THREADS=$threads S2P_BENCH_TIMING=1 mpirun --oversubscribe --allow-run-as-root --bind-to none -n "$ranks" "$dir/bench_host_${kernel}_par" "$@" 2>"$err")" || status=$? ;;
    *) echo "host_run: unknown configuration '$config'" >&2; rm -f "$err"; return 1 ;;
  esac
  if [ "$status" -ne 0 ]; then cat "$err" >&2; rm -f "$err"; return "$status"; fi
  awk '/^kernel_seconds/ { if ($2 > t) t = $2 } END { printf "%.6f\n", t }' "$err" >"$HOST_RUN_SECONDS"
  rm -f "$err"
  printf '%s\n' "$out"
}

# spread <median> <times...>: (max - min) / median in percent.
spread() {
  local m="$1"
  shift
  printf '%s\n' "$@" | sort -g | awk -v m="$m" '{ v[NR] = $1 } END { printf "%.0f\n", 100 * (v[NR] - v[1]) / m }'
}
