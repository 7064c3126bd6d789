"""What each kind of statistic publishes arrives exact in the segment, as the
suppliers provider reads it."""

import os
import threading

import pytest

import dcistat

NUMBER = 4343


@pytest.fixture
def supplier(run_dir):
    with dcistat.Supplier("pytest_app", 100, number=NUMBER, directory=str(run_dir)) as s:
        yield s


def class_of(relative):
    return f"3.{NUMBER}.{relative}"


def test_counter_labels_and_default_instance(supplier, served):
    requests = supplier.counter("requests", description="requests served", unit="count")
    assert requests.class_id == (3, NUMBER, dcistat.FIRST_GENERIC_CLASS)
    requests.labels("GET").inc()
    requests.labels("GET").inc(41)
    requests.labels("POST").inc(2**64 - 1)
    requests.inc()
    rows = served(class_of(16))
    assert rows["GET"]["value"] == 42
    assert rows["POST"]["value"] == 2**64 - 1
    assert rows["requests"]["value"] == 1
    assert requests.labels("GET") is requests.labels("GET")


def test_counter_wraps_at_64_bits(supplier, served):
    wraps = supplier.counter("wraps")
    wraps.inc(2**64 - 1)
    wraps.inc(3)
    assert served(class_of(16))["wraps"]["value"] == 2


def test_gauges(supplier, served):
    depth = supplier.gauge("depth")
    depth.set(-7)
    depth.labels("other").set(2**63 - 1)
    load = supplier.float_gauge("load")
    load.set(0.52)
    load.inc(1.25)
    load.dec()
    load.labels("low").set(-21474836.47)
    rows = served(class_of(16))
    assert rows["depth"]["value"] == -7
    assert rows["other"]["value"] == 2**63 - 1
    depth.inc(10)
    depth.dec(4)
    assert served(class_of(16))["depth"]["value"] == -1
    rows = served(class_of(17))
    assert rows["load"]["value"] == pytest.approx(0.77)
    assert rows["low"]["value"] == pytest.approx(-21474836.47)


def test_threads_add_exact(supplier, served):
    hits = supplier.counter("hits")
    threads, increments = 4, 100_000

    def work():
        instance = hits.labels("all")
        for _ in range(increments):
            instance.inc()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert served(class_of(16))["all"]["value"] == threads * increments


def dotted(class_id):
    return ".".join(map(str, class_id))


def buckets_served(served, histogram, label):
    """[(lower, upper, count)] of the instance `label`, in bucket order."""
    rows = served(dotted(histogram.class_ids[1]))
    return [(row["lower"], row["upper"], row["count"])
            for name, row in sorted(rows.items(), key=lambda item: item[1]["id"])
            if name.startswith(label + " ")]


def summary_served(served, histogram, label):
    return served(dotted(histogram.class_ids[0]))[label]


def test_histogram_linear_buckets_exact(supplier, served):
    latency = supplier.histogram("latency", dcistat.Buckets.linear(0, 400, 100),
                                 unit="microseconds")
    samples = [0, 5, 99, 100, 150, 250, 399, 400, 1000, -1]
    for sample in samples:
        latency.observe(sample)
    assert buckets_served(served, latency, "latency") == [
        (0, 100, 3), (100, 200, 2), (200, 300, 1), (300, 400, 1)]
    summary = summary_served(served, latency, "latency")
    assert summary["samples"] == len(samples)
    assert summary["sum"] == sum(samples)
    assert summary["max"] == 1000
    assert summary["min"] == -1
    assert summary["out_of_band"] == 3


def test_histogram_quantiles(supplier, served):
    """quantiles=True adds the stats(3) t-digest: p50, p90 and p99 within
    the digest's 1 % of the exact quantiles of 1..10000."""
    latency = supplier.histogram("qlat", dcistat.Buckets.linear(0, 10000, 1000),
                                 quantiles=True)
    assert len(latency.class_ids) == 3
    for sample in range(1, 10001):
        latency.observe(sample)
    quantiles = served(dotted(latency.class_ids[2]))["qlat"]
    for label, exact in (("p50", 5000), ("p90", 9000), ("p99", 9900)):
        assert abs(quantiles[label] - exact) <= exact * 0.01, (label, quantiles)
    plain = supplier.histogram("plain", dcistat.Buckets.linear(0, 10, 1))
    assert len(plain.class_ids) == 2
    with pytest.raises(TypeError):
        supplier.histogram("bad", dcistat.Buckets.linear(0, 10, 1), None, True)


