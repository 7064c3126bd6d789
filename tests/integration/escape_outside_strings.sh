#!/bin/bash
# escape_outside_strings.sh -- what others wrote never reaches a terminal or
# a log line as it is: every string from outside the process goes through
# text/escape.h. Hostile strings hold a newline forging a log line, ESC
# sequences (clear screen, set title, OSC 52 writing the clipboard), the C1
# controls CSI and OSC as raw bytes (0x9b, 0x9d) and as UTF-8 (U+009B,
# U+009D), and DEL. The test asserts:
#   - dcistat -H against a fake agent (snmp_liar.py hostile) whose titles,
#     descriptions, instance labels and string values are hostile: 10
#     commands (text, --json, --openmetrics, watch) exit 0, and neither
#     stdout nor stderr holds a byte below 0x20 other than newline and
#     tab, DEL, a C1 control (raw or as UTF-8) or a byte that is no UTF-8;
#     the text shows the strings escaped ("\x1b[2J"); JSON decodes to the
#     string the agent sent (bytes that are no UTF-8 as U+FFFD, as
#     json.h says); OpenMetrics passes the strict parser;
#   - the same agent with a hostile supplier module, class label, unit name
#     or time text (snmp_liar.py hostile-module, -class, -unit, -time):
#     dcistat exits 1 with one line on stderr, quoting it escaped, and
#     nothing else;
#   - an endless dciSupplierTable and an endless dciClassTable
#     (snmp_liar.py endless, endless-classes) end at their 65,536-row
#     bound, reported, in less than a second of dcistat's user CPU time
#     (the walks are linear; time, not the wall clock, which a loaded
#     machine stretches, and the user's: a sanitizer's system time is not
#     the walk's);
#   - a supplier segment whose class label is hostile: dcistatd's log and
#     dcistat's stderr (the local source) refuse it in lines that quote
#     the label escaped: no forged "warning: agent: FORGED LINE" line, no
#     control byte.
#
# Needs root (snmpd's sockets; exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
COMMANDS=$top_builddir/tests/supplier_commands
[ -x "$COMMANDS" ] || fail "$COMMANDS not built (run make check)"
require_root
require_cmd snmpd snmpget
require_built
require_openmetrics_parser
SUPPLIERS_SO=$(provider_so suppliers)
[ -f "$SUPPLIERS_SO" ] || fail "$SUPPLIERS_SO not built (run make)"

# inert FILE...: fails naming the file and the first byte a terminal or a
# log reader would act on: a control byte other than newline and tab, DEL,
# a C1 control as UTF-8, or a byte that is no UTF-8 (a raw C1 among them).
inert() {
	"$PYTHON" - "$@" <<'PY'
import sys
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    text = data.decode("utf-8", errors="surrogateescape")
    for at, ch in enumerate(text):
        code = ord(ch)
        if ((code < 0x20 and ch not in "\n\t") or code == 0x7f or
                0x80 <= code <= 0x9f or 0xdc80 <= code <= 0xdcff):
            what = ("byte 0x%02x" % (code - 0xdc00)) if code >= 0xdc80 else ("U+%04X" % code)
            print("# %s: %s at character %d: %r" % (path, what, at, text[max(0, at - 20):at + 20]))
            sys.exit(1)
PY
}

# The escaped form of the hostile strings' start, as text shows it.
SHOWN='x\x0awarning: agent: FORGED LINE\x1b[2J\x1b]0;title\x07\x1b]52;c;ZXZpbA==\x07\x9b31m\x9d0;t\x07\xc2\x9b1m\xc2\x9d0;u\x07\x7fend'

liar_port=$(free_udp_port) || fail "no free UDP port"
liar=
# start_liar SCENARIO / stop_liar: snmp_liar.py on $liar_port.
start_liar() {
	rm -f "$TMP_DIR/liar.ready"
	"$PYTHON" "$here/snmp_liar.py" "$liar_port" "$1" "$TMP_DIR/liar.ready" &
	liar=$!
	_lib_pids+=("$liar")
	wait_until 10 test -e "$TMP_DIR/liar.ready" ||
	    fail "snmp_liar.py does not listen on $liar_port"
}
stop_liar() {
	kill "$liar" 2>/dev/null
	wait "$liar" 2>/dev/null
	wait_until 5 _lib_gone "$liar" || fail "snmp_liar.py (pid $liar) did not stop"
}
# remote NAME ARG...: dcistat -H the fake agent ARG..., stdout to
# $TMP_DIR/NAME.out, stderr to $TMP_DIR/NAME.err; sets STATUS.
STATUS=
remote() {
	local name=$1
	shift
	"$DCISTAT" -H "127.0.0.1:$liar_port" -c public -t 3 -r 0 "$@" \
	    </dev/null >"$TMP_DIR/$name.out" 2>"$TMP_DIR/$name.err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/$name.err" "dcistat -H $*"
}

