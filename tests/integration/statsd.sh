#!/bin/bash
# statsd.sh -- the statsd provider under a real snmpd master and dcistatd.
#
# dcistatd loads the statsd provider listening on a free UDP port and a
# unix datagram socket; tests/integration/statsd_client.py sends. The test
# asserts, through SNMP (dciStatTable):
#   - 10^6 counter increments sent in bursts of datagrams arrive exact:
#     the counter's Counter64 plus the kernel's drops (receive_drops, per
#     datagram of 100 lines) accounts for every one; again with a 4 KiB
#     socket buffer that the bursts overflow;
#   - timer quantiles p50, p90 and p99 of 20,000 log-normal samples within
#     1 % of the exact quantiles of what was sent, and the count exact;
#   - a gauge set, moved by +5, -3 and -7.25: value 5 (Integer32) and
#     value_thousandths 4750 (text); a set's distinct members (3 of 4);
#   - a counter sent on the unix socket, with tags in either order, is one
#     series;
#   - a malformed line and an unknown type are counted and logged escaped
#     (no raw ESC in the log); dcistatd keeps serving and stops cleanly.
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
require_cmd snmpd snmpget python3 timeout
require_built
STATSD_SO=$(provider_so statsd)
[ -f "$STATSD_SO" ] || fail "$STATSD_SO not built (run make)"
CLIENT=$here/statsd_client.py
started=$(now_ms)

STAT=$DCI_ARC.1.5.1 # dciStatEntry
C_TEXT=3 C_COUNTER64=4 C_GAUGE32=6 C_INTEGER32=7
COUNTERS=3.2.8125.1 GAUGES=3.2.8125.2 TIMERS=3.2.8125.3 SETS=3.2.8125.4
RECEIVER=3.2.8125.5 RECEIVER_ROW=1.1
R_PACKETS=1 R_MALFORMED=4 R_UNKNOWN=5 R_DROPS=12
LINES=1000000 PER_PACKET=100

# cell COLUMN CLASS INSTANCE DATUM: the OID of a dciStatTable cell.
cell() { printf '%s.%s.%s.%s.%s\n' "$STAT" "$1" "$2" "$3" "$4"; }
# series KIND KEY: the instance index of a series.
series() { python3 "$CLIENT" id "$1" "$2"; }
send() { python3 "$CLIENT" send "$@"; }
receiver() { snmp_get "$(cell $C_COUNTER64 $RECEIVER $RECEIVER_ROW "$1")"; }

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
PORT=$(free_udp_port) || fail "no free UDP port"
UNIX_SOCKET=$TMP_DIR/statsd.sock
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<END_OF_CONFIG
  - module: $STATSD_SO
    refresh: 0.3
    options:
      listen: 127.0.0.1:$PORT
      unix_socket: $UNIX_SOCKET
      receive_buffer: 16777216
END_OF_CONFIG
DCISTATD_FIRST_MODULE=statsd
start_dcistatd "$config"
wait_dcistatd_ready 10
wait_until 5 test -S "$UNIX_SOCKET" || fail "no unix socket at $UNIX_SOCKET"
ok "dcistatd serves the statsd supplier, UDP port $PORT and $UNIX_SOCKET"

# --- 10^6 counter increments in bursts -------------------------------------
HITS=$(series counter "h29.hits")
packets=$(python3 "$CLIENT" burst 127.0.0.1 "$PORT" h29.hits "$LINES" "$PER_PACKET" 200) ||
    fail "the client could not send"
[ "$packets" = $((LINES / PER_PACKET)) ] ||
    fail "the client sent $packets datagrams, expected $((LINES / PER_PACKET))"
hits() { snmp_get "$(cell $C_COUNTER64 $COUNTERS "$HITS" 1)"; }
counted_all() {
	local got drops
	got=$(hits) || return 1
	drops=$(receiver $R_DROPS) || return 1
	[ $((got + drops * PER_PACKET)) -eq "$LINES" ]
}
wait_until 20 counted_all ||
    fail "the counter reads $(hits) with $(receiver $R_DROPS) datagrams dropped; $LINES sent"
got=$(hits)
drops=$(receiver $R_DROPS)
ok "10^6 increments in $packets datagrams: counter $got + $drops dropped datagrams x $PER_PACKET = $LINES"

# --- timer quantiles --------------------------------------------------------
LATENCY=$(series timer "h29.latency")
read -r p50 p90 p99 < <(python3 "$CLIENT" timers 127.0.0.1 "$PORT" h29.latency 20000 29)
[ -n "${p99:-}" ] || fail "the client could not send timers"
latency() { snmp_get "$(cell $C_COUNTER64 $TIMERS "$LATENCY" "$1")"; }
timer_count() { [ "$(latency 1)" = 20000 ]; }
wait_until 10 timer_count || fail "the timer's count is $(latency 1), not 20000"
within_one_percent() { # NAME SERVED EXACT
	awk -v got="$2" -v exact="$3" 'BEGIN {
		e = (got - exact) / exact; if (e < 0) e = -e; exit !(e <= 0.01) }' ||
	    fail "$1: served $2, exact $3: more than 1 % apart"
	ok "$1: served $2, exact $3 (within 1 %)"
}
within_one_percent p50 "$(latency 15000)" "$p50"
within_one_percent p90 "$(latency 19000)" "$p90"
within_one_percent p99 "$(latency 19900)" "$p99"

