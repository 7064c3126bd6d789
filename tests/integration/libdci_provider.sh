#!/bin/bash
# libdci_provider.sh -- a UMA DCI provider (tests/dci_provider.c, written
# against <dci.h>) registers its classes with dciRegister, adds instances
# and posts data; the real dcistatd (suppliers provider, DCI Server on)
# serves them under a private snmpd master. The test asserts:
#   - every value posted with DCI_STORE (a whole class data block: an
#     unsigned 64-bit counter, a negative 32-bit gauge, an unsigned 32-bit
#     gauge, a string) is what SNMP serves (dciStatCounter64,
#     dciStatInteger32, dciStatGauge32, dciStatText) and what dciGetData
#     returns (tests/libdci_consumer);
#   - one datum posted alone, its data in a buffer apart, and a counter
#     posted lower than before (it wraps forward to exactly that) read
#     back the same through both;
#   - a DCI_ADDRESS value the provider stores in place through the address
#     dciDatumAddress gave is served through both;
#   - an instance removed with dciRemoveInstance disappears from SNMP and
#     dciGetData answers DCI_NOTPRESENT for it, while the other stays;
#   - a consumer waiting with dciWaitEvent gets DCI_INSTANCEADDED for an
#     instance the provider adds and DCI_INSTANCEREMOVED for one it
#     removes (no dciPostEvent needed);
#   - a class laid out as a provider with a 256-byte string would (three
#     UMA_UINT4, a UMA_TEXTSTRING at 12, booleans at 272 and 276) is
#     described by dciGetClassAttributes at exactly those offsets, and
#     its values read at them; a layout the server cannot keep (a hole)
#     is refused by dciRegister with DCI_NOIMPLEMENTATION;
#   - a consumer that subscribes (dciOpen) to that class before the
#     provider registers it gets DCI_INSTANCEADDED for its instances;
#   - when the provider unregisters, its classes go.
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
require_cmd snmpd snmpget snmpwalk mkfifo
require_built
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
PROVIDER=$top_builddir/tests/dci_provider
CONSUMER=$top_builddir/tests/libdci_consumer
[ -x "$PROVIDER" ] || fail "tests/dci_provider is not built"
[ -x "$CONSUMER" ] || fail "tests/libdci_consumer is not built"

RUN=$TMP_DIR/run/suppliers
NUMBER=4343
# The provider's classes {3, NUMBER, 16} and {3, NUMBER, 17},
# length-prefixed as SNMP indexes them, and as libdci_consumer names them.
REQUESTS=3.3.$NUMBER.16
TRAFFIC=3.3.$NUMBER.17
REQUESTS_DCI=3.$NUMBER.16
TRAFFIC_DCI=3.$NUMBER.17
DCI_TEXT=$DCI_ARC.1.5.1.3
DCI_C64=$DCI_ARC.1.5.1.4
DCI_GAUGE32=$DCI_ARC.1.5.1.6
DCI_INTEGER32=$DCI_ARC.1.5.1.7
DCI_LABEL=$DCI_ARC.1.4.1.2
export DCISTAT_DCI_SOCKET=$TMP_DIR/dci.sock

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
cat >"$config" <<EOF2
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  dci-socket: $DCISTAT_DCI_SOCKET
providers:
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN
EOF2
start_dcistatd "$config"
wait_until 10 test -d "$RUN" ||
    fail "dcistatd did not create $RUN (log: $(tail -n 3 "$DCISTATD_LOG"))"

# The provider reads its commands from a FIFO held open here.
mkfifo "$TMP_DIR/commands" || fail "mkfifo"
DCISTAT_SUPPLIER_DIRECTORY=$RUN "$PROVIDER" "$NUMBER" \
    <"$TMP_DIR/commands" >"$TMP_DIR/provider.out" 2>&1 &
PROVIDER_PID=$!
_lib_pids+=("$PROVIDER_PID")
exec 3>"$TMP_DIR/commands"
wait_until 10 grep -qx ready "$TMP_DIR/provider.out" ||
    fail "the provider did not register: $(cat "$TMP_DIR/provider.out")"
