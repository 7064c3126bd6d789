"""dcistat.Consumer against a live dcistatd with its DCI Server, as
tests/integration/python_consumer.sh starts it (netif provider, a quiet
veth in a network namespace). Skipped without that script's environment:
DCISTAT_TEST_DCI_SOCKET, DCISTAT_TEST_NETNS, DCISTAT_TEST_QUIET (the quiet
interface's ifIndex), DCISTAT_TEST_SNMPGET (snmpget through the private
master), DCISTAT_TEST_C64 and DCISTAT_TEST_TEXT (dciStatCounter64 and
dciStatText of class 1.1)."""

import datetime
import ipaddress
import os
import re
import subprocess
import sys
import time

import pytest

import dcistat

ENV = os.environ
pytestmark = pytest.mark.skipif(
    "DCISTAT_TEST_DCI_SOCKET" not in ENV,
    reason="needs tests/integration/python_consumer.sh's dcistatd")
NETIF = "1.1"


def ns_run(*command):
    return subprocess.run(["ip", "netns", "exec", ENV["DCISTAT_TEST_NETNS"], *command],
                          capture_output=True, text=True, check=True, timeout=10).stdout


def namespace_ifindexes():
    return sorted(int(i) for i in ns_run("sh", "-c", "cat /sys/class/net/*/ifindex").split())


def snmp_get(oids):
    out = subprocess.run([ENV["DCISTAT_TEST_SNMPGET"], *oids], capture_output=True,
                         text=True, check=True, timeout=10).stdout.splitlines()
    return [line[1:-1] if len(line) >= 2 and line[0] == line[-1] == '"' else line
            for line in out]


