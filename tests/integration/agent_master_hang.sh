#!/bin/bash
# agent_master_hang.sh -- a master that hangs (SIGSTOP) does not stop
# dcistatd's loop.
#
# dcistatd serves netif (refresh 0.2 s, stale after 3 periods) to a private
# snmpd with a ping interval of 1 s. snmpd is stopped with SIGSTOP for 5
# ping intervals, then continued. Net-SNMP's ping waited for its answer
# inside the loop (its session timeout and retries, then a reconnection
# that waited again), so the refreshes were not committed and the rows
# withdrawn: "class netif not refreshed for 2520 ms".
#
# Asserted, for both request paths (in-place answers on and off): during
# the hang dcistatd logs that the master does not answer its ping, takes a
# SIGHUP within 1 s (its loop runs), and never logs a class as not
# refreshed; after SIGCONT it logs that the master answers again and
# serves within 2 s; then it stops cleanly, its log and snmpd's without
# netsnmp_assert (lib.sh's stop_dcistatd and stop_snmpd). Then dcistatd is
# started while the master hangs: it starts within 5 s, takes a SIGHUP
# within 1 s, logs no class as not refreshed, and serves within 2 ping
# intervals and a second of SIGCONT.
#
# Needs root (snmpd's sockets).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget
require_built

HANG_SECONDS=5
PING_INTERVAL=1
REFRESH=0.2

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX

# The master is continued whatever happens (the cleanup's SIGTERM would
# wait on a stopped snmpd).
continue_snmpd() { [ -z "$SNMPD_PID" ] || kill -CONT "$SNMPD_PID" 2>/dev/null; }
at_exit continue_snmpd

log_has() { grep -q -- "$1" "$DCISTATD_LOG"; }

run_mode() {
	local mode=$1 config=$TMP_DIR/$1.yaml hung_at reload_at took
	write_config "$config" "$PING_INTERVAL" "$REFRESH"
	start_dcistatd "$config" --in-place "$mode"
	wait_dcistatd_ready 10

	kill -STOP "$SNMPD_PID"
	hung_at=$(now_ms)
	wait_until 5 log_has 'has not answered a ping' || {
		continue_snmpd
		fail "in-place answers $mode: no word of the unanswered ping within 5 s of SIGSTOP"
	}
	ok "in-place answers $mode: master stopped; dcistatd says after $(($(now_ms) - hung_at)) ms that it does not answer its ping"
	kill -HUP "$DCISTATD_PID"
	reload_at=$(now_ms)
	wait_until 1 log_has 'SIGHUP: reloading' || {
		continue_snmpd
		fail "in-place answers $mode: a SIGHUP during the hang was not taken within 1 s: the loop waits on the master"
	}
	took=$(($(now_ms) - reload_at))
	ok "in-place answers $mode: a SIGHUP during the hang taken within $took ms"
	while (($(now_ms) - hung_at < HANG_SECONDS * 1000)); do
		sleep 0.2
	done
	kill -CONT "$SNMPD_PID"
	if grep 'not refreshed' "$DCISTATD_LOG" | sed 's/^/# /' | grep .; then
		fail "in-place answers $mode: snapshots went stale while the master hung (above)"
	fi
	ok "in-place answers $mode: no class went stale in $HANG_SECONDS s of a hung master (refresh $REFRESH s)"

	reload_at=$(now_ms)
	wait_until 2 dcistatd_serves ||
	    fail "in-place answers $mode: not served within 2 s of SIGCONT"
	took=$(($(now_ms) - reload_at))
	wait_until 2 log_has 'master answers again' ||
	    fail "in-place answers $mode: dcistatd did not see the master answer again"
	ok "in-place answers $mode: served again $took ms after SIGCONT, the master's return logged"
	stop_dcistatd
}

run_mode on
run_mode off

# dcistatd started while the master hangs: its Open goes unanswered.
# Net-SNMP waited for the answer (a second, five times over) before the
# loop had even started, and again at each retry; the wait is now bounded
# well below the staleness of a 0.2 s refresh.
config=$TMP_DIR/hung-at-start.yaml
write_config "$config" "$PING_INTERVAL" "$REFRESH"
kill -STOP "$SNMPD_PID"
hung_at=$(now_ms)
start_dcistatd "$config"
wait_until 5 log_has 'AgentX subagent \(started\|waiting for the master\)' || {
	continue_snmpd
	fail "dcistatd did not start within 5 s with the master hung"
}
ok "dcistatd started $(($(now_ms) - hung_at)) ms after it was run, the master hung"
while (($(now_ms) - hung_at < HANG_SECONDS * 1000)); do
	sleep 0.2
done
kill -HUP "$DCISTATD_PID"
reload_at=$(now_ms)
wait_until 1 log_has 'SIGHUP: reloading' || {
	continue_snmpd
	fail "with the master hung since the start, a SIGHUP was not taken within 1 s"
}
ok "with the master hung since the start, a SIGHUP taken within $(($(now_ms) - reload_at)) ms"
kill -CONT "$SNMPD_PID"
if grep 'not refreshed' "$DCISTATD_LOG" | sed 's/^/# /' | grep .; then
	fail "snapshots went stale while dcistatd tried to join a hung master (above)"
fi
reload_at=$(now_ms)
wait_until $((2 * PING_INTERVAL + 1)) dcistatd_serves ||
    fail "not served within $((2 * PING_INTERVAL + 1)) s of SIGCONT"
ok "served $(($(now_ms) - reload_at)) ms after SIGCONT (bound: 2 ping intervals + 1 s), no class stale"
stop_dcistatd
stop_snmpd
exit 0
