#!/bin/bash
# dci_budget.sh -- one local user's DCI requests cost the others nothing:
# each user's share of the daemon's CPU is bounded (agent: dci-work).
#
# dcistatd serves evcnt (per-CPU counts) and devstat with the DCI Server
# on. Two unprivileged users flood it, 4 connections each (the most one
# user may hold), each asking GET_DATA for every class, instance and
# datum again as soon as its answer is in; a third user reads the same
# once every 0.1 s, and snmpget asks for a supplier's module. The test
# asserts that during the flood:
#   - dcistatd takes at most DCI_BUDGET_CPU_MAX % of a core (default 10,
#     for a loaded machine; the shares are dci-work: 5, 2 x 5 ms per
#     second): without a budget it took as much as the flooders could
#     read (23 % and more on a machine the flooders share);
#   - both flooders are still answered (waited, not refused), and alike
#     (neither gets less than a third of the other's answers);
#   - the third user's reads and snmpget are answered, each in under
#     DCI_BUDGET_LATENCY_MAX_MS (default 1000) at the median.
# The figures (CPU, answers, bytes, CPU per answer, latencies idle and
# under the flood) are printed.
#
# Needs root, useradd and runuser (exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget useradd userdel groupadd groupdel runuser python3
hold_test_users_lock
require_built
EVCNT_SO=$(provider_so evcnt)
DEVSTAT_SO=$(provider_so devstat)
[ -r /proc/interrupts ] || skip "no /proc/interrupts"
CPU_MAX=${DCI_BUDGET_CPU_MAX:-10}
LATENCY_MAX=${DCI_BUDGET_LATENCY_MAX_MS:-1000}
FLOOD_SECONDS=10
GROUP=dcih39budget USER_A=dcih39a USER_B=dcih39b USER_C=dcih39c

make_test_accounts "$GROUP" "$USER_A" "$USER_B" "$USER_C"
make_shared_dir dcih39
if ! cp "$here/dci_flood.py" "$SHARED_DIR/dci_flood.py" ||
    ! chmod 755 "$SHARED_DIR/dci_flood.py"; then
	fail "cannot share dci_flood.py"
fi
FLOOD=$SHARED_DIR/dci_flood.py
SOCK=$SHARED_DIR/dci.sock

start_snmpd
config=$TMP_DIR/dcistatd.yaml
cat >"$config" <<EOF
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  dci-socket: $SOCK
  dci-socket-mode: "0666"
  dci-work: 5
providers:
  - module: $EVCNT_SO
    refresh: 1
  - module: $DEVSTAT_SO
    refresh: 1
EOF
DCISTATD_FIRST_MODULE=evcnt
start_dcistatd "$config"
wait_dcistatd_ready 10
wait_until 10 test -S "$SOCK" || fail "no DCI socket at $SOCK"
SNMP_TARGET=udp:127.0.0.1:$SNMPD_PORT

# cpu_ticks PID: its user and system time so far, in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# snmp_latency COUNT: "median max" of COUNT snmpgets, in milliseconds.
snmp_latency() {
	local i started times=()
	for ((i = 0; i < $1; i++)); do
		started=$(now_ms)
		[ "$(snmp_get "$DCI_SUPPLIER_MODULE_1")" = evcnt ] ||
		    fail "snmpget of dciSupplierModule.1 failed"
		times+=($(($(now_ms) - started)))
		sleep 0.1
	done
	printf '%s\n' "${times[@]}" | sort -n |
	    awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)], t[NR] }'
}

read -r idle_dci_median idle_dci_max < <(runuser -u "$USER_C" -- \
    "$FLOOD" probe "$SOCK" 20 0.1) || fail "the idle probe failed"
read -r idle_snmp_median idle_snmp_max < <(snmp_latency 10)
note "idle: DCI read ${idle_dci_median} ms median, ${idle_dci_max} ms max;" \
    "snmpget ${idle_snmp_median} ms median, ${idle_snmp_max} ms max"

runuser -u "$USER_A" -- "$FLOOD" flood "$SOCK" 4 "$FLOOD_SECONDS" \
    >"$TMP_DIR/a.out" 2>"$TMP_DIR/a.err" &
flood_a=$!
runuser -u "$USER_B" -- "$FLOOD" flood "$SOCK" 4 "$FLOOD_SECONDS" \
    >"$TMP_DIR/b.out" 2>"$TMP_DIR/b.err" &
flood_b=$!
_lib_pids+=("$flood_a" "$flood_b")
sleep 1 # the flood under way
ticks_before=$(cpu_ticks "$DCISTATD_PID")
measured_from=$(now_ms)
runuser -u "$USER_C" -- "$FLOOD" probe "$SOCK" 30 0.1 \
    >"$TMP_DIR/c.out" 2>"$TMP_DIR/c.err" &
probe=$!
read -r snmp_median snmp_max < <(snmp_latency 20)
wait "$probe" || fail "the third user's reads failed: $(cat "$TMP_DIR/c.err")"
ticks_after=$(cpu_ticks "$DCISTATD_PID")
measured_for=$(($(now_ms) - measured_from))
wait "$flood_a" || fail "user A's flood failed: $(cat "$TMP_DIR/a.err")"
wait "$flood_b" || fail "user B's flood failed: $(cat "$TMP_DIR/b.err")"
read -r dci_median dci_max <"$TMP_DIR/c.out"
read -r answers_a bytes_a <"$TMP_DIR/a.out"
read -r answers_b bytes_b <"$TMP_DIR/b.out"
hz=$(getconf CLK_TCK)
cpu=$(((ticks_after - ticks_before) * 1000000 / hz / measured_for))
cpu_us=$(((ticks_after - ticks_before) * 1000000 / hz))
answers=$((answers_a + answers_b))
[ "$answers" -gt 0 ] || fail "the flooders got no answer"
note "flood: dcistatd $((cpu / 10)).$((cpu % 10)) % of a core over" \
    "$measured_for ms; answers $answers_a + $answers_b in $FLOOD_SECONDS s," \
    "$(((bytes_a + bytes_b) / answers)) bytes each," \
    "$((cpu_us * FLOOD_SECONDS * 1000 / measured_for / answers)) us of CPU per answer"
note "under the flood: DCI read ${dci_median} ms median, ${dci_max} ms max;" \
    "snmpget ${snmp_median} ms median, ${snmp_max} ms max"

[ "$cpu" -le $((CPU_MAX * 10)) ] ||
    fail "dcistatd took $((cpu / 10)).$((cpu % 10)) % of a core under the flood (at most $CPU_MAX % expected)"
ok "dcistatd took $((cpu / 10)).$((cpu % 10)) % of a core under the flood of two users"
if [ "$answers_a" -eq 0 ] || [ "$answers_b" -eq 0 ] ||
    [ $((answers_a * 3)) -lt "$answers_b" ] ||
    [ $((answers_b * 3)) -lt "$answers_a" ]; then
	fail "the flooders were not served alike: $answers_a and $answers_b answers"
fi
ok "both flooders were served, alike ($answers_a and $answers_b answers)"
awk -v d="$dci_median" -v s="$snmp_median" -v m="$LATENCY_MAX" \
    'BEGIN { exit !(d <= m && s <= m) }' ||
    fail "latency under the flood: DCI ${dci_median} ms, snmpget ${snmp_median} ms (at most $LATENCY_MAX ms expected)"
ok "a third user's reads and snmpget were answered under the flood"
check_sanitizer_log "$DCISTATD_LOG" dcistatd
