#!/bin/bash
# bad_input.sh -- dcistatd's answers to bad configurations, bad plug-ins and
# a missing or restarting AgentX master. Needs no root.
#
# Each case asserts the exit status and the message:
#  (a) malformed YAML             -t exits 1, stderr names FILE:3:1
#  (b) unknown key in agent       -t exits 1, names the key and FILE:3:3
#  (c) unknown module nosuch      -t exits 1, names PLUGIN-DIR/nosuch.so
#  (d) plug-in without the entry symbol   -t exits 1, names the .so
#  (e) plug-in of another ABI version     -t exits 1, names the .so
#  (f) valid configurations (the shipped conf/dcistatd.yaml, all built-in
#      providers, with plugin-dir pointed at the build, and a minimal one)
#      -t exits 0, "configuration OK"
#  (g) unknown netif option colour -t exits 1, names colour and FILE:5:15;
#      data-changed naming a datum netif lacks (mtux) or a counter
#      (rx_bytes): -t exits 1, names the datum and its FILE:LINE:COLUMN
#  (h) no master yet: dcistatd keeps running (>= 3 s), logs the failed
#      connection, and serves as soon as snmpd appears; SIGTERM -> exit 0
#  (i) master restart: snmpd stopped and started again on the same socket
#      and port; dcistatd rejoins within ping interval + 5 s and serves
#      values again; SIGTERM -> exit 0
# Every dcistatd run is also checked for sanitizer reports.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_built
started=$(now_ms)
skipped=()
TEST_PLUGIN_DIR=$top_builddir/tests/unit/.libs

# expect_check CASE STATUS CONFIG TEXT...: dcistatd -t -c CONFIG exits
# STATUS, and its stderr (stdout when STATUS is 0) contains each TEXT.
expect_check() {
	local case=$1 want=$2 config=$3 text where
	shift 3
	run_dcistatd "$TMP_DIR/out" "$TMP_DIR/err" -t -c "$config"
	where=$TMP_DIR/err
	[ "$want" -ne 0 ] || where=$TMP_DIR/out
	if [ "$RUN_STATUS" -ne "$want" ]; then
		sed 's/^/#   /' "$TMP_DIR/out" "$TMP_DIR/err"
		fail "($case) dcistatd -t -c ${config##*/} exited $RUN_STATUS, expected $want"
	fi
	for text in "$@"; do
		if ! grep -F -q -- "$text" "$where"; then
			sed 's/^/#   /' "$where"
			fail "($case) message lacks '$text'"
		fi
	done
	ok "($case) exit $RUN_STATUS: $(head -n 1 "$where")"
}

# --- (a) .. (g): configuration checks -------------------------------------------

f=$TMP_DIR/malformed.yaml
printf 'agent:\n  ping-interval: 1\n\tlog: stderr\nproviders:\n  - module: netif\n' >"$f"
expect_check a 1 "$f" "$f:3:1:" "YAML"

f=$TMP_DIR/unknown-key.yaml
printf 'agent:\n  ping-interval: 1\n  colour: red\nproviders:\n  - module: netif\n' >"$f"
expect_check b 1 "$f" "$f:3:3:" "colour"

f=$TMP_DIR/nosuch.yaml
printf 'agent:\n  plugin-dir: %s\nproviders:\n  - module: nosuch\n' "$NETIF_PLUGIN_DIR" >"$f"
expect_check c 1 "$f" "$f:4:13:" "$NETIF_PLUGIN_DIR/nosuch.so"

if [ ! -f "$TEST_PLUGIN_DIR/no_entry_provider.so" ] || [ ! -f "$TEST_PLUGIN_DIR/bad_abi_provider.so" ]; then
	note "building the test plug-ins"
	make -C "$top_builddir" tests/unit/no_entry_provider.la tests/unit/bad_abi_provider.la \
	    >"$TMP_DIR/make-plugins.out" 2>&1
fi
for plugin in no_entry_provider:d:"no symbol dci_provider_entry" \
    bad_abi_provider:e:"ABI version"; do
	IFS=: read -r name case text <<<"$plugin"
	if [ ! -f "$TEST_PLUGIN_DIR/$name.so" ]; then
		note "SKIP ($case): $TEST_PLUGIN_DIR/$name.so not built"
		skipped+=("$case")
		continue
	fi
	f=$TMP_DIR/$name.yaml
	printf 'agent:\n  plugin-dir: %s\nproviders:\n  - module: %s\n' "$TEST_PLUGIN_DIR" "$name" >"$f"
	expect_check "$case" 1 "$f" "$f:4:13:" "$TEST_PLUGIN_DIR/$name.so" "$text"
done

shipped=$top_builddir/conf/dcistatd.yaml
if [ -f "$shipped" ]; then
	f=$TMP_DIR/shipped.yaml
	grep -q '^  plugin-dir: ' "$shipped" || fail "(f) $shipped has no plugin-dir line"
	stage_providers "$TMP_DIR/providers"
	sed -e "s|^  plugin-dir: .*|  plugin-dir: $TMP_DIR/providers|" "$shipped" >"$f"
	expect_check f 0 "$f" "configuration OK"
else
	note "(f) $shipped not built; checking the minimal configuration only"
fi
f=$TMP_DIR/minimal.yaml
write_config "$f" 1 0.5 "$TMP_DIR/agentx.sock"
expect_check f 0 "$f" "configuration OK"

