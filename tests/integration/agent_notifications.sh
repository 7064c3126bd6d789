#!/bin/bash
# agent_notifications.sh -- DCI-STATS-MIB notifications through a real
# snmpd master to a real snmptrapd.
#
# In a private network namespace: snmptrapd on a free 127.0.0.1 port
# (disableAuthorization yes, logging with numeric OIDs), a private snmpd
# master with `trap2sink` to it, and dcistatd with netif and the loader
# tests' provider (good_provider.so). The test asserts:
#   - no notification for the initial population (but good's failure);
#   - a veth pair created: dciInstanceAdded for each end, dciNotifyClassId
#     pointing at class 1.1's dciClassLabel, dciNotifyInstanceId at
#     dciInstanceLabel of its ifIndex, its name as dciNotifyInstanceLabel,
#     "netif" as class label and supplier; deleted: dciInstanceRemoved;
#   - good, failing to initialise at start: one dciSupplierFailed once
#     the master is there, its reason dciSupplierFailure's (its failed
#     retries are no news); able to: one dciSupplierRestarted;
#   - good's refreshes made to fail: one dciSupplierFailed with reason
#     "refresh failed" (the failures after it are no news); working again:
#     one dciSupplierRecovered;
#   - an application supplier (tests/supplier_commands, class jobs, named
#     in data-changed before it exists: a warning): nothing for its first
#     snapshot; an instance added and removed, and a watched gauge
#     changed (its counter moving meanwhile: nothing);
#   - 500 interfaces (250 veth pairs) at once: at most the rate limit (the
#     configuration's `rate-limit: 10 per 20`, counted with the veth
#     events) one by one, then one
#     dciInstancesSummary for netif whose added count makes up the rest;
#   - data changed (`data-changed: netif: [mtu, oper_up]`): a veth's MTU
#     set from 1500 to 1400 gives dciDataChanged with datum mtu, old
#     "1500", new "1400" and a dciNotifyDatumId pointing at its
#     dciStatText; both ends up, then one down: oper_up "false" to
#     "true", then "true" to "false", for each end; counters that move
#     meanwhile give nothing;
#   - snmpd's DISMAN-EVENT-MIB `monitor` (doc/MIB.md's threshold alarm)
#     on lo's MTU served by dcistatd: mteTriggerRising at 65536, then
#     lo's MTU set to 1500: mteTriggerFalling with that value and lo's
#     label;
#   - dcistatd restarted: no notification; reloaded with netif
#     restarted: one dciSupplierRestarted for netif (new reset stamps)
#     and no instance notification (a first snapshot is a population,
#     not a change);
#   - the snmpd module (dlmod) instead of dcistatd, snmpd's own trap
#     machinery: no notification for its initial population; a veth pair
#     added gives dciInstanceAdded with their ifIndex and name, an MTU
#     change dciDataChanged; past its rate limit (3 per 15) the pair's
#     removal comes as a dciInstancesSummary (removed 2) when the window
#     ends; good failing to start gives one dciSupplierFailed after
#     snmpd read its sinks, then dciSupplierRestarted when it can; its
#     refreshes failing and working again dciSupplierFailed and
#     dciSupplierRecovered; snmpd's SIGHUP restarting netif: one
#     dciSupplierRestarted.
#
# Needs root, `ip netns` and snmptrapd (exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd ip snmpd snmpget snmptrapd
require_built
GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
[ -f "$GOOD_SO" ] || skip "$GOOD_SO not built (make check builds it)"
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
APPLICATION=$top_builddir/tests/supplier_commands
[ -x "$APPLICATION" ] || skip "$APPLICATION not built (make check builds it)"
RUN=$TMP_DIR/run/suppliers
make_netns

NOTIFICATION=$DCI_ARC.0          # dciStatsNotifications
NOTIFY=$DCI_ARC.1.7              # dciNotificationObjects
ADDED=1 REMOVED=2 SUMMARY=3 FAILED=4 RECOVERED=5 RESTARTED=6 CHANGED=7
MTU_DATUM=3 OPER_UP_DATUM=4 # netif's datum ids
BURST=500 LIMIT=10 WINDOW=20
BROKEN=$TMP_DIR/broken
NEEDED=$TMP_DIR/needed
TRAP_LOG=$TMP_DIR/snmptrapd.log

