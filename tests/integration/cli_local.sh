#!/bin/bash
# cli_local.sh -- dcistat(1) with the local source: values against /sys
# and the example provider's documented values, the OpenMetrics output
# through a strict parser, watch rates against /sys deltas, and the
# messages and exit statuses of bad command lines.
#
# In a private network namespace holding lo and a veth pair, one end
# named 'd"q\x' (a quote and a backslash, which the labels of every
# format must escape) with MTU 1234, dcistat loads netif and the example
# provider from the build tree (-c, a configuration of this test). The
# test asserts:
#   - `show netif --json`: an instance per interface of /sys/class/net,
#     labelled with its name (backslash escaped as the registry serves
#     it), whose mtu and statistics/* counters equal sysfs (the
#     namespace is quiet: nothing moves them);
#   - `show evcnt --json`: a parent column naming an instance of the
#     class, each total the sum of its per-CPU children (one read);
#   - `show example unit2` (text and JSON) gives the values documented in
#     src/providers/example/example.c, rendered by the DCI4 rules;
#   - `--openmetrics` of show, suppliers, classes and describe passes
#     prometheus_client's OpenMetrics parser (python3-prometheus-client),
#     with counters as _total samples, units, and the odd label intact;
#     the instance label named dci_instance and octets written as bytes;
#   - `--prometheus` of the same commands passes `promtool check metrics`
#     with no note (when promtool, package prometheus, is installed);
#   - `watch --openmetrics`: an exposition per interval, each valid;
#   - `watch netif -i 1 -n 3 --json` while ping sends 5 echoes to
#     127.0.0.1 after the first interval: the rates times the intervals
#     add up to the /sys deltas of lo over the watch;
#   - a provider that fails to load is reported and shown failed;
#   - bad arguments, an unknown class, datum or instance, and a missing
#     configuration give a clear message and exit 2 (command line) or 1.
#
# Needs root and `ip netns` (exit 77 otherwise).

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

DCISTAT=${DCISTAT:-$top_builddir/src/cli/dcistat}
[ -x "$DCISTAT" ] || fail "$DCISTAT not built (run make)"
require_root
require_cmd ip ping
require_openmetrics_parser
make_netns
started=$(now_ms)

ODD='d"q\x'
ns_run ip link add "$ODD" type veth peer name dcipeer ||
    skip "cannot create a veth pair"
ns_run ip link set "$ODD" mtu 1234 || fail "cannot set the MTU of $ODD"
ns_run ip link set "$ODD" up || fail "cannot bring $ODD up"
# Enough interfaces for netif to read link speeds in one ethtool dump
# (8 or more need one), up, half up and down; a veth reports 10000 Mbit/s
# while up, and sysfs no speed while down.
for pair in 0 1 2 3; do
	ns_run ip link add "spd${pair}a" type veth peer name "spd${pair}b" ||
	    fail "cannot create veth pair spd$pair"
done
for end in spd0a spd0b spd1a spd1b spd2a; do
	ns_run ip link set "$end" up || fail "cannot bring $end up"
done

config=$TMP_DIR/dcistat.yaml
cat >"$config" <<YAML
providers:
  - module: $(provider_so netif)
  - module: $(provider_so evcnt)
  - module: $(provider_so example)
    options:
      instances: 3
      churn_seconds: 0
YAML

# dcistat ARG...: runs dcistat in the namespace, stdout to $TMP_DIR/out,
# stderr to $TMP_DIR/err; sets STATUS. Fails on a sanitizer report.
STATUS=
dcistat() {
	ns_run "$DCISTAT" -c "$config" "$@" </dev/null >"$TMP_DIR/out" 2>"$TMP_DIR/err"
	STATUS=$?
	check_sanitizer_log "$TMP_DIR/err" "dcistat $*"
}
dcistat_ok() {
	dcistat "$@"
	[ "$STATUS" -eq 0 ] ||
	    fail "dcistat $* exited $STATUS: $(head -n 3 "$TMP_DIR/err")"
}

# --- show netif --json against /sys -----------------------------------------

