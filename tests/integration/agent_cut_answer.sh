#!/bin/bash
# agent_cut_answer.sh -- a master that stops reading, end to end: dcistatd
# ends the connection rather than leave the master's stream in the middle
# of a PDU or its own loop waiting on a full socket, then connects again
# and serves.
#
# A small AgentX master (agentx_master.py) on a private socket sends the
# real dcistatd serving netif (in-place answers on) Gets whose answers are
# as long as it likes, in one write, and reads none of them. Their size is
# chosen so that, on this kernel, the first answer without room in
# dcistatd's socket has room for part of it (scenario cut-answer), or for
# none of it (unwritten-answer). dcistatd sends without blocking, what the
# socket does not take waiting, and shuts the socket down when none of it
# is taken for a second (src/agent/agentx_send.h).
# When an answer not begun left the connection open, each later answer
# waited its own second, then Net-SNMP's ping blocked on the full socket
# until the master read (here: netif withdrawn after 5 s).
#
# Asserted by the master: the answers before it are read whole and as the
# same Get answered alone; of it, a part and nothing after (no other
# octets read as the rest of it), or nothing; then the end of the
# connection; then a new connection with an Open and the registrations,
# and a Get on it answered with the value of before. Asserted here:
# dcistatd logs the answer without room on one line (its request, and how
# many of its octets went out), does not claim that the master left a ping
# unanswered, and stops cleanly. (That the loop is held no longer than the
# wait is what the master's checks show by value: with the connection
# kept, the answers still waiting, then Net-SNMP's pings, reach it after
# the part of the cut answer, or the connection never ends.)
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

run_scenario() {
	local scenario=$1 output said lines
	start_agentx_master "$scenario" "$scenario" --in-place on
	wait_agentx_master "$scenario" '^ok: the subagent still answers'
	output=$AGENTX_MASTER_OUTPUT
	ok "$scenario: $(grep -c '^ok:' "$output") checks of the master passed"

	# What dcistatd must say of the answer without room, from what the
	# master says of it.
	said=$(sed -n \
	    -e 's/^cut: request \([0-9]*\), \([0-9]*\) of \([0-9]*\) octets$/request \1 (session [0-9]*, transaction [0-9]*) was cut after \2 of its \3 octets; the connection is shut down/p' \
	    -e 's/^unsent: request \([0-9]*\), \([0-9]*\) octets$/request \1 (session [0-9]*, transaction [0-9]*, \2 octets) was not sent; the connection is shut down/p' \
	    "$output")
	[ -n "$said" ] || fail "$scenario: the master did not say which answer had no room"
	lines=$(grep -c -- "$said" "$DCISTATD_LOG")
	[ "$lines" -eq 1 ] ||
	    fail "$scenario: dcistatd logged $lines lines naming the answer without room ($said), not one"
	ok "$scenario: dcistatd's log names it: $(grep -- "$said" "$DCISTATD_LOG")"
	if grep 'has not answered a ping' "$DCISTATD_LOG" | sed 's/^/# /' | grep .; then
		fail "$scenario: dcistatd says the master left a ping unanswered (above); it was sent none"
	fi
	ok "$scenario: no ping claimed unanswered"
	stop_dcistatd
}

run_scenario cut-answer
run_scenario unwritten-answer
