#!/bin/bash
# agent_example.sh -- every datum of the example provider, as dcistatd serves
# it in dciStatTable.
#
# dcistatd runs the example provider (class 2.1) with instances: 3 and
# churn_seconds: 1 under a private snmpd master. For instance 2 (unit2) the
# test asserts, with one GET per column, the SNMP type and value of every
# served datum in its typed column (Counter64, Counter32, Gauge32, Integer32,
# String, IpAddress, MacAddress, TimeTicks, TruthValue) and its dciStatText,
# against the table at the head of src/providers/example/example.c:
#   - booleans: on/off ... after SBF_INVERTED, TruthValue true(1)/false(2);
#   - integers of each width, sign and byte order; hexadecimal, decimal and
#     dotted texts; raw bytes read in the datum's byte order;
#   - signed 64-bit integers only in dciStatText; ST_UNUSED in no column;
#   - addresses (MAC, IP, Econet, "none"); times as durations, dates, and
#     TimeStamps (2026-01-01 before the agent started: 0; the provider's
#     init time: 0 < TimeStamp <= sysUpTime);
#   - dciStatType per type; counters alone have dciStatDiscontinuity;
#   - the text column of unit2 holds exactly the documented datums;
#   - instances unit1..unit3 with instance_number 1..3; the refreshes counter
#     grows; the transient instance 4 comes, goes and comes back;
#   - bad option values are refused with their position, and an unknown
#     option key by the host; examples/example.yaml.in passes dcistatd -t.
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
require_cmd snmpd snmpget snmpwalk timeout
require_built
EXAMPLE_SO=$(provider_so example)
[ -f "$EXAMPLE_SO" ] || fail "$EXAMPLE_SO not built (run make)"
started=$(now_ms)

CLASS=2.2.1                        # class {2, 1}, length-prefixed
STAT=$DCI_ARC.1.5.1                # dciStatEntry
LABELS=$DCI_ARC.1.4.1.2.$CLASS     # dciInstanceLabel of the class
ROW=1.2                            # instance 2 (unit2), length-prefixed
SYS_UPTIME=.1.3.6.1.2.1.1.3.0
# dciStatTable columns.
C_LABEL=1 C_TYPE=2 C_TEXT=3 C_COUNTER64=4 C_COUNTER32=5 C_GAUGE32=6
C_INTEGER32=7 C_STRING=8 C_IPADDRESS=9 C_MACADDRESS=10 C_TIMETICKS=11
C_TRUTHVALUE=12 C_DISCONTINUITY=13 C_HUNDREDTHS=14
# Derived datums: id = arg1 << 24 | arg2 << 16 | arg3 << 8 | own number.
D_SUM2=388038736 D_SUM3=421801553 D_DIFFERENCE=723583058
D_NEGATIVE=556466259 D_SIGNED=337051732 D_AVERAGE=555286613
D_PERCENT=420937814 D_PRODUCT=388038743 D_OVERFLOW=926220376
D_VARIANCE=421602393 D_BY_ZERO=389742682
D_YAML_SUM=387514459 # declared in the YAML file below: 23 + 25, number 91
# Datums whose value is not a constant.
D_REFRESHES=56 D_INIT_TIME=74 D_UNUSED=99

# cell COLUMN DATUM [INSTANCE]: the OID of a dciStatTable cell.
cell() { printf '%s.%s.%s.1.%s.%s\n' "$STAT" "$1" "$CLASS" "${3:-2}" "$2"; }

# typed_get OID...: one GET; prints "OID = TYPE: VALUE" lines as
# snmpget -On -Oe prints them, TimeTicks as "Timeticks: (N)" without the
# d:hh:mm:ss.cc rendering, and without the blank after a Hex-STRING.
typed_get() {
	local out
	out=$(ns_run snmpget "${SNMP_OPTS[@]}" -On -Oe "$SNMP_TARGET" "$@" 2>&1) ||
	    fail "snmpget failed: $out"
	sed -e 's/\(Timeticks: ([0-9]*)\).*/\1/' -e 's/ *$//' <<<"$out"
}

# typed_value OID: the "TYPE: VALUE" of one OID.
typed_value() { typed_get "$1" | sed 's/^[^ ]* = //'; }

