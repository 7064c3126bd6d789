#!/bin/bash
# dci_server.sh -- dcistatd's DCI Server (agent: dci-socket) against SNMP.
#
# In a private network namespace with a quiet veth pair (no addresses,
# IPv6 off: its counters stand still), a private snmpd master and dcistatd
# (netif provider) with the DCI Server on, class 1.1 readable only by the
# group dcih28readers. tests/dci_query speaks the server's protocol. The
# test asserts:
#   - the socket file has the configured mode (0666);
#   - a class listing (pattern *) holds "1.1 netif";
#   - for the quiet interface, every value a DATUM=* read returns equals
#     dciStatText of the same class, instance and datum over SNMP, and
#     rx_bytes / tx_bytes read one datum at a time equal dciStatCounter64;
#   - a read with the instance wildcarded returns one rx_bytes per
#     interface of the namespace (the ifIndexes of /sys/class/net);
#   - access control: a user outside dcih28readers gets NOTPRESENT and no
#     class 1.1 in its listing; a user in it (a supplementary group) reads
#     the same rx_bytes as root;
#   - a message with a bad magic is answered DCI_PROTOCOL_ERROR with
#     INVALIDARG, then the connection is closed;
#   - a consumer that sends requests and never reads (until its socket
#     stops taking them) stalls nothing: 20 snmpgets each answer (the
#     slowest is reported), and another consumer is served meanwhile;
#     it is disconnected once its answer has gone unread for the stall
#     period (the debug log of token dci says so);
#   - dcistatd stops cleanly on SIGTERM and removes its socket file.
# Test users and group are created here and removed on exit.
#
# Needs root, `ip netns`, useradd and runuser (exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd ip snmpd snmpget useradd userdel groupadd groupdel runuser
hold_test_users_lock
require_built
make_netns

NETIF=2.1.1                       # class 1.1, length-prefixed
DCI_TEXT=$DCI_ARC.1.5.1.3.$NETIF  # dciStatText.<class>
DCI_C64=$DCI_ARC.1.5.1.4.$NETIF   # dciStatCounter64.<class>
D_RX_BYTES=12 D_TX_BYTES=13
GROUP=dcih28readers USER_IN=dcih28in USER_OUT=dcih28out

make_test_accounts "$GROUP" "$USER_IN+" "$USER_OUT"

# The socket and a copy of the consumer where the test users reach them.
make_shared_dir dcih28
share_test_program dci_query
QUERY=$SHARED_DIR/dci_query
SOCK=$SHARED_DIR/dci.sock

make_quiet_pair dh28a dh28b

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_dci_config "$config" "$SOCK" "$GROUP"
start_dcistatd "$config" -D dci
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX

mode=$(stat -c %a "$SOCK") || fail "no socket at $SOCK"
[ "$mode" = 666 ] || fail "socket mode $mode, expected 666"
ok "the DCI socket is there with mode 666"

"$QUERY" "$SOCK" classes '*' >"$TMP_DIR/classes.out" ||
    fail "class listing failed: $(cat "$TMP_DIR/classes.out")"
grep -q '^1\.1 netif 1 ' "$TMP_DIR/classes.out" ||
    fail "no class 1.1 netif in: $(cat "$TMP_DIR/classes.out")"
ok "the class listing holds 1.1 netif"

# Every value of the quiet interface equals dciStatText; rx/tx_bytes
# equal dciStatCounter64.
values_agree() {
	local instance id text oids=() texts=() got i
	"$QUERY" "$SOCK" get 1.1 "$QUIET" '*' >"$TMP_DIR/all.out" || return 1
	while read -r instance id _ text; do
		[ "$instance" = status ] && continue
		oids+=("$DCI_TEXT.1.$QUIET.$id")
		texts+=("$text")
	done <"$TMP_DIR/all.out"
	[ "${#oids[@]}" -ge 20 ] || return 1
	i=0
	while IFS= read -r got; do
		[ "$got" = "${texts[$i]}" ] || {
			note "datum ${oids[$i]##*.}: DCI '${texts[$i]}', SNMP '$got'"
			return 1
		}
		i=$((i + 1))
	done < <(snmp_get "${oids[@]}")
	[ "$i" -eq "${#oids[@]}" ] || return 1
	COMPARED=$i
	for id in "$D_RX_BYTES" "$D_TX_BYTES"; do
		got=$("$QUERY" "$SOCK" get 1.1 "$QUIET" "$id" | sed -n 2p)
		[ "${got##* }" = "$(snmp_get "$DCI_C64.1.$QUIET.$id")" ] || return 1
	done
}
wait_until 10 values_agree ||
    fail "DCI values differ from SNMP: $(head -n 5 "$TMP_DIR/all.out")"
