#!/bin/bash
# prometheus_exporter.sh -- Prometheus's snmp_exporter, with the snmp.yml
# dcistat ships (contrib/prometheus), scraping dcistatd's per-class tables
# through a real snmpd master.
#
# First the shipped files against what makes them:
#   - contrib/prometheus/generator.yml is what `dcistatd
#     --prometheus-generator` writes now for netif, devstat and evcnt
#     (scripts/generate-prometheus generator; `make prometheus` rewrites
#     it); with -t or --mib it is a usage error (2), and with no class an
#     error (1) that writes nothing;
#   - contrib/prometheus/snmp.yml is what prometheus-snmp-generator makes
#     of that generator.yml with mibs/ and the IETF base modules
#     (scripts/generate-prometheus snmp), with no MIB parse error and no
#     generator warning; skipped with a note when the base modules cannot
#     be fetched (scripts/fetch-base-mibs);
#   - contrib/prometheus/prometheus.yml is what `dcistatd
#     --prometheus-config` writes now (scripts/generate-prometheus config);
#   - contrib/prometheus/dcistat.rules.yml passes `promtool check rules`
#     and its unit test, tests/prometheus/dcistat.rules.test.yml.
# Then, in a private network namespace holding lo and a veth pair with no
# address (frames sent from one end to the other, so both count something
# and nothing else moves them), a private snmpd master on a free loopback
# port, dcistatd with netif, devstat and evcnt, and the real
# prometheus-snmp-exporter on another free loopback port with the shipped
# snmp.yml. For each module (dci_netif, dci_devstat, dci_evcnt) the test
# scrapes /snmp?target=127.0.0.1:PORT&module=MODULE and asserts:
#   - HTTP 200, and prometheus_client's parser reads it;
#   - `promtool check metrics` finds nothing but the naming rules
#     snmp_exporter's MIB-derived names cannot follow (snake_case metric
#     and label names, a counter's _total suffix);
#   - every row's text label is its instance label as text
#     (dciNetifName="lo", never 0x6c6f): dciNetifName,
#     dciDevstatDeviceName, and evcnt's "dciEvcntGroup dciEvcntName"
#     (plus " cpuN" on a per-CPU row) equal dciInstanceLabel of
#     DCI-STATS-MIB for the same instance;
#   - netif: each interface's 24 counters, typed counter, lie between
#     /sys/class/net/IF/statistics read more than a refresh interval before
#     the scrape and read after it, and equal them on the quiet veth ends;
#     mtu and speed are gauges, mtu equals sysfs; oper_up is 1 for lo and
#     the veth ends that are up and 0 for a pair left down (TruthValue
#     false, 2 on the wire, must read 0 for an alert on == 0 to fire);
#     the address is the sysfs address as a label;
#   - devstat: every disk of /proc/diskstats the provider serves by default
#     (not loop*, ram*, zram*, not a partition) is a row indexed by major
#     and minor, bytes read and written (sectors x 512), reads, writes
#     and busy_time within the two readings of the file; busy_count is a
#     gauge; rotational is 0 or 1 as sysfs says;
#   - evcnt: every numbered line of /proc/interrupts is a total row
#     (1, IRQ, processor 0) whose count lies within the two readings' sums,
#     each per-CPU row (processor CPU+1) within that CPU's two readings.
#
# Then SNMPv1 and SNMPv3, as doc/MIB.md says: an SNMPv1 GET of a Counter64
# column answers noSuchName and a walk shows only the other columns; the
# exporter with snmp.yml's auth turned to SNMPv3 authPriv scrapes through a
# user of the master. Last, Prometheus itself runs
# contrib/prometheus/prometheus.yml (ports and intervals changed) against
# the exporter, with the agent in its targets file: the three dcistat jobs
# are up, their series carry the agent as `instance` and the rows' names,
# every series is stored (read back through Prometheus's API) under its
# MIB name in snake_case, a counter's with _total, with snake_case labels
# only, and dcistat.rules.yml records.
#
# Needs root and `ip netns` (exit 77 otherwise), and exits 77 when
# prometheus-snmp-exporter, promtool or prometheus (package prometheus) or
# curl is missing; ./runtests installs them.

# Functions run through wait_until look unreachable to shellcheck.
# shellcheck disable=SC2317

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd) || exit 1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

require_root
require_cmd ip snmpd snmpget snmpwalk
for command in prometheus-snmp-exporter promtool prometheus curl; do
	command -v "$command" >/dev/null 2>&1 ||
	    skip "$command not found (apt-get install prometheus-snmp-exporter prometheus curl)"
done
require_built
require_openmetrics_parser
started=$(now_ms)

shipped=$top_srcdir/contrib/prometheus
generate=$top_srcdir/scripts/generate-prometheus
MODULES="dci_netif dci_devstat dci_evcnt"
REFRESH=0.2

# --- the shipped files -----------------------------------------------------------

