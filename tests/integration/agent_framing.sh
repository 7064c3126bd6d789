#!/bin/bash
# agent_framing.sh -- how the master's requests are cut into reads does not
# change their answers: a small AgentX master (agentx_master.py, scenario
# "framing") on a private socket sends the real dcistatd serving netif
# several requests in one write (both byte orders, prefix-compressed
# names, included and excluded starts), one request split over three
# writes, a TestSet and a Get of a non-default context among Gets in one
# write whose last request is cut in two, and a PDU longer than Net-SNMP
# parses followed by a Get.
#
# Asserted by the master, with in-place answers on and off: each request
# is answered once (by packet id) and as the same request sent alone is;
# the TestSet is refused; the Get after the over-long PDU is answered, and
# the subagent still answers afterwards. Then dcistatd stops cleanly.
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

run_mode() {
	local mode=$1 socket=$TMP_DIR/master.$1.sock config=$TMP_DIR/$1.yaml
	local output=$TMP_DIR/master.$1.out master status
	cat >"$config" <<YAML
agent:
  agentx-socket: $socket
  ping-interval: 1
  plugin-dir: $NETIF_PLUGIN_DIR
providers:
  - module: netif
YAML
	python3 "$here/agentx_master.py" "$socket" framing 30 >"$output" 2>&1 &
	master=$!
	_lib_pids+=("$master")
	wait_until 10 test -S "$socket" || fail "the AgentX master did not listen"
	start_dcistatd "$config" --in-place "$mode" -D agent
	wait "$master"
	status=$?
	sed "s/^/# [$mode] /" "$output"
	[ "$status" -eq 0 ] || {
		sed 's/^/# dcistatd: /' "$DCISTATD_LOG" | tail -n 30
		fail "in-place answers $mode: the master's checks failed (status $status)"
	}
	grep -q '^ok: the subagent still answers' "$output" ||
	    fail "in-place answers $mode: the scenario did not finish"
	ok "in-place answers $mode: $(grep -c '^ok:' "$output") checks of framing passed"
	stop_dcistatd
}

run_mode on
run_mode off
