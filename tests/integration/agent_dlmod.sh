#!/bin/bash
# agent_dlmod.sh -- embedded mode: dcistat.so loaded into snmpd by dlmod.
#
# A private snmpd loads the module of the build tree with
#     dlmod dcistat $top_builddir/src/agent/.libs/dcistat.so
#     dcistatConfig FILE
# where FILE is a dcistatd configuration loading netif (refresh 0.2 s) from
# the build tree. The test asserts:
#   - a configuration that cannot be read is logged through snmpd's log
#     ("not serving"), snmpd still answers and serves no dcistat row;
#   - with a good one: dciSupplierTable row 1 is netif, running(1), its
#     dciSupplierLastRefresh a TimeStamp on snmpd's sysUpTime at most a
#     refresh period before it (read in the same PDU); dciClassTable row of class 1.1 (label, levels, supplier,
#     instance count = interfaces in /sys/class/net, datum count = rows in
#     dciDatumTable); lo's name datum and label are "lo";
#   - lo's rx_bytes lies between two sysfs readings of
#     /sys/class/net/lo/statistics/rx_bytes, and after 50 datagrams on lo
#     it has grown by their size; netif's per-class table
#     (dciClassData.1.1) gives the same value in the same PDU;
#   - a SIGHUP to snmpd unloads and loads the module again
#     (deinit_dcistat, init_dcistat); the module, pinned in memory, reloads
#     its configuration as dcistatd does: netif is unchanged and keeps its
#     state (same dciSupplierDiscontinuity), is refreshed on its schedule
#     with no request (snmpd's alarms), and its TimeStamps still count from
#     snmpd's start;
#   - dcistatd, as an AgentX subagent of a plain snmpd with the same
#     configuration, serves the same dciClassTable and dciDatumTable OIDs
#     with the same static values, and the same supplier row;
#   - snmpd in the background (no -f) with an isolated provider: its
#     process is a child of the daemon and its rows are served; with
#     statsd beside it, a counter sent after the fork is served (the
#     receiver starts in the daemon, not in the process that exits).
# The SNMP readings go over snmpd's Unix socket: UDP to 127.0.0.1 would
# move lo's counters itself.
#
# Sanitizer builds: a module built with AddressSanitizer needs its runtime
# loaded first, so snmpd runs with LD_PRELOAD of the libasan the module
# links; its stderr must then hold no ASan or UBSan error and no leak with
# a frame of ours (snmpd's own leaks at exit, all in Net-SNMP, are not ours:
# they are reported and ignored).
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
require_cmd snmpd snmpget snmpbulkwalk
require_built
MODULE=$top_builddir/src/agent/.libs/dcistat.so
[ -f "$MODULE" ] || fail "$MODULE not built (run make)"
started=$(now_ms)

SYS_UPTIME=.1.3.6.1.2.1.1.3.0
NETIF=2.1.1                            # class 1.1, length-prefixed
SUPPLIER=$DCI_ARC.1.1.1                # dciSupplierEntry
CLASS=$DCI_ARC.1.2.1                   # dciClassEntry
DATUM=$DCI_ARC.1.3.1                   # dciDatumEntry
LABEL=$DCI_ARC.1.4.1.2.$NETIF          # dciInstanceLabel.<class>
TEXT=$DCI_ARC.1.5.1.3.$NETIF           # dciStatText.<class>
C64=$DCI_ARC.1.5.1.4.$NETIF            # dciStatCounter64.<class>
NETIF_DATA=$DCI_ARC.1.6.1.1.1          # dciClassData.1.1, its entry
D_NAME=1 D_RX_BYTES=12

# --- snmpd with the module ----------------------------------------------------

# A sanitized module needs the ASan runtime first in snmpd.
embedded_sanitizer_env "$MODULE"
SNMPD_ENV=("${EMBEDDED_ENV[@]}")

# Our messages go to snmpd's log, each after "dcistat: ".
our_log() { printf '%s\n' "$SNMPD_LOG"; }
OUR_PREFIX='dcistat: '

