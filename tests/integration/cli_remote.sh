#!/bin/bash
# cli_remote.sh -- dcistat(1) with the remote source (-H): a private snmpd
# master on a free loopback port and the real dcistatd serving netif and
# the example provider (fixed values) in a private network namespace;
# dcistat reads DCI-STATS-MIB from it with GETBULK, by numeric OIDs, and
# its output is compared with the local source's (-c, the same
# configuration loaded in dcistat itself). The test asserts:
#   - `show example --json`: the same tables, columns and rows, every value
#     equal except `refreshes` (each process counts its own provider's
#     refreshes) and `monotonic_absolute` (each process's provider started
#     at its own moment), which keep their form;
#   - `show netif --json`: the same interfaces, ids, labels, and static
#     datums; each counter of the remote reading between the two local
#     readings taken around it (the first one more than netif's refresh
#     interval before, as the agent serves its last snapshot);
#   - `show evcnt --json`: the same instances, labels and parents (the
#     RowPointers of dciInstanceParent decoded);
#   - `suppliers` as JSON (with a provider that fails to load, shown
#     failed with its reason): identical in modules, titles, versions,
#     status and failures; not the reset stamps and times, which belong to
#     each process's own initialisation (the remote one is checked against
#     dciSupplierReset instead);
#   - `classes` and `describe CLASS` of netif, devstat, evcnt and example,
#     as text, --json and --openmetrics: byte for byte the local source's
#     output (descriptions, level types and sizes and ST_UNUSED datums
#     read from DCI-STATS-MIB revision 202611251200Z);
#   - `show --openmetrics` and `suppliers --openmetrics` of the remote
#     source pass prometheus_client's OpenMetrics parser;
#   - `watch netif -n 2 --json` through the agent: an interval each, every
#     rate a number (no false discontinuity between the agent's readings);
#   - a fake agent's malformed answers (snmp_liar.py: an OID going
#     backwards, a length prefix out of bounds, a value of the wrong type;
#     and what Net-SNMP drops: a sub-identifier above 32 bits, an
#     over-long OID, a cut datagram) end in a clear message and exit 1;
#   - a fake agent of revision 202611250000Z
#     (snmp_liar.py older, without the class description and level
#     columns) is read as before: classes, describe and show work, with an
#     empty description and levels of type UNKNOWN;
#   - show CLASS walks only that class's rows (snmp_liar.py's log of
#     where each GETBULK starts), and watch picks up its class registered
#     again with another datum (the catalogue is read again when a class's
#     datum count or a supplier's discontinuity time changes, or the agent
#     restarted);
#   - SNMP options without -H, --config with -H, -r and -t out of bounds
#     are bad command lines (exit 2);
#   - SNMPv3 authPriv (SHA, AES) gives the same screen as v2c;
#   - a port where nothing listens, a wrong community, -v 1, a v3 user
#     the agent does not know and a wrong v3 passphrase give a clear
#     message and exit 1.
#
# Needs root and `ip netns` (exit 77 otherwise).

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
require_root
require_cmd ip snmpd snmpget
require_built
require_openmetrics_parser
make_netns
started=$(now_ms)

ns_run ip link add dciremote type veth peer name dcipeer ||
    skip "cannot create a veth pair"
ns_run ip link set dciremote mtu 1234 || fail "cannot set the MTU of dciremote"

# An SNMPv3 user with authentication and privacy, for -v 3.
SNMPD_EXTRA_CONF="createUser dcitest SHA dcitest-auth AES dcitest-priv
rouser dcitest priv"
start_snmpd
config=$TMP_DIR/dcistat.yaml
write_agent_config "$config" 1
cat >>"$config" <<YAML
  - module: $(provider_so netif)
    refresh: 0.2
  - module: $(provider_so example)
    options:
      instances: 3
      churn_seconds: 0
  - module: $(provider_so evcnt)
  - module: $(provider_so devstat)
  - module: $TMP_DIR/nothere.so
YAML
start_dcistatd "$config"
wait_dcistatd_ready 10
TARGET=127.0.0.1:$SNMPD_PORT

