#!/bin/bash
# agent_dlmod_dci.sh -- the DCI Server of the snmpd module (dlmod mode,
# src/agent/embedded_dci.c), on snmpd's loop.
#
# In a private network namespace with a quiet veth pair (no addresses,
# IPv6 off: its counters stand still), a private snmpd loads dcistat.so
# with a configuration loading netif and naming a dci-socket (mode 0666)
# whose class 1.1 only the group dcih28dreaders may read. The test asserts:
#   - the socket file is there with mode 0666;
#   - through libdci (tests/libdci_consumer), every 64-bit counter and the
#     name of the quiet interface equal what snmpd serves for them
#     (dciStatCounter64, dciStatText), rx_bytes alone too;
#   - events: a consumer subscribed to DCI_INSTANCEADDED of class 1.1 gets
#     the ifIndexes of a veth pair created afterwards;
#   - a user outside dcih28dreaders gets DCI_NOTPRESENT for class 1.1;
#     one a rule "1.1/IFINDEX" admits reads that instance of class 1.1
#     alone (a wildcard gives it alone, lo is DCI_NOTPRESENT);
#   - a consumer that sends requests and never reads (until its socket
#     stops taking them) stalls nothing: 20 snmpgets each answer within
#     a second and another consumer is served meanwhile;
#   - a SIGHUP rereading the same snmpd.conf disconnects the consumers (the
#     debug log of token dci says so) and serves the socket again;
#   - a SIGHUP with the dlmod line gone unloads the module: the socket file
#     is removed, and nothing listens there;
#   - with the module loaded again, snmpd's SIGTERM removes the socket file.
# The test users and group are created here and removed on exit.
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
MODULE=$top_builddir/src/agent/.libs/dcistat.so
[ -f "$MODULE" ] || fail "$MODULE not built (run make)"
make_netns

DCI_C64=$DCI_ARC.1.5.1.4.2.1.1 # dciStatCounter64.<class 1.1>
D_RX_BYTES=12
GROUP=dcih28dreaders USER_OUT=dcih28dout USER_ONE=dcih28done

make_test_accounts "$GROUP" "$USER_OUT" "$USER_ONE"

# The socket and copies of the consumers where the test users reach them.
make_shared_dir dcih28d
share_test_program libdci_consumer
share_test_program dci_query
CONSUMER=$SHARED_DIR/libdci_consumer
QUERY=$SHARED_DIR/dci_query
SOCK=$SHARED_DIR/dci.sock
export DCISTAT_DCI_SOCKET=$SOCK

make_quiet_pair dd28a dd28b

config=$TMP_DIR/dcistat.yaml
cat >"$config" <<EOF2
agent:
  plugin-dir: $NETIF_PLUGIN_DIR
  dci-socket: $SOCK
  dci-socket-mode: "0666"
  dci-access:
    "1.1": {groups: [$GROUP]}
    "1.1/$QUIET": {users: [$USER_ONE]}
providers:
  - module: netif
    refresh: 0.2
EOF2

embedded_sanitizer_env "$MODULE"
SNMPD_ENV=("${EMBEDDED_ENV[@]}")
WITH_MODULE="dlmod dcistat $MODULE
dcistatConfig $config
dcistatDebug dci"
SNMPD_EXTRA_CONF=$WITH_MODULE
start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX

socket_there() { [ -S "$SOCK" ]; }
wait_until 10 socket_there || fail "no DCI socket at $SOCK within 10 s: $(tail -n 3 "$SNMPD_LOG")"
mode=$(stat -c %a "$SOCK") || fail "no socket at $SOCK"
[ "$mode" = 666 ] || fail "socket mode $mode, expected 666"
ok "snmpd's module serves the DCI socket, mode 666"

values_agree() { libdci_values_agree "$CONSUMER" "$QUIET"; }
wait_until 10 values_agree ||
    fail "dciGetData differs from snmpd's values: $(head -n 5 "$TMP_DIR/all.out")"
ok "dciGetData from snmpd's module: all $COMPARED values (64-bit counters, the name) of ifIndex $QUIET equal SNMP's; rx_bytes alone equals dciStatCounter64"

# --- events ----------------------------------------------------------------------
libdci_instances_added "$CONSUMER" 3 dd28c dd28d
ok "dciWaitEvent from snmpd's module: DCI_INSTANCEADDED for both ends of a new veth pair ($ADDED)"

