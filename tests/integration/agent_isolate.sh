#!/bin/bash
# agent_isolate.sh -- providers with `isolate: true` run in a process of
# their own (dcistat-isolate), and their crashes and hangs cost only them.
#
# 1. The same classes isolated as in-process: the example provider (three
#    instances, no churn, refreshed once an hour) and the loader tests'
#    provider (parents, invalid data, a declared discontinuity) are walked
#    in-process, then isolated, under the same snmpd master: the same OIDs,
#    SNMP types and values (but the TimeStamps each run dates).
# 2. netif in-process beside the test provider isolated, refreshed every
#    0.2 s:
#    - the provider's process is a child of dcistatd;
#    - it writes through a null pointer (SIGSEGV) in a refresh: dcistatd
#      lives on, the provider's rows go, dciSupplierTable shows it failed
#      with "killed by signal 11", netif's rows keep being served with
#      lo's name and MTU as /sys has them; once the crashing stops the
#      provider is started again (a new process) and its rows come back;
#    - it hangs in a refresh (30 s asked, no limit of its own): after the
#      hang limit (10 s) the process is killed, the provider shown failed
#      with "did not answer", netif answered meanwhile, and it comes back
#      once the hang is gone;
#    - on SIGTERM dcistatd stops cleanly and no provider process is left.
# 3. Daemonised (no -f): dcistatd loads its providers, then forks into the
#    background; the isolated providers' processes are children of the
#    daemon, not of the process that exited, and serve the same values.
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
require_cmd snmpd snmpbulkwalk snmpget pgrep timeout
require_built
GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
[ -f "$GOOD_SO" ] || fail "$GOOD_SO not built (run make check)"
[ -x "$ISOLATE" ] || fail "$ISOLATE not built (run make)"
export DCISTAT_ISOLATE_PROGRAM=$ISOLATE
# The crash must be a crash: no sanitizer SEGV handler turning it into an
# exit status and a report.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
DCISTATD_FIRST_MODULE=netif

# --- 1. The same classes, isolated or not -------------------------------

# config FILE ISOLATE: netif, the example and the test provider.
config() {
	cat >"$1" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
  - module: $(provider_so example)
    refresh: 3600
    isolate: $2
    options:
      instances: 3
      churn_seconds: 0
  - module: $GOOD_SO
    refresh: 3600
    isolate: $2
    options:
      instances: 5
      parents: yes
      invalid_even: yes
YAML
}

# walk_classes FILE: dciStatTable, dciInstanceTable and the per-class
# tables of classes 2.1 (example) and 9.1 (test provider), TimeTicks out.
walk_classes() {
	local subtree
	: >"$1"
	for subtree in "$DCI_ARC.1.4" "$DCI_ARC.1.5" "$DCI_ARC.1.6.2.1" "$DCI_ARC.1.6.9.1"; do
		ns_run snmpbulkwalk "${SNMP_OPTS[@]}" -Cr50 -On -Oe "$SNMP_TARGET" "$subtree" >>"$1" 2>&1 ||
		    fail "walk of $subtree failed: $(tail -n 2 "$1")"
	done
	# Rows of the two classes only; what each run dates left out:
	# dciInstanceCreated/Discontinuity, dciStatDiscontinuity, TimeTicks,
	# the example's init time (datum 74).
	grep -E "^$DCI_ARC\\.1\\.(4\\.1\\.[0-9]+\\.|5\\.1\\.[0-9]+\\.)(2\\.2\\.1|2\\.9\\.1)\\.|^$DCI_ARC\\.1\\.6\\.(2|9)\\.1\\." "$1" |
	    grep -v -E ' = Timeticks: |^[^ ]*\.1\.4\.1\.(3|4)\.|\.74 = |\.1\.6\.2\.1\.1\.74\.' >"$1.compared"
}

