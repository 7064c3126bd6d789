#!/bin/bash
# openmetrics_slow.sh -- one openmetrics target that drips its body does
# not cost the others: the targets are scraped at once, within a budget of
# the refresh period (src/providers/openmetrics/openmetrics.c).
#
# A fixture server (python3's http.server, threaded) serves a good target
# and a slow one; both answer at once until the slow one starts writing its
# body a byte every 0.5 s, longer than its timeout. The test asserts, over
# 20 samples through SNMP, one every half refresh (beside them a body
# past max-body-bytes and a gzip bomb, refused as they are alone):
#   - the good target's value is served in every sample, its status "ok"
#     and up yes, and it is scraped at (nearly) every refresh;
#   - the slow target's status row says "late: ...", up no, its late count
#     grows, and its rows are withdrawn after stale-periods;
#   - the slow target is asked again only once its scrape ended (its
#     timeout), not at every refresh;
#   - no refresh took longer than its period (dcistatd's log).
# Figures printed: the good target's samples served of 20, its scrapes per
# refresh period, the slow target's scrapes.
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
# shellcheck source-path=SCRIPTDIR source=openmetrics_lib.sh
. "$here/openmetrics_lib.sh"

require_root
require_cmd snmpd snmpget python3
require_built
OM_SO=$(provider_so openmetrics)
[ -f "$OM_SO" ] || skip "$OM_SO not built (configure found no libcurl)"

REFRESH=1
STALE=2
TIMEOUT_S=5
SAMPLES=20
MAX_BODY=65536

# --- the fixture server ---------------------------------------------------------

FIXTURE=$TMP_DIR/fixture
mkdir -p "$FIXTURE" || fail "cannot create $FIXTURE"
PORT=$(free_tcp_port) || fail "no free TCP port"
# /good and /slow answer at once; /slow drips once $FIXTURE/drip exists.
python3 - "$PORT" "$FIXTURE" </dev/null >"$TMP_DIR/fixture.log" 2>&1 <<'PY' &
import gzip, http.server, os, sys, time
port, fixture = int(sys.argv[1]), sys.argv[2]
BOMB = gzip.compress(b"a" * 10000000)
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def answer(self, body, encoding=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        name = self.path.strip("/")
        if name == "big":
            return self.answer(b"# a comment line\n" * 65536)
        if name == "bomb":
            return self.answer(BOMB, "gzip")
        body = ("# TYPE %s_value gauge\n%s_value %d\n"
                % (name, name, 42 if name == "good" else 7)).encode()
        drip = name == "slow" and os.path.exists(os.path.join(fixture, "drip"))
        if drip:
            body = body * 4  # 30 s at a byte every 0.5 s
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if not drip:
                self.wfile.write(body)
                return
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.serve_forever()
PY
_lib_pids+=("$!")
answers() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "http://127.0.0.1:$PORT/good" 2>/dev/null; }
wait_until 10 answers || fail "the fixture server does not answer on $PORT"
ok "fixture server on $PORT"

# --- dcistatd --------------------------------------------------------------------

start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $OM_SO
    refresh: $REFRESH
    stale-periods: $STALE
    options:
      timeout: ${TIMEOUT_S}s
      targets:
        - http://127.0.0.1:$PORT/slow name=slow
        - http://127.0.0.1:$PORT/good name=good
        - http://127.0.0.1:$PORT/big name=big
        - http://127.0.0.1:$PORT/bomb name=bomb
      max-body-bytes: $MAX_BODY
EOF
DCISTATD_FIRST_MODULE=openmetrics
start_dcistatd "$config"
wait_dcistatd_ready 10
SNMP_TARGET=unix:$SNMPD_UNIX

# The ids, computed once: a sample is one request.
read -r word hi lo shi slo < <(ids good good_value)
GOOD_VALUE=$DCI_TEXT.5.4.$word.$hi.$lo.1.2.$shi.$slo.2
GOOD_STATUS=$DCI_TEXT.2.4.1.1.$word
read -r word hi lo shi slo < <(ids slow slow_value)
SLOW_VALUE=$DCI_TEXT.5.4.$word.$hi.$lo.1.2.$shi.$slo.2
SLOW_STATUS=$DCI_TEXT.2.4.1.1.$word
value_of() { # TARGET: its TARGET_value's text
	if [ "$1" = good ]; then snmp_get "$GOOD_VALUE"; else snmp_get "$SLOW_VALUE"; fi
}
both_served() { [ "$(value_of good 2>/dev/null)" = 42 ] && [ "$(value_of slow 2>/dev/null)" = 7 ]; }
wait_until 10 both_served || fail "good '$(value_of good)', slow '$(value_of slow)', expected 42 and 7"
ok "both targets served (good_value 42, slow_value 7), status '$(status_of good 4)' and '$(status_of slow 4)'"

