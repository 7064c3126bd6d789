#!/bin/bash
# agent_lifecycle.sh -- the daemon heals itself, against a real snmpd master.
#
# dcistatd loads netif and the loader tests' provider (good_provider.so),
# whose init fails while a marker file is missing and whose refresh fails
# while another exists. The test asserts:
#   - a provider failing init beside netif: netif is served, the failed
#     provider has a dciSupplierTable row, failed(2), whose
#     dciSupplierFailure names the configuration position; once the cause
#     goes it is started by a retry and its rows served (recovery time
#     printed);
#   - a refresh failing: the class's rows are withdrawn (noSuchInstance)
#     once older than stale-periods refresh periods, the supplier shows
#     "refresh failed"; when refreshes work again the rows come back with a
#     later dciInstanceDiscontinuity;
#   - SIGHUP with netif unchanged, the test provider removed and the
#     example added: lo keeps its dciInstanceCreated and netif its
#     dciSupplierDiscontinuity, class 9.1 is gone, class 2.1 served;
#   - SIGHUP with a broken file: refused with FILE:LINE:COLUMN in the log,
#     netif still served;
#   - SIGHUP adding dci-socket and busy-poll, which take effect only at a
#     start: the reload's log line names both, and no socket appears;
#   - a refresh that blocks for longer than the master's AgentX timeout:
#     every netif GET meanwhile is answered, the session is kept, the
#     blocked provider's rows are withdrawn, and back once it returns;
#   - SIGTERM while the master is stopped (SIGSTOP): dcistatd exits 0
#     promptly (time printed; the bound asserted is generous, for
#     sanitizer builds).
#
# Needs root (for snmpd's sockets; exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

require_root
require_built
GOOD_SO=$top_builddir/tests/unit/.libs/good_provider.so
EXAMPLE_SO=$(provider_so example)
[ -f "$GOOD_SO" ] || skip "$GOOD_SO not built (make check builds it)"

SUPPLIER=$DCI_ARC.1.1.1   # dciSupplierEntry
INSTANCE=$DCI_ARC.1.4.1   # dciInstanceEntry
STAT_C64=$DCI_ARC.1.5.1.4 # dciStatCounter64
NETIF_LO=2.1.1.1.1        # class 1.1, instance 1 (lo)
GOOD_1=2.9.1.1.1          # class 9.1, instance 1
EXAMPLE_1=2.2.1.1.1       # class 2.1, instance 1
NEEDED=$TMP_DIR/needed
BROKEN=$TMP_DIR/broken
SLOW=$TMP_DIR/slow
# Longer than the master's AgentX timeout (5 s), which dropped subagents
# whose refresh blocked the request path.
SLOW_SECONDS=8

# supplier_index MODULE: the dciSupplierIndex of the row of MODULE.
supplier_index() {
	snmp_walk "$SUPPLIER.2" |
	    awk -v m="$1" '$2 == m { n = split($1, a, "."); print a[n]; exit }'
}

config=$TMP_DIR/dcistatd.yaml
write_config "$config" 1 0.2
cat >>"$config" <<END
  - module: $GOOD_SO
    refresh: 0.5
    stale-periods: 3
    options:
      init_needs: $NEEDED
      refresh_fails_while: $BROKEN
END

start_snmpd
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX

# --- a provider failing init beside netif -----------------------------------------

failed=$(supplier_index "$GOOD_SO")
[ -n "$failed" ] || fail "no dciSupplierTable row for the failed provider $GOOD_SO"
mapfile -t v < <(snmp_get "$SUPPLIER.8.$failed" "$SUPPLIER.11.$failed" \
    "$STAT_C64.$NETIF_LO.12") ||
    fail "cannot read the failed row and netif's lo rx_bytes"
[ "${v[0]}" = 2 ] || fail "failed provider: dciSupplierStatus ${v[0]}, expected failed(2)"
case ${v[1]} in
*"dcistatd.yaml:8:13: $GOOD_SO: provider good failed to initialise"*) ;;
*) fail "failed provider: dciSupplierFailure '${v[1]}'" ;;
esac
ok "init failing: netif served (lo rx_bytes ${v[2]}), row $failed failed(2): '${v[1]//"$TMP_DIR/"/}'"