# --- snmptrapd ----------------------------------------------------------------------

TRAP_PORT=$(free_udp_port) || fail "no free UDP port"
cat >"$TMP_DIR/snmptrapd.conf" <<END
disableAuthorization yes
END
: >"$TRAP_LOG"
ip netns exec "$NETNS" env SNMP_PERSISTENT_DIR="$TMP_DIR/trapd-state" MIBS= \
    snmptrapd -f -C -c "$TMP_DIR/snmptrapd.conf" -Lf "$TRAP_LOG" -On \
    "udp:127.0.0.1:$TRAP_PORT" </dev/null >"$TMP_DIR/snmptrapd.stderr" 2>&1 &
_lib_pids+=("$!")
trapd_listens() { [ -n "$(ns_run ss -Hlun "sport = :$TRAP_PORT")" ]; }
wait_until 10 trapd_listens || fail "snmptrapd does not listen on $TRAP_PORT"

# traps NUMBER: the varbind lines of every dciStatsNotifications.NUMBER
# received so far (snmptrapd writes one line of varbinds per notification).
traps() {
	grep -E -- "OID: ${NOTIFICATION//./\\.}\.$1(\s|\$)" "$TRAP_LOG"
}
# count NUMBER [PATTERN]: how many of them (matching PATTERN).
count() { traps "$1" | grep -c -F -- "${2:-}"; }
# value LINE OBJECT: the value of notification object OBJECT in LINE.
value() {
	printf '%s\n' "$1" | tr '\t' '\n' |
	    sed -n "s/^${NOTIFY//./\\.}\\.$2\\.0 = [A-Za-z0-9 ]*: //p" | tr -d '"'
}

# changed_in CLASS.INSTANCE DATUM: the dciDataChanged lines of that
# instance (its length-prefixed class and instance ids) and datum.
changed_in() {
	traps $CHANGED | grep -F "$DCI_ARC.1.5.1.3.$1.$2"$'\t' || true
}

# --- snmpd and dcistatd -------------------------------------------------------------

# A threshold alarm on a dcistat value with snmpd's own DISMAN-EVENT-MIB
# monitor (doc/MIB.md): lo's MTU (netif datum 3, dciStatGauge32), rising
# at 9000 or more, falling at 2000 or less, with lo's label added.
LO_MTU=$DCI_ARC.1.5.1.6.2.1.1.1.1.3 LO_LABEL=$DCI_ARC.1.4.1.2.2.1.1.1.1
MTE_RISING=.1.3.6.1.2.1.88.2.0.2 MTE_FALLING=.1.3.6.1.2.1.88.2.0.3
MTE_HOT_VALUE=.1.3.6.1.2.1.88.2.1.5.0
SNMPD_EXTRA_CONF="trap2sink 127.0.0.1:$TRAP_PORT public
createUser dcistatInternal SHA \"a passphrase for this test only\"
iquerySecName dcistatInternal
rouser dcistatInternal
monitor -I -r 1 -o $LO_LABEL -t \"lo mtu\" $LO_MTU 2000 9000"
config=$TMP_DIR/dcistatd.yaml
write_config "$config" 1 0.2
cat >>"$config" <<END
  - module: $GOOD_SO
    refresh: 0.5
    options:
      refresh_fails_while: $BROKEN
      init_needs: $NEEDED
  - module: $SUPPLIERS_SO
    refresh: 0.25
    options:
      directory: $RUN
notifications:
  rate-limit: $LIMIT per $WINDOW
  data-changed:
    netif: [mtu, oper_up]
    jobs: [state]
END
start_snmpd
start_dcistatd "$config"
wait_dcistatd_ready 10
sleep 2
! grep -F "$NOTIFICATION." "$TRAP_LOG" | grep -q -v -F "$NOTIFICATION.$FAILED"$'\t' ||
    fail "notifications for the initial population: $(cat "$TRAP_LOG")"
ok "no notification for the initial population"

# --- a provider started after failing -------------------------------------------------

