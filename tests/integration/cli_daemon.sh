#!/bin/bash
# cli_daemon.sh -- dcistat(1) reads the running dcistatd through its DCI
# Server (agent: dci-socket) by default, and the providers in this process
# with --standalone or when no daemon answers.
#
# In a private network namespace with a quiet veth pair (no addresses,
# IPv6 off: its counters stand still), a private snmpd master and dcistatd
# (netif, and a provider whose file does not exist) with the DCI Server
# on. The test asserts:
#   - `show netif VETH` (text and --json, the stable columns) and
#     `classes` through the daemon equal `--standalone` on the same
#     namespace, with nothing on stderr and the same exit status (1: a
#     supplier failed);
#   - the quiet interface's rx_bytes through the daemon equals dciStatText
#     over SNMP;
#   - `suppliers --json` through the daemon shows the provider dcistatd
#     could not load as failed, with dcistatd's reason, and dcistat exits
#     non-zero for it as the local source does;
#   - with dcistatd stopped, one line on stderr says that no daemon answers
#     and the output is the standalone one; the same, within a second,
#     when a socket file is left with no listener, and when a listener
#     accepts and never answers;
#   - a configuration naming no dci-socket falls back silently.
#
# Needs root and `ip netns` (exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
require_root
require_cmd ip snmpd snmpget
require_built
make_netns

NETIF=2.1.1                      # class 1.1, length-prefixed
DCI_TEXT=$DCI_ARC.1.5.1.3.$NETIF # dciStatText.<class>
D_RX_BYTES=12

make_quiet_pair dc28ca dc28cb

SOCK=$TMP_DIR/dci.sock
start_snmpd
config=$TMP_DIR/dcistatd.yaml
cat >"$config" <<EOF2
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
  dci-socket: $SOCK
providers:
  - module: netif
    refresh: 0.2
  - module: $TMP_DIR/absent.so
EOF2
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX
wait_until 10 test -S "$SOCK" || fail "no DCI socket at $SOCK"

# cli NAME ARG...: dcistat in the namespace; stdout in $TMP_DIR/NAME.out,
# stderr in $TMP_DIR/NAME.err, the exit status in CLI_STATUS.
cli() {
	local name=$1
	shift
	ns_run "$DCISTAT" -c "$config" "$@" </dev/null \
	    >"$TMP_DIR/$name.out" 2>"$TMP_DIR/$name.err"
	CLI_STATUS=$?
}

# The veths stand still; lo does not (snmpd and dcistatd talk over it).
STABLE=name,mtu,rx_bytes,tx_bytes,rx_packets,tx_packets
for form in text json; do
	for veth in dc28ca dc28cb; do
		name=$form-$veth
		args=(show netif "$veth" -d "$STABLE")
		[ "$form" = json ] && args+=(--json)
		cli "daemon-$name" "${args[@]}"
		daemon_status=$CLI_STATUS
		[ -s "$TMP_DIR/daemon-$name.err" ] &&
		    fail "show netif $veth ($form) through the daemon wrote to stderr: $(cat "$TMP_DIR/daemon-$name.err")"
		cli "standalone-$name" --standalone "${args[@]}"
		# absent.so fails in both: both exit 1.
		[ "$daemon_status" -eq 1 ] && [ "$CLI_STATUS" -eq 1 ] ||
		    fail "show netif $veth ($form): status $daemon_status through the daemon, $CLI_STATUS standalone, expected 1 (a failed supplier)"
		cmp -s "$TMP_DIR/daemon-$name.out" "$TMP_DIR/standalone-$name.out" || {
			diff "$TMP_DIR/daemon-$name.out" "$TMP_DIR/standalone-$name.out" | head -20
			fail "show netif $veth ($form): the daemon's and --standalone differ"
		}
		grep -q "$veth" "$TMP_DIR/daemon-$name.out" ||
		    fail "show netif $veth ($form): not there: $(cat "$TMP_DIR/daemon-$name.out")"
	done
done
ok "show netif (text and JSON) through dcistatd equals --standalone"

cli daemon-classes classes
cli standalone-classes --standalone classes
cmp -s "$TMP_DIR/daemon-classes.out" "$TMP_DIR/standalone-classes.out" || {
	diff "$TMP_DIR/daemon-classes.out" "$TMP_DIR/standalone-classes.out" | head -20
	fail "classes: the daemon's and --standalone differ"
}
ok "classes through dcistatd equals --standalone"

cli rx show netif dc28cb -d rx_bytes --json
rx=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tables"][0]["rows"][0]["rx_bytes"])' \
    <"$TMP_DIR/rx.out" 2>/dev/null) || rx=