"$generate" generator "$top_builddir" >"$TMP_DIR/generator.yml" 2>"$TMP_DIR/generate.err" ||
    fail "scripts/generate-prometheus generator failed: $(head -n 3 "$TMP_DIR/generate.err")"
if ! cmp -s "$shipped/generator.yml" "$TMP_DIR/generator.yml"; then
	diff -u "$shipped/generator.yml" "$TMP_DIR/generator.yml" | head -n 40 | sed 's/^/#   /'
	fail "contrib/prometheus/generator.yml differs from what dcistatd --prometheus-generator writes now (make prometheus)"
fi
ok "contrib/prometheus/generator.yml is what dcistatd --prometheus-generator writes"
"$generate" config "$top_builddir" >"$TMP_DIR/prometheus.yml" 2>"$TMP_DIR/generate.err" ||
    fail "scripts/generate-prometheus config failed: $(head -n 3 "$TMP_DIR/generate.err")"
if ! cmp -s "$shipped/prometheus.yml" "$TMP_DIR/prometheus.yml"; then
	diff -u "$shipped/prometheus.yml" "$TMP_DIR/prometheus.yml" | head -n 40 | sed 's/^/#   /'
	fail "contrib/prometheus/prometheus.yml differs from what dcistatd --prometheus-config writes now (make prometheus)"
fi
ok "contrib/prometheus/prometheus.yml is what dcistatd --prometheus-config writes"

# The command line: -t and --mib exclude it (usage, 2); a configuration
# whose providers register no class is an error (1) that writes nothing.
# refused STATUS PATTERN WHAT: the last run_dcistatd exited STATUS, wrote
# nothing on stdout and PATTERN on stderr.
refused() {
	if [ "$RUN_STATUS" -ne "$1" ] || [ -s "$TMP_DIR/out" ] || ! grep -q -e "$2" "$TMP_DIR/err"; then
		fail "$3: status $RUN_STATUS, stdout $(head -c 100 "$TMP_DIR/out"), stderr $(head -n 1 "$TMP_DIR/err"); expected $1 and '$2'"
	fi
}
run_dcistatd "$TMP_DIR/out" "$TMP_DIR/err" --prometheus-generator -t
refused 2 '--prometheus-generator excludes -t' "--prometheus-generator -t"
run_dcistatd "$TMP_DIR/out" "$TMP_DIR/err" --prometheus-generator --mib DCI-X-MIB
refused 2 '--prometheus-generator excludes --mib' "--prometheus-generator --mib"
printf 'providers: []\n' >"$TMP_DIR/empty.yaml"
run_dcistatd "$TMP_DIR/out" "$TMP_DIR/err" --prometheus-generator -c "$TMP_DIR/empty.yaml"
refused 1 'no class to describe' "--prometheus-generator with no class"
ok "--prometheus-generator: -t and --mib refused (2); no class: 1, nothing written"

if ! "$top_srcdir/scripts/fetch-base-mibs" >/dev/null 2>"$TMP_DIR/fetch.err"; then
	note "snmp.yml not regenerated: the IETF base MIB modules cannot be fetched ($(head -n 1 "$TMP_DIR/fetch.err"))"
elif ! "$generate" snmp "$shipped/generator.yml" "$top_srcdir" \
    >"$TMP_DIR/snmp.yml" 2>"$TMP_DIR/generate.err"; then
	sed 's/^/#   /' "$TMP_DIR/generate.err" | head -n 20
	fail "prometheus-snmp-generator does not make snmp.yml of contrib/prometheus/generator.yml (above)"
elif ! cmp -s "$shipped/snmp.yml" "$TMP_DIR/snmp.yml"; then
	diff -u "$shipped/snmp.yml" "$TMP_DIR/snmp.yml" | head -n 40 | sed 's/^/#   /'
	fail "contrib/prometheus/snmp.yml differs from what prometheus-snmp-generator makes of generator.yml (make prometheus)"
else
	ok "contrib/prometheus/snmp.yml is what prometheus-snmp-generator makes of generator.yml"
fi

promtool check rules "$shipped/dcistat.rules.yml" >"$TMP_DIR/rules.out" 2>&1 ||
    fail "promtool check rules: $(tr '\n' ' ' <"$TMP_DIR/rules.out")"
(cd "$top_srcdir/tests/prometheus" && promtool test rules dcistat.rules.test.yml) \
    >"$TMP_DIR/rules.out" 2>&1 || {
	sed 's/^/#   /' "$TMP_DIR/rules.out"
	fail "promtool test rules tests/prometheus/dcistat.rules.test.yml (above)"
}
ok "dcistat.rules.yml: promtool check rules and its unit test pass"

# --- a namespace, its interfaces, snmpd, dcistatd, the exporter ----------------

make_netns
if ! ip -n "$NETNS" link add dcp0 type veth peer name dcp1 2>"$TMP_DIR/veth.err"; then
	skip "cannot create a veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
fi
if ! { ip -n "$NETNS" link set dcp0 up && ip -n "$NETNS" link set dcp1 up; }; then
	fail "cannot bring dcp0/dcp1 up"
