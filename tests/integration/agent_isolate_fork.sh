#!/bin/bash
# agent_isolate_fork.sh -- an isolated provider that forks and execs leaves
# nothing behind (runtime/isolation_process.h).
#
# The test provider (tests/unit/process_provider.c), isolated, starts three
# `sleep 3600` marked in their argv[0] with a name unique to this run:
# one in its session holding a copy of its socket to dcistatd, one in a
# session of its own below it, one in a session of its own whose parent
# exited (an orphan, adopted by dcistatd, a child subreaper).
#
# 1. It crashes (SIGSEGV) while its helper holds the socket open: dcistatd
#    sees the process end at once (not after the 10 s hang limit) and logs
#    "ended: killed by signal 11"; its session's sleep is killed with it;
#    the one in a session of its own, whose parent the crash ended, is
#    adopted by dcistatd like the orphan; no zombie is under dcistatd.
# 2. Started again, it spawns three more, then hangs in a refresh: killed
#    after the hang limit ("did not answer"), its session and tree with it.
# 3. dcistatd stops: no process of the provider remains, the three it
#    adopted included ("killed 3 processes left by isolated providers").
# 4. The snmpd module: the same provider in snmpd crashes; its session's
#    sleep is killed with it (snmpd is no subreaper: the others are init's,
#    killed here by the test); started again, its session and tree are
#    killed when snmpd exits.
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget pgrep sleep
require_built
PROCESS_SO=$top_builddir/tests/unit/.libs/process_provider.so
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
[ -f "$PROCESS_SO" ] || fail "$PROCESS_SO not built (run make check)"
[ -x "$ISOLATE" ] || fail "$ISOLATE not built (run make)"
export DCISTAT_ISOLATE_PROGRAM=$ISOLATE
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0

