#!/bin/bash
# agent_long_names.sh -- requests no snmpd master can send: AgentX names of
# 129 to 255 sub-identifiers (Net-SNMP's AgentX parser takes up to 255, its
# SNMP side stops at 128), as Get, GetNext, and as the end of a GetNext's
# range, sent by a small AgentX master (agentx_master.py) on a private
# socket to the real dcistatd serving netif.
#
# Asserted by the master, for both request paths (in-place answers on and
# off): a GetNext below a row answers the row after it, the same as a
# GetNext of the row itself; a Get answers noSuchInstance (noSuchObject
# outside the tables) and keeps the name; a long range end bounds the
# answer as its whole length says; a long name past every table answers
# endOfMibView with the name kept whole. Then: dcistatd still serves, stops
# cleanly, and its log holds no sanitizer report (the old code overflowed
# a MAX_OID_LEN array on the stack).
#
# Needs no root: no snmpd, only Unix sockets in the test's directory.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_cmd python3 timeout
require_built

run_mode() {
	local mode=$1
	start_agentx_master "$mode" long-names --in-place "$mode" -D agent
	wait_agentx_master "in-place answers $mode" '^ok: the subagent still answers'
	ok "in-place answers $mode: $(grep -c '^ok:' "$AGENTX_MASTER_OUTPUT") checks of long names passed"
	if [ "$mode" = on ]; then
		grep -q 'AgentX requests answered in place' "$DCISTATD_LOG" ||
		    fail "in-place answers on, but dcistatd did not take the session over"
	else
		grep -q 'in-place answers off' "$DCISTATD_LOG" ||
		    fail "in-place answers off, but dcistatd did not say so"
	fi
	stop_dcistatd
}

run_mode on
run_mode off
