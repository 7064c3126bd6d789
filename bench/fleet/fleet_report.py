#!/usr/bin/env python3
"""fleet_report.py -- what Prometheus stored of one window of bench/fleet.

Asks Prometheus's HTTP API (an instant query of a range selector at the
window's end: every raw sample of the window) for each dcistat job's
scrape_duration_seconds (Prometheus's own: the exporter's answer included),
snmp_scrape_duration_seconds (the exporter's walk) and up, and prints per
module the 50th and 99th percentiles of all samples of the agents with few
interfaces, and those of the big agent apart. A target missed a scrape when
up was 0 in the window (the exporter refused or failed it, or it took
longer than the timeout), when a scrape_duration_seconds reached the
timeout, or when it has fewer samples than window / interval - 1.

Writes SCRAPES_SMALL and SCRAPES_BIG (scrapes in the window, every module)
as shell assignments to --vars. Exit status 0: no miss, 1: a miss.
"""

import argparse
import json
import math
import sys
import urllib.parse
import urllib.request

JOBS = ("dcistat_netif", "dcistat_devstat", "dcistat_evcnt")


def query(url, promql, at):
    data = urllib.parse.urlencode({"query": promql, "time": repr(at)}).encode()
    with urllib.request.urlopen(url + "/api/v1/query", data, timeout=60) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise RuntimeError("query %s: %s" % (promql, body.get("error")))
    return body["data"]["result"]


def samples(url, metric, job, window, at):
    """{instance: [values]} of every sample of the window."""
    result = query(url, '%s{job="%s"}[%ds]' % (metric, job, window), at)
    return {r["metric"].get("instance", ""): [float(v) for _, v in r["values"]] for r in result}


def percentile(values, p):
    """Nearest-rank percentile; nan for no value."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def ms(value):
    return "-" if math.isnan(value) else "%.1f" % (value * 1000)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--time", type=float, required=True)
    parser.add_argument("--window", type=int, required=True)
    parser.add_argument("--interval", type=int, required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--big", required=True, help="the big agent's instance, or none")
    parser.add_argument("--vars", required=True)
    args = parser.parse_args()

    expected = args.window // args.interval - 1
    misses = []
    scrapes = {"small": 0, "big": 0}
    print("scrape duration, ms (nearest rank over every sample of the window):")
    print("  %-18s %-6s %7s %8s %8s %8s %9s %9s" % (
        "module", "agents", "samples", "p50", "p99", "max", "walk p50", "walk p99"))
    for job in JOBS:
        total = samples(args.url, "scrape_duration_seconds", job, args.window, args.time)
        walk = samples(args.url, "snmp_scrape_duration_seconds", job, args.window, args.time)
        up = samples(args.url, "up", job, args.window, args.time)
        for instance, values in sorted(up.items()):
            kind = "big" if instance == args.big else "small"
            scrapes[kind] += len(values)
            if min(values) < 1:
                misses.append("%s %s: up 0 in %d of %d samples" % (
                    job, instance, sum(1 for v in values if v < 1), len(values)))
            elif len(values) < expected:
                misses.append("%s %s: %d samples, %d expected" % (job, instance, len(values), expected))
        for instance, values in sorted(total.items()):
            slow = [v for v in values if v >= args.timeout]
            if slow:
                misses.append("%s %s: %d scrapes took %.1f s or more" % (job, instance, len(slow), args.timeout))
        for kind in ("small", "big"):
            chosen = [i for i in total if (i == args.big) == (kind == "big")]
            if not chosen:
                continue
            durations = [v for i in chosen for v in total[i]]
            walks = [v for i in chosen for v in walk.get(i, [])]
            print("  %-18s %-6s %7d %8s %8s %8s %9s %9s" % (
                job.replace("dcistat_", "dci_") + (" (big)" if kind == "big" else ""),
                len(chosen), len(durations), ms(percentile(durations, 50)),
                ms(percentile(durations, 99)), ms(max(durations)),
                ms(percentile(walks, 50)), ms(percentile(walks, 99))))
    with open(args.vars, "w", encoding="ascii") as out:
        out.write("SCRAPES_SMALL=%d\nSCRAPES_BIG=%d\n" % (scrapes["small"], scrapes["big"]))
    if misses:
        print("MISSED SCRAPES (%d targets):" % len(misses))
        for line in misses[:10]:
            print("  " + line)
        return 1
    print("no missed scrape: every target up in every sample, at least %d samples each, none >= %.0f s"
          % (expected, args.timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