MARKER=dcih25p-$$-$RANDOM
# marked SUFFIX: the pids of the sleeps named $MARKER-SUFFIX ("" for all).
marked() {
	local file pid
	for file in /proc/[0-9]*/cmdline; do
		pid=${file#/proc/}
		pid=${pid%/cmdline}
		tr '\0' '\n' <"$file" 2>/dev/null | head -n 1 |
		    grep -q -x -- "$MARKER-${1:-[a-z]*}" && printf '%s\n' "$pid"
	done
	return 0
}
marked_count() { marked "${1:-}" | wc -l; }
# marked_are SUFFIX COUNT: COUNT sleeps named $MARKER-SUFFIX ("" for all).
marked_are() { [ "$(marked_count "$1")" -eq "$2" ]; }
kill_marked() {
	local pid
	for pid in $(marked); do kill -KILL "$pid" 2>/dev/null; done
}
at_exit kill_marked
# ppid PID / state PID: from /proc/PID/stat.
ppid() { sed 's/.*) . \([0-9]*\) .*/\1/' "/proc/$1/stat"; }
no_zombie_under() { [ "$(zombies_under "$1")" -eq 0 ]; }
zombies_under() {
	local file count=0
	for file in /proc/[0-9]*/stat; do
		sed -n "s/.*) Z $1 .*/Z/p" "$file" 2>/dev/null | grep -q Z && count=$((count + 1))
	done
	echo "$count"
}

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
DCISTATD_FIRST_MODULE=process
SPAWN=$TMP_DIR/spawn CRASH=$TMP_DIR/crash HANG=$TMP_DIR/hang
cat >"$TMP_DIR/fork.yaml" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
providers:
  - module: $PROCESS_SO
    refresh: 0.2
    isolate: true
    options:
      spawn_file: $SPAWN
      marker: $MARKER
      crash_while: $CRASH
      hang_while: $HANG
YAML

# --- 1. Crash with a helper holding the socket ---------------------------

: >"$SPAWN"
start_dcistatd "$TMP_DIR/fork.yaml"
wait_dcistatd_ready 20
wait_until 10 marked_are "" 3 ||
    fail "the provider did not start its 3 sleeps: $(marked_count)"
isolated=$(pgrep -P "$DCISTATD_PID" dcistat-isolate)
[ -n "$isolated" ] || fail "no dcistat-isolate under dcistatd"
[ "$(ppid "$(marked adopted)")" = "$DCISTATD_PID" ] ||
    fail "the orphan's parent is $(ppid "$(marked adopted)"), not dcistatd ($DCISTATD_PID): no subreaper"
ok "3 marked sleeps started by the isolated provider (process $isolated); the orphan is dcistatd's child"

crash_started=$(now_ms)
: >"$CRASH"
wait_until 15 grep -q 'isolated process ended: killed by signal 11' "$DCISTATD_LOG" ||
    fail "the crash is not logged as one: $(grep 'provider process' "$DCISTATD_LOG" | tail -n 2 | tr '\n' ' ')"
crash_ms=$(($(now_ms) - crash_started))
rm -f "$CRASH"
grep -q 'did not answer' "$DCISTATD_LOG" && fail "the crash was logged as a hang"
[ "$crash_ms" -lt 5000 ] || fail "the crash was seen after $crash_ms ms (a helper held the socket)"
wait_until 5 marked_are session 0 ||
    fail "the sleep in the provider's session outlived it"
[ "$(marked_count adopted)" -eq 1 ] || fail "the orphan is gone early: $(marked_count adopted)"
[ "$(ppid "$(marked below)")" = "$DCISTATD_PID" ] ||
    fail "the sleep in a session of its own is not dcistatd's after the crash"
wait_until 5 no_zombie_under "$DCISTATD_PID" ||
    fail "$(zombies_under "$DCISTATD_PID") zombies under dcistatd"
ok "crash seen in $crash_ms ms, logged 'ended: killed by signal 11'; its session's sleep killed, the others adopted by dcistatd; no zombie under dcistatd"

# --- 2. Hang -------------------------------------------------------------

: >"$SPAWN"
wait_until 30 marked_are "" 5 ||
    fail "the restarted provider did not start 3 more sleeps: $(marked_count)"
hang_started=$(now_ms)
: >"$HANG"
wait_until 20 grep -q 'isolated process did not answer within 10000 ms, killed' "$DCISTATD_LOG" ||
    fail "the hang is not logged"
hang_ms=$(($(now_ms) - hang_started))
rm -f "$HANG"
wait_until 5 marked_are session 0 ||
    fail "the sleep in the hung provider's session outlived it"
# The one left is the crashed process's, adopted.
wait_until 5 marked_are below 1 ||
    fail "the sleep below the hung provider outlived it"
[ "$(marked_count adopted)" -eq 2 ] || fail "$(marked_count adopted) orphans, expected 2"
[ "$(marked_count)" -eq 3 ] || fail "$(marked_count) marked processes, expected the 3 adopted"
wait_until 5 no_zombie_under "$DCISTATD_PID" ||
    fail "$(zombies_under "$DCISTATD_PID") zombies under dcistatd"
ok "hang killed after $hang_ms ms ('did not answer'); its session's and tree's sleeps killed; no zombie"

# --- 3. Stop -------------------------------------------------------------

wait_dcistatd_ready 30
stop_dcistatd
[ "$(marked_count)" -eq 0 ] || fail "$(marked_count) marked processes outlived dcistatd: $(marked | tr '\n' ' ')"
grep -q 'killed 3 processes left by isolated providers' "$DCISTATD_LOG" ||
    fail "the stop does not say it killed the 3 it adopted"
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived dcistatd"
ok "dcistatd stopped: no process of the provider left, the 3 it adopted killed"

# --- 4. In snmpd ---------------------------------------------------------

MODULE=$top_builddir/src/agent/.libs/dcistat.so
[ -f "$MODULE" ] || fail "$MODULE not built (run make)"
stop_snmpd
embedded_sanitizer_env "$MODULE"
sed -e '/^agent:/,/^providers:/{/^providers:/!d}' "$TMP_DIR/fork.yaml" >"$TMP_DIR/embedded.yaml"
SNMPD_EXTRA_CONF="dlmod dcistat $MODULE
dcistatConfig $TMP_DIR/embedded.yaml"
SNMPD_ENV=("${EMBEDDED_ENV[@]}" "DCISTAT_ISOLATE_PROGRAM=$ISOLATE" "DCISTAT_INSECURE_PATHS=1")
# A sanitized module's crash must be a crash there too.
[ ${#EMBEDDED_ENV[@]} -eq 0 ] ||
    SNMPD_ENV+=("ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:handle_segv=0")
: >"$SPAWN"
start_snmpd
wait_until 20 marked_are "" 3 ||
    fail "the provider in snmpd did not start its 3 sleeps: $(marked_count)"
: >"$CRASH"
wait_until 15 grep -q 'isolated process ended: killed by signal 11' "$SNMPD_LOG" ||
    fail "snmpd's log does not show the crash: $(grep -i 'isolated' "$SNMPD_LOG" | tail -n 2 | tr '\n' ' ')"
rm -f "$CRASH"
wait_until 5 marked_are session 0 ||
    fail "in snmpd, the sleep in the provider's session outlived it"
for which in adopted below; do
	[ "$(ppid "$(marked $which)")" != "$SNMPD_PID" ] ||
	    fail "snmpd adopted the $which sleep: it must not be a subreaper"
done
# Started again: three more; then snmpd stops, and the provider with it.
: >"$SPAWN"
wait_until 30 marked_are session 1 ||
    fail "the provider in snmpd did not start again"
stop_snmpd
wait_until 5 marked_are session 0 ||
    fail "the sleep in the provider's session outlived snmpd"
# Left: the crashed process's, init's since.
[ "$(marked_count below)" -eq 1 ] || fail "$(marked_count below) 'below' sleeps, expected 1"
ok "in snmpd: crash logged, its session's sleep killed; at snmpd's exit its session and tree too; snmpd adopts nothing"
