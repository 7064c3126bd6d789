#!/bin/bash
# statsd_beside.sh -- a check, a one-shot read and a second daemon beside a
# running dcistatd that serves statsd on a UDP port and a unix socket.
#
# The test asserts:
#   - `dcistatd -t` on the running daemon's configuration passes (it
#     needs none of the addresses the daemon holds), and one with a bad
#     listen address fails naming the option and the cause;
#   - `dcistat --standalone` on that configuration exits 0 with statsd's
#     supplier running and its classes empty, and never says its messages
#     are "in the log" (it has none);
#   - a second dcistatd whose statsd has the same unix_socket refuses it,
#     naming the path and that another process serves it, and leaves it;
#   - after all three, a counter sent on the unix socket still reaches the
#     running daemon (read back through SNMP), the socket file the same;
#   - a socket left by a daemon killed with SIGKILL is replaced by the next
#     start, which serves on it; a file that is not a socket is refused and
#     left as it was;
#   - statsd isolated (its own process): a counter sent to it is served.
# Run in both modes (make check-daemon-mode: dcistatd daemonised).
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
require_cmd snmpd snmpget python3 timeout stat
require_built
STATSD_SO=$(provider_so statsd)
[ -f "$STATSD_SO" ] || fail "$STATSD_SO not built (run make)"
DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
CLIENT=$here/statsd_client.py

STAT=$DCI_ARC.1.5.1 # dciStatEntry
C_COUNTER64=4
COUNTERS=3.2.8125.1

# counter KEY: the served value of counter KEY, through SNMP.
counter() {
	snmp_get "$STAT.$C_COUNTER64.$COUNTERS.$(python3 "$CLIENT" id counter "$1").1"
}
send_unix() { python3 "$CLIENT" send "$UNIX_SOCKET" unix "$1"; }
inode() { stat -c %i "$UNIX_SOCKET"; }

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
PORT=$(free_udp_port) || fail "no free UDP port"
UNIX_SOCKET=$TMP_DIR/statsd.sock
config=$TMP_DIR/dcistatd.yaml
# write_statsd_config FILE LISTEN [AGENTX-SOCKET]
write_statsd_config() {
	cat >"$1" <<END_OF_CONFIG
agent:
  agentx-socket: ${3:-$SNMPD_AGENTX}
  ping-interval: 1
providers:
  - module: $STATSD_SO
    refresh: 0.3
    options:
      listen: $2
      unix_socket: $UNIX_SOCKET
END_OF_CONFIG
}
write_statsd_config "$config" "127.0.0.1:$PORT"
DCISTATD_FIRST_MODULE=statsd
start_dcistatd "$config"
wait_dcistatd_ready 10
wait_until 5 test -S "$UNIX_SOCKET" || fail "no unix socket at $UNIX_SOCKET"
served_inode=$(inode)
send_unix 'h39.before:2|c'
before_sent() { [ "$(counter h39.before)" = 2 ]; }
wait_until 10 before_sent || fail "the unix socket's counter reads '$(counter h39.before)', not 2"
ok "dcistatd serves statsd on UDP port $PORT and $UNIX_SOCKET (inode $served_inode)"

# --- dcistatd -t beside it ------------------------------------------------------
run_dcistatd "$TMP_DIR/check.out" "$TMP_DIR/check.err" -t -c "$config"
[ "$RUN_STATUS" -eq 0 ] ||
    fail "dcistatd -t fails beside the running daemon ($RUN_STATUS): $(cat "$TMP_DIR/check.err")"
grep -q "configuration OK (1 provider)" "$TMP_DIR/check.out" ||
    fail "dcistatd -t said: $(cat "$TMP_DIR/check.out")"
ok "dcistatd -t beside the running daemon: $(sed "s|$TMP_DIR/||" "$TMP_DIR/check.out")"