# good failed to initialise at start: one dciSupplierFailed once the
# master is there (its retries fail alike: no news); once it can, it
# starts: new reset stamps.
line=$(traps $FAILED)
# Named as the configuration names it: what started is not known yet.
{ [ "$(count $FAILED)" -eq 1 ] && [ "$(value "$line" 5)" = "$GOOD_SO" ] &&
    [ "$(value "$line" 6)" = "$(snmp_get "$DCI_ARC.1.1.1.11.2" | tr -d '"')" ] &&
    [ -n "$(value "$line" 6)" ]; } ||
    fail "not one dciSupplierFailed for good failing at start, with dciSupplierFailure as reason: $(traps $FAILED)"
reason=$(value "$line" 6)
sleep 2
[ "$(count $FAILED)" -eq 1 ] || fail "dciSupplierFailed for good's retries: $(traps $FAILED)"
touch "$NEEDED"
restarted() { [ "$(count $RESTARTED)" -eq 1 ]; }
wait_until 15 restarted || fail "no dciSupplierRestarted within 15 s of good able to start"
[ "$(value "$(traps $RESTARTED)" 5)" = good ] ||
    fail "dciSupplierRestarted carries: $(traps $RESTARTED)"
[ "$(count $FAILED)" -eq 1 ] || fail "more dciSupplierFailed: $(traps $FAILED)"
ok "good failing at start: one dciSupplierFailed ('$reason'), none for its retries; started: one dciSupplierRestarted"
failed_at_start=1

# --- a veth pair added and removed --------------------------------------------------

ifindex() { ns_run cat "/sys/class/net/$1/ifindex"; }
ip -n "$NETNS" link add nveth0 type veth peer name nveth1 2>"$TMP_DIR/veth.err" ||
    skip "cannot create a veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
index0=$(ifindex nveth0) index1=$(ifindex nveth1)
added_both() { [ "$(count $ADDED '"nveth')" -eq 2 ]; }
wait_until 10 added_both || fail "not two dciInstanceAdded for nveth0/1: $(traps $ADDED)"
line=$(traps $ADDED | grep -F '"nveth0"')
{ [ "$(value "$line" 1)" = "$DCI_ARC.1.2.1.2.2.1.1" ] && [ "$(value "$line" 2)" = netif ] &&
    [ "$(value "$line" 3)" = "$DCI_ARC.1.4.1.2.2.1.1.1.$index0" ] && [ "$(value "$line" 4)" = nveth0 ] &&
    [ "$(value "$line" 5)" = netif ]; } ||
    fail "dciInstanceAdded of nveth0 (ifIndex $index0) carries: $line"
[ "$(value "$(traps $ADDED | grep -F '"nveth1"')" 3)" = "$DCI_ARC.1.4.1.2.2.1.1.1.$index1" ] ||
    fail "dciInstanceAdded of nveth1 has not ifIndex $index1"
ok "veth pair added: dciInstanceAdded for ifIndex $index0 nveth0 and $index1 nveth1, class 1.1 netif"
ip -n "$NETNS" link del nveth0 || fail "cannot delete nveth0"
removed_both() { [ "$(count $REMOVED '"nveth')" -eq 2 ]; }
wait_until 10 removed_both || fail "not two dciInstanceRemoved for nveth0/1: $(traps $REMOVED)"
line=$(traps $REMOVED | grep -F '"nveth1"')
{ [ "$(value "$line" 3)" = "$DCI_ARC.1.4.1.2.2.1.1.1.$index1" ] && [ "$(value "$line" 4)" = nveth1 ]; } ||
    fail "dciInstanceRemoved of nveth1 carries: $line"
ok "veth pair deleted: dciInstanceRemoved for ifIndex $index0 and $index1"

# --- a supplier failing and recovering ----------------------------------------------

touch "$BROKEN"
failed_once() { [ "$(count $FAILED)" -ge $((failed_at_start + 1)) ]; }
wait_until 10 failed_once || fail "no dciSupplierFailed within 10 s of good's refreshes failing"
sleep 2 # further failures: no news
[ "$(count $FAILED)" -eq $((failed_at_start + 1)) ] || fail "dciSupplierFailed sent $(count $FAILED) times"
line=$(traps $FAILED | tail -n 1)
{ [ "$(value "$line" 5)" = good ] && [ "$(value "$line" 6)" = "refresh failed" ]; } ||
    fail "dciSupplierFailed carries: $line"
rm -f "$BROKEN"
recovered() { [ "$(count $RECOVERED)" -eq 1 ]; }
wait_until 15 recovered || fail "no dciSupplierRecovered within 15 s of good working again"
[ "$(value "$(traps $RECOVERED)" 5)" = good ] || fail "dciSupplierRecovered carries: $(traps $RECOVERED)"
ok "good failed (one dciSupplierFailed, reason 'refresh failed') and recovered (one dciSupplierRecovered)"

# --- an application supplier's instances and values -------------------------------

# The class "jobs" does not exist when dcistatd starts (a warning, not an
# error); the application brings it with one instance: a population.
grep -q -F 'data-changed: no provider registered class "jobs" (yet)' "$DCISTATD_LOG" ||
    fail "no warning for data-changed's class jobs not yet registered: $(head -n 5 "$DCISTATD_LOG")"
events_before=$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")
coproc APP { "$APPLICATION" "$RUN" jobs_app 4343 2>&1; }
# Bash unsets APP_PID as soon as the coprocess ends: kept apart.
app_pid=$APP_PID
_lib_pids+=("$app_pid")
# app_command LINE: sends it to the application and waits for its "ok".
app_command() {
	local answer=
	printf '%s\n' "$1" >&"${APP[1]}"
	read -r -t 10 -u "${APP[0]}" answer || fail "the application did not answer '$1'"
	[ "$answer" = ok ] || fail "the application answered '$answer' to '$1'"
}
{ read -r -t 10 -u "${APP[0]}" ready && [ "$ready" = ready ]; } || fail "the application did not start: $ready"
app_command "add 1 build"
JOBS=3.3.4343.17 # class {3, 4343, 17}, length-prefixed
jobs_served() { [ "$(snmp_get "$DCI_ARC.1.4.1.2.$JOBS.1.1" 2>/dev/null)" = build ]; }
wait_until 10 jobs_served || fail "the application's jobs class is not served: $(tail -n 3 "$DCISTATD_LOG")"
sleep 1
[ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -eq "$events_before" ] ||
    fail "notifications for the application's first snapshot: $(tail -n 1 "$TRAP_LOG")"
app_command "add 2 deploy"
job_added() { [ "$(count $ADDED '"deploy"')" -eq 1 ]; }
wait_until 10 job_added || fail "no dciInstanceAdded for the application's job 2: $(traps $ADDED | tail -n 1)"
line=$(traps $ADDED | grep -F '"deploy"')
{ [ "$(value "$line" 1)" = "$DCI_ARC.1.2.1.2.$JOBS" ] && [ "$(value "$line" 2)" = jobs ] &&
    [ "$(value "$line" 3)" = "$DCI_ARC.1.4.1.2.$JOBS.1.2" ] && [ "$(value "$line" 5)" = jobs_app ]; } ||
    fail "dciInstanceAdded of the application's job 2 carries: $line"
app_command "count 1"
app_command "set 1 3"
job_changed() { [ -n "$(changed_in "$JOBS.1.1" 1)" ]; }
wait_until 10 job_changed || fail "no dciDataChanged for job 1's state: $(traps $CHANGED | tail -n 1)"
line=$(changed_in "$JOBS.1.1" 1)
{ [ "$(value "$line" 4)" = build ] && [ "$(value "$line" 10)" = state ] &&
    [ "$(value "$line" 11)" = 0 ] && [ "$(value "$line" 12)" = 3 ]; } ||
    fail "dciDataChanged of job 1's state carries: $line"
app_command "remove 2"
job_removed() { [ "$(count $REMOVED '"deploy"')" -eq 1 ]; }
wait_until 10 job_removed || fail "no dciInstanceRemoved for the application's job 2"
printf 'quit\n' >&"${APP[1]}" 2>/dev/null
wait "$app_pid" 2>/dev/null || true
[ "$(traps $CHANGED | wc -l)" -eq 1 ] || fail "dciDataChanged for the counter: $(traps $CHANGED)"
ok "application supplier jobs_app (class {3, 4343, 17} jobs): no notification for its first snapshot; job 2 deploy added and removed, job 1's state 0 -> 3 (dciDataChanged, none for its counter)"

# --- a burst past the rate limit ----------------------------------------------------

before=$(($(count $ADDED) + $(count $REMOVED) + $(count $CHANGED)))
# veth pairs (the kernel may have no dummy driver): BURST / 2 of them.
for ((i = 0; i < BURST / 2; i++)); do
	printf 'link add nburst%da type veth peer name nburst%db\n' "$i" "$i"
done >"$TMP_DIR/burst"
ns_run ip -b "$TMP_DIR/burst" || fail "cannot add $BURST interfaces"
summarised() { [ "$(count $SUMMARY)" -ge 1 ]; }
wait_until $((WINDOW + 15)) summarised || fail "no dciInstancesSummary within $((WINDOW + 15)) s of $BURST interfaces added"
one_by_one=$(count $ADDED '"nburst')
# The notifications before it may share its window (then fewer go one by
# one) or not.
((one_by_one <= LIMIT)) ||
    fail "$one_by_one dciInstanceAdded one by one in a $WINDOW s window, limit $LIMIT"
[ "$(count $SUMMARY)" -eq 1 ] || fail "$(count $SUMMARY) summaries: $(traps $SUMMARY)"
line=$(traps $SUMMARY)
{ [ "$(value "$line" 2)" = netif ] && [ "$(value "$line" 7)" = $((BURST - one_by_one)) ] &&
    [ "$(value "$line" 8)" = 0 ] && [ "$(value "$line" 13)" = 0 ]; } ||
    fail "dciInstancesSummary ($one_by_one sent one by one) carries: $line"
ok "$BURST interfaces: $one_by_one dciInstanceAdded one by one (limit $LIMIT per $WINDOW s; $before instance and data notifications before), then one dciInstancesSummary netif added $((BURST - one_by_one)) removed 0"

# --- data changed -------------------------------------------------------------------

# After the burst's summary its window is over: these open a new one, and
# stay within its limit (2 added, 1 MTU, 2 up, 2 down).
# changed INDEX DATUM: the dciDataChanged lines of that interface and datum.
changed() { changed_in "2.1.1.1.$1" "$2"; }
ip -n "$NETNS" link add dveth0 type veth peer name dveth1 || fail "cannot create dveth0"
index0=$(ifindex dveth0) index1=$(ifindex dveth1)
dveth_added() { [ "$(count $ADDED '"dveth')" -eq 2 ]; }
wait_until 10 dveth_added || fail "not two dciInstanceAdded for dveth0/1"
ip -n "$NETNS" link set dveth0 mtu 1400 || fail "cannot set dveth0's MTU"
mtu_changed() { [ -n "$(changed "$index0" $MTU_DATUM)" ]; }
wait_until 10 mtu_changed || fail "no dciDataChanged for dveth0's MTU: $(traps $CHANGED)"
line=$(changed "$index0" $MTU_DATUM)
{ [ "$(value "$line" 1)" = "$DCI_ARC.1.2.1.2.2.1.1" ] && [ "$(value "$line" 2)" = netif ] &&
    [ "$(value "$line" 3)" = "$DCI_ARC.1.4.1.2.2.1.1.1.$index0" ] && [ "$(value "$line" 4)" = dveth0 ] &&
    [ "$(value "$line" 5)" = netif ] &&
    [ "$(value "$line" 9)" = "$DCI_ARC.1.5.1.3.2.1.1.1.$index0.$MTU_DATUM" ] &&
    [ "$(value "$line" 10)" = mtu ] && [ "$(value "$line" 11)" = 1500 ] &&
    [ "$(value "$line" 12)" = 1400 ]; } ||
    fail "dciDataChanged of dveth0's MTU carries: $line"
pointed=$(snmp_get "$DCI_ARC.1.5.1.3.2.1.1.1.$index0.$MTU_DATUM" 2>&1 | tr -d '"')
[ "$pointed" = 1400 ] || fail "dciNotifyDatumId's dciStatText reads '$pointed', not 1400"
ok "dveth0 (ifIndex $index0) MTU 1500 -> 1400: dciDataChanged datum mtu, old 1500, new 1400, pointing at its dciStatText (which reads 1400)"
{ ip -n "$NETNS" link set dveth0 up && ip -n "$NETNS" link set dveth1 up; } || fail "cannot set dveth0/1 up"
both_up() {
	changed "$index0" $OPER_UP_DATUM | grep -q -F "$NOTIFY.12.0 = STRING: \"true\"" &&
	    changed "$index1" $OPER_UP_DATUM | grep -q -F "$NOTIFY.12.0 = STRING: \"true\""
}
wait_until 10 both_up || fail "no dciDataChanged oper_up true for dveth0/1: $(traps $CHANGED)"
line=$(changed "$index1" $OPER_UP_DATUM)
{ [ "$(value "$line" 4)" = dveth1 ] && [ "$(value "$line" 10)" = oper_up ] &&
    [ "$(value "$line" 11)" = false ] && [ "$(value "$line" 12)" = true ]; } ||
    fail "dciDataChanged of dveth1's oper_up carries: $line"
ip -n "$NETNS" link set dveth1 down || fail "cannot set dveth1 down"
# Both ends go down: dveth1 by itself, dveth0 with its peer.
both_down() {
	[ "$(changed "$index0" $OPER_UP_DATUM | wc -l)" -eq 2 ] &&
	    [ "$(changed "$index1" $OPER_UP_DATUM | wc -l)" -eq 2 ]
}
wait_until 10 both_down || fail "no second dciDataChanged oper_up for dveth0/1: $(traps $CHANGED)"
line=$(changed "$index0" $OPER_UP_DATUM | tail -n 1)
{ [ "$(value "$line" 11)" = true ] && [ "$(value "$line" 12)" = false ]; } ||
    fail "dciDataChanged of dveth0's link down carries: $line"
sleep 2 # the counters of the up links moved meanwhile: no news
[ "$(traps $CHANGED | wc -l)" -eq 6 ] ||
    fail "$(traps $CHANGED | wc -l) dciDataChanged, not 6 (the application's 1 and these 5): $(traps $CHANGED)"
ok "dveth0/1 up, then dveth1 down: dciDataChanged oper_up false -> true -> false for each end; 5 data changes in all, none for counters"

# --- a threshold alarm with snmpd's monitor -----------------------------------------

# mte LINE-PATTERN: the DISMAN-EVENT-MIB notifications received so far.
mte() { grep -F -- "OID: $1"$'\t' "$TRAP_LOG" || true; }
rising() { [ -n "$(mte $MTE_RISING)" ]; }
wait_until 10 rising || fail "no mteTriggerRising for lo's MTU $(ns_run cat /sys/class/net/lo/mtu) >= 9000"
ns_run ip link set lo mtu 1500 || fail "cannot set lo's MTU"
falling() { [ -n "$(mte $MTE_FALLING)" ]; }
wait_until 10 falling || fail "no mteTriggerFalling for lo's MTU 1500 <= 2000"
line=$(mte $MTE_FALLING | tail -n 1)
printf '%s\n' "$line" | tr '\t' '\n' | grep -q -F "$MTE_HOT_VALUE = Gauge32: 1500" ||
    fail "mteTriggerFalling carries not mteHotValue 1500: $line"
printf '%s\n' "$line" | tr '\t' '\n' | grep -q -F "$LO_LABEL = STRING: \"lo\"" ||
    fail "mteTriggerFalling carries not lo's dciInstanceLabel: $line"
ns_run ip link set lo mtu 65536 || fail "cannot set lo's MTU back"
ok "snmpd's DISMAN-EVENT-MIB monitor on lo's dciStatGauge32 MTU: mteTriggerRising at 65536, mteTriggerFalling with mteHotValue 1500 and dciInstanceLabel lo"

# --- a restart: no flood --------------------------------------------------------------

stop_dcistatd
total=$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")
start_dcistatd "$config"
wait_dcistatd_ready 10
sleep 3
[ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -eq "$total" ] ||
    fail "notifications after a restart: $(tail -n 3 "$TRAP_LOG")"
interfaces=$(ns_run ls /sys/class/net | wc -l)
ok "dcistatd restarted with $interfaces interfaces: no notification"
# A reload that restarts netif (another refresh period): its classes'
# first snapshots again, no change.
sed -i 's/^    refresh: 0.2$/    refresh: 0.3/' "$config"
kill -HUP "$DCISTATD_PID"
reloaded() { grep -q -E "reloaded .* 1 restarted" "$DCISTATD_LOG"; }
wait_until 10 reloaded || fail "no reload restarting netif: $(tail -n 3 "$DCISTATD_LOG")"
sleep 3
# Only netif's new reset stamp: no instance notification.
{ [ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -eq $((total + 1)) ] &&
    [ "$(value "$(traps $RESTARTED | tail -n 1)" 5)" = netif ]; } ||
    fail "notifications after a reload: $(tail -n 3 "$TRAP_LOG")"
ok "reload restarting netif with $interfaces interfaces: one dciSupplierRestarted (netif), no instance notification"
stop_dcistatd

# --- the snmpd module ------------------------------------------------------------------

stop_snmpd
MODULE=$top_builddir/src/agent/.libs/dcistat.so
MODULE_LIMIT=3 MODULE_WINDOW=15
embedded_sanitizer_env "$MODULE"
SNMPD_ENV=("${EMBEDDED_ENV[@]}")
write_config "$TMP_DIR/module.yaml" 1 0.2
cat >>"$TMP_DIR/module.yaml" <<END
  - module: $GOOD_SO
    refresh: 0.5
    options:
      refresh_fails_while: $BROKEN
      init_needs: $NEEDED.module
notifications:
  rate-limit: $MODULE_LIMIT per $MODULE_WINDOW
  data-changed:
    netif: [mtu]
END
SNMPD_EXTRA_CONF="trap2sink 127.0.0.1:$TRAP_PORT public
dlmod dcistat $MODULE
dcistatConfig $TMP_DIR/module.yaml"
total=$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")
failed_before=$(count $FAILED) recovered_before=$(count $RECOVERED)
summaries_before=$(count $SUMMARY)
start_snmpd
module_serves() { [ "$(snmp_get "$DCI_SUPPLIER_MODULE_1" 2>/dev/null)" = netif ]; }
wait_until 10 module_serves || fail "snmpd's module does not serve netif"
sleep 2
# Only good's failure to start, announced after snmpd read its sinks.
{ [ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -eq $((total + 1)) ] &&
    [ "$(count $FAILED)" -eq $((failed_before + 1)) ] &&
    [ "$(value "$(traps $FAILED | tail -n 1)" 5)" = "$GOOD_SO" ]; } ||
    fail "the module's notifications at load: $(tail -n 3 "$TRAP_LOG")"
ok "snmpd's module: no notification for its initial population, one dciSupplierFailed for good failing to start"
restarted_before=$(count $RESTARTED)
touch "$NEEDED.module"
module_restarted() { [ "$(count $RESTARTED)" -gt "$restarted_before" ]; }
wait_until 15 module_restarted || fail "the module sent no dciSupplierRestarted for good able to start"
failed_before=$(count $FAILED)
ok "snmpd's module: good able to start: dciSupplierRestarted"
# Within its limit (3 per 15 s): the pair added and one MTU change.
ip -n "$NETNS" link add mveth0 type veth peer name mveth1 || fail "cannot create mveth0"
index0=$(ifindex mveth0)
module_added() { [ "$(count $ADDED '"mveth')" -eq 2 ]; }
wait_until 10 module_added || fail "the module sent not two dciInstanceAdded for mveth0/1: $(traps $ADDED | tail -n 2)"
line=$(traps $ADDED | grep -F '"mveth0"')
{ [ "$(value "$line" 3)" = "$DCI_ARC.1.4.1.2.2.1.1.1.$index0" ] && [ "$(value "$line" 4)" = mveth0 ]; } ||
    fail "the module's dciInstanceAdded of mveth0 (ifIndex $index0) carries: $line"
ip -n "$NETNS" link set mveth0 mtu 1280 || fail "cannot set mveth0's MTU"
module_changed() { [ -n "$(changed "$index0" $MTU_DATUM)" ]; }
wait_until 10 module_changed || fail "the module sent no dciDataChanged for mveth0's MTU: $(traps $CHANGED | tail -n 2)"
line=$(changed "$index0" $MTU_DATUM)
{ [ "$(value "$line" 4)" = mveth0 ] && [ "$(value "$line" 11)" = 1500 ] && [ "$(value "$line" 12)" = 1280 ]; } ||
    fail "the module's dciDataChanged of mveth0's MTU carries: $line"
ok "snmpd's module: mveth0/1 (ifIndex $index0) added and MTU 1500 -> 1280 notified through snmpd's own trap sink"
# Past the limit: the pair's removal is summarised when the window ends.
ip -n "$NETNS" link del mveth0 || fail "cannot delete mveth0"
module_summarised() { [ "$(count $SUMMARY)" -gt "$summaries_before" ]; }
wait_until $((MODULE_WINDOW + 10)) module_summarised ||
    fail "the module sent no dciInstancesSummary within $((MODULE_WINDOW + 10)) s of mveth0/1 removed past its limit"
line=$(traps $SUMMARY | tail -n 1)
{ [ "$(value "$line" 2)" = netif ] && [ "$(value "$line" 7)" = 0 ] && [ "$(value "$line" 8)" = 2 ] &&
    [ "$(value "$line" 13)" = 0 ]; } ||
    fail "the module's dciInstancesSummary carries: $line"
[ "$(count $REMOVED '"mveth')" -eq 0 ] || fail "the module sent dciInstanceRemoved past its limit"
ok "snmpd's module past its limit ($MODULE_LIMIT per $MODULE_WINDOW s): mveth0/1 removed in one dciInstancesSummary netif added 0 removed 2 changed 0"
touch "$BROKEN"
module_failed() { [ "$(count $FAILED)" -gt "$failed_before" ]; }
wait_until 10 module_failed || fail "the module sent no dciSupplierFailed for good"
line=$(traps $FAILED | tail -n 1)
{ [ "$(value "$line" 5)" = good ] && [ "$(value "$line" 6)" = "refresh failed" ]; } ||
    fail "the module's dciSupplierFailed carries: $line"
rm -f "$BROKEN"
module_recovered() { [ "$(count $RECOVERED)" -gt "$recovered_before" ]; }
wait_until 15 module_recovered || fail "the module sent no dciSupplierRecovered for good"
[ "$(value "$(traps $RECOVERED | tail -n 1)" 5)" = good ] || fail "the module's dciSupplierRecovered carries: $(traps $RECOVERED | tail -n 1)"
ok "snmpd's module: good failed (dciSupplierFailed, reason 'refresh failed') and recovered (dciSupplierRecovered)"
# snmpd's SIGHUP reloads the module's configuration: netif restarted.
total=$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")
sed -i 's/^    refresh: 0.2$/    refresh: 0.3/' "$TMP_DIR/module.yaml"
kill -HUP "$SNMPD_PID"
module_reloaded() { [ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -gt "$total" ]; }
wait_until 10 module_reloaded || fail "the module sent nothing for a reload restarting netif"
sleep 2
{ [ "$(grep -c -F "$NOTIFICATION." "$TRAP_LOG")" -eq $((total + 1)) ] &&
    [ "$(value "$(traps $RESTARTED | tail -n 1)" 5)" = netif ]; } ||
    fail "the module's notifications after a reload: $(tail -n 3 "$TRAP_LOG")"
ok "snmpd's module reloaded by SIGHUP with netif restarted: one dciSupplierRestarted (netif), no instance notification"
stop_snmpd
printf '# one notification of each kind received:\n'
for n in $ADDED $REMOVED $SUMMARY $FAILED $RECOVERED $RESTARTED $CHANGED; do
	traps "$n" | head -n 1 | sed 's/^/#   /'
done
