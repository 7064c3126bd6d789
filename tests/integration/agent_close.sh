#!/bin/bash
# agent_close.sh -- dcistatd's stop when the master hangs up on it.
#
# A small AgentX master (agentx_master.py, scenario hang-up-at-close)
# takes dcistatd's registrations, then closes the connection, unanswered,
# at the first Unregister or Close dcistatd sends: what a master that
# stops, or times the subagent out, at that moment does. Net-SNMP's own
# stop sent its Unregisters and its Close synchronously from inside its
# callback lists, and a disconnection during one made it unregister
# callbacks from the list being walked: a 100 ms wait per list and
# "netsnmp_assert lock_holded < 100 failed" in the log.
#
# Asserted, for both request paths (in-place answers on and off): the
# master received a Close and no Unregister (the session's close takes its
# registrations away; an Unregister removes a registration whoever made
# it), dcistatd stopped with status 0 within 2 s of SIGTERM, and its log
# holds no netsnmp_assert and no callback lock wait.
#
# Needs no root: no snmpd, only Unix sockets in the test's directory.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_cmd python3
require_built

run_mode() {
	local mode=$1 output started stopped status
	start_agentx_master "$mode" hang-up-at-close --in-place "$mode"
	output=$AGENTX_MASTER_OUTPUT
	wait_until 10 grep -q '^ok: the subagent registered' "$output" ||
	    fail "in-place answers $mode: dcistatd did not register with the master: $(tr '\n' ' ' <"$output")"

	started=$(now_ms)
	kill -TERM "$DCISTATD_PID"
	wait_until 10 _lib_gone "$DCISTATD_PID" ||
	    fail "in-place answers $mode: dcistatd did not stop within 10 s of SIGTERM"
	stopped=$(now_ms)
	wait "$DCISTATD_PID"
	status=$?
	DCISTATD_PID=
	check_sanitizer_log "$DCISTATD_LOG" dcistatd
	wait_agentx_master "in-place answers $mode"
	[ "$status" -eq 0 ] ||
	    fail "in-place answers $mode: dcistatd exited with status $status on SIGTERM"
	((stopped - started < 2000)) ||
	    fail "in-place answers $mode: dcistatd took $((stopped - started)) ms to stop"
	check_netsnmp_callbacks_log "$DCISTATD_LOG" "in-place answers $mode: dcistatd"
	grep -q '^ok: the subagent sent a Close' "$output" ||
	    fail "in-place answers $mode: dcistatd's first PDU at stop was not a Close: $(grep '^ok: the subagent sent' "$output")"
	ok "in-place answers $mode: a Close, no Unregister; stopped in $((stopped - started)) ms with status 0, no netsnmp_assert"
}

run_mode on
run_mode off
