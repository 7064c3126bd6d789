#!/bin/bash
# agent_devstat.sh -- dcistatd's devstat rows against /proc/diskstats and
# snmpd's own UCD-DISKIO-MIB, on a loop device the test makes.
#
# A loop device loopN (a free N >= 200, created through /dev/loop-control)
# is attached to a file in the temporary directory. dcistatd runs with the
# devstat provider told to include only loopN; snmpd is the AgentX master
# and also serves UCD-DISKIO-MIB. The test asserts:
#   - loopN is one row of class devstat (1.2), index (7, N), labelled loopN,
#     with its sysfs attributes (block size, device type, priority);
#   - after 16 direct writes of 64 KiB, bytes_written and num_writes moved
#     by exactly 1 MiB and 16, and equal /proc/diskstats and UCD-DISKIO-MIB
#     diskIONWrittenX / diskIOWrites for the same device, and the per-class
#     table's dciDevstatBytesWritten.7.N equals them;
#   - detached and removed, the row goes; created again with the same
#     major:minor, it comes back with the new device's counters, a new
#     creation time and its discontinuity time set;
#   - removed and created again between two refreshes (dcistatd stopped
#     meanwhile), the counters went backwards: same row, discontinuity set.
#
# Needs root, losetup and /dev/loop-control (exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd losetup dd snmpd snmpget snmpwalk
require_built
[ -c /dev/loop-control ] || skip "no /dev/loop-control (loop driver missing)"
LOOP_CONTROL=$top_builddir/tests/loop_control
[ -x "$LOOP_CONTROL" ] || fail "$LOOP_CONTROL not built (make check builds it)"
DEVSTAT_SO=$(provider_so devstat)
[ -f "$DEVSTAT_SO" ] || fail "$DEVSTAT_SO not built (run make)"
started=$(now_ms)

DEVSTAT=2.1.2                             # class 1.2, length-prefixed
DCI_LABEL=$DCI_ARC.1.4.1.2.$DEVSTAT       # dciInstanceLabel.<class>
DCI_CREATED=$DCI_ARC.1.4.1.3.$DEVSTAT
DCI_DISCONTINUITY=$DCI_ARC.1.4.1.4.$DEVSTAT
DCI_C64=$DCI_ARC.1.5.1.4.$DEVSTAT         # dciStatCounter64.<class>
DCI_GAUGE=$DCI_ARC.1.5.1.6.$DEVSTAT
DCI_TRUTH=$DCI_ARC.1.5.1.12.$DEVSTAT
DCI_TEXT=$DCI_ARC.1.5.1.3.$DEVSTAT
D_BYTES_WRITTEN=2 D_NUM_WRITES=5 D_BLOCK_SIZE=10 D_DEVICE_TYPE=11
D_PRIORITY=12 D_PARTITION=20 D_DEVICE_NAME=21
UCD_DEVICE=.1.3.6.1.4.1.2021.13.15.1.1.2  # diskIODevice
UCD_WRITES=.1.3.6.1.4.1.2021.13.15.1.1.6  # diskIOWrites (Counter32)
UCD_WRITTEN_X=.1.3.6.1.4.1.2021.13.15.1.1.13 # diskIONWrittenX (Counter64)
LOOP_MAJOR=7

# --- the loop device --------------------------------------------------------

LOOP=
for n in $(seq 200 299); do
	"$LOOP_CONTROL" add "$n" 2>/dev/null
	case $? in
	0) LOOP=$n; break ;;
	2) continue ;;
	*) skip "cannot create a loop device: $("$LOOP_CONTROL" add "$n" 2>&1)" ;;
	esac
done
[ -n "$LOOP" ] || skip "no free loop device number in 200..299"
NAME=loop$LOOP
DEVICE=/dev/$NAME
BACKING=$TMP_DIR/disk.img
loop_cleanup() {
	losetup -d "$DEVICE" 2>/dev/null
	"$LOOP_CONTROL" remove "$LOOP" 2>/dev/null
}
at_exit loop_cleanup
truncate -s 64M "$BACKING" || fail "cannot create $BACKING"