# check_column COLUMN NAME DATUM=EXPECTED...: one GET of COLUMN for every
# DATUM of unit2; each must read EXPECTED ("TYPE: VALUE", as typed_get
# prints it).
check_column() {
	local column=$1 name=$2 item expected="" got
	local oids=()
	shift 2
	for item in "$@"; do
		oids+=("$(cell "$column" "${item%%=*}")")
		expected+="$(cell "$column" "${item%%=*}") = ${item#*=}"$'\n'
	done
	got=$(typed_get "${oids[@]}")$'\n'
	if [ "$got" != "$expected" ]; then
		diff <(printf '%s' "$expected") <(printf '%s' "$got") | sed 's/^/#   /'
		fail "$name of unit2: served values differ from the documented ones (<: documented, >: served)"
	fi
	ok "$name: $# datums of unit2 as documented"
}

# check_absent DATUM COLUMN...: one GET; DATUM has no row in any COLUMN.
check_absent() {
	local datum=$1 column got
	local oids=()
	shift
	for column in "$@"; do
		oids+=("$(cell "$column" "$datum")")
	done
	got=$(typed_get "${oids[@]}")
	if grep -v -q 'No Such Instance currently exists at this OID$' <<<"$got"; then
		printf '%s\n' "$got" | sed 's/^/#   /'
		fail "datum $datum has rows in columns that should not have it (above)"
	fi
	ok "datum $datum has no row in columns $*"
}

# --- the shipped example configuration --------------------------------------

shipped=$TMP_DIR/example.yaml
sed -e "s|@providerdir[@]|${EXAMPLE_SO%/*}|g" "$top_srcdir/examples/example.yaml.in" >"$shipped" ||
    fail "cannot read $top_srcdir/examples/example.yaml.in"
run_dcistatd "$TMP_DIR/out" "$TMP_DIR/err" -t -c "$shipped"
[ "$RUN_STATUS" -eq 0 ] || {
	sed 's/^/#   /' "$TMP_DIR/err"
	fail "dcistatd -t rejects examples/example.yaml.in (plugin-dir: the build tree)"
}
ok "examples/example.yaml.in passes dcistatd -t with plugin-dir set to the build tree"

# --- bad options: refused by -t, with their position; failed at start ------

# expect_refused YAML-OPTIONS TEXT: dcistatd -t with the example and these
# options exits 1 and says TEXT; dcistatd -f logs TEXT and keeps running
# (the provider is shown failed and retried; the others would be served).
expect_refused() {
	local config=$TMP_DIR/refused.yaml status pid
	write_agent_config "$config" 1
	cat >>"$config" <<EOF
  - module: $EXAMPLE_SO
    options:
$1
EOF
	timeout 20 "$DCISTATD" -t -c "$config" -L stderr </dev/null \
	    >"$TMP_DIR/refused.log" 2>&1
	status=$?
	check_sanitizer_log "$TMP_DIR/refused.log" "dcistatd -t with bad options"
	if [ "$status" -ne 1 ] || ! grep -F -q -- "$2" "$TMP_DIR/refused.log"; then
		sed 's/^/#   /' "$TMP_DIR/refused.log"
		fail "dcistatd -t, options '$1': exit $status, expected 1 with '$2'"
	fi
	"$DCISTATD" -f -c "$config" -L stderr </dev/null >"$TMP_DIR/failed.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -F -q -- "$2" "$TMP_DIR/failed.log" && break
		sleep 0.1
	done
	if ! kill -0 "$pid" 2>/dev/null || ! grep -F -q -- "$2" "$TMP_DIR/failed.log"; then
		sed 's/^/#   /' "$TMP_DIR/failed.log"
		fail "dcistatd -f, options '$1': expected it running, having logged '$2'"
	fi
	# 143: the SIGTERM came before the loop's handler was installed.
	kill -TERM "$pid"
	wait "$pid"
	status=$?
	[ "$status" -eq 0 ] || [ "$status" -eq 143 ] ||
	    fail "dcistatd -f, options '$1': exit status $status after SIGTERM"
	check_sanitizer_log "$TMP_DIR/failed.log" "dcistatd -f with bad options"
	ok "refused by -t, failed and retried at start: $(grep -F -- "$2" "$TMP_DIR/refused.log" | sed "s|$TMP_DIR/||")"
}
expect_refused "      instances: 0" \
    "refused.yaml:7:7: provider example: option 'instances': expected a number from 1 to 10000000, found \"0\""
