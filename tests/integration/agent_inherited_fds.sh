#!/bin/bash
# agent_inherited_fds.sh -- dcistatd in the background keeps none of the
# descriptors it was started with (src/agent/daemon.c).
#
# A shell holds an exclusive flock on a lock file (descriptor 9) and a
# pipe (descriptor 8, whose reader waits for its end) and starts dcistatd
# in the background from there. Once the daemon serves and the shell
# released its own copies:
#   - `flock -n` on the lock file succeeds (the daemon holds no copy);
#   - the pipe's reader sees its end (the daemon holds no write end);
#   - /proc/PID/fd of the daemon lists no pipe and not the lock file;
#   - the daemon still writes its log and pid file, and serves.
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
require_cmd snmpd snmpget flock timeout readlink
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
LOCK=$TMP_DIR/job.lock PID_FILE=$TMP_DIR/dcistatd.pid
DCISTATD_LOG=$TMP_DIR/dcistatd.log
PIPE_DONE=$TMP_DIR/pipe.done

# The starting shell: holds the lock and a pipe's write end (its reader
# writes PIPE_DONE once every write end is closed) while it starts the
# daemon, then lets them go.
(
	exec 9>"$LOCK" 8> >(cat >/dev/null; : >"$PIPE_DONE")
	flock -x 9 || exit 3
	readlink /proc/self/fd/8 >"$TMP_DIR/pipe.name"
	timeout 20 "$DCISTATD" -c "$CONFIG" -p "$PID_FILE" -L "$DCISTATD_LOG" </dev/null >/dev/null 2>&1
) || fail "dcistatd did not start in the background: $(tail -n 3 "$DCISTATD_LOG" | tr '\n' ' ')"
DCISTATD_PID=$(cat "$PID_FILE")
_lib_pids+=("$DCISTATD_PID")
_lib_alive "$DCISTATD_PID" || fail "no daemon running"
wait_dcistatd_ready 20

flock -n "$LOCK" true ||
    fail "the lock file is still locked: the daemon ($DCISTATD_PID) kept the caller's descriptor"
ok "flock -n on the caller's lock file succeeds while the daemon runs"
wait_until 5 test -e "$PIPE_DONE" ||
    fail "the caller's pipe is still open: the daemon kept its write end"
ok "the caller's pipe saw its end while the daemon runs"
for fd in /proc/"$DCISTATD_PID"/fd/*; do
	target=$(readlink "$fd") || continue
	# The daemon's own pipes (refresh notifications) are allowed.
	case $target in
	"$(cat "$TMP_DIR/pipe.name")") fail "descriptor ${fd##*/} is the caller's pipe ($target)" ;;
	"$LOCK") fail "descriptor ${fd##*/} is the caller's lock file" ;;
	esac
done
ok "/proc/$DCISTATD_PID/fd holds neither the caller's pipe nor its lock file"
grep -q 'AgentX subagent started' "$DCISTATD_LOG" || fail "the daemon's log is not written"

kill -TERM "$DCISTATD_PID"
wait_until 10 _lib_gone "$DCISTATD_PID" || fail "the daemon did not stop within 10 s"
[ ! -e "$PID_FILE" ] || fail "the pid file outlived the daemon"
ok "the daemon stopped and removed its pid file"
