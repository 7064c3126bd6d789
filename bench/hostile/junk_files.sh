#!/bin/bash
# bench/hostile/junk_files.sh [BUILD-DIR] -- what junk in the run directory
# costs dcistatd: FILES (60,000) files of 1 KiB of random bytes named
# *.dciseg, owned by one user (nobody), beside nothing else, under the
# suppliers provider refreshed every REFRESH (1) s. Reports dcistatd's CPU
# (/proc/PID/schedstat) for its first look at the junk (the refresh that
# meets it), then over MEASURE (60) s of steady state, as a share of one
# core (target < 1 %), its VmRSS, and how many files it remembers as
# refused (the log says when a user's share, max-refused-per-uid, is
# full). Pinned to the last CPU (BENCH_CPUS; empty: not pinned). No
# master is needed. Run as root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
build=$(cd "${1:-${DCISTAT_BUILD:-$source_dir}}" && pwd)
files=${FILES:-60000} refresh=${REFRESH:-1} measure=${MEASURE:-60}
cpus=${BENCH_CPUS-$(($(nproc) - 1))}
owner=${JUNK_OWNER:-nobody}
[ "$(id -u)" -eq 0 ] || { echo "${0##*/}: run as root" >&2; exit 1; }
work=$(mktemp -d /dev/shm/dcistat-bench-junk.XXXXXX)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
chmod 0755 "$work"
mkdir -m 1777 "$work/run"

# Every thread's (the provider refreshes on a thread of its own).
cpu_ns() { cat "/proc/$1"/task/*/schedstat | awk '{ sum += $1 } END { printf "%.0f\n", sum }'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
percent() { awk -v ns="$1" -v s="$2" 'BEGIN { printf "%.3f", ns / (s * 1e9) * 100 }'; }
prefix=()
[ -z "$cpus" ] || prefix=(taskset -c "$cpus")

cat >"$work/c.yaml" <<YAML
agent:
  agentx-socket: $work/no-master
  ping-interval: 3600
providers:
  - module: $build/src/providers/suppliers/.libs/suppliers.so
    refresh: $refresh
    options:
      directory: $work/run
      users: [$owner]
YAML
"${prefix[@]}" "$build/src/agent/dcistatd" --insecure-paths -f -c "$work/c.yaml" \
    -L stderr 2>"$work/log" &
pid=$!
sleep 2
idle_cpu=$(cpu_ns "$pid")
sleep 5
idle_ns=$(($(cpu_ns "$pid") - idle_cpu))

# The junk, written as its owner would, then renamed in at once (one
# event burst, as a user's script would make it).
mkdir -m 0777 "$work/staging"
setpriv --reuid="$owner" --regid="$(id -g "$owner")" --clear-groups \
    /usr/bin/python3 - "$work/staging" "$files" <<'PY'
import os, sys
directory, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    with open(os.path.join(directory, "junk%06d.dciseg" % i), "wb") as f:
        f.write(os.urandom(1024))
PY
before=$(cpu_ns "$pid")
start=$(date +%s.%N)
find "$work/staging" -name '*.dciseg' -exec mv -t "$work/run" {} +
sleep $((refresh * 3 + 2))
first_ns=$(($(cpu_ns "$pid") - before))
first_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

before=$(cpu_ns "$pid")
sleep "$measure"
steady_ns=$(($(cpu_ns "$pid") - before))

echo "# bench/hostile/junk_files.sh: $files junk files of uid $(id -u "$owner"), refresh ${refresh} s, $( [ -n "$cpus" ] && echo "pinned to CPU $cpus" || echo "not pinned")"
printf 'idle (empty directory)      %s %% of a core\n' "$(percent "$idle_ns" 5)"
printf 'first look (%.1f s)         %d ms CPU\n' "$first_s" $((first_ns / 1000000))
printf 'steady state (%s s)         %s %% of a core (target < 1 %%)\n' "$measure" "$(percent "$steady_ns" "$measure")"
printf 'VmRSS                       %s kB\n' "$(rss_kb "$pid")"
printf 'refusals logged             %s\n' "$(grep -c 'refused:' "$work/log" || true)"
grep -m 1 'max-refused-per-uid' "$work/log" | sed 's/^/log: /' || true
