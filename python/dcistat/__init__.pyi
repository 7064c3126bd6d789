# Type hints of the dcistat package (its C extension _dcistat and
# __init__.py, consumer.py). Docstrings are in the extension and in
# consumer.py: help(dcistat.Supplier), help(dcistat.Consumer).
import datetime
import enum
import ipaddress
from types import TracebackType
from typing import (
    Dict,
    Iterable,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
)

BUCKETS_MAX: int
CLASS_ARC: int
FIRST_GENERIC_CLASS: int
LABEL_MAX: int
EVCNT_MISC: int
EVCNT_INTR: int
EVCNT_TRAP: int
NO_DATA: int
READ: int
WRITE: int
FREE: int

Unit = Optional[str]  # "bytes", "microseconds", "count", ... or None

class Buckets(NamedTuple):
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
    def linear(cls, low: int, high: int, step: int, wide: bool = ...) -> Buckets: ...
    @classmethod
    def exponential(cls, low: int, high: int, base: int, wide: bool = ...) -> Buckets: ...
    @classmethod
    def linear_exponential(
        cls, low: int, high: int, base: int, step: int, wide: bool = ...
    ) -> Buckets: ...
    @classmethod
    def user(cls, lower: Sequence[int], high: int, wide: bool = ...) -> Buckets: ...
    @classmethod
    def ranges(cls, ranges: Sequence[Sequence[int]], wide: bool = ...) -> Buckets: ...
    @classmethod
    def values(cls, values: Sequence[int], wide: bool = ...) -> Buckets: ...

class Instance:
    @property
    def label(self) -> str: ...
    def inc(self, amount: Union[int, float] = ...) -> None: ...
    def dec(self, amount: Union[int, float] = ...) -> None: ...
    def set(self, value: Union[int, float]) -> None: ...

class Metric:
    @property
    def name(self) -> str: ...
    @property
    def class_id(self) -> Tuple[int, int, int]: ...
    def labels(self, label: str) -> Instance: ...
    def remove(self, label: str) -> None: ...
    def inc(self, amount: Union[int, float] = ...) -> None: ...
    def dec(self, amount: Union[int, float] = ...) -> None: ...
    def set(self, value: Union[int, float]) -> None: ...

class HistogramInstance:
    @property
    def label(self) -> str: ...
    def observe(self, value: int) -> None: ...
    def change(self, delta: int) -> None: ...

class Histogram:
    @property
    def name(self) -> str: ...
    @property
    def class_ids(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]: ...
    def labels(self, label: str) -> HistogramInstance: ...
    def remove(self, label: str) -> None: ...
    def observe(self, value: int) -> None: ...
    def change(self, delta: int) -> None: ...

class EventCounter:
    @property
    def group(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def parent(self) -> Optional[EventCounter]: ...
    def increment(self) -> None: ...
    def add(self, amount: int) -> None: ...
    def detach(self) -> None: ...

class Transaction:
    bytes: int
    @property
    def tag(self) -> int: ...
    def __enter__(self) -> Transaction: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...

class Device:
    @property
    def name(self) -> str: ...
    def start(self) -> int: ...
    def end(self, bytes: int, tag: int, kind: int = ...) -> None: ...
    def transaction(self, kind: int = ..., bytes: int = ...) -> Transaction: ...
    def remove(self) -> None: ...

class Supplier:
    def __init__(
        self,
        name: str,
        version: int = ...,
        *,
        number: Optional[int] = ...,
        title: Optional[str] = ...,
        description: Optional[str] = ...,
        directory: Optional[str] = ...,
        thread_regions: int = ...,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def path(self) -> Optional[str]: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> Supplier: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...
    def counter(self, name: str, description: Optional[str] = ..., unit: Unit = ...) -> Metric: ...
    def gauge(self, name: str, description: Optional[str] = ..., unit: Unit = ...) -> Metric: ...
    def float_gauge(self, name: str, description: Optional[str] = ...) -> Metric: ...
    def histogram(
        self, name: str, buckets: Buckets, unit: Unit = ..., *, quantiles: bool = ...
    ) -> Histogram: ...
    def event_counter(
        self, group: str, name: str, parent: Optional[EventCounter] = ..., type: int = ...
    ) -> EventCounter: ...
    def device(
        self,
        name: str,
        unit_number: int = ...,
        block_size: int = ...,
        flags: int = ...,
        device_type: int = ...,
        priority: int = ...,
    ) -> Device: ...

# --- consumers (consumer.py, through libdci) ---------------------------------

class DciError(Exception):
    status: str  # the <dci.h> status name without DCI_, e.g. "NOTPRESENT"
    code: int
    message: str
    def __init__(self, code: int, what: str, os_errno: int = ...) -> None: ...

class EventKind(enum.Enum):
    INSTANCE_ADDED = 0xF7
    INSTANCE_REMOVED = 0xF6
    DATA_CHANGED = 0xF5

INSTANCE_ADDED: EventKind
INSTANCE_REMOVED: EventKind
DATA_CHANGED: EventKind

ClassIdLike = Union[str, Sequence[int]]
# An instance as read() keys it: an int for a class of one 4-byte level,
# else a tuple with a value per level (None: a wildcard in a request).
InstanceKey = Union[int, bytes, ipaddress.IPv4Address, ipaddress.IPv6Address, Tuple[object, ...]]
Value = Union[
    None,
    bool,
    int,
    float,
    str,
    bytes,
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    datetime.datetime,
    datetime.timedelta,
]

class ClassInfo(NamedTuple):
    id: Tuple[int, ...]
    label: str
    description: str

class Event(NamedTuple):
    kind: EventKind
    class_id: Tuple[int, ...]
    instance: InstanceKey
    time: Optional[datetime.datetime]

class Consumer:
    def __init__(
        self,
        socket_path: Optional[str] = ...,
        events: Iterable[ClassIdLike] = ...,
        event_kinds: Iterable[EventKind] = ...,
    ) -> None: ...
    def __enter__(self) -> Consumer: ...
    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None: ...
    def close(self) -> None: ...
    def classes(self) -> List[ClassInfo]: ...
    def instances(self, class_id: ClassIdLike) -> List[InstanceKey]: ...
    def read(
        self,
        class_id: ClassIdLike,
        instance: Union[None, str, InstanceKey] = ...,
        datums: Optional[Iterable[Union[str, int]]] = ...,
    ) -> Dict[InstanceKey, Dict[str, Value]]: ...
    def wait_event(self, timeout: Optional[float] = ...) -> Optional[Event]: ...
