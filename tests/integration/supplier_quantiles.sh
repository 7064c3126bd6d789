#!/bin/bash
# supplier_quantiles.sh -- an application's t-digest VOI
# (DCISTAT_VOI_TDIGEST) through the suppliers provider, dcistatd and a real
# snmpd master.
#
# tests/supplier_quantiles runs 4 threads that add the samples 1..20000
# between them, each into its own thread region's digest. The test asserts
# through SNMP (dciStatTable) that the quantile class {3, N, 3, 1, 1, 3} of
# blob 1 serves p50, p90 and p99 (datums 15000, 19000, 19900) within 1 % of
# the exact quantiles 10001, 18001 and 19801, and that the VOI's sample
# count is exact.
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
require_cmd snmpd snmpget
require_built
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"
APPLICATION=$top_builddir/tests/supplier_quantiles
[ -x "$APPLICATION" ] || fail "$APPLICATION not built (run make check)"

RUN=$TMP_DIR/run/suppliers
NUMBER=4343 THREADS=4 SAMPLES=20000
STAT_C64=$DCI_ARC.1.5.1.4
SUMMARY=6.3.$NUMBER.3.1.1.1
QUANTILES=6.3.$NUMBER.3.1.1.3
BLOB=1.1

start_snmpd
SNMP_TARGET=unix:$SNMPD_UNIX
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<END_OF_CONFIG
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN
END_OF_CONFIG
DCISTATD_FIRST_MODULE=suppliers
start_dcistatd "$config"
wait_until 10 test -d "$RUN" || fail "dcistatd did not create $RUN"

APP_IN=$TMP_DIR/app.in
APP_OUT=$TMP_DIR/app.out
mkfifo "$APP_IN"
"$APPLICATION" "$RUN" quantiles_app "$NUMBER" "$THREADS" "$SAMPLES" <"$APP_IN" >"$APP_OUT" 2>&1 &
QUANTILES_PID=$!
_lib_pids+=("$QUANTILES_PID")
exec 7>"$APP_IN" # holds the application's stdin open until the end
wait_until 20 grep -q '^ready' "$APP_OUT" || fail "the application did not start: $(cat "$APP_OUT")"

samples() { snmp_get "$STAT_C64.$SUMMARY.$BLOB.1"; }
all_served() { [ "$(samples)" = "$SAMPLES" ]; }
wait_until 10 all_served || fail "the VOI's samples read $(samples), not $SAMPLES (log: $(tail -n 3 "$DCISTATD_LOG"))"
ok "the VOI's sample count is exact: $SAMPLES from $THREADS threads"

within_one_percent() { # NAME DATUM EXACT
	local served
	served=$(snmp_get "$STAT_C64.$QUANTILES.$BLOB.$2") || fail "$1 is not served"
	awk -v got="$served" -v exact="$3" 'BEGIN {
		e = (got - exact) / exact; if (e < 0) e = -e; exit !(e <= 0.01) }' ||
	    fail "$1: served $served, exact $3: more than 1 % apart"
	ok "$1: served $served, exact $3 (within 1 %)"
}
# The exact quantile is the sample at rank q x SAMPLES of 1..SAMPLES.
within_one_percent p50 15000 $((SAMPLES / 2 + 1))
within_one_percent p90 19000 $((SAMPLES * 9 / 10 + 1))
within_one_percent p99 19900 $((SAMPLES * 99 / 100 + 1))

exec 7>&-
wait_until 10 _lib_gone "$QUANTILES_PID" || fail "the application did not exit"
stop_dcistatd