# --- dcistat -H: output ---------------------------------------------------------------

start_liar hostile
count=0
for command in "suppliers" "classes" "describe disks" "describe cpus" "show" \
    "show cpus" "show --json" "suppliers --json" "show --openmetrics" \
    "watch cpus -i 0.2 -n 2"; do
	name=out${count}
	count=$((count + 1))
	# shellcheck disable=SC2086 # the command's words
	remote "$name" $command
	[ "$STATUS" -eq 0 ] ||
	    fail "dcistat -H (hostile agent) $command: exit $STATUS: $(head -c 300 "$TMP_DIR/$name.err")"
	inert "$TMP_DIR/$name.out" "$TMP_DIR/$name.err" ||
	    fail "dcistat -H (hostile agent) $command wrote a control byte (above)"
	case $command in
	*--json* | *--openmetrics*) ;;
	"describe disks" | suppliers | show | "show cpus" | "watch cpus"*)
		grep -q -F -e "$SHOWN" "$TMP_DIR/$name.out" ||
		    fail "dcistat -H $command does not show the hostile string escaped: $(head -c 600 "$TMP_DIR/$name.out")"
		;;
	esac
done
ok "dcistat -H of a hostile agent: $count commands exit 0, no control, DEL, C1 or non-UTF-8 byte on stdout or stderr, the strings shown escaped"

"$PYTHON" - "$TMP_DIR" "$here" <<'PY' || fail "dcistat -H --json / --openmetrics of a hostile agent (above)"
import json, sys
sys.path.insert(0, sys.argv[2])
from snmp_liar import HOSTILE
from prometheus_client.openmetrics.parser import text_string_to_metric_families
show = json.load(open(sys.argv[1] + "/out6.out"))["tables"]
cpus = [t for t in show if t["name"] == "cpus"][0]
# A string value: the agent's bytes, those that are no UTF-8 as U+FFFD.
assert cpus["rows"][0]["name"] == HOSTILE.decode("utf-8", "replace"), cpus["rows"][0]
# An instance label: as the registry serves it (\xHH, printable ASCII).
label = HOSTILE.decode("latin-1")
expected = "".join(c if 0x20 <= ord(c) < 0x7f and c != "\\" else
                   ("\\\\" if c == "\\" else "\\x%02x" % ord(c)) for c in label)
assert cpus["rows"][0]["instance"] == expected + "2", cpus["rows"][0]
suppliers = json.load(open(sys.argv[1] + "/out7.out"))["tables"][0]["rows"][0]
assert suppliers["title"] == HOSTILE.decode("utf-8", "replace"), suppliers
text = open(sys.argv[1] + "/out8.out", encoding="utf-8").read()
families = list(text_string_to_metric_families(text))
assert families, text
print("# JSON decodes to what the agent sent; OpenMetrics: %d families parsed" % len(families))
PY
ok "dcistat -H --json decodes to the agent's strings, --openmetrics passes the parser"
stop_liar

# --- dcistat -H: errors -----------------------------------------------------------------

for scenario in hostile-module hostile-class hostile-unit hostile-time; do
	start_liar "$scenario"
	for command in suppliers "show --json"; do
		# shellcheck disable=SC2086 # the command's words
		remote err $command
		[ "$STATUS" -eq 1 ] ||
		    fail "dcistat -H ($scenario) $command: exit $STATUS, expected 1: $(head -c 300 "$TMP_DIR/err.err")"
		inert "$TMP_DIR/err.out" "$TMP_DIR/err.err" ||
		    fail "dcistat -H ($scenario) $command wrote a control byte (above)"
		[ "$(wc -l <"$TMP_DIR/err.err")" -eq 1 ] ||
		    fail "dcistat -H ($scenario) $command: not one line on stderr: $(cat "$TMP_DIR/err.err")"
		grep -q -F -e 'x\x0a' "$TMP_DIR/err.err" && grep -q -F -e '\x1b[2J' "$TMP_DIR/err.err" ||
		    fail "dcistat -H ($scenario) $command: the hostile string not quoted escaped: $(cat "$TMP_DIR/err.err")"
		[ ! -s "$TMP_DIR/err.out" ] || fail "dcistat -H ($scenario) $command wrote to stdout"
	done
	note "$scenario: $(cut -c1-160 "$TMP_DIR/err.err")"
	stop_liar
