#!/bin/bash
# agent_hostile.sh -- what a hostile member of the supplier group can make
# dcistatd allocate and spend is bounded (issue 24, items 1, 2 and 5).
#
# A real unprivileged user (dcih24m1, created here, removed at exit) owns
# the segments that tests/segment_forge.py writes, each claiming a process
# of that user. The test asserts:
#   - amplification: 1,024 classes over the same 1,024 datum records
#     (729 kB) are refused with one log line naming the file, the owner,
#     the bytes it would take and the limit, and dcistatd's VmRSS grows by
#     less than 16 times the file's size (before: by about 500 MB);
#   - a segment that shares datum records but stays within 16 times its
#     size is served, and VmRSS grows by less than 16 times its size;
#   - the per-uid budget: three segments of the user that each fit
#     max-segment-memory but not together max-user-memory: the third is
#     refused ("what is left of max-user-memory"), while root's own
#     segment of the same shape is served;
#   - the leak: CYCLES segments, each served and then cut short inside its
#     class table as its classes are published, are refused ("cut short")
#     and VmRSS does not grow by what their classes would take; under
#     --enable-sanitizers stop_dcistatd fails on any LeakSanitizer report;
#   - CPU, with the default budgets: a segment within every bound of the
#     reader (4,096 instances, 1,024 thread regions, blocks of 8,192
#     words, 1,024 summed datums; one refresh of 52.8 s before) is refused
#     as over max-segment-work, naming the owner and the limit, and a
#     hostile segment just within it stays served; meanwhile another
#     application (tests/supplier_commands) has its rows at every sample
#     for 8 s, none withdrawn as stale, and its value advancing with its
#     settings.
#
# Needs root (snmpd's sockets, useradd; exit 77 otherwise).

# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget snmpwalk python3 useradd userdel setpriv truncate
hold_test_users_lock
require_built
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
APPLICATION=$top_builddir/tests/supplier_commands
[ -x "$APPLICATION" ] || skip "$APPLICATION not built (make check builds it)"
FORGE=$top_srcdir/tests/segment_forge.py

USER_NAME=dcih24m1
RUN=$TMP_DIR/run/suppliers
PERIOD=1 PERIOD_MS=1000
CYCLES=${CYCLES:-12}
# Budgets of this test: small enough that the per-uid one is reached with
# small files.
SEGMENT_BYTES=$((16 << 20)) USER_BYTES=$((24 << 20))

remove_user() { userdel "$USER_NAME" >/dev/null 2>&1 || true; }
remove_user
useradd --system --no-create-home --shell /usr/sbin/nologin "$USER_NAME" ||
    fail "cannot create user $USER_NAME"
at_exit remove_user
USER_ID=$(id -u "$USER_NAME") GROUP_ID=$(id -g "$USER_NAME")

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: $PERIOD
    options:
      directory: $RUN
      users: [$USER_NAME]
      max-segment-memory: $SEGMENT_BYTES
      max-user-memory: $USER_BYTES
EOF
start_dcistatd "$config"
wait_until 10 test -d "$RUN" || fail "dcistatd did not create $RUN (log: $(tail -n 3 "$DCISTATD_LOG"))"

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$DCISTATD_PID/status"; }
# A process of the user for the segments to claim.
setpriv --reuid="$USER_ID" --regid="$GROUP_ID" --clear-groups sleep 3600 &
HOLDER=$!
_lib_pids+=("$HOLDER")
wait_until 5 test -r "/proc/$HOLDER/stat" || fail "the user's process did not start"

# forge NAME OWNER FORGE-OPTION...: writes a segment claiming $HOLDER (or
# this shell for OWNER root), owned by OWNER, and moves it into the run
# directory whole; prints its size.
forge() {
	local name=$1 owner=$2 pid=$HOLDER path
	shift 2
	[ "$owner" = root ] && pid=$$
	path=$TMP_DIR/$name.$pid.dciseg
	python3 "$FORGE" "$path" --pid "$pid" --module "$name" "$@" ||
	    fail "segment_forge.py $* failed"
	chown "$owner:" "$path" || fail "cannot give $path to $owner"
	stat -c %s "$path"
	mv "$path" "$RUN/" || fail "cannot move $path into $RUN"
}
served() { grep -q "$1\.[0-9]*\.dciseg: supplier \"$1\" (pid [0-9]*) served" "$DCISTATD_LOG"; }
refused_line() { grep "$1\.[0-9]*\.dciseg refused" "$DCISTATD_LOG" | head -n 1; }
refused() { [ -n "$(refused_line "$1")" ]; }

# --- 1. amplification ----------------------------------------------------
sleep 1
before=$(rss_kb)
size=$(forge amplified "$USER_NAME" --classes 1024 --datums 1024 --shared-datums)
wait_until 20 refused amplified ||
    fail "1,024 classes over the same 1,024 datums were not refused (log: $(tail -n 3 "$DCISTATD_LOG"))"
