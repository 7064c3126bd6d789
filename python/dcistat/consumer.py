"""The consumer side of the dcistat package: dcistatd's DCI Server read
through libdci (<dci.h>, dci(3)).

The C extension (_dcistat._Connection, consumer.c) is the transport: it
calls the libdci routines with the ids packed here and returns each
DCIReturn as bytes. This module packs the ids, decodes the answers into
Python values and raises every failing status as :class:`DciError`.
Every answer is read with ``struct`` against its own length: an answer
that does not hold together raises DciError, never reads past its end.
"""

import datetime
import enum
import ipaddress
import os
import re
import struct
from collections import deque
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from ._dcistat import _Connection

# Statuses (<dci.h>): their names, and what each means (dci(3)).
_STATUSES = {
    0: ("SUCCESS", "success"),
    1: ("NOTPRESENT", "no such class, instance or datum, or one the caller may not read"),
    2: ("INVALIDARG", "an argument is malformed"),
    3: ("INVALIDDATA", "the datum asked for has no valid value"),
    4: ("ALLOCATIONFAILURE", "out of memory, or an answer beyond the server's limit"),
    5: ("NOIMPLEMENTATION", "not implemented by this server"),
    6: ("SYSERROR", "a system call failed"),
    7: ("NOTINITIALIZED", "no DCI Server answers"),
    8: ("INTERRUPTED", "a signal interrupted the call"),
    9: ("METHODOPUNAVAILABLE", "no provider offers the operation"),
    10: ("INVALIDDATAPRESENT", "some data returned is invalid"),
    11: ("BUFFERTOOSMALL", "a buffer is too small"),
    12: ("TIMEOUT", "the timeout expired with no event"),
}
_SUCCESS, _NOTPRESENT, _INVALIDARG, _INVALIDDATA = 0, 1, 2, 3
_INVALIDDATAPRESENT, _TIMEOUT = 10, 12

_ALL = 0xFFFFFFFF
_INVALIDDATUMID = 0xFF
_EVENTHDR, _EVENTHDRCLASSID, _EVENTHDRINSTANCEID = 0x80000000, 0x40000000, 0x20000000
_EVENTHDRTIMESTAMP = 0x10000000
_EVENTS_MAX = 16  # dciOpen's event ids

# The routines of _Connection.call (consumer.c's enum pydci_routine).
_LIST_CLASSES, _CLASS_ATTRIBUTES, _LIST_INSTANCES = 1, 2, 3
_GET_DATA = 5

# UMADataType, the units whose values are hundredths, and UMA_IPADDR.
_INT4, _INT8, _UINT4, _UINT8, _BOOLEAN = 1, 2, 3, 4, 5
_OCTETSTRING, _TEXTSTRING, _TIMEVAL, _TIMESPEC, _DERIVED = 6, 7, 8, 9, 10
_HUNDREDTHS_UNITS = frozenset({0x10005, 0x403, 0x404, 0x406})  # UMA_DCISTAT_HUNDREDTHS, ratios
_ITYPE_IPADDR = 26
# A UMATimeSpec before this (2001-09-09) is read as an interval: libdci
# gives a time since boot (STF_MONOTONIC) and a duration the same type as
# a calendar time, and no calendar time dcistat serves is that old.
_INTERVAL_BELOW = 1_000_000_000

_DEFAULT_SOCKET = "/run/dcistat/dci.sock"
_DCISTATD_CONFIG = "/etc/dcistat/dcistatd.yaml"


class DciError(Exception):
    """A libdci status other than success: ``status`` is its name (as in
    <dci.h> without DCI_, e.g. ``"NOTPRESENT"``), ``code`` its number,
    ``message`` what it means and what was asked."""

    def __init__(self, code: int, what: str, os_errno: int = 0) -> None:
        name, meaning = _STATUSES.get(code, ("UNKNOWN", "an unknown status"))
        message = f"{what}: {meaning}"
        if os_errno:
            message += f" ({os.strerror(os_errno)})"
        super().__init__(f"DCI_{name}: {message}")
        self.status = name
        self.code = code
        self.message = message


class EventKind(enum.Enum):
    """What an :class:`Event` reports (the DCI event datum ids)."""

    INSTANCE_ADDED = 0xF7
    INSTANCE_REMOVED = 0xF6
    DATA_CHANGED = 0xF5