write_statsd_config "$TMP_DIR/bad.yaml" "127.0.0.1"
run_dcistatd "$TMP_DIR/bad.out" "$TMP_DIR/bad.err" -t -c "$TMP_DIR/bad.yaml"
[ "$RUN_STATUS" -ne 0 ] || fail "dcistatd -t accepts listen: 127.0.0.1 (no port)"
grep -q "bad.yaml:5:13: .*failed to initialise: .*bad.yaml:8:7: option 'listen': expected address:port" "$TMP_DIR/bad.err" ||
    fail "dcistatd -t on a bad listen address said: $(tail -n 2 "$TMP_DIR/bad.err")"
ok "dcistatd -t on listen: 127.0.0.1: $(tail -n 1 "$TMP_DIR/bad.err" | sed "s|$TMP_DIR/||; s|$STATSD_SO|statsd.so|")"
# Isolated, the cause comes from its process.
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
[ -x "$ISOLATE" ] || fail "$ISOLATE not built (run make)"
export DCISTAT_ISOLATE_PROGRAM=$ISOLATE
sed 's/^    refresh: 0.3$/    refresh: 0.3\n    isolate: true/' "$TMP_DIR/bad.yaml" >"$TMP_DIR/bad_isolated.yaml"
run_dcistatd "$TMP_DIR/bad.out" "$TMP_DIR/bad.err" -t -c "$TMP_DIR/bad_isolated.yaml"
[ "$RUN_STATUS" -ne 0 ] || fail "dcistatd -t accepts listen: 127.0.0.1 isolated"
grep -q "bad_isolated.yaml:5:13: .*failed to initialise: .*option 'listen': expected address:port" "$TMP_DIR/bad.err" ||
    fail "dcistatd -t on a bad listen address, isolated, said: $(tail -n 2 "$TMP_DIR/bad.err")"
ok "the same, isolated: the failure names the cause its process gave"

# --- dcistat --standalone beside it ---------------------------------------------
"$DCISTAT" --standalone -c "$config" suppliers </dev/null \
    >"$TMP_DIR/standalone.out" 2>"$TMP_DIR/standalone.err" ||
    fail "dcistat --standalone fails beside the running daemon ($?): $(cat "$TMP_DIR/standalone.err")"
check_sanitizer_log "$TMP_DIR/standalone.err" "dcistat --standalone"
grep -q "statsd.*running" "$TMP_DIR/standalone.out" ||
    fail "dcistat --standalone does not show statsd running: $(cat "$TMP_DIR/standalone.out")"
! grep -q "in the log" "$TMP_DIR/standalone.err" ||
    fail "dcistat --standalone sends its reader to a log it does not have: $(cat "$TMP_DIR/standalone.err")"
"$DCISTAT" --standalone -c "$config" show statsd_counters </dev/null \
    >"$TMP_DIR/counters.out" 2>"$TMP_DIR/counters.err" ||
    fail "dcistat --standalone show statsd_counters fails ($?): $(cat "$TMP_DIR/counters.err")"
! grep -q "h39" "$TMP_DIR/counters.out" ||
    fail "dcistat --standalone received what the daemon's socket was sent: $(cat "$TMP_DIR/counters.out")"
ok "dcistat --standalone beside the running daemon: exit 0, statsd running, its counters empty"

# --- a second daemon with the same unix_socket -----------------------------------
# Its own (absent) master and no UDP: only the unix socket is contended.
cat >"$TMP_DIR/second.yaml" <<END_OF_CONFIG
agent:
  agentx-socket: $TMP_DIR/no-master.sock
providers:
  - module: $STATSD_SO
    options:
      listen: none
      unix_socket: $UNIX_SOCKET
END_OF_CONFIG
"$DCISTATD" -f -c "$TMP_DIR/second.yaml" -L stderr </dev/null >"$TMP_DIR/second.log" 2>&1 &
second=$!
_lib_pids+=("$second")
refused_path() { grep -q "unix_socket: $UNIX_SOCKET is served by another process" "$TMP_DIR/second.log"; }
wait_until 10 refused_path ||
    fail "a second dcistatd did not refuse the served unix socket: $(grep statsd "$TMP_DIR/second.log" | tail -n 3)"
