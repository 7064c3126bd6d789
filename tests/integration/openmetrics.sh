#!/bin/bash
# openmetrics.sh -- the openmetrics provider against real exporters:
# prometheus-node-exporter and Prometheus's own /metrics, served through
# snmpd and dcistatd.
#
# Both run on free loopback ports, beside a fixture server (python3's
# http.server) and a port nobody listens on. The test asserts:
#   - for node-exporter and Prometheus, every counter (total), summary and
#     histogram count and histogram bucket read through SNMP lies between
#     two scrapes taken before and after the walk, and every gauge and
#     quantile that did not change between them equals the scrape
#     (openmetrics_check.py; ids computed from the documented rules);
#   - instance labels are the sorted label pairs (cpu="0",mode="idle");
#   - the status class {4, 1}: up yes/no, "ok", "scrape failed: ..." for
#     the dead port, "refused: line 2: bad value \x1b[31m" for a body with
#     a control character, logged once and escaped (no raw ESC in the log);
#   - a fixture counter that goes back (100 -> 5) sets its instance's
#     dciStatDiscontinuity;
#   - a target through a unix socket (unix=) is served; a remote host
#     without allow-remote is a configuration error (dcistatd -t);
#   - a target with interval=1h is scraped once and its rows still served
#     many refreshes (and stale-periods) later;
#   - two families that change their type are refused in every scrape,
#     each logged once;
#   - node-exporter stopped: its rows are withdrawn after stale-periods,
#     Prometheus's stay, and its status says why; its dciSupplierTable row
#     goes from running(1) to failed(2) with that text as
#     dciSupplierFailure while Prometheus's stays running(1);
#   - `dcistatd --mib` for the generated classes passes smilint -l 6.
#
# Needs root (for snmpd's sockets; exit 77 otherwise), prometheus and
# prometheus-node-exporter (Debian packages).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
# shellcheck source-path=SCRIPTDIR source=openmetrics_lib.sh
. "$here/openmetrics_lib.sh"

require_root
require_cmd snmpd snmpget snmpbulkwalk curl python3
require_built
OM_SO=$(provider_so openmetrics)
[ -f "$OM_SO" ] || skip "$OM_SO not built (configure found no libcurl)"
command -v prometheus >/dev/null 2>&1 || skip "no prometheus (apt-get install prometheus)"
NODE_EXPORTER=$(command -v prometheus-node-exporter) ||
    skip "no prometheus-node-exporter (apt-get install prometheus-node-exporter)"
started=$(now_ms)

REFRESH=1
STALE=2
ACCEPT='Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5'
DCI_DISCONTINUITY=$DCI_ARC.1.5.1.13
DCI_INSTANCE_LABEL=$DCI_ARC.1.4.1.2

bulkwalk() { # OID FILE
	ns_run snmpbulkwalk "${SNMP_OPTS[@]}" -Cr50 -Oqn -Oe -Ot "$SNMP_TARGET" "$1" >"$2" 2>&1
}
scrape() { # PORT FILE
	curl -sf -H "$ACCEPT" -o "$2" "http://127.0.0.1:$1/metrics"
}
supplier_index() { # MODULE -> its dciSupplierIndex
	bulkwalk "$DCI_ARC.1.1.1.2" "$TMP_DIR/modules" &&
	    sed -n "s/^$DCI_ARC\.1\.1\.1\.2\.\([0-9]*\) \"\{0,1\}$1\"\{0,1\}\$/\1/p" "$TMP_DIR/modules"
}
supplier_column() { # MODULE COLUMN: 8 dciSupplierStatus, 11 dciSupplierFailure
	snmp_get "$DCI_ARC.1.1.1.$2.$(supplier_index "$1")"
}

# --- the exporters and the fixtures ---------------------------------------------

NODE_PORT=$(free_tcp_port) || fail "no free TCP port"
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NODE_PORT" \
    </dev/null >"$TMP_DIR/node.log" 2>&1 &