# --- gauges, sets, the unix socket, tags -------------------------------------
TEMP=$(series gauge "h29.temp")
send 127.0.0.1 "$PORT" 'h29.temp:10|g\nh29.temp:+5|g\nh29.temp:-3|g\nh29.temp:-7.25|g'
# A set counts the distinct members of each refresh interval: the same
# members are sent every 50 ms (for up to 10 s), so every interval has all
# three.
USERS=$(series set "h29.users")
python3 "$CLIENT" send 127.0.0.1 "$PORT" 'h29.users:alice|s\nh29.users:bob|s\nh29.users:carol|s\nh29.users:alice|s' 200 0.05 &
SET_SENDER=$!
TAGGED=$(series counter "h29.jobs #queue:mail,shard:2")
send "$UNIX_SOCKET" unix 'h29.jobs:3|c|#shard:2,queue:mail\nh29.jobs:4|c|#queue:mail,shard:2'
gauge() { snmp_get "$(cell "$1" $GAUGES "$TEMP" "$2")"; }
gauge_moved() { [ "$(gauge $C_INTEGER32 1)" = 5 ]; }
wait_until 10 gauge_moved || fail "the gauge's value is $(gauge $C_INTEGER32 1), expected 5"
[ "$(gauge $C_TEXT 2)" = 4750 ] ||
    fail "value_thousandths is $(gauge $C_TEXT 2), expected 4750"
ok "gauge 10, +5, -3, -7.25: value 5, value_thousandths 4750"
users() { snmp_get "$(cell $C_GAUGE32 $SETS "$USERS" 1)"; }
distinct() { [ "$(users)" = 3 ]; }
wait_until 10 distinct || fail "the set's distinct count is $(users), expected 3"
kill "$SET_SENDER" 2>/dev/null
wait "$SET_SENDER" 2>/dev/null
ok "set of alice, bob, carol, alice: 3 distinct"
jobs() { snmp_get "$(cell $C_COUNTER64 $COUNTERS "$TAGGED" 1)"; }
tagged() { [ "$(jobs)" = 7 ]; }
wait_until 10 tagged || fail "the tagged counter sent over the unix socket reads $(jobs), not 7"
ok "a counter over the unix socket with its tags in two orders is one series: 7"

# --- malformed input ----------------------------------------------------------
send 127.0.0.1 "$PORT" 'evil\x1b[2J:1|c\nh29.odd:1|zz'
refused() {
	[ "$(receiver $R_MALFORMED)" -ge 1 ] && [ "$(receiver $R_UNKNOWN)" -ge 1 ]
}
wait_until 10 refused || fail "the malformed and unknown-type lines are not counted"
ok "a malformed line and an unknown type are counted"
logged() { grep -qF 'first line: "evil\x1b[2J:1|c"' "$DCISTATD_LOG"; }
wait_until 5 logged ||
    fail "the refused line is not logged escaped: $(grep statsd "$DCISTATD_LOG" | tail -n 3)"
if grep -q $'\x1b' "$DCISTATD_LOG"; then
	fail "a raw ESC reached dcistatd's log"
fi
ok "the refused line is logged escaped, no raw ESC in the log"
[ $(($(receiver $R_PACKETS) + drops)) -ge $((LINES / PER_PACKET + 4)) ] ||
    fail "the receiver's packet count is $(receiver $R_PACKETS), $drops dropped"

stop_dcistatd

# --- a socket buffer too small for the bursts ---------------------------------
# dcistatd again with a receive buffer of 4 KiB (the kernel's floor is
# about that): bursts overflow it, and the counter plus the kernel's drops
# (SO_MEMINFO, read at each refresh) still account for every increment.
sed -i 's/receive_buffer: 16777216/receive_buffer: 4096/' "$config"
start_dcistatd "$config"
wait_dcistatd_ready 10
LOSSY=$(series counter "h29.lossy")
python3 "$CLIENT" burst 127.0.0.1 "$PORT" h29.lossy "$LINES" "$PER_PACKET" 1000 >/dev/null ||
    fail "the client could not send"
lossy() { snmp_get "$(cell $C_COUNTER64 $COUNTERS "$LOSSY" 1)"; }
lossy_accounted() {
	local got drops
	got=$(lossy) || got=0
	drops=$(receiver $R_DROPS) || return 1
	[ $((got + drops * PER_PACKET)) -eq "$LINES" ]
}
wait_until 20 lossy_accounted ||
    fail "with a 4 KiB buffer the counter reads $(lossy) and $(receiver $R_DROPS) datagrams were dropped; $LINES sent"
ok "with a 4 KiB buffer: counter $(lossy) + $(receiver $R_DROPS) dropped datagrams x $PER_PACKET = $LINES"
stop_dcistatd
note "statsd.sh took $(($(now_ms) - started)) ms"