INSTANCE_ADDED = EventKind.INSTANCE_ADDED
INSTANCE_REMOVED = EventKind.INSTANCE_REMOVED
DATA_CHANGED = EventKind.DATA_CHANGED


class ClassInfo(NamedTuple):
    """A class the caller may read: its id (``(1, 1)``), label and
    description."""

    id: Tuple[int, ...]
    label: str
    description: str


class Event(NamedTuple):
    """An event from :meth:`Consumer.wait_event`: its kind, class id,
    instance (as :meth:`Consumer.read` keys it) and the time the server saw
    it (an aware UTC datetime, or None when not given)."""

    kind: EventKind
    class_id: Tuple[int, ...]
    instance: object
    time: Optional[datetime.datetime]


class _Datum(NamedTuple):
    id: int
    type: int
    units: int
    offset: int
    label: str


class _Level(NamedTuple):
    type: int
    itype: int
    size: int


class _Class(NamedTuple):
    label: str
    description: str
    levels: Tuple[_Level, ...]
    datums: Tuple[_Datum, ...]


ClassIdLike = Union[str, Sequence[int]]


def _class_id(class_id: ClassIdLike) -> Tuple[int, ...]:
    """"1.1" or (1, 1) as a tuple of levels, each 0..2**32 - 2."""
    if isinstance(class_id, str):
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", class_id):
            raise ValueError(f"a class id is dotted decimal, not {class_id!r}")
        levels = tuple(int(level) for level in class_id.split("."))
    elif isinstance(class_id, (tuple, list)):
        levels = tuple(class_id)
        for level in levels:
            if not isinstance(level, int) or isinstance(level, bool):
                raise TypeError("a class id's levels are ints")
    else:
        raise TypeError("a class id is a dotted string or a sequence of ints")
    if not 1 <= len(levels) <= 16:
        raise ValueError("a class id has 1 to 16 levels")
    for level in levels:
        if not 0 <= level < _ALL:
            raise ValueError(f"a class id level is 0..{_ALL - 1}, not {level}")
    return levels


def _pack_class(levels: Tuple[int, ...]) -> bytes:
    return struct.pack(f"={len(levels) + 1}I", 4 + 4 * len(levels), *levels)


def _pack_metric(class_bytes: bytes, instance_words: Optional[Tuple[int, int, Sequence[int]]],
                 datum: int) -> bytes:
    """A DCIMetricId: instance_words is (inputMask, outputMask, words), or
    None for every instance."""
    if instance_words is None:
        instance = struct.pack("=3I", 12, 0, _ALL)
    else:
        mask, output, words = instance_words
        instance = struct.pack(f"={3 + len(words)}I", 12 + 4 * len(words), mask, output, *words)
    head = struct.pack("=6I", 24 + len(class_bytes) + len(instance), 24, len(class_bytes),
                       24 + len(class_bytes), len(instance), datum)
    return head + class_bytes + instance