def test_histogram_layouts(supplier, served):
    exponential = supplier.histogram("exp", dcistat.Buckets.exponential(1, 1000, 10))
    user = supplier.histogram("user", dcistat.Buckets.user([0, 10, 50], 100))
    ranges = supplier.histogram("ranges", dcistat.Buckets.ranges([(1, 2), (5, 9)]))
    values = supplier.histogram("values", dcistat.Buckets.values([3, 7, 11]),)
    linexp = supplier.histogram("linexp", dcistat.Buckets.linear_exponential(1, 100, 10, 2))
    for sample in (1, 9, 10, 99, 500, 999, 1000):
        exponential.observe(sample)
    for sample in (0, 9, 10, 49, 50, 99, 100):
        user.labels("a").observe(sample)
    for sample in (1, 2, 3, 5, 9, 10):
        ranges.observe(sample)
    for sample in (3, 3, 7, 8, 11):
        values.observe(sample)
    assert buckets_served(served, exponential, "exp") == [
        (1, 10, 2), (10, 100, 2), (100, 1000, 2)]
    assert buckets_served(served, user, "a") == [(0, 10, 2), (10, 50, 2), (50, 100, 2)]
    assert [count for _, _, count in buckets_served(served, ranges, "ranges")] == [2, 2]
    assert [count for _, _, count in buckets_served(served, values, "values")] == [2, 1, 1]
    assert summary_served(served, values, "values")["out_of_band"] == 1
    for sample in (1, 4, 5, 9, 10, 54, 55, 99, 100):
        linexp.observe(sample)
    buckets = buckets_served(served, linexp, "linexp")
    assert buckets[0][0] == 1 and buckets[-1][1] == 100
    assert all(a[1] == b[0] for a, b in zip(buckets, buckets[1:]))
    for lower, upper, count in buckets:
        assert count == sum(1 for s in (1, 4, 5, 9, 10, 54, 55, 99) if lower <= s < upper)


def test_histogram_relative_changes(supplier, served):
    depth = supplier.histogram("queue", dcistat.Buckets.linear(0, 10, 5))
    for delta in (3, 3, -5, 7):
        depth.change(delta)
    summary = summary_served(served, depth, "queue")
    assert (summary["samples"], summary["sum"], summary["max"], summary["min"]) == (
        4, 3 + 6 + 1 + 8, 8, 1)


def test_event_counter_tree(supplier, served):
    root = supplier.event_counter("app", "all")
    child = supplier.event_counter("app", "requests", parent=root, type=dcistat.EVCNT_INTR)
    child.increment()
    child.add(9)
    rows = served(class_of(1))
    assert rows["app requests"]["count"] == 10
    assert rows["app requests"]["parent"] == rows["app all"]["id"]
    with pytest.raises(OSError) as refused:
        root.detach()
    assert "attached" in str(refused.value) or refused.value.errno == 16
    child.detach()
    root.detach()
    assert served(class_of(1)) == {}
    with pytest.raises(RuntimeError):
        child.increment()


def test_device_transactions(supplier, served):
    disk = supplier.device("pydisk", 3)
    tag = disk.start()
    disk.end(4096, tag, dcistat.WRITE)
    with disk.transaction(dcistat.READ) as transaction:
        transaction.bytes = 512
    with pytest.raises(ZeroDivisionError):
        with disk.transaction() as transaction:
            transaction.bytes = 1024
            raise ZeroDivisionError
    row = served(class_of(2))["pydisk3"]
    assert (row["num_reads"], row["bytes_read"]) == (2, 1536)
    assert (row["num_writes"], row["bytes_written"]) == (1, 4096)
    disk.remove()
    assert served(class_of(2)) == {}


def test_remove_and_close(supplier, served, run_dir):
    requests = supplier.counter("requests")
    get = requests.labels("GET")
    get.inc()
    requests.remove("GET")
    assert served(class_of(16)) == {}
    with pytest.raises(RuntimeError, match="removed"):
        get.inc()
    with pytest.raises(KeyError):
        requests.remove("GET")
    path = supplier.path
    assert os.path.exists(path)
    supplier.close()
    assert supplier.closed
    assert not os.path.exists(path)
    with pytest.raises(RuntimeError, match="closed"):
        requests.inc()
    supplier.close()


def test_dropped_metrics_are_collected(supplier):
    """A metric and its instances refer to each other; once the program
    drops them the collector frees them (and their references to the
    supplier)."""
    import gc
    import sys

    gc.collect()
    before = sys.getrefcount(supplier)
    for n in range(3):
        supplier.counter(f"c{n}").labels("one").inc()
        supplier.histogram(f"h{n}", dcistat.Buckets.linear(0, 10, 5)).labels("one").observe(1)
    assert sys.getrefcount(supplier) > before
    gc.collect()
    assert sys.getrefcount(supplier) == before
