# Wall-clock timing helpers for the benchmark runners.
# shellcheck shell=bash

# now_ns: monotonic-ish wall clock in nanoseconds.
now_ns() { date +%s%N; }

# time_command <command...>: prints the wall time in seconds (6 decimals); the command's
# output goes to /dev/null; fails if the command fails.
time_command() {
  local start end
  start=$(now_ns)
  "$@" >/dev/null 2>&1 || return 1
  end=$(now_ns)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}

# median <numbers...>
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ratio <a> <b>: a / b with 3 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", a / b }'; }