dcistat_ok show netif --json
cp "$TMP_DIR/out" "$TMP_DIR/netif.json"
# shellcheck disable=SC2016 # python, not shell
ns_run "$PYTHON" - "$TMP_DIR/netif.json" <<'PY' || fail "show netif --json differs from /sys (above)"
import json, os, sys
document = json.load(open(sys.argv[1]))
tables = document["tables"]
assert len(tables) == 1 and tables[0]["name"] == "netif", tables
rows = {row["name"]: row for row in tables[0]["rows"]}
names = sorted(os.listdir("/sys/class/net"))
assert sorted(rows) == names, (sorted(rows), names)
failures = 0
for name in names:
    row = rows[name]
    # The label is the name, a backslash escaped as "\\".
    if row["instance"] != name.replace("\\", "\\\\"):
        print("FAIL: label %r of %r" % (row["instance"], name)); failures += 1
    index = int(open("/sys/class/net/%s/ifindex" % name).read())
    if row["id"] != str(index):
        print("FAIL: id %r of %s, ifindex %d" % (row["id"], name, index)); failures += 1
    mtu = int(open("/sys/class/net/%s/mtu" % name).read())
    if row["mtu"] != mtu:
        print("FAIL: mtu %r of %s, /sys %d" % (row["mtu"], name, mtu)); failures += 1
    try:
        speed = int(open("/sys/class/net/%s/speed" % name).read())
        speed = speed if speed >= 0 else None
    except OSError:
        speed = None
    if row.get("speed") != speed:
        print("FAIL: speed %r of %s, /sys %r" % (row.get("speed"), name, speed)); failures += 1
    checked = 0
    directory = "/sys/class/net/%s/statistics" % name
    for counter in sorted(os.listdir(directory)):
        if counter not in row:
            continue
        value = int(open(os.path.join(directory, counter)).read())
        checked += 1
        if row[counter] != value:
            print("FAIL: %s %s %r, /sys %d" % (name, counter, row[counter], value)); failures += 1
    if checked < 20:
        print("FAIL: only %d counters of %s compared" % (checked, name)); failures += 1
    print("# %s: id %s, mtu %d, speed %s, %d counters equal /sys" % (name, row["id"], mtu, speed, checked))
sys.exit(1 if failures else 0)
PY
ok "show netif --json: every interface's id, label, mtu, speed (one ethtool dump) and counters equal /sys"
# Fewer than 8 interfaces: each speed read from sysfs.
cat >"$TMP_DIR/few.yaml" <<YAML
providers:
  - module: $(provider_so netif)
    options:
      include: [lo, spd0a, spd2a, spd2b, spd3a]
YAML
ns_run "$DCISTAT" -c "$TMP_DIR/few.yaml" show netif -d speed </dev/null >"$TMP_DIR/few.out" 2>&1 ||
    fail "dcistat show netif (few interfaces) failed: $(head -n 3 "$TMP_DIR/few.out")"
few=$(awk 'NR > 2 { printf "%s=%s ", $1, $3 }' "$TMP_DIR/few.out")
expected=
for name in lo spd0a spd2b spd2a spd3a; do # by ifIndex
	speed=$(ns_run cat "/sys/class/net/$name/speed" 2>/dev/null) || speed=-
	case $speed in -*) speed=- ;; esac
	expected="$expected$name=$speed "
done
{ [ "$few" = "$expected" ] && [ "$few" != "${few/=1/}" ]; } ||
    fail "speeds of 5 interfaces (from sysfs): $few, /sys: $expected"
ok "5 interfaces (speeds from sysfs): $few as /sys"


# --- show evcnt: instances with parents ---------------------------------------------

dcistat_ok show evcnt --json
"$PYTHON" - "$TMP_DIR/out" <<'PY' || fail "show evcnt --json: parents (above)"
import json, sys
table, = json.load(open(sys.argv[1]))["tables"]
assert [c["name"] for c in table["columns"][:3]] == ["instance", "id", "parent"], table["columns"][:3]
rows = {row["id"]: row for row in table["rows"]}
children = {}
for row in rows.values():
    if row["parent"] is not None:
        assert row["parent"] in rows, row
        children.setdefault(row["parent"], []).append(row["count"])
assert children, "no instance has a parent"
for parent, counts in children.items():
    assert rows[parent]["parent"] is None, rows[parent]
    assert rows[parent]["count"] == sum(counts), (rows[parent], counts)