answers=1
answered() { [ "$(wc -l <"$TMP_DIR/provider.out")" -ge "$answers" ]; }
# provider_send COMMAND...: sends one command and waits for its answer,
# left in ANSWER.
provider_send() {
	printf '%s\n' "$*" >&3
	answers=$((answers + 1))
	wait_until 5 answered ||
	    fail "the provider did not answer '$*': $(cat "$TMP_DIR/provider.out")"
	ANSWER=$(tail -n 1 "$TMP_DIR/provider.out")
}
# provider COMMAND...: sends one command; its answer must be "ok".
provider() {
	provider_send "$@"
	[ "$ANSWER" = ok ] || fail "'$*': $ANSWER"
}

# served INSTANCE SERVED QUEUE CLIENTS NAME: SNMP and dciGetData both give
# these values for instance INSTANCE of "requests".
served() {
	local instance=$1 got want
	got=$(snmp_get "$DCI_C64.$REQUESTS.1.$instance.1" \
	    "$DCI_INTEGER32.$REQUESTS.1.$instance.2" \
	    "$DCI_GAUGE32.$REQUESTS.1.$instance.3" \
	    "$DCI_TEXT.$REQUESTS.1.$instance.4" | xargs) || return 1
	want="$2 $3 $4 $5"
	[ "$got" = "$want" ] || { LAST="SNMP '$got', posted '$want'"; return 1; }
	"$CONSUMER" get "$REQUESTS_DCI" "$instance" '*' >"$TMP_DIR/get.out" ||
	    { LAST="dciGetData: $(head -n 1 "$TMP_DIR/get.out")"; return 1; }
	got=$(awk 'NR == 1 { printf "%s", $2; next } { printf " %s:%s:%s", $2, $3, $4 }' \
	    "$TMP_DIR/get.out")
	want="SUCCESS 1:u8:$2 2:i4:$3 3:u4:$4 4:text:$5"
	[ "$got" = "$want" ] || { LAST="dciGetData '$got', posted '$want'"; return 1; }
}

LAST=
wait_until 10 served 1 0 0 0 alpha ||
    fail "the initial values of alpha: $LAST (log: $(tail -n 3 "$DCISTATD_LOG"))"
ok "dciAddInstance's initial values of alpha served through SNMP and dciGetData"

provider post 1 100 -4 7 alpha-1
provider post 2 5000000000 12 1 beta-1
wait_until 10 served 1 100 -4 7 alpha-1 || fail "alpha after a post: $LAST"
wait_until 10 served 2 5000000000 12 1 beta-1 || fail "beta after a post: $LAST"
ok "DCI_STORE: whole blocks posted (counter, negative gauge, gauge, text) read back through SNMP and dciGetData"

provider set-served 1 150
wait_until 10 served 1 150 -4 7 alpha-1 || fail "alpha's counter posted alone: $LAST"
provider set-served 1 90
wait_until 10 served 1 90 -4 7 alpha-1 || fail "alpha's counter posted lower: $LAST"
ok "one datum posted alone (data apart), then lower: 150, then 90, through both"

# DCI_ADDRESS: the provider stores into the segment word itself.
traffic() {
	local got
	got=$(snmp_get "$DCI_C64.$TRAFFIC.1.3.1") || return 1
	[ "$got" = "$1" ] || { LAST="SNMP $got"; return 1; }
	got=$("$CONSUMER" get "$TRAFFIC_DCI" 3 1 | sed -n 2p)
	[ "$got" = "3 1 u8 $1" ] || { LAST="dciGetData '$got'"; return 1; }
}
provider address 123456789012
wait_until 10 traffic 123456789012 || fail "gamma's bytes stored in place: $LAST"
provider address 123456790012
wait_until 10 traffic 123456790012 || fail "gamma's bytes stored again: $LAST"
ok "DCI_ADDRESS: a value stored in place (dciDatumAddress) served through both"

provider remove 2
beta_gone() {
	[ -z "$(snmp_walk "$DCI_LABEL.$REQUESTS.1.2")" ] || return 1
	[ "$("$CONSUMER" get "$REQUESTS_DCI" 2 '*')" = "status NOTPRESENT" ]
}
wait_until 10 beta_gone || fail "beta is still served after dciRemoveInstance"
served 1 90 -4 7 alpha-1 || fail "alpha after beta's removal: $LAST"
ok "dciRemoveInstance: beta gone from SNMP, DCI_NOTPRESENT from dciGetData; alpha stays"

# Instance events follow from dciAddInstance and dciRemoveInstance.
"$CONSUMER" wait "$REQUESTS_DCI" 5 >"$TMP_DIR/events.out" 2>&1 &
WAITER=$!
_lib_pids+=("$WAITER")
subscribed() { grep -qx ready "$TMP_DIR/events.out"; }
wait_until 10 subscribed ||
    fail "the consumer did not subscribe: $(cat "$TMP_DIR/events.out")"