f=$TMP_DIR/colour.yaml
printf 'agent:\n  plugin-dir: %s\nproviders:\n  - module: netif\n    options: {colour: red}\n' \
    "$NETIF_PLUGIN_DIR" >"$f"
expect_check g 1 "$f" "$f:5:15:" "'colour'"

f=$TMP_DIR/watch.yaml
write_config "$f" 1 0.5 "$TMP_DIR/agentx.sock"
printf 'notifications:\n  data-changed:\n    netif: [mtu, mtux]\n' >>"$f"
expect_check g2 1 "$f" "$f:10:18:" 'class "netif" has no datum "mtux"'
printf 'notifications:\n  data-changed:\n    netif: [rx_bytes]\n' >"$f.tail"
write_config "$f" 1 0.5 "$TMP_DIR/agentx.sock"
cat "$f.tail" >>"$f"
expect_check g3 1 "$f" "$f:10:13:" 'datum "rx_bytes" of class "netif" is a counter'

# --- (h), (i): the AgentX master ------------------------------------------------

if ! command -v snmpd >/dev/null 2>&1 || ! command -v snmpget >/dev/null 2>&1; then
	note "SKIP (h), (i): snmpd or snmpget not found (apt-get install snmpd snmp)"
	skipped+=(h i)
else
	ping=1
	config=$TMP_DIR/dcistatd.yaml
	write_config "$config" "$ping" 0.2

	# (h) the master is not there yet.
	[ ! -e "$SNMPD_AGENTX" ] || fail "(h) $SNMPD_AGENTX exists already"
	start_dcistatd "$config"
	t0=$(now_ms)
	while [ $(($(now_ms) - t0)) -lt 3000 ]; do
		_lib_alive "$DCISTATD_PID" ||
		    fail "(h) dcistatd exited after $(($(now_ms) - t0)) ms without a master"
		sleep 0.2
	done
	# Why, and what to do; "waiting", not "started"; said once, not at
	# every ping interval.
	grep -F -q "agent: no AgentX socket $SNMPD_AGENTX: no master is listening there; start snmpd with 'master agentx'" "$DCISTATD_LOG" ||
	    fail "(h) dcistatd did not say why it cannot reach $SNMPD_AGENTX: $(grep -m 2 agent: "$DCISTATD_LOG" | tr '\n' ' ')"
	grep -F -q "AgentX subagent waiting for the master at $SNMPD_AGENTX" "$DCISTATD_LOG" ||
	    fail "(h) dcistatd does not say it waits for the master"
	! grep -q "subagent started\|Failed to connect" "$DCISTATD_LOG" ||
	    fail "(h) without a master: $(grep -m 1 "subagent started\|Failed to connect" "$DCISTATD_LOG")"
	[ "$(grep -c "no AgentX socket" "$DCISTATD_LOG")" = 1 ] ||
	    fail "(h) the missing socket said $(grep -c "no AgentX socket" "$DCISTATD_LOG") times in 3 s, not once"
	ok "(h) without a master dcistatd runs for 3 s and logs once: $(grep -F -m 1 "no AgentX socket" "$DCISTATD_LOG")"
	t0=$(now_ms)
	start_snmpd
	if ! wait_until $((ping + 5)) dcistatd_serves; then
		_lib_alive "$DCISTATD_PID" || fail "(h): dcistatd died"
		fail "(h) dcistatd does not serve within $((ping + 5)) s of the master's start"
	fi
	grep -F -q "AgentX subagent started: the master at $SNMPD_AGENTX answered" "$DCISTATD_LOG" ||
	    fail "(h) dcistatd serves but did not say the master answered"
	ok "(h) dcistatd serves $(($(now_ms) - t0)) ms after snmpd was started (ping interval ${ping} s), and says so"
	stop_dcistatd

	# (i) the master restarts under a running dcistatd.
	start_dcistatd "$config"
	wait_dcistatd_ready 10
	rx_lo=$DCI_ARC.1.5.1.4.2.1.1.1.1.12 # rx_bytes of ifIndex 1 (lo)
	before=$(snmp_get "$rx_lo") || fail "(i) no rx_bytes for lo before the restart"
	stop_snmpd
	_lib_alive "$DCISTATD_PID" || fail "(i) dcistatd exited when the master stopped"
	t0=$(now_ms)
	start_snmpd
	if ! wait_until $((ping + 5)) dcistatd_serves; then
		_lib_alive "$DCISTATD_PID" || fail "(i): dcistatd died"
		fail "(i) dcistatd has not rejoined $((ping + 5)) s after the master restarted"
	fi
	ok "(i) dcistatd rejoined the restarted master $(($(now_ms) - t0)) ms after snmpd was started again (ping interval ${ping} s)"
	after=$(snmp_get "$rx_lo") || fail "(i) no rx_bytes for lo after the restart"
	if ! { [[ $after =~ ^[0-9]+$ ]] && [ "$after" -ge "$before" ]; }; then
		fail "(i) lo rx_bytes after the restart is '$after', before it was $before"
	fi
	ok "(i) values served again: lo rx_bytes $before before, $after after the restart"
	stop_dcistatd
	stop_snmpd
fi

note "done in $(($(now_ms) - started)) ms${skipped[*]:+; skipped: ${skipped[*]}}"
exit 0
