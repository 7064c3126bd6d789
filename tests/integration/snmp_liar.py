#!/usr/bin/env python3
"""snmp_liar.py -- a fake SNMPv2c agent that answers dcistat's requests with a
malformed DCI-STATS-MIB, or a well-formed one of an older revision, for
cli_remote.sh.

Usage: snmp_liar.py PORT SCENARIO READY-FILE [LOG-FILE]
Listens on udp 127.0.0.1:PORT (then creates READY-FILE); answers a GET of sysUpTime.0 properly and every
GETBULK with one varbind chosen by SCENARIO:
  backwards    an OID that sorts before the one asked for (a walk loop)
  long-prefix  a dciClassTable row whose class length prefix is 99
  wide-subid   a dciSupplierTable row whose index is 2^40
  wrong-type   dciSupplierModule.1 as an INTEGER
  long-oid     an OID of 200 sub-identifiers under dciSupplierTable
  truncated    a response cut in the middle of its varbind (no answer parses)
  older        a well-formed agent of revision 202611250000Z (OLDER_TREE),
               without dciClassDescription, dciClassLevelTypes and
               dciClassLevelSizes: GETBULK answered in order from the tree;
               the OID each GETBULK starts from is appended to LOG-FILE;
               once READY-FILE.more exists, class "cpus" has a second datum
               (OLDER_TREE_MORE: its supplier registered it again)
  endless      dciSupplierTable without end: each GETBULK answered with as
               many dciSupplierModule rows as asked for, the indexes after
               the one asked for (a walk that never ends by itself)
  endless-classes  the same of dciClassTable's first column (dciClassLabel)
               after one supplier, class ids 1.N
  hostile      a well-formed agent (the older one's tree) whose every string
               is hostile (HOSTILE): newline, ESC, CSI, OSC 52, raw C1 bytes
               0x9b and 0x9d and their UTF-8 forms (U+009B, U+009D), in the
               supplier's title, description and failure, the class's and
               datum's descriptions, the instance labels and a string value
  hostile-module, hostile-class, hostile-unit, hostile-time
               the same tree with HOSTILE in the supplier's module name, the
               class label, the datum's unit name, or as the text of an
               absolute time: each refused by dcistat with a message
Only what dcistat sends is decoded: BER definite lengths, SNMPv2c.
"""
import os
import socket
import sys

ARC = [1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040, 1]


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + body


def integer(tag, value):
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big", signed=True)
    return tlv(tag, raw)