# logged_count PATTERN: how many of our messages match PATTERN (an
# extended regex); logged PATTERN: at least one.
logged_count() { grep -E -c "^$OUR_PREFIX.*$1" "$(our_log)"; }
logged() { [ "$(logged_count "$1")" -gt 0 ]; }

start_embedded() { # CONFIG
	SNMPD_EXTRA_CONF="view dcistatPartial included .1
view dcistatPartial excluded $NETIF_DATA.$D_RX_BYTES
rocommunity partial 127.0.0.1 -V dcistatPartial
dlmod dcistat $MODULE
dcistatConfig $1"
	start_snmpd
}

# Fails on an ASan or UBSan error in snmpd's stderr, or a leak with a frame
# of ours: in the module, a provider or our sources, or in an unloaded
# object ("<unknown module>"), as the module and its providers are when
# LeakSanitizer reports at snmpd's exit.
check_snmpd_log() {
	local ours
	check_embedded_sanitizer_log "$SNMPD_STDERR_LOG"
	ours=$(awk -v RS= '/(Direct|Indirect) leak/ && /dcistat\.so|<unknown module>|\/src\/(core|agent|providers)\//' "$SNMPD_STDERR_LOG")
	if [ -n "$ours" ]; then
		printf '%s\n' "$ours" | head -n 60 | sed 's/^/#   /'
		fail "snmpd with dcistat.so: leaks of ours (see above)"
	fi
	if grep -q 'LeakSanitizer' "$SNMPD_STDERR_LOG"; then
		note "ignored snmpd's own leaks: $(grep -c 'leak of' "$SNMPD_STDERR_LOG") leak records, Net-SNMP frames only"
	fi
}
serves_netif() {
	_lib_alive "$SNMPD_PID" || return "$GIVE_UP"
	[ "$(snmp_get "$DCI_SUPPLIER_MODULE_1" 2>/dev/null)" = netif ]
}

# bulk_walk OID: "OID VALUE" lines by GETBULK, values as -Oq prints them.
bulk_walk() {
	ns_run snmpbulkwalk "${SNMP_OPTS[@]}" -Cr20 -Oqn -Oe -Ot "$SNMP_TARGET" "$1"
}

# --- 1. a configuration that cannot be read --------------------------------------

start_embedded "$TMP_DIR/missing.yaml"
wait_until 5 logged "missing\\.yaml: .*not serving DCI-STATS-MIB" ||
    fail "no 'not serving' message for a missing configuration in $(our_log)"
snmp_get "$SYS_UPTIME" >/dev/null || fail "snmpd does not answer with a bad dcistat configuration"
rows=$(bulk_walk "$DCI_ARC" | grep -c "^$DCI_ARC\\.") || true
[ "$rows" -eq 0 ] || fail "$rows DCI-STATS-MIB rows served from a missing configuration"
ok "missing configuration: logged '$(grep -E -o "^$OUR_PREFIX.*not serving.*" "$(our_log)" | head -n 1)', snmpd answers, no row"
stop_snmpd
check_snmpd_log

# --- 2. the module serves ----------------------------------------------------------

config=$TMP_DIR/dcistat.yaml
write_config "$config" 1 0.2
start_embedded "$config"
wait_until 10 serves_netif || fail "snmpd with dcistat.so does not serve supplier 1 netif within 10 s"
logged "serving DCI-STATS-MIB from $config \\(1 provider\\)" ||
    fail "no 'serving' message in $(our_log)"
ok "snmpd loaded dcistat.so and serves dciSupplierTable; logged the start"
SNMP_TARGET=unix:$SNMPD_UNIX

# The supplier row, and its last refresh as a TimeStamp read in one PDU
# with sysUpTime: more than a refresh period after the last request, that
# PDU refreshes netif first, so the two are at most a period apart.
sleep 0.3
mapfile -t v < <(snmp_get "$SUPPLIER.2.1" "$SUPPLIER.3.1" "$SUPPLIER.8.1" \
    "$SUPPLIER.10.1" "$SYS_UPTIME") || fail "cannot read dciSupplierTable row 1"