fi
# A second pair left administratively down: its oper_up must read 0.
if ! ip -n "$NETNS" link add dcp2 type veth peer name dcp3 2>"$TMP_DIR/veth.err"; then
	fail "cannot create a second veth pair: $(head -n 1 "$TMP_DIR/veth.err")"
fi
link_up() { [ "$(ns_run cat "/sys/class/net/$1/operstate" 2>/dev/null)" = up ]; }
if ! { wait_until 5 link_up dcp0 && wait_until 5 link_up dcp1; }; then
	fail "dcp0/dcp1 not operationally up within 5 s"
fi
# Frames of an experimental EtherType (0x88b5) from dcp0 to dcp1's
# address: dcp0 transmits them, dcp1 receives and drops them.
ns_run "$PYTHON" - "$(ns_run cat /sys/class/net/dcp1/address)" <<'PY' ||
import socket, sys
destination = bytes.fromhex(sys.argv[1].replace(":", ""))
sender = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
sender.bind(("dcp0", 0))
for size in (100, 200, 300, 400, 500, 600, 700):
    sender.send(destination + bytes(6) + b"\x88\xb5" + bytes(size))
PY
    fail "cannot send frames from dcp0"

# An SNMPv3 user of the master, for the exporter's SNMPv3 module.
V3_USER=dcimon V3_AUTH="dcistat auth phrase" V3_PRIV="dcistat priv phrase"
SNMPD_EXTRA_CONF="createUser $V3_USER SHA \"$V3_AUTH\" AES \"$V3_PRIV\"
rouser $V3_USER priv"
start_snmpd
config=$TMP_DIR/dcistatd.yaml
write_agent_config "$config"
for provider in netif devstat evcnt; do
	printf '  - module: %s\n    refresh: %s\n' "$(provider_so "$provider")" "$REFRESH" >>"$config"
done
start_dcistatd "$config"
wait_dcistatd_ready 10

EXPORTER_PORT=$(free_tcp_port) || fail "no free TCP port"
_lib_set_ns_prefix
"${_lib_ns_prefix[@]}" prometheus-snmp-exporter \
    --config.file="$shipped/snmp.yml" \
    --web.listen-address="127.0.0.1:$EXPORTER_PORT" \
    </dev/null >"$TMP_DIR/exporter.log" 2>&1 &
EXPORTER_PID=$!
_lib_pids+=("$EXPORTER_PID")
exporter_answers() {
	_lib_alive "$EXPORTER_PID" || return "$GIVE_UP"
	ns_run curl -sf -o /dev/null "http://127.0.0.1:$EXPORTER_PORT/metrics"
}
wait_until 10 exporter_answers ||
    fail "prometheus-snmp-exporter does not answer on 127.0.0.1:$EXPORTER_PORT within 10 s"
ok "prometheus-snmp-exporter $(prometheus-snmp-exporter --version 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p') serves on 127.0.0.1:$EXPORTER_PORT with contrib/prometheus/snmp.yml"

# --- readings ----------------------------------------------------------------------

# The instance labels of each class, from dciInstanceTable.
for class in 1 2 3; do
	snmp_walk "$DCI_ARC.1.4.1.2.2.1.$class" >"$TMP_DIR/labels.$class" ||
	    fail "cannot walk dciInstanceLabel of class 1.$class"
done