# The bounds hold for scrapes run at once: a body past max-body-bytes ends
# its transfer, a gzip bomb is read as sent (no compression is asked for,
# none undone) and refused by the parser.
big_status=$(status_of big 4)
[ "$big_status" = "scrape failed: body of more than $MAX_BODY bytes" ] ||
    fail "big: status '$big_status'"
bomb_status=$(status_of bomb 4) bomb_bytes=$(status_of bomb 8)
[[ $bomb_status == "refused: line 1: "* ]] || fail "bomb: status '$bomb_status'"
[ "$bomb_bytes" -lt "$MAX_BODY" ] || fail "bomb: body_bytes $bomb_bytes: it was decompressed"
ok "beside them: big '$big_status', bomb '$bomb_status' ($bomb_bytes bytes read as sent)"

# --- the slow target drips -------------------------------------------------------------

touch "$FIXTURE/drip" || fail "cannot create $FIXTURE/drip"
count_of() { # TARGET DATUM: a count of the status class, 0 when absent
	local value
	value=$(status_of "$1" "$2" 2>/dev/null) && [[ $value =~ ^[0-9]+$ ]] || value=0
	printf '%s\n' "$value"
}
good_scrapes=$(count_of good 10)
slow_scrapes=$(count_of slow 10)
began=$(now_ms)
served=0 late_seen=0 good_bad=
for _ in $(seq "$SAMPLES"); do
	sleep 0.5 # half a refresh
	# good_value, good's status text, slow's status text
	mapfile -t sample < <(snmp_get "$GOOD_VALUE" "$GOOD_STATUS.4" "$SLOW_STATUS.4" 2>/dev/null)
	[ "${sample[0]:-}" = 42 ] && served=$((served + 1))
	[[ ${sample[2]:-} == "late: "* ]] && late_seen=$((late_seen + 1))
	[ "${sample[1]:-}" = ok ] || good_bad="$good_bad '${sample[1]:-}'"
done
window=$(($(now_ms) - began))
good_scrapes=$(($(count_of good 10) - good_scrapes))
slow_scrapes=$(($(count_of slow 10) - slow_scrapes))
note "while slow drips: good served in $served of $SAMPLES samples, scraped $good_scrapes times in $window ms (refresh $REFRESH s); slow scraped $slow_scrapes times, seen late in $late_seen samples"
[ "$served" = "$SAMPLES" ] ||
    fail "the good target was served in $served of $SAMPLES samples while the slow one dripped"
[ -z "$good_bad" ] || fail "the good target's status while the slow one dripped:$good_bad"
[ "$(status_of good 3)" = yes ] || fail "good: up '$(status_of good 3)', expected yes"
# A refresh at least every 2 periods (generous for a loaded machine).
[ "$good_scrapes" -ge $((window / (2000 * REFRESH))) ] ||
    fail "good scraped $good_scrapes times in $window ms: refreshes are held"
ok "the good target served in $served of $SAMPLES samples, status ok, $good_scrapes scrapes in $window ms"

[ "$late_seen" -gt 0 ] || fail "the slow target's status never said late: '$(status_of slow 4)'"
late=$(count_of slow 12)
[ "$late" -ge 2 ] || fail "slow: late $late after $window ms of dripping"
# One scrape at a time, each ended by its timeout (or the body's end).
[ "$slow_scrapes" -le $((window / (TIMEOUT_S * 1000) + 2)) ] ||
    fail "slow scraped $slow_scrapes times in $window ms with a ${TIMEOUT_S} s timeout: a late scrape was started again"
late_status() { [[ $(status_of slow 4 2>/dev/null) == "late: "* ]]; }
wait_until 5 late_status || fail "slow: status '$(status_of slow 4)', expected late"
slow_status=$(status_of slow 4)
[ "$(status_of slow 3)" = no ] || fail "slow: up '$(status_of slow 3)' while late, expected no"
slow_gone() { ! value_of slow >/dev/null 2>&1; }
wait_until $((STALE * REFRESH + 3)) slow_gone || fail "slow_value still served ($(value_of slow)) while late"
ok "the slow target: status '$slow_status', up no, late $late refreshes, $slow_scrapes scrapes, its rows withdrawn"

grep -q 'target slow: late: ' "$DCISTATD_LOG" || fail "the late target is not logged"
if grep -q 'refresh took' "$DCISTATD_LOG"; then
	fail "a refresh outlasted its period: $(grep 'refresh took' "$DCISTATD_LOG" | head -n 1)"
fi
ok "no refresh outlasted its period of $REFRESH s"

# The slow target answers again: served again, its status ok.
rm -f "$FIXTURE/drip"
slow_back() { [ "$(value_of slow 2>/dev/null)" = 7 ] && [ "$(status_of slow 4 2>/dev/null)" = ok ]; }
wait_until $((TIMEOUT_S + 5)) slow_back || fail "slow not served again: status '$(status_of slow 4)'"
ok "the slow target answers again: slow_value 7, status ok"

stop_dcistatd
stop_snmpd
exit 0