# local ARG... / remote ARG...: dcistat in the namespace with each source,
# stdout to $TMP_DIR/out, stderr to $TMP_DIR/err; set STATUS.
STATUS=
local_run() {
	ns_run "$DCISTAT" -c "$config" "$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/err" "dcistat -c $*"
}
remote_run() {
	ns_run "$DCISTAT" -H "$TARGET" -c public "$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/err" "dcistat -H $*"
}
# saved NAME SOURCE ARG...: runs, expects success, keeps stdout as NAME.
# The configuration names a provider that does not exist (nothere.so), so
# the local source shows the rest and exits 1 having said so, and only
# that; the remote source exits 0.
saved() {
	local name=$1 source=$2 expected=0
	shift 2
	[ "$source" = local ] && expected=1
	"${source}_run" "$@"
	[ "$STATUS" -eq "$expected" ] ||
	    fail "dcistat ($source) $* exited $STATUS, expected $expected: $(head -n 3 "$TMP_DIR/err")"
	if [ "$source" = local ] &&
	    { [ "$(wc -l <"$TMP_DIR/err")" -ne 1 ] || ! grep -q 'nothere.so": No such file' "$TMP_DIR/err"; }; then
		fail "dcistat (local) $*: stderr is not the one line on nothere.so: $(head -n 3 "$TMP_DIR/err")"
	fi
	cp "$TMP_DIR/out" "$TMP_DIR/$name"
}

# --- show example: fixed values ----------------------------------------------------

saved example.local local show example --json
saved example.remote remote show example --json
"$PYTHON" - "$TMP_DIR/example.local" "$TMP_DIR/example.remote" <<'PY' || fail "show example --json: the sources differ (above)"
import json, sys
local, remote = (json.load(open(p)) for p in sys.argv[1:3])
moving = {"refreshes", "monotonic_absolute"}
failures = 0
(lt,), (rt,) = local["tables"], remote["tables"]
for key in ("name", "title", "columns"):
    if lt[key] != rt[key]:
        print("FAIL: %s: %r != %r" % (key, lt[key], rt[key])); failures += 1
if len(lt["rows"]) != 3 or len(rt["rows"]) != 3:
    print("FAIL: %d and %d rows" % (len(lt["rows"]), len(rt["rows"]))); failures += 1
compared = 0
for lrow, rrow in zip(lt["rows"], rt["rows"]):
    if sorted(lrow) != sorted(rrow):
        print("FAIL: fields %r != %r" % (sorted(lrow), sorted(rrow))); failures += 1
    for field in lrow:
        if field in moving:
            continue
        compared += 1
        if lrow[field] != rrow.get(field):
            print("FAIL: %s %s: local %r, remote %r" % (lrow["instance"], field, lrow[field], rrow.get(field))); failures += 1
    if not (isinstance(rrow["refreshes"], int) and rrow["refreshes"] >= 1):
        print("FAIL: refreshes %r" % rrow["refreshes"]); failures += 1
    if not rrow["monotonic_absolute"].endswith(" seconds after boot"):
        print("FAIL: monotonic_absolute %r" % rrow["monotonic_absolute"]); failures += 1
print("# %d values compared" % compared)
sys.exit(1 if failures else 0)
PY
ok "show example --json: the remote source gives the local one's tables and values (every type, format and presentation)"

saved example.text.local local show example unit2
saved example.text.remote remote show example unit2
diff <(grep -v -e refreshes -e 'after boot' "$TMP_DIR/example.text.local") \
    <(grep -v -e refreshes -e 'after boot' "$TMP_DIR/example.text.remote") >"$TMP_DIR/diff" ||
    { sed 's/^/#   /' "$TMP_DIR/diff"; fail "show example unit2 (text): the sources differ (above)"; }
ok "show example unit2 (text): the same screen from both sources"

# SNMPv3 authPriv gives the same as v2c (the fixed values of the example).
ns_run "$DCISTAT" -H "$TARGET" -v 3 -u dcitest -l authPriv -a SHA -A dcitest-auth \
    -x AES -X dcitest-priv show example unit2 </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err" ||
    fail "dcistat -v 3 authPriv: $(head -n 3 "$TMP_DIR/err")"