done
ok "dcistat -H: a hostile module, class label, unit or time text is refused in one line quoting it escaped, nothing else written"

# --- dcistat -H: endless tables ---------------------------------------------------------

for pair in endless:suppliers endless-classes:classes; do
	start_liar "${pair%%:*}"
	cpu=$("$PYTHON" - "$DCISTAT" "127.0.0.1:$liar_port" "$TMP_DIR/endless.err" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "wb") as err:
    status = subprocess.call([sys.argv[1], "-H", sys.argv[2], "-c", "public", "-t", "3",
                              "-r", "0", "suppliers"], stdout=subprocess.DEVNULL, stderr=err)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%d %d" % (status, usage.ru_utime * 1000))
PY
	) || fail "cannot run dcistat -H (${pair%%:*})"
	read -r status milliseconds <<<"$cpu"
	check_sanitizer_log "$TMP_DIR/endless.err" "dcistat -H (${pair%%:*})"
	[ "$status" -eq 1 ] || fail "dcistat -H (${pair%%:*}): exit $status, expected 1"
	grep -q "127.0.0.1:$liar_port: too many ${pair#*:} (at .*\.65537)" "$TMP_DIR/endless.err" ||
	    fail "dcistat -H (${pair%%:*}): not stopped at the bound: $(cat "$TMP_DIR/endless.err")"
	[ "$milliseconds" -lt 1000 ] ||
	    fail "dcistat -H (${pair%%:*}): $milliseconds ms of user CPU time to reach the 65,536-row bound (a quadratic walk?)"
	note "${pair%%:*}: the 65,536-row bound reached and reported in $milliseconds ms of dcistat's user CPU time"
	stop_liar
done
ok "an endless dciSupplierTable and dciClassTable end at their 65,536-row bound, reported, in under 1 s of user CPU time"

# --- A hostile segment: dcistatd's log and dcistat's local source ----------------------

RUN=$TMP_DIR/run/suppliers
mkdir -p "$RUN" && chmod 755 "$TMP_DIR/run" "$RUN" || fail "cannot create $RUN"
start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config" 1
cat >>"$config" <<EOF
  - module: $SUPPLIERS_SO
    refresh: 0.2
    options:
      directory: $RUN
EOF
DCISTATD_FIRST_MODULE=
start_dcistatd "$config"
# At most 63 bytes (a segment's label field); its escaped form.
label=$(printf 'x\nwarning: agent: FORGED LINE\033[2J\033]52;c;ZQ==\007\2331m\302\235\177')
shown='x\x0awarning: agent: FORGED LINE\x1b[2J\x1b]52;c;ZQ==\x07\x9b1m\xc2\x9d\x7f'
coproc APP { "$COMMANDS" "$RUN" hostileapp 4243 "$label"; }
_lib_pids+=("$APP_PID")
read -r -t 10 ready <&"${APP[0]}" && [ "$ready" = ready ] ||
    fail "supplier_commands did not start: $ready"
refused() { grep -q 'class refused' "$DCISTATD_LOG"; }
wait_until 10 refused || fail "dcistatd did not refuse the hostile class: $(tail -n 5 "$DCISTATD_LOG")"
# The local source loads the same provider in dcistat itself.
cat >"$TMP_DIR/local.yaml" <<EOF
providers:
  - module: $SUPPLIERS_SO
    options:
      directory: $RUN
EOF
"$DCISTAT" -c "$TMP_DIR/local.yaml" --insecure-paths classes \
    </dev/null >"$TMP_DIR/local.out" 2>"$TMP_DIR/local.err"
check_sanitizer_log "$TMP_DIR/local.err" "dcistat -c (local source)"
echo quit >&"${APP[1]}"
stop_dcistatd
for log in "$DCISTATD_LOG" "$TMP_DIR/local.err"; do
	inert "$log" || fail "$log holds a control byte (above)"
	if grep -E -n '^(dcistat: )?warning: agent: FORGED' "$log"; then
		fail "$log: a line forged by the segment's class label (above)"
	fi
	grep -q -F -e "class refused: class 3.4243.17: label \"$shown\"" "$log" ||
	    fail "$log: no refusal quoting the label escaped: $(grep -a refused "$log" | head -c 600)"
done
note "dcistatd: $(grep -a -m 1 'class refused' "$DCISTATD_LOG" | cut -c1-160)"
ok "a segment's hostile class label: refused in dcistatd's log and dcistat's stderr quoting it escaped, no forged line, no control byte"
