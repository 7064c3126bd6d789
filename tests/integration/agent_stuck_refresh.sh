#!/bin/bash
# agent_stuck_refresh.sh -- a provider whose refresh never returns does not
# hold dcistatd's stop or reload (runtime/loader.h: DCI_PLUGIN_STOP_WAIT).
#
# netif beside the test provider (tests/unit/process_provider.c), in
# process, whose refresh blocks while a file exists:
# 1. SIGTERM while its refresh is stuck: dcistatd exits 0 within the bound
#    (5 s) and a margin, logging that the provider was abandoned without
#    its fini, and the fini did not run.
# 2. A reload (SIGHUP) to a configuration without it: the provider is
#    abandoned (logged), netif is served on; once the stuck refresh
#    returns, what it asks is refused and the daemon serves on; it stops
#    cleanly (exit 0, no sanitizer report), the fini never run.
# 3. Not stuck: the same provider's fini runs at stop.
# 4. Isolated and stuck: SIGTERM ends its process at once (logged "stopped
#    during a refresh, killed"), nothing abandoned, no dcistat-isolate left,
#    dcistatd gone well within the bound.
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
require_cmd snmpd snmpget
require_built
PROCESS_SO=$top_builddir/tests/unit/.libs/process_provider.so
[ -f "$PROCESS_SO" ] || fail "$PROCESS_SO not built (run make check)"
BOUND_MS=5000

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
DCISTATD_FIRST_MODULE=netif
HANG=$TMP_DIR/hang FINI=$TMP_DIR/fini
# config FILE [stuck]: netif, and the test provider when "stuck" is given.
config() {
	cat >"$1" <<YAML
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
    refresh: 0.2
YAML
	[ "${2:-}" = stuck ] || return 0
	cat >>"$1" <<YAML
  - module: $PROCESS_SO
    refresh: 0.2
    isolate: ${3:-false}
    options:
      hang_while: $HANG
      fini_writes: $FINI
YAML
}
ABANDONED='provider process: its refresh did not return within 5000 ms of the stop; abandoned without running its fini'
config "$TMP_DIR/stuck.yaml" stuck
config "$TMP_DIR/netif.yaml"

# --- 1. SIGTERM -----------------------------------------------------------

: >"$HANG"
start_dcistatd "$TMP_DIR/stuck.yaml"
wait_dcistatd_ready 20
sleep 0.5 # its first refresh is under way, and stuck
stop_started=$(now_ms)
kill -TERM "$DCISTATD_PID"
wait_until $((BOUND_MS / 1000 + 5)) _lib_gone "$DCISTATD_PID" ||
    fail "dcistatd did not exit within $((BOUND_MS / 1000 + 5)) s of SIGTERM"
stop_ms=$(($(now_ms) - stop_started))
wait "$DCISTATD_PID"
status=$?
DCISTATD_PID=
check_sanitizer_log "$DCISTATD_LOG" dcistatd
[ "$status" -eq 0 ] || fail "dcistatd exited with status $status"
[ "$stop_ms" -ge "$BOUND_MS" ] || fail "stopped in $stop_ms ms, before the bound: was the refresh stuck?"
grep -q -F "$ABANDONED" "$DCISTATD_LOG" || fail "the log does not say the provider was abandoned"
[ ! -e "$FINI" ] || fail "the stuck provider's fini ran"
ok "SIGTERM with a refresh stuck: exit 0 after $stop_ms ms (bound $BOUND_MS ms), provider abandoned (logged), its fini not run"

# --- 2. Reload ------------------------------------------------------------

cp "$TMP_DIR/stuck.yaml" "$TMP_DIR/running.yaml"
start_dcistatd "$TMP_DIR/running.yaml"
wait_dcistatd_ready 20
sleep 0.5
cp "$TMP_DIR/netif.yaml" "$TMP_DIR/running.yaml"
kill -HUP "$DCISTATD_PID"
wait_until 15 grep -q 'reloaded .* 1 removed' "$DCISTATD_LOG" ||
    fail "the reload did not finish: $(tail -n 3 "$DCISTATD_LOG" | tr '\n' ' ')"
grep -q -F "$ABANDONED" "$DCISTATD_LOG" || fail "the reload does not say the provider was abandoned"
wait_until 5 dcistatd_serves || fail "netif not served after the reload"
ok "a reload removing the stuck provider abandons it (logged) and serves on"
rm -f "$HANG"
sleep 1 # the abandoned refresh returns and asks for a batch: refused
for _ in 1 2 3; do
	dcistatd_serves || fail "not served once the abandoned refresh returned"
	sleep 0.3
done
stop_dcistatd
[ ! -e "$FINI" ] || fail "the abandoned provider's fini ran"
ok "the abandoned refresh returned: refused, the daemon served on and stopped cleanly, the fini never run"

# --- 3. Not stuck ---------------------------------------------------------

start_dcistatd "$TMP_DIR/stuck.yaml"
wait_dcistatd_ready 20
stop_dcistatd
[ -e "$FINI" ] || fail "the provider's fini did not run at an ordinary stop"
grep -q 'abandoned' "$DCISTATD_LOG" && fail "a provider was abandoned at an ordinary stop"
ok "not stuck: its fini runs at stop, nothing abandoned"

# --- 4. Isolated and stuck ------------------------------------------------

ISOLATE=$top_builddir/src/isolate/dcistat-isolate
[ -x "$ISOLATE" ] || fail "$ISOLATE not built (run make)"
export DCISTAT_ISOLATE_PROGRAM=$ISOLATE
config "$TMP_DIR/isolated.yaml" stuck true
rm -f "$FINI"
: >"$HANG"
start_dcistatd "$TMP_DIR/isolated.yaml"
wait_dcistatd_ready 20
wait_until 10 grep -q 'provider process: running isolated' "$DCISTATD_LOG" ||
    fail "the provider did not start isolated"
sleep 0.5 # its refresh is under way, and stuck
stop_started=$(now_ms)
stop_dcistatd
stop_ms=$(($(now_ms) - stop_started))
[ "$stop_ms" -lt "$BOUND_MS" ] || fail "the stop took $stop_ms ms: the isolated refresh was waited for"
grep -q 'provider process: isolated process stopped during a refresh, killed' "$DCISTATD_LOG" ||
    fail "the log does not say the isolated process was killed at the stop"
grep -q 'abandoned' "$DCISTATD_LOG" && fail "the isolated provider was abandoned"
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived dcistatd"
ok "isolated and stuck: stopped in $stop_ms ms, its process killed (logged), nothing abandoned or left"
