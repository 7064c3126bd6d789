"""After os.fork() the child does not write its parent's segment: the
parent's objects raise there, closing or freeing them leaves the segment to
the parent, and a Supplier the child opens is its own."""

import gc
import os

import pytest

import dcistat


def in_child(work):
    """Runs work() in a forked child; its exit status (0: passed)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            work()
            status = 0
        except BaseException as error:  # reported through the status
            os.write(2, f"child: {error!r}\n".encode())
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_child_does_not_write_parents_segment(run_dir, served):
    supplier = dcistat.Supplier("pytest_fork", number=4346, directory=str(run_dir))
    requests = supplier.counter("requests")
    get = requests.labels("GET")
    get.inc(5)
    device = supplier.device("disk")
    events = supplier.event_counter("app", "all")
    path = supplier.path

    def child():
        for update in (get.inc, requests.inc, events.increment, device.start,
                       lambda: requests.labels("POST")):
            with pytest.raises(RuntimeError, match="forked"):
                update()
        assert supplier.closed
        supplier.close()  # lets go of the handle only
        own = dcistat.Supplier("pytest_fork_child", number=4347, directory=str(run_dir))
        own.counter("requests").labels("child").inc(7)
        assert os.path.basename(own.path).startswith(f"pytest_fork_child.{os.getpid()}.")
        own.close()

    assert in_child(child) == 0

    def child_frees_everything():
        nonlocal supplier, requests, get, device, events
        supplier = requests = get = device = events = None
        gc.collect()

    assert in_child(child_frees_everything) == 0
    assert os.path.exists(path)
    assert not supplier.closed
    get.inc(2)
    assert served("3.4346.16") == {"GET": served("3.4346.16")["GET"]}
    assert served("3.4346.16")["GET"]["value"] == 7
    supplier.close()
    assert not os.path.exists(path)