diff <(grep -v -e refreshes "$TMP_DIR/example.text.remote") <(grep -v -e refreshes "$TMP_DIR/out") >"$TMP_DIR/diff" ||
    { sed 's/^/#   /' "$TMP_DIR/diff"; fail "show example unit2 over SNMPv3 differs from v2c (above)"; }
ok "-v 3 -l authPriv -a SHA -x AES: the same screen as over v2c"
expect_v3_failure() {
	ns_run "$DCISTAT" -H "$TARGET" -v 3 -u dcitest -l authPriv -a SHA -A "$1" \
	    -x AES -X dcitest-priv -t 0.5 -r 0 show </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	if [ "$STATUS" -ne 1 ] || ! grep -q "$TARGET: " "$TMP_DIR/err"; then
		fail "a wrong v3 passphrase: exit $STATUS, '$(head -n 2 "$TMP_DIR/err")'"
	fi
	ok "a wrong v3 passphrase: exit 1, '$(head -n 1 "$TMP_DIR/err")'"
}
expect_v3_failure wrong-passphrase

# --- show netif: static datums equal, counters between two local readings ----------

# The agent's snapshot is at most 0.2 s (netif's refresh) older than the
# remote reading: the first local reading is made well before it.
saved netif.before local show netif --json
sleep 0.5
saved netif.remote remote show netif --json
saved netif.after local show netif --json
"$PYTHON" - "$TMP_DIR"/netif.before "$TMP_DIR"/netif.remote "$TMP_DIR"/netif.after <<'PY' || fail "show netif --json: the sources differ (above)"
import json, sys
before, remote, after = (json.load(open(p))["tables"][0] for p in sys.argv[1:4])
failures = 0
if before["columns"] != remote["columns"] or before["title"] != remote["title"]:
    print("FAIL: columns or title differ"); failures += 1
roles = {c["name"]: c["role"] for c in before["columns"]}
rows = [{r["instance"]: r for r in t["rows"]} for t in (before, remote, after)]
if not (sorted(rows[0]) == sorted(rows[1]) == sorted(rows[2])) or len(rows[1]) != 3:
    print("FAIL: interfaces %r %r %r" % tuple(sorted(r) for r in rows)); failures += 1
for name, row in rows[1].items():
    for field, value in row.items():
        low, high = rows[0][name].get(field), rows[2][name].get(field)
        if roles.get(field) == "counter":
            if not (isinstance(value, int) and low <= value <= high):
                print("FAIL: %s %s: remote %r not within %r..%r" % (name, field, value, low, high)); failures += 1
        elif field == "last_change":
            continue  # when each process's provider saw a change
        elif value != low:
            print("FAIL: %s %s: local %r, remote %r" % (name, field, low, value)); failures += 1
print("# %d interfaces, %d fields each" % (len(rows[1]), len(before["columns"])))
sys.exit(1 if failures else 0)
PY
ok "show netif --json: same interfaces and static datums, counters within the local readings"

# --- show evcnt: instances and their parents -------------------------------------

saved evcnt.local local show evcnt --json
saved evcnt.remote remote show evcnt --json
"$PYTHON" - "$TMP_DIR/evcnt.local" "$TMP_DIR/evcnt.remote" <<'PY' || fail "show evcnt --json: the sources differ (above)"
import json, sys
(local,), (remote,) = (json.load(open(p))["tables"] for p in sys.argv[1:3])
assert local["columns"] == remote["columns"], "columns differ"
def keys(table):
    return sorted((r["id"], r["instance"], r.get("parent")) for r in table["rows"])
assert keys(local) == keys(remote), (keys(local)[:5], keys(remote)[:5])
parents = [k for k in keys(remote) if k[2] is not None]
assert parents, "no instance with a parent"
print("# %d instances, %d with a parent, alike" % (len(remote["rows"]), len(parents)))
PY
ok "show evcnt --json: the same instances and parents (dciInstanceParent decoded)"

# --- suppliers ---------------------------------------------------------------------