# --- access control ----------------------------------------------------------
out=$(libdci_as "$USER_OUT" "$CONSUMER" get 1.1 '*' '*')
[ "$out" = "status NOTPRESENT" ] || fail "$USER_OUT read class 1.1: $out"
ok "$USER_OUT (not in $GROUP) gets DCI_NOTPRESENT for class 1.1"
out=$(libdci_as "$USER_ONE" "$CONSUMER" get 1.1 '*' "$D_RX_BYTES")
[ "$(head -n 1 <<<"$out")" = "status SUCCESS" ] &&
    [ "$(tail -n +2 <<<"$out" | cut -d ' ' -f 1 | xargs)" = "$QUIET" ] ||
    fail "$USER_ONE, admitted to instance $QUIET alone, read: $out"
out=$(libdci_as "$USER_ONE" "$CONSUMER" get 1.1 1 "$D_RX_BYTES")
[ "$out" = "status NOTPRESENT" ] || fail "$USER_ONE read lo (ifIndex 1): $out"
ok "$USER_ONE (rule 1.1/$QUIET) reads instance $QUIET of class 1.1 alone; lo is NOTPRESENT"

# --- a consumer that stops reading ------------------------------------------
REQUESTS=100000
"$QUERY" "$SOCK" stall "$REQUESTS" >"$TMP_DIR/stall.out" 2>&1 &
_lib_pids+=("$!")
stall_sent() { grep -q '^sent ' "$TMP_DIR/stall.out"; }
wait_until 20 stall_sent || fail "the stalling consumer did not fill its socket"
sent=$(sed -n 's/^sent //p' "$TMP_DIR/stall.out")
[ "$sent" -lt "$REQUESTS" ] ||
    fail "snmpd read all $sent requests: it never stopped reading"
slowest=0
for _ in $(seq 20); do
	start=$(now_ms)
	snmp_get "$DCI_C64.1.$QUIET.$D_RX_BYTES" >/dev/null ||
	    fail "snmpget failed while a DCI consumer is stalled"
	elapsed=$(($(now_ms) - start))
	[ "$elapsed" -gt "$slowest" ] && slowest=$elapsed
done
[ "$slowest" -lt 1000 ] || fail "an snmpget took $slowest ms while a DCI consumer is stalled"
"$QUERY" "$SOCK" get 1.1 "$QUIET" rx_bytes >/dev/null ||
    fail "another consumer is not served while one is stalled"
ok "with a consumer stalled after $sent requests, 20 snmpgets answered (slowest $slowest ms) and another consumer was served"

# --- reload and unload -------------------------------------------------------
kill -HUP "$SNMPD_PID"
stalled_dropped() { grep -q 'dcistat: .*consumer .*disconnected: stopping' "$SNMPD_LOG"; }
wait_until 10 stalled_dropped ||
    fail "the stalled consumer was not disconnected at SIGHUP"
wait_until 10 values_agree || fail "after SIGHUP the DCI socket is not served again"
ok "SIGHUP: the stalled consumer is disconnected, the module serves the DCI socket again"

SNMPD_EXTRA_CONF=
snmpd_conf_write "$TMP_DIR/snmpd.conf"
kill -HUP "$SNMPD_PID"
socket_gone() { [ ! -e "$SOCK" ]; }
wait_until 10 socket_gone || fail "the socket file is left after the module's unload"
"$CONSUMER" classes >/dev/null 2>&1 && fail "a consumer is still served after the unload"
snmp_get .1.3.6.1.2.1.1.3.0 >/dev/null || fail "snmpd does not answer after the unload"
ok "SIGHUP without the dlmod line: socket file removed, nothing served, snmpd answers"

SNMPD_EXTRA_CONF=$WITH_MODULE
snmpd_conf_write "$TMP_DIR/snmpd.conf"
kill -HUP "$SNMPD_PID"
wait_until 10 socket_there || fail "no DCI socket after loading the module again"
wait_until 10 values_agree || fail "the module loaded again does not serve libdci"
stop_snmpd
[ ! -e "$SOCK" ] || fail "the socket file is left after snmpd's SIGTERM"
check_embedded_sanitizer_log "$SNMPD_STDERR_LOG"
ok "loaded again, then snmpd's SIGTERM: the socket file is removed"