NODE_PID=$!
_lib_pids+=("$NODE_PID")
PROM_PORT=$(free_tcp_port) || fail "no free TCP port"
mkdir -p "$TMP_DIR/prom" || fail "cannot create $TMP_DIR/prom"
printf 'global:\n  scrape_interval: 1m\n' >"$TMP_DIR/prom/prometheus.yml"
prometheus --config.file="$TMP_DIR/prom/prometheus.yml" \
    --storage.tsdb.path="$TMP_DIR/prom/data" \
    --web.listen-address="127.0.0.1:$PROM_PORT" \
    </dev/null >"$TMP_DIR/prometheus.log" 2>&1 &
_lib_pids+=("$!")

FIXTURE=$TMP_DIR/fixture
mkdir -p "$FIXTURE" || fail "cannot create $FIXTURE"
write_fixture() { # FILE TEXT: replaced whole, never seen half-written
	printf '%b' "$2" >"$FIXTURE/.$1" && mv "$FIXTURE/.$1" "$FIXTURE/$1"
}
write_fixture counter '# TYPE fix_requests counter\nfix_requests_total{path="/"} 100\n'
write_fixture bad '# TYPE fine gauge\nfine \x1b[31m\n'
write_fixture shift '# TYPE fx gauge\nfx 1\n# TYPE fy gauge\nfy 2\n'
write_fixture slow '# TYPE slow_value gauge\nslow_value 7\n'
FIX_PORT=$(free_tcp_port) || fail "no free TCP port"
python3 -m http.server --bind 127.0.0.1 --directory "$FIXTURE" "$FIX_PORT" \
    </dev/null >"$TMP_DIR/fixture.log" 2>&1 &
_lib_pids+=("$!")
DEAD_PORT=$(free_tcp_port) || fail "no free TCP port"
# The same fixtures over a unix stream socket.
SOCKET=$TMP_DIR/metrics.sock
python3 - "$SOCKET" "$FIXTURE" </dev/null >"$TMP_DIR/unix.log" 2>&1 <<'PY' &
import http.server, socketserver, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=sys.argv[2], **kwargs)
    def address_string(self):
        return "unix"
class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
Server(sys.argv[1], Handler).serve_forever()
PY
_lib_pids+=("$!")