saved suppliers.local local suppliers --json
saved suppliers.remote remote suppliers --json
reset=$(snmp_get "$DCI_ARC.1.1.1.7.2" 2>/dev/null | tr -d ' "' | tr 'A-F' 'a-f')
"$PYTHON" - "$TMP_DIR" "$reset" <<'PY' || fail "suppliers: the sources differ (above)"
import json, sys
directory, reset = sys.argv[1], sys.argv[2]
def load(name):
    return json.load(open("%s/%s" % (directory, name)))["tables"]
failures = 0
def same(what, left, right):
    global failures
    if left != right:
        print("FAIL: %s: local %r, remote %r" % (what, left, right)); failures += 1
# Everything the MIB carries; times move, stamps are per process.
(ls,), (rs,) = load("suppliers.local"), load("suppliers.remote")
same("supplier columns", ls["columns"], rs["columns"])
for lrow, rrow in zip(ls["rows"], rs["rows"]):
    for field in ("module", "title", "version", "status", "failure"):
        same("supplier %s" % field, lrow.get(field), rrow.get(field))
same("suppliers", len(ls["rows"]), len(rs["rows"]))
failed = [r for r in rs["rows"] if r["status"] == "failed"]
if len(failed) != 1 or "nothere.so" not in failed[0]["failure"]:
    print("FAIL: the provider that fails to load: %r" % failed); failures += 1
stamp = rs["rows"][1]["reset_stamp"]
same("example's reset stamp against dciSupplierReset.2", reset, stamp)
sys.exit(1 if failures else 0)
PY
ok "suppliers --json: identical in what DCI-STATS-MIB carries"

# --- classes and describe: byte for byte -----------------------------------------------

# same_output WHAT ARG...: the local and remote outputs of ARG... are equal.
same_output() {
	local what=$1
	shift
	saved catalog.local local "$@"
	saved catalog.remote remote "$@"
	[ -s "$TMP_DIR/catalog.local" ] || fail "dcistat $what: no output"
	cmp -s "$TMP_DIR/catalog.local" "$TMP_DIR/catalog.remote" || {
		diff "$TMP_DIR/catalog.local" "$TMP_DIR/catalog.remote" | head -n 20 | sed 's/^/#   /'
		fail "dcistat $what: the remote source's output differs from the local one's (above)"
	}
}
compared=0
for format in text json openmetrics; do
	options=()
	[ "$format" = text ] || options=("--$format")
	same_output "classes $format" classes "${options[@]}"
	compared=$((compared + 1))
	for class in netif devstat evcnt example; do
		same_output "describe $class $format" describe "$class" "${options[@]}"
		compared=$((compared + 1))
	done
done
# What revision 202611251200Z brought is there to be compared.
saved describe.example remote describe example --json
"$PYTHON" - "$TMP_DIR/describe.example" <<'PY' || fail "describe example --json over SNMP lacks what the MIB now carries (above)"
import json, sys
classes, levels, datums = json.load(open(sys.argv[1]))["tables"]
(row,) = classes["rows"]
assert row["description"], row
assert all(r["itype"] != "UNKNOWN" for r in levels["rows"]), levels["rows"]
assert [r for r in datums["rows"] if r["type"] == "ST_UNUSED"], "no ST_UNUSED datum"
PY
ok "classes and describe netif, devstat, evcnt, example: $compared outputs (text, --json, --openmetrics) byte for byte the local source's"

# --- OpenMetrics and watch ------------------------------------------------------------

for command in show suppliers; do
	saved om.txt remote "$command" --openmetrics
	"$PYTHON" - "$TMP_DIR/om.txt" "$command" <<'PY' || fail "dcistat -H $command --openmetrics (above)"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
families = {f.name: f for f in text_string_to_metric_families(text)}
assert text.endswith("# EOF\n")
if sys.argv[2] == "show":
    counter = families["dcistat_example_uint64_counter_bytes"]
    values = {s.labels["dci_instance"]: s.value for s in counter.samples}
    assert counter.type == "counter" and values["unit2"] == 10000000000000000000, values
    mtu = {s.labels["dci_instance"]: s.value for s in families["dcistat_netif_mtu_bytes"].samples}
    assert mtu["dciremote"] == 1234, mtu
