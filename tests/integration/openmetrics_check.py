#!/usr/bin/env python3
"""openmetrics_check.py -- compares what dcistatd serves of one openmetrics
target (a walk of dciStatText) with two scrapes of the target taken before
and after the walk (tests/integration/openmetrics.sh).

usage: openmetrics_check.py TARGET-NAME SCRAPE1 SCRAPE2 WALK ARC

The ids are computed here from the provider's documented rules
(src/providers/openmetrics/openmetrics.c), independently of its code:
class {4, fnv1a32(target), hi(fnv1a64(family)), lo(...), kind}, instance
{hi(s), lo(s)} with s the FNV-1a 64 of the sorted, length-prefixed label
pairs. Asserts, for every series of the first scrape that the second
still has:
  counter      total within [floor(first), floor(second)]
  gauge        value_text equal to the scrape when both scrapes agree
  summary      count bracketed; each quantile's text equal when stable
  histogram    count bracketed; every bucket's cumulative count bracketed
and that every served values row is a series of a scrape. Prints one
summary line; exits 1 with the first mismatches.
"""
import math
import re
import struct
import sys

# Gauges the scrapes themselves move (each scrape is a connection, a
# goroutine, a file descriptor, memory): the scrape dcistatd took and the
# two of the test see different states even when those two agree. Served
# values of these are checked present, not equal.
# Likewise gauges of the whole machine that move on their own and can be
# back to a scrape's value by the next (the load average, the clock's
# offset, open files and connections of every process), and the exporter's
# own timing of each collector (node_scrape_collector_duration_seconds),
# and the I/Os a disk has in flight (node_disk_io_now), which other
# processes' writes move between two scrapes that both read 0.
OBSERVER_GAUGES = re.compile(
    r"^(go_|process_|promhttp_|net_conntrack_|node_sockstat_|node_netstat_|"
    r"node_memory_|node_procs_|node_vmstat_|node_filefd_|node_nf_conntrack_|"
    r"node_entropy_|node_processes_|node_timex_|node_load|node_scrape_|"
    r"node_disk_io_now)")