print("# evcnt: %d instances, %d totals with per-CPU children" % (len(rows), len(children)))
PY
ok "show evcnt --json: each per-CPU count names its total as parent; totals are the sums"

# --- show example: the documented values --------------------------------------

dcistat_ok show example unit2 --raw -d bool_yes_no,inverted_always_never,int16_hex,uint32_dotted,int64_hex,uint64_counter,ip_address,econet_address,no_mac_address,fivebyte_relative,derived_average,derived_by_zero
expected='example (class 2.1, 3 instances)
instance  id  bool_yes_no  inverted_always_never  int16_hex  uint32_dotted           int64_hex        uint64_counter  ip_address  econet_address  no_mac_address  fivebyte_relative  derived_average  derived_by_zero
unit2     2            no                 always     0xfffe      192.0.2.1  0xfffffffffffffffe  10000000000000000000  192.0.2.1   1.254           none            123.45 seconds                1.29                -'
[ "$(cat "$TMP_DIR/out")" = "$expected" ] ||
    fail "show example unit2: got
$(cat "$TMP_DIR/out")
expected
$expected"
ok "show example unit2 --raw (text): the DCI4 presentation of each documented value, '-' for a value the derivation has none of"
# For people (no --raw): a large number with an SI prefix, a hexadecimal
# one as the provider presents it, no escape sequence off a terminal.
dcistat_ok show example unit2 -d uint64_counter,int64_hex,uint32_dotted
expected='example (class 2.1, 3 instances)
instance  id  uint64_counter           int64_hex  uint32_dotted
unit2     2            10.0E  0xfffffffffffffffe      192.0.2.1'
[ "$(cat "$TMP_DIR/out")" = "$expected" ] ||
    fail "show example unit2 (human): got
$(cat "$TMP_DIR/out")
expected
$expected"
dcistat_ok show example unit2 -d uint64_counter --color always
grep -q $'^\e\[1minstance  id  uint64_counter\e\[0m$' "$TMP_DIR/out" ||
    fail "--color always: the header is not bold: $(od -c "$TMP_DIR/out" | head -n 3)"
[ "$(grep -c $'\e' "$TMP_DIR/out")" = 2 ] || fail "--color always: escapes beside the title and header"
ok "show example unit2: 10.0E for 10^19 without --raw, hexadecimal kept; --color always: bold title and header only"

dcistat_ok show example 2 --json -d text,int8_decimal,uint64_counter,derived_average,derived_signed,ip_address,bool_on_off
"$PYTHON" - "$TMP_DIR/out" <<'PY' || fail "show example 2 --json: values differ (above)"
import json, sys
row, = json.load(open(sys.argv[1]))["tables"][0]["rows"]
expected = {"instance": "unit2", "id": "2", "text": "Hello, world",
    "int8_decimal": -2, "uint64_counter": 10000000000000000000,
    "derived_average": 1.29, "derived_signed": -252,
    "ip_address": "192.0.2.1", "bool_on_off": 1}
if row != expected:
    print("FAIL: %r\n  expected %r" % (row, expected)); sys.exit(1)
PY
ok "show example 2 --json (instance by id): exact numbers (2^64 range, signed, hundredths), text as strings"

# --- OpenMetrics through a strict parser ----------------------------------------

for command in "show" "suppliers" "classes" "describe netif"; do
	# shellcheck disable=SC2086 # the command's words
	dcistat_ok $command --openmetrics
	cp "$TMP_DIR/out" "$TMP_DIR/om.txt"
	"$PYTHON" - "$TMP_DIR/om.txt" "$command" "$ODD" <<'PY' || fail "dcistat $command --openmetrics (above)"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