ok "all $COMPARED values of ifIndex $QUIET equal dciStatText; rx/tx_bytes equal dciStatCounter64"

expected=$(ns_run sh -c 'cat /sys/class/net/*/ifindex' | sort -n | xargs)
got=$("$QUERY" "$SOCK" get 1.1 '*' rx_bytes | awk 'NR > 1 { print $1 }' | sort -n | xargs)
[ "$got" = "$expected" ] ||
    fail "wildcard instances '$got', the namespace has '$expected'"
ok "an instance wildcard reads every interface ($got)"

# --- access control ----------------------------------------------------------
out=$(runuser -u "$USER_OUT" -- "$QUERY" "$SOCK" get 1.1 '*' '*' 2>&1)
[ "$(head -n 1 <<<"$out")" = "status NOTPRESENT count 0" ] ||
    fail "$USER_OUT read class 1.1: $out"
out=$(runuser -u "$USER_OUT" -- "$QUERY" "$SOCK" classes '*' 2>&1)
! grep -q '^1\.1 ' <<<"$out" || fail "$USER_OUT sees class 1.1: $out"
ok "$USER_OUT (not in $GROUP) is refused class 1.1 (NOTPRESENT, not listed)"
in_rx=$(runuser -u "$USER_IN" -- "$QUERY" "$SOCK" get 1.1 "$QUIET" rx_bytes | sed -n 2p)
root_rx=$("$QUERY" "$SOCK" get 1.1 "$QUIET" rx_bytes | sed -n 2p)
if [ -z "$in_rx" ] || [ "$in_rx" != "$root_rx" ]; then
	fail "$USER_IN read '$in_rx', root '$root_rx'"
fi
ok "$USER_IN (in $GROUP as a supplementary group) reads class 1.1"

# --- bad input ---------------------------------------------------------------
out=$("$QUERY" "$SOCK" garbage)
[ "$out" = $'type 0xffff status INVALIDARG\nclosed' ] ||
    fail "a bad magic was answered: $out"
ok "a bad header is answered INVALIDARG and the connection closed"

# --- a consumer that stops reading ------------------------------------------
# slowest_get: the slowest of 20 snmpgets, in milliseconds, into $slowest.
slowest_get() {
	local start elapsed
	slowest=0
	for _ in $(seq 20); do
		start=$(now_ms)
		snmp_get "$DCI_C64.1.$QUIET.$D_RX_BYTES" >/dev/null ||
		    fail "snmpget failed ($1)"
		elapsed=$(($(now_ms) - start))
		[ "$elapsed" -gt "$slowest" ] && slowest=$elapsed
	done
}
slowest_get "no consumer connected"
baseline=$slowest
REQUESTS=100000
"$QUERY" "$SOCK" stall "$REQUESTS" >"$TMP_DIR/stall.out" 2>&1 &
_lib_pids+=("$!")
stall_sent() { grep -q '^sent ' "$TMP_DIR/stall.out"; }
wait_until 20 stall_sent || fail "the stalling consumer did not fill its socket"
sent=$(sed -n 's/^sent //p' "$TMP_DIR/stall.out")
[ "$sent" -lt "$REQUESTS" ] ||
    fail "the server read all $sent requests: it never stopped reading"
slowest_get "while a DCI consumer is stalled"
"$QUERY" "$SOCK" get 1.1 "$QUIET" rx_bytes >/dev/null ||
    fail "another consumer is not served while one is stalled"
ok "with a consumer stalled after $sent requests, 20 snmpgets answered (slowest $slowest ms; $baseline ms with no consumer) and another consumer was served"
stall_dropped() { grep -q 'disconnected: its answer stalled unread' "$DCISTATD_LOG"; }
wait_until 15 stall_dropped ||
    fail "the stalled consumer was not disconnected within 15 s"
ok "the stalled consumer is disconnected after its answer went unread"

stop_dcistatd
[ ! -e "$SOCK" ] || fail "the socket file is left after SIGTERM"
ok "the socket file is removed at stop"
