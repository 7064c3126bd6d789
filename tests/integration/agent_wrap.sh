#!/bin/bash
# agent_wrap.sh -- 32-bit counters that wrap, against a real snmpd master.
#
# Two parts, each with its own dcistatd under one private snmpd master:
#   - a long gap with no request that crosses 32-bit wraps: dcistatd runs
#     evcnt (refresh 0.2 s, softirqs: no) in a private mount namespace where
#     a fake file is bind-mounted over /proc/interrupts. The test checks
#     that the rows served are the fake's (IRQ 0's total and its two
#     per-CPU counts, nothing else), then, with no SNMP request at all,
#     drives CPU0's count 4294967000 -> 100 -> 2000000100 -> 4000000100
#     -> 50, each step under 2^31, waiting until the provider's refresh
#     thread has read the file three times after each step. One GET then
#     must show 2 * 2^32 + 50 for CPU0 (a daemon refreshing only on
#     requests would serve 2^32 + 50), the total as the sum with CPU1, and
#     no new dciInstanceDiscontinuity;
#   - a wrap at 2^32 versus a real reset: the loader tests' provider
#     (good_provider.so) beside netif serves a Counter32 read from a file at
#     each refresh: 4294967000 -> 100 is a wrap at full width
#     (dciInstanceDiscontinuity unchanged), 100 -> 5 a reset
#     (dciInstanceDiscontinuity moved forward).
#
# Each new count goes into a new file, never into the one being read: the
# fake /proc/interrupts is replaced by stacking a bind mount of the new
# file over it inside dcistatd's mount namespace (nsenter), the Counter32
# file by a rename, so no refresh can read a half-written number.
#
# Each stop (lib.sh's stop_dcistatd, stop_snmpd) also checks that neither
# log holds Net-SNMP's complaint of a callback list changed while walked.
#
# Needs root (snmpd's sockets, mount namespaces; exit 77 otherwise) and
# util-linux's unshare and nsenter.

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget snmpwalk unshare nsenter mount
require_built
EVCNT_SO=$(provider_so evcnt)
GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
[ -f "$EVCNT_SO" ] || fail "$EVCNT_SO not built (run make)"
[ -f "$GOOD_SO" ] || skip "$GOOD_SO not built (make check builds it)"
started=$(now_ms)

INSTANCE=$DCI_ARC.1.4.1     # dciInstanceEntry
STAT=$DCI_ARC.1.5.1         # dciStatEntry
DISCONTINUITY=$INSTANCE.4   # dciInstanceDiscontinuity
STAT_C32=$STAT.5            # dciStatCounter32
STAT_C64=$STAT.4            # dciStatCounter64
SYS_UPTIME=.1.3.6.1.2.1.1.3.0
REFRESH=0.2
TWO_32=4294967296

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX

# --- a gap with no request across two wraps, from a fake /proc/interrupts ---------

EVCNT=2.1.3                 # class 1.3, length-prefixed
IRQ0_TOTAL=3.1.0.0          # instance (source 1 numbered, IRQ 0, slot 0 total)
IRQ0_CPU0=3.1.0.1           # slot CPU + 1
IRQ0_CPU1=3.1.0.2
D_COUNT=1

# fake_interrupts FILE CPU0-COUNT CPU1-COUNT: /proc/interrupts of a
# two-CPU machine with IRQ 0 alone, in the kernel's layout (a header of
# CPU columns, then "%3d:" and a "%10u " count per CPU, chip, hwirq, name).
fake_interrupts() {
	{
		printf '%15s%11s\n' CPU0 CPU1
		printf '%3s: %10s %10s   IO-APIC   2-edge      timer\n' 0 "$2" "$3"
	} >"$1"
}

fake=$TMP_DIR/interrupts.0
fake_interrupts "$fake" 4294967000 0
# shellcheck disable=SC2016 # expanded by the inner shell
probe=$(unshare -m --propagation private sh -c \
    'mount --bind "$1" /proc/interrupts && cat /proc/interrupts' sh "$fake" \
    2>"$TMP_DIR/probe.err")
[ "$probe" = "$(cat "$fake")" ] ||
    skip "cannot bind-mount a file over /proc/interrupts in a mount namespace: $(head -n 1 "$TMP_DIR/probe.err")"
ok "a file bind-mounted over /proc/interrupts in a private mount namespace reads back as written"

config=$TMP_DIR/evcnt.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $EVCNT_SO
    refresh: $REFRESH
    options:
      softirqs: no
