#!/bin/bash
# suppliers_hostile.sh -- what a hostile member of the supplier group can
# no longer do to dcistatd's suppliers provider, tried with real users
# (created here, removed at exit) under a private snmpd master.
#
# 1. Names. With the example provider isolated and restarting (its process
#    killed), a segment claiming module "example" is refused as a name
#    reserved for that configured provider; the example starts again as
#    supplier "example", version 100, its class served. A segment claiming
#    "suppliers", the provider's own name, is refused. An isolated
#    provider whose supplier dcistatd refuses (the example configured
#    twice) is failed, dciSupplierFailure naming the refusal, never logged
#    as running.
# 2. Squatting. A copy of an application's segment claiming pid 1 (with
#    its true start time), or the attacker's own live pid with start time
#    0, is removed as not its owner's; the real application (another user,
#    the same module) is then served. An attacker running more
#    applications than its share (max-segments 8: two each) holds two
#    slots; another user's is served. 300 junk files of one user: 256
#    remembered, the rest ignored (max-refused-per-uid), at most 32 named
#    in the log a refresh, the rest counted in one line.
#    The run directory here is root's, group the supplier group, without
#    setgid: the users' files carry their primary groups and are accepted
#    for their supplementary membership (usermod -a -G).
# 3. Nothing left behind. A refused segment (malformed; its module served
#    by another process) is removed once its process is killed. A segment left with
#    its closed flag set is refused once and never served, however many
#    events follow. A killed process that its parent does not reap (a
#    zombie) loses its segment at the full owner check. Under -u, a dead
#    segment that dcistatd may not remove
#    (root's sticky directory, another user's file) is logged once with
#    the reason, never "removed".
# 4. The documented set-up: dcistatd creates the run directory (mode
#    03770, the configured group), and a service user added to that group
#    with usermod -a -G supplies as documented. The directory replaced by
#    another: watched again, its segments served.
#
# Needs root (users, snmpd's sockets; exit 77 otherwise).

# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd snmpd snmpget snmpwalk useradd groupadd usermod setpriv pgrep
hold_test_users_lock
require_built
SUPPLIERS_SO=$(provider_so suppliers)
EXAMPLE_SO=$(provider_so example)
COMMANDS=$top_builddir/tests/supplier_commands
ISOLATE=$top_builddir/src/isolate/dcistat-isolate
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
[ -x "$COMMANDS" ] || fail "$COMMANDS not built (run make check)"
[ -x "$ISOLATE" ] || fail "$ISOLATE not built (run make)"
export DCISTAT_ISOLATE_PROGRAM=$ISOLATE

SUPPLIER_MODULE=$DCI_ARC.1.1.1.2
SUPPLIER_VERSION=$DCI_ARC.1.1.1.6
SUPPLIER_STATUS=$DCI_ARC.1.1.1.8
SUPPLIER_FAILURE=$DCI_ARC.1.1.1.11
EXAMPLE_LABEL=$DCI_ARC.1.4.1.2.2.2.1 # dciInstanceLabel of class 2.1

# --- users ------------------------------------------------------------------------

GROUP=dcih24n_g
ATTACKER=dcih24n_a
SERVICE=dcih24n_b
DAEMON=dcih24n_d
remove_users() {
	local user
	for user in "$ATTACKER" "$SERVICE" "$DAEMON"; do
		userdel "$user" >/dev/null 2>&1
	done
	groupdel "$GROUP" >/dev/null 2>&1
}
at_exit remove_users
remove_users
groupadd "$GROUP" || fail "groupadd $GROUP failed"
for user in "$ATTACKER" "$SERVICE" "$DAEMON"; do
	useradd --no-create-home --user-group --shell /usr/sbin/nologin "$user" ||
	    fail "useradd $user failed"
	# As SUPPLIERS.md says: the service user into the group.
	usermod -a -G "$GROUP" "$user" || fail "usermod -a -G $GROUP $user failed"
done
# The users reach the run directories under $TMP_DIR.
chmod 0755 "$TMP_DIR"

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX

