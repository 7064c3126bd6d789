#!/bin/bash
# agent_bulk_unread.sh -- a master that sends GetBulks and stops reading
# holds nothing: every write dcistatd or Net-SNMP makes on the AgentX
# socket is bounded (src/agent/agentx_send.h).
#
# A small AgentX master (agentx_master.py, scenario bulk-unread-10) on a
# private socket, on each of 10 connections in turn, once dcistatd has
# registered its tables, sends GetBulks whose answers hold twice dcistatd's
# send buffer and reads none of them. The in-place path answers Get and
# GetNext alone: a GetBulk is answered by Net-SNMP's agent, whose send on
# the blocking socket waited until the master read, the loop (DCI socket,
# refreshes, commits, the stop) held with it.
#
# Asserted, with in-place answers on and off (the Net-SNMP path alone):
#   - by the master: each connection ends within a bound of its GetBulks,
#     what it received is whole PDUs, the last one perhaps cut short, and
#     nothing after it (no PDU follows one cut); then a new connection
#     opens and registers again;
#   - while the master reads nothing, the DCI socket answers every read
#     within 5 s, and the example provider's refreshes datum (refresh
#     0.3 s) rises over them, its class never withdrawn as stale; the
#     slowest read is printed (what waits for the master holds nothing; a
#     send that waited in the loop held it up to a second per connection);
#   - dcistatd's log names the connection ended on one line with a request
#     of the first connection's, and (over 10 connections) once more at
#     the 10th, and on no other line: the log is rate-limited, whatever
#     was answered on each connection before its end;
#   - SIGTERM while the last connection is held unread ends dcistatd
#     cleanly within 5 s (the measured time printed; the bound is 2 s).
# Then, with answers that leave less than one answer's room unread and a
# master that sends nothing more, dcistatd's pings fill the socket: the
# connection ends, what the master read is whole PDUs (the answers, the
# pings) and nothing after one cut, and the log names the ping.
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
QUERY=$top_builddir/tests/dci_query
[ -x "$QUERY" ] || fail "tests/dci_query is not built"
# The example provider's class (dciStatTable index 2.2.1), its first
# instance and the datum that counts its refreshes.
EXAMPLE_CLASS=2.1 REFRESHES=refreshes
# Connections the master stops reading in turn: the log's rate limit shows
# at the 10th.
CONNECTIONS=10

# read_refreshes SOCKET: sets REFRESHES_READ to the refreshes datum read
# on the DCI socket within 5 s; fails otherwise.
REFRESHES_READ=
read_refreshes() {
	local out
	out=$(timeout 5 "$QUERY" "$1" get "$EXAMPLE_CLASS" 1 "$REFRESHES" 2>&1) ||
	    fail "the DCI socket did not answer a read within 5 s while the master read nothing: ${out:-timed out}"
	REFRESHES_READ=$(printf '%s\n' "$out" |
	    sed -n "s/^1 [0-9]* $REFRESHES \([0-9]*\)\$/\1/p")
	[ -n "$REFRESHES_READ" ] ||
	    fail "no $REFRESHES value in the DCI answer: $out"
}

# expect_no_room_line NUMBER CONNECTION: one of dcistatd's log lines on a
# connection ended for want of room says it is the NUMBERth so ended and
# names a request the master sent on its CONNECTIONth connection.
expect_no_room_line() {
	local line
	line=$(grep "the AgentX master's socket had no room" "$DCISTATD_LOG" |
	    grep -- "request $2[0-9][0-9][0-9] (session .*($1 ended so")
	[ -n "$line" ] ||
	    fail "no log line naming a request of connection $2 as the ${1}th ended for want of room: $(grep "had no room" "$DCISTATD_LOG")"
	ok "logged: $line"
}

run_mode() {
	local mode=$1 dci=$TMP_DIR/dci.$1.sock
	local reads=0 first='' last=0 value started elapsed slowest=0 lines
	# shellcheck disable=SC2034 # read by start_agentx_master
	AGENTX_MASTER_AGENT_KEYS="  dci-socket: $dci"
	# shellcheck disable=SC2034 # read by start_agentx_master
	AGENTX_MASTER_PROVIDERS="  - module: $(provider_so example)
    refresh: 0.3"
	start_agentx_master "$mode" "bulk-unread-$CONNECTIONS" --in-place "$mode"
	wait_until 20 grep -q '^bulk: connection 1,' "$AGENTX_MASTER_OUTPUT" ||
	    fail "$mode: the master sent no GetBulks: $(cat "$AGENTX_MASTER_OUTPUT")"
	# Read on the DCI socket until the master holds its last connection.
	until grep -q '^holding:' "$AGENTX_MASTER_OUTPUT"; do
		_lib_alive "$AGENTX_MASTER_PID" || break
		started=$(now_ms)
		read_refreshes "$dci"
		value=$REFRESHES_READ
		elapsed=$(($(now_ms) - started))
		[ "$elapsed" -le "$slowest" ] || slowest=$elapsed
		[ "$value" -ge "$last" ] ||
		    fail "$mode: refreshes $value after $last: it went back"
		first=${first:-$value} last=$value reads=$((reads + 1))
		sleep 0.3
	done
	[ "$reads" -ge 3 ] ||
	    fail "$mode: only $reads reads while the master read nothing (it ended: $(tail -n 3 "$AGENTX_MASTER_OUTPUT"))"
	[ "$last" -ge $((first + 3)) ] ||
	    fail "$mode: refreshes rose from $first to $last only over $reads reads: refreshes were not committed while the master read nothing"
	ok "$mode: $reads DCI reads answered while the master read nothing (slowest $slowest ms), refreshes rose from $first to $last"

	# The stop, in the middle of an answer the master does not read.
	sleep 0.3
	started=$(now_ms)
	stop_dcistatd
	elapsed=$(($(now_ms) - started))
	[ "$elapsed" -le 5000 ] ||
	    fail "$mode: dcistatd took $elapsed ms to stop with the master not reading (bound 2 s, checked as 5 s)"
	ok "$mode: dcistatd stopped $elapsed ms after SIGTERM with the master not reading"
	wait_agentx_master "$mode" '^ok: the last connection ended'
	ok "$mode: $(grep -c '^ok:' "$AGENTX_MASTER_OUTPUT") checks of the master passed"

	# One line for the first connection ended so, one for the 10th.
	lines=$(grep -c "the AgentX master's socket had no room" "$DCISTATD_LOG")
	expect_no_room_line 1 1
	expect_no_room_line 10 10
	[ "$lines" -eq 2 ] ||
	    fail "$mode: $lines log lines for $CONNECTIONS connections ended for want of room, expected 2 (the 1st and the 10th): $(grep 'had no room' "$DCISTATD_LOG")"
	ok "$mode: $lines log lines for $CONNECTIONS connections ended for want of room"
}

run_mode on
run_mode off

# Pings: once the answers have left less than one answer's room and the
# master sends nothing, dcistatd's pings fill its socket; the first with no
# room ends the connection, logged by its type.
AGENTX_MASTER_AGENT_KEYS='' AGENTX_MASTER_PROVIDERS=''
start_agentx_master ping ping-unread --in-place off
wait_agentx_master ping '^ok: read: the'
line=$(grep "the AgentX master's socket had no room for 1000 ms: dcistatd's Ping, packet [0-9]* (session [0-9]*, transaction [0-9]*, [0-9]* octets) was not sent; the connection is shut down" "$DCISTATD_LOG") ||
    fail "ping: no log line of a ping without room: $(grep 'had no room' "$DCISTATD_LOG")"
ok "ping: logged: $line"
stop_dcistatd
