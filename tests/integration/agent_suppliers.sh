#!/bin/bash
# agent_suppliers.sh -- an application publishes through libdcistat-supplier
# and dcistatd's suppliers provider serves it, under a private snmpd master.
#
# The tutorial's example program runs THREADS threads of ITERATIONS rounds
# (evcnt increments, devstat transactions, histogram samples) and prints
# what it counted. The test asserts:
#   - the values served (evcnt count, devstat operations and bytes, VOI
#     samples, sum and out-of-band count, every histogram bucket) equal
#     what the application counted;
#   - its supplier row (dciSupplierModule) is there while it runs;
#   - killed with SIGKILL, its rows and its supplier row go and the stale
#     segment it left is removed;
#   - started again, it is served again with a new reset stamp
#     (dciSupplierReset) and its instances' discontinuity time is later
#     than before;
#   - segments of random bytes, cut short, or naming a class id another
#     supplier serves are refused with a log line naming the file, and a
#     segment cut short while mapped (SIGBUS) is refused too, while the
#     application keeps being served and dcistatd keeps running.
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget snmpwalk
require_built
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
EXAMPLE=$top_builddir/doc/tutorial/dcistat-supplier-example
[ -x "$EXAMPLE" ] || fail "$EXAMPLE not built (run make)"

THREADS=4 ITERATIONS=20000
RUN=$TMP_DIR/run/suppliers
NUMBER=4242
# Class ids, length-prefixed: evcnt {3, N, 1}, devstat {3, N, 2}, the VOI
# latency of template 1 {3, N, 3, 1, 1, 1} and its histogram {.., 2}.
EVCNT=3.3.$NUMBER.1
DEVSTAT=3.3.$NUMBER.2
SUMMARY=6.3.$NUMBER.3.1.1.1
HISTOGRAM=6.3.$NUMBER.3.1.1.2
DCI_C64=$DCI_ARC.1.5.1.4
DCI_LABEL=$DCI_ARC.1.4.1.2
DCI_DISCONTINUITY=$DCI_ARC.1.4.1.4
SUPPLIER_MODULE=$DCI_ARC.1.1.1.2
SUPPLIER_RESET=$DCI_ARC.1.1.1.7

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN
EOF
start_dcistatd "$config"
wait_until 10 test -d "$RUN" || fail "dcistatd did not create $RUN (log: $(tail -n 3 "$DCISTATD_LOG"))"
ok "dcistatd created the run directory $RUN"

