#!/bin/bash
# agent_daemon.sh -- dcistatd in the background (no -f), its pid file and
# log file (src/agent/daemon.c, core/log.c).
#
# Under a private snmpd master, with netif:
#   - `dcistatd -p FILE` returns 0 only once the daemon wrote FILE: read
#     right after the command, it names a live dcistatd (not the process
#     that returned), which serves dciSupplierTable; the log and pid files
#     are created with umask 027 (no access for others);
#   - a second dcistatd with the same pid file is refused at once, exit 1,
#     naming the running one's pid on stderr; the file is unchanged;
#   - a pid file that is a symbolic link (to a file) or a FIFO is refused
#     (exit 1, within seconds, the link's target untouched), and so is a
#     log file that is a symbolic link (its target not created);
#   - a pid file left by a dcistatd that died (no lock, a stale pid) is
#     taken over;
#   - on SIGTERM the pid file goes; one that replaced it meanwhile (not
#     the daemon's) stays.
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
require_cmd snmpd snmpget timeout stat
require_built

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
CONFIG=$TMP_DIR/daemon.yaml
cat >"$CONFIG" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
YAML

# background PID-FILE LOG [STDERR]: dcistatd without -f; sets STATUS.
background() {
	timeout 20 "$DCISTATD" -c "$CONFIG" -p "$1" -L "$2" </dev/null >/dev/null 2>"${3:-/dev/null}"
	STATUS=$?
}
daemon_gone() { ! _lib_alive "$DCISTATD_PID"; }
stop_daemon() {
	kill -TERM "$DCISTATD_PID"
	wait_until 10 daemon_gone || fail "the daemon did not stop within 10 s of SIGTERM"
	DCISTATD_PID=
}

# --- the pid file is there when the command returns ------------------------

PID_FILE=$TMP_DIR/run/dcistatd.pid
mkdir -p "$TMP_DIR/run"
DCISTATD_LOG=$TMP_DIR/daemon.log
background "$PID_FILE" "$DCISTATD_LOG"
[ "$STATUS" = 0 ] || fail "dcistatd in the background exited $STATUS: $(tail -n 3 "$DCISTATD_LOG" | tr '\n' ' ')"
[ -s "$PID_FILE" ] || fail "no pid file when the starting command returned"
DCISTATD_PID=$(cat "$PID_FILE")
_lib_pids+=("$DCISTATD_PID")
_lib_alive "$DCISTATD_PID" || fail "the pid file names $DCISTATD_PID, not a live process"
[ "$(cat "/proc/$DCISTATD_PID/comm")" = dcistatd ] || fail "pid $DCISTATD_PID is not dcistatd"
wait_dcistatd_ready 20
for file in "$PID_FILE" "$DCISTATD_LOG"; do
	mode=$(stat -c %a "$file")
	[ $((8#$mode & 8#027)) = 0 ] || fail "$file created with mode $mode (umask 027 expected)"
done
ok "dcistatd -p: returned 0 with the daemon's pid ($DCISTATD_PID) in the file; serving; pid and log files mode $(stat -c %a "$PID_FILE")/$(stat -c %a "$DCISTATD_LOG")"

# --- a second one, links and FIFOs ---------------------------------------------

before=$(cat "$PID_FILE")
background "$PID_FILE" "$TMP_DIR/second.log" "$TMP_DIR/second.err"
[ "$STATUS" = 1 ] || fail "a second dcistatd with the same pid file exited $STATUS, expected 1"
grep -q "locked by a running dcistatd (pid $DCISTATD_PID)" "$TMP_DIR/second.err" ||
    fail "the refusal does not name the running daemon: $(cat "$TMP_DIR/second.err")"
[ "$(cat "$PID_FILE")" = "$before" ] || fail "the refused start changed the pid file"
_lib_alive "$DCISTATD_PID" || fail "the running daemon died"
ok "a second dcistatd with the same pid file: exit 1, '$(grep -o 'locked by.*' "$TMP_DIR/second.err")'"

echo "precious" >"$TMP_DIR/target"
ln -s "$TMP_DIR/target" "$TMP_DIR/link.pid"
background "$TMP_DIR/link.pid" "$TMP_DIR/link.log" "$TMP_DIR/link.err"
[ "$STATUS" = 1 ] || fail "a symlinked pid file: exit $STATUS, expected 1"
grep -q "symbolic link" "$TMP_DIR/link.err" || fail "the refusal does not say why: $(cat "$TMP_DIR/link.err")"
[ "$(cat "$TMP_DIR/target")" = precious ] || fail "the link's target was written"
mkfifo "$TMP_DIR/fifo.pid"
background "$TMP_DIR/fifo.pid" "$TMP_DIR/fifo.log" "$TMP_DIR/fifo.err"
[ "$STATUS" = 1 ] || fail "a FIFO as pid file: exit $STATUS, expected 1 (124: it blocked)"
grep -q "not a regular file" "$TMP_DIR/fifo.err" || fail "the refusal does not say why: $(cat "$TMP_DIR/fifo.err")"
ln -s "$TMP_DIR/elsewhere.log" "$TMP_DIR/link.log"
background "$TMP_DIR/other.pid" "$TMP_DIR/link.log" "$TMP_DIR/log.err"
[ "$STATUS" = 1 ] || fail "a symlinked log file: exit $STATUS, expected 1"
grep -q "cannot open log" "$TMP_DIR/log.err" || fail "the refusal does not say why: $(cat "$TMP_DIR/log.err")"
[ ! -e "$TMP_DIR/elsewhere.log" ] || fail "the log link's target was created"
[ ! -e "$TMP_DIR/other.pid" ] || fail "the refused start left its pid file"
ok "refused (exit 1, reason on stderr): a symlinked pid file (target untouched), a FIFO, a symlinked log file (target not created)"

# --- stop; a stale pid file; a replaced one ------------------------------------

stop_daemon
[ ! -e "$PID_FILE" ] || fail "the pid file is left after SIGTERM"
ok "SIGTERM: the daemon stopped and removed its pid file"

echo 999999 >"$PID_FILE"
background "$PID_FILE" "$DCISTATD_LOG"
[ "$STATUS" = 0 ] || fail "a stale pid file was not taken over (exit $STATUS)"
DCISTATD_PID=$(cat "$PID_FILE")
_lib_pids+=("$DCISTATD_PID")
if [ "$DCISTATD_PID" = 999999 ] || ! _lib_alive "$DCISTATD_PID"; then
	fail "the stale pid file was not rewritten"
fi
wait_dcistatd_ready 20
mv "$PID_FILE" "$PID_FILE.moved"
echo "someone else's" >"$PID_FILE"
taken_over=$DCISTATD_PID
stop_daemon
[ "$(cat "$PID_FILE" 2>/dev/null)" = "someone else's" ] || fail "the daemon removed a pid file that was not its own"
ok "a stale pid file taken over ($taken_over); at stop a pid file that replaced it is left alone"
stop_snmpd