config "$TMP_DIR/inproc.yaml" false
start_dcistatd "$TMP_DIR/inproc.yaml"
wait_dcistatd_ready 20
walk_classes "$TMP_DIR/inproc.walk"
stop_dcistatd
config "$TMP_DIR/isolated.yaml" true
start_dcistatd "$TMP_DIR/isolated.yaml"
wait_dcistatd_ready 20
wait_until 10 grep -q 'provider good: running isolated' "$DCISTATD_LOG" ||
    fail "the test provider did not start isolated"
children=$(pgrep -c -P "$DCISTATD_PID" dcistat-isolate)
[ "$children" = 2 ] || fail "$children dcistat-isolate processes under dcistatd, expected 2"
walk_classes "$TMP_DIR/isolated.walk"
stop_dcistatd
compared=$(wc -l <"$TMP_DIR/isolated.walk.compared")
[ "$compared" -gt 300 ] || fail "only $compared values of the two classes to compare"
diff "$TMP_DIR/inproc.walk.compared" "$TMP_DIR/isolated.walk.compared" >"$TMP_DIR/walk.diff" ||
    fail "isolated and in-process differ: $(head -n 6 "$TMP_DIR/walk.diff" | tr '\n' ' ')"
ok "the example's and the test provider's $compared values are the same isolated (2 processes) as in-process"
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived dcistatd"
ok "no dcistat-isolate process left after dcistatd stopped"

# --- 2. Crash and hang beside netif -------------------------------------

CRASH=$TMP_DIR/crash HANG=$TMP_DIR/hang
cat >"$TMP_DIR/faults.yaml" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
    refresh: 0.2
  - module: $GOOD_SO
    refresh: 0.2
    isolate: true
    options:
      instances: 3
      crash_while: $CRASH
      refresh_sleeps_while: $HANG
YAML
start_dcistatd "$TMP_DIR/faults.yaml"
wait_dcistatd_ready 20

GOOD_LABEL=$DCI_ARC.1.4.1.2.2.9.1.1.2 # dciInstanceLabel of unit2, class 9.1
LO_INDEX=$(cat /sys/class/net/lo/ifindex)
LO_NAME=$DCI_ARC.1.6.1.1.1.1.$LO_INDEX # dciNetifName.lo
LO_MTU=$DCI_ARC.1.6.1.1.1.3.$LO_INDEX  # dciNetifMtu.lo

good_served() { [ "$(snmp_get "$GOOD_LABEL" 2>/dev/null)" = unit2 ]; }
good_gone() { ! snmp_get "$GOOD_LABEL" >/dev/null 2>&1; }
isolate_pid() { pgrep -P "$DCISTATD_PID" dcistat-isolate; }
# failure_shown TEXT: some dciSupplierFailure holds TEXT, status failed(2).
failure_shown() {
	snmp_walk "$DCI_ARC.1.1.1.11" | grep -q -- "$1" &&
	    snmp_walk "$DCI_ARC.1.1.1.8" | grep -q ' 2$'
}
# netif_right: lo's name and MTU as /sys has them (snmpget gives up
# after its timeout and one retry, so an answer is a prompt one).
netif_right() {
	local answer
	answer=$(snmp_get "$LO_NAME" "$LO_MTU" | tr '\n' ' ')
	[ "$answer" = "lo $(cat /sys/class/net/lo/mtu) " ]
}

wait_until 10 good_served || fail "the isolated provider's rows are not served"
first=$(isolate_pid)
[ -n "$first" ] || fail "no dcistat-isolate process under dcistatd"
ok "the isolated provider runs in process $first, a child of dcistatd"

: >"$CRASH"
wait_until 10 good_gone || fail "the provider's rows still served after its crash"
_lib_alive "$DCISTATD_PID" || fail "dcistatd died with its isolated provider"
wait_until 10 failure_shown "killed by signal 11" ||
    fail "dciSupplierTable does not show the provider failed with signal 11: $(snmp_walk "$DCI_ARC.1.1.1.11" | tr '\n' ' ')"
grep -q 'isolated process ended: killed by signal 11' "$DCISTATD_LOG" ||
    fail "the log does not name the signal"