touch "$NEEDED"
touched=$(now_ms)
good_served() { snmp_get "$STAT_C64.$GOOD_1.1" >/dev/null; }
wait_until 10 good_served || fail "the provider did not start within 10 s of its cause going"
recovered=$(($(now_ms) - touched))
good=$(supplier_index good)
[ -n "$good" ] && [ "$(snmp_get "$SUPPLIER.8.$good")" = 1 ] ||
    fail "supplier good is not running(1)"
[ -z "$(supplier_index "$GOOD_SO")" ] || fail "the failed row is still there after the start"
ok "recovered $recovered ms after the cause went (retries back off from 1 s): supplier good running, its rows served"

# --- a refresh failing: rows withdrawn, then back --------------------------------

discontinuity0=$(snmp_get "$INSTANCE.4.$GOOD_1") ||
    fail "cannot read dciInstanceDiscontinuity of class 9.1 instance 1"
touch "$BROKEN"
broke=$(now_ms)
withdrawn() { ! snmp_get "$STAT_C64.$GOOD_1.1" >/dev/null; }
wait_until 10 withdrawn || fail "rows of a failing provider still served 10 s after its refreshes began to fail"
took=$(($(now_ms) - broke))
mapfile -t v < <(snmp_get "$SUPPLIER.8.$good" "$SUPPLIER.11.$good") ||
    fail "cannot read supplier good"
[ "${v[0]}" = 2 ] && [ "${v[1]}" = "refresh failed" ] ||
    fail "refresh failing: dciSupplierStatus ${v[0]}, dciSupplierFailure '${v[1]}'"
ok "refresh failing: rows withdrawn after $took ms (stale after 3 x 0.5 s), supplier failed(2) 'refresh failed'"
rm -f "$BROKEN"
wait_until 10 good_served || fail "rows not back within 10 s of refreshes working again"
discontinuity1=$(snmp_get "$INSTANCE.4.$GOOD_1") || fail "cannot read dciInstanceDiscontinuity"
((discontinuity1 > discontinuity0)) ||
    fail "rows back without a discontinuity: dciInstanceDiscontinuity $discontinuity0 -> $discontinuity1"
ok "refresh working again: rows back, dciInstanceDiscontinuity $discontinuity0 -> $discontinuity1"

# --- SIGHUP: netif unchanged, the test provider removed, the example added --------

mapfile -t before < <(snmp_get "$INSTANCE.3.$NETIF_LO" "$SUPPLIER.9.1") ||
    fail "cannot read lo's dciInstanceCreated and netif's dciSupplierDiscontinuity"
write_config "$config" 1 0.2
cat >>"$config" <<END
  - module: $EXAMPLE_SO
    options:
      instances: 2
END
kill -HUP "$DCISTATD_PID"
example_served() { snmp_get "$INSTANCE.2.$EXAMPLE_1" >/dev/null; }
wait_until 10 example_served || fail "the example added by SIGHUP is not served within 10 s"
grep -E -q "reloaded $config in [0-9]+ ms: 1 provider unchanged, 1 added, 1 removed, 0 restarted" \
    "$DCISTATD_LOG" || fail "no 'reloaded' line in the log: $(tail -n 3 "$DCISTATD_LOG")"
mapfile -t after < <(snmp_get "$INSTANCE.3.$NETIF_LO" "$SUPPLIER.9.1") ||
    fail "cannot read lo's dciInstanceCreated after SIGHUP"
[ "${after[*]}" = "${before[*]}" ] ||
    fail "SIGHUP touched unchanged netif: created, discontinuity ${before[*]} -> ${after[*]}"
! snmp_get "$STAT_C64.$GOOD_1.1" >/dev/null || fail "class 9.1 of the removed provider is still served"
[ -z "$(supplier_index good)" ] || fail "supplier good of the removed provider still has a row"
ok "SIGHUP: $(grep -E -o 'reloaded .* in [0-9]+ ms.*' "$DCISTATD_LOG" | tail -n 1 | sed "s|$TMP_DIR/||"); lo created ${after[0]}, netif discontinuity ${after[1]}, both unchanged"