APP_PID=
APP_OUT=
start_app() {
	APP_OUT=$TMP_DIR/app.$1.out
	"$EXAMPLE" -d "$RUN" -t "$THREADS" -n "$ITERATIONS" >"$APP_OUT" 2>&1 &
	APP_PID=$!
	_lib_pids+=("$APP_PID")
	wait_until 30 grep -q '^queue depth' "$APP_OUT" ||
	    fail "the example did not finish counting: $(cat "$APP_OUT")"
}
counted() { # WORD...: the number after the words in the example's output
	awk -v key="$*" 'index($0, key " ") == 1 { n = split(key, k, " "); print $(n + 1) }' "$APP_OUT"
}
served_count() { # CLASS LABEL DATUM: its Counter64, found by label
	local class=$1 label=$2 datum=$3 oid value id=
	while read -r oid value; do
		[ "$value" = "$label" ] && id=${oid#"$DCI_LABEL.$class".}
	done < <(snmp_walk "$DCI_LABEL.$class")
	[ -n "$id" ] || return 1
	snmp_get "$DCI_C64.$class.$id.$datum"
}
evcnt_served() { served_count "$EVCNT" "example requests" 1 >/dev/null; }
evcnt_gone() { [ -z "$(snmp_walk "$DCI_LABEL.$EVCNT")" ]; }

start_app 1
wait_until 10 evcnt_served || fail "the application's evcnt class is not served (log: $(tail -n 5 "$DCISTATD_LOG"))"

total=$(counted evcnt count)
[ "$(served_count "$EVCNT" "example requests" 1)" = "$total" ] ||
    fail "evcnt count $(served_count "$EVCNT" "example requests" 1), the application counted $total"
ok "evcnt count served = $total, what $THREADS threads counted"

for pair in "4 num_reads" "5 num_writes" "1 bytes_read" "2 bytes_written"; do
	datum=${pair%% *} name=${pair#* }
	want=$(awk -v n="$name" '/^devstat / { for (i = 2; i < NF; i++) if ($i == n) print $(i + 1) }' "$APP_OUT")
	got=$(served_count "$DEVSTAT" exdisk0 "$datum") || fail "no devstat $name served"
	[ "$got" = "$want" ] || fail "devstat $name $got, the application counted $want"
done
ok "devstat num_reads, num_writes, bytes_read, bytes_written served = counted"

[ "$(served_count "$SUMMARY" main 1)" = "$(counted voi samples)" ] ||
    fail "VOI samples $(served_count "$SUMMARY" main 1), counted $(counted voi samples)"
want_sum=$(awk '/^voi samples/ { print $5 }' "$APP_OUT")
[ "$(served_count "$SUMMARY" main 2)" = "$want_sum" ] ||
    fail "VOI sum $(served_count "$SUMMARY" main 2), counted $want_sum"
[ "$(served_count "$SUMMARY" main 5)" = "$(counted out_of_band)" ] ||
    fail "VOI out_of_band $(served_count "$SUMMARY" main 5), counted $(counted out_of_band)"
read -r -a buckets < <(sed -n 's/^histogram //p' "$APP_OUT")
for b in 0 1 2 3 4 5 6 7; do
	got=$(served_count "$HISTOGRAM" "main [$((b * 100)),$((b * 100 + 100)))" 3) ||
	    fail "no bucket $b served"
	[ "$got" = "${buckets[b]}" ] || fail "bucket $b: $got, counted ${buckets[b]}"
done
ok "VOI samples, sum, out_of_band and 8 histogram buckets served = counted"

supplier_index=
while read -r oid value; do
	[ "$value" = example_app ] && supplier_index=${oid##*.}
done < <(snmp_walk "$SUPPLIER_MODULE")
[ -n "$supplier_index" ] || fail "no dciSupplierModule example_app"
reset1=$(snmp_get "$SUPPLIER_RESET.$supplier_index") || fail "no reset stamp"
instance_oid=$(snmp_walk "$DCI_DISCONTINUITY.$EVCNT" | head -n 1 | cut -d' ' -f1)
discontinuity1=$(snmp_get "$instance_oid" | tr -dc 0-9)
ok "supplier example_app is dciSupplierTable row $supplier_index"

# Killed: rows go, the stale segment is cleaned up.
segment=$(sed -n 's/^segment //p' "$APP_OUT")
kill -KILL "$APP_PID"
wait "$APP_PID" 2>/dev/null
wait_until 10 evcnt_gone || fail "the killed application's rows are still served"
wait_until 10 test ! -e "$segment" || fail "the stale segment $segment was not removed"
! snmp_get "$SUPPLIER_MODULE.$supplier_index" >/dev/null 2>&1 ||
    fail "the killed application's supplier row is still there"
grep -q "its process exited" "$DCISTATD_LOG" || fail "no log line for the application that exited"
ok "after SIGKILL its rows and supplier row went and $segment was removed"

sleep 1.1 # TimeStamps are centiseconds: the new discontinuity is later
start_app 2
wait_until 10 evcnt_served || fail "the restarted application is not served"
reset2=$(snmp_get "$SUPPLIER_RESET.$supplier_index") ||
    fail "the restarted application is not supplier $supplier_index again"
[ "$reset2" != "$reset1" ] || fail "the reset stamp did not change across a restart ($reset1)"
instance_oid=$(snmp_walk "$DCI_DISCONTINUITY.$EVCNT" | head -n 1 | cut -d' ' -f1)
discontinuity2=$(snmp_get "$instance_oid" | tr -dc 0-9)
[ "$discontinuity2" -gt "$discontinuity1" ] ||
    fail "discontinuity $discontinuity2 not after $discontinuity1"
[ "$(served_count "$EVCNT" "example requests" 1)" = "$(counted evcnt count)" ] ||
    fail "the restarted application's count is not what it counted"
ok "restarted: same supplier index, new reset stamp, discontinuity $discontinuity1 -> $discontinuity2, values exact"

# Malformed segments.
head -c 70000 /dev/urandom >"$RUN/junk.1.dciseg"
segment=$(sed -n 's/^segment //p' "$APP_OUT")
head -c 5000 "$segment" >"$RUN/short.1.dciseg"
wait_until 10 grep -q "junk.1.dciseg refused" "$DCISTATD_LOG" ||
    fail "the random segment was not refused"
wait_until 10 grep -q "short.1.dciseg refused" "$DCISTATD_LOG" ||
    fail "the truncated segment was not refused"
ok "random bytes and a truncated copy refused: $(grep -o 'junk.1.dciseg refused.*' "$DCISTATD_LOG" | head -n 1)"

# A copy under another module name and a live owner (this shell: its pid
# and start time, /proc/PID/stat field 22; root owns both), same class
# ids: served as a supplier, its classes refused as taken.
# Made whole outside the directory, then renamed into it: dcistatd sees
# the file as soon as it is created there, and must not see a copy still
# naming the example application (a name taken, refused and remembered).
copy=$RUN/copy.$$.dciseg
building=$TMP_DIR/copy.building
cp "$segment" "$building"
printf 'copyapp\0' | dd of="$building" bs=1 seek=48 conv=notrunc status=none
le_bytes() { # VALUE COUNT: VALUE as COUNT little-endian bytes on stdout
	local value=$1 count=$2 i escaped=
	for ((i = 0; i < count; i++)); do
		escaped+=$(printf '\\x%02x' $((value >> (8 * i) & 255)))
	done
	# shellcheck disable=SC2059 # the format is the bytes
	printf "$escaped"
}
pid=$$
start=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
le_bytes "$pid" 4 | dd of="$building" bs=1 seek=28 conv=notrunc status=none
le_bytes "$start" 8 | dd of="$building" bs=1 seek=32 conv=notrunc status=none
mv "$building" "$copy" || fail "cannot move the copy into $RUN"
wait_until 10 grep -q 'copy\..*supplier "copyapp".*served' "$DCISTATD_LOG" ||
    fail "the copy was not served as supplier copyapp (log: $(tail -n 5 "$DCISTATD_LOG"))"
wait_until 10 grep -q 'class "evcnt" of supplier "copyapp" not served' "$DCISTATD_LOG" ||
    fail "the copy's class, already served, was not refused"
grep -q "collides" "$DCISTATD_LOG" || fail "the refusal does not say the id collides"
ok "a second supplier with the same class ids: its classes refused, the first kept"

# Rewritten in place: refused first (it names the example application, a
# name taken), then given another name with the same size and, as a file
# system clock with a coarse tick leaves a quick rewrite, the same
# modification time. The write's event has it read again: served, not
# held as the file refused.
inplace=$RUN/inplace.$$.dciseg
cp "$segment" "$inplace"
wait_until 10 grep -q "inplace.$$.dciseg refused" "$DCISTATD_LOG" ||
    fail "the copy naming the example application was not refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
refused_mtime=$(stat -c %.9Y "$inplace")
# The new header made whole apart, then written over the refused file in
# one write(2): a header half rewritten (a live pid with another's start
# time) would be a dead owner's file, which dcistatd removes.
rewrite=$TMP_DIR/inplace.rewrite
cp "$segment" "$rewrite"
printf 'inplaceapp\0' | dd of="$rewrite" bs=1 seek=48 conv=notrunc status=none
le_bytes "$pid" 4 | dd of="$rewrite" bs=1 seek=28 conv=notrunc status=none
le_bytes "$start" 8 | dd of="$rewrite" bs=1 seek=32 conv=notrunc status=none
dd if="$rewrite" of="$inplace" bs=1M count=1 conv=notrunc status=none
touch -m -d "@$refused_mtime" "$inplace"
[ "$(stat -c %.9Y "$inplace")" = "$refused_mtime" ] ||
    fail "touch did not restore the modification time"
wait_until 10 grep -q 'inplace\..*supplier "inplaceapp".*served' "$DCISTATD_LOG" ||
    fail "the segment rewritten in place stayed refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
rm -f "$inplace"
ok "a refused segment rewritten in place with the same size and time: read again and served"

# Events are not reads: a user who changes two refused files' attributes
# over and over (in turn, so that inotify merges none) has each read
# again at most once a refresh, not once an event.
before=$(grep -c "junk.1.dciseg refused" "$DCISTATD_LOG")
started_ms=$(now_ms)
for ((i = 0; i < 300; i++)); do
	chmod 0644 "$RUN/junk.1.dciseg"
	chmod 0644 "$RUN/short.1.dciseg"
	chmod 0640 "$RUN/junk.1.dciseg"
	chmod 0640 "$RUN/short.1.dciseg"
done
sleep 1
rereads=$(($(grep -c "junk.1.dciseg refused" "$DCISTATD_LOG") - before))
refreshes=$((($(now_ms) - started_ms) / 200 + 2))
((rereads >= 1 && rereads <= refreshes)) ||
    fail "1,200 attribute changes: junk.1.dciseg read again $rereads times in $refreshes refreshes"
ok "1,200 attribute changes of two refused files: each read again $rereads times, at most once a refresh ($refreshes)"

# Cut short while mapped: the read faults, the guard refuses it.
truncate -s 8192 "$copy"
wait_until 10 grep -q "copy.$$.dciseg refused: the file was cut short" "$DCISTATD_LOG" ||
    fail "the segment cut short while mapped was not refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
_lib_alive "$DCISTATD_PID" || fail "dcistatd died"
[ "$(served_count "$EVCNT" "example requests" 1)" = "$(counted evcnt count)" ] ||
    fail "the application is no longer served after the bad segments"
ok "a segment cut short while mapped refused (SIGBUS guarded); the application still served"

# A second process with the same module: refused while the first runs,
# served once it has gone.
first_pid=$APP_PID
start_app 3
wait_until 10 grep -q 'supplier "example_app" is already served from' "$DCISTATD_LOG" ||
    fail "a second example_app was not refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
ok "a second process with module example_app refused while the first runs"
kill -TERM "$first_pid"
wait "$first_pid" || fail "the example exited with an error on SIGTERM"
grep -q "its application closed it\|its file was removed" "$DCISTATD_LOG" ||
    wait_until 10 grep -q "its application closed it\|its file was removed" "$DCISTATD_LOG" ||
    fail "no log line for the closed supplier"
second=$(sed -n 's/^segment //p' "$APP_OUT")
wait_until 10 grep -q "${second##*/}: supplier \"example_app\" (pid $APP_PID) served" "$DCISTATD_LOG" ||
    fail "the second example_app was not served once the first closed"
[ "$(served_count "$EVCNT" "example requests" 1)" = "$(counted evcnt count)" ] ||
    fail "the second example_app's count is not what it counted"
ok "once the first closed its supplier, the second is served with its own counts"

kill -TERM "$APP_PID"
wait "$APP_PID" || fail "the example exited with an error on SIGTERM"
wait_until 10 evcnt_gone || fail "the application's rows remain after it closed its supplier"
ok "an application that closes its supplier: its rows go"
stop_dcistatd