expect_refused "      instances: 10000001" "found \"10000001\""
expect_refused "      instances: 3e6" "found \"3e6\""
expect_refused "      instances: [1, 2]" "option 'instances': expected a number from 1 to 10000000, not a list"
expect_refused "      churn_seconds: -1" \
    "option 'churn_seconds': expected a number from 0 to 4294967295, found \"-1\""
expect_refused "      instance: 3" \
    "unknown option 'instance' for provider example: expected"
# Derived metrics of the configuration: an argument the class does not have,
# and a class no provider registered.
expect_refused "      instances: 1
derived:
  - {class: 2.1, label: bad, id: 1, metric: sum2, arguments: [text_x, uint8_counter]}" \
    "refused.yaml:9:63: derived metric \"bad\": class \"example\" has no datum \"text_x\""
expect_refused "      instances: 1
derived:
  - {class: 2.7, label: lost, id: 1, metric: sum2, arguments: [a, b]}" \
    "refused.yaml:9:5: derived metric \"lost\": no provider registered class 2.7"

# --- the daemons ------------------------------------------------------------

start_snmpd
# The TimeStamp of the provider's init is then well after the master's start
# (dcistatd follows the master's sysUpTime only when they differ by more than
# 0.1 s).
sleep 0.5
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $EXAMPLE_SO
    refresh: 0.2
    options:
      instances: 3
      churn_seconds: 1
derived:
  - class: 2.1
    label: yaml_sum
    id: 91
    metric: sum2
    arguments: [uint8_decimal, uint8_counter]
    description: declared in the configuration, not by the provider
EOF
DCISTATD_FIRST_MODULE=example
start_dcistatd "$config"
wait_dcistatd_ready 10
ok "dcistatd serves the example supplier over udp:127.0.0.1:$SNMPD_PORT"
SNMP_TARGET=unix:$SNMPD_UNIX

# --- which datums unit2 has --------------------------------------------------

# Every served datum has a dciStatText; ST_UNUSED (99) has none.
DOCUMENTED=(1 2 3 4 5 6 7 8 9 10 11 12 20 21 22 23 24 25 30 31 32 33 34 35 36
    40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64
    65 70 71 72 73 74 75 76 77 $D_SIGNED $D_YAML_SUM $D_SUM2 $D_PRODUCT
    $D_PERCENT $D_VARIANCE $D_SUM3 $D_AVERAGE $D_DIFFERENCE)
served=$(snmp_walk "$STAT.$C_TEXT.$CLASS.$ROW" | awk '{ sub(/.*\./, "", $1); print $1 }' | tr '\n' ' ')
served=${served% }
[ "$served" = "${DOCUMENTED[*]}" ] ||
    fail "unit2's datums (dciStatText): '$served', documented: '${DOCUMENTED[*]}'"
ok "unit2 has dciStatText for exactly the ${#DOCUMENTED[@]} documented datums"

# --- each column, one GET each ------------------------------------------------

check_column $C_TRUTHVALUE "TruthValue (booleans, after SBF_INVERTED)" \
    "1=INTEGER: 1" "2=INTEGER: 2" "3=INTEGER: 1" "4=INTEGER: 2" "5=INTEGER: 1" \
    "6=INTEGER: 2" "7=INTEGER: 1" "8=INTEGER: 2" "9=INTEGER: 1" "10=INTEGER: 2"

check_column $C_STRING "String (strings, Econet address)" \
    '11=STRING: "Hello, world"' \
    '12=""' \
    "63=Hex-STRING: 01 FE"
# (Net-SNMP prints an empty OCTET STRING as "" without its type.)

check_column $C_INTEGER32 "Integer32 (signed 8/16/32-bit)" \
    "20=INTEGER: -2" "21=INTEGER: -2" "22=INTEGER: -2" \
    "30=INTEGER: -2" "31=INTEGER: -2" "32=INTEGER: -2" \
    "40=INTEGER: -2" "41=INTEGER: -2" "42=INTEGER: -2"