provider add 4 delta
wait_until 10 served 4 0 0 0 delta || fail "delta after dciAddInstance: $LAST"
provider remove 4
wait "$WAITER" || fail "no event came: $(xargs <"$TMP_DIR/events.out")"
got=$(grep -E '^(added|removed) ' "$TMP_DIR/events.out" | xargs)
[ "$got" = "added 4 removed 4" ] ||
    fail "events '$got', the provider added and removed instance 4"
ok "dciWaitEvent: DCI_INSTANCEADDED and DCI_INSTANCEREMOVED for an instance the provider added and removed"

# A consumer subscribes to class 18 before the provider registers it.
FLAGS_DCI=3.$NUMBER.18
"$CONSUMER" wait "$FLAGS_DCI" 60 >"$TMP_DIR/early.out" 2>&1 &
EARLY=$!
_lib_pids+=("$EARLY")
early_subscribed() { grep -qx ready "$TMP_DIR/early.out"; }
wait_until 10 early_subscribed ||
    fail "dciOpen refused events of class $FLAGS_DCI before it exists: $(xargs <"$TMP_DIR/early.out")"
provider register-flags
flags_listed() { "$CONSUMER" classes | grep -qx "$FLAGS_DCI"; }
wait_until 10 flags_listed || fail "class $FLAGS_DCI is not listed"
got=$("$CONSUMER" layout "$FLAGS_DCI" | xargs)
want="1 u4 0 2 u4 4 3 u4 8 4 text 12 5 bool 272 6 bool 276 255 u4 280"
[ "$got" = "$want" ] ||
    fail "dciGetClassAttributes of $FLAGS_DCI: '$got', registered '$want'"
ok "dciGetClassAttributes gives the offsets the provider registered (text at 12, booleans at 272 and 276)"
# flags INSTANCE LABEL: dciGetData reads the values add-flags gave.
flags() {
	local got
	"$CONSUMER" get "$FLAGS_DCI" "$1" '*' >"$TMP_DIR/flags.out" ||
	    { LAST="dciGetData: $(head -n 1 "$TMP_DIR/flags.out")"; return 1; }
	got=$(awk 'NR == 1 { printf "%s", $2; next } { printf " %s:%s:%s", $2, $3, $4 }' \
	    "$TMP_DIR/flags.out")
	[ "$got" = "SUCCESS 1:u4:11 2:u4:22 3:u4:33 4:text:$2 5:bool:1 6:bool:0" ] ||
	    { LAST="dciGetData '$got'"; return 1; }
}
provider add-flags 1 flagged
wait_until 10 flags 1 flagged || fail "instance 1 of $FLAGS_DCI: $LAST"
# Instance 2 comes after the class's first snapshot: its addition is an
# event whenever the suppliers provider first saw the class.
provider add-flags 2 later
wait_until 10 flags 2 later || fail "instance 2 of $FLAGS_DCI: $LAST"
early_added() { grep -qx 'added 2' "$TMP_DIR/early.out"; }
wait_until 10 early_added ||
    fail "no DCI_INSTANCEADDED for instance 2 of $FLAGS_DCI: $(xargs <"$TMP_DIR/early.out")"
kill "$EARLY" 2>/dev/null
wait "$EARLY" 2>/dev/null
ok "values read at the registered offsets; a consumer subscribed before the class existed got DCI_INSTANCEADDED ($(grep -c '^added' "$TMP_DIR/early.out") events)"
provider_send register-hole
[ "$ANSWER" = "status NOIMPLEMENTATION" ] ||
    fail "dciRegister of a layout with a hole: '$ANSWER', DCI_NOIMPLEMENTATION wanted"
ok "dciRegister refuses a layout the server cannot keep (a hole) with DCI_NOIMPLEMENTATION"

printf 'quit\n' >&3
exec 3>&-
wait "$PROVIDER_PID" || fail "the provider's dciUnregister failed"
classes_gone() { [ -z "$(snmp_walk "$DCI_LABEL.$REQUESTS")$(snmp_walk "$DCI_LABEL.$TRAFFIC")" ]; }
wait_until 10 classes_gone || fail "the provider's rows are still served after dciUnregister"
ok "dciUnregister: the provider's classes are no longer served"

stop_dcistatd
