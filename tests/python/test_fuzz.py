"""A small fuzz of the argument surface (hypothesis): any value of any type
given to a label, an update or a layout either works or raises TypeError,
ValueError or OverflowError; it never crashes."""

import pytest

import dcistat

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
    st.text(max_size=300), st.binary(max_size=20),
    st.lists(st.integers(), max_size=4), st.tuples(st.integers(), st.text()))
REFUSALS = (TypeError, ValueError, OverflowError)
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def supplier(run_dir):
    with dcistat.Supplier("pytest_fuzz", number=4348, directory=str(run_dir)) as s:
        yield s


@pytest.fixture
def metrics(supplier):
    """One of each metric for all the examples of a test (a supplier has
    room for 32 classes)."""
    return {"counter": supplier.counter("c"), "gauge": supplier.gauge("g"),
            "fractions": supplier.float_gauge("f")}


@FUZZ
@given(labels=st.lists(ANYTHING, max_size=5), amounts=st.lists(ANYTHING, max_size=5))
def test_counter_surface(metrics, labels, amounts):
    counter = metrics["counter"]
    for label in labels:
        try:
            instance = counter.labels(label)
        except REFUSALS:
            continue
        for amount in amounts:
            try:
                instance.inc(amount)
            except REFUSALS:
                assert not (isinstance(amount, int) and 0 <= amount < 2**64)
            for method in (instance.set, instance.dec):
                with pytest.raises(REFUSALS):
                    method(amount)


@FUZZ
@given(values=st.lists(ANYTHING, max_size=8))
def test_gauge_surface(metrics, values):
    gauge = metrics["gauge"].labels("one")
    fractions = metrics["fractions"].labels("one")
    for value in values:
        for update in (gauge.set, gauge.inc, gauge.dec, fractions.set, fractions.inc,
                       fractions.dec):
            try:
                update(value)
            except REFUSALS:
                pass


@FUZZ
@given(arguments=st.lists(ANYTHING, min_size=4, max_size=4), samples=st.lists(ANYTHING, max_size=5))
def test_histogram_surface(run_dir, arguments, samples):
    with dcistat.Supplier("pytest_fuzz_histogram", number=4349, directory=str(run_dir),
                          thread_regions=1) as supplier:
        for layout in (dcistat.Buckets.linear, dcistat.Buckets.exponential):
            try:
                histogram = supplier.histogram("h", layout(*arguments[:3]))
            except REFUSALS:
                continue
            for sample in samples:
                try:
                    histogram.observe(sample)
                except REFUSALS:
                    pass


@FUZZ
@given(group=ANYTHING, name=ANYTHING, device=ANYTHING, numbers=st.lists(ANYTHING, max_size=3))
def test_model_surface(supplier, group, name, device, numbers):
    try:
        counter = supplier.event_counter(group, name)
    except REFUSALS:
        pass
    else:
        for number in numbers:
            try:
                counter.add(number)
            except REFUSALS:
                pass
        counter.detach()
    try:
        disk = supplier.device(device, *numbers[:1])
    except REFUSALS:
        return
    for number in numbers:
        try:
            disk.end(number, disk.start(), number)
        except REFUSALS:
            pass
    disk.remove()