# read_system SUFFIX: the interfaces' sysfs files (in the namespace),
# /proc/diskstats and /proc/interrupts into files named by SUFFIX.
read_system() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ns_run sh -c '
		for d in /sys/class/net/*; do
			n=${d##*/}
			cd "$d" || exit 1
			for f in ifindex mtu address operstate statistics/*; do
				printf "%s %s %s\n" "$n" "${f#statistics/}" "$(cat "$f")"
			done
		done' >"$TMP_DIR/sysfs.$1" || fail "cannot read the interfaces' sysfs files"
	cat /proc/diskstats >"$TMP_DIR/diskstats.$1" || fail "cannot read /proc/diskstats"
	cat /proc/interrupts >"$TMP_DIR/interrupts.$1" || fail "cannot read /proc/interrupts"
}

scrape() { # MODULE: the exporter's answer into $TMP_DIR/scrape.MODULE
	ns_run curl -sS -f -o "$TMP_DIR/scrape.$1" \
	    "http://127.0.0.1:$EXPORTER_PORT/snmp?target=127.0.0.1:$SNMPD_PORT&module=$1" \
	    2>"$TMP_DIR/curl.err" ||
	    fail "scraping module $1: $(head -n 1 "$TMP_DIR/curl.err")"
}

# The agent serves its last snapshot: the first reading is taken more
# than a refresh interval before the scrape, so that the snapshot served
# is younger than it.
read_system before
sleep 1
for module in $MODULES; do
	scrape "$module"
done
read_system after
for module in $MODULES; do
	ok "module $module: HTTP 200, $(grep -c -v '^#' "$TMP_DIR/scrape.$module") samples"
done

# --- promtool check metrics --------------------------------------------------------

for module in $MODULES; do
	promtool check metrics <"$TMP_DIR/scrape.$module" >"$TMP_DIR/promtool.out" 2>&1
	status=$?
	if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
		sed 's/^/#   /' "$TMP_DIR/promtool.out" | head -n 20
		fail "promtool check metrics rejects module $module's scrape (status $status)"
	fi
	if grep -v -E "((metric|label) names should be written in 'snake_case' not 'camelCase'|counter metrics should have \"_total\" suffix)\$" \
	    "$TMP_DIR/promtool.out" | grep -q .; then
		sed 's/^/#   /' "$TMP_DIR/promtool.out" | head -n 20
		fail "promtool check metrics: problems with module $module's scrape other than the MIB names' case and _total (above)"
	fi
	ok "promtool check metrics: module $module parses; $(grep -c . "$TMP_DIR/promtool.out") notes, all on MIB-derived names (camelCase, no _total)"
done

# --- the values, labels and types ---------------------------------------------

"$PYTHON" - "$TMP_DIR" <<'PY' || fail "the scrapes disagree with the system (above)"
import glob, os, re, sys
from prometheus_client.parser import text_string_to_metric_families

tmp = sys.argv[1]
failures = 0

def fail(message):
    global failures
    failures += 1
    print("FAIL: " + message)

section_failures = 0

def ok(message):
    """Prints an ok line when nothing failed since the last one."""
    global section_failures
    if failures == section_failures:
        print("ok: " + message)
    section_failures = failures

def scrape(module, prefix):
    """{metric name: (type, [(labels, value)])} of the metrics of the
    class (named PREFIX...), by prometheus_client; the exporter's own
    snmp_scrape_* metrics left out."""
    with open(os.path.join(tmp, "scrape." + module)) as f:
        text = f.read()
    families = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith(prefix):
            if not family.name.startswith("snmp_scrape_"):
                fail("module %s: metric %s" % (module, family.name))
            continue
        samples = [(s.labels, s.value) for s in family.samples]
        families[family.name] = (family.type, samples)
    return families

def instance_labels(class_level):
    """{instance id words as a tuple of str: label} of dciInstanceTable."""
    labels = {}
    prefix = ".1.3.6.1.4.1.8072.9999.9999.4040.1.4.1.2.2.1.%d." % class_level
    with open(os.path.join(tmp, "labels.%d" % class_level)) as f:
        for line in f:
            oid, _, value = line.rstrip("\n").partition(" ")
            words = oid[len(prefix):].split(".")
            labels[tuple(words[1:])] = value
    return labels

def hexlike(text):
    return re.fullmatch(r"0x[0-9a-fA-F]+", text) is not None

def camel(label):
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", label) if word)

def exact(value):
    """A scraped float as an integer, when it is one below 2^53."""
    if value != int(value) or abs(value) >= 2 ** 53:
        return None
    return int(value)

# --- netif ---------------------------------------------------------------
def read_sysfs(which):
    interfaces = {}
    with open(os.path.join(tmp, "sysfs." + which)) as f:
        for line in f:
            name, key, value = (line.rstrip("\n").split(" ", 2) + [""])[:3]
            interfaces.setdefault(name, {})[key] = value
    return interfaces

before, after = read_sysfs("before"), read_sysfs("after")
netif = scrape("dci_netif", "dciNetif")
labels = instance_labels(1)
by_index = {v["ifindex"]: name for name, v in before.items()}
counters = sorted(k for k in before["lo"] if k not in ("ifindex", "mtu", "address", "operstate"))
if len(counters) < 20:
    fail("lo has only %d statistics files in sysfs" % len(counters))
rows = set()
for metric, (kind, samples) in netif.items():
    for sample_labels, value in samples:
        index = sample_labels.get("dciNetifIfIndex")
        name = sample_labels.get("dciNetifName")
        rows.add(index)
        if index not in by_index:
            fail("%s: ifIndex %s is no interface of the namespace" % (metric, index))
        elif name != by_index[index]:
            fail("%s{dciNetifIfIndex=%s}: dciNetifName=%r, the interface is %r" % (metric, index, name, by_index[index]))
        if name is None or hexlike(name):
            fail("%s: dciNetifName %r is not text" % (metric, name))
        if labels.get((index,)) != name:
            fail("%s: dciNetifName %r but dciInstanceLabel.1.%s is %r" % (metric, name, index, labels.get((index,))))
if rows != set(by_index):
    fail("dci_netif rows are ifIndexes %s, the namespace has %s" % (sorted(rows), sorted(by_index)))
else:
    ok("dci_netif: a row per interface (%s), dciNetifName = dciInstanceLabel, as text" % ", ".join(sorted(by_index.values())))

def one(families, metric, key, index):
    kind, samples = families.get(metric, (None, []))
    found = [value for sample_labels, value in samples if sample_labels.get(key) == index]
    return kind, (found[0] if len(found) == 1 else None)

equal = 0
down_seen = 0
for name, index in ((n, v["ifindex"]) for n, v in before.items()):
    for counter in counters:
        metric = "dciNetif" + camel(counter)
        kind, value = one(netif, metric, "dciNetifIfIndex", index)
        low, high = int(before[name][counter]), int(after[name][counter])
        if kind != "counter":
            fail("%s is typed %s, not counter" % (metric, kind))
        if value is None or exact(value) is None:
            fail("%s{%s}: no integer value (%r)" % (metric, name, value))
            continue
        if not low <= exact(value) <= high:
            fail("%s{%s} = %d, sysfs %s read %d before and %d after" % (metric, name, exact(value), counter, low, high))
        elif name.startswith("dcp") and exact(value) != low:
            fail("%s{%s} = %d, sysfs %s is %d" % (metric, name, exact(value), counter, low))
        else:
            equal += 1
    # Gauge32 and DciGauge64 (a Counter64 on the wire): gauges. The
    # veth ends have a speed (lo has none).
    # The veth ends that are up have a speed (lo has none; no interface
    # that is down has one, as sysfs says).
    is_up = before[name]["operstate"] == "up"
    for metric in ("dciNetifMtu", "dciNetifSpeed"):
        kind, value = one(netif, metric, "dciNetifIfIndex", index)
        if kind != "gauge" or (value is None and (metric == "dciNetifMtu" or (name != "lo" and is_up))):
            fail("%s{%s} = %r is typed %s, not gauge" % (metric, name, value, kind))
    kind, value = one(netif, "dciNetifMtu", "dciNetifIfIndex", index)
    if value != int(before[name]["mtu"]):
        fail("dciNetifMtu{%s} = %r, sysfs mtu %s" % (name, value, before[name]["mtu"]))
    # TruthValue: true(1) reads 1, false(2) reads 0, so that an alert on
    # dciNetifOperUp == 0 fires. lo's operstate is "unknown" (up and
    # running, RFC 2863's unknown).
    expected_up = 1 if before[name]["operstate"] in ("up", "unknown") else 0
    kind, value = one(netif, "dciNetifOperUp", "dciNetifIfIndex", index)
    if kind != "gauge" or value != expected_up:
        fail("dciNetifOperUp{%s} = %r (%s), sysfs operstate %s: expected gauge %d" % (name, value, kind, before[name]["operstate"], expected_up))
    elif expected_up == 0:
        down_seen += 1
    if name.startswith("dcp"):
        kind, samples = netif.get("dciNetifAddress", (None, []))
        found = [s.get("dciNetifAddress", "").lower() for s, v in samples if s.get("dciNetifIfIndex") == index]
        if found != [before[name]["address"].lower()]:
            fail("dciNetifAddress{%s} = %r, sysfs address %s" % (name, found, before[name]["address"]))
for name in ("dcp0", "dcp1"):
    moved = "tx_packets" if name == "dcp0" else "rx_packets"
    if int(before[name][moved]) < 7:
        fail("%s %s is %s: the frames did not go through" % (name, moved, before[name][moved]))
if down_seen != 2:
    fail("dciNetifOperUp read 0 for %d interfaces, expected 2 (dcp2 and dcp3, down)" % down_seen)
ok("dci_netif: %d counters typed counter within sysfs before/after (exact on the dcp veth ends); mtu, speed gauges; oper_up 1 for lo, dcp0 and dcp1, 0 for dcp2 and dcp3 (down); dcp addresses as labels" % equal)

# --- devstat -------------------------------------------------------------
def diskstats(which):
    disks = {}
    with open(os.path.join(tmp, "diskstats." + which)) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 14:
                disks[(fields[0], fields[1])] = fields
    return disks

def served_by_default(name):
    if re.match(r"(loop|ram|zram)", name):
        return False
    return not os.path.exists("/sys/class/block/%s/partition" % name)

disk_before, disk_after = diskstats("before"), diskstats("after")
devstat = scrape("dci_devstat", "dciDevstat")
labels = instance_labels(2)
expected = {key for key, fields in disk_before.items() if served_by_default(fields[2]) and key in disk_after}
rows = set()
for metric, (kind, samples) in devstat.items():
    for sample_labels, value in samples:
        key = (sample_labels.get("dciDevstatDiskid1"), sample_labels.get("dciDevstatDiskid2"))
        name = sample_labels.get("dciDevstatDeviceName")
        rows.add(key)
        if key in disk_before and name != disk_before[key][2]:
            fail("%s{%s:%s}: dciDevstatDeviceName=%r, /proc/diskstats says %r" % ((metric,) + key + (name, disk_before[key][2])))
        if labels.get(key) != name or name is None or hexlike(name):
            fail("%s{%s:%s}: dciDevstatDeviceName=%r but dciInstanceLabel is %r" % ((metric,) + key + (name, labels.get(key))))
if not expected.issubset(rows):
    fail("dci_devstat rows %s lack disks %s of /proc/diskstats" % (sorted(rows), sorted(expected - rows)))
fields_of = {"dciDevstatNumReads": (3, 1), "dciDevstatBytesRead": (5, 512),
             "dciDevstatNumWrites": (7, 1), "dciDevstatBytesWritten": (9, 512),
             "dciDevstatBusyTime": (12, 1)}
checked = 0
for key in sorted(expected & rows):
    name = disk_before[key][2]
    for metric, (field, scale) in fields_of.items():
        kind, samples = devstat.get(metric, (None, []))
        found = [v for s, v in samples if (s.get("dciDevstatDiskid1"), s.get("dciDevstatDiskid2")) == key]
        low = int(disk_before[key][field]) * scale
        high = int(disk_after[key][field]) * scale
        if kind != "counter":
            fail("%s is typed %s, not counter" % (metric, kind))
        if len(found) != 1 or exact(found[0]) is None or not low <= exact(found[0]) <= high:
            fail("%s{%s} = %r, /proc/diskstats gives %d before and %d after" % (metric, name, found, low, high))
        else:
            checked += 1
    kind, samples = devstat.get("dciDevstatBusyCount", (None, []))
    if kind != "gauge":
        fail("dciDevstatBusyCount is typed %s, not gauge" % kind)
    kind, samples = devstat.get("dciDevstatRotational", (None, []))
    found = [v for s, v in samples if (s.get("dciDevstatDiskid1"), s.get("dciDevstatDiskid2")) == key]
    rotational = "/sys/class/block/%s/queue/rotational" % name
    if os.path.exists(rotational):
        with open(rotational) as f:
            want = int(f.read().strip())
        if found != [want]:
            fail("dciDevstatRotational{%s} = %r, sysfs says %d" % (name, found, want))
if expected:
    ok("dci_devstat: disks %s: dciDevstatDeviceName = dciInstanceLabel as text; %d counters within /proc/diskstats before/after; busy_count a gauge; rotational 0/1 as sysfs" % (", ".join(disk_before[k][2] for k in sorted(expected)), checked))
else:
    print("# dci_devstat: no disk served by default on this machine; the scrape is empty and valid")

# --- evcnt ---------------------------------------------------------------
def interrupts(which):
    lines = {}
    with open(os.path.join(tmp, "interrupts." + which)) as f:
        cpus = len(f.readline().split())
        for line in f:
            key, _, rest = line.partition(":")
            key = key.strip()
            if not key.isdigit():
                continue
            counts = rest.split()[:cpus]
            if len(counts) == cpus and all(c.isdigit() for c in counts):
                lines[key] = [int(c) for c in counts]
    return lines

irq_before, irq_after = interrupts("before"), interrupts("after")
evcnt = scrape("dci_evcnt", "dciEvcnt")
labels = instance_labels(3)
kind, samples = evcnt.get("dciEvcntCount", (None, []))
if kind != "counter":
    fail("dciEvcntCount is typed %s, not counter" % kind)
count = {}
for sample_labels, value in samples:
    key = (sample_labels.get("dciEvcntEventWord1"), sample_labels.get("dciEvcntEventWord2"), sample_labels.get("dciEvcntProcessor"))
    group, name = sample_labels.get("dciEvcntGroup"), sample_labels.get("dciEvcntName")
    count[key] = value
    if group is None or name is None or hexlike(group) or hexlike(name):
        fail("dciEvcntCount%s: group %r and name %r are not text" % (key, group, name))
        continue
    label = group + (" " + name if name else "")
    if key[2] != "0":
        label += " cpu%d" % (int(key[2]) - 1)
    if labels.get(key) != label:
        fail("dciEvcntCount%s: labels give %r, dciInstanceLabel is %r" % (key, label, labels.get(key)))
if len(count) != len(labels):
    fail("dci_evcnt has %d rows, dciInstanceTable %d" % (len(count), len(labels)))
checked = 0
for irq in sorted(set(irq_before) & set(irq_after), key=int):
    low, high = irq_before[irq], irq_after[irq]
    bounds = [("0", sum(low), sum(high))] + [(str(cpu + 1), low[cpu], high[cpu]) for cpu in range(len(low))]
    for processor, lowest, highest in bounds:
        value = count.get(("1", irq, processor))
        if value is None or exact(value) is None or not lowest <= exact(value) <= highest:
            fail("dciEvcntCount{IRQ %s, processor %s} = %r, /proc/interrupts gives %d before and %d after" % (irq, processor, value, lowest, highest))
        else:
            checked += 1
ok("dci_evcnt: %d rows labelled as dciInstanceLabel (group, name, cpuN) in text; %d counts of %d numbered lines within /proc/interrupts before/after" % (len(count), checked, len(irq_before)))
sys.exit(1 if failures else 0)
PY

# --- SNMPv1 and SNMPv3 -----------------------------------------------------------

# SNMPv1 has no Counter64: a GET of one answers noSuchName, a walk skips
# the 64-bit columns; the others are there.
NETIF_ENTRY=$DCI_ARC.1.6.1.1.1
if ns_run snmpget -v1 -c public -t 2 -r 1 "$SNMP_TARGET" "$NETIF_ENTRY.12.1" \
    >"$TMP_DIR/v1.out" 2>&1 || ! grep -q noSuchName "$TMP_DIR/v1.out"; then
	fail "SNMPv1 GET of dciNetifRxBytes.1 (Counter64): $(tr '\n' ' ' <"$TMP_DIR/v1.out"), expected noSuchName"
fi
v1_columns=$(ns_run snmpwalk -v1 -c public -t 2 -r 1 -On "$SNMP_TARGET" "$NETIF_ENTRY" |
    sed -n -E "s/^${NETIF_ENTRY//./\\.}\.([0-9]+)\.1 = .*/\1/p" | tr '\n' ' ')