line=$(refused_line amplified)
sleep 1
growth=$(($(rss_kb) - before))
case $line in
*"owner uid $USER_ID: serving it would take "*" bytes of dcistatd's memory, over 16 times the file's size ($((16 * size)) bytes)"*) ;;
*) fail "the refusal does not name the owner, the figure and the limit: $line" ;;
esac
[ "$(grep -c "amplified\.[0-9]*\.dciseg" "$DCISTATD_LOG")" -eq 1 ] ||
    fail "more than one log line for the refused segment: $(grep "amplified" "$DCISTATD_LOG")"
[ $((growth * 1024)) -le $((16 * size)) ] ||
    fail "VmRSS grew by $growth kB for a $size-byte segment, more than 16 times its size"
ok "1,024 classes over 1,024 shared datums ($size bytes) refused in one line, VmRSS +$growth kB: $line"

before=$(rss_kb)
size=$(forge sharing "$USER_NAME" --classes 48 --datums 256 --shared-datums \
    --instances 1 --size-at-least $((1 << 20)))
wait_until 20 served sharing ||
    fail "a segment sharing its datums within 16 times its size was not served (log: $(tail -n 3 "$DCISTATD_LOG"))"
sleep 2
growth=$(($(rss_kb) - before))
[ $((growth * 1024)) -le $((16 * size)) ] ||
    fail "VmRSS grew by $growth kB for the $size-byte segment served, more than 16 times its size"
ok "48 classes over 256 shared datums ($size bytes) served, VmRSS +$growth kB <= 16 x its size"
rm -f "$RUN"/sharing.*.dciseg "$RUN"/amplified.*.dciseg

# --- per-uid budget ------------------------------------------------------
# 1,700 instances of 64 counters: charged about 8.4 MiB each, which
# max-segment-memory (16 MiB) allows and max-user-memory (24 MiB) does
# not allow three times.
shape=(--datums 64 --instances 1700)
forge first "$USER_NAME" "${shape[@]}" >/dev/null
wait_until 20 served first || fail "the user's first segment was not served (log: $(tail -n 3 "$DCISTATD_LOG"))"
forge second "$USER_NAME" "${shape[@]}" --number 4344 >/dev/null
wait_until 20 served second || fail "the user's second segment was not served (log: $(tail -n 3 "$DCISTATD_LOG"))"
forge third "$USER_NAME" "${shape[@]}" --number 4345 >/dev/null
forge rootapp root "${shape[@]}" --number 4346 >/dev/null
wait_until 20 refused third || fail "the user's third segment was not refused (log: $(tail -n 3 "$DCISTATD_LOG"))"
line=$(refused_line third)
case $line in
*"owner uid $USER_ID: serving it would take "*" over what is left of max-user-memory"*) ;;
*) fail "the third segment's refusal does not name the per-user limit: $line" ;;
esac
wait_until 20 served rootapp || fail "root's segment was not served beside the user's (log: $(tail -n 3 "$DCISTATD_LOG"))"
ok "the user's third segment refused over max-user-memory, root's served: $line"
rm -f "$RUN"/first.*.dciseg "$RUN"/second.*.dciseg "$RUN"/third.*.dciseg "$RUN"/rootapp.*.dciseg
wait_until 10 grep -q 'first.*withdrawn: its file was removed' "$DCISTATD_LOG" ||
    fail "the removed segments were not withdrawn"

# --- 2. the leak -----------------------------------------------------------
# 64 classes of 1,024 shared datums, none published: served. Then 15
# published (within max-segment-memory) and the file cut inside the
# class table (the datum table before it stays whole): the 8 classes read
# before the cut are what leaked.
sleep 1
before=$(rss_kb)
for ((cycle = 1; cycle <= CYCLES; cycle++)); do
	name=cut$cycle
	forge "$name" "$USER_NAME" --classes 64 --datums 1024 --shared-datums \
	    --datums-first --published-classes 0 --size-at-least $((16 << 20)) >/dev/null
	wait_until 20 served "$name" || fail "cycle $cycle: the segment was not served (log: $(tail -n 3 "$DCISTATD_LOG"))"
	path=$(echo "$RUN/$name".*.dciseg)
	# Publish 15 classes, then cut the file 12 classes into them (at a
	# page: 8 whole).
	printf '\017\000\000\000' | dd of="$path" bs=1 seek=400 conv=notrunc status=none
	truncate -s $(((448 + 1024 * 272 + 12 * 424) / 4096 * 4096)) "$path"
	wait_until 20 refused "$name" || fail "cycle $cycle: the segment cut short was not refused (log: $(tail -n 3 "$DCISTATD_LOG"))"
	rm -f "$path"
done
sleep 1
growth=$(($(rss_kb) - before))
# Each cycle leaked 8 classes of 1,024 datums (2.2 MB) before the fix.
[ "$growth" -lt $((CYCLES * 1024)) ] ||
    fail "VmRSS grew by $growth kB over $CYCLES segments cut short: their classes leak"