device_node_ready() { [ -b "$DEVICE" ]; }
attach() {
	wait_until 5 device_node_ready || fail "$DEVICE did not appear"
	losetup "$DEVICE" "$BACKING" || fail "cannot attach $BACKING to $DEVICE"
}
detach_and_remove() {
	losetup -d "$DEVICE" || fail "cannot detach $DEVICE"
	# The kernel may still hold the device for a moment after detach.
	wait_until 5 "$LOOP_CONTROL" remove "$LOOP" ||
	    fail "cannot remove $DEVICE: $("$LOOP_CONTROL" remove "$LOOP" 2>&1)"
}
recreate() {
	"$LOOP_CONTROL" add "$LOOP" || fail "cannot create $DEVICE again"
	attach
}
# write_blocks COUNT: COUNT direct writes of 64 KiB at the start of the disk.
write_blocks() {
	dd if=/dev/zero of="$DEVICE" bs=64k count="$1" oflag=direct status=none ||
	    fail "cannot write to $DEVICE"
}
attach
note "$DEVICE ($LOOP_MAJOR:$LOOP) attached to a 64 MiB file"

# proc_diskstats FIELD: field FIELD (1-based, after the name) of loopN.
proc_diskstats() {
	awk -v major="$LOOP_MAJOR" -v minor="$LOOP" -v field="$1" \
	    '$1 == major && $2 == minor { print $(3 + field) }' /proc/diskstats
}

# --- the daemons ----------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $DEVSTAT_SO
    refresh: 0.2
    options:
      include: [$NAME]
EOF
DCISTATD_FIRST_MODULE=devstat
start_dcistatd "$config"
wait_dcistatd_ready 10
ok "dcistatd serves the devstat supplier over udp:127.0.0.1:$SNMPD_PORT"
SNMP_TARGET=unix:$SNMPD_UNIX
ROW=2.$LOOP_MAJOR.$LOOP                   # instance index: (major, minor)

# Only loopN is served: include replaced the default exclusion of loop*.
labels=$(snmp_walk "$DCI_LABEL") || fail "cannot walk dciInstanceLabel"
[ "$labels" = "$DCI_LABEL.$ROW $NAME" ] ||
    fail "class devstat rows: '$labels', expected only $NAME at index $ROW"
ok "class devstat serves exactly $NAME, index ($LOOP_MAJOR, $LOOP)"

attributes=$(snmp_get "$DCI_GAUGE.$ROW.$D_BLOCK_SIZE" \
    "$DCI_GAUGE.$ROW.$D_DEVICE_TYPE" "$DCI_GAUGE.$ROW.$D_PRIORITY" \
    "$DCI_TRUTH.$ROW.$D_PARTITION" "$DCI_TEXT.$ROW.$D_DEVICE_NAME" \
    "$DCI_TEXT.$ROW.$D_DEVICE_TYPE") || fail "cannot read the attributes of $NAME"
block_size=$(cat "/sys/class/block/$NAME/queue/logical_block_size")
expected=$(printf '%s\n' "$block_size" 48 32 2 "$NAME" 0x30)
[ "$attributes" = "$expected" ] ||
    fail "$NAME attributes: $(echo "$attributes" | tr '\n' ' '), expected $(echo "$expected" | tr '\n' ' ')"
ok "$NAME block_size $block_size (sysfs), device_type 0x30 (direct access, other interface), priority 0x20, not a partition"

# --- writes ---------------------------------------------------------------------

counters() { # -> "bytes_written num_writes" from dcistatd
	snmp_get "$DCI_C64.$ROW.$D_BYTES_WRITTEN" "$DCI_C64.$ROW.$D_NUM_WRITES" | tr '\n' ' '
}
read -r bytes0 writes0 <<<"$(counters)" || fail "no counters for $NAME"
write_blocks 16
want_bytes=$((bytes0 + 16 * 65536)) want_writes=$((writes0 + 16))
counters_moved() {
	read -r bytes writes <<<"$(counters)"
	[ "$bytes" = "$want_bytes" ] && [ "$writes" = "$want_writes" ]
}
wait_until 5 counters_moved ||
    fail "$NAME bytes_written/num_writes $(counters), expected $want_bytes $want_writes"
