#!/bin/bash
# agent_second_copy.sh -- two dcistatd against one master.
#
# A Net-SNMP master refuses a second registration of a subtree (AgentX
# duplicateRegistration, 263) but removes a registration by name and
# priority whoever asks. A second dcistatd used to log the refusals, run on
# serving nothing, and at its stop unregister the first one's tables: the
# whole tree answered noSuchObject until the first one restarted.
#
#   - a second copy at start: dcistatd A (netif first) serves; dcistatd B
#     with the same tables (evcnt first) must exit non-zero within 10 s,
#     its log naming each of the six tables refused with
#     duplicateRegistration; A must answer every GET made while B lived
#     and for 3 s after (stated bound: A is never unplugged);
#   - an older copy's Unregister: another subagent (agentx_unregister.py)
#     unregisters the six tables at their priority, which the master
#     grants; A must answer every GET for 3 s after (it registers each
#     table at the next priority too, as a stand-by);
#   - a copy that came first: with A stopped (SIGSTOP), snmpd restarts and
#     B takes the tables; A, continued, reconnects, is refused, logs it and
#     keeps running; B stops; A must log that the master routes the tables
#     to it again and serve within 2 ping intervals (stated bound: the
#     refused tables are asked for again every ping interval).
#
# Needs root (snmpd's sockets).

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
EVCNT_SO=$(provider_so evcnt)
[ -f "$EVCNT_SO" ] || fail "$EVCNT_SO not built (run make)"

PING_INTERVAL=1
TABLES="dciSupplierTable dciClassTable dciDatumTable dciInstanceTable dciStatTable dciClassData"

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX

# A serves netif as supplier 1, B evcnt: whose tree answers is told apart.
config_a=$TMP_DIR/a.yaml
write_config "$config_a" "$PING_INTERVAL"
config_b=$TMP_DIR/b.yaml
write_agent_config "$config_b" "$PING_INTERVAL"
cat >>"$config_b" <<EOF
  - module: $EVCNT_SO
EOF

serves() { # MODULE: supplier 1 of the tree the master routes to is MODULE
	[ "$(snmp_get "$DCI_SUPPLIER_MODULE_1" 2>/dev/null)" = "$1" ]
}

continue_a() { [ -z "${pid_a:-}" ] || kill -CONT "$pid_a" 2>/dev/null; }
at_exit continue_a

# --- a second copy at start --------------------------------------------------------

DCISTATD_FIRST_MODULE=netif
start_dcistatd "$config_a"
wait_dcistatd_ready 10
pid_a=$DCISTATD_PID log_a=$DCISTATD_LOG

start_dcistatd "$config_b"
pid_b=$DCISTATD_PID log_b=$DCISTATD_LOG
DCISTATD_PID=
gets=0 unanswered=0
while _lib_alive "$pid_b" && ((gets < 50)); do
	gets=$((gets + 1))
	serves netif || unanswered=$((unanswered + 1))
	sleep 0.2
done
_lib_alive "$pid_b" && fail "the second dcistatd still runs after $gets GETs (10 s)"
wait "$pid_b"
status=$?
check_sanitizer_log "$log_b" "the second dcistatd"
[ "$status" -ne 0 ] || fail "the second dcistatd exited with status 0"
for table in $TABLES; do
	grep -q "refused $table (.*duplicateRegistration (263)" "$log_b" ||
	    fail "the second dcistatd's log does not name $table as refused: $(tr '\n' ' ' <"$log_b")"
done
ok "the second dcistatd exited with status $status, its log naming the six tables refused (duplicateRegistration)"
end=$(($(now_ms) + 3000))
while (($(now_ms) < end)); do
	gets=$((gets + 1))
	serves netif || unanswered=$((unanswered + 1))
	sleep 0.2
done
((unanswered == 0)) ||
    fail "the first dcistatd did not answer $unanswered of $gets GETs while the second lived and for 3 s after"
ok "the first dcistatd answered all $gets GETs, while the second lived and for 3 s after it"

# --- an older copy's Unregister -------------------------------------------------

# What an older dcistatd, refused at start, sent at its stop: an Unregister
# of each table at the priority it asked for (Net-SNMP's default, 127).
for number in 1 2 3 4 5 6; do
	result=$(python3 "$here/agentx_unregister.py" "$SNMPD_AGENTX" \
	    "$DCI_ARC.1.$number" 127) || fail "agentx_unregister.py: $result"
	[ "$result" = "unregister: 0" ] ||
	    fail "the master did not remove $DCI_ARC.1.$number at priority 127: $result"
done
ok "another subagent unregistered the six tables at priority 127 (the master took it)"
gets=0 unanswered=0
end=$(($(now_ms) + 3000))
while (($(now_ms) < end)); do
	gets=$((gets + 1))
	serves netif || unanswered=$((unanswered + 1))
	sleep 0.2
done
((unanswered == 0)) ||
    fail "the first dcistatd did not answer $unanswered of $gets GETs after another subagent's Unregister"
ok "the first dcistatd answered all $gets GETs in the 3 s after it (served by its stand-by registrations)"

# --- a copy that came first ---------------------------------------------------------

kill -STOP "$pid_a"
stop_snmpd
start_snmpd
DCISTATD_FIRST_MODULE=evcnt
start_dcistatd "$config_b"
wait_dcistatd_ready 10
pid_b=$DCISTATD_PID log_b=$DCISTATD_LOG
kill -CONT "$pid_a"
refused() { grep -q "refused dciSupplierTable .*asked for again" "$log_a"; }
wait_until 10 refused ||
    fail "dcistatd A did not log the refusal after it reconnected: $(tail -n 5 "$log_a" | tr '\n' ' ')"
_lib_alive "$pid_a" || fail "dcistatd A exited after a refusal on reconnection"
serves evcnt || fail "dcistatd B, which registered first, is not served"
ok "dcistatd A reconnected, was refused (logged), runs on; B, first, is served"

DCISTATD_PID=$pid_b DCISTATD_LOG=$log_b
stop_dcistatd
stopped=$(now_ms)
wait_until $((2 * PING_INTERVAL)) serves netif ||
    fail "dcistatd A not served within $((2 * PING_INTERVAL)) s of B's stop"
took=$(($(now_ms) - stopped))
for table in $TABLES; do
	grep -q "master now routes $table (priority 127) to dcistatd" "$log_a" ||
	    fail "dcistatd A's log does not say it serves $table again"
done
ok "dcistatd A served again $took ms after B stopped (bound: 2 ping intervals of $PING_INTERVAL s), each table's return logged"

DCISTATD_PID=$pid_a DCISTATD_LOG=$log_a DCISTATD_FIRST_MODULE=netif
stop_dcistatd
check_netsnmp_callbacks_log "$log_b" "dcistatd B"
stop_snmpd
exit 0
