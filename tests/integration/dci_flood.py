#!/usr/bin/env python3
"""A DCI Server consumer that asks as much as it is answered
(dci_budget.sh), or that times single reads.

  dci_flood.py flood SOCKET CONNECTIONS SECONDS
      CONNECTIONS connections, each sending GET_DATA for every class,
      instance and datum again as soon as its answer is in; prints
      "answers BYTES" at the end.
  dci_flood.py probe SOCKET COUNT PAUSE
      COUNT such reads one after another, PAUSE seconds apart, on one
      connection; prints "median MAX" of their latencies in milliseconds.

The request is the protocol's (src/protocol/dci_protocol.h): a 16-byte
header, then class pattern [ALL], instance mask 0 with no words, datum ALL.
"""
import selectors
import socket
import struct
import sys
import time

MAGIC, VERSION, GET_DATA, ALL = 0x31494344, 1, 4, 0xFFFFFFFF


def request(serial):
    payload = struct.pack("<5I", 1, ALL, 0, 0, ALL)
    return struct.pack("<IHHII", MAGIC, VERSION, GET_DATA, serial,
                       len(payload)) + payload


class Consumer:
    """One connection; an answer is read into a buffer kept for the next,
    so that the consumer costs itself little per answer."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.serial = 0
        self.buffer = bytearray(16 + (4 << 20))
        self.view = memoryview(self.buffer)
        self.got = 0

    def send(self):
        self.serial += 1
        self.sock.sendall(request(self.serial))
        self.got = 0

    def receive(self):
        """Reads what has come; the answer's size once it is whole."""
        wanted = 16
        if self.got >= 16:
            wanted += struct.unpack_from("<I", self.buffer, 12)[0]
        count = self.sock.recv_into(self.view[self.got:wanted])
        if count == 0:
            sys.exit("the server closed a connection")
        self.got += count
        if self.got < 16:
            return None
        length = 16 + struct.unpack_from("<I", self.buffer, 12)[0]
        if length > len(self.buffer):
            sys.exit("answer of %d bytes" % length)
        if self.got < length:
            return None
        status = struct.unpack_from("<I", self.buffer, 16)[0]
        if status != 0:
            sys.exit("answer status %d" % status)
        return length


def flood(path, connections, seconds):
    selector = selectors.DefaultSelector()
    consumers = [Consumer(path) for _ in range(connections)]
    for consumer in consumers:
        consumer.send()
        selector.register(consumer.sock, selectors.EVENT_READ, consumer)
    answers = total = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in selector.select(timeout=0.2):
            consumer = key.data
            size = consumer.receive()
            if size is not None:
                answers += 1
                total += size
                consumer.send()
    print(answers, total)


def probe(path, count, pause):
    consumer = Consumer(path)
    latencies = []
    for _ in range(count):
        started = time.monotonic()
        consumer.send()
        size = None
        while size is None:
            size = consumer.receive()
        latencies.append((time.monotonic() - started) * 1000.0)
        time.sleep(pause)
    latencies.sort()
    print("%.1f %.1f" % (latencies[len(latencies) // 2], latencies[-1]))


if __name__ == "__main__":
    if sys.argv[1] == "flood":
        flood(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        probe(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