ok "$NAME bytes_written $bytes0 -> $bytes (+1 MiB), num_writes $writes0 -> $writes (+16)"
proc_bytes=$(($(proc_diskstats 7) * 512)) proc_writes=$(proc_diskstats 5)
[ "$bytes $writes" = "$proc_bytes $proc_writes" ] ||
    fail "$NAME: dcistatd $bytes $writes, /proc/diskstats $proc_bytes $proc_writes"
ok "$NAME: equal to /proc/diskstats (sectors written x 512 = $proc_bytes, writes completed = $proc_writes)"

# UCD-DISKIO-MIB numbers its rows by position; find loopN's row by name.
ucd_row() {
	snmp_walk "$UCD_DEVICE" | awk -v name="$NAME" '$2 == name { sub(/.*\./, "", $1); print $1 }'
}
ucd_agrees() {
	local row values
	row=$(ucd_row)
	[ -n "$row" ] || return 1
	values=$(snmp_get "$UCD_WRITTEN_X.$row" "$UCD_WRITES.$row") || return 1
	[ "$(echo "$values" | tr '\n' ' ')" = "$bytes $((writes % 4294967296)) " ]
}
# snmpd caches its disk statistics for a few seconds.
wait_until 15 ucd_agrees ||
    fail "$NAME: UCD-DISKIO-MIB row $(ucd_row) says $(snmp_get "$UCD_WRITTEN_X.$(ucd_row)" "$UCD_WRITES.$(ucd_row)" | tr '\n' ' '), dcistatd $bytes $writes"
ok "$NAME: equal to UCD-DISKIO-MIB row $(ucd_row): diskIONWrittenX $bytes, diskIOWrites $writes"

# The per-class table (dciClassData.1.2, DCI-DEVSTAT-MIB dciDevstatTable),
# indexed by (major, minor) without length prefixes, in the same PDU as
# UCD-DISKIO-MIB and dciStatTable.
DEVSTAT_TABLE=$DCI_ARC.1.6.1.2.1          # dciDevstatEntry: .datum.major.minor
read -r cell_bytes ucd_bytes stat_bytes <<<"$(snmp_get \
    "$DEVSTAT_TABLE.$D_BYTES_WRITTEN.$LOOP_MAJOR.$LOOP" "$UCD_WRITTEN_X.$(ucd_row)" \
    "$DCI_C64.$ROW.$D_BYTES_WRITTEN" | tr '\n' ' ')"
[ "$cell_bytes" = "$bytes" ] && [ "$ucd_bytes" = "$bytes" ] && [ "$stat_bytes" = "$bytes" ] ||
    fail "$NAME: dciDevstatBytesWritten $cell_bytes, diskIONWrittenX $ucd_bytes, dciStatTable $stat_bytes; expected $bytes"
ok "$NAME: dciDevstatBytesWritten.$LOOP_MAJOR.$LOOP = $cell_bytes = diskIONWrittenX = dciStatTable bytes_written"

# --- the device goes and comes back (seen by a refresh) -----------------------

# dcistatd's TimeStamps follow the master's sysUpTime as the master's
# answers taught it, late by their delivery: up to AGENT_UPTIME_TOLERANCE
# (src/agent/timestamps.h, 100 ms) behind a sysUpTime read at the same
# moment. A TimeStamp of an event after sysUpTime read T is >= T - this.
SYNC_TICKS=10
instance_times() { # -> "created discontinuity" (TimeTicks)
	snmp_get "$DCI_CREATED.$ROW" "$DCI_DISCONTINUITY.$ROW" | tr '\n' ' '
}
read -r created0 discontinuity0 <<<"$(instance_times)" || fail "no instance times for $NAME"
uptime_ticks() { snmp_get .1.3.6.1.2.1.1.3.0; }
detach_and_remove
row_gone() { [ -z "$(snmp_walk "$DCI_LABEL")" ]; }
wait_until 5 row_gone || fail "$NAME still served after it was removed: $(snmp_walk "$DCI_LABEL")"
ok "$NAME removed: its row is gone"
before_return=$(uptime_ticks) || fail "cannot read sysUpTime"
# A refresh stamps what it finds with the time it was due: one due before
# before_return must have ended before the device returns.
sleep 0.3
recreate
write_blocks 4
row_back() {
	[ "$(snmp_get "$DCI_LABEL.$ROW")" = "$NAME" ] &&
	    [ "$(counters)" = "$((4 * 65536)) 4 " ]
}
wait_until 5 row_back ||
    fail "$NAME did not come back with 256 KiB / 4 writes: label '$(snmp_get "$DCI_LABEL.$ROW")', counters $(counters)"
