"""Python programs publish statistics to dcistatd (libdcistat-supplier).

A :class:`Supplier` is the application's shared-memory segment in dcistatd's
run directory; its counters, gauges, histograms, evcnt(9) event counters and
devstat(9) devices are served by dcistatd's ``suppliers`` provider as classes
under ``3.<number>`` of DCI-STATS-MIB, and shown by ``dcistat show``::

    import dcistat

    supplier = dcistat.Supplier("myapp", 100, number=4343)
    requests = supplier.counter("requests", unit="count")
    requests.labels("GET").inc()

Every update may be called from any thread: each OS thread adds into a region
of the segment of its own, which dcistatd sums, so no update is lost and none
takes a lock. After ``os.fork()`` the child does not write the parent's
segment: the parent's objects raise RuntimeError there, and the child opens a
Supplier of its own (with another name).

A :class:`Consumer` reads dcistatd's classes through its DCI Server
(libdci, dci(3); dcistatd's ``agent: dci-socket``)::

    with dcistat.Consumer() as consumer:
        for name, row in consumer.read("1.1", datums=["name", "rx_bytes"]).items():
            print(name, row)

Errors of the supplier library raise ValueError (a bad argument) or OSError (with its
errno) carrying the library's message; wrong types raise TypeError, values out
of range ValueError or OverflowError. A consumer's failing libdci status
raises :class:`DciError` (its ``status`` name and ``message``).
"""

from typing import NamedTuple, Optional, Sequence

from ._dcistat import (
    BUCKETS_MAX,
    CLASS_ARC,
    EVCNT_INTR,
    EVCNT_MISC,
    EVCNT_TRAP,
    FIRST_GENERIC_CLASS,
    FREE,
    LABEL_MAX,
    NO_DATA,
    READ,
    WRITE,
    Device,
    EventCounter,
    Histogram,
    HistogramInstance,
    Instance,
    Metric,
    Supplier,
    Transaction,
)

from .consumer import (
    DATA_CHANGED,
    INSTANCE_ADDED,
    INSTANCE_REMOVED,
    ClassInfo,
    Consumer,
    DciError,
    Event,
    EventKind,
)

__all__ = [
    "ClassInfo",
    "Consumer",
    "DATA_CHANGED",
    "DciError",
    "Event",
    "EventKind",
    "INSTANCE_ADDED",
    "INSTANCE_REMOVED",
    "BUCKETS_MAX",
    "Buckets",
    "CLASS_ARC",
    "Device",
    "EVCNT_INTR",
    "EVCNT_MISC",
    "EVCNT_TRAP",
    "EventCounter",
    "FIRST_GENERIC_CLASS",
    "FREE",
    "Histogram",
    "HistogramInstance",
    "Instance",
    "LABEL_MAX",
    "Metric",
    "NO_DATA",
    "READ",
    "Supplier",
    "Transaction",
    "WRITE",
]

# enum dcistat_histogram_kind and enum dcistat_histogram_layout.
_CONTINUOUS, _DISCRETE_RANGE, _DISCRETE_VALUE = 1, 2, 3
_USER, _LINEAR, _EXPONENTIAL, _LINEAR_EXPONENTIAL = 0, 1, 2, 3


class Buckets(NamedTuple):
    """A histogram's bucket layout, as stats(3) lays them out.

    Build one with the class methods; Supplier.histogram takes it. The
    library checks it (a bad layout raises ValueError with its message).
    ``wide`` gives 64-bit bucket counters, else 32-bit ones that wrap.
    """

    kind: int
    layout: int
    low: int
    high: int
    step: int
    base: int
    lower: Optional[Sequence[int]]
    upper: Optional[Sequence[int]]
    wide: bool

    @classmethod
    def linear(cls, low: int, high: int, step: int, wide: bool = True) -> "Buckets":
        """[low, low + step), [low + step, low + 2 step) ... up to high
        (STATS_VSS_CRHIST*_LIN)."""
        return cls(_CONTINUOUS, _LINEAR, low, high, step, 0, None, None, wide)

    @classmethod
    def exponential(cls, low: int, high: int, base: int, wide: bool = True) -> "Buckets":
        """[low, low * base), [low * base, low * base**2) ... up to high
        (STATS_VSS_CRHIST*_EXP)."""
        return cls(_CONTINUOUS, _EXPONENTIAL, low, high, 0, base, None, None, wide)

    @classmethod
    def linear_exponential(
        cls, low: int, high: int, base: int, step: int, wide: bool = True
    ) -> "Buckets":
        """Each power of ``base`` from low to high split into ``step``
        linear buckets (STATS_VSS_CRHIST*_LINEXP)."""
        return cls(_CONTINUOUS, _LINEAR_EXPONENTIAL, low, high, step, base, None, None, wide)

    @classmethod
    def user(cls, lower: Sequence[int], high: int, wide: bool = True) -> "Buckets":
        """Buckets starting at the ascending ``lower`` bounds, the last one
        ending at ``high`` (exclusive)."""
        return cls(_CONTINUOUS, _USER, 0, high, 0, 0, tuple(lower), None, wide)

    @classmethod
    def ranges(cls, ranges: Sequence[Sequence[int]], wide: bool = True) -> "Buckets":
        """Discrete ranges: bucket i counts lower_i <= v <= upper_i."""
        pairs = [tuple(pair) for pair in ranges]
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError("a range is a (lower, upper) pair")
        return cls(
            _DISCRETE_RANGE, _USER, 0, 0, 0, 0,
            tuple(p[0] for p in pairs), tuple(p[1] for p in pairs), wide,
        )

    @classmethod
    def values(cls, values: Sequence[int], wide: bool = True) -> "Buckets":
        """Discrete values: bucket i counts v == values[i]."""
        return cls(_DISCRETE_VALUE, _USER, 0, 0, 0, 0, tuple(values), None, wide)