snmp_rx=$(snmp_get "$DCI_TEXT.1.$QUIET.$D_RX_BYTES")
[ -n "$rx" ] && [ "$rx" = "$snmp_rx" ] ||
    fail "rx_bytes of dc28cb: dcistat '$rx', dciStatText '$snmp_rx' ($(head -c 400 "$TMP_DIR/rx.out"))"
ok "rx_bytes of the quiet interface through dcistatd equals dciStatText ($rx)"

cli suppliers suppliers --json
[ "$CLI_STATUS" -ne 0 ] ||
    fail "suppliers: status 0 with a failed supplier, expected non-zero"
grep -q '"failed"' "$TMP_DIR/suppliers.out" && grep -q 'absent\.so' "$TMP_DIR/suppliers.out" ||
    fail "suppliers: no failed absent.so: $(cat "$TMP_DIR/suppliers.out")"
ok "the provider dcistatd could not load is shown failed, as dcistatd shows it"

stop_dcistatd
cli fallback show netif dc28cb -d "$STABLE"
cli standalone-after --standalone show netif dc28cb -d "$STABLE"
# The fallback line first, once; then the local source's own report of
# absent.so, as --standalone gives it.
head -n 1 "$TMP_DIR/fallback.err" | grep -q '^dcistat: no dcistatd answers (.*dci\.sock: No such file or directory)' &&
    [ "$(grep -c 'no dcistatd answers' "$TMP_DIR/fallback.err")" -eq 1 ] &&
    [ "$(tail -n +2 "$TMP_DIR/fallback.err")" = "$(cat "$TMP_DIR/standalone-after.err")" ] ||
    fail "without a daemon: stderr is not the one fallback line: $(cat "$TMP_DIR/fallback.err")"
cmp -s "$TMP_DIR/fallback.out" "$TMP_DIR/standalone-after.out" ||
    fail "without a daemon: the output is not --standalone's"
ok "without a daemon: one line on stderr, then the standalone output"

# fallback_bounded NAME WHY: dcistat fell back within a second (its
# providers' load included) with the one line giving WHY, and printed the
# standalone output.
fallback_bounded() {
	local name=$1 why=$2 start elapsed
	start=$(now_ms)
	cli "$name" show netif dc28cb -d "$STABLE"
	elapsed=$(($(now_ms) - start))
	[ "$elapsed" -lt 1500 ] || fail "$name: dcistat took $elapsed ms to fall back"
	head -n 1 "$TMP_DIR/$name.err" | grep -q "^dcistat: no dcistatd answers (.*dci\.sock: $why)" &&
	    [ "$(grep -c 'no dcistatd answers' "$TMP_DIR/$name.err")" -eq 1 ] ||
	    fail "$name: stderr is not the one fallback line: $(cat "$TMP_DIR/$name.err")"
	cmp -s "$TMP_DIR/$name.out" "$TMP_DIR/standalone-after.out" ||
	    fail "$name: the output is not --standalone's"
	ok "$name: fell back in $elapsed ms with one line ($why), the standalone output"
}

# A socket file no process listens on (a daemon killed, say).
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$SOCK" ||
    fail "cannot leave a socket file at $SOCK"
fallback_bounded stale-socket 'Connection refused'
rm -f "$SOCK"

# A listener that accepts and never answers (a daemon stopped, say).
python3 - "$SOCK" >"$TMP_DIR/mute.out" 2>&1 <<'PY' &
import socket, sys, time
listener = socket.socket(socket.AF_UNIX)
listener.bind(sys.argv[1])
listener.listen(8)
print("listening", flush=True)
held = []
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    listener.settimeout(deadline - time.monotonic())
    try:
        held.append(listener.accept()[0])
    except socket.timeout:
        break
PY
MUTE=$!
_lib_pids+=("$MUTE")
wait_until 5 grep -q listening "$TMP_DIR/mute.out" || fail "the mute listener did not start"
fallback_bounded mute-listener 'dcistatd did not answer in time'
kill "$MUTE" 2>/dev/null
rm -f "$SOCK"

sed '/dci-socket/d; /absent\.so/d' "$config" >"$TMP_DIR/plain.yaml"
ns_run "$DCISTAT" -c "$TMP_DIR/plain.yaml" classes </dev/null \
    >"$TMP_DIR/plain.out" 2>"$TMP_DIR/plain.err" ||
    fail "classes without a dci-socket failed: $(cat "$TMP_DIR/plain.err")"
[ -s "$TMP_DIR/plain.err" ] &&
    fail "no dci-socket configured, yet stderr: $(cat "$TMP_DIR/plain.err")"
ok "no dci-socket configured: the local source, silently"
