"""SIGTERM and a supplier's segment: with SIGTERM's default action, the
process still ends by SIGTERM and its segment is removed; a handler of the
application's is left alone (its exit closes the segment); a forked child
ended by SIGTERM leaves its parent's segment; closing the last segment puts
the default action back."""

import os
import signal
import subprocess
import sys
import textwrap

import dcistat


def caught_signals(pid):
    """The signals process `pid` has a handler for (/proc's SigCgt)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("SigCgt:"):
                mask = int(line.split()[1], 16)
                return {n for n in range(1, 65) if mask & (1 << (n - 1))}
    raise AssertionError("no SigCgt line")


def start(run_dir, body):
    """A python3 that opens a Supplier in run_dir after running `body`,
    prints its segment's path and waits for stdin to close."""
    code = textwrap.dedent(body) + textwrap.dedent(f"""
        import dcistat, sys
        supplier = dcistat.Supplier("pytest_term", number=4348,
                                    directory={str(run_dir)!r})
        supplier.counter("requests").inc(3)
        print(supplier.path, flush=True)
        sys.stdin.read()
        """)
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    path = child.stdout.readline().strip()
    assert path and os.path.exists(path), path
    return child, path


def test_sigterm_removes_the_segment_and_still_ends_by_sigterm(run_dir):
    child, path = start(run_dir, "")
    assert signal.SIGTERM in caught_signals(child.pid)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == -signal.SIGTERM
    assert not os.path.exists(path)
    assert os.listdir(run_dir) == []


def test_the_applications_handler_is_kept(run_dir):
    child, path = start(run_dir, """
        import signal, sys
        def leave(number, frame):
            sys.exit(3)
        signal.signal(signal.SIGTERM, leave)
        """)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == 3
    assert not os.path.exists(path)


def test_a_forked_child_leaves_its_parents_segment(run_dir):
    supplier = dcistat.Supplier("pytest_term_parent", number=4349,
                                directory=str(run_dir))
    path = supplier.path
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(writing)
        os.read(reading, 1)  # until the parent has sent SIGTERM
        os._exit(0)
    os.close(reading)
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    os.close(writing)
    assert os.waitstatus_to_exitcode(status) == -signal.SIGTERM
    assert os.path.exists(path)
    supplier.close()
    assert not os.path.exists(path)


def test_closing_the_last_segment_restores_the_default(run_dir):
    code = textwrap.dedent(f"""
        import dcistat, os
        def caught():
            for line in open("/proc/self/status"):
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << 14))
        assert not caught()
        first = dcistat.Supplier("pytest_term_a", number=4350,
                                 directory={str(run_dir)!r})
        second = dcistat.Supplier("pytest_term_b", number=4351,
                                  directory={str(run_dir)!r})
        assert caught()
        first.close()
        assert caught()
        second.close()
        assert not caught()
        """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