[ "${v[0]}" = netif ] || fail "dciSupplierModule.1 '${v[0]}', expected netif"
[ "${v[1]}" = "Network interfaces" ] || fail "dciSupplierTitle.1 '${v[1]}'"
[ "${v[2]}" = 1 ] || fail "dciSupplierStatus.1 ${v[2]}, expected running(1)"
((v[4] - 20 <= v[3] && v[3] <= v[4])) ||
    fail "dciSupplierLastRefresh.1 ${v[3]} not in [sysUpTime ${v[4]} - 20, sysUpTime]"
ok "dciSupplierTable.1: netif, '${v[1]}', running(1), last refresh ${v[3]} in [sysUpTime ${v[4]} - 20, sysUpTime]"

# The class row.
interfaces() { find /sys/class/net -mindepth 1 -maxdepth 1 | wc -l; }
class_row_matches() {
	local before after datums
	before=$(interfaces)
	mapfile -t v < <(snmp_get "$CLASS.2.$NETIF" "$CLASS.3.$NETIF" \
	    "$CLASS.4.$NETIF" "$CLASS.5.$NETIF" "$CLASS.6.$NETIF") || return 1
	after=$(interfaces)
	datums=$(bulk_walk "$DATUM.2.$NETIF" | grep -c "^$DATUM\\.2\\.$NETIF\\.")
	[ "$before" = "$after" ] && [ "${v[4]}" = "$before" ] &&
	    [ "${v[0]}" = netif ] && [ "${v[1]}" = 1 ] && [ "${v[2]}" = "$datums" ] &&
	    [ "${v[3]}" = 1 ]
}
wait_until 5 class_row_matches ||
    fail "dciClassTable 1.1: label/levels/datums/supplier/instances '${v[*]}', expected netif 1 <datum rows> 1 $(interfaces)"
ok "dciClassTable 1.1: label ${v[0]}, ${v[1]} level, ${v[2]} datums (= dciDatumTable rows), supplier ${v[3]}, ${v[4]} instances (= /sys/class/net)"

LO=$(cat /sys/class/net/lo/ifindex) || fail "no ifindex for lo"
mapfile -t v < <(snmp_get "$TEXT.1.$LO.$D_NAME" "$LABEL.1.$LO") ||
    fail "no name datum or label for lo (ifIndex $LO)"
if [ "${v[0]}" != lo ] || [ "${v[1]}" != lo ]; then
	fail "lo (ifIndex $LO): name datum '${v[0]}', label '${v[1]}'"
fi
ok "lo ifIndex $LO: name datum and dciInstanceLabel 'lo'"

# rx_bytes of lo between two sysfs readings; a request comes more than two
# refresh periods after the first, so a scheduled refresh has read the
# counters since.
RX=/sys/class/net/lo/statistics/rx_bytes
rx_between() { # sets rx, before, after
	before=$(cat "$RX")
	sleep 0.5
	rx=$(snmp_get "$C64.1.$LO.$D_RX_BYTES") || fail "cannot read lo rx_bytes"
	after=$(cat "$RX")
	((before <= rx && rx <= after)) ||
	    fail "lo rx_bytes $rx not within sysfs $before..$after"
}
rx_between
rx1=$rx
ok "lo rx_bytes $rx1 within /sys/class/net/lo/statistics/rx_bytes $before..$after"

payload=$(printf '%*s' 1000 '')
for ((i = 0; i < 50; i++)); do
	# A new socket each time: an ICMP error on lo would fail the next
	# write on the same one.
	{ printf '%s' "$payload" >/dev/udp/127.0.0.1/9; } 2>/dev/null
done
(($(cat "$RX") - after >= 50000)) || fail "50 datagrams of 1000 bytes did not reach lo"
rx_between
((rx - rx1 >= 50000)) || fail "lo rx_bytes grew by $((rx - rx1)) only after 50 kB on lo"
ok "after 50 kB on lo: rx_bytes $rx (+$((rx - rx1))) within sysfs $before..$after: refreshed on schedule"