command, odd = sys.argv[2], sys.argv[3]
families = {f.name: f for f in text_string_to_metric_families(text)}
assert text.endswith("# EOF\n")
if command == "show":
    # Octets are bytes (Prometheus's base unit), not repeated in the name;
    # the instance label is dci_instance ("instance" is the target's).
    family = families["dcistat_netif_rx_bytes"]
    assert family.type == "counter" and family.unit == "bytes", family
    assert all("instance" not in s.labels for f in families.values() for s in f.samples)
    labels = [s.labels["dci_instance"] for s in family.samples]
    assert odd.replace("\\", "\\\\") in labels, labels
    assert all(s.name.endswith("_total") for s in family.samples)
    mtu = {s.labels["dci_instance"]: s.value for s in families["dcistat_netif_mtu_bytes"].samples}
    assert mtu[odd.replace("\\", "\\\\")] == 1234, mtu
    counter = families["dcistat_example_uint64_counter_bytes"]
    assert counter.type == "counter", counter
    values = {s.labels["dci_instance"]: s.value for s in counter.samples}
    assert values["unit2"] == 10000000000000000000, values
    info = families["dcistat_example"]
    assert info.type == "info", info
    assert info.samples[0].labels["text"] == "Hello, world", info.samples[0]
elif command == "suppliers":
    modules = sorted(s.labels["module"] for s in families["dcistat_suppliers"].samples)
    assert modules == ["evcnt", "example", "netif"], modules
    assert families["dcistat_suppliers_reset_seconds"].unit == "seconds"
elif command == "classes":
    counts = {s.labels["class"]: s.value for s in families["dcistat_classes_instances"].samples}
    assert counts["example"] == 3, counts
else:
    datums = {s.labels["datum"]: s.labels for s in families["dcistat_netif_datums"].samples}
    assert datums["rx_bytes"]["semantics"] == "counter", datums["rx_bytes"]
    assert datums["mtu"]["unit"] == "bytes", datums["mtu"]
print("# %s: %d families parsed" % (command, len(families)))
PY
	ok "dcistat $command --openmetrics passes the OpenMetrics parser"
	# The Prometheus text format, through Prometheus's own linter: no
	# parse error and no naming note (base units, _total counters), but
	# for the example provider's datums, named for their types
	# (uint32_counter), which the linter notes and the test accepts.
	if command -v promtool >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # the command's words
		dcistat_ok $command --prometheus
		promtool check metrics <"$TMP_DIR/out" >"$TMP_DIR/promtool.out" 2>&1
		notes=$(grep -E -v "^dcistat_example_[a-z0-9_]+ metric name should not include type '(counter|gauge)'\$" "$TMP_DIR/promtool.out")
		[ -z "$notes" ] ||
		    fail "dcistat $command --prometheus: promtool check metrics: $(head -n 5 <<<"$notes" | tr '\n' ' ')"
		grep -q '^# EOF' "$TMP_DIR/out" && fail "dcistat $command --prometheus ends with # EOF"
		ok "dcistat $command --prometheus: promtool check metrics reports nothing"
	else
		note "promtool not found (Debian: prometheus): --prometheus not linted"
	fi
done

dcistat_ok watch netif -i 0.2 -n 2 -d rx_bytes,mtu --openmetrics
"$PYTHON" - "$TMP_DIR/out" "$(ns_run ls /sys/class/net | wc -l)" <<'PY' || fail "watch --openmetrics (above)"
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
chunks = open(sys.argv[1]).read().split("# EOF\n")
assert len(chunks) == 3 and chunks[2] == "", "%d expositions" % (len(chunks) - 1)
for chunk in chunks[:2]:
    families = {f.name: f for f in text_string_to_metric_families(chunk + "# EOF\n")}
    rate = families["dcistat_netif_rx_bytes_per_second"]
    assert rate.type == "gauge" and len(rate.samples) == int(sys.argv[2]), rate
    assert families["dcistat_netif_interval_seconds"].unit == "seconds"
PY
ok "watch --openmetrics: one exposition per interval, each passing the parser, rates as gauges"

# --- watch: rates against /sys deltas on lo ---------------------------------------

lo_counter() { ns_run cat "/sys/class/net/lo/statistics/$1"; }
before_packets=$(lo_counter rx_packets) before_bytes=$(lo_counter rx_bytes)
watch_out=$TMP_DIR/watch.json
_lib_set_ns_prefix
"${_lib_ns_prefix[@]}" "$DCISTAT" -c "$config" watch netif -i 1 -n 3 --json \
    -d rx_packets,rx_bytes,mtu </dev/null >"$watch_out" 2>"$TMP_DIR/watch.err" &