# --- SIGHUP: a broken file is refused, the running configuration kept -------------

printf 'providers:\n  - module: netif\n    refresh: soon\n' >"$config"
kill -HUP "$DCISTATD_PID"
refused() { grep -q "reload refused" "$DCISTATD_LOG"; }
wait_until 10 refused || fail "no 'reload refused' in the log"
grep -F -q "dcistatd.yaml:3:14: " "$DCISTATD_LOG" || fail "the refusal does not name FILE:LINE:COLUMN"
snmp_get "$STAT_C64.$NETIF_LO.12" >/dev/null || fail "netif no longer served after a refused reload"
example_served || fail "the example no longer served after a refused reload"
ok "broken file refused: $(grep -o 'reload refused.*' "$DCISTATD_LOG" | sed "s|$TMP_DIR/||"); still serving"

# --- SIGHUP: keys read only at a start are named ----------------------------------

write_config "$config" 1 0.2
sed -i "/^agent:/a\\  dci-socket: $TMP_DIR/dci.sock\n  busy-poll: 50\n  dci-work: 100" "$config"
kill -HUP "$DCISTATD_PID"
named() { grep -q "reload: busy-poll, dci-socket, dci-work changed; they take effect at the next start" "$DCISTATD_LOG"; }
wait_until 10 named ||
    fail "the reload adding dci-socket, busy-poll and dci-work does not name them: $(grep -E 'reload|next start' "$DCISTATD_LOG" | tail -n 2)"
[ ! -e "$TMP_DIR/dci.sock" ] || fail "a reload created the DCI socket it says waits for a start"
ok "SIGHUP adding dci-socket, busy-poll and dci-work: $(grep -o 'reload: .*' "$DCISTATD_LOG" | tail -n 1)"

# --- a refresh that blocks beside netif ---------------------------------------------

write_config "$config" 1 0.2
cat >>"$config" <<END
  - module: $GOOD_SO
    refresh: 0.5
    options:
      refresh_sleeps_while: $SLOW
END
kill -HUP "$DCISTATD_PID"
wait_until 10 good_served || fail "the provider added by SIGHUP is not served within 10 s"
touch "$SLOW"
blocked=$(now_ms)
gets=0 failures=0
while (($(now_ms) - blocked < SLOW_SECONDS * 1000)); do
	snmp_get "$STAT_C64.$NETIF_LO.12" >/dev/null || failures=$((failures + 1))
	gets=$((gets + 1))
	sleep 0.25
done
withdrawn || fail "rows of a provider blocked for $SLOW_SECONDS s still served"
rm -f "$SLOW"
wait_until 10 good_served || fail "rows not back within 10 s of the refresh unblocking"
((failures == 0)) || fail "$failures of $gets netif GETs failed while another provider's refresh blocked"
! grep -q "disconnected" "$DCISTATD_LOG" || fail "the master dropped the session: $(grep disconnected "$DCISTATD_LOG")"
ok "a refresh blocked for $SLOW_SECONDS s: $gets netif GETs answered, none failed, session kept, its rows withdrawn then back"

# --- SIGTERM with the master stopped ----------------------------------------------

kill -STOP "$SNMPD_PID"
started=$(now_ms)
kill -TERM "$DCISTATD_PID"
wait_until 10 _lib_gone "$DCISTATD_PID"
took=$(($(now_ms) - started))
kill -CONT "$SNMPD_PID"
_lib_gone "$DCISTATD_PID" || fail "dcistatd still running 10 s after SIGTERM with the master stopped"
wait "$DCISTATD_PID"
status=$?
DCISTATD_PID=
check_sanitizer_log "$DCISTATD_LOG" dcistatd
[ "$status" -eq 0 ] || fail "dcistatd exited $status on SIGTERM with the master stopped"
((took < 5000)) || fail "dcistatd took $took ms to stop with the master stopped"
ok "SIGTERM with the master stopped: exit 0 after $took ms"

stop_snmpd
exit 0