[ "$v1_columns" = "1 2 3 4 6 " ] ||
    fail "SNMPv1 walk of dciNetifTable, lo: columns '$v1_columns', expected '1 2 3 4 6 ' (name, address, mtu, oper_up, last_change)"
ok "SNMPv1: dciNetifRxBytes.1 is noSuchName, a walk shows name, address, mtu, oper_up, last_change and no 64-bit column"

# The exporter with snmp.yml's modules turned to SNMPv3 authPriv, as
# doc/MIB.md tells: through the master's user, the same rows.
"$PYTHON" - "$shipped/snmp.yml" "$TMP_DIR/snmp-v3.yml" "$V3_USER" "$V3_AUTH" "$V3_PRIV" <<'PY' ||
import sys
source, target, user, auth, priv = sys.argv[1:]
text = open(source).read()
v3 = ("  version: 3\n  auth:\n    username: %s\n    security_level: authPriv\n"
      "    password: %s\n    auth_protocol: SHA\n    priv_protocol: AES\n"
      "    priv_password: %s\n" % (user, auth, priv))
v2 = "  version: 2\n  auth:\n    community: public\n"
if text.count(v2) != 3:
    sys.exit("snmp.yml has %d SNMPv2c auth blocks, not 3" % text.count(v2))
open(target, "w").write(text.replace(v2, v3))
PY
    fail "cannot write an SNMPv3 snmp.yml"
