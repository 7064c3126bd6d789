#!/usr/bin/env python3
"""statsd_client.py -- the statsd sender of tests/integration/statsd.sh.

  statsd_client.py id KIND KEY
      prints the instance index the statsd provider gives series KEY of
      KIND (counter, gauge, timer, set): "2.HI.LO", the 64-bit FNV-1a hash
      of the kind's number and the key, as src/providers/statsd/
      statsd_series.h defines it.
  statsd_client.py burst HOST PORT NAME LINES PER_PACKET PER_BURST
      sends LINES "NAME:1|c" lines, PER_PACKET a datagram, in bursts of
      PER_BURST datagrams sent back to back; prints the datagrams sent.
  statsd_client.py timers HOST PORT NAME COUNT SEED
      sends COUNT log-normal samples (milliseconds, 3 decimals) of timer
      NAME, 50 a datagram, and prints the exact p50, p90 and p99 of what it
      sent (the sample at rank q * COUNT of the sorted samples), in
      thousandths, as the provider serves them.
  statsd_client.py send HOST PORT DATAGRAM [TIMES [INTERVAL]]
      sends one datagram (PORT "unix": HOST is a path), or TIMES of them
      INTERVAL seconds apart; "\\n" and "\\x1b" escapes are decoded.
  statsd_client.py flood HOST PORT PREFIX COUNT [FROM]
      sends COUNT new counters "PREFIX.N:1|c", 200 a datagram (PORT
      "unix": HOST is a path; FROM: the local address a UDP socket binds
      to, such as 127.0.0.2); prints the datagrams sent.
  statsd_client.py setflood HOST PORT PREFIX SETS MEMBERS
      sends MEMBERS distinct members to each of SETS sets "PREFIX.N",
      200 lines a datagram; prints the lines sent.
"""
import random
import socket
import sys
import time

KINDS = {"counter": 0, "gauge": 1, "timer": 2, "set": 3}


def fnv1a(data, value=0xCBF29CE484222325):
    for byte in data:
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def udp(host, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((host, int(port)))
    return sock


def sender(host, port, bind_to=None):
    """A connected datagram socket: PORT "unix" makes HOST a path."""
    if port == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.connect(host)
        return sock
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if bind_to is not None:
        sock.bind((bind_to, 0))
    sock.connect((host, int(port)))
    return sock


def send_lines(sock, lines, per_datagram=200):
    """Sends the lines in datagrams; returns how many datagrams."""
    datagrams = 0
    for start in range(0, len(lines), per_datagram):
        sock.send("".join(lines[start:start + per_datagram]).encode())
        datagrams += 1
        if datagrams % 50 == 0:
            time.sleep(0.001)  # UDP: let the receiver drain
    return datagrams


def main(argv):
    command = argv[1]
    if command == "id":
        value = fnv1a(argv[3].encode(), fnv1a(bytes([KINDS[argv[2]]])))
        print("2.%d.%d" % (value >> 32, value & 0xFFFFFFFF))
    elif command == "burst":
        host, port, name = argv[2], argv[3], argv[4]
        lines, per_packet, per_burst = map(int, argv[5:8])
        sock = udp(host, port)
        line = ("%s:1|c\n" % name).encode()
        sent = 0
        packets = 0
        while sent < lines:
            count = min(per_packet, lines - sent)
            sock.send(line * count)
            sent += count
            packets += 1
            if packets % per_burst == 0:
                # A burst, then a breath: the receiver drains the
                # socket buffer between bursts.
                time.sleep(0.005)
        print(packets)
    elif command == "timers":
        host, port, name = argv[2], argv[3], argv[4]
        count, seed = int(argv[5]), int(argv[6])
        generator = random.Random(seed)
        samples = [round(generator.lognormvariate(3.0, 1.0), 3)
                   for _ in range(count)]
        sock = udp(host, port)
        for start in range(0, count, 50):
            sock.send("".join("%s:%.3f|ms\n" % (name, value)
                              for value in samples[start:start + 50])
                      .encode())
        ordered = sorted(samples)
        print(" ".join(str(round(ordered[min(int(q * count), count - 1)]
                                 * 1000))
                       for q in (0.5, 0.9, 0.99)))
    elif command == "send":
        data = argv[4].encode().decode("unicode_escape").encode("latin-1")
        times = int(argv[5]) if len(argv) > 5 else 1
        interval = float(argv[6]) if len(argv) > 6 else 0.0
        if argv[3] == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.connect(argv[2])
        else:
            sock = udp(argv[2], argv[3])
        for time_number in range(times):
            if time_number > 0:
                time.sleep(interval)
            sock.send(data)
    elif command == "flood":
        sock = sender(argv[2], argv[3], argv[6] if len(argv) > 6 else None)
        print(send_lines(sock, ["%s.%d:1|c\n" % (argv[4], number)
                                for number in range(int(argv[5]))]))
    elif command == "setflood":
        sock = sender(argv[2], argv[3])
        sets, members = int(argv[5]), int(argv[6])
        sent = 0
        for set_number in range(sets):
            lines = ["%s.%d:m%d|s\n" % (argv[4], set_number, member)
                     for member in range(members)]
            send_lines(sock, lines)
            sent += len(lines)
        print(sent)
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main(sys.argv)