class _Answer:
    """A DCIReturn as bytes: its summary status and its elements."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.what = what
        try:
            _size, count, self.sumstatus = struct.unpack_from("=3I", data, 0)
            if 28 + 16 * count > len(data):
                raise struct.error("retvals beyond the answer")
            self.retvals = [struct.unpack_from("=4I", data, 28 + 16 * i) for i in range(count)]
        except struct.error as error:
            raise self.malformed(error) from None

    def malformed(self, error: Exception) -> DciError:
        return DciError(_INVALIDARG, f"{self.what}: a malformed answer from libdci ({error})")

    def word(self, offset: int) -> int:
        return struct.unpack_from("=I", self.data, offset)[0]

    def sized(self, offset: int) -> bytes:
        """The structure at offset, as long as its size word says."""
        size = self.word(offset)
        if size < 4 or offset + size > len(self.data):
            raise struct.error(f"a structure of {size} bytes at {offset}")
        return self.data[offset:offset + size]

    def data_of(self, index: int) -> bytes:
        _status, _metric, offset, size = self.retvals[index]
        if offset + size > len(self.data):
            raise struct.error("data beyond the answer")
        return self.data[offset:offset + size]


def _text(structure: bytes, offset: int, size: int) -> str:
    """The UMATextString of `size` bytes at `offset` (size 0: "")."""
    if size == 0:
        return ""
    if offset + size > len(structure) or size < 4:
        raise struct.error("a text string beyond its structure")
    chars = structure[offset + 4:offset + size]
    return chars.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _class_attributes(attr: bytes) -> _Class:
    """A DCIClassAttr: its label, description, levels and datums."""
    (_size, _flags, _acc_off, _acc_size, _meth_off, _meth_size, label_off, label_size,
     level_off, level_elem, level_count, data_off, data_count, _data_size,
     _ev_off, _ev_count, _ev_size, _ext_off, _ext_size) = struct.unpack_from("=19I", attr, 0)
    label = description = ""
    if label_size:
        lab = attr[label_off:label_off + label_size]
        _lsize, a_off, a_size, i_off, i_size = struct.unpack_from("=5I", lab, 0)
        label, description = _text(lab, a_off, a_size), _text(lab, i_off, i_size)
    levels = tuple(_Level(*struct.unpack_from("=3I", attr, level_off + i * level_elem))
                   for i in range(level_count))
    datums = []
    at = data_off
    for _ in range(data_count):
        (size, datum_id, uma_type, units, _flags, offset, l_off, l_size) = \
            struct.unpack_from("=8I", attr, at)
        if size < 32 or at + size > len(attr):
            raise struct.error("a DCIDataAttr beyond its class")
        one = attr[at:at + size]
        name = ""
        if l_size:
            lab = one[l_off:l_off + l_size]
            _lsize, a_off, a_size, _i_off, _i_size = struct.unpack_from("=5I", lab, 0)
            name = _text(lab, a_off, a_size)
        datums.append(_Datum(datum_id, uma_type, units, offset, name or str(datum_id)))
        at += size
    return _Class(label, description, levels, tuple(datums))


def _value(uma_type: int, units: int, block: bytes, offset: int):
    """The value of a datum of `uma_type` at `offset` of `block`."""
    if uma_type in (_INT4, _UINT4, _INT8, _UINT8, _DERIVED):
        form = {_INT4: "=i", _UINT4: "=I", _INT8: "=q", _UINT8: "=Q", _DERIVED: "=q"}[uma_type]
        number = struct.unpack_from(form, block, offset)[0]
        return number / 100 if units in _HUNDREDTHS_UNITS else number
    if uma_type == _BOOLEAN:
        return struct.unpack_from("=I", block, offset)[0] != 0
    if uma_type == _TEXTSTRING:
        return _text(block, offset, struct.unpack_from("=I", block, offset)[0])
    if uma_type == _OCTETSTRING:
        size = struct.unpack_from("=I", block, offset)[0]
        if size < 4 or offset + size > len(block):
            raise struct.error("an octet string beyond its block")
        octets = block[offset + 4:offset + size]
        if len(octets) == 4:
            return ipaddress.IPv4Address(octets)
        if len(octets) == 16:
            return ipaddress.IPv6Address(octets)
        return octets
    if uma_type in (_TIMESPEC, _TIMEVAL):
        seconds, fraction = struct.unpack_from("=2I", block, offset)
        micro = fraction // 1000 if uma_type == _TIMESPEC else fraction
        if seconds < _INTERVAL_BELOW:
            return datetime.timedelta(seconds=seconds, microseconds=micro)
        return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(
            microsecond=micro)
    raise struct.error(f"a datum of UMA type {uma_type}")


def _default_socket() -> str:
    """DCISTAT_DCI_SOCKET, else the dci-socket of dcistatd's configuration
    (agent: dci-socket), else /run/dcistat/dci.sock."""
    path = os.environ.get("DCISTAT_DCI_SOCKET")
    if path:
        return path
    try:
        with open(_DCISTATD_CONFIG, encoding="utf-8", errors="replace") as config:
            text = config.read(1 << 20)
    except OSError:
        return _DEFAULT_SOCKET
    found = re.search(r"^[ \t]+dci-socket:[ \t]*[\"']?(/[^\"'#\s]+)", text, re.M)
    return found.group(1) if found else _DEFAULT_SOCKET


class Consumer:
    """A connection to dcistatd's DCI Server (``agent: dci-socket``).

    ``socket_path`` None means DCISTAT_DCI_SOCKET, else the ``dci-socket``
    of /etc/dcistat/dcistatd.yaml, else /run/dcistat/dci.sock. ``events``
    names classes whose ``event_kinds`` :meth:`wait_event` returns (at most
    16 class and kind pairs in all). The server shows a class only to
    callers its ``dci-access`` lets read it. A context manager; close() is
    idempotent. One Consumer may be used from several threads, one call at
    a time.
    """

    def __init__(self, socket_path: Optional[str] = None,
                 events: Iterable[ClassIdLike] = (),
                 event_kinds: Iterable[EventKind] = (INSTANCE_ADDED, INSTANCE_REMOVED)) -> None:
        if socket_path is not None and not isinstance(socket_path, str):
            raise TypeError("socket_path is a str or None")
        kinds = tuple(event_kinds)
        for kind in kinds:
            if not isinstance(kind, EventKind):
                raise TypeError("event_kinds are dcistat.EventKind members")
        if isinstance(events, (str, bytes)):
            raise TypeError("events is a sequence of class ids")
        subscriptions = [(_class_id(c), kind) for c in events for kind in kinds]
        if len(subscriptions) > _EVENTS_MAX:
            raise ValueError(f"at most {_EVENTS_MAX} class and event kind pairs")
        ids = b"".join(
            _pack_metric(_pack_class(levels), None,
                         _EVENTHDR | _EVENTHDRCLASSID | _EVENTHDRINSTANCEID
                         | _EVENTHDRTIMESTAMP | (number << 8) | kind.value)
            for number, (levels, kind) in enumerate(subscriptions))
        self._path = socket_path if socket_path is not None else _default_socket()
        self._classes: Dict[Tuple[int, ...], _Class] = {}
        self._events: deque = deque()
        self._connection = _Connection()
        status, os_errno, _refused = self._connection.open(
            self._path, ids, len(subscriptions))
        if status not in (_SUCCESS, _INVALIDDATAPRESENT):
            # A refused event id leaves the connection open: not used.
            self._connection.close()
            raise DciError(status, f"dciOpen({self._path!r})", os_errno)

    def __enter__(self) -> "Consumer":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Closes the connection; events not read are lost."""
        self._connection.close()

    def _call(self, routine: int, ids: bytes, count: int, what: str) -> _Answer:
        status, data = self._connection.call(routine, ids, count)
        if data is None:
            raise DciError(status, what)
        return _Answer(data, what)

    def _class(self, levels: Tuple[int, ...]) -> _Class:
        known = self._classes.get(levels)
        if known is not None:
            return known
        what = f"dciGetClassAttributes({'.'.join(map(str, levels))})"
        answer = self._call(_CLASS_ATTRIBUTES, _pack_class(levels), 1, what)
        if answer.sumstatus != _SUCCESS or not answer.retvals:
            raise DciError(answer.sumstatus or _NOTPRESENT, what)
        try:
            known = _class_attributes(answer.data_of(0))
        except (struct.error, IndexError) as error:
            raise answer.malformed(error) from None
        self._classes[levels] = known
        return known

    def classes(self) -> List[ClassInfo]:
        """Every class the caller may read, with its label and
        description."""
        answer = self._call(_LIST_CLASSES, struct.pack("=2I", 8, _ALL), 1, "dciListClassId")
        if answer.sumstatus != _SUCCESS:
            raise DciError(answer.sumstatus, "dciListClassId")
        result = []
        try:
            for _status, metric, _offset, _size in answer.retvals:
                class_bytes = answer.sized(metric)
                levels = struct.unpack_from(f"={len(class_bytes) // 4 - 1}I", class_bytes, 4)
                info = self._class(levels)
                result.append(ClassInfo(levels, info.label, info.description))
        except struct.error as error:
            raise answer.malformed(error) from None
        return result

    def _instance_words(self, info: _Class, instance) -> Optional[Tuple[int, int, List[int]]]:
        """An instance key as (inputMask, outputMask, words); None for every
        instance. A key is what read() returns: an int for a class of one
        4-byte level, else a tuple with a value (or None, a wildcard) per
        level."""
        if instance is None or instance == "*":
            return None
        values = instance if isinstance(instance, tuple) else (instance,)
        if len(values) != len(info.levels):
            raise ValueError(f"the class has {len(info.levels)} instance levels, "
                             f"not {len(values)}")
        mask, words = 0, []
        for bit, (level, value) in enumerate(zip(info.levels, values)):
            if value is None or value == "*":
                continue
            mask |= 1 << bit
            if isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
                value = value.packed
            if isinstance(value, bool):
                raise TypeError("an instance level is an int, bytes or an IP address")
            if isinstance(value, int):
                if level.size != 4:
                    raise ValueError(f"instance level {bit} is {level.size} bytes, not an int")
                if not 0 <= value <= 0xFFFFFFFF:
                    raise ValueError(f"an instance level is 0..{0xFFFFFFFF}, not {value}")
                words.append(value)
            elif isinstance(value, bytes):
                if len(value) > level.size or level.size % 4:
                    raise ValueError(f"instance level {bit} is {level.size} bytes")
                padded = value.ljust(level.size, b"\0")
                words.extend(struct.unpack(f"={level.size // 4}I", padded))
            else:
                raise TypeError("an instance level is an int, bytes or an IP address")
        return (mask, _ALL, words) if mask else None

    def _instance_key(self, info: _Class, instance_id: bytes):
        """The DCIInstanceId's levels as read() keys them."""
        _size, mask, _output = struct.unpack_from("=3I", instance_id, 0)
        at, values = 12, []
        for bit, level in enumerate(info.levels):
            if not mask & (1 << bit):
                values.append(None)
                continue
            if level.size == 4 and level.itype != _ITYPE_IPADDR:
                values.append(struct.unpack_from("=I", instance_id, at)[0])
            else:
                octets = instance_id[at:at + level.size]
                if len(octets) != level.size:
                    raise struct.error("an instance level beyond its id")
                if level.itype == _ITYPE_IPADDR and level.size in (4, 16):
                    values.append(ipaddress.ip_address(octets))
                else:
                    values.append(octets)
            at += (level.size + 3) // 4 * 4
        return values[0] if len(values) == 1 else tuple(values)

    def _metric_instance(self, info: _Class, answer: _Answer, offset: int):
        metric = answer.sized(offset)
        inst_off, inst_size = struct.unpack_from("=2I", metric, 12)
        return self._instance_key(info, metric[inst_off:inst_off + inst_size])

    def instances(self, class_id: ClassIdLike) -> list:
        """The instances of a class now, keyed as read() keys them."""
        levels = _class_id(class_id)
        info = self._class(levels)
        what = f"dciListInstanceId({'.'.join(map(str, levels))})"
        answer = self._call(_LIST_INSTANCES, _pack_metric(_pack_class(levels), None, _ALL), 1,
                            what)
        if answer.sumstatus == _NOTPRESENT:
            return []  # a class with no instance now
        if answer.sumstatus != _SUCCESS:
            raise DciError(answer.sumstatus, what)
        try:
            return [self._metric_instance(info, answer, metric)
                    for _status, metric, _o, _s in answer.retvals]
        except struct.error as error:
            raise answer.malformed(error) from None

    def read(self, class_id: ClassIdLike, instance=None,
             datums: Optional[Iterable[Union[str, int]]] = None) -> dict:
        """{instance: {datum label: value}} of one snapshot of the class (one
        dciGetData).

        ``instance`` None (or "*") reads every instance; a tuple may
        wildcard single levels with None. ``datums`` None reads every datum,
        else the labels or ids given. Values: int; float for hundredths and
        ratios; bool; str; IPv4Address/IPv6Address for 4- and 16-octet
        addresses, bytes for other octet strings; datetime (UTC) for a
        calendar time and timedelta for an interval or a time since boot;
        None for a datum with no valid value."""
        levels = _class_id(class_id)
        info = self._class(levels)
        instance_words = self._instance_words(info, instance)
        if datums is None:
            wanted = [None]
        else:
            if isinstance(datums, (str, bytes, int)):
                raise TypeError("datums is a sequence of labels or ids, or None")
            by_label = {d.label: d for d in info.datums}
            by_id = {d.id: d for d in info.datums}
            wanted = []
            for datum in datums:
                found = (by_id.get(datum) if isinstance(datum, int) and not isinstance(datum, bool)
                         else by_label.get(datum) if isinstance(datum, str) else False)
                if found is False:
                    raise TypeError("a datum is a label (str) or an id (int)")
                if found is None:
                    raise DciError(_NOTPRESENT, f"class {'.'.join(map(str, levels))} "
                                   f"has no datum {datum!r}")
                wanted.append(found)
            if not wanted:
                raise ValueError("datums names no datum")
        # One id, so one snapshot: the server answers each id of a list
        # apart, so several datums are read as the whole block and picked.
        asked = wanted[0].id if len(wanted) == 1 and wanted[0] is not None else _ALL
        keep = None if wanted == [None] else {d.id for d in wanted}
        ids = _pack_metric(_pack_class(levels), instance_words, asked)
        what = f"dciGetData({'.'.join(map(str, levels))})"
        answer = self._call(_GET_DATA, ids, 1, what)
        result: dict = {}
        try:
            for element, (status, metric, _offset, _size) in enumerate(answer.retvals):
                if status not in (_SUCCESS, _INVALIDDATAPRESENT, _INVALIDDATA):
                    if status == _NOTPRESENT and instance_words is None:
                        continue  # no instance now
                    raise DciError(status, what)
                key = self._metric_instance(info, answer, metric)
                datum_id = struct.unpack_from("=I", answer.data, metric + 20)[0]
                row = result.setdefault(key, {})
                block = answer.data_of(element)
                if datum_id != _ALL:
                    datum = next(d for d in info.datums if d.id == datum_id)
                    row[datum.label] = (None if status == _INVALIDDATA
                                        else _value(datum.type, datum.units, block, 0))
                    continue
                invalid = set()
                if status == _INVALIDDATAPRESENT:
                    marker = next(d for d in info.datums if d.id == _INVALIDDATUMID)
                    at = struct.unpack_from("=I", block, marker.offset)[0]
                    _isize, count = struct.unpack_from("=2I", block, at)
                    invalid = set(struct.unpack_from(f"={count}I", block, at + 8))
                for datum in info.datums:
                    if datum.id == _INVALIDDATUMID or (keep is not None and datum.id not in keep):
                        continue
                    row[datum.label] = (None if datum.id in invalid
                                        else _value(datum.type, datum.units, block, datum.offset))
        except (struct.error, StopIteration, ValueError) as error:
            raise answer.malformed(error) from None
        return result

    def wait_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event of those asked for at construction, waiting at
        most ``timeout`` seconds (None: for ever); None when none came."""
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
                raise TypeError("timeout is a number of seconds or None")
            if not 0 <= timeout < 1 << 31:
                raise ValueError("timeout is 0 to 2**31 seconds")
        while not self._events:
            wait = 86400.0 if timeout is None else float(timeout)
            seconds = int(wait)
            status, data = self._connection.wait(seconds, int((wait - seconds) * 1e9))
            if status == _TIMEOUT:
                if timeout is None:
                    continue
                return None
            if data is None:
                raise DciError(status, "dciWaitEvent")
            answer = _Answer(data, "dciWaitEvent")
            try:
                for element, (e_status, metric, _o, _s) in enumerate(answer.retvals):
                    if e_status != _SUCCESS:
                        raise DciError(e_status, "dciWaitEvent: events were lost")
                    self._events.append(self._event(answer, element, metric))
            except (struct.error, ValueError) as error:
                raise answer.malformed(error) from None
        return self._events.popleft()

    def _event(self, answer: _Answer, element: int, metric: int) -> Event:
        metric_bytes = answer.sized(metric)
        class_off, class_size, _io, _is, datum_id = struct.unpack_from("=5I", metric_bytes, 4)
        class_bytes = metric_bytes[class_off:class_off + class_size]
        levels = struct.unpack_from(f"={len(class_bytes) // 4 - 1}I", class_bytes, 4)
        info = self._class(levels)
        instance = self._metric_instance(info, answer, metric)
        event = answer.data_of(element)
        header = struct.unpack_from("=I", event, 0)[0]
        at = 8 if header & 0xFF == 0xFF else 4
        when = None
        for flag in (_EVENTHDRCLASSID, _EVENTHDRINSTANCEID):
            if header & flag:
                at += struct.unpack_from("=I", event, at)[0] or 4
        if header & _EVENTHDRTIMESTAMP:
            seconds, nanoseconds = struct.unpack_from("=2I", event, at)
            when = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(
                microsecond=nanoseconds // 1000)
        return Event(EventKind(datum_id & 0xFF), levels, instance, when)