check_column $C_GAUGE32 "Gauge32 (unsigned 8/16/32-bit, not counters)" \
    "23=Gauge32: 250" "24=Gauge32: 250" \
    "33=Gauge32: 258" "34=Gauge32: 258" "35=Gauge32: 258" \
    "43=Gauge32: 16909060" "44=Gauge32: 16909060" \
    "45=Gauge32: 3221225985" \
    "47=Gauge32: 67305985" "48=Gauge32: 16909060" \
    "49=Gauge32: 2"

check_column $C_COUNTER32 "Counter32 (unsigned 8/16/32-bit counters)" \
    "25=Counter32: 200" "36=Counter32: 65535" "46=Counter32: 4000000000"

check_column $C_COUNTER64 "Counter64 (unsigned 64-bit, but refreshes)" \
    "53=Counter64: 72623859790382856" "54=Counter64: 72623859790382856" \
    "55=Counter64: 10000000000000000000" \
    "57=Counter64: 578437695752307201" "58=Counter64: 72623859790382856"

check_column $C_IPADDRESS "IpAddress (SAF_IP)" \
    "61=IpAddress: 192.0.2.1" "62=IpAddress: 198.51.100.7" \
    "65=IpAddress: 0.0.0.0"

check_column $C_MACADDRESS "MacAddress (SAF_ETHERNET)" \
    "60=Hex-STRING: 02 00 5E 10 00 01" "64=Hex-STRING: 00 00 00 00 00 00"

# 2026-01-01 00:00:00 UTC is a TimeStamp of 0 once it is before the agent
# started, as it is from then on.
NEW_YEAR=1767225600
if [ "$(date +%s)" -gt $((NEW_YEAR + 100)) ]; then
	new_year_ticks=("70=Timeticks: (0)" "72=Timeticks: (0)")
else
	new_year_ticks=()
	note "the clock says $(date -u '+%F %T'), before 2026-01-01: not checking the TimeStamps of 70 and 72"
fi
check_column $C_TIMETICKS "TimeTicks (durations; the 2026 TimeStamps)" \
    "${new_year_ticks[@]}" \
    "71=Timeticks: (9000)" "73=Timeticks: (12345)" "75=Timeticks: (250)" \
    "76=Timeticks: (0)" "77=Timeticks: (0)"

check_column $C_TEXT "dciStatText (but refreshes and the init time)" \
    '1=STRING: "on"' '2=STRING: "no"' '3=STRING: "true"' \
    '4=STRING: "never"' '5=STRING: "1"' '6=STRING: "off"' \
    '7=STRING: "yes"' '8=STRING: "false"' '9=STRING: "always"' \
    '10=STRING: "0"' \
    '11=STRING: "Hello, world"' '12=""' \
    '20=STRING: "-2"' '21=STRING: "0xfe"' '22=STRING: "254"' \
    '23=STRING: "250"' '24=STRING: "0xfa"' '25=STRING: "200"' \
    '30=STRING: "-2"' '31=STRING: "0xfffe"' '32=STRING: "255.254"' \
    '33=STRING: "258"' '34=STRING: "0x102"' '35=STRING: "1.2"' \
    '36=STRING: "65535"' \
    '40=STRING: "-2"' '41=STRING: "0xfffffffe"' \
    '42=STRING: "255.255.255.254"' '43=STRING: "16909060"' \
    '44=STRING: "0x1020304"' '45=STRING: "192.0.2.1"' \
    '46=STRING: "4000000000"' '47=STRING: "0x4030201"' \
    '48=STRING: "0x1020304"' '49=STRING: "2"' \
    '50=STRING: "-2"' '51=STRING: "0xfffffffffffffffe"' \
    '52=STRING: "1.2.3.4.5.6.7.8"' '53=STRING: "72623859790382856"' \
    '54=STRING: "0x102030405060708"' '55=STRING: "10000000000000000000"' \
    '57=STRING: "0x807060504030201"' '58=STRING: "0x102030405060708"' \
    '60=STRING: "02:00:5e:10:00:01"' '61=STRING: "192.0.2.1"' \
    '62=STRING: "198.51.100.7"' '63=STRING: "1.254"' '64=STRING: "none"' \
    '65=STRING: "none"' \
    '70=STRING: "2026-01-01 00:00:00"' '71=STRING: "90.00 seconds"' \
    '72=STRING: "2026-01-01 00:00:00"' '73=STRING: "123.45 seconds"' \
    '75=STRING: "2.50 seconds"' '76=STRING: "none"' '77=STRING: "none"'