EOF
# shellcheck disable=SC2016 # expanded by the inner shell
DCISTATD_WRAPPER=(unshare -m --propagation private
	sh -c 'mount --bind "$0" /proc/interrupts && exec "$@"' "$fake")
DCISTATD_FIRST_MODULE=evcnt
start_dcistatd "$config"
DCISTATD_WRAPPER=()
wait_dcistatd_ready 10

# The rows are the fake's: IRQ 0's total and its two CPUs, nothing else.
C64=$STAT_C64.$EVCNT
fake_served() {
	[ "$(snmp_walk "$C64")" = "$C64.$IRQ0_TOTAL.$D_COUNT 4294967000
$C64.$IRQ0_CPU0.$D_COUNT 4294967000
$C64.$IRQ0_CPU1.$D_COUNT 0" ]
}
wait_until 10 fake_served ||
    fail "class evcnt does not serve the fake /proc/interrupts: $(snmp_walk "$C64" | tr '\n' ' ')"
discontinuity0=$(snmp_get "$DISCONTINUITY.$EVCNT.$IRQ0_CPU0") ||
    fail "cannot read dciInstanceDiscontinuity of IRQ 0 CPU0"
ok "evcnt serves the fake file's rows only: IRQ 0 total 4294967000, cpu0 4294967000, cpu1 0 (dciInstanceDiscontinuity $discontinuity0)"

# Bytes read by dcistatd's threads other than the main one: evcnt's refresh
# thread, whose only reads are of /proc/interrupts (softirqs: no).
refresher_read_bytes() {
	local task name value total=0
	for task in /proc/"$DCISTATD_PID"/task/*; do
		[ "${task##*/}" != "$DCISTATD_PID" ] || continue
		while read -r name value; do
			[ "$name" != rchar: ] || total=$((total + value))
		done <"$task/io" || return 1
	done
	printf '%s\n' "$total"
}
refresher_read_bytes >/dev/null 2>&1 ||
    skip "no per-thread I/O accounting (/proc/PID/task/TID/io) to see refreshes by"
fake_size=$(wc -c <"$fake")

# read_since BYTES TIMES: true once the refresh thread has read the fake
# (all fakes have the same size) TIMES more since it had read BYTES.
read_since() {
	local now
	_lib_alive "$DCISTATD_PID" || return "$GIVE_UP"
	now=$(refresher_read_bytes) || return "$GIVE_UP"
	((now - $1 >= $2 * fake_size))
}

# From here to the GET below, nothing sends dcistatd a request: each step
# bind-mounts the next fake over the last one inside dcistatd's namespace,
# so a refresh reads either file whole, and waits until the refresh thread
# has read the file three times since (the last two reads at least were of
# the new file, and the refresh of the first of them has been committed).
gap_start=$(now_ms)
steps=0 reads=0
cpu1=0
for cpu0 in 100 2000000100 4000000100 50; do
	steps=$((steps + 1))
	cpu1=$((cpu1 + 3))
	fake=$TMP_DIR/interrupts.$steps
	fake_interrupts "$fake" "$cpu0" "$cpu1"
	[ "$(wc -c <"$fake")" -eq "$fake_size" ] || fail "fake $steps has another size"
	before=$(refresher_read_bytes) || fail "cannot read the refresh thread's I/O counts"
	nsenter -t "$DCISTATD_PID" -m mount --bind "$fake" /proc/interrupts ||
	    fail "cannot bind-mount $fake over /proc/interrupts in dcistatd's namespace"
	wait_until 10 read_since "$before" 3 ||
	    fail "step $steps (cpu0 $cpu0): the refresh thread did not read the file 3 times within 10 s"
	reads=$((reads + ($(refresher_read_bytes) - before) / fake_size))
done
gap=$(($(now_ms) - gap_start))
ok "no request for $gap ms: cpu0 4294967000 -> 100 -> 2000000100 -> 4000000100 -> 50, $steps steps under 2^31, the fake read $reads times by the refresh thread"

want_cpu0=$((2 * TWO_32 + 50))
want_total=$((want_cpu0 + cpu1))
mapfile -t v < <(snmp_get "$C64.$IRQ0_CPU0.$D_COUNT" "$C64.$IRQ0_CPU1.$D_COUNT" \
    "$C64.$IRQ0_TOTAL.$D_COUNT" "$DISCONTINUITY.$EVCNT.$IRQ0_CPU0" \
    "$DISCONTINUITY.$EVCNT.$IRQ0_TOTAL") ||
    fail "cannot read IRQ 0's counts after the gap"