grep -q "cut[0-9]*\.[0-9]*\.dciseg refused: the file was cut short\|cut[0-9]*\.[0-9]*\.dciseg refused: cut short" "$DCISTATD_LOG" ||
    fail "no refusal says the file was cut short: $(grep 'cut1\.' "$DCISTATD_LOG")"
_lib_alive "$DCISTATD_PID" || fail "dcistatd died"
ok "$CYCLES segments cut short while their classes were read: refused, VmRSS +$growth kB"

stop_dcistatd

# --- 5. CPU, with the default budgets -----------------------------------------
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: $PERIOD
    options:
      directory: $RUN
      users: [$USER_NAME]
EOF
start_dcistatd "$config"
coproc APP { "$APPLICATION" "$RUN" other_app 4350 2>&1; }
# Bash unsets APP_PID as soon as the coprocess ends: kept apart.
app_pid=$APP_PID
_lib_pids+=("$app_pid")
app_command() {
	local answer=
	printf '%s\n' "$1" >&"${APP[1]}"
	read -r -t 10 -u "${APP[0]}" answer || fail "the application did not answer '$1'"
	[ "$answer" = ok ] || fail "the application answered '$answer' to '$1'"
}
{ read -r -t 10 -u "${APP[0]}" ready && [ "$ready" = ready ]; } || fail "the application did not start: $ready"
app_command "add 1 clock"
GAUGE=$DCI_ARC.1.5.1.6.3.3.4350.17.1.1.1 # dciStatGauge32.{3,4350,17}.{1}.1
T0=$(now_ms)
app_command "set 1 $(($(now_ms) - T0))"
wait_until 10 snmp_get "$GAUGE" >/dev/null || fail "the other application is not served"

# The old bounds' worst: refused, at its first refresh.
forge cpuworst "$USER_NAME" --datums 1024 --instances 4096 --thread-regions 1024 \
    --block-words 8192 --shared-block >/dev/null
wait_until 60 refused cpuworst || fail "the legal-worst segment of the old bounds was not refused (log: $(tail -n 3 "$DCISTATD_LOG"))"
line=$(refused_line cpuworst)
case $line in
*"owner uid $USER_ID: its refresh would take more than 16777216 work units"*"over max-segment-work"*) ;;
*) fail "the refusal does not name the owner, the work and the limit: $line" ;;
esac
ok "4,096 instances x 1,024 regions x 1,024 summed datums refused: $line"
# Just within max-segment-work: 7 instances of 1,024 datums summed over
# 1,025 regions, each a block of its own (about 14.7 M units).
forge cpuheavy "$USER_NAME" --datums 1024 --instances 7 --thread-regions 1024 >/dev/null
HEAVY=$DCI_ARC.1.5.1.4.4.3.4343.17.1.1.1.1 # its counter {3,4343,17,1}.{1}.1
wait_until 20 snmp_get "$HEAVY" >/dev/null ||
    fail "the heavy segment within max-segment-work is not served (log: $(tail -n 3 "$DCISTATD_LOG"))"

# The other application: set every 100 ms; its rows there at every
# sample (never withdrawn as stale), its value advancing. How old the
# value served is, is noted (bench/hostile measures it unloaded).
worst=0 samples=0 first=
started=$(now_ms)
while [ "$(now_ms)" -lt $((started + 8000)) ]; do
	app_command "set 1 $(($(now_ms) - T0))"
	served_value=$(snmp_get "$GAUGE") ||
	    fail "the other application's row went while the heavy segment is served"
	first=${first:-$served_value}
	age=$(($(now_ms) - T0 - served_value))
	# After a period of settings, the age is that of the last refresh.
	if [ "$(now_ms)" -gt $((started + 2 * PERIOD_MS)) ] && [ "$age" -gt "$worst" ]; then
		worst=$age
	fi
	samples=$((samples + 1))
	sleep 0.1
done
[ "$served_value" -gt $((first + 6000)) ] ||
    fail "the other application's value went from $first to $served_value in 8 s: not advancing"
! grep -q 'class jobs not refreshed' "$DCISTATD_LOG" ||
    fail "the other application's rows were withdrawn as stale: $(grep 'not refreshed' "$DCISTATD_LOG" | head -n 1)"
refused cpuheavy && fail "the heavy segment within max-segment-work was refused: $(refused_line cpuheavy)"
snmp_get "$HEAVY" >/dev/null || fail "the heavy segment's rows went"
ok "beside a segment within max-segment-work, the other application served at all $samples samples, its value $first -> $served_value ms, at most $worst ms old (period $PERIOD_MS ms), never stale"

printf 'quit\n' >&"${APP[1]}" 2>/dev/null
wait "$app_pid" 2>/dev/null
stop_dcistatd
