"""One counter increment from Python: dcistat's Instance.inc() beside
prometheus_client's Counter.inc(), in one run (issue 30: target dcistat <=
0.5x prometheus_client's time). Prints ns per increment of each, best of
REPEATS runs of N increments, and the ratio; with a second argument, the
same for 4 threads at once (wall time per increment over all threads).
INCREMENTS (1,000,000) sets N.

Usage: counter_bench.py RUN-DIRECTORY [threads]"""

import os
import sys
import threading
import time

import prometheus_client

import dcistat

N = int(os.environ.get("INCREMENTS", 1_000_000))
REPEATS = 5


def loop(increment, count):
    for _ in range(count):
        increment()


def best_ns(increment, threads):
    best = float("inf")
    for _ in range(REPEATS):
        workers = [threading.Thread(target=loop, args=(increment, N // threads))
                   for _ in range(threads)]
        started = time.perf_counter_ns()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        best = min(best, (time.perf_counter_ns() - started) / N)
    return best


def main():
    threads = 4 if len(sys.argv) > 2 else 1
    registry = prometheus_client.CollectorRegistry()
    prometheus_plain = prometheus_client.Counter("requests", "requests", registry=registry)
    prometheus_labelled = prometheus_client.Counter(
        "labelled", "requests", ["method"], registry=registry).labels("GET")
    with dcistat.Supplier("pybench", 1, number=4352, directory=sys.argv[1]) as supplier:
        counter = supplier.counter("requests")
        instance = counter.labels("GET")
        empty = best_ns(lambda: None, threads)
        figures = {
            "prometheus_client Counter.inc()": best_ns(prometheus_plain.inc, threads),
            "prometheus_client labels(..).inc()": best_ns(prometheus_labelled.inc, threads),
            "dcistat Metric.inc()": best_ns(counter.inc, threads),
            "dcistat labels(..).inc()": best_ns(instance.inc, threads),
        }
    print(f"threads {threads}, {N} increments, best of {REPEATS}; "
          f"the loop alone {empty:.1f} ns")
    for name, ns in figures.items():
        print(f"{name:38s} {ns:7.1f} ns")
    for ours, theirs in (("dcistat Metric.inc()", "prometheus_client Counter.inc()"),
                         ("dcistat labels(..).inc()", "prometheus_client labels(..).inc()")):
        ratio = figures[ours] / figures[theirs]
        print(f"ratio {ours} / {theirs}: {ratio:.2f} "
              f"{'PASS' if ratio <= 0.5 else 'MISS'} (target <= 0.5)")


if __name__ == "__main__":
    main()