check_column $C_TYPE "dciStatType (one datum of each DCI4 type)" \
    "1=INTEGER: 1" "11=INTEGER: 2" "20=INTEGER: 3" "30=INTEGER: 4" \
    "40=INTEGER: 5" "50=INTEGER: 6" "60=INTEGER: 7" "70=INTEGER: 8" \
    "$D_SUM2=INTEGER: 9"

# --- derived metrics: computed by dcistatd from unit2's other values ------------

check_column $C_COUNTER64 "Counter64 (derived from unsigned datums)" \
    "$D_SUM2=Counter64: 508" "$D_SUM3=Counter64: 4000065735" \
    "$D_DIFFERENCE=Counter64: 16908802" "$D_PRODUCT=Counter64: 64500" \
    "$D_YAML_SUM=Counter64: 450"
check_column $C_INTEGER32 "Integer32 (derived with a signed argument)" \
    "$D_SIGNED=INTEGER: -252"
check_column $C_HUNDREDTHS "dciStatHundredths (derived ratios)" \
    "$D_AVERAGE=INTEGER: 129" "$D_PERCENT=INTEGER: 4444" \
    "$D_VARIANCE=INTEGER: 32601"
check_column $C_TEXT "dciStatText (derived)" \
    "$D_SUM2=STRING: \"508\"" "$D_SIGNED=STRING: \"-252\"" \
    "$D_AVERAGE=STRING: \"1.29\"" "$D_PERCENT=STRING: \"44.44\"" \
    "$D_VARIANCE=STRING: \"326.01\"" "$D_YAML_SUM=STRING: \"450\""
# A sum of counters is a counter, with a discontinuity time; a sum of
# gauges is not.
check_column $C_DISCONTINUITY "dciStatDiscontinuity (a sum of counters)" \
    "$D_SUM3=$(typed_value "$(cell $C_DISCONTINUITY $D_REFRESHES)")"
check_absent $D_SUM2 $C_DISCONTINUITY
# No value, so no row: a negative unsigned difference, a product above
# 2^64 - 1, a division by zero.
for datum in $D_NEGATIVE $D_OVERFLOW $D_BY_ZERO; do
	check_absent $datum $(seq 1 14)
done
datum_table=$DCI_ARC.1.3.1
units=$(snmp_get "$datum_table.8.$CLASS.$D_AVERAGE" "$datum_table.8.$CLASS.$D_YAML_SUM" "$datum_table.7.$CLASS.$D_SUM3" | tr '\n' ' ')
[ "$units" = "average sum2 0 " ] ||
    fail "dciDatumUnits of derived_average and yaml_sum, dciDatumVolatility of derived_sum3: '$units', expected 'average sum2 0' (static)"
ok "dciDatumTable: units name the derivation; a sum of static datums is static"

check_column $C_LABEL "dciStatLabel (a few)" \
    '9=STRING: "inverted_always_never"' '47=STRING: "raw32_little"' \
    '56=STRING: "refreshes"' '63=STRING: "econet_address"' \
    '74=STRING: "monotonic_absolute"'

# Counters have a discontinuity time; gauges and others have none.
discontinuity=$(typed_value "$(cell $C_DISCONTINUITY $D_REFRESHES)")
case $discontinuity in
"Timeticks: ("*) ;;
*) fail "dciStatDiscontinuity of refreshes: '$discontinuity', expected TimeTicks" ;;
esac
check_column $C_DISCONTINUITY "dciStatDiscontinuity (counters only)" \
    "25=$discontinuity" "36=$discontinuity" "46=$discontinuity" \
    "55=$discontinuity" "56=$discontinuity"
check_absent 23 $C_DISCONTINUITY
check_absent 1 $C_DISCONTINUITY

# Signed 64-bit: no SNMP type, so label, type and text only.
for datum in 50 51 52; do
	check_absent $datum $C_COUNTER64 $C_COUNTER32 $C_GAUGE32 $C_INTEGER32 \
	    $C_STRING $C_IPADDRESS $C_MACADDRESS $C_TIMETICKS $C_TRUTHVALUE \
	    $C_DISCONTINUITY