netif_right || fail "netif not served right while the isolated provider crashes"
ok "SIGSEGV in the isolated provider: dcistatd alive, its rows withdrawn, failed with 'killed by signal 11', netif served (lo, MTU as /sys)"
rm -f "$CRASH"
wait_until 70 good_served || fail "the provider did not come back after the crashes stopped"
second=$(isolate_pid)
if [ -z "$second" ] || [ "$second" = "$first" ]; then
	fail "no new process for the restarted provider ($first, then '$second')"
fi
ok "restarted after a back-off in a new process ($second) once the crashes stopped; rows served again"

: >"$HANG"
hang_started=$(now_ms)
wait_until 5 good_gone || true # rows stay while the refresh hangs
for _ in 1 2 3; do
	netif_right || fail "netif not answered while the isolated provider hangs"
	sleep 1
done
wait_until 20 failure_shown "did not answer within" ||
    fail "the hung provider is not shown failed: $(snmp_walk "$DCI_ARC.1.1.1.11" | tr '\n' ' ')"
hang_ms=$(($(now_ms) - hang_started))
good_gone || fail "the hung provider's rows are still served"
[ -z "$(isolate_pid)" ] || [ "$(isolate_pid)" != "$second" ] ||
    fail "the hung process $second was not killed"
ok "a refresh hung for 30 s: killed after the limit (shown failed after $hang_ms ms), rows withdrawn, netif answered throughout"
rm -f "$HANG"
wait_until 70 good_served || fail "the provider did not come back after the hang"
ok "started again once the hang was gone"

netif_right || fail "netif not served right at the end"
stop_dcistatd
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived dcistatd"
ok "no dcistat-isolate process left"

# --- 3. Daemonised ------------------------------------------------------

daemon_gone() { ! _lib_alive "$DCISTATD_PID"; }
config "$TMP_DIR/daemon.yaml" true
PID_FILE=$TMP_DIR/dcistatd.pid
DCISTATD_LOG=$TMP_DIR/dcistatd.daemon.log
"$DCISTATD" -c "$TMP_DIR/daemon.yaml" -L "$DCISTATD_LOG" -p "$PID_FILE" </dev/null >/dev/null 2>&1 ||
    fail "dcistatd did not start in the background: $(tail -n 3 "$DCISTATD_LOG" | tr '\n' ' ')"
wait_until 10 test -s "$PID_FILE" || fail "no pid file from the daemon"
DCISTATD_PID=$(cat "$PID_FILE")
_lib_pids+=("$DCISTATD_PID")
wait_dcistatd_ready 20
children=$(pgrep -c -P "$DCISTATD_PID" dcistat-isolate)
[ "$children" = 2 ] || fail "$children dcistat-isolate processes under the daemon, expected 2"
# Ready is the agent's; the isolated processes' first refreshes may follow.
example_served() { [ "$(snmp_get "$DCI_ARC.1.4.1.2.2.2.1.1.2" 2>/dev/null)" = unit2 ]; }
both_served() { good_served && example_served; }
wait_until 10 both_served || fail "the daemon's isolated providers are not served within 10 s"
walk_classes "$TMP_DIR/daemon.walk"
diff "$TMP_DIR/inproc.walk.compared" "$TMP_DIR/daemon.walk.compared" >"$TMP_DIR/daemon.diff" ||
    fail "the daemon's isolated providers differ from in-process: $(head -n 6 "$TMP_DIR/daemon.diff" | tr '\n' ' ')"
grep -q 'isolated process' "$DCISTATD_LOG" &&
    fail "an isolated process failed in the daemon: $(grep 'isolated process' "$DCISTATD_LOG" | head -n 2 | tr '\n' ' ')"
ok "daemonised: 2 isolated processes, children of the daemon ($DCISTATD_PID), serve the same $compared values"
kill -TERM "$DCISTATD_PID"
wait_until 10 daemon_gone || fail "the daemon did not stop within 10 s of SIGTERM"
DCISTATD_PID=
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived the daemon"
ok "the daemon stopped; no dcistat-isolate process left"