else:
    modules = sorted(s.labels["module"].rsplit("/", 1)[-1] for s in families["dcistat_suppliers"].samples)
    assert modules == ["devstat", "evcnt", "example", "netif", "nothere.so"], modules
print("# %s: %d families parsed" % (sys.argv[2], len(families)))
PY
	ok "dcistat -H $command --openmetrics passes the OpenMetrics parser"
done

saved watch.json remote watch netif -i 0.5 -n 2 --json
"$PYTHON" - "$TMP_DIR/watch.json" <<'PY' || fail "dcistat -H watch netif --json (above)"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert len(lines) == 2, "%d intervals" % len(lines)
for document in lines:
    rows = document["tables"][0]["rows"]
    assert sorted(r["instance"] for r in rows) == ["dcipeer", "dciremote", "lo"], rows
    # No discontinuity between the agent's readings: every rate is a
    # number (a gap would be null), and lo carries the SNMP traffic.
    for row in rows:
        for field in ("rx_packets_per_second", "tx_bytes_per_second"):
            assert isinstance(row[field], (int, float)), (row["instance"], field, row[field])
lo = [r for r in lines[1]["tables"][0]["rows"] if r["instance"] == "lo"][0]
assert lo["rx_packets_per_second"] > 0, lo
PY
ok "dcistat -H watch netif -n 2 --json: two intervals through the agent, rates without gaps"

# --- failures --------------------------------------------------------------------------

# expect_failure WHAT PATTERN ARG...: dcistat exits 1 and says PATTERN.
expect_failure() {
	local what=$1 pattern=$2
	shift 2
	ns_run "$DCISTAT" "$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/err" "dcistat $*"
	[ "$STATUS" -eq 1 ] || fail "$what: exit $STATUS, expected 1: $(head -n 2 "$TMP_DIR/err")"
	grep -q -- "$pattern" "$TMP_DIR/err" ||
	    fail "$what: message '$(head -n 2 "$TMP_DIR/err")' does not say '$pattern'"
	[ ! -s "$TMP_DIR/out" ] || fail "$what: output on stdout"
	ok "$what: exit 1, '$(head -n 1 "$TMP_DIR/err")'"
}
# Bad command lines: exit 2 with the reason, before any request.
expect_usage() {
	local pattern=$1
	shift
	ns_run "$DCISTAT" "$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	if [ "$STATUS" -ne 2 ] || ! grep -q -- "$pattern" "$TMP_DIR/err"; then
		fail "dcistat $*: exit $STATUS, '$(head -n 1 "$TMP_DIR/err")', expected 2 and '$pattern'"
	fi
	ok "dcistat $*: exit 2, '$(head -n 1 "$TMP_DIR/err")'"
}
expect_usage "are for the remote source: give -H HOST" -v 2c show
expect_usage "are for the remote source: give -H HOST" -u someone show
expect_usage "--config is for the local source" -H "$TARGET" --config "$config" show
expect_usage "-r 101: not a count of retries" -H "$TARGET" -r 101 show
expect_usage "-t 0: not a number of seconds" -H "$TARGET" -t 0 show
expect_usage "option -H needs a value" show -H

silent=$(free_udp_port) || fail "no free UDP port"
expect_failure "nothing listening" "127.0.0.1:$silent: no answer (timeout" \
    -H "127.0.0.1:$silent" -c public -t 0.5 -r 0 show
expect_failure "a wrong community" "$TARGET: no answer (timeout" \
    -H "$TARGET" -c wrong -t 0.5 -r 0 show
expect_failure "SNMPv1" "-v 1 has no GETBULK" -H "$TARGET" -v 1 -c public show
expect_failure "an unknown v3 user" "$TARGET: " \
    -H "$TARGET" -v 3 -u nobody -l authNoPriv -a SHA -A passphrase1 -t 0.5 -r 0 show
# The v3 security options, each refused naming the option at fault before
# any request: the authentication and the privacy protocol and key.
v3=(-H "$TARGET" -v 3 -u dcitest -t 0.5 -r 0)
expect_failure "an unknown authentication protocol" "^dcistat: -a BAD: not an authentication protocol$" \
    "${v3[@]}" -l authNoPriv -a BAD -A passphrase1 show
