"""Bad arguments raise, with the library's message where the library judges
them; nothing crashes and nothing is published by a refused call."""

import errno

import pytest

import dcistat


@pytest.fixture
def supplier(run_dir):
    with dcistat.Supplier("pytest_args", 1, number=4344, directory=str(run_dir)) as s:
        yield s


def test_supplier_arguments(run_dir, tmp_path):
    with pytest.raises(TypeError):
        dcistat.Supplier(b"bytes", directory=str(run_dir))
    with pytest.raises(ValueError, match="NUL"):
        dcistat.Supplier("a\0b", directory=str(run_dir))
    with pytest.raises(ValueError, match="empty"):
        dcistat.Supplier("", directory=str(run_dir))
    with pytest.raises(ValueError, match="number"):
        dcistat.Supplier("app", number=0, directory=str(run_dir))
    with pytest.raises(OverflowError):
        dcistat.Supplier("app", number=2**32, directory=str(run_dir))
    with pytest.raises(ValueError):
        dcistat.Supplier("app", version=-1, directory=str(run_dir))
    with pytest.raises(ValueError, match="null"):
        dcistat.Supplier("app", directory=str(run_dir) + "\0x")
    with pytest.raises(OSError) as missing:
        dcistat.Supplier("app", directory=str(tmp_path / "missing"))
    assert missing.value.errno == errno.ENOENT
    assert "missing" in str(missing.value)
    with pytest.raises(ValueError, match="only letters, digits"):
        dcistat.Supplier("app with spaces/and slash", directory=str(run_dir))
    assert list(run_dir.iterdir()) == []


def test_label_arguments(supplier):
    requests = supplier.counter("requests")
    for bad, error in ((None, TypeError), (b"GET", TypeError), (7, TypeError),
                       ("", ValueError), ("GE\0T", ValueError),
                       ("x" * 256, ValueError), ("\ud800", ValueError)):
        with pytest.raises(error):
            requests.labels(bad)
    assert requests.labels("é" * 127).label == "é" * 127
    with pytest.raises(ValueError, match="NUL"):
        supplier.counter("re\0quests")
    with pytest.raises(ValueError, match="unit"):
        supplier.counter("other", unit="furlongs")


def test_value_arguments(supplier):
    counter = supplier.counter("c").labels("one")
    gauge = supplier.gauge("g").labels("one")
    hundredths = supplier.float_gauge("f").labels("one")
    with pytest.raises(ValueError, match="negative"):
        counter.inc(-1)
    with pytest.raises(OverflowError):
        counter.inc(2**64)
    with pytest.raises(TypeError):
        counter.inc(1.5)
    with pytest.raises(TypeError):
        counter.inc("1")
    with pytest.raises(TypeError):
        counter.inc(1, 2)
    with pytest.raises(TypeError, match="only goes up"):
        counter.dec()
    with pytest.raises(TypeError, match="set"):
        counter.set(3)
    with pytest.raises(OverflowError):
        gauge.set(2**63)
    with pytest.raises(OverflowError):
        gauge.set(-2**63 - 1)
    with pytest.raises(TypeError):
        gauge.set(0.5)
    for bad, error in ((float("nan"), ValueError), (float("inf"), ValueError),
                       (1e9, OverflowError), ("1", TypeError), (None, TypeError)):
        with pytest.raises(error):
            hundredths.set(bad)


def test_histogram_arguments(supplier):
    with pytest.raises(TypeError, match="Buckets"):
        supplier.histogram("h", (1, 2))
    with pytest.raises(ValueError) as refused:
        supplier.histogram("h", dcistat.Buckets.linear(100, 0, 10))
    assert str(refused.value)  # the library's sentence
    with pytest.raises(ValueError, match="more than"):
        supplier.histogram("h", dcistat.Buckets.values(range(dcistat.BUCKETS_MAX + 1)))
    with pytest.raises(ValueError):
        supplier.histogram("h", dcistat.Buckets.ranges([(1, 2, 3)]))
    with pytest.raises(TypeError):
        supplier.histogram("h", dcistat.Buckets.user(["a"], 10))
    histogram = supplier.histogram("ok", dcistat.Buckets.linear(0, 10, 5))
    with pytest.raises(OverflowError):
        histogram.observe(2**63)
    with pytest.raises(TypeError):
        histogram.observe(1.0)


def test_event_counter_and_device_arguments(supplier, run_dir):
    with pytest.raises(ValueError) as refused:
        supplier.event_counter("g" * 64, "name")
    assert "63" in str(refused.value) or "take" in str(refused.value)
    with pytest.raises(ValueError, match="type"):
        supplier.event_counter("g", "n", type=7)
    with pytest.raises(TypeError, match="EventCounter"):
        supplier.event_counter("g", "n", parent="root")
    with dcistat.Supplier("pytest_other", number=4345, directory=str(run_dir)) as other:
        foreign = other.event_counter("g", "root")
        with pytest.raises(ValueError, match="another supplier"):
            supplier.event_counter("g", "n", parent=foreign)
    counter = supplier.event_counter("g", "n")
    with pytest.raises(ValueError):
        counter.add(-1)
    with pytest.raises(ValueError) as refused:
        supplier.device("d" * 100)
    assert "longer than" in str(refused.value)
    device = supplier.device("disk")
    with pytest.raises(ValueError, match="kind"):
        device.end(1, device.start(), 9)
    with pytest.raises(TypeError):
        device.end(1)
    with pytest.raises(ValueError):
        device.end(-1, 0)
    with pytest.raises(ValueError):
        device.transaction(kind=4)
    with device.transaction() as transaction:
        with pytest.raises(ValueError):
            transaction.bytes = -1
    with pytest.raises(RuntimeError, match="not started"):
        transaction.__exit__(None, None, None)
