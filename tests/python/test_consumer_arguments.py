"""dcistat.Consumer's arguments and failures with no DCI Server: every
bad argument raises (TypeError, ValueError, DciError), never crashes; the
transport (_dcistat._Connection) refuses ids that do not hold together."""

import struct

import pytest

import dcistat
from dcistat import _dcistat


def test_no_server_raises_notinitialized(tmp_path):
    with pytest.raises(dcistat.DciError) as error:
        dcistat.Consumer(str(tmp_path / "absent.sock"))
    assert error.value.status == "NOTINITIALIZED"
    assert error.value.code == 7
    assert "absent.sock" in error.value.message


def test_bad_constructor_arguments(tmp_path):
    with pytest.raises(TypeError):
        dcistat.Consumer(3)
    with pytest.raises(ValueError):
        dcistat.Consumer("bad\0path")
    with pytest.raises(TypeError):
        dcistat.Consumer(str(tmp_path / "s"), events="1.1")
    with pytest.raises(TypeError):
        dcistat.Consumer(str(tmp_path / "s"), events=["1.1"], event_kinds=[1])
    with pytest.raises(ValueError):
        dcistat.Consumer(str(tmp_path / "s"), events=["1.%d" % i for i in range(9)])
    with pytest.raises(ValueError):
        dcistat.Consumer(str(tmp_path / "s"), events=["1..1"])
    with pytest.raises(dcistat.DciError) as error:
        dcistat.Consumer("/" + "x" * 200)  # beyond sun_path
    assert error.value.status == "INVALIDARG"


def test_transport_refuses_malformed_ids():
    connection = _dcistat._Connection()
    # Closed (never opened): a call raises, close is idempotent.
    with pytest.raises(ValueError):
        connection.call(1, struct.pack("=2I", 8, 0xFFFFFFFF), 1)
    connection.close()
    connection.close()
    bad = [
        (1, b"", 1),                                   # nothing
        (1, struct.pack("=2I", 12, 1), 1),             # size beyond the bytes
        (1, struct.pack("=2I", 8, 1), 2),              # count beyond the bytes
        (1, struct.pack("=2I", 6, 1), 1),              # size not a multiple of 4
        (3, struct.pack("=2I", 8, 1), 1),              # a class id for a metric id
        (5, struct.pack("=6I", 24, 24, 400, 24, 0, 0), 1),  # descriptor beyond
        (9, struct.pack("=2I", 8, 1), 1),              # no such routine
        (1, struct.pack("=2I", 8, 1), 0),              # no id
    ]
    for routine, ids, count in bad:
        with pytest.raises(ValueError):
            connection.call(routine, ids, count)
    with pytest.raises(ValueError):
        connection.wait(0, 1_000_000_000)
    with pytest.raises(TypeError):
        connection.call("1", b"", 1)


def test_error_is_an_exception_with_status_names():
    error = dcistat.DciError(1, "dciGetData(1.1)")
    assert isinstance(error, Exception)
    assert error.status == "NOTPRESENT" and error.code == 1
    assert str(error).startswith("DCI_NOTPRESENT: dciGetData(1.1)")
    assert dcistat.DciError(999, "x").status == "UNKNOWN"


def test_hypothesis_fuzz_of_the_transport():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    connection = _dcistat._Connection()

    @hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
    @hypothesis.given(st.integers(0, 8), st.binary(max_size=128), st.integers(0, 8))
    def fuzz(routine, ids, count):
        with pytest.raises((ValueError, OverflowError)):
            connection.call(routine, ids, count)

    fuzz()