read -r created1 discontinuity1 stat_discontinuity <<<"$(snmp_get "$DCI_CREATED.$ROW" \
    "$DCI_DISCONTINUITY.$ROW" "$DCI_ARC.1.5.1.13.$DEVSTAT.$ROW.$D_BYTES_WRITTEN" | tr '\n' ' ')"
[ "$created1" -ge $((before_return - SYNC_TICKS)) ] && [ "$discontinuity1" -ge $((before_return - SYNC_TICKS)) ] ||
    fail "$NAME came back with created $created1, discontinuity $discontinuity1; both should be >= $before_return - $SYNC_TICKS (sysUpTime before it returned; before: $created0 $discontinuity0)"
[ "$stat_discontinuity" = "$discontinuity1" ] ||
    fail "dciStatDiscontinuity of bytes_written $stat_discontinuity != dciInstanceDiscontinuity $discontinuity1"
ok "$NAME came back as a new row: counters 262144 / 4, created $created1 and discontinuity $discontinuity1 ticks (>= $before_return - $SYNC_TICKS; were $created0 $discontinuity0)"

# --- gone and back between two refreshes: counters went backwards ------------

write_blocks 8
want_bytes=$((12 * 65536)) want_writes=12
wait_until 5 counters_moved || fail "$NAME counters $(counters), expected $want_bytes $want_writes"
read -r created2 discontinuity2 <<<"$(instance_times)"
# dcistatd is stopped meanwhile, so that no refresh can fall between the
# removal and the return, however slow the machine. A refresh that began
# before the stop may read the returned device after it, so the
# discontinuity is only known to be later than the snapshot read above.
before_read=$(uptime_ticks)
sleep 0.3 # a refresh period: one begun before before_read has ended
kill -STOP "$DCISTATD_PID"
detach_and_remove
recreate
write_blocks 2
kill -CONT "$DCISTATD_PID"
want_bytes=$((2 * 65536)) want_writes=2
wait_until 5 counters_moved || fail "$NAME counters $(counters), expected $want_bytes $want_writes"
read -r created3 discontinuity3 <<<"$(instance_times)"
[ "$created3" = "$created2" ] ||
    fail "$NAME creation time changed ($created2 -> $created3) though no refresh saw it missing"
[ "$discontinuity3" -gt "$discontinuity2" ] && [ "$discontinuity3" -ge $((before_read - SYNC_TICKS)) ] ||
    fail "$NAME counters went back 786432 -> 131072 but discontinuity is $discontinuity3 (was $discontinuity2, sysUpTime before the removal $before_read)"
ok "$NAME counters went backwards (786432 -> 131072 bytes) between refreshes: same row (created $created3), discontinuity $discontinuity2 -> $discontinuity3"

# A TimeStamp reads the same in every request.
first_reading=$(instance_times)
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(instance_times)" = "$first_reading" ] ||
	    fail "$NAME dciInstanceCreated/Discontinuity changed between requests: $first_reading, then $(instance_times)"
done
ok "$NAME TimeStamps read the same in 11 requests ($first_reading)"

# TimeStamps are sysUpTime values: the last refresh is not in the future.
read -r uptime last_refresh <<<"$(snmp_get .1.3.6.1.2.1.1.3.0 "$DCI_ARC.1.1.1.10.1" | tr '\n' ' ')"
[ -n "$last_refresh" ] && [ "$last_refresh" -le "$uptime" ] && [ "$last_refresh" -gt 0 ] ||
    fail "dciSupplierLastRefresh $last_refresh, sysUpTime $uptime in the same PDU"
ok "dciSupplierLastRefresh $last_refresh <= sysUpTime $uptime (one PDU)"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
