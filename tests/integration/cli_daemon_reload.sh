#!/bin/bash
# cli_daemon_reload.sh -- `dcistat show` through the daemon reads each
# class from one snapshot, however often the daemon restarts a provider.
#
# dcistatd serves evcnt (refresh 0.1 s) with the DCI Server on. For the
# storm, the configuration toggles evcnt's per-cpu option (the class's
# instance count changes: every per-CPU count comes or goes) and dcistatd
# is sent SIGHUP every 0.5 s, each reload restarting the provider; two
# loops run `dcistat show evcnt` through the daemon meanwhile. The test
# asserts that every run exits 0 with nothing on stderr (a class read as
# instances then data in two requests failed ~1 run in 1,000 with
# "instances and data differ"), that the runs saw both instance counts
# (the storm did change the class under them), and that dcistatd lives.
#
# CLI_RELOAD_SECONDS sets the storm's length (default 40).
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
require_root
require_cmd snmpd snmpget
require_built
EVCNT_SO=$(provider_so evcnt)
[ -f "$EVCNT_SO" ] || fail "$EVCNT_SO not built (run make)"
[ -r /proc/interrupts ] || skip "no /proc/interrupts"
SECONDS_WANTED=${CLI_RELOAD_SECONDS:-40}

SOCK=$TMP_DIR/dci.sock
config=$TMP_DIR/dcistatd.yaml
# write_evcnt_config PER-CPU: the configuration, replaced in one rename so
# that a reload never reads half of it.
write_evcnt_config() {
	cat >"$config.new" <<EOF
agent:
  agentx-socket: $SNMPD_AGENTX
  ping-interval: 1
  dci-socket: $SOCK
providers:
  - module: $EVCNT_SO
    refresh: 0.1
    options:
      per-cpu: $1
EOF
	mv -f "$config.new" "$config"
}

start_snmpd
write_evcnt_config yes
DCISTATD_FIRST_MODULE=evcnt
start_dcistatd "$config"
wait_dcistatd_ready 10
wait_until 10 test -S "$SOCK" || fail "no DCI socket at $SOCK"

# show_loop NAME: `dcistat show evcnt` until $TMP_DIR/stop exists; per
# run, "status instances" in $TMP_DIR/NAME.runs, and the stderr of each
# failed run appended to $TMP_DIR/NAME.err.
show_loop() {
	local name=$1 status lines
	: >"$TMP_DIR/$name.runs"
	: >"$TMP_DIR/$name.err"
	while [ ! -e "$TMP_DIR/stop" ]; do
		"$DCISTAT" -c "$config" show evcnt </dev/null \
		    >"$TMP_DIR/$name.out" 2>"$TMP_DIR/$name.one.err"
		status=$?
		lines=$(wc -l <"$TMP_DIR/$name.out")
		printf '%s %s\n' "$status" "$lines" >>"$TMP_DIR/$name.runs"
		if [ "$status" != 0 ] || [ -s "$TMP_DIR/$name.one.err" ]; then
			cat "$TMP_DIR/$name.one.err" >>"$TMP_DIR/$name.err"
		fi
	done
}

show_loop a &
loop_a=$!
show_loop b &
loop_b=$!
_lib_pids+=("$loop_a" "$loop_b")

reloads=0 per_cpu=yes
end=$(($(now_ms) + SECONDS_WANTED * 1000))
while [ "$(now_ms)" -lt "$end" ]; do
	if [ "$per_cpu" = yes ]; then per_cpu=no; else per_cpu=yes; fi
	write_evcnt_config "$per_cpu"
	kill -HUP "$DCISTATD_PID" || fail "dcistatd died during the storm"
	reloads=$((reloads + 1))
	sleep 0.5
done
touch "$TMP_DIR/stop"
wait "$loop_a" "$loop_b"
_lib_alive "$DCISTATD_PID" || fail "dcistatd died during the storm"

cat "$TMP_DIR/a.runs" "$TMP_DIR/b.runs" >"$TMP_DIR/all.runs"
runs=$(wc -l <"$TMP_DIR/all.runs")
failed=$(awk '$1 != 0' "$TMP_DIR/all.runs" | wc -l)
cat "$TMP_DIR/a.err" "$TMP_DIR/b.err" >"$TMP_DIR/all.err"
noisy=$(grep -c . "$TMP_DIR/all.err")
# The smallest and largest line counts of the runs that succeeded.
read -r fewest most < <(awk '$1 == 0 { if (n == 0 || $2 < lo) lo = $2;
    if ($2 > hi) hi = $2; n++ } END { print lo + 0, hi + 0 }' \
    "$TMP_DIR/all.runs")
note "$reloads reloads, $runs runs of dcistat show, $failed failed," \
    "$noisy lines on stderr; lines per run $fewest..$most"
[ "$runs" -ge 100 ] || fail "only $runs runs of dcistat show in ${SECONDS_WANTED} s"
if [ "$failed" -gt 0 ] || [ "$noisy" -gt 0 ]; then
	sort "$TMP_DIR/all.err" | uniq -c | sort -rn | head -5
	fail "$failed of $runs runs failed under the reload storm"
fi
ok "$runs runs of dcistat show evcnt under $reloads reloads: all exit 0, nothing on stderr"
[ "$fewest" -lt "$most" ] ||
    fail "every run saw $most lines: the storm did not change the class"
ok "the runs saw the class change ($fewest..$most lines)"
check_sanitizer_log "$DCISTATD_LOG" dcistatd
