#!/usr/bin/env python3
"""An AgentX subagent (RFC 2741) that only unregisters.

Connects to a master's AgentX socket, opens a session, sends one Unregister
of SUBTREE at PRIORITY, which it never registered, and closes: what an
older dcistatd refused at start did at its stop. A Net-SNMP master removes
the registration of whichever subagent made it.

Usage: agentx_unregister.py SOCKET SUBTREE PRIORITY
Prints "unregister: ERROR" (the master's error code, 0 for none) and exits
0, or exits 2 on a protocol or connection error.
"""

import socket
import struct
import sys

OPEN, CLOSE, UNREGISTER, RESPONSE = 1, 2, 4, 18
NETWORK_BYTE_ORDER = 0x10
CLOSE_SHUTDOWN = 5


def encode_oid(subids):
    return struct.pack(">BBBB", len(subids), 0, 0, 0) + b"".join(
        struct.pack(">I", s) for s in subids)


def encode_string(data):
    return struct.pack(">I", len(data)) + data + b"\0" * (-len(data) % 4)


class Subagent:
    def __init__(self, path):
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.settimeout(10)
        self.connection.connect(path)
        self.session_id = 0
        self.packet_id = 0

    def receive_exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.connection.recv(count - len(data))
            if not chunk:
                raise OSError("the master closed the connection")
            data += chunk
        return data

    def exchange(self, kind, payload):
        """Sends a PDU and returns the error of the master's Response to
        it (and the session id the Response carries)."""
        self.packet_id += 1
        header = struct.pack(">BBBBIIII", 1, kind, NETWORK_BYTE_ORDER, 0,
                             self.session_id, 0, self.packet_id,
                             len(payload))
        self.connection.sendall(header + payload)
        while True:
            header = self.receive_exactly(20)
            _, received, flags, _ = struct.unpack("BBBB", header[:4])
            order = ">" if flags & NETWORK_BYTE_ORDER else "<"
            session, _, packet, length = struct.unpack(order + "IIII",
                                                       header[4:])
            if length > 1 << 20:
                raise OSError("payload of %d octets" % length)
            body = self.receive_exactly(length)
            if received == RESPONSE and packet == self.packet_id:
                _, error, _ = struct.unpack_from(order + "IHH", body, 0)
                return error, session


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    path, subtree, priority = sys.argv[1], sys.argv[2], int(sys.argv[3])
    subids = tuple(int(s) for s in subtree.strip(".").split("."))
    try:
        subagent = Subagent(path)
        error, session = subagent.exchange(
            OPEN, struct.pack(">BBBB", 0, 0, 0, 0) + encode_oid(()) +
            encode_string(b"agentx_unregister.py"))
        if error != 0:
            raise OSError("Open refused with error %d" % error)
        subagent.session_id = session
        error, _ = subagent.exchange(
            UNREGISTER,
            struct.pack(">BBBB", 0, priority, 0, 0) + encode_oid(subids))
        print("unregister: %d" % error, flush=True)
        subagent.exchange(CLOSE, struct.pack(">BBBB", CLOSE_SHUTDOWN, 0, 0,
                                             0))
    except (OSError, struct.error) as error:
        print("ERROR: %s" % error, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