# netif's own table answers too, from the same snapshots as dciStatTable
# within one PDU (which refreshes first: a period has passed).
sleep 0.3
mapfile -t v < <(snmp_get "$C64.1.$LO.$D_RX_BYTES" "$NETIF_DATA.$D_RX_BYTES.$LO") ||
    fail "cannot read lo rx_bytes from dciStatTable and dciClassData.1.1"
if [ "${v[0]}" != "${v[1]}" ] || ((v[0] < rx)); then
	fail "lo rx_bytes in one PDU: dciStatCounter64 ${v[0]}, dciClassData.1.1 ${v[1]} (earlier $rx)"
fi
ok "lo rx_bytes in one PDU: dciStatCounter64 = dciClassData.1.1 column $D_RX_BYTES = ${v[0]}"

# GETBULK: the module answers a request's repetitions in one call when the
# view holds the whole table (agent_tables_answer_bulk), one per pass of
# snmpd's agent otherwise. Either way a walk by GETBULK names the rows a
# walk by GETNEXT names, across the ends of our six tables; and the
# community "partial", whose view hides the rx_bytes column of
# dciClassData.1.1, sees every row but those. (Retried: an interface
# added or removed on the host between two walks changes the rows.)
walk_oids() { # COMMUNITY COMMAND [OPTION...]: OIDs under DCI-STATS-MIB
	local community=$1 command=$2
	shift 2
	ns_run "$command" -v2c -c "$community" -t 2 -r 1 "$@" -On -Oq \
	    "udp:127.0.0.1:$SNMPD_PORT" "$DCI_ARC" | cut -d ' ' -f 1
}
walks_agree() {
	local community reps
	for community in public partial; do
		walk_oids "$community" snmpwalk >"$TMP_DIR/next.$community" || return 1
		for reps in 20 7; do
			walk_oids "$community" snmpbulkwalk -Cr$reps >"$TMP_DIR/bulk.$community" || return 1
			cmp -s "$TMP_DIR/next.$community" "$TMP_DIR/bulk.$community" || return 1
		done
	done
	rows=$(grep -c "^$NETIF_DATA\.$D_RX_BYTES\." "$TMP_DIR/next.public")
	hidden=$(grep -c "^$NETIF_DATA\.$D_RX_BYTES\." "$TMP_DIR/next.partial")
	[ "$rows" -eq "$(interfaces)" ] && [ "$hidden" -eq 0 ] &&
	    [ "$(wc -l <"$TMP_DIR/next.partial")" -eq $(($(wc -l <"$TMP_DIR/next.public") - rows)) ]
}
if ! wait_until 10 walks_agree; then
	diff "$TMP_DIR/next.$community" "$TMP_DIR/bulk.$community" | head -n 20 | sed 's/^/#   /'
	fail "GETBULK walks -Cr20 and -Cr7 (>) against the GETNEXT walk (<) as $community; rx_bytes rows: public ${rows:-?} (interfaces $(interfaces)), partial ${hidden:-?}"
fi
ok "GETBULK walks (-Cr20, -Cr7) name the $(wc -l <"$TMP_DIR/next.public") rows of GETNEXT's; in a view hiding a column, all but its $rows rows"

# Keep what the subagent is compared with.
bulk_walk "$CLASS" >"$TMP_DIR/embedded.class" || fail "cannot walk dciClassTable"
bulk_walk "$DATUM" >"$TMP_DIR/embedded.datum" || fail "cannot walk dciDatumTable"
snmp_get "$SUPPLIER.2.1" "$SUPPLIER.3.1" "$SUPPLIER.4.1" "$SUPPLIER.5.1" \
    "$SUPPLIER.6.1" "$SUPPLIER.8.1" >"$TMP_DIR/embedded.supplier" ||
    fail "cannot read dciSupplierTable row 1"

# --- 3. SIGHUP: reloaded, the unchanged provider keeps its state ------------------