V3_PORT=$(free_tcp_port) || fail "no free TCP port"
"${_lib_ns_prefix[@]}" prometheus-snmp-exporter \
    --config.file="$TMP_DIR/snmp-v3.yml" \
    --web.listen-address="127.0.0.1:$V3_PORT" \
    </dev/null >"$TMP_DIR/exporter-v3.log" 2>&1 &
_lib_pids+=("$!")
v3_scrape() {
	ns_run curl -sf -o "$TMP_DIR/scrape.v3" \
	    "http://127.0.0.1:$V3_PORT/snmp?target=127.0.0.1:$SNMPD_PORT&module=dci_netif"
}
wait_until 10 v3_scrape || fail "the SNMPv3 exporter does not answer within 10 s"
grep -q '^dciNetifRxBytes{dciNetifIfIndex="1",dciNetifName="lo"} ' "$TMP_DIR/scrape.v3" ||
    fail "SNMPv3 scrape of dci_netif has no dciNetifRxBytes of lo: $(grep -v '^#' "$TMP_DIR/scrape.v3" | head -n 3 | tr '\n' ' ')"
ok "SNMPv3 authPriv (SHA, AES) through the master's user: dci_netif scraped, $(grep -c '^dciNetif' "$TMP_DIR/scrape.v3") samples"