kill -TERM "$second"
wait_until 10 _lib_gone "$second" || fail "the second dcistatd did not stop"
wait "$second" 2>/dev/null
[ "$(inode)" = "$served_inode" ] ||
    fail "the served socket's file changed (inode $served_inode -> $(inode 2>/dev/null))"
ok "a second dcistatd refuses the socket: $(grep -o 'unix_socket: .*' "$TMP_DIR/second.log" | head -n 1 | sed "s|$TMP_DIR/||")"

# --- the running daemon still receives on its unix socket --------------------------
send_unix 'h39.after:5|c'
after_sent() { [ "$(counter h39.after)" = 5 ]; }
wait_until 10 after_sent ||
    fail "after -t, --standalone and a second daemon the unix socket's counter reads '$(counter h39.after)', not 5"
ok "after -t, --standalone and a second daemon: a counter sent on the unix socket is served (5), inode $(inode)"

# --- a socket left by a killed daemon is replaced ----------------------------------
kill -KILL "$DCISTATD_PID"
wait_until 10 _lib_gone "$DCISTATD_PID" || fail "dcistatd survived SIGKILL"
wait "$DCISTATD_PID" 2>/dev/null
DCISTATD_PID=
test -S "$UNIX_SOCKET" || fail "SIGKILL left no socket file to test with"
start_dcistatd "$config"
wait_dcistatd_ready 10
send_unix 'h39.stale:7|c'
stale_sent() { [ "$(counter h39.stale)" = 7 ]; }
wait_until 10 stale_sent ||
    fail "the restarted daemon does not serve on the stale socket's path: '$(counter h39.stale)' ($(grep statsd "$DCISTATD_LOG" | tail -n 2))"
# A socket nobody serves receives nothing: 7 was read on a new one.
ok "a socket left by SIGKILL is replaced and served (7)"
stop_dcistatd
[ ! -e "$UNIX_SOCKET" ] || fail "the socket dcistatd bound is left after its stop"

# --- a file that is not a socket is refused ----------------------------------------
printf 'not a socket\n' >"$UNIX_SOCKET"
start_dcistatd "$config"
not_socket() { grep -q "unix_socket: $UNIX_SOCKET exists and is not a socket" "$DCISTATD_LOG"; }
wait_until 10 not_socket ||
    fail "a regular file at unix_socket was not refused: $(grep statsd "$DCISTATD_LOG" | tail -n 3)"
[ "$(cat "$UNIX_SOCKET")" = "not a socket" ] || fail "the regular file at unix_socket was changed"
agent_up() { grep -q "AgentX subagent started" "$DCISTATD_LOG"; }
wait_until 10 agent_up || fail "dcistatd does not serve with its statsd failed"
ok "a regular file at unix_socket is refused and left: $(grep -o 'failed to start: .*' "$DCISTATD_LOG" | head -n 1 | sed "s|$TMP_DIR/||")"
stop_dcistatd
rm -f "$UNIX_SOCKET"

# --- statsd isolated ------------------------------------------------------------
sed -i 's/^    refresh: 0.3$/    refresh: 0.3\n    isolate: true/' "$config"
grep -q "isolate: true" "$config" || fail "the configuration was not made isolated"
start_dcistatd "$config"
wait_dcistatd_ready 10
python3 "$CLIENT" send 127.0.0.1 "$PORT" 'h39.isolated:4|c'
isolated_sent() { [ "$(counter h39.isolated)" = 4 ]; }
wait_until 10 isolated_sent ||
    fail "isolated statsd serves '$(counter h39.isolated)' for a counter of 4 ($(grep statsd "$DCISTATD_LOG" | tail -n 2))"
ok "statsd isolated: a counter sent to its process is served (4)"
stop_dcistatd

stop_snmpd
exit 0