def fnv32(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def fnv64(data, h=14695981039346656037):
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def series_id(labels):
    h = 14695981039346656037
    for name, value in sorted(labels):
        for part in (name.encode(), value.encode()):
            h = fnv64(struct.pack("<I", len(part)), h)
            h = fnv64(part, h)
    return h


SUFFIXES = {
    "counter": ("_total", "_created", ""),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
    "gauge": ("",),
    "unknown": ("",),
    "untyped": ("",),
}


def parse_labels(text):
    labels, i = [], 0
    while i < len(text):
        while i < len(text) and text[i] in " ,":
            i += 1
        if i >= len(text):
            break
        eq = text.index("=", i)
        name = text[i:eq].strip()
        i = text.index('"', eq) + 1
        value = []
        while text[i] != '"':
            if text[i] == "\\":
                i += 1
                value.append({"n": "\n"}.get(text[i], text[i]))
            else:
                value.append(text[i])
            i += 1
        labels.append((name, "".join(value)))
        i += 1
    return labels


def parse(path):
    """{family: (type, {(suffix, labels-tuple): text})}"""
    families, current, ftype = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# EOF"):
            break
        if line.startswith("# TYPE "):
            _, _, name, ftype = line.split(" ", 3)
            current = name
            families.setdefault(name, (ftype, {}))
            continue
        if not line or line.startswith("#"):
            continue
        if "{" in line:
            name = line[: line.index("{")]
            close = line.rindex("}")
            labels = parse_labels(line[line.index("{") + 1 : close])
            rest = line[close + 1 :].split()
        else:
            name, *rest = line.split()
            labels = []
        family, suffix = None, None
        if current is not None:
            for s in SUFFIXES.get(families[current][0], ("",)):
                if name == current + s:
                    family, suffix = current, s
                    break
        if family is None:
            family, suffix, current = name, "", name
            families.setdefault(name, ("unknown", {}))
        if families[family][0] == "counter" and suffix == "":
            suffix = "_total"
        families[family][1][(suffix, tuple(sorted(labels)))] = rest[0]
    return families


def main():
    target, first_path, second_path, walk_path, arc = sys.argv[1:6]
    first, second = parse(first_path), parse(second_path)
    word = fnv32(target.encode())
    word = 2 if word <= 1 else word
    prefix = arc + ".1.5.1.3.5.4.%d." % word
    served = {}
    for line in open(walk_path, encoding="utf-8", errors="replace"):
        oid, _, value = line.rstrip("\n").partition(" ")
        if not oid.startswith(prefix):
            continue
        parts = [int(p) for p in oid[len(prefix) :].split(".")]
        hi, lo, kind, length = parts[0], parts[1], parts[2], parts[3]
        instance = tuple(parts[4 : 4 + length])
        datum = parts[4 + length]
        if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
            value = value[1:-1]
        served[(hi << 32 | lo, kind, instance, datum)] = value
    errors, counts = [], {"counter": 0, "gauge": 0, "summary": 0,
                          "histogram": 0, "bucket": 0, "quantile": 0,
                          "unstable": 0}

    def get(family, kind, sid, datum, bucket=None):
        instance = (sid >> 32, sid & 0xFFFFFFFF)
        if bucket is not None:
            instance += (bucket,)
        return served.get((fnv64(family.encode()), kind, instance, datum))

    def bracket(what, got, a, b):
        if got is None:
            errors.append("%s: not served" % what)
            return
        low, high = math.floor(float(a)), math.floor(float(b))
        if not low <= int(got) <= high:
            errors.append("%s: %s not within %d..%d" % (what, got, low, high))

    for family, (ftype, samples) in first.items():
        later = second.get(family, (ftype, {}))[1]
        for (suffix, labels), text in samples.items():
            sid = series_id(labels)
            what = "%s%s%s" % (family, suffix, dict(labels))
            if (suffix, labels) not in later:
                continue
            text2 = later[(suffix, labels)]
            if ftype == "counter" and suffix == "_total":
                bracket(what, get(family, 1, sid, 1), text, text2)
                counts["counter"] += 1
            elif ftype in ("gauge", "unknown", "untyped") and suffix == "":
                got = get(family, 1, sid, 2)
                if got is None:
                    errors.append("%s: not served" % what)
                    continue
                if text != text2 or OBSERVER_GAUGES.match(family):
                    counts["unstable"] += 1
                    continue
                if got != text:
                    errors.append("%s: value_text %r, scraped %r" % (what, got, text))
                value = float(text)
                if math.isfinite(value) and abs(value) < 2**62:
                    got = get(family, 1, sid, 1)
                    if got is None or int(got) != round(value):
                        errors.append("%s: value %r, scraped %s" % (what, got, text))
                counts["gauge"] += 1
            elif ftype in ("summary", "histogram") and suffix == "_count":
                bracket(what, get(family, 1, sid, 1), text, text2)
                counts[ftype] += 1
            elif ftype == "summary" and suffix == "":
                pass  # quantiles below, by series
        if ftype == "summary":
            for (suffix, labels), text in samples.items():
                if suffix != "":
                    continue
                quantile = float(dict(labels)["quantile"])
                rest = tuple(l for l in labels if l[0] != "quantile")
                n = round(quantile * 10000)
                got = get(family, 1, series_id(rest), 1001 + 2 * n)
                # An observer's own quantiles (go_gc_duration_seconds: a
                # collection between dcistatd's scrape and either of ours)
                # are checked present, as its gauges are.
                if later.get((suffix, labels)) != text or OBSERVER_GAUGES.match(family):
                    if got is None:
                        errors.append("%s quantile %s: not served" % (family, quantile))
                    counts["unstable"] += 1
                    continue
                counts["quantile"] += 1
                if got != text:
                    errors.append("%s quantile %s: %r, scraped %r" % (family, quantile, got, text))
        if ftype == "histogram":
            buckets = {}
            for (suffix, labels), text in samples.items():
                if suffix != "_bucket":
                    continue
                le = dict(labels)["le"]
                rest = tuple(l for l in labels if l[0] != "le")
                buckets.setdefault(rest, []).append((float(le), le, text, later.get((suffix, labels))))
            for rest, entries in buckets.items():
                entries.sort()
                for number, (_, le, text, text2) in enumerate(entries):
                    if text2 is None:
                        continue
                    what = "%s bucket le=%s %s" % (family, le, dict(rest))
                    bracket(what, get(family, 2, series_id(rest), 4, number), text, text2)
                    upper = get(family, 2, series_id(rest), 2, number)
                    if upper != le:
                        errors.append("%s: upper %r" % (what, upper))
                    counts["bucket"] += 1
    # Every values row served is a series of one of the scrapes.
    seen = set()
    for scrape in (first, second):
        for family, (ftype, samples) in scrape.items():
            for (suffix, labels) in samples:
                rest = tuple(l for l in labels if l[0] not in ("le", "quantile"))
                seen.add((fnv64(family.encode()), series_id(rest)))
    extra = 0
    for (fhash, kind, instance, datum) in served:
        if kind == 1 and (fhash, instance[0] << 32 | instance[1]) not in seen:
            extra += 1
    if extra:
        errors.append("%d served rows are in no scrape" % extra)
    print("%s: %d counters bracketed, %d stable gauges equal (%d values "
          "changed between the scrapes or moved by them), %d summaries (%d quantiles "
          "equal), %d histograms, %d buckets; %d rows walked" % (target, counts["counter"],
          counts["gauge"], counts["unstable"], counts["summary"], counts["quantile"],
          counts["histogram"], counts["bucket"], len(served)))
    if errors:
        for e in errors[:15]:
            print("MISMATCH: " + e)
        return 1
    if counts["counter"] == 0 or counts["gauge"] == 0:
        print("MISMATCH: nothing compared")
        return 1
    return 0


sys.exit(main())
