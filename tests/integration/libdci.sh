#!/bin/bash
# libdci.sh -- libdci (<dci.h>) against the real dcistatd and its DCI
# Server (agent: dci-socket).
#
# In a private network namespace with a quiet veth pair (no addresses,
# IPv6 off: its counters stand still), a private snmpd master and dcistatd
# (netif provider) with the DCI Server on, class 1.1 readable only by the
# group dcih28lreaders. tests/libdci_consumer is a consumer written against
# <dci.h> alone. The test asserts:
#   - dciListClassId with DCI_ALL lists class 1.1;
#   - for the quiet interface, dciGetData with DCI_ALL gives every 64-bit
#     counter (UMA_UINT8) equal to dciStatCounter64 over SNMP and the name
#     (UMA_TEXTSTRING) equal to dciStatText; one datum asked alone (rx_bytes)
#     equals the same counter;
#   - an instance wildcard reads one rx_bytes per interface of the
#     namespace (the ifIndexes of /sys/class/net);
#   - the tutorial's consumer (doc/tutorial/dci-consumer.c) lists class
#     1.1 and prints the quiet interface's name and rx_bytes;
#   - events: a consumer that asked dciOpen for DCI_INSTANCEADDED of class
#     1.1 gets, through dciWaitEvent, the ifIndexes of a veth pair created
#     in the namespace afterwards;
#   - access control: a user outside dcih28lreaders gets DCI_NOTPRESENT for
#     class 1.1 and no class 1.1 in its listing.
# The test user and group are created here and removed on exit.
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
DCI_C64=$DCI_ARC.1.5.1.4.$NETIF   # dciStatCounter64.<class>
D_RX_BYTES=12
GROUP=dcih28lreaders USER_OUT=dcih28lout

make_test_accounts "$GROUP" "$USER_OUT"

# The socket and a copy of the consumer where the test user reaches them.
make_shared_dir dcih28l
share_test_program libdci_consumer
CONSUMER=$SHARED_DIR/libdci_consumer
export DCISTAT_DCI_SOCKET=$SHARED_DIR/dci.sock

make_quiet_pair dl28a dl28b

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_dci_config "$config" "$DCISTAT_DCI_SOCKET" "$GROUP"
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX

"$CONSUMER" classes >"$TMP_DIR/classes.out" ||
    fail "dciListClassId failed: $(cat "$TMP_DIR/classes.out")"
grep -qx '1\.1' "$TMP_DIR/classes.out" ||
    fail "no class 1.1 in: $(xargs <"$TMP_DIR/classes.out")"
ok "dciListClassId(DCI_ALL) lists class 1.1"

# Every 64-bit counter of the quiet interface equals dciStatCounter64, its
# name dciStatText; rx_bytes alone equals the same (lib.sh).
values_agree() { libdci_values_agree "$CONSUMER" "$QUIET"; }
wait_until 10 values_agree ||
    fail "dciGetData differs from SNMP: $(head -n 5 "$TMP_DIR/all.out")"
ok "dciGetData: all $COMPARED values (64-bit counters, the name) of ifIndex $QUIET equal SNMP's; rx_bytes alone equals dciStatCounter64"

expected=$(ns_run sh -c 'cat /sys/class/net/*/ifindex' | sort -n | xargs)
got=$("$CONSUMER" get 1.1 '*' "$D_RX_BYTES" | awk 'NR > 1 { print $1 }' | sort -n | xargs)
[ "$got" = "$expected" ] ||
    fail "wildcard instances '$got', the namespace has '$expected'"
ok "an instance wildcard reads every interface ($got)"

# The tutorial's consumer (doc/tutorial/dci-consumer.c) reads the same.
"$top_builddir/doc/tutorial/dci-consumer" >"$TMP_DIR/tutorial.out" 2>&1 ||
    fail "the tutorial consumer failed: $(cat "$TMP_DIR/tutorial.out")"
grep -q '^[0-9]* classes: .*\b1\.1\b' "$TMP_DIR/tutorial.out" &&
    grep -q "^ifIndex $QUIET: dl28b .*rx_bytes=[0-9]" "$TMP_DIR/tutorial.out" ||
    fail "the tutorial consumer printed: $(head -n 5 "$TMP_DIR/tutorial.out")"
ok "the tutorial consumer lists the classes and reads dl28b"

# A figure, not a verdict: a wildcarded read of every netif datum through
# libdci, and one snmpget of one value through the master.
timing=$("$CONSUMER" time 1.1 200) || fail "timed reads failed: $timing"
start=$(now_ms)
for _ in $(seq 20); do snmp_get "$DCI_C64.1.$QUIET.$D_RX_BYTES" >/dev/null; done
note "dciGetData 1.1 * *: $timing; snmpget of one value: $((($(now_ms) - start) / 20)) ms each (process included)"

# --- events ----------------------------------------------------------------------
libdci_instances_added "$CONSUMER" 5 dl28c dl28d
ok "dciWaitEvent: DCI_INSTANCEADDED for both ends of a new veth pair ($ADDED)"

# --- access control ----------------------------------------------------------
out=$(libdci_as "$USER_OUT" "$CONSUMER" get 1.1 '*' '*')
[ "$out" = "status NOTPRESENT" ] || fail "$USER_OUT read class 1.1: $out"
out=$(libdci_as "$USER_OUT" "$CONSUMER" classes)
! grep -qx '1\.1' <<<"$out" || fail "$USER_OUT sees class 1.1: $out"
grep -q . <<<"$out" || fail "$USER_OUT sees no class at all"
ok "$USER_OUT (not in $GROUP) gets DCI_NOTPRESENT for class 1.1, not listed"

stop_dcistatd