uptime_reached() { (($(snmp_get "$SYS_UPTIME") >= 100)); }
wait_until 5 uptime_reached || fail "sysUpTime below 1 s after 5 s"
discontinuity0=$(snmp_get "$SUPPLIER.9.1") || fail "cannot read dciSupplierDiscontinuity.1"
u0=$(snmp_get "$SYS_UPTIME") || fail "cannot read sysUpTime"
kill -HUP "$SNMPD_PID"
reloaded() {
	logged "reloaded $config in [0-9]+ ms: 1 provider unchanged, 0 added, 0 removed, 0 restarted" &&
	    serves_netif
}
wait_until 10 reloaded || fail "no 'reloaded' message within 10 s of SIGHUP"
discontinuity1=$(snmp_get "$SUPPLIER.9.1") || fail "cannot read dciSupplierDiscontinuity.1"
[ "$discontinuity1" = "$discontinuity0" ] ||
    fail "SIGHUP restarted the unchanged netif supplier: dciSupplierDiscontinuity.1 $discontinuity0 -> $discontinuity1"
refreshed_since_hup() {
	mapfile -t v < <(snmp_get "$SUPPLIER.10.1" "$SYS_UPTIME") &&
	    ((u0 <= v[0] && v[0] <= v[1]))
}
wait_until 5 refreshed_since_hup ||
    fail "after SIGHUP dciSupplierLastRefresh.1 ${v[0]:-?} not in [$u0, sysUpTime ${v[1]:-?}] within 5 s"
ok "SIGHUP: reloaded (logged), netif unchanged (dciSupplierDiscontinuity.1 still $discontinuity0), refreshed on schedule at ${v[0]} >= $u0"
rx_between
ok "after SIGHUP: lo rx_bytes $rx within sysfs $before..$after"

stop_snmpd
check_snmpd_log
ok "snmpd stopped, no sanitizer report of ours"

# --- 4. the same configuration under dcistatd -----------------------------------------

SNMPD_EXTRA_CONF=
SNMPD_ENV=()
SNMP_TARGET=
start_snmpd
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX
bulk_walk "$CLASS" >"$TMP_DIR/subagent.class" || fail "cannot walk dciClassTable"
bulk_walk "$DATUM" >"$TMP_DIR/subagent.datum" || fail "cannot walk dciDatumTable"
snmp_get "$SUPPLIER.2.1" "$SUPPLIER.3.1" "$SUPPLIER.4.1" "$SUPPLIER.5.1" \
    "$SUPPLIER.6.1" "$SUPPLIER.8.1" >"$TMP_DIR/subagent.supplier" ||
    fail "cannot read dciSupplierTable row 1"

same() { # WHAT FILE-A FILE-B
	if ! cmp -s "$2" "$3"; then
		diff "$2" "$3" | head -n 20 | sed 's/^/#   /'
		fail "$1 differs between snmpd's module (<) and dcistatd (>)"
	fi
}
oids() { cut -d ' ' -f 1 "$1"; }
# Instance counts (column 6) follow the host's interfaces; OIDs only.
static() { grep -v "^$CLASS\\.6\\." "$1"; }
same "dciClassTable OIDs" <(oids "$TMP_DIR/embedded.class") <(oids "$TMP_DIR/subagent.class")
same "dciClassTable values" <(static "$TMP_DIR/embedded.class") <(static "$TMP_DIR/subagent.class")
same "dciDatumTable" "$TMP_DIR/embedded.datum" "$TMP_DIR/subagent.datum"
same "dciSupplierTable row 1" "$TMP_DIR/embedded.supplier" "$TMP_DIR/subagent.supplier"
ok "dcistatd serves the same $(wc -l <"$TMP_DIR/embedded.class") dciClassTable and $(wc -l <"$TMP_DIR/embedded.datum") dciDatumTable OIDs and values, and the same supplier row ($(tr '\n' ' ' <"$TMP_DIR/embedded.supplier"))"

stop_dcistatd
stop_snmpd