def until(seconds, check):
    """check() until it returns a true value or `seconds` pass; its last
    value."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


@pytest.fixture
def consumer():
    with dcistat.Consumer(ENV["DCISTAT_TEST_DCI_SOCKET"]) as opened:
        yield opened


def test_classes_lists_netif(consumer):
    classes = {c.id: c for c in consumer.classes()}
    assert (1, 1) in classes
    assert classes[(1, 1)].label == "netif"


def test_every_type_as_python_values(consumer):
    """The example provider (class 2.1, instances 1 and 2): each DCI type
    as its Python value."""
    utc = datetime.timezone.utc
    rows = until(10, lambda: consumer.read("2.1"))
    assert sorted(rows) == [1, 2]
    row = rows[2]
    expected = {
        "bool_on_off": True,
        "text": "Hello, world",
        "empty_text": "",
        "int8_decimal": -2,
        "uint8_decimal": 250,
        "int32_decimal": -2,
        "int64_decimal": -2,
        "uint64_gauge": 0x0102030405060708,
        "instance_number": 2,
        "ip_address": ipaddress.IPv4Address("192.0.2.1"),
        "ip_address_bytes": ipaddress.IPv4Address("198.51.100.7"),
        # An octet string of its exact length (libdci's size word).
        "mac_address": bytes.fromhex("02005e100001"),
        "ctime_absolute": datetime.datetime(2026, 1, 1, tzinfo=utc),
        "fivebyte_absolute": datetime.datetime(2026, 1, 1, tzinfo=utc),
        "ctime_relative": datetime.timedelta(seconds=90),
        "monotonic_relative": datetime.timedelta(seconds=2.5),
    }
    assert {label: row[label] for label in expected} == expected
    for label, value in expected.items():
        assert type(row[label]) is type(value), label
    assert consumer.read("2.1", 1, ["instance_number", "text"]) == \
        {1: {"instance_number": 1, "text": "Hello, world"}}


def test_read_equals_snmp_in_one_snapshot(consumer):
    quiet = int(ENV["DCISTAT_TEST_QUIET"])
    compared = {}

    def agree():
        row = consumer.read(NETIF, quiet)[quiet]
        info = consumer._class((1, 1))
        oids, expected = [], []
        for datum in info.datums:
            value = row.get(datum.label)
            if datum.type == 4:  # UMA_UINT8: a 64-bit counter
                oids.append(f"{ENV['DCISTAT_TEST_C64']}.1.{quiet}.{datum.id}")
                expected.append(str(value))
            elif datum.label == "name":
                oids.append(f"{ENV['DCISTAT_TEST_TEXT']}.1.{quiet}.{datum.id}")
                expected.append(value)
        compared["count"], compared["row"] = len(oids), row
        return len(oids) >= 10 and snmp_get(oids) == expected

    assert until(10, agree), compared
    row = compared["row"]
    assert row["name"] == "dh30cb"
    assert isinstance(row["rx_bytes"], int) and row["mtu"] == 1500
    assert row["oper_up"] is True
    # last_change is a time since boot (STF_MONOTONIC): an interval.
    assert isinstance(row["last_change"], datetime.timedelta)
    # The MAC: libdci pads an octet string to whole words.
    mac = bytes.fromhex(ns_run("cat", "/sys/class/net/dh30cb/address").strip().replace(":", ""))
    assert row["address"] == mac
    # One datum asked alone equals the block's.
    alone = consumer.read(NETIF, quiet, datums=["rx_bytes", "name"])
    assert alone == {quiet: {"rx_bytes": compared["row"]["rx_bytes"], "name": "dh30cb"}}


def test_wildcard_reads_every_interface(consumer):
    expected = namespace_ifindexes()
    assert until(10, lambda: sorted(consumer.read(NETIF, "*", ["rx_bytes"])) == expected), \
        (sorted(consumer.read(NETIF, None, ["rx_bytes"])), expected)
    assert sorted(consumer.instances(NETIF)) == expected
    every = consumer.read(NETIF)
    assert sorted(every) == expected
    assert all(isinstance(row["rx_bytes"], int) for row in every.values())
    # lo (ifIndex 1 of the namespace) has no link speed: invalid data
    # (DCI_INVALIDDATAPRESENT, its DCIInvalidData) reads as None.
    assert every[1]["name"] == "lo" and every[1]["speed"] is None
    assert consumer.read(NETIF, 1, ["speed"]) == {1: {"speed": None}}


def test_wait_event_for_a_veth_pair_created_and_deleted():
    with dcistat.Consumer(ENV["DCISTAT_TEST_DCI_SOCKET"], events=[NETIF],
                          event_kinds=[dcistat.INSTANCE_ADDED,
                                       dcistat.INSTANCE_REMOVED]) as watcher:
        assert watcher.wait_event(0.3) is None
        ns_run("ip", "link", "add", "dh30cc", "type", "veth", "peer", "name", "dh30cd")
        new = sorted(int(i) for i in ns_run(
            "cat", "/sys/class/net/dh30cc/ifindex", "/sys/class/net/dh30cd/ifindex").split())
        added = []
        while len(added) < 2:
            event = watcher.wait_event(5)
            assert event is not None, f"no INSTANCE_ADDED after {added}"
            assert event.class_id == (1, 1)
            if event.kind == dcistat.INSTANCE_ADDED:
                added.append(event.instance)
                assert abs(event.time.timestamp() - time.time()) < 60
        assert sorted(added) == new
        ns_run("ip", "link", "del", "dh30cc")
        removed = []
        while len(removed) < 2:
            event = watcher.wait_event(5)
            assert event is not None, f"no INSTANCE_REMOVED after {removed}"
            if event.kind == dcistat.INSTANCE_REMOVED:
                removed.append(event.instance)
        assert sorted(removed) == new


def test_bad_arguments_raise(consumer):
    with pytest.raises(dcistat.DciError) as error:
        consumer.read("99.99")
    assert error.value.status == "NOTPRESENT"
    with pytest.raises(dcistat.DciError) as error:
        consumer.read(NETIF, datums=["no_such_datum"])
    assert error.value.status == "NOTPRESENT"
    with pytest.raises(TypeError):
        consumer.read(NETIF, datums=[1.5])
    with pytest.raises(ValueError):
        consumer.read(NETIF, (1, 2))
    with pytest.raises(ValueError):
        consumer.read(NETIF, -1)
    with pytest.raises(ValueError):
        consumer.read("1.x")
    with pytest.raises(TypeError):
        consumer.read(1.1)
    with pytest.raises(dcistat.DciError) as error:
        consumer.wait_event(0)  # no event asked for
    assert error.value.status == "NOTPRESENT"
    # A missing interface: no row, or NOTPRESENT, never a crash.
    try:
        assert consumer.read(NETIF, 999999) == {}
    except dcistat.DciError as missing:
        assert missing.status == "NOTPRESENT"
    # Events of a class the server does not have (yet): kept, none come.
    with dcistat.Consumer(ENV["DCISTAT_TEST_DCI_SOCKET"],
                          events=["99.99"]) as early:
        assert early.wait_event(0.2) is None
    # Still usable after all that.
    assert int(ENV["DCISTAT_TEST_QUIET"]) in consumer.instances(NETIF)


def test_hypothesis_fuzz_of_read_arguments(consumer):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    levels = st.lists(st.integers(min_value=-2, max_value=2**32 + 1), min_size=0, max_size=18)
    class_ids = st.one_of(levels, levels.map(tuple), st.text(max_size=12),
                          st.just("1.1"), st.just((1, 1)), st.none(), st.floats())
    instances = st.one_of(st.none(), st.just("*"), st.integers(-2, 2**33), st.binary(max_size=20),
                          st.tuples(st.integers(0, 2**32)), st.text(max_size=4))
    datums = st.one_of(st.none(), st.lists(st.one_of(st.text(max_size=10),
                                                     st.integers(-1, 300)), max_size=4))

    @hypothesis.settings(max_examples=300, deadline=None, derandomize=True,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(class_ids, instances, datums)
    def fuzz(class_id, instance, wanted):
        try:
            result = consumer.read(class_id, instance, wanted)
        except (TypeError, ValueError, dcistat.DciError):
            return
        assert isinstance(result, dict)

    fuzz()
    assert (1, 1) in {c.id for c in consumer.classes()}


def test_doc_example_runs_as_shown():
    """doc/PYTHON.md's consumer example, run as the file shows it: it
    lists class 1.1, prints the quiet interface's name, and reports the
    first event of veth pairs created and deleted while it waits."""
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "doc", "PYTHON.md")
    with open(doc, encoding="utf-8") as text:
        section = text.read().split("## Reading statistics", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    env = dict(ENV, DCISTAT_DCI_SOCKET=ENV["DCISTAT_TEST_DCI_SOCKET"])
    process = subprocess.Popen([sys.executable, "-u", "-c", example], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # The watcher subscribes after the reads: pairs come and go until
        # it has seen one.
        for attempt in range(40):
            if process.poll() is not None:
                break
            ns_run("ip", "link", "add", "dh30ce", "type", "veth", "peer", "name", "dh30cf")
            time.sleep(0.25)
            ns_run("ip", "link", "del", "dh30ce")
            time.sleep(0.25)
        output, _ = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    quiet = ENV["DCISTAT_TEST_QUIET"]
    lines = output.splitlines()
    assert process.returncode == 0, output
    assert "1.1 netif Network interfaces, one instance per ifIndex" in lines, output
    assert any(line.startswith(f"{quiet} dh30cb ") for line in lines), output
    # The first event after it subscribed: a pair added or deleted.
    assert any(re.match(r"INSTANCE_(ADDED|REMOVED) [0-9]+ 20", line) for line in lines), output