# --- Prometheus ------------------------------------------------------------------

# contrib/prometheus/prometheus.yml as shipped, but for the ports and
# intervals: the exporter's address, the agent in the targets file, a
# scrape and an evaluation every second.
prom=$TMP_DIR/prometheus
mkdir -p "$prom/data" || fail "cannot create $prom"
sed -e "s/127\.0\.0\.1:9116/127.0.0.1:$EXPORTER_PORT/" \
    -e 's/^\(  [a-z_]*_interval:\) 60s$/\1 1s/' \
    "$shipped/prometheus.yml" >"$prom/prometheus.yml" || fail "cannot write prometheus.yml"
cp "$shipped/dcistat.rules.yml" "$prom/" || fail "cannot copy the rules"
printf -- '- targets: [127.0.0.1:%s]\n' "$SNMPD_PORT" >"$prom/dcistat-targets.yml"
promtool check config "$prom/prometheus.yml" >"$TMP_DIR/config.out" 2>&1 ||
    fail "promtool check config: $(tr '\n' ' ' <"$TMP_DIR/config.out")"
PROMETHEUS_PORT=$(free_tcp_port) || fail "no free TCP port"
"${_lib_ns_prefix[@]}" prometheus --config.file="$prom/prometheus.yml" \
    --storage.tsdb.path="$prom/data" \
    --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" \
    </dev/null >"$TMP_DIR/prometheus.log" 2>&1 &