expect_failure "authNoPriv without -A" "^dcistat: -l authNoPriv needs -A PASSPHRASE$" \
    "${v3[@]}" -l authNoPriv -a SHA show
expect_failure "a short authentication passphrase" "^dcistat: -A: the authentication key cannot be made from it (too short?)$" \
    "${v3[@]}" -l authNoPriv -a SHA -A short show
expect_failure "an unknown privacy protocol" "^dcistat: -x BAD: not a privacy protocol$" \
    "${v3[@]}" -l authPriv -a SHA -A passphrase1 -x BAD -X passphrase2 show
expect_failure "authPriv without -X" "^dcistat: -l authPriv needs -X PASSPHRASE$" \
    "${v3[@]}" -l 3 -a SHA -A passphrase1 show
expect_failure "a short privacy passphrase" "^dcistat: -X: the privacy key cannot be made from it (too short?)$" \
    "${v3[@]}" -l authPriv -a SHA -A passphrase1 -X short show

# A fake agent (snmp_liar.py) answering with malformed DCI-STATS-MIB: what
# dcistat decodes itself is refused with the OID at fault; what Net-SNMP
# cannot parse (a sub-identifier above 2^32, an OID of 200
# sub-identifiers, a cut datagram) is dropped, so it ends as a timeout.
liar_port=$(free_udp_port) || fail "no free UDP port"
liar=
# start_liar SCENARIO / stop_liar: snmp_liar.py on $liar_port in the
# namespace, logging where each GETBULK of the older scenario starts.
start_liar() {
	_lib_set_ns_prefix
	rm -f "$TMP_DIR/liar.ready" "$TMP_DIR/liar.log"
	"${_lib_ns_prefix[@]}" "$PYTHON" "$here/snmp_liar.py" "$liar_port" "$1" \
	    "$TMP_DIR/liar.ready" "$TMP_DIR/liar.log" &
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
for scenario in backwards:malformed long-prefix:malformed wrong-type:malformed \
    wide-subid:timeout long-oid:timeout truncated:timeout; do
	start_liar "${scenario%%:*}"
	# A loaded machine may make the fake agent slow: a malformed answer
	# is given 3 s to come.
	case ${scenario#*:} in
	malformed) pattern="127.0.0.1:$liar_port: malformed answer" timeout=3 ;;
	*) pattern="127.0.0.1:$liar_port: no answer (timeout" timeout=0.5 ;;
	esac
	expect_failure "a fake agent's ${scenario%%:*} answer" "$pattern" \
	    -H "127.0.0.1:$liar_port" -c public -t "$timeout" -r 0 show
	stop_liar
done

# An agent of revision 202611250000Z (no dciClassDescription,
# dciClassLevelTypes or dciClassLevelSizes): read as before, an empty
# description and levels of type UNKNOWN whose sizes split the instance id's
# 3 words as 4 and 8 octets.
start_liar older
# show CLASS reads that class's rows only: its instance columns and its
# per-class table from the class's prefix, nothing of class 1.8 "cpus"
# (but the first column of dciInstanceTable whole, for the instance ids'
# length, which an agent of this revision does not give otherwise).
ns_run "$DCISTAT" -H "127.0.0.1:$liar_port" -c public -t 3 -r 0 show disks \
    </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err" ||
    fail "dcistat -H (an older agent) show disks: $(head -n 3 "$TMP_DIR/err")"
grep -q "cpu" "$TMP_DIR/out" && fail "show disks shows cpus: $(cat "$TMP_DIR/out")"
instances=$DCI_ARC.1.4.1 data=$DCI_ARC.1.6
for column in 2 3 4 5; do
	grep -q -x "${instances#.}.$column.2.1.7" "$TMP_DIR/liar.log" ||
	    fail "show disks: no walk of dciInstanceTable column $column from class 1.7: $(tr '\n' ' ' <"$TMP_DIR/liar.log")"
done
grep -q -x "${data#.}.1.7" "$TMP_DIR/liar.log" ||
    fail "show disks: no walk of dciClassData.1.7: $(tr '\n' ' ' <"$TMP_DIR/liar.log")"