watch_pid=$!
_lib_pids+=("$watch_pid")
first_interval() { [ -s "$watch_out" ]; }
wait_until 10 first_interval || fail "watch printed no interval within 10 s"
ns_run ping -q -c 5 -i 0.1 127.0.0.1 >/dev/null || fail "ping 127.0.0.1 failed"
wait "$watch_pid" || fail "watch exited $?: $(head -n 3 "$TMP_DIR/watch.err")"
check_sanitizer_log "$TMP_DIR/watch.err" "dcistat watch"
after_packets=$(lo_counter rx_packets) after_bytes=$(lo_counter rx_bytes)
"$PYTHON" - "$watch_out" $((after_packets - before_packets)) $((after_bytes - before_bytes)) <<'PY' ||
import json, sys
lines = open(sys.argv[1]).read().splitlines()
packets, octets = int(sys.argv[2]), int(sys.argv[3])
assert len(lines) == 3, "%d intervals, expected 3" % len(lines)
total_packets = total_octets = 0.0
for line in lines:
    table, = json.loads(line)["tables"]
    lo, = [row for row in table["rows"] if row["instance"] == "lo"]
    assert 0.9 <= lo["interval"] <= 1.5, lo
    assert lo["mtu"] == 65536, lo
    total_packets += lo["rx_packets_per_second"] * lo["interval"]
    total_octets += lo["rx_bytes_per_second"] * lo["interval"]
    print("# interval %.3f s: %s packets/s, %s octets/s" % (lo["interval"], lo["rx_packets_per_second"], lo["rx_bytes_per_second"]))
assert packets >= 10, "ping moved lo's rx_packets by %d" % packets
# Rates carry three decimals: the sums are exact to well under one.
if abs(total_packets - packets) > 0.05 or abs(total_octets - octets) > 0.05:
    print("FAIL: rates x intervals: %.3f packets, %.3f octets; /sys: %d, %d" % (total_packets, total_octets, packets, octets))
    sys.exit(1)
print("# rates x intervals: %.3f packets, %.3f octets = /sys deltas %d, %d" % (total_packets, total_octets, packets, octets))
PY
    fail "watch rates do not match the /sys deltas (above)"
ok "watch netif -i 1 -n 3: lo's rates x intervals equal its /sys deltas under ping"

# --- bad arguments ---------------------------------------------------------------

# expect_failure STATUS MESSAGE ARG...: dcistat ARG... exits STATUS and
# says MESSAGE on stderr, with nothing on stdout.
expect_failure() {
	local status=$1 message=$2
	shift 2
	dcistat "$@"
	[ "$STATUS" -eq "$status" ] ||
	    fail "dcistat $* exited $STATUS, expected $status"
	grep -q -F -- "$message" "$TMP_DIR/err" ||
	    fail "dcistat $*: stderr '$(head -n 2 "$TMP_DIR/err")', expected '$message'"
	[ ! -s "$TMP_DIR/out" ] || fail "dcistat $*: wrote to stdout: $(head -n 2 "$TMP_DIR/out")"
}
expect_failure 2 "no command given"
expect_failure 2 "unknown command 'frobnicate'" frobnicate
expect_failure 2 "unknown option --frob" show --frob
expect_failure 2 "describe takes 1 argument, 0 given" describe
expect_failure 2 "show takes at most 2 arguments, 3 given" show a b c
expect_failure 2 "watch takes 1 to 3 arguments, 0 given" watch
expect_failure 2 "-i 0: not a number of seconds" watch netif -i 0
expect_failure 2 "-i x: not a number of seconds" watch netif -i x
expect_failure 2 "-n -1: not a count" watch netif -n -1
expect_failure 2 "-i and -n are for watch only" show -n 2
expect_failure 2 "--json, --openmetrics and --prometheus exclude each other" show --json --openmetrics
expect_failure 2 "--json, --openmetrics and --prometheus exclude each other" show --openmetrics --prometheus
expect_failure 1 "no class 'nosuch' (see dcistat classes)" show nosuch
expect_failure 1 "no class 'nosuch'" watch nosuch -n 1
expect_failure 1 "no class '9.9'" describe 9.9
expect_failure 1 "class netif has no instance 'nosuch'" show netif nosuch
expect_failure 1 "class netif has no datum 'nosuch'" show netif -d mtu,nosuch
expect_failure 1 "empty datum name" show netif -d mtu,
ns_run "$DCISTAT" -c "$TMP_DIR/missing.yaml" classes >"$TMP_DIR/out" 2>"$TMP_DIR/err"
status=$?
if [ "$status" -ne 1 ] || ! grep -q "missing.yaml" "$TMP_DIR/err"; then
	fail "a missing configuration: exit $status, '$(head -n 1 "$TMP_DIR/err")'"