[ "${v[0]}" = "$want_cpu0" ] ||
    fail "after two wraps with no request: cpu0 ${v[0]}, expected $want_cpu0 = 2 * 2^32 + 50 ($((TWO_32 + 50)) if a wrap was missed)"
[ "${v[1]} ${v[2]}" = "$cpu1 $want_total" ] ||
    fail "after the gap: cpu1 ${v[1]} (expected $cpu1), total ${v[2]} (expected $want_total)"
[ "${v[3]} ${v[4]}" = "$discontinuity0 $discontinuity0" ] ||
    fail "wraps taken as discontinuities: dciInstanceDiscontinuity $discontinuity0 -> cpu0 ${v[3]}, total ${v[4]}"
ok "one GET after the gap: cpu0 ${v[0]} = 2 * 2^32 + 50, cpu1 ${v[1]}, total ${v[2]}; dciInstanceDiscontinuity still $discontinuity0"
stop_dcistatd

# --- a Counter32 wrap at 2^32 versus a reset ----------------------------------------

GOOD_1=2.9.1.1.1            # class 9.1, instance 1
D_COUNT32=3
COUNT32=$TMP_DIR/count32

# count32 VALUE: the provider's next count32, by a rename (never half
# written when a refresh reads it).
count32() {
	printf '%s\n' "$1" >"$COUNT32.new" || fail "cannot write $COUNT32.new"
	mv -f "$COUNT32.new" "$COUNT32" || fail "cannot rename $COUNT32.new"
}
# count32_served VALUE: the Counter32 of instance 1 is VALUE.
count32_served() {
	_lib_alive "$DCISTATD_PID" || return "$GIVE_UP"
	[ "$(snmp_get "$STAT_C32.$GOOD_1.$D_COUNT32" 2>/dev/null)" = "$1" ]
}

count32 4294967000
config=$TMP_DIR/good.yaml
write_config "$config" 1 "$REFRESH"
cat >>"$config" <<EOF
  - module: $GOOD_SO
    refresh: $REFRESH
    options:
      count32_file: $COUNT32
EOF
DCISTATD_FIRST_MODULE=netif
start_dcistatd "$config"
wait_dcistatd_ready 10
wait_until 10 count32_served 4294967000 ||
    fail "class 9.1 does not serve count32 4294967000: '$(snmp_get "$STAT_C32.$GOOD_1.$D_COUNT32" 2>&1)'"
discontinuity0=$(snmp_get "$DISCONTINUITY.$GOOD_1") ||
    fail "cannot read dciInstanceDiscontinuity of class 9.1 instance 1"
ok "count32 of class 9.1 instance 1 served as Counter32 4294967000, dciInstanceDiscontinuity $discontinuity0"

count32 100
wait_until 10 count32_served 100 || fail "count32 100 not served within 10 s"
discontinuity1=$(snmp_get "$DISCONTINUITY.$GOOD_1") || fail "cannot read dciInstanceDiscontinuity"
[ "$discontinuity1" = "$discontinuity0" ] ||
    fail "a wrap at 2^32 (4294967000 -> 100) taken as a discontinuity: $discontinuity0 -> $discontinuity1"
ok "4294967000 -> 100, a wrap at full width: Counter32 100, dciInstanceDiscontinuity still $discontinuity0"

# dciInstanceDiscontinuity is a TimeStamp, in centiseconds of sysUpTime:
# one set less than 10 ms after the last reads the same. The master's
# sysUpTime (not a request to dcistatd) must be past it first.
uptime_past() {
	local uptime
	uptime=$(snmp_get "$SYS_UPTIME") || return 1
	((uptime > $1 + 1))
}
wait_until 10 uptime_past "$discontinuity0" || fail "sysUpTime does not move past $discontinuity0"
count32 5
wait_until 10 count32_served 5 || fail "count32 5 not served within 10 s"
mapfile -t v < <(snmp_get "$DISCONTINUITY.$GOOD_1" "$SYS_UPTIME") ||
    fail "cannot read dciInstanceDiscontinuity and sysUpTime"
((v[0] > discontinuity0)) ||
    fail "a reset (100 -> 5): dciInstanceDiscontinuity $discontinuity0 -> ${v[0]} (sysUpTime ${v[1]}), expected later"
ok "100 -> 5, a reset: Counter32 5, dciInstanceDiscontinuity $discontinuity0 -> ${v[0]} (sysUpTime ${v[1]})"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
