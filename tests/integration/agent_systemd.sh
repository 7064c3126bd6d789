#!/bin/bash
# agent_systemd.sh -- dcistatd under systemd (contrib/systemd).
#
#   - The unit the build makes passes `systemd-analyze verify` (with
#     ExecStart pointing at the built dcistatd) and its offline security
#     analysis rates its exposure at most 2.0 (of 10; "OK").
#   - Built with libsystemd (Type=notify): dcistatd -f, given a
#     NOTIFY_SOCKET as systemd gives one, sends READY=1 with its MAINPID
#     only once it serves (dciSupplierTable answers right after), then
#     RELOADING=1 and READY=1 around a SIGHUP reload, and STOPPING=1 on
#     SIGTERM. What it sends is read by a datagram socket in Python, as
#     systemd reads it.
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
require_cmd snmpd snmpget python3
require_built
UNIT=$top_builddir/contrib/systemd/dcistatd.service
[ -f "$UNIT" ] || fail "$UNIT not built (run make)"

# --- the unit ---------------------------------------------------------------

if command -v systemd-analyze >/dev/null 2>&1; then
	sed "s|^ExecStart=[^ ]*|ExecStart=$DCISTATD|" "$UNIT" >"$TMP_DIR/dcistatd.service"
	systemd-analyze verify --man=no "$TMP_DIR/dcistatd.service" >"$TMP_DIR/verify.out" 2>&1 ||
	    fail "systemd-analyze verify: $(cat "$TMP_DIR/verify.out")"
	systemd-analyze security --offline=yes "$TMP_DIR/dcistatd.service" >"$TMP_DIR/security.out" 2>&1 ||
	    fail "systemd-analyze security: $(tail -n 3 "$TMP_DIR/security.out")"
	exposure=$(sed -n 's/.*Overall exposure level for dcistatd.service: \([0-9.]*\).*/\1/p' "$TMP_DIR/security.out")
	[ -n "$exposure" ] || fail "no exposure level in: $(tail -n 2 "$TMP_DIR/security.out")"
	awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }' || fail "exposure $exposure, more than 2.0"
	ok "the unit ($(sed -n 's/^Type=//p' "$UNIT")) passes systemd-analyze verify; exposure $exposure"
else
	note "systemd-analyze not found: the unit is not verified"
fi

# --- sd_notify ----------------------------------------------------------------

if ! ldd "$DCISTATD" | grep -q libsystemd; then
	note "dcistatd is built without libsystemd: no sd_notify to check"
	exit 0
fi
start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
NOTIFY=$TMP_DIR/notify.sock MESSAGES=$TMP_DIR/notify.messages
python3 - "$NOTIFY" "$MESSAGES" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        message = s.recv(4096).decode()
        out.write(message.replace("\n", " ") + "\n")
PY
_lib_pids+=("$!")
wait_until 5 test -S "$NOTIFY" || fail "the notification socket is not there"
: >"$MESSAGES"
cat >"$TMP_DIR/c.yaml" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
YAML
# serves_at_ready: dciSupplierTable answers once READY=1 was sent.
ready_sent() { grep -q '^READY=1' "$MESSAGES"; }
NOTIFY_SOCKET=$NOTIFY start_dcistatd "$TMP_DIR/c.yaml"
wait_until 20 ready_sent || fail "no READY=1 from dcistatd: $(cat "$MESSAGES")"
[ "$(snmp_get "$DCI_SUPPLIER_MODULE_1")" = netif ] || fail "READY=1 sent, but dciSupplierTable does not answer"
grep -q "^READY=1 MAINPID=$DCISTATD_PID\$" "$MESSAGES" ||
    fail "READY=1 without MAINPID=$DCISTATD_PID: $(cat "$MESSAGES")"
ok "READY=1 MAINPID=$DCISTATD_PID once serving"
kill -HUP "$DCISTATD_PID"
reloaded() { [ "$(grep -c '^READY=1' "$MESSAGES")" -ge 2 ]; }
wait_until 10 reloaded || fail "no READY=1 after the reload: $(cat "$MESSAGES")"
[ "$(sed -n 2p "$MESSAGES" | cut -d ' ' -f 1)" = RELOADING=1 ] ||
    fail "the reload did not begin with RELOADING=1: $(cat "$MESSAGES")"
ok "SIGHUP: RELOADING=1, then READY=1"
stop_dcistatd
stopping() { grep -q '^STOPPING=1' "$MESSAGES"; }
wait_until 5 stopping || fail "no STOPPING=1: $(cat "$MESSAGES")"
ok "SIGTERM: STOPPING=1 ($(wc -l <"$MESSAGES") messages: $(cut -d ' ' -f 1 "$MESSAGES" | tr '\n' ' '))"
stop_snmpd
