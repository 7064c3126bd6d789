#!/bin/bash
# agent_in_place.sh -- the in-place AgentX answers (src/agent/agentx_direct.c)
# and Net-SNMP's agent answer every table alike.
#
# dcistatd serves netif, devstat, evcnt and the example provider (three
# instances, no churn) to a private snmpd master. The whole DCI-STATS-MIB
# subtree is walked with GETBULK (every table, every per-class table)
# twice with in-place answers on, then once with them off, each time by a
# new dcistatd under the same master. Asserted:
#   - the three walks have the same OIDs in the same order, with the same
#     SNMP types;
#   - every value that did not move between the two walks with answers on
#     (counters and times of a live system do) is the same with them off,
#     except the TimeStamps of things dcistatd itself dates (instance
#     creation, discontinuities, last refresh), which a new dcistatd
#     re-dates;
#   - dcistatd says which path it took.
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpbulkwalk timeout
require_built

config=$TMP_DIR/dcistatd.yaml
cat >"$config" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
providers:
  - module: $(provider_so netif)
  - module: $(provider_so devstat)
  - module: $(provider_so evcnt)
  - module: $(provider_so example)
    refresh: 3600
    options:
      instances: 3
      churn_seconds: 0
YAML

start_snmpd
# Over the master's Unix socket: the walks add no traffic to lo.
SNMP_TARGET=unix:$SNMPD_UNIX

# walk FILE: "OID TYPE VALUE" lines of the whole subtree.
walk() {
	ns_run snmpbulkwalk "${SNMP_OPTS[@]}" -Cr50 -On -Oe "$SNMP_TARGET" \
	    "$DCI_ARC" >"$1" 2>&1 || fail "snmpbulkwalk failed: $(tail -n 2 "$1")"
	grep -q 'No more variables\|No Such' "$1" &&
	    fail "the walk ended with an exception: $(grep -m1 'No more\|No Such' "$1")"
	[ "$(wc -l <"$1")" -gt 100 ] || fail "the walk has only $(wc -l <"$1") lines"
}

serve() { # MODE [CONFIG]
	local mode=$1
	start_dcistatd "${2:-$config}" --in-place "$mode" -D agent
	wait_dcistatd_ready 10
}
# busy-poll: the same, with the master's socket polled after each answer.
sed 's/^agent:$/agent:\n  busy-poll: 1000/' "$config" >"$TMP_DIR/busy-poll.yaml"
# CPU ticks (utime + stime) of dcistatd.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DCISTATD_PID/stat"; }

serve on
grep -q 'AgentX requests answered in place' "$DCISTATD_LOG" ||
    fail "in-place answers on, but dcistatd did not take the session over"
walk "$TMP_DIR/on"
stop_dcistatd
serve off
grep -q 'in-place answers off' "$DCISTATD_LOG" ||
    fail "in-place answers off, but dcistatd did not say so"
grep -q 'AgentX requests answered in place' "$DCISTATD_LOG" &&
    fail "in-place answers off, but dcistatd took the session over"
walk "$TMP_DIR/off"
stop_dcistatd
serve on "$TMP_DIR/busy-poll.yaml"
walk "$TMP_DIR/busy"
# Polled only after an answer, for at most a millisecond: idle, it
# sleeps (a loop that kept polling would take the 100 ticks of a core).
ticks=$(cpu_ticks)
sleep 1
ticks=$(($(cpu_ticks) - ticks))
[ "$ticks" -le 20 ] || fail "with busy-poll, idle dcistatd used $ticks ticks of CPU in 1 s"
stop_dcistatd

names() { sed 's/ = .*//' "$1"; }
types() { sed -E 's/^([^ ]*) = ([A-Za-z0-9-]*):.*/\1 \2/; t; s/^([^ ]*) = .*/\1 (none)/' "$1"; }
diff <(names "$TMP_DIR/on") <(names "$TMP_DIR/off") >"$TMP_DIR/names.diff" ||
    fail "in-place and standard answers differ in their OIDs: $(head -n 6 "$TMP_DIR/names.diff" | tr '\n' ' ')"
rows=$(wc -l <"$TMP_DIR/off")
ok "both paths walk the same $rows OIDs in the same order"
diff <(types "$TMP_DIR/on") <(types "$TMP_DIR/off") >"$TMP_DIR/types.diff" ||
    fail "in-place and standard answers differ in SNMP types: $(head -n 6 "$TMP_DIR/types.diff" | tr '\n' ' ')"
ok "and with the same SNMP type for each"
diff <(types "$TMP_DIR/busy") <(types "$TMP_DIR/off") >"$TMP_DIR/busy.diff" ||
    fail "with busy-poll the in-place answers differ in OIDs or types: $(head -n 6 "$TMP_DIR/busy.diff" | tr '\n' ' ')"
ok "with busy-poll 1000: the same $rows OIDs and types, and $ticks CPU ticks in 1 s idle"

# Values compared: those no live system moves between two runs of
# dcistatd. The description tables of every class: dciSupplierTable's
# module .. version, status and failure; dciClassTable; dciDatumTable;
# dciInstanceTable's labels and parents. And every value of the example's
# class 2.1 (refreshed once an hour, so its refresh count stays 1) but its
# TimeTicks and the text of its init time (datum 74), which date this run.
constant() {
	grep -E "^$DCI_ARC\\.1\\.(1\\.1\\.([2-6]|8|11)|2\\.1\\.[0-9]+|3\\.1\\.[0-9]+|4\\.1\\.(2|5))\\.|^$DCI_ARC\\.1\\.5\\.1\\.[0-9]+\\.2\\.2\\.1\\.|^$DCI_ARC\\.1\\.6\\.2\\.1\\.1\\." "$1" |
	    grep -v -E ' = Timeticks: |^[^ ]*\.1\.5\.1\.[0-9]+\.2\.2\.1\.1\.[0-9]+\.74 |^[^ ]*\.1\.6\.2\.1\.1\.74\.'
}
constant "$TMP_DIR/on" >"$TMP_DIR/on.constant"
constant "$TMP_DIR/off" >"$TMP_DIR/off.constant"
compared=$(wc -l <"$TMP_DIR/off.constant")
[ "$compared" -gt 500 ] || fail "only $compared values to compare"
diff "$TMP_DIR/on.constant" "$TMP_DIR/off.constant" >"$TMP_DIR/values.diff" ||
    fail "in-place and standard answers differ in value: $(head -n 6 "$TMP_DIR/values.diff" | tr '\n' ' ')"
ok "$compared values of the description tables and the example's class equal on both paths"