if grep -E -x -e "${instances#.}" -e "${data#.}" -e "(${instances#.}\.[0-9]+|${data#.})\.(2\.)?1\.8(\..*)?" "$TMP_DIR/liar.log"; then
	fail "show disks walked more than class 1.7's rows (above)"
fi
ok "show CLASS reads that class's rows only (its 4 dciInstanceTable columns and dciClassData.1.7, from the class's prefixes)"
for command in "classes --json" "describe disks --json" "show disks --json" "show --json"; do
	# shellcheck disable=SC2086 # the command's words
	ns_run "$DCISTAT" -H "127.0.0.1:$liar_port" -c public -t 3 -r 0 $command \
	    </dev/null >"$TMP_DIR/older.${command// /}" 2>"$TMP_DIR/err" ||
	    fail "dcistat -H (an older agent) $command: $(head -n 3 "$TMP_DIR/err")"
done
"$PYTHON" - "$TMP_DIR" <<'PY' || fail "an older agent's classes, describe or show (above)"
import json, sys
def tables(command):
    return json.load(open("%s/older.%s" % (sys.argv[1], command)))["tables"]
(classes,) = tables("classes--json")
row, cpus = classes["rows"]
assert cpus["class"] == "cpus" and cpus["levels"] == "UNKNOWN(4)", cpus
expected = {"class": "disks", "id": "1.7", "supplier": "older",
            "levels": "UNKNOWN(4) UNKNOWN(8)", "datums": 1, "instances": 1}
assert all(row.get(k) == v for k, v in expected.items()), row
assert row.get("description", "") == "", row
_, levels, datums = tables("describedisks--json")
assert [(r["itype"], r["size"]) for r in levels["rows"]] == [("UNKNOWN", 4), ("UNKNOWN", 8)], levels["rows"]
assert [(r["datum"], r["type"], r["semantics"]) for r in datums["rows"]] == [("reads", "ST_INTEGER32", "counter")], datums["rows"]
(show,) = tables("showdisks--json")
assert [(r["instance"], r["reads"]) for r in show["rows"]] == [("sda", 42)], show["rows"]
disks, cpus = tables("show--json")
assert [(r["instance"], r["reads"]) for r in disks["rows"]] == [("sda", 42)], disks["rows"]
assert [(r["instance"], r["busy"]) for r in cpus["rows"]] == [("cpu0", 7)], cpus["rows"]
PY
ok "an agent of revision 202611250000Z: classes, describe and show as before (no description, UNKNOWN levels of 4 and 8 octets)"

# watch picks up a class registered again after it started: once the fake
# agent's "cpus" has a second datum (its supplier reinitialised), the
# intervals after show it.
rm -f "$TMP_DIR/liar.ready.more"
ns_run "$DCISTAT" -H "127.0.0.1:$liar_port" -c public -t 3 -r 0 watch cpus -i 0.5 -n 4 --json \
    </dev/null >"$TMP_DIR/older.watch" 2>"$TMP_DIR/err" &
watcher=$!
_lib_pids+=("$watcher")
wait_until 10 test -s "$TMP_DIR/older.watch" || fail "watch cpus: no first interval"
touch "$TMP_DIR/liar.ready.more"
wait "$watcher" || fail "watch cpus: exit $?: $(head -n 3 "$TMP_DIR/err")"
"$PYTHON" - "$TMP_DIR/older.watch" <<'PY' || fail "watch cpus did not pick up the class registered again (above)"
import json, sys
intervals = [json.loads(line)["tables"][0] for line in open(sys.argv[1]) if line.strip()]
assert len(intervals) == 4, len(intervals)
columns = [[c["name"] for c in t["columns"]] for t in intervals]
assert "idle" not in columns[0], columns[0]
assert "idle" in columns[-1], columns[-1]
assert intervals[-1]["rows"][0]["idle"] == 93, intervals[-1]["rows"]
print("# columns before: %s; after: %s" % (columns[0], columns[-1]))
PY
ok "watch cpus: the class registered again with another datum is read again, its new datum shown"
stop_liar

note "cli_remote.sh took $(($(now_ms) - started)) ms"
stop_dcistatd