def subid(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


def objid(oid):
    body = bytes([oid[0] * 40 + oid[1]]) + b"".join(subid(s) for s in oid[2:])
    return tlv(0x06, body)


def oid_of(body):
    """The sub-identifiers of an OBJECT IDENTIFIER's contents."""
    oid = [body[0] // 40, body[0] % 40]
    value = 0
    for octet in body[1:]:
        value = value << 7 | (octet & 0x7F)
        if not octet & 0x80:
            oid.append(value)
            value = 0
    return oid


def octets(text):
    return tlv(0x04, text if isinstance(text, bytes) else text.encode())


# An agent of revision 202611250000Z: one supplier, a class 1.7 "disks" of
# 2 levels whose instance ids have 3 words (the sizes, 4 and 8 octets, are
# not served), one counter datum, one instance; and a class 1.8 "cpus" of
# one level, one datum and one instance.
SUPPLIER, CLASS, DATUM, INSTANCE = [1], [2, 1, 7], [2, 1, 7, 1], [2, 1, 7, 3, 8, 0, 1]
CPUS, CPU_DATUM, CPU = [2, 1, 8], [2, 1, 8, 1], [2, 1, 8, 1, 0]
OLDER_TREE = sorted([
    (ARC + [1, 1, 2] + SUPPLIER, octets("older")),
    (ARC + [1, 1, 3] + SUPPLIER, octets("An older agent")),
    (ARC + [1, 1, 4] + SUPPLIER, octets("")),
    (ARC + [1, 1, 5] + SUPPLIER, integer(0x42, 0)),
    (ARC + [1, 1, 6] + SUPPLIER, integer(0x42, 100)),
    (ARC + [1, 1, 7] + SUPPLIER, octets(bytes(range(1, 9)))),
    (ARC + [1, 1, 8] + SUPPLIER, integer(0x02, 1)),
    (ARC + [1, 1, 9] + SUPPLIER, integer(0x43, 100)),
    (ARC + [1, 1, 10] + SUPPLIER, integer(0x43, 200)),
    (ARC + [1, 1, 11] + SUPPLIER, octets("")),
    (ARC + [2, 1, 2] + CLASS, octets("disks")),
    (ARC + [2, 1, 3] + CLASS, integer(0x42, 2)),
    (ARC + [2, 1, 4] + CLASS, integer(0x42, 1)),
    (ARC + [2, 1, 5] + CLASS, integer(0x42, 1)),
    (ARC + [2, 1, 6] + CLASS, integer(0x42, 1)),
    (ARC + [3, 1, 2] + DATUM, octets("reads")),
    (ARC + [3, 1, 3] + DATUM, integer(0x02, 5)),      # integer32
    (ARC + [3, 1, 4] + DATUM, integer(0x42, 1)),     # SIF_UNSIGNED
    (ARC + [3, 1, 5] + DATUM, integer(0x42, 1)),     # decimal
    (ARC + [3, 1, 6] + DATUM, integer(0x42, 4)),
    (ARC + [3, 1, 7] + DATUM, integer(0x02, 2)),      # SV_VOLATILE
    (ARC + [3, 1, 8] + DATUM, octets("")),
    (ARC + [3, 1, 9] + DATUM, integer(0x02, 1)),      # counter
    (ARC + [3, 1, 10] + DATUM, octets("read operations")),
    (ARC + [4, 1, 2] + INSTANCE, octets("sda")),
    (ARC + [4, 1, 3] + INSTANCE, integer(0x43, 0)),
    (ARC + [4, 1, 4] + INSTANCE, integer(0x43, 0)),
    (ARC + [4, 1, 5] + INSTANCE, objid([0, 0])),
    (ARC + [6, 1, 7, 1, 1, 8, 0, 1], integer(0x41, 42)),
    (ARC + [2, 1, 2] + CPUS, octets("cpus")),
    (ARC + [2, 1, 3] + CPUS, integer(0x42, 1)),
    (ARC + [2, 1, 4] + CPUS, integer(0x42, 1)),
    (ARC + [2, 1, 5] + CPUS, integer(0x42, 1)),
    (ARC + [2, 1, 6] + CPUS, integer(0x42, 1)),
    (ARC + [3, 1, 2] + CPU_DATUM, octets("busy")),
    (ARC + [3, 1, 3] + CPU_DATUM, integer(0x02, 5)),
    (ARC + [3, 1, 4] + CPU_DATUM, integer(0x42, 1)),
    (ARC + [3, 1, 5] + CPU_DATUM, integer(0x42, 1)),
    (ARC + [3, 1, 6] + CPU_DATUM, integer(0x42, 4)),
    (ARC + [3, 1, 7] + CPU_DATUM, integer(0x02, 2)),
    (ARC + [3, 1, 8] + CPU_DATUM, octets("")),
    (ARC + [3, 1, 9] + CPU_DATUM, integer(0x02, 1)),
    (ARC + [3, 1, 10] + CPU_DATUM, octets("")),
    (ARC + [4, 1, 2] + CPU, octets("cpu0")),
    (ARC + [4, 1, 3] + CPU, integer(0x43, 0)),
    (ARC + [4, 1, 4] + CPU, integer(0x43, 0)),
    (ARC + [4, 1, 5] + CPU, objid([0, 0])),
    (ARC + [6, 1, 8, 1, 1, 0], integer(0x41, 7)),
])


# "cpus" registered again with a second datum, 2 "idle", a gauge: its
# supplier reinitialised (dciSupplierDiscontinuity) and its datum count is 2.
OLDER_TREE_MORE = sorted([(o, v) for o, v in OLDER_TREE
                          if o not in (ARC + [2, 1, 4] + CPUS, ARC + [1, 1, 9] + SUPPLIER)] + [
    (ARC + [1, 1, 9] + SUPPLIER, integer(0x43, 150)),
    (ARC + [2, 1, 4] + CPUS, integer(0x42, 2)),
    (ARC + [3, 1, 2] + CPUS + [2], octets("idle")),
    (ARC + [3, 1, 3] + CPUS + [2], integer(0x02, 5)),
    (ARC + [3, 1, 4] + CPUS + [2], integer(0x42, 1)),
    (ARC + [3, 1, 5] + CPUS + [2], integer(0x42, 1)),
    (ARC + [3, 1, 6] + CPUS + [2], integer(0x42, 4)),
    (ARC + [3, 1, 7] + CPUS + [2], integer(0x02, 2)),
    (ARC + [3, 1, 8] + CPUS + [2], octets("")),
    (ARC + [3, 1, 9] + CPUS + [2], integer(0x02, 2)),   # gauge
    (ARC + [3, 1, 10] + CPUS + [2], octets("")),
    (ARC + [6, 1, 8, 1, 2, 0], integer(0x42, 93)),
])


# What a hostile agent puts in its strings: a forged line, clear screen,
# a set title (OSC 0), a write to the clipboard (OSC 52), raw C1 CSI and
# OSC, and the same as UTF-8 (U+009B, U+009D), and DEL.
HOSTILE = (b"x\nwarning: agent: FORGED LINE\x1b[2J\x1b]0;title\x07"
           b"\x1b]52;c;ZXZpbA==\x07\x9b31m\x9d0;t\x07\xc2\x9b1m\xc2\x9d0;u\x07\x7fend")
# The same in fewer than 64 bytes, for what dcistat reads into a short
# buffer (the text of a time).
HOSTILE_SHORT = b"x\nFORGED\x1b[2J\x1b]52;c;ZQ==\x07\x9b1m\x9d0;t\x07\xc2\x9b\xc2\x9d\x7f"


def hostile_tree(where):
    """OLDER_TREE with HOSTILE in the strings of `where`: "output" (strings
    dcistat shows: titles, descriptions, failure, instance labels, a string
    value of a second datum of "cpus"), or "module", "class", "unit",
    "time" (what dcistat refuses)."""
    tree = {tuple(o): v for o, v in OLDER_TREE}
    if where == "output":
        for column in (3, 4, 11):  # title, description, failure
            tree[tuple(ARC + [1, 1, column] + SUPPLIER)] = octets(HOSTILE)
        tree[tuple(ARC + [3, 1, 10] + DATUM)] = octets(HOSTILE)
        tree[tuple(ARC + [4, 1, 2] + INSTANCE)] = octets(HOSTILE)
        tree[tuple(ARC + [4, 1, 2] + CPU)] = octets(HOSTILE + b"2")
        tree[tuple(ARC + [2, 1, 4] + CPUS)] = integer(0x42, 2)
        name = CPUS + [2]
        for column, value in ((2, octets("name")), (3, integer(0x02, 2)),
                              (4, integer(0x42, 0)), (5, integer(0x42, 0)),
                              (6, integer(0x42, 200)), (7, integer(0x02, 1)),
                              (8, octets("")), (9, integer(0x02, 3)),
                              (10, octets(HOSTILE))):
            tree[tuple(ARC + [3, 1, column] + name)] = value
        tree[tuple(ARC + [6, 1, 8, 1, 2, 0])] = octets(HOSTILE)
    elif where == "module":
        tree[tuple(ARC + [1, 1, 2] + SUPPLIER)] = octets(HOSTILE)
    elif where == "class":
        tree[tuple(ARC + [2, 1, 2] + CLASS)] = octets(HOSTILE)
    elif where == "unit":
        tree[tuple(ARC + [3, 1, 8] + DATUM)] = octets(HOSTILE)
    elif where == "time":
        # "busy" of cpus as an absolute ST_TIME (STF_CTIME), served as a
        # TimeStamp whose dciStatText is HOSTILE.
        tree[tuple(ARC + [3, 1, 3] + CPU_DATUM)] = integer(0x02, 8)
        tree[tuple(ARC + [3, 1, 4] + CPU_DATUM)] = integer(0x42, 1)
        tree[tuple(ARC + [3, 1, 5] + CPU_DATUM)] = integer(0x42, 0)
        tree[tuple(ARC + [3, 1, 6] + CPU_DATUM)] = integer(0x42, 8)
        tree[tuple(ARC + [3, 1, 9] + CPU_DATUM)] = integer(0x02, 3)
        tree[tuple(ARC + [6, 1, 8, 1, 1, 0])] = integer(0x43, 5)
        tree[tuple(ARC + [5, 1, 3, 2, 1, 8, 1, 0, 1])] = octets(HOSTILE)
    return sorted((list(o), v) for o, v in tree.items())


def endless_bulk(start, repetitions, column):
    """`repetitions` rows of `column` (a table's entry and column) after
    `start`: indexes 1, 2, ... without end (endless-classes: class ids 1.N,
    after one supplier)."""
    if start[:len(column)] == column and len(start) > len(column):
        after = start[len(column):]
    else:
        after = None
    rows = []
    if column[-3:] == [2, 1, 2]:
        # dciClassLabel.[2, 1, N]: after the class table's first column
        # starts, N counts up.
        n = after[2] if after is not None and len(after) == 3 else 0
        rows = [column + [2, 1, n + i] for i in range(1, repetitions + 1)]
    else:
        n = after[0] if after is not None else 0
        rows = [column + [n + i] for i in range(1, repetitions + 1)]
    return b"".join(tlv(0x30, objid(o) + octets("e%d" % o[-1])) for o in rows)


def older_bulk(start, repetitions, tree):
    """The varbinds after `start` in `tree`, then endOfMibView."""
    following = [(o, v) for o, v in tree if o > start][:repetitions]
    varbinds = b"".join(tlv(0x30, objid(o) + v) for o, v in following)
    if len(following) < repetitions:
        varbinds += tlv(0x30, objid(start) + tlv(0x82, b""))
    return varbinds


def read(data, at):
    tag = data[at]
    length = data[at + 1]
    at += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[at:at + count], "big")
        at += count
    return tag, data[at:at + length], at + length


def answer(request, scenario, log):
    _, message, _ = read(request, 0)
    _, _, at = read(message, 0)             # version
    _, community, at = read(message, at)
    pdu_tag, pdu, _ = read(message, at)
    _, request_id, _ = read(pdu, 0)
    request_id = int.from_bytes(request_id, "big", signed=True)
    if pdu_tag == 0xA0 and scenario == "hostile-time":
        # GETs: sysUpTime.0, or dciStatText of the times (HOSTILE).
        _, _, at = read(pdu, 0)
        _, _, at = read(pdu, at)
        _, _, at = read(pdu, at)
        _, varbinds, _ = read(pdu, at)
        varbind, at = b"", 0
        while at < len(varbinds):
            _, one, at = read(varbinds, at)
            _, name, _ = read(one, 0)
            name = oid_of(name)
            if name == [1, 3, 6, 1, 2, 1, 1, 3, 0]:
                value = integer(0x43, 12345)
            else:
                value = octets(HOSTILE_SHORT)
            varbind += tlv(0x30, objid(name) + value)
    elif pdu_tag == 0xA0:  # GET: sysUpTime.0
        varbind = tlv(0x30, objid([1, 3, 6, 1, 2, 1, 1, 3, 0]) + integer(0x43, 12345))
    elif scenario.startswith("endless"):
        _, _, at = read(pdu, 0)                 # request id
        _, _, at = read(pdu, at)                # non-repeaters
        _, repetitions, at = read(pdu, at)
        _, varbinds, _ = read(pdu, at)
        _, first, _ = read(varbinds, 0)
        _, name, _ = read(first, 0)
        start = oid_of(name)
        repetitions = int.from_bytes(repetitions, "big")
        if scenario == "endless-classes" and start < ARC + [1, 1, 2] + SUPPLIER:
            # One supplier, then the class table without end.
            varbind = tlv(0x30, objid(ARC + [1, 1, 2] + SUPPLIER) + octets("one"))
        elif scenario == "endless-classes" and start < ARC + [2]:
            # After the supplier: the class table (ends the walk).
            varbind = endless_bulk(ARC + [2], 1, ARC + [2, 1, 2])
        elif scenario == "endless-classes":
            varbind = endless_bulk(start, repetitions, ARC + [2, 1, 2])
        else:
            varbind = endless_bulk(start, repetitions, ARC + [1, 1, 2])
    elif scenario.startswith("hostile"):
        _, _, at = read(pdu, 0)
        _, _, at = read(pdu, at)
        _, repetitions, at = read(pdu, at)
        _, varbinds, _ = read(pdu, at)
        _, first, _ = read(varbinds, 0)
        _, name, _ = read(first, 0)
        where = scenario[len("hostile-"):] if "-" in scenario else "output"
        varbind = older_bulk(oid_of(name), int.from_bytes(repetitions, "big"),
                             hostile_tree(where))
    elif scenario == "older":
        _, _, at = read(pdu, 0)                 # request id
        _, _, at = read(pdu, at)                # non-repeaters
        _, repetitions, at = read(pdu, at)
        _, varbinds, _ = read(pdu, at)
        _, first, _ = read(varbinds, 0)
        _, name, _ = read(first, 0)
        if log:
            with open(log, "a") as out:
                out.write(".".join(str(s) for s in oid_of(name)) + "\n")
        tree = OLDER_TREE_MORE if os.path.exists(sys.argv[3] + ".more") else OLDER_TREE
        varbind = older_bulk(oid_of(name), int.from_bytes(repetitions, "big"), tree)
    else:
        supplier = ARC + [1, 1, 2]
        if scenario == "backwards":
            varbind = tlv(0x30, objid(ARC + [1, 1]) + tlv(0x04, b"x"))
        elif scenario == "long-prefix":
            varbind = tlv(0x30, objid(ARC + [2, 1, 2, 99, 1]) + tlv(0x04, b"x"))
        elif scenario == "wide-subid":
            varbind = tlv(0x30, objid(supplier + [1 << 40]) + tlv(0x04, b"x"))
        elif scenario == "wrong-type":
            varbind = tlv(0x30, objid(supplier + [1]) + integer(0x02, 7))
        elif scenario == "long-oid":
            varbind = tlv(0x30, objid(supplier + [1] * 200) + tlv(0x04, b"x"))
        else:
            varbind = tlv(0x30, objid(supplier + [1]) + tlv(0x04, b"x"))
    # `varbind`: one varbind, or (older) the GETBULK's varbinds in a row.
    body = integer(0x02, request_id) + integer(0x02, 0) + integer(0x02, 0) + tlv(0x30, varbind)
    response = tlv(0x30, integer(0x02, 1) + tlv(0x04, community) + tlv(0xA2, body))
    if scenario == "truncated" and pdu_tag != 0xA0:
        response = response[:-3]
    return response


def main():
    port, scenario = int(sys.argv[1]), sys.argv[2]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    open(sys.argv[3], "w").close()
    log = sys.argv[4] if len(sys.argv) > 4 else None
    while True:
        request, peer = sock.recvfrom(65536)
        try:
            sock.sendto(answer(request, scenario, log), peer)
        except (IndexError, ValueError):
            pass


if __name__ == "__main__":
    main()