done
# ST_UNUSED: no row at all.
check_absent $D_UNUSED $(seq 1 13)

# --- the init time: a moment, served as a TimeStamp ---------------------------

read -r uptime init_ticks init_text <<<"$(typed_get "$SYS_UPTIME" \
    "$(cell $C_TIMETICKS $D_INIT_TIME)" "$(cell $C_TEXT $D_INIT_TIME)" |
    sed -e 's/^[^ ]* = //' -e 's/^Timeticks: (\([0-9]*\))/\1/' | tr '\n' ' ')"
[[ $init_text =~ ^STRING:\ \"([0-9]+)\.([0-9][0-9])\ seconds\ after\ boot\"$ ]] ||
    fail "monotonic_absolute text: '$init_text', expected \"S.CC seconds after boot\""
init_seconds=${BASH_REMATCH[1]}
boot_seconds=$(cut -d. -f1 /proc/uptime)
[ "$init_seconds" -le "$boot_seconds" ] ||
    fail "monotonic_absolute says $init_seconds s after boot, /proc/uptime $boot_seconds s"
if [ "$init_ticks" -le 0 ] || [ "$init_ticks" -gt "$uptime" ]; then
	fail "monotonic_absolute TimeStamp $init_ticks, sysUpTime $uptime (one PDU): expected 0 < TimeStamp <= sysUpTime"
fi
ok "monotonic_absolute: $init_text, TimeStamp $init_ticks <= sysUpTime $uptime"

# --- instances -------------------------------------------------------------------

labels=$(snmp_walk "$LABELS" | grep -v " transient$")
expected=$(printf '%s\n' "$LABELS.1.1 unit1" "$LABELS.1.2 unit2" "$LABELS.1.3 unit3")
[ "$labels" = "$expected" ] ||
    fail "instances: '$(echo "$labels" | tr '\n' ' ')', expected unit1..unit3 (and the transient one)"
numbers=$(snmp_get "$(cell $C_GAUGE32 49 1)" "$(cell $C_GAUGE32 49 3)" | tr '\n' ' ')
[ "$numbers" = "1 3 " ] || fail "instance_number of unit1, unit3: $numbers, expected 1 3"
ok "instances unit1..unit3 (ids 1..3), instance_number 1 and 3 for unit1 and unit3"

# --- the refreshes counter grows ---------------------------------------------

refreshes() { # -> "COUNTER64 TEXT" of unit2 from one PDU
	snmp_get "$(cell $C_COUNTER64 $D_REFRESHES)" "$(cell $C_TEXT $D_REFRESHES)" | tr '\n' ' '
}
read -r count0 text0 <<<"$(refreshes)"
if [ -z "$count0" ] || [ "$count0" != "$text0" ] || [ "$count0" -lt 1 ]; then
	fail "refreshes: Counter64 '$count0', text '$text0'"
fi
sleep 1.2
read -r count1 text1 <<<"$(refreshes)"
if [ "$count1" != "$text1" ] || [ "$count1" -le "$count0" ]; then
	fail "refreshes did not grow in 1.2 s: $count0, then $count1 (text $text1)"
fi
ok "refreshes grew from $count0 to $count1 in 1.2 s (refresh 0.2 s); Counter64 = text"

# --- the transient instance comes and goes -----------------------------------

TRANSIENT=$LABELS.1.4
transient_here() { [ "$(snmp_get "$TRANSIENT" 2>/dev/null)" = transient ]; }
transient_gone() { ! snmp_get "$TRANSIENT" >/dev/null 2>&1; }
wait_until 5 transient_here || fail "transient instance 4 did not appear within 5 s"
t0=$(now_ms)
wait_until 5 transient_gone || fail "transient instance 4 did not go within 5 s"
t1=$(now_ms)
wait_until 5 transient_here || fail "transient instance 4 did not come back within 5 s"
t2=$(now_ms)
# Just back, so here for another second: it has the values of any instance.
number=$(typed_value "$(cell $C_GAUGE32 49 4)")
[ "$number" = "Gauge32: 4" ] || fail "instance_number of transient: '$number', expected Gauge32: 4"
ok "transient instance 4 came, went ($((t1 - t0)) ms later) and came back ($((t2 - t1)) ms later) with instance_number 4"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
