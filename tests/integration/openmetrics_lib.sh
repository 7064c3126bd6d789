# shellcheck shell=bash
# openmetrics_lib.sh -- what the openmetrics tests share, sourced after
# lib.sh: the provider's documented ids and its status class.

DCI_TEXT=$DCI_ARC.1.5.1.3

# ids: the documented rules (src/providers/openmetrics/openmetrics.c).
ids() { # TARGET [FAMILY [LABEL=VALUE...]] -> word [hi lo [shi slo]]
	python3 - "$@" <<'PY'
import struct, sys
def fnv(data, h, prime, mask):
    for b in data:
        h = ((h ^ b) * prime) & mask
    return h
f32 = lambda d: fnv(d, 2166136261, 16777619, 0xFFFFFFFF)
f64 = lambda d, h=14695981039346656037: fnv(d, h, 1099511628211, 2**64 - 1)
args = sys.argv[1:]
word = f32(args[0].encode())
out = [2 if word <= 1 else word]
if len(args) > 1:
    h = f64(args[1].encode())
    out += [h >> 32, h & 0xFFFFFFFF]
    s = 14695981039346656037
    for pair in sorted(a.split("=", 1) for a in args[2:]):
        for part in pair:
            s = f64(struct.pack("<I", len(part.encode())), s)
            s = f64(part.encode(), s)
    out += [s >> 32, s & 0xFFFFFFFF]
print(" ".join(map(str, out)))
PY
}
status_of() { # TARGET DATUM: the status class's text of that datum
	snmp_get "$DCI_TEXT.2.4.1.1.$(ids "$1").$2"
}
