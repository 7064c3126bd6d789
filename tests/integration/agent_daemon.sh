#!/bin/bash
# agent_daemon.sh -- dcistatd in the background (no -f), its pid file and
# log file (src/agent/daemon.c, base/log.c).
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
#     the daemon's) stays;
#   - with -u nobody: once started the daemon runs as nobody (real,
#     effective and saved uid and gid, nobody's groups only, no
#     capability), serves, and an isolated provider's process runs as
#     nobody too (where nobody can read the build tree); on SIGTERM it
#     removes its pid file from a directory nobody owns.
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

# --- -u nobody ---------------------------------------------------------------

NOBODY_UID=$(id -u nobody) || skip "no user nobody"
NOBODY_GID=$(id -g nobody)
chmod 711 "$TMP_DIR"
mkdir "$TMP_DIR/nobody"
chown nobody "$TMP_DIR/nobody"
GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
isolated=false
if command -v runuser >/dev/null 2>&1 && [ -f "$GOOD_SO" ] &&
    runuser -u nobody -- test -r "$GOOD_SO" -a -x "$ISOLATE" 2>/dev/null; then
	isolated=true
	cat >>"$CONFIG" <<YAML
  - module: $GOOD_SO
    isolate: true
    options:
      instances: 3
YAML
	export DCISTAT_ISOLATE_PROGRAM=$ISOLATE
fi
PID_FILE=$TMP_DIR/nobody/dcistatd.pid
timeout 20 "$DCISTATD" -c "$CONFIG" -p "$PID_FILE" -L "$TMP_DIR/nobody.log" -u nobody \
    </dev/null >/dev/null 2>"$TMP_DIR/nobody.err" ||
    fail "dcistatd -u nobody did not start: $(cat "$TMP_DIR/nobody.err") $(tail -n 3 "$TMP_DIR/nobody.log" | tr '\n' ' ')"
DCISTATD_PID=$(cat "$PID_FILE")
DCISTATD_LOG=$TMP_DIR/nobody.log
_lib_pids+=("$DCISTATD_PID")
wait_dcistatd_ready 20
status=/proc/$DCISTATD_PID/status
for field in Uid Gid; do
	expected=$NOBODY_UID
	[ "$field" = Gid ] && expected=$NOBODY_GID
	read -r -a ids <<<"$(awk -v f="$field:" '$1 == f { print $2, $3, $4, $5 }' "$status")"
	for id in "${ids[@]}"; do
		[ "$id" = "$expected" ] || fail "$field of the daemon: ${ids[*]}, expected $expected in all four"
	done
done
groups=$(awk '$1 == "Groups:" { $1 = ""; print }' "$status" | xargs)
expected_groups=$(id -G nobody | tr ' ' '\n' | sort -n | xargs)
[ "$(tr ' ' '\n' <<<"$groups" | sort -n | xargs)" = "$expected_groups" ] ||
    fail "the daemon's groups are '$groups', nobody's are '$expected_groups'"
capabilities=$(awk '$1 == "CapEff:" || $1 == "CapPrm:" { print $2 }' "$status" | sort -u)
[ "$capabilities" = 0000000000000000 ] || fail "the daemon keeps capabilities: $capabilities"
grep -q "running as user nobody" "$DCISTATD_LOG" || fail "no log line for the change of user"
summary="uid and gid $NOBODY_UID/$NOBODY_GID, groups '$groups', no capability"
if $isolated; then
	child_served() { [ "$(snmp_get "$DCI_ARC.1.4.1.2.2.9.1.1.2" 2>/dev/null)" = unit2 ]; }
	wait_until 10 child_served || fail "the isolated provider is not served under -u nobody"
	child=$(pgrep -P "$DCISTATD_PID" dcistat-isolate) || fail "no isolated process under the daemon"
	[ "$(awk '$1 == "Uid:" { print $3 }' "/proc/$child/status")" = "$NOBODY_UID" ] ||
	    fail "the isolated process does not run as nobody"
	summary="$summary; the isolated provider's process ($child) runs as nobody too"
else
	note "the build tree is not readable by nobody: the isolated provider is left out"
fi
ok "dcistatd -u nobody: $summary"
stop_daemon
[ ! -e "$PID_FILE" ] || fail "the daemon running as nobody left its pid file"
ok "dcistatd -u nobody stopped and removed its pid file"
stop_snmpd
