#!/usr/bin/env python3
"""snmp_liar.py -- a fake SNMPv2c agent that answers dcistat's requests with a
malformed DCI-STATS-MIB, for cli_remote.sh.

Usage: snmp_liar.py PORT SCENARIO READY-FILE
Listens on udp 127.0.0.1:PORT (then creates READY-FILE); answers a GET of sysUpTime.0 properly and every
GETBULK with one varbind chosen by SCENARIO:
  backwards    an OID that sorts before the one asked for (a walk loop)
  long-prefix  a dciClassTable row whose class length prefix is 99
  wide-subid   a dciSupplierTable row whose index is 2^40
  wrong-type   dciSupplierModule.1 as an INTEGER
  long-oid     an OID of 200 sub-identifiers under dciSupplierTable
  truncated    a response cut in the middle of its varbind (no answer parses)
Only what dcistat sends is decoded: BER definite lengths, SNMPv2c.
"""
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


def read(data, at):
    tag = data[at]
    length = data[at + 1]
    at += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[at:at + count], "big")
        at += count
    return tag, data[at:at + length], at + length


def answer(request, scenario):
    _, message, _ = read(request, 0)
    _, _, at = read(message, 0)             # version
    _, community, at = read(message, at)
    pdu_tag, pdu, _ = read(message, at)
    _, request_id, _ = read(pdu, 0)
    request_id = int.from_bytes(request_id, "big", signed=True)
    if pdu_tag == 0xA0:  # GET: sysUpTime.0
        varbind = tlv(0x30, objid([1, 3, 6, 1, 2, 1, 1, 3, 0]) + integer(0x43, 12345))
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
    while True:
        request, peer = sock.recvfrom(65536)
        try:
            sock.sendto(answer(request, scenario), peer)
        except (IndexError, ValueError):
            pass


if __name__ == "__main__":
    main()