# start_app USER DIRECTORY MODULE NUMBER: tests/supplier_commands as USER
# (its groups as login gives them), kept running by a FIFO this shell
# holds open; APP_PID, APP_OUT, APP_SEGMENT and APP_IN (its commands'
# descriptor) are set.
APP_PID='' APP_OUT='' APP_SEGMENT='' APP_IN=''
_app_count=0
start_app() {
	local user=$1 directory=$2 module=$3 number=$4 fifo fd
	_app_count=$((_app_count + 1))
	fifo=$TMP_DIR/app.$_app_count.in
	APP_OUT=$TMP_DIR/app.$_app_count.out
	mkfifo "$fifo" || fail "mkfifo failed"
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
	    "$COMMANDS" "$directory" "$module" "$number" <"$fifo" >"$APP_OUT" 2>&1 &
	APP_PID=$!
	_lib_pids+=("$APP_PID")
	exec {fd}>"$fifo"
	APP_IN=$fd
	wait_until 10 grep -q '^ready' "$APP_OUT" ||
	    fail "$module as $user did not start: $(cat "$APP_OUT")"
	APP_SEGMENT=$directory/$module.$APP_PID.dciseg
	[ -f "$APP_SEGMENT" ] || fail "no segment $APP_SEGMENT"
}
# le_bytes VALUE COUNT: VALUE as COUNT little-endian bytes.
le_bytes() {
	local value=$1 count=$2 i escaped=
	for ((i = 0; i < count; i++)); do
		escaped+=$(printf '\\x%02x' $((value >> (8 * i) & 255)))
	done
	# shellcheck disable=SC2059 # the format is the bytes
	printf "$escaped"
}
# patch FILE OFFSET VALUE COUNT: writes VALUE at OFFSET of FILE.
# Header offsets (include/dcistat/segment.h): pid 28, process_start 32,
# module 48, closed 416.
patch() { le_bytes "$3" "$4" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
patch_module() { printf '%s\0' "$2" | dd of="$1" bs=1 seek=48 conv=notrunc status=none; }
# place USER SOURCE NAME: a copy of SOURCE owned by USER, renamed into
# place (as the library publishes one), after `patch`es on the copy.
start_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
row_of() { # MODULE: its dciSupplierTable index
	snmp_walk "$SUPPLIER_MODULE" | awk -v m="$1" '$2 == m { n = split($1, a, "."); print a[n] }'
}
served() { grep -c "supplier \"$1\" (pid $2) served" "$DCISTATD_LOG"; }
# equals EXPECTED COMMAND...: COMMAND's output is EXPECTED (for wait_until).
equals() { local expected=$1; shift; [ "$("$@" 2>/dev/null)" = "$expected" ]; }
instance_count() { snmp_walk "$1" | wc -l; }
uid_of() { ps -o uid= -p "$1" | tr -d ' '; }

# --- 1. Names -----------------------------------------------------------------------

RUN1=$TMP_DIR/run1
{ mkdir -m 3770 "$RUN1" && chgrp "$GROUP" "$RUN1"; } || fail "cannot make $RUN1"
config=$TMP_DIR/names.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $EXAMPLE_SO
    refresh: 0.2
    isolate: true
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN1
      groups: [$GROUP]
EOF
DCISTATD_FIRST_MODULE=example
start_dcistatd "$config"
wait_dcistatd_ready 20
example_row=$(row_of example)
[ -n "$example_row" ] || fail "no supplier row example"
isolated=$(pgrep -P "$DCISTATD_PID" dcistat-isolate)
[ -n "$isolated" ] || fail "no isolated process"
kill -KILL "$isolated"
wait_until 10 grep -q 'provider example: isolated process' "$DCISTATD_LOG" ||
    fail "dcistatd did not see the example's process die"
# While it restarts: an application claims its name.
start_app "$ATTACKER" "$RUN1" example 700
wait_until 10 grep -q "${APP_SEGMENT##*/} refused: supplier \"example\" refused" "$DCISTATD_LOG" ||
    fail "the segment claiming example was not refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
grep -q 'supplier refused: supplier "example" is reserved for configured provider' "$DCISTATD_LOG" ||
    fail "the refusal does not say the name is reserved"
ok "a segment claiming module example while the isolated example restarts: refused, reserved for that provider"
wait_until 10 grep -q 'provider example: started after' "$DCISTATD_LOG" ||
    fail "the example provider did not start again (log: $(tail -n 5 "$DCISTATD_LOG"))"
wait_until 10 equals 100 snmp_get "$SUPPLIER_VERSION.$example_row" ||
    fail "supplier row $example_row has version $(snmp_get "$SUPPLIER_VERSION.$example_row"), not the example's 100"
[ "$(snmp_get "$SUPPLIER_MODULE.$example_row")" = example ] || fail "row $example_row is no longer example"
[ "$(snmp_get "$SUPPLIER_STATUS.$example_row")" = 1 ] || fail "the example is not running(1)"
example_served() { [ -n "$(snmp_walk "$EXAMPLE_LABEL")" ]; }
wait_until 10 example_served || fail "the example's class 2.1 is not served"
! grep -q 'supplier "example" already registered' "$DCISTATD_LOG" ||
    fail "the example provider was refused its own name"
[ "$(served example "$APP_PID")" = 0 ] || fail "the application was served as example"
ok "the example restarted as supplier example (row $example_row, version 100, running), its class served"
start_app "$ATTACKER" "$RUN1" suppliers 709
wait_until 10 grep -q "${APP_SEGMENT##*/} refused: module \"suppliers\" is this provider's own name" "$DCISTATD_LOG" ||
    fail "a segment claiming module suppliers was not refused"
ok "a segment claiming module suppliers (the provider's own name): refused"
stop_dcistatd

# An isolated provider whose supplier dcistatd refuses: failed, visibly.
config=$TMP_DIR/twice.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $EXAMPLE_SO
    refresh: 0.2
  - module: $EXAMPLE_SO
    refresh: 0.2
    isolate: true
EOF
start_dcistatd "$config"
wait_dcistatd_ready 20
failure_shown() {
	snmp_walk "$SUPPLIER_FAILURE" | grep -q 'its supplier was refused: supplier .*example.* already registered'
}
wait_until 10 failure_shown ||
    fail "no dciSupplierFailure names the refusal: $(snmp_walk "$SUPPLIER_FAILURE" | tr '\n' ' ')"
failed_row=$(snmp_walk "$SUPPLIER_FAILURE" | awk '/its supplier was refused/ { n = split($1, a, "."); print a[n] }')
[ "$(snmp_get "$SUPPLIER_STATUS.$failed_row")" = 2 ] || fail "row $failed_row is not failed(2)"
! grep -q 'running isolated\|started after' "$DCISTATD_LOG" ||
    fail "the refused provider was logged as started: $(grep 'running isolated\|started after' "$DCISTATD_LOG")"
ok "an isolated provider refused its supplier: row $failed_row failed(2), its failure says why, never logged started"
stop_dcistatd

# --- 2. Squatting -----------------------------------------------------------------

# Root's directory, the group's, no setgid: files keep their owners'
# primary groups, and pass for the owners' supplementary membership.
RUN2=$TMP_DIR/run2
{ mkdir -m 1770 "$RUN2" && chgrp "$GROUP" "$RUN2"; } || fail "cannot make $RUN2"
config=$TMP_DIR/squat.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN2
      groups: [$GROUP]
      max-segments: 8
EOF
DCISTATD_FIRST_MODULE=nothing
start_dcistatd "$config"
wait_until 10 grep -q 'AgentX subagent started' "$DCISTATD_LOG" || fail "dcistatd did not start"

# The attacker's own application, copied: pid 1, then its own live pid
# with no start time.
start_app "$ATTACKER" "$RUN2" attackapp 701
wait_until 10 equals 1 served attackapp "$APP_PID" ||
    fail "the attacker's own application, a member by supplementary group, is not served"
ok "a file of the attacker's primary group served for its supplementary membership"
attacker_segment=$APP_SEGMENT
squat() { # NAME PID START: a copy of the attacker's segment claiming them
	local file=$RUN2/.$1.new
	setpriv --reuid="$ATTACKER" --regid="$(id -g "$ATTACKER")" --init-groups \
	    cp "$attacker_segment" "$file" || fail "cp as $ATTACKER failed"
	patch_module "$file" victimapp
	patch "$file" 28 "$2" 4
	patch "$file" 32 "$3" 8
	mv "$file" "$RUN2/$1"
}
squat victimapp.1.dciseg 1 "$(start_of 1)"
wait_until 10 grep -q "victimapp.1.dciseg: its process 1 runs as uid 0, not as the file's owner uid $(id -u "$ATTACKER"); removed" "$DCISTATD_LOG" ||
    fail "the segment claiming pid 1 was not removed (log: $(tail -n 5 "$DCISTATD_LOG"))"
[ ! -e "$RUN2/victimapp.1.dciseg" ] || fail "the squatting file is still there"
setpriv --reuid="$ATTACKER" --regid="$(id -g "$ATTACKER")" sleep 600 &
sleeper=$!
_lib_pids+=("$sleeper")
squat "victimapp.$sleeper.dciseg" "$sleeper" 0
wait_until 10 grep -q "victimapp.$sleeper.dciseg: it records no start time.*; removed" "$DCISTATD_LOG" ||
    fail "the segment claiming a live pid with start time 0 was not removed"
! grep -q 'supplier "victimapp" (pid' "$DCISTATD_LOG" || fail "a squatting segment was served"
start_app "$SERVICE" "$RUN2" victimapp 702
wait_until 10 equals 1 served victimapp "$APP_PID" ||
    fail "the real victimapp is not served (log: $(tail -n 5 "$DCISTATD_LOG"))"
ok "segments claiming pid 1 or start time 0 removed as not their owner's; the real victimapp served"
victim_app=$APP_PID victim_segment=$APP_SEGMENT

# Slots: 8, two per user. The attacker's third and fourth wait.
start_app "$ATTACKER" "$RUN2" fill2 703
start_app "$ATTACKER" "$RUN2" fill3 704
start_app "$ATTACKER" "$RUN2" fill4 706
wait_until 10 grep -q "uid $(id -u "$ATTACKER") holds 2 segments, its share" "$DCISTATD_LOG" ||
    fail "the attacker's share was not enforced (log: $(tail -n 5 "$DCISTATD_LOG"))"
sleep 1
[ "$(grep -c 'supplier "\(attackapp\|fill[234]\)" (pid [0-9]*) served' "$DCISTATD_LOG")" = 2 ] ||
    fail "the attacker holds more than its share"
start_app "$DAEMON" "$RUN2" otherapp 705
wait_until 10 equals 1 served otherapp "$APP_PID" ||
    fail "another user's application is not served while the attacker waits"
other_app=$APP_PID
ok "the attacker holds 2 slots of 8 (its share), another user's application served"

# Junk: 300 files of another user's (the attacker, at its share of
# slots, has its further files wait unread), renamed in at once. At most
# 256 remembered (max-refused-per-uid), at most 32 named a refresh.
mkdir -m 0700 "$RUN2/.junk" && chown "$DAEMON" "$RUN2/.junk"
# shellcheck disable=SC2016 # expanded by the inner shell
setpriv --reuid="$DAEMON" --regid="$(id -g "$DAEMON")" --init-groups \
    sh -c 'for i in $(seq 1 300); do head -c 1024 /dev/urandom >"$1/junk$i.dciseg"; done' sh "$RUN2/.junk"
# shellcheck disable=SC2016 # expanded by the inner shell
setpriv --reuid="$DAEMON" --regid="$(id -g "$DAEMON")" --init-groups \
    sh -c 'mv "$1"/*.dciseg "$2"/' sh "$RUN2/.junk" "$RUN2"
wait_until 15 grep -q "256 files of uid $(id -u "$DAEMON") refused; its other files are ignored" "$DCISTATD_LOG" ||
    fail "the refused files of one user were not capped (log: $(tail -n 3 "$DCISTATD_LOG"))"
grep -q 'more files refused or removed in this refresh, not named (at most 32' "$DCISTATD_LOG" ||
    fail "no summary of the refusals not named"
named=$(grep -c '/junk[0-9]*\.dciseg refused' "$DCISTATD_LOG")
[ "$named" -le 64 ] || fail "$named junk files named in the log"
{ kill -0 "$victim_app" && [ "$(snmp_get "$SUPPLIER_MODULE.$(row_of victimapp)")" = victimapp ]; } ||
    fail "victimapp is not served beside the junk"
ok "300 junk files: 256 remembered (its share), $named named in the log, the rest summed up; victimapp served"
kill -KILL "$other_app"
wait "$other_app" 2>/dev/null

# --- 3. Nothing left behind, nothing served closed -------------------------------

# An application refused for a malformed record (an instance naming a
# class it does not have), then killed: its segment is removed.
start_app "$SERVICE" "$RUN2" brokenapp 707
broken=$APP_PID broken_segment=$APP_SEGMENT
echo "add 1 one" >&"$APP_IN"
wait_until 10 grep -q '^ok' "$APP_OUT" || fail "brokenapp did not add its instance: $(cat "$APP_OUT")"
wait_until 10 equals 1 instance_count "$DCI_ARC.1.4.1.2.3.3.707.17" ||
    fail "brokenapp's instance is not served: $(snmp_walk "$DCI_ARC.1.4.1.2" | tail -n 3)"
instances=$(od -An -t u8 -j 376 -N 8 "$broken_segment" | tr -d ' ')
patch "$broken_segment" $((instances + 4)) 99 4 # class_index of record 0
wait_until 10 grep -q "${broken_segment##*/} refused: instance \"one\": class 99 of 1" "$DCISTATD_LOG" ||
    fail "the malformed segment was not refused (log: $(tail -n 5 "$DCISTATD_LOG"))"
kill -KILL "$broken"
wait "$broken" 2>/dev/null
wait_until 15 test ! -e "$broken_segment" ||
    fail "the refused segment of a killed process was not removed"
grep -q "${broken_segment##*/}: its process $broken is gone; removed" "$DCISTATD_LOG" ||
    fail "no log line for the removal"
ok "a segment refused as malformed, its process killed: removed ($(grep -o "${broken_segment##*/}: its process.*" "$DCISTATD_LOG"))"

# A second victimapp: refused (module served), then killed: removed.
start_app "$SERVICE" "$RUN2" victimapp 702
second=$APP_PID second_segment=$APP_SEGMENT
wait_until 10 grep -q "${second_segment##*/} refused: supplier \"victimapp\" is already served" "$DCISTATD_LOG" ||
    fail "the second victimapp was not refused"
kill -KILL "$second"
wait "$second" 2>/dev/null
wait_until 15 test ! -e "$second_segment" ||
    fail "the refused segment of a killed process was not removed"
grep -q "${second_segment##*/}: its process $second is gone; removed" "$DCISTATD_LOG" ||
    fail "no log line for the removal"
ok "a segment refused for a module served elsewhere, its process killed: removed"

# Closed: a copy of the victim's segment (its live owner) with closed set.
closed=$RUN2/closedapp.$victim_app.dciseg
cp "$victim_segment" "$RUN2/.closed.new"
patch_module "$RUN2/.closed.new" closedapp
patch "$RUN2/.closed.new" 416 1 4
chown "$SERVICE" "$RUN2/.closed.new"
mv "$RUN2/.closed.new" "$closed"
wait_until 10 grep -q "${closed##*/} refused: its application closed it" "$DCISTATD_LOG" ||
    fail "the closed segment was not refused"
for i in 1 2 3 4 5 6; do # events and rescans (a slot freed)
	start_app "$SERVICE" "$RUN2" "churn$i" $((710 + i))
	wait_until 10 equals 1 served "churn$i" "$APP_PID" || fail "churn$i not served"
	kill -KILL "$APP_PID"
	wait "$APP_PID" 2>/dev/null # a zombie still counts (SUPPLIERS.md)
	sleep 0.3
done
wait_until 10 grep -q "churn6.*withdrawn" "$DCISTATD_LOG" || fail "the churning applications were not withdrawn"
[ "$(grep -c "${closed##*/}" "$DCISTATD_LOG")" = 1 ] ||
    fail "the closed segment was seen more than once: $(grep "${closed##*/}" "$DCISTATD_LOG" | head -n 3)"
! grep -q 'supplier "closedapp"' "$DCISTATD_LOG" || fail "the closed segment was served"
ok "a segment left with its closed flag: refused once, never served, through 6 rescans"

# Killed, never reaped: a zombie still has its pid and start time; the
# full owner check (every 10 s) sees it exited.
mkfifo "$TMP_DIR/zombie.in"
setpriv --reuid="$SERVICE" --regid="$(id -g "$SERVICE")" --init-groups \
    /usr/bin/python3 -c 'import os, sys, time
child = os.fork()
if child == 0:
    os.execv(sys.argv[1], sys.argv[1:])
print(child, flush=True)
time.sleep(600)' "$COMMANDS" "$RUN2" zombieapp 708 <"$TMP_DIR/zombie.in" >"$TMP_DIR/zombie.out" 2>&1 &
_lib_pids+=("$!")
exec {zombie_in}>"$TMP_DIR/zombie.in"
wait_until 10 grep -q '^ready' "$TMP_DIR/zombie.out" || fail "zombieapp did not start: $(cat "$TMP_DIR/zombie.out")"
zombie=$(head -n 1 "$TMP_DIR/zombie.out")
wait_until 10 equals 1 served zombieapp "$zombie" || fail "zombieapp not served"
kill -KILL "$zombie"
state_of() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1; }
wait_until 5 equals Z state_of "$zombie" || fail "$zombie is not a zombie"
wait_until 15 grep -q "zombieapp.$zombie.dciseg: its process $zombie exited (its parent has not reaped it yet); removed" "$DCISTATD_LOG" ||
    fail "the zombie's segment was not withdrawn and removed"
exec {zombie_in}>&-
ok "a killed process its parent did not reap: its segment withdrawn and removed at the full owner check"
stop_dcistatd

# Under -u: root's sticky directory, the service user's dead segment.
RUN3=$TMP_DIR/run3
{ mkdir -m 3770 "$RUN3" && chgrp "$GROUP" "$RUN3"; } || fail "cannot make $RUN3"
config=$TMP_DIR/user.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN3
      groups: [$GROUP]
EOF
start_dcistatd "$config" -u "$DAEMON"
wait_until 10 grep -q 'AgentX subagent started' "$DCISTATD_LOG" || fail "dcistatd did not start"
wait_until 10 equals "$(id -u "$DAEMON")" uid_of "$DCISTATD_PID" ||
    fail "dcistatd does not run as $DAEMON"
start_app "$SERVICE" "$RUN3" staleapp 720
stale=$APP_PID stale_segment=$APP_SEGMENT
wait_until 10 equals 1 served staleapp "$stale" || fail "staleapp not served under -u"
kill -KILL "$stale"
wait "$stale" 2>/dev/null
wait_until 15 grep -q "${stale_segment##*/}: .*cannot be removed: Operation not permitted" "$DCISTATD_LOG" ||
    fail "the stale segment's failed removal was not logged (log: $(tail -n 5 "$DCISTATD_LOG"))"
[ -e "$stale_segment" ] || fail "the stale segment went (dcistatd should not be able to remove it)"
for i in 1 2 3; do # rescans: a slot freed each time
	start_app "$SERVICE" "$RUN3" "churn$i" $((730 + i))
	wait_until 10 equals 1 served "churn$i" "$APP_PID" || fail "churn$i not served"
	kill -KILL "$APP_PID"
	wait "$APP_PID" 2>/dev/null
	sleep 0.5
done
wait_until 15 grep -q "churn3.*withdrawn" "$DCISTATD_LOG" || fail "the churning applications were not withdrawn"
[ "$(grep -c "${stale_segment##*/}.*cannot be removed" "$DCISTATD_LOG")" = 1 ] ||
    fail "the failed removal was logged more than once"
! grep -q "${stale_segment##*/}.*; removed" "$DCISTATD_LOG" || fail "logged removed when it was not"
ok "under -u a stale segment dcistatd may not remove: logged once with the reason, never 'removed'"
rm -f "$stale_segment"
stop_dcistatd

# --- 4. The documented set-up ------------------------------------------------------

RUN4=$TMP_DIR/run4/suppliers
config=$TMP_DIR/documented.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN4
      groups: [$GROUP]
EOF
start_dcistatd "$config"
wait_until 10 test -d "$RUN4" || fail "dcistatd did not create $RUN4"
mode=$(stat -c '%a %U %G' "$RUN4")
[ "$mode" = "3770 root $GROUP" ] || fail "$RUN4 is $mode, not 3770 root $GROUP"
chmod 0755 "$TMP_DIR/run4"
start_app "$SERVICE" "$RUN4" documented 740
[ "$(stat -c %G "$APP_SEGMENT")" = "$GROUP" ] ||
    fail "the segment's group is $(stat -c %G "$APP_SEGMENT"), not the directory's"
wait_until 10 equals 1 served documented "$APP_PID" ||
    fail "the documented set-up's application is not served (log: $(tail -n 5 "$DCISTATD_LOG"))"
ok "run directory 3770 root:$GROUP; a user added with usermod -a -G supplies, its segment of group $GROUP"

# The directory replaced (moved away, made again): watched again, a new
# segment in the new one served within a few refreshes, not at the next
# periodic rescan (60 s).
mv "$RUN4" "$RUN4.old"
{ mkdir -m 3770 "$RUN4" && chgrp "$GROUP" "$RUN4"; } || fail "cannot make $RUN4 again"
wait_until 10 grep -q 'supplier "documented" withdrawn: its file was removed' "$DCISTATD_LOG" ||
    fail "the segment of the directory moved away is still served"
sleep 1 # the rescans that the move caused are over
start_app "$SERVICE" "$RUN4" replaced 741
wait_until 10 equals 1 served replaced "$APP_PID" ||
    fail "a segment in the replaced directory is not served (log: $(tail -n 5 "$DCISTATD_LOG"))"
ok "the run directory replaced: the new one watched, its segment served"
stop_dcistatd