answers() { curl -sf -o /dev/null "http://127.0.0.1:$1/$2"; }
wait_until 20 answers "$NODE_PORT" metrics || fail "node-exporter does not answer on $NODE_PORT"
wait_until 20 answers "$PROM_PORT" metrics || fail "prometheus does not answer on $PROM_PORT"
wait_until 10 answers "$FIX_PORT" counter || fail "the fixture server does not answer on $FIX_PORT"
socket_answers() { curl -sf -o /dev/null --unix-socket "$SOCKET" http://localhost/counter; }
wait_until 10 socket_answers || fail "the fixture server does not answer on $SOCKET"
ok "node-exporter on $NODE_PORT, prometheus on $PROM_PORT, fixtures on $FIX_PORT and $SOCKET"

# The address policy: a remote host is a configuration error without
# allow-remote, named with its file and line (dcistatd -t).
remote=$TMP_DIR/remote.yaml
printf 'agent:\n  agentx-socket: %s\nproviders:\n  - module: %s\n    options:\n      targets:\n        - http://192.0.2.1:9100/metrics\n' \
    "$TMP_DIR/none.sock" "$OM_SO" >"$remote"
run_dcistatd "$TMP_DIR/remote.out" "$TMP_DIR/remote.err" -t -c "$remote"
[ "$RUN_STATUS" = 1 ] || fail "dcistatd -t with a remote target: status $RUN_STATUS, expected 1"
grep -q "remote.yaml:[0-9]*:[0-9]*.*item 1: host is not loopback" "$TMP_DIR/remote.err" ||
    fail "dcistatd -t with a remote target: $(tr '\n' ' ' <"$TMP_DIR/remote.err")"
ok "a remote target without allow-remote: dcistatd -t exits 1, '$(grep -o 'remote.yaml:[^ ]* .*' "$TMP_DIR/remote.err" | head -n 1)'"

# --- dcistatd --------------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $OM_SO
    refresh: $REFRESH
    stale-periods: $STALE
    options:
      timeout: 2s
      targets:
        - http://127.0.0.1:$NODE_PORT/metrics name=node
        - http://127.0.0.1:$PROM_PORT/metrics name=prom
        - http://127.0.0.1:$FIX_PORT/counter name=fix
        - http://127.0.0.1:$FIX_PORT/bad name=bad
        - http://127.0.0.1:$FIX_PORT/shift name=shift
        - http://localhost/counter name=sock unix=$SOCKET
        - http://127.0.0.1:$FIX_PORT/slow name=slow interval=1h
        - http://127.0.0.1:$DEAD_PORT/metrics name=dead timeout=500ms
EOF
DCISTATD_FIRST_MODULE=openmetrics
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX
target_ok() { [ "$(status_of "$1" 4 2>/dev/null)" = ok ]; }
for target in node prom fix shift sock slow; do
	wait_until 10 target_ok "$target" ||
	    fail "target $target: status '$(status_of "$target" 4)', expected ok"
done
ok "dcistatd scrapes node, prom, fix, shift and sock (status ok)"

# --- values against two scrapes ----------------------------------------------------

for entry in node:$NODE_PORT prom:$PROM_PORT; do
	target=${entry%%:*} port=${entry#*:}
	word=$(ids "$target")
	scrape "$port" "$TMP_DIR/$target.1" || fail "cannot scrape $target"
	# The snapshot walked was scraped after the first scrape.
	sleep "$REFRESH.3"
	bulkwalk "$DCI_TEXT.5.4.$word" "$TMP_DIR/$target.walk" ||
	    fail "cannot walk $target's classes: $(tail -n 2 "$TMP_DIR/$target.walk")"
	scrape "$port" "$TMP_DIR/$target.2" || fail "cannot scrape $target again"
	summary=$(python3 "$here/openmetrics_check.py" "$target" "$TMP_DIR/$target.1" \
	    "$TMP_DIR/$target.2" "$TMP_DIR/$target.walk" "$DCI_ARC") ||
	    fail "$target: served values differ from the scrapes:
$summary"
	ok "$summary"
done

read -r word hi lo shi slo < <(ids node node_cpu_seconds_total cpu=0 mode=idle)
label=$(snmp_get "$DCI_INSTANCE_LABEL.5.4.$word.$hi.$lo.1.2.$shi.$slo") ||
    fail "no instance node_cpu_seconds_total{cpu=0,mode=idle} at its documented id"
[ "$label" = 'cpu=\"0\",mode=\"idle\"' ] || [ "$label" = 'cpu="0",mode="idle"' ] ||
    fail "node_cpu_seconds_total{cpu=0,mode=idle} labelled '$label'"
ok "instance {cpu=\"0\",mode=\"idle\"} of node_cpu_seconds_total at its id, labelled $label"

# --- status, refusals, escaping --------------------------------------------------------

[ "$(status_of node 3)" = yes ] || fail "node: up '$(status_of node 3)', expected yes"
[ "$(status_of dead 3)" = no ] || fail "dead: up '$(status_of dead 3)', expected no"
dead_status=$(status_of dead 4)
[[ $dead_status == "scrape failed: "* ]] || fail "dead: status '$dead_status'"
bad_status=$(status_of bad 4)
[ "$bad_status" = 'refused: line 2: bad value \\x1b[31m' ] ||
    [ "$bad_status" = 'refused: line 2: bad value \x1b[31m' ] ||
    fail "bad: status '$bad_status'"
sleep "$REFRESH"
refusals=$(grep -c 'target bad: refused' "$DCISTATD_LOG")
[ "$refusals" = 1 ] || fail "the refused body was logged $refusals times, expected once"
grep -q 'target bad: refused: line 2: bad value \\x1b\[31m' "$DCISTATD_LOG" ||
    fail "the refusal's log line lacks the escaped value: $(grep 'target bad' "$DCISTATD_LOG")"
! grep -q $'\x1b' "$DCISTATD_LOG" || fail "a raw ESC byte reached the log"
failures=$(status_of bad 11)
[ "$failures" -ge 2 ] || fail "bad: failures $failures after several refreshes"
ok "status: node up, dead '$dead_status', bad '$bad_status' logged once, escaped ($failures failures counted)"

# --- a counter that goes back ------------------------------------------------------------

read -r word hi lo shi slo < <(ids fix fix_requests path=/)
row=5.4.$word.$hi.$lo.1.2.$shi.$slo.1
[ "$(snmp_get "$DCI_TEXT.$row")" = 100 ] || fail "fix_requests_total: '$(snmp_get "$DCI_TEXT.$row")', expected 100"
before=$(snmp_get "$DCI_DISCONTINUITY.$row") || fail "no dciStatDiscontinuity for fix_requests_total"
write_fixture counter '# TYPE fix_requests counter\nfix_requests_total{path="/"} 5\n'
served_five() { [ "$(snmp_get "$DCI_TEXT.$row")" = 5 ]; }
wait_until 5 served_five || fail "fix_requests_total not 5 after the reset"
after=$(snmp_get "$DCI_DISCONTINUITY.$row") || fail "no dciStatDiscontinuity after the reset"
[ "$after" -gt "$before" ] || fail "dciStatDiscontinuity $before -> $after after 100 -> 5"
ok "a counter going back (100 -> 5) moved dciStatDiscontinuity $before -> $after"

# The unix socket's target serves the same counter (5 now) under its own id.
read -r word hi lo shi slo < <(ids sock fix_requests path=/)
[ "$(snmp_get "$DCI_TEXT.5.4.$word.$hi.$lo.1.2.$shi.$slo.1")" = 5 ] ||
    fail "sock: fix_requests_total '$(snmp_get "$DCI_TEXT.5.4.$word.$hi.$lo.1.2.$shi.$slo.1")', expected 5"
ok "a target through unix=$SOCKET is served (fix_requests_total 5)"

# --- two families that change their type ------------------------------------------------

# Both are refused in every scrape from now on, each logged once.
write_fixture shift '# TYPE fx counter\nfx_total 1\n# TYPE fy counter\nfy_total 2\n'
refused_twice() { [ "$(grep -c 'target shift: family f[xy] refused' "$DCISTATD_LOG")" -ge 2 ]; }
wait_until 5 refused_twice || fail "fx and fy not refused after changing their type"
sleep $((2 * REFRESH)).2
for family in fx fy; do
	count=$(grep -c "target shift: family $family refused: type counter, registered as gauge" "$DCISTATD_LOG")
	[ "$count" = 1 ] || fail "family $family's refusal logged $count times over 3 refreshes, expected once"
done
ok "two families refused in every scrape (gauge, then counter) are each logged once"

# --- a target scraped once an hour ----------------------------------------------------------

# Its one scrape is served at every refresh since: not stale, never asked again.
read -r word hi lo shi slo < <(ids slow slow_value)
slow_value=$(snmp_get "$DCI_TEXT.5.4.$word.$hi.$lo.1.2.$shi.$slo.2") ||
    fail "slow_value not served $(($(now_ms) - started)) ms after the start (stale-periods $STALE)"
[ "$slow_value" = 7 ] || fail "slow_value '$slow_value', expected 7"
gets=$(grep -c 'GET /slow ' "$TMP_DIR/fixture.log")
[ "$gets" = 1 ] || fail "the target with interval=1h was scraped $gets times"
scrapes=$(status_of slow 10)
[ "$scrapes" = 1 ] || fail "slow: scrapes $scrapes, expected 1"
ok "interval=1h: scraped once in $(($(now_ms) - started)) ms, its value (7) still served"

# --- the generated MIB ---------------------------------------------------------------------

mib=$TMP_DIR/DCI-OPENMETRICS-TEST-MIB.txt
run_dcistatd "$mib" "$TMP_DIR/mib.err" --mib DCI-OPENMETRICS-TEST-MIB -c "$config"
[ "$RUN_STATUS" = 0 ] || fail "dcistatd --mib: status $RUN_STATUS: $(tail -n 3 "$TMP_DIR/mib.err")"
tables=$(grep -c ' OBJECT-TYPE$' "$mib")
if base=$("$top_srcdir/scripts/fetch-base-mibs" 2>/dev/null) && command -v smilint >/dev/null; then
	mkdir -p "$TMP_DIR/mibs" && cp "$top_srcdir/mibs/DCI-STATS-MIB.txt" "$TMP_DIR/mibs/"
	SMIPATH=$TMP_DIR/mibs:${base%$'\n'}:/usr/share/snmp/mibs smilint -l 6 -m "$mib" \
	    >"$TMP_DIR/smilint.out" 2>&1 || true
	[ ! -s "$TMP_DIR/smilint.out" ] ||
	    fail "smilint -l 6 on the generated module: $(head -n 5 "$TMP_DIR/smilint.out")"
	ok "dcistatd --mib: $tables objects for node, prom and fix, smilint -l 6 reports nothing"
else
	note "smilint or the IETF base modules unavailable: --mib wrote $tables objects, not linted"
fi

# --- a target that stops answering -----------------------------------------------------------

node_index=$(supplier_index node) && [ -n "$node_index" ] ||
    fail "no dciSupplierTable row for node: $(cat "$TMP_DIR/modules")"
[ "$(supplier_column node 8)" = 1 ] ||
    fail "node's supplier: status '$(supplier_column node 8)' while it answers, expected running(1)"
kill "$NODE_PID" && wait "$NODE_PID" 2>/dev/null
node_failing() { [[ $(status_of node 4 2>/dev/null) == "scrape failed: "* ]]; }
wait_until 5 node_failing || fail "node: status '$(status_of node 4)' after node-exporter stopped"
node_supplier_failed() { [ "$(supplier_column node 8 2>/dev/null)" = 2 ]; }
wait_until 5 node_supplier_failed ||
    fail "node's supplier: status '$(supplier_column node 8)' after node-exporter stopped, expected failed(2)"
# The two are read with two requests, and every failed scrape words its
# time ("after N ms") anew: they are compared until both come from one
# refresh.
node_failure_is_status() {
	node_failure=$(supplier_column node 11 2>/dev/null)
	[ "$node_failure" = "$(status_of node 4 2>/dev/null)" ]
}
wait_until 5 node_failure_is_status ||
    fail "node's supplier: failure '$node_failure', expected its status '$(status_of node 4)'"
[ "$(supplier_column prom 8)" = 1 ] ||
    fail "prom's supplier: status '$(supplier_column prom 8)', expected running(1)"
[ -z "$(supplier_column prom 11)" ] ||
    fail "prom's supplier: failure '$(supplier_column prom 11)', expected none"
ok "node-exporter stopped: its supplier (index $node_index) failed(2), dciSupplierFailure '$node_failure'; prom's running(1)"
read -r word < <(ids node)
node_gone() { # the walk answers, past node's classes
	bulkwalk "$DCI_TEXT.5.4.$word" "$TMP_DIR/node.gone"
	! grep -q "^$DCI_TEXT.5.4.$word\." "$TMP_DIR/node.gone" &&
	    ! grep -q -i 'timeout' "$TMP_DIR/node.gone"
}
waited=$(now_ms)
wait_until $((STALE * REFRESH + 5)) node_gone ||
    fail "node's rows still served $((STALE * REFRESH + 5)) s after node-exporter stopped"
waited=$(($(now_ms) - waited))
prom_word=$(ids prom)
bulkwalk "$DCI_TEXT.5.4.$prom_word" "$TMP_DIR/prom.still"
grep -q "^$DCI_TEXT.5.4.$prom_word\." "$TMP_DIR/prom.still" ||
    fail "prom's rows went with node's"
ok "node-exporter stopped: status '$(status_of node 4)', its rows withdrawn ${waited} ms later (stale-periods $STALE), prom's still served"

stop_dcistatd
stop_snmpd
note "done in $(($(now_ms) - started)) ms"
exit 0