# --- 5. snmpd in the background, a provider isolated -------------------------------------
# snmpd forks into the background after reading snmpd.conf, where the
# module started the isolated provider's process (which ends with the
# process that exits): the module starts it again in the daemon.

GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
GOOD_LABEL=$DCI_ARC.1.4.1.2.2.9.1.1.2 # dciInstanceLabel of unit2, class 9.1
[ -f "$GOOD_SO" ] || fail "$GOOD_SO not built (run make check)"
STATSD_PORT=$(free_udp_port) || fail "no free UDP port"
cat >"$TMP_DIR/isolated.yaml" <<YAML
providers:
  - module: $GOOD_SO
    refresh: 0.5
    isolate: true
    options:
      instances: 3
  - module: $(provider_so statsd)
    refresh: 0.3
    options:
      listen: 127.0.0.1:$STATSD_PORT
YAML
SNMPD_EXTRA_CONF="dlmod dcistat $MODULE
dcistatConfig $TMP_DIR/isolated.yaml"
snmpd_conf_write "$TMP_DIR/snmpd.background.conf"
SNMPD_LOG=$TMP_DIR/snmpd.background.log
SNMPD_STDERR_LOG=$TMP_DIR/snmpd.background.stderr.log
env "${EMBEDDED_ENV[@]}" DCISTAT_ISOLATE_PROGRAM="$ISOLATE" snmpd -Lf "$SNMPD_LOG" \
    -C -c "$TMP_DIR/snmpd.background.conf" -p "$TMP_DIR/snmpd.background.pid" \
    "udp:127.0.0.1:$SNMPD_PORT" "unix:$SNMPD_UNIX" </dev/null >"$SNMPD_STDERR_LOG" 2>&1 ||
    fail "snmpd did not start in the background: $(tail -n 3 "$SNMPD_LOG" | tr '\n' ' ')"
wait_until 10 test -s "$TMP_DIR/snmpd.background.pid" || fail "no pid file from snmpd"
SNMPD_PID=$(cat "$TMP_DIR/snmpd.background.pid")
_lib_pids+=("$SNMPD_PID")
SNMP_TARGET=unix:$SNMPD_UNIX
good_served() { [ "$(snmp_get "$GOOD_LABEL" 2>/dev/null)" = unit2 ]; }
wait_until 10 good_served || fail "the isolated provider is not served by snmpd in the background"
children=$(pgrep -c -P "$SNMPD_PID" dcistat-isolate)
[ "$children" = 1 ] || fail "$children dcistat-isolate processes under snmpd ($SNMPD_PID), expected 1"
if logged 'isolated process'; then
	fail "an isolated process failed: $(grep 'isolated process' "$SNMPD_LOG" | head -n 2 | tr '\n' ' ')"
fi
ok "snmpd in the background: the isolated provider's process is its child ($SNMPD_PID) and its rows are served"
CLIENT=$here/statsd_client.py
python3 "$CLIENT" send 127.0.0.1 "$STATSD_PORT" 'h39.embedded:3|c'
EMBEDDED_HITS=$DCI_ARC.1.5.1.4.3.2.8125.1.$(python3 "$CLIENT" id counter h39.embedded).1
statsd_served() { [ "$(snmp_get "$EMBEDDED_HITS" 2>/dev/null)" = 3 ]; }
wait_until 10 statsd_served ||
    fail "statsd in snmpd in the background serves '$(snmp_get "$EMBEDDED_HITS" 2>&1)' for a counter of 3"
ok "snmpd in the background: a statsd counter sent after its fork is served (3)"
snmpd_gone() { ! _lib_alive "$SNMPD_PID"; }
kill -TERM "$SNMPD_PID"
wait_until 10 snmpd_gone || fail "snmpd did not stop within 10 s of SIGTERM"
pgrep -f "$ISOLATE" >/dev/null && fail "a dcistat-isolate process outlived snmpd"
check_snmpd_log
ok "snmpd stopped; no dcistat-isolate process left"
note "done in $(($(now_ms) - started)) ms"
exit 0