PROMETHEUS_PID=$!
_lib_pids+=("$PROMETHEUS_PID")

query() { # PROMQL: the API's JSON answer into $TMP_DIR/query.json
	ns_run curl -sf -o "$TMP_DIR/query.json" --data-urlencode "query=$1" \
	    "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query"
}
# every_series PYTHON-CONDITION: every series of the last query meets it
# (s: its labels, v: its value), and there is one.
every_series() {
	"$PYTHON" - "$TMP_DIR/query.json" "$1" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["data"]["result"]
ok = bool(result) and all(eval(sys.argv[2], {}, {"s": r["metric"], "v": float(r["value"][1])}) for r in result)
sys.exit(0 if ok else 1)
PY
}
targets_up() {
	_lib_alive "$PROMETHEUS_PID" || return "$GIVE_UP"
	query 'count(up{job=~"dcistat_.*"} == 1) == 3' && every_series 'v == 3'
}
wait_until 30 targets_up ||
    fail "Prometheus: the jobs dcistat_netif, dcistat_devstat and dcistat_evcnt are not all up within 30 s"
instance=127.0.0.1:$SNMPD_PORT
# expect_series PROMQL PYTHON-CONDITION: fails unless the query has series
# and each meets the condition.
expect_series() {
	if ! { query "$1" && every_series "$2"; }; then
		fail "Prometheus: $1 is not as expected ($2): $(head -c 400 "$TMP_DIR/query.json")"
	fi
}
expect_series 'dci_netif_rx_bytes_total{dci_netif_name="lo"}' \
    "s['instance'] == '$instance' and s['job'] == 'dcistat_netif' and s['dci_netif_if_index'] == '1' and v > 0"
expect_series 'dci_netif_oper_up{dci_netif_name="dcp2"}' "v == 0"
expect_series 'dci_evcnt_count_total{dci_evcnt_processor="0"}' \
    "s['instance'] == '$instance' and s['dci_evcnt_group'] != '' and not s['dci_evcnt_name'].startswith('0x')"
if grep -q '^dciDevstatBusyTime' "$TMP_DIR/scrape.dci_devstat"; then
	expect_series 'dci_devstat_busy_time_total' \
	    "s['instance'] == '$instance' and s['dci_devstat_device_name'] != ''"
fi
# Every series the three jobs stored, by Prometheus's API, against what
# the exporter exposed: each metric stored as its MIB name in snake_case,
# a counter's with _total and no other's, and no camelCase label left.
ns_run curl -sf -o "$TMP_DIR/series.json" -g \
    "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/series?match[]={job=~\"dcistat_.*\"}" ||
    fail "Prometheus: cannot read the stored series"
"$PYTHON" - "$TMP_DIR/series.json" "$TMP_DIR" $MODULES <<'PY' || fail "Prometheus: the stored names are not as expected (above)"
import json, re, sys
from prometheus_client.parser import text_string_to_metric_families
series, tmp, modules = json.load(open(sys.argv[1]))["data"], sys.argv[2], sys.argv[3:]
def snake(name):
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0:
            previous, following = name[i - 1], name[i + 1:i + 2]
            if previous.islower() or previous.isdigit() or (previous.isupper() and following.islower()):
                out.append("_")
        out.append(c.lower())
    return "".join(out)
expected = set()
for module in modules:
    for family in text_string_to_metric_families(open("%s/scrape.%s" % (tmp, module)).read()):
        if family.name.startswith("dci"):
            expected.add(snake(family.name) + ("_total" if family.type == "counter" else ""))
# Recording rules' series (dcistat:...:...) appear once a rule has two
# scrapes to work on; their names are checked by promtool's unit test.
stored = {s["__name__"] for s in series if s["__name__"].startswith("dci") and ":" not in s["__name__"]}
failures = 0
if stored != expected:
    print("FAIL: stored but not expected %s; expected but not stored %s" % (sorted(stored - expected), sorted(expected - stored)))
    failures += 1
for s in series:
    for label in s:
        if not re.fullmatch(r"[a-z0-9_]+", label):
            print("FAIL: %s carries the label %s" % (s["__name__"], label)); failures += 1
            break
counters = sorted(n for n in stored if n.endswith("_total"))
print("# %d names stored, %d of them counters (%s ...)" % (len(stored), len(counters), ", ".join(counters[:3])))
sys.exit(1 if failures else 0)
PY
recorded() {
	query 'dcistat:netif_errors:rate5m{dci_netif_name="lo"}' && every_series 'v == 0'
}
wait_until 15 recorded ||
    fail "Prometheus: the rule dcistat:netif_errors:rate5m gives no 0 for lo within 15 s: $(cat "$TMP_DIR/query.json")"
ok "Prometheus with contrib/prometheus/prometheus.yml: the three jobs up through the exporter, every series stored with its snake_case name (counters _total) and labels, labelled instance=$instance and the rows' names, dcp2's oper_up 0, rules recorded"

stop_dcistatd
ok "done in $(($(now_ms) - started)) ms"
