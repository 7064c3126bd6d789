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
	local mode=$1
	start_agentx_master "$mode" framing --in-place "$mode" -D agent
	wait_agentx_master "in-place answers $mode" '^ok: the subagent still answers'
	ok "in-place answers $mode: $(grep -c '^ok:' "$AGENTX_MASTER_OUTPUT") checks of framing passed"
	stop_dcistatd
}

run_mode on
run_mode off