fi
ok "bad arguments exit 2, unknown class/instance/datum and a missing configuration exit 1, each with its message"

# A provider that fails to load: reported, shown failed, the others shown.
broken=$TMP_DIR/broken.yaml
printf 'providers:\n  - module: %s\n  - module: %s\n' "$TMP_DIR/nothere.so" \
    "$(provider_so netif)" >"$broken"
ns_run "$DCISTAT" -c "$broken" suppliers --json >"$TMP_DIR/out" 2>"$TMP_DIR/err"
status=$?
[ "$status" -eq 1 ] || fail "suppliers with a broken provider exited $status, expected 1 (shown, then a failure)"
grep -q "nothere.so" "$TMP_DIR/err" || fail "no message for the broken provider: $(cat "$TMP_DIR/err")"
! grep -q "retrying" "$TMP_DIR/err" || fail "a one-shot dcistat promises a retry: $(cat "$TMP_DIR/err")"
"$PYTHON" - "$TMP_DIR/out" <<'PY' || fail "suppliers with a broken provider (above)"
import json, sys
rows = {row["module"].rsplit("/", 1)[-1]: row for row in json.load(open(sys.argv[1]))["tables"][0]["rows"]}
assert rows["nothere.so"]["status"] == "failed" and "nothere.so" in rows["nothere.so"]["failure"], rows
assert rows["nothere.so"]["reset"] is None, rows
assert rows["netif"]["status"] == "running" and rows["netif"]["failure"] is None, rows
assert rows["netif"]["version"] == "1.00" and rows["netif"]["reset"] > 1.7e9, rows
PY
ok "a provider that fails to load: reported on stderr (no retry promised), shown failed by suppliers, netif running, exit 1"

# A provider that starts but whose first refresh fails: reported, shown
# failed, and the one-shot command exits 1 as for a provider not loaded.
touch "$TMP_DIR/refresh-broken"
printf 'providers:\n  - module: %s\n    options:\n      refresh_fails_while: %s\n' \
    "$top_builddir/tests/unit/.libs/good_provider.so" "$TMP_DIR/refresh-broken" \
    >"$TMP_DIR/refresh.yaml"
ns_run "$DCISTAT" -c "$TMP_DIR/refresh.yaml" suppliers --json >"$TMP_DIR/out" 2>"$TMP_DIR/err"
status=$?
[ "$status" -eq 1 ] || fail "suppliers with a provider whose refresh fails exited $status, expected 1 ($(cat "$TMP_DIR/err"))"
grep -q "refresh failed" "$TMP_DIR/err" || fail "no message for the failed refresh: $(cat "$TMP_DIR/err")"
"$PYTHON" - "$TMP_DIR/out" <<'PY' || fail "suppliers with a provider whose refresh fails (above)"
import json, sys
rows = json.load(open(sys.argv[1]))["tables"][0]["rows"]
assert len(rows) == 1 and rows[0]["status"] == "failed", rows
PY
ok "a provider whose first refresh fails: reported on stderr, shown failed by suppliers, exit 1"

dcistat_ok describe 1.1
grep -q '^rx_bytes  *12  *ST_INTEGER64  *unsigned little-endian  *decimal  *8  *volatile  *octets  *counter' "$TMP_DIR/out" ||
    fail "describe 1.1 (class by id): no rx_bytes line as expected: $(grep rx_bytes "$TMP_DIR/out")"
ok "describe 1.1: the class named by its id; rx_bytes described with type, format, presentation, size, volatility, unit, semantics"

note "done in $(($(now_ms) - started)) ms"
exit 0
