#!/usr/bin/env python3
"""A minimal AgentX master (RFC 2741) for the request-path tests.

Listens on a Unix socket, accepts one subagent, answers its Open and
Register PDUs, then sends the requests of a scenario and checks the
answers. A real master (snmpd) cannot send these: its own SNMP parser stops
at 128 sub-identifiers, while an AgentX name may have up to 255 (plus the
prefix).

Usage: agentx_master.py SOCKET SCENARIO [TIMEOUT-SECONDS]
Scenario "long-names": the answers to names longer than MAX_OID_LEN.
Scenario "hang-up-at-close": once the tables are registered, answers the
subagent's pings until it sends an Unregister or a Close, then closes the
connection with that PDU unanswered (as a master that stops, or times the
subagent out, at that moment does).
Scenario "framing": how requests are cut into reads: several in one write
(either byte order), one split over writes, a Set and a Get of a
non-default context among Gets (answered by Net-SNMP's agent), a PDU
longer than Net-SNMP parses followed by a Get; every request is answered
once, by packet id, as the same request sent alone is, and in its byte
order.
Scenario "cut-answer": Gets of long names (each answered noSuchInstance
with its name, so as long as the master makes it) sent in one write, their
answers not read, sized so that the first answer without room in
dcistatd's socket is written in part: dcistatd must end the connection
there (the master reads the whole answers before it, a part of it and
nothing after), then open a new one, register again and answer a Get.
Prints "cut: request N, W of L octets" for the test to find in dcistatd's
log.
Scenario "unwritten-answer": the same, sized so that the first answer
without room has room for none of it: dcistatd must end the connection
all the same (the master reads the whole answers before it and nothing
after), then open a new one. Prints "unsent: request N, L octets".
Scenario "bulk-unread-N": on each of N connections in turn, once the
tables are registered and a GetBulk and a GetNext answered, GetBulks whose
answers hold
twice dcistatd's send buffer, in one write, none of their answers read:
dcistatd must end the connection (the master checks that what it wrote is
whole PDUs, the last one perhaps cut, nothing after it), and open a new
one. Prints "bulk: connection I, requests A to B" for the test to find in
dcistatd's log. On the Nth it prints "holding: ..." and reads nothing
until the connection ends (the test stops dcistatd meanwhile).
Scenario "ping-unread": Gets whose answers leave dcistatd's socket less
than one answer's room, none read, then nothing sent: dcistatd's pings
fill the rest, and the first without room must end the connection (what
the master then reads: the answers and pings whole, nothing after a PDU
cut short).
Prints one "ok: ..." line per check; exits 1 with "FAIL: ..." at the first
wrong answer, 2 on a protocol or time-out error.
"""

import array
import fcntl
import select
import socket
import struct
import sys
import termios
import time

OPEN, CLOSE, REGISTER, UNREGISTER, GET, GETNEXT = 1, 2, 3, 4, 5, 6
GETBULK, TEST_SET, NOTIFY, PING, RESPONSE = 7, 8, 12, 13, 18
NON_DEFAULT_CONTEXT = 0x08
NETWORK_BYTE_ORDER = 0x10

END_OF_MIB_VIEW, NO_SUCH_OBJECT, NO_SUCH_INSTANCE = 130, 128, 129
OCTET_STRING = 4

ARC = (1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 4040)
OBJECTS = ARC + (1,)  # dciStatsObjects
SUPPLIER_MODULE = ARC + (1, 1, 1, 2)  # dciSupplierModule
PAST_ALL = ARC + (1, 7)  # after dciClassData


class ProtocolError(Exception):
    pass


class Session:
    def __init__(self, connection):
        self.connection = connection
        self.session_id = 1
        self.packet_id = 100
        self.buffer = b""
        self.last_pdu = b""

    def receive_exactly(self, count):
        while len(self.buffer) < count:
            data = self.connection.recv(65536)
            if not data:
                raise ProtocolError("the subagent closed the connection")
            self.buffer += data
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self):
        header = self.receive_exactly(20)
        version, kind, flags, _ = struct.unpack("BBBB", header[:4])
        if version != 1:
            raise ProtocolError("AgentX version %d" % version)
        order = ">" if flags & NETWORK_BYTE_ORDER else "<"
        session, transaction, packet, length = struct.unpack(
            order + "IIII", header[4:])
        if length > 1 << 20:
            raise ProtocolError("payload of %d octets" % length)
        payload = self.receive_exactly(length)
        self.last_pdu = header + payload
        return kind, flags, order, session, transaction, packet, payload

    def pdu(self, kind, payload, transaction, packet, flags=NETWORK_BYTE_ORDER,
            length=None):
        order = ">" if flags & NETWORK_BYTE_ORDER else "<"
        return struct.pack(order + "BBBBIIII", 1, kind, flags, 0,
                           self.session_id, transaction, packet,
                           len(payload) if length is None else length) + payload

    def send(self, kind, payload, transaction, packet, flags=0):
        self.connection.sendall(self.pdu(kind, payload, transaction, packet,
                                         flags | NETWORK_BYTE_ORDER))

    def respond(self, transaction, packet, error=0):
        self.send(RESPONSE, struct.pack(">IHH", 0, error, 0), transaction,
                  packet)


def encode_oid(subids, include=False, order=">", compress=False):
    """An OID; `compress`: with the 1.3.6.1 prefix compressed where it
    applies."""
    subids = tuple(subids)
    prefix = 0
    if compress and len(subids) > 4 and subids[:4] == (1, 3, 6, 1) and 0 < subids[4] < 256:
        prefix, subids = subids[4], subids[5:]
    if len(subids) > 255:
        raise ValueError("AgentX names have at most 255 sub-identifiers")
    return struct.pack("BBBB", len(subids), prefix, 1 if include else 0,
                       0) + b"".join(struct.pack(order + "I", s)
                                     for s in subids)


def decode_oid(payload, offset, order):
    count, prefix, include, _ = struct.unpack_from("BBBB", payload, offset)
    offset += 4
    subids = struct.unpack_from(order + "%dI" % count, payload, offset)
    offset += 4 * count
    if prefix:
        subids = (1, 3, 6, 1, prefix) + subids
    return tuple(subids), include, offset


def decode_varbinds(payload, order):
    uptime, error, index = struct.unpack_from(order + "IHH", payload, 0)
    offset = 8
    varbinds = []
    while offset < len(payload):
        kind, = struct.unpack_from(order + "H", payload, offset)
        offset += 4
        name, _, offset = decode_oid(payload, offset, order)
        value = None
        if kind in (2, 65, 66, 67):
            value, = struct.unpack_from(order + "I", payload, offset)
            offset += 4
        elif kind == 70:
            value, = struct.unpack_from(order + "Q", payload, offset)
            offset += 8
        elif kind in (4, 64, 68):
            length, = struct.unpack_from(order + "I", payload, offset)
            offset += 4
            value = payload[offset:offset + length]
            offset += (length + 3) & ~3
        elif kind == 6:
            value, _, offset = decode_oid(payload, offset, order)
        varbinds.append((kind, name, value))
    return error, index, varbinds


class Master:
    def __init__(self, session):
        self.session = session
        self.transaction = 1

    def serve_until_registered(self):
        """Answers Open, Register and the like until the subagent has
        registered dciStatsObjects' tables and a request can be sent."""
        registered = 0
        opened = False
        while registered < 6:
            kind, _, _, _, transaction, packet, _ = self.session.receive()
            if kind in (OPEN, REGISTER, PING) or kind >= 7:
                self.session.respond(transaction, packet)
                registered += kind == REGISTER
                opened |= kind == OPEN
            else:
                raise ProtocolError("unexpected PDU type %d" % kind)
        return opened

    def request(self, kind, ranges):
        """Sends a Get or GetNext of `ranges` ((start, end, include)...)
        and returns the decoded answer; answers the subagent's own PDUs
        (pings) meanwhile."""
        payload = b"".join(
            encode_oid(start, include) + encode_oid(end)
            for start, end, include in ranges)
        self.transaction += 1
        self.session.send(kind, payload, self.transaction, 1)
        while True:
            received, _, order, _, transaction, packet, body = \
                self.session.receive()
            if received == RESPONSE and transaction == self.transaction:
                return decode_varbinds(body, order)
            self.session.respond(transaction, packet)

    def getnext(self, start, end=(), include=False):
        error, _, varbinds = self.request(GETNEXT, [(start, end, include)])
        if error != 0 or len(varbinds) != 1:
            raise ProtocolError("GetNext error %d, %d varbinds" %
                                (error, len(varbinds)))
        return varbinds[0]

    def get(self, name):
        error, _, varbinds = self.request(GET, [(name, (), False)])
        if error != 0 or len(varbinds) != 1:
            raise ProtocolError("Get error %d, %d varbinds" %
                                (error, len(varbinds)))
        return varbinds[0]


def dotted(name):
    return "." + ".".join(str(s) for s in name)


def check(condition, message):
    if not condition:
        print("FAIL: " + message, flush=True)
        sys.exit(1)
    print("ok: " + message, flush=True)


def long_names(master):
    kind, first, value = master.getnext(SUPPLIER_MODULE)
    check(kind == OCTET_STRING and first[:len(SUPPLIER_MODULE)] ==
          SUPPLIER_MODULE, "GetNext dciSupplierModule answers %s = %r" %
          (dotted(first), value))
    _, second, _ = master.getnext(first)
    for length in (129, 200, 255):
        long_start = first + (0,) * (length - len(first))
        for include in (False, True):
            kind, name, _ = master.getnext(long_start, include=include)
            check(name == second,
                  "GetNext of %s.0... (%d sub-identifiers, include %s) "
                  "answers the row after it, %s" %
                  (dotted(first), length, include, dotted(name)))
        kind, name, _ = master.get(long_start)
        check(kind == NO_SUCH_INSTANCE and name == long_start,
              "Get of the %d-sub-identifier name: noSuchInstance, name kept"
              % length)
        # An end that long: `second` lies before second.0.0...
        long_end = second + (0,) * (length - len(second))
        kind, name, _ = master.getnext(first, end=long_end)
        check(name == second,
              "GetNext with a %d-sub-identifier end after the answer "
              "answers %s" % (length, dotted(name)))
        long_end = first + (0,) * (length - len(first))
        kind, name, _ = master.getnext(first, end=long_end)
        check(kind == END_OF_MIB_VIEW and name == first,
              "GetNext with a %d-sub-identifier end before the answer: "
              "endOfMibView at the start" % length)
    long_past = PAST_ALL + (4294967295,) * (255 - len(PAST_ALL))
    kind, name, _ = master.getnext(long_past)
    check(kind == END_OF_MIB_VIEW and name == long_past,
          "GetNext of a 255-sub-identifier name past every table: "
          "endOfMibView, name kept")
    kind, name, _ = master.get(long_past)
    check(kind == NO_SUCH_OBJECT,
          "Get of a 255-sub-identifier name under no table: noSuchObject")
    # Still serving after all that.
    kind, name, value = master.getnext(SUPPLIER_MODULE)
    check(name == first, "the subagent still answers %s" % dotted(name))


def search_ranges(ranges, order=">"):
    return b"".join(encode_oid(start, include, order, True) +
                    encode_oid(end, False, order, True)
                    for start, end, include in ranges)


def answers_by_packet(master, packets, orders=None):
    """Reads until every packet id in `packets` is answered (once each),
    answering the subagent's own PDUs meanwhile; `orders`, if given, gets
    each answer's byte order by packet id."""
    answers = {}
    while len(answers) < len(packets):
        kind, _, order, _, transaction, packet, body = master.session.receive()
        if kind != RESPONSE:
            master.session.respond(transaction, packet)
            continue
        check(packet in packets and packet not in answers,
              "a response to request %d" % packet)
        answers[packet] = decode_varbinds(body, order)
        if orders is not None:
            orders[packet] = order
    return answers


def framing(master):
    session = master.session
    _, first, _ = master.getnext(SUPPLIER_MODULE)
    _, second, _ = master.getnext(first)
    alone_next = master.request(GETNEXT, [(SUPPLIER_MODULE, (), False),
                                          (first, (), True)])
    alone_get = master.request(GET, [(first, (), False)])
    check(alone_next[2][0][1] == first and alone_next[2][1][1] == first,
          "a GetNext alone: %s (excluded start), %s (included)" %
          (dotted(first), dotted(first)))
    # Three requests in one write, the middle one in the other byte order.
    writes = b""
    for packet, flags in ((201, NETWORK_BYTE_ORDER), (202, 0),
                          (203, NETWORK_BYTE_ORDER)):
        order = ">" if flags else "<"
        kind, ranges = ((GET, [(first, (), False)]) if packet == 202 else
                        (GETNEXT, [(SUPPLIER_MODULE, (), False),
                                   (first, (), True)]))
        writes += session.pdu(kind, search_ranges(ranges, order), 50, packet,
                              flags)
    session.connection.sendall(writes)
    orders = {}
    answers = answers_by_packet(master, (201, 202, 203), orders)
    check(answers[201] == alone_next and answers[203] == alone_next and
          answers[202] == alone_get,
          "three requests in one write answered as each alone")
    # RFC 2741 lets each PDU choose its byte order; a subagent answers in
    # the request's.
    check(orders == {201: ">", 202: "<", 203: ">"},
          "each answered in its request's byte order (201, 203 network, "
          "202 little-endian): %s" %
          ", ".join("%d %s" % (packet, "network" if order == ">" else
                                "little-endian")
                    for packet, order in sorted(orders.items())))
    # One request split over three writes.
    request = session.pdu(GETNEXT, search_ranges([(first, (), False)]), 51,
                          204)
    for piece in (request[:3], request[3:25], request[25:]):
        session.connection.sendall(piece)
        time.sleep(0.05)
    answers = answers_by_packet(master, (204,))
    check(answers[204][2][0][1] == second,
          "a request split over three writes answers %s" % dotted(second))
    # Net-SNMP's among ours: a TestSet and a Get of a non-default context
    # between Gets, all in one write, the last Get cut after its header.
    context = struct.pack(">I", 4) + b"ctx1"
    writes = (session.pdu(GET, search_ranges([(first, (), False)]), 52, 205) +
              session.pdu(TEST_SET, struct.pack(">HH", 2, 0) +
                          encode_oid(first) + struct.pack(">I", 5), 52, 206) +
              session.pdu(GET, search_ranges([(first, (), False)]), 52, 207) +
              session.pdu(GET, context + search_ranges([(first, (), False)]),
                          52, 208, NETWORK_BYTE_ORDER | NON_DEFAULT_CONTEXT) +
              session.pdu(GET, search_ranges([(first, (), False)]), 52, 209))
    session.connection.sendall(writes[:-10])
    time.sleep(0.05)
    session.connection.sendall(writes[-10:])
    answers = answers_by_packet(master, (205, 206, 207, 208, 209))
    check(answers[205] == alone_get and answers[207] == alone_get and
          answers[209] == alone_get,
          "the Gets among a TestSet and a non-default context answered as "
          "alone")
    check(answers[206][0] != 0,
          "the TestSet refused (error %d)" % answers[206][0])
    # A payload longer than Net-SNMP parses, then a Get: Net-SNMP refuses
    # the first as a parse error; the Get is still answered.
    garbage = session.pdu(GET, b"\0" * 65520, 53, 210)
    session.connection.sendall(
        garbage + session.pdu(GET, search_ranges([(first, (), False)]), 53,
                              211))
    answers = answers_by_packet(master, (211,))
    check(answers[211] == alone_get,
          "a Get after a %d-octet PDU answered as alone" % len(garbage))
    _, name, _ = master.getnext(first)
    check(name == second, "the subagent still answers %s" % dotted(name))


def hang_up_at_close(master):
    print("ok: the subagent registered its tables", flush=True)
    while True:
        kind, _, _, _, transaction, packet, _ = master.session.receive()
        if kind in (UNREGISTER, CLOSE):
            print("ok: the subagent sent %s; the connection is closed "
                  "unanswered" % ("an Unregister" if kind == UNREGISTER
                                  else "a Close"), flush=True)
            master.session.connection.close()
            return
        master.session.respond(transaction, packet)


# A Get of a name this long under dciSupplierTable answers noSuchInstance
# with the name kept: an answer as long as the request makes it. The
# longest name dcistatd reads in place (AGENT_AGENTX_OID_MAX).
LONG_NAME_LENGTH = 128
# The most such names in one Get: the request stays under the longest PDU
# dcistatd frames in place (AGENT_AGENTX_PDU_MAX, 65536 octets).
LONG_NAMES_MAX = 120
# How long the master waits for the end of a connection it stopped
# reading; dcistatd waits for room a second (SEND_WAIT_MILLISECONDS).
END_WAIT_SECONDS = 5


def queued_octets(connection):
    """What the subagent wrote on `connection` that is not read yet."""
    count = array.array("i", [0])
    fcntl.ioctl(connection.fileno(), termios.FIONREAD, count)
    return count[0]


def first_unwritten(length):
    """Where a sender stops that writes answers of `length` octets, each in
    one send without blocking, to a peer that reads none, on a Unix stream
    socket pair of this kernel's default sizes (dcistatd's socket to the
    master has them: Net-SNMP sets no buffer size on it): (the number of the
    first answer not written whole, the octets of it written), or (None, 0)
    when it is never reached (it always is: the number of answers tried
    covers twice the send buffer). The peer's SO_RCVBUF plays no part: what a
    Unix stream socket holds for its reader is charged to the writer's send
    buffer, in buffers of at most 32 KiB and some, each taken while the
    writer is below its limit."""
    writer, reader = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with writer, reader:
        writer.setblocking(False)
        answer = b"\0" * length
        send_buffer = writer.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        for number in range(1, 2 * send_buffer // length + 3):
            try:
                written = writer.send(answer)
            except BlockingIOError:
                return number, 0
            if written < length:
                return number, written
    return None, 0


def pings_after_answers(length):
    """On a Unix stream socket pair of this kernel's default sizes, a
    sender that writes answers of `length` octets without blocking to a
    peer that reads none, then 20-octet PDUs: (how many answers it writes
    whole before one finds no room at all, how many 20-octet PDUs then
    have room), or (0, 0) when an answer is written in part."""
    writer, reader = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with writer, reader:
        writer.setblocking(False)
        answer = b"\0" * length
        fitted = 0
        try:
            while True:
                if writer.send(answer) < length:
                    return 0, 0
                fitted += 1
        except BlockingIOError:
            pass
        pings = 0
        try:
            while True:
                writer.send(b"\0" * 20)
                pings += 1
        except BlockingIOError:
            return fitted, pings


def with_ids(pdu, transaction, packet):
    """An answer of the same request under other ids (network byte
    order, as dcistatd encodes)."""
    return pdu[:8] + struct.pack(">II", transaction, packet) + pdu[16:]


def read_to_end(connection, seconds):
    """Everything the peer sends until it ends the connection (EOF, or a
    reset), or for `seconds` at most: (the octets, how it ended, or
    None)."""
    data = b""
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return data, None
            connection.settimeout(left)
            chunk = connection.recv(65536)
            if not chunk:
                return data, "end of file"
            data += chunk
    except ConnectionResetError:
        return data, "reset"
    except socket.timeout:
        return data, None


def stop_reading(master, listener, cut):
    """Gets whose answers fill dcistatd's socket to the master, sent in one
    write, none of their answers read until dcistatd ends the connection;
    `cut`: their size chosen so that the first answer without room is
    written in part (else: not at all). Then a new connection must come,
    and a Get on it be answered."""
    session = master.session
    _, first, value = master.getnext(SUPPLIER_MODULE)
    long_name = first + (0,) * (LONG_NAME_LENGTH - len(first))

    # An answer's length, from those of one and two names.
    lengths = []
    for count in (1, 2):
        master.request(GET, [(long_name, (), False)] * count)
        lengths.append(len(session.last_pdu))
    for names in range(LONG_NAMES_MAX, 0, -1):
        length = lengths[0] + (names - 1) * (lengths[1] - lengths[0])
        number, written = first_unwritten(length)
        if number is not None and (written > 0) == cut:
            break
    else:
        raise ProtocolError("no answer size leaves an answer %s on this "
                            "kernel" % ("cut" if cut else "unwritten"))
    error, _, varbinds = master.request(GET,
                                        [(long_name, (), False)] * names)
    reference = session.last_pdu
    check(error == 0 and len(reference) == length and
          len(varbinds) == names and
          all(kind == NO_SUCH_INSTANCE and name == long_name
              for kind, name, _ in varbinds),
          "a Get of %d names of %d sub-identifiers answers %d octets, "
          "noSuchInstance each" % (names, LONG_NAME_LENGTH, length))
    check(queued_octets(session.connection) == 0 and not session.buffer,
          "nothing unread before the Gets sent without reading")
    # `number` such Gets, the last one's answer without room, and two
    # small ones after it: on a connection left open, their answers (or
    # the subagent's next ping) would follow what was written of it.
    burst = b"".join(
        session.pdu(GET, search_ranges([(long_name, (), False)] * names),
                    60, 301 + i) for i in range(number))
    for packet in (401, 402):
        burst += session.pdu(GET, search_ranges([(first, (), False)]), 60,
                             packet)
    session.connection.sendall(burst)
    sent = time.monotonic()
    print("ok: sent %d such Gets and 2 small ones without reading; on this "
          "kernel answer %d has no room for %s" %
          (number, number, "its last %d octets" % (length - written) if cut
           else "any of its octets"), flush=True)
    poller = select.poll()
    poller.register(session.connection, select.POLLRDHUP)
    ended = bool(poller.poll(END_WAIT_SECONDS * 1000))
    waited = time.monotonic() - sent
    # Read to the end; a connection that did not end is read for a while
    # all the same, to show what would follow the answer without room.
    data, how = read_to_end(session.connection, 5 if ended else 3)
    data = session.buffer + data
    session.connection.close()
    for i in range(number - 1):
        check(data[i * length:(i + 1) * length] ==
              with_ids(reference, 60, 301 + i),
              "answer %d read whole, as the Get answered alone" % (i + 1))
    rest = data[(number - 1) * length:]
    expected = with_ids(reference, 60, 300 + number)
    same = 0
    while same < min(len(rest), length) and rest[same] == expected[same]:
        same += 1
    if same < len(rest):
        check(False, "after answer %d: %d octets of answer %d, then %d "
              "others%s" % (number - 1, same, number, len(rest) - same,
                            ", read as the rest of it" if 0 < same < length
                            else ""))
    if cut:
        check(0 < same < length, "answer %d cut after %d of its %d octets, "
              "nothing after them" % (number, same, length))
        print("cut: request %d, %d of %d octets" % (300 + number, same,
                                                    length), flush=True)
    else:
        check(same == 0, "nothing read of answer %d or after it (%d octets)"
              % (number, same))
        print("unsent: request %d, %d octets" % (300 + number, length),
              flush=True)
    check(ended and how is not None,
          "the connection ended (%s) %.1f s after the Gets" % (how, waited)
          if ended else
          "the connection ended within %d s of the Gets" % END_WAIT_SECONDS)
    listener.settimeout(10)
    connection, _ = listener.accept()
    connection.settimeout(10)
    renewed = Master(Session(connection))
    check(renewed.serve_until_registered(),
          "a new connection %.1f s after the Gets: Open, then the tables "
          "registered again" % (time.monotonic() - sent))
    asked = time.monotonic()
    kind, name, answer = renewed.get(first)
    check(kind == OCTET_STRING and name == first and answer == value,
          "a Get of %s on the new session answers %r within %.3f s" %
          (dotted(first), answer, time.monotonic() - asked))
    _, name, answer = renewed.getnext(SUPPLIER_MODULE)
    check(name == first and answer == value,
          "the subagent still answers %s" % dotted(name))


# Repetitions asked for by each GetBulk of "bulk-unread": its answer as long
# as the tables and Net-SNMP make it.
BULK_REPETITIONS = 200
# How long the master waits for dcistatd to end a connection it stopped
# reading: dcistatd waits a second for room.
BULK_END_WAIT_SECONDS = 10


def getbulk_pdu(session, transaction, packet):
    """A GetBulk of dciStatsObjects: no non-repeaters, BULK_REPETITIONS
    repetitions."""
    return session.pdu(GETBULK, struct.pack(">HH", 0, BULK_REPETITIONS) +
                       search_ranges([(OBJECTS, (), False)]),
                       transaction, packet)


def whole_pdus(data):
    """The PDUs `data` holds, parsed one after the other: (their types, the
    octets left after the last whole one). Raises ProtocolError at a header
    that is not AgentX's, as what follows a PDU cut short would be read."""
    kinds = []
    offset = 0
    while len(data) - offset >= 20:
        version, kind, flags, _ = struct.unpack_from("BBBB", data, offset)
        order = ">" if flags & NETWORK_BYTE_ORDER else "<"
        length, = struct.unpack_from(order + "I", data, offset + 16)
        if version != 1 or kind not in (RESPONSE, PING, NOTIFY, REGISTER,
                                        CLOSE) or length > 1 << 20:
            raise ProtocolError("octets %d on: not an AgentX PDU (version "
                                "%d, type %d, %d octets)" %
                                (offset, version, kind, length))
        if len(data) - offset < 20 + length:
            break
        kinds.append(kind)
        offset += 20 + length
    return kinds, len(data) - offset


def bulk_unread(master, listener, connections):
    for number in range(1, connections + 1):
        session = master.session
        # One GetBulk read: its answer's length, and every Register of the
        # session answered meanwhile (they precede it).
        master.transaction += 1
        session.connection.sendall(getbulk_pdu(session, master.transaction,
                                               1))
        while True:
            kind, _, order, _, transaction, packet, body = session.receive()
            if kind == RESPONSE and transaction == master.transaction:
                break
            session.respond(transaction, packet)
        error, _, varbinds = decode_varbinds(body, order)
        length = len(session.last_pdu)
        if number == 1:
            check(error == 0 and len(varbinds) > 1,
                  "a GetBulk of dciStatsObjects answers %d varbinds, %d octets"
                  % (len(varbinds), length))
        # A Get too (answered in place when that is on): answers written
        # whole on every connection before its end.
        kind, name, value = master.getnext(SUPPLIER_MODULE)
        check(kind == OCTET_STRING and name[:len(SUPPLIER_MODULE)] ==
              SUPPLIER_MODULE and value == b"netif",
              "connection %d: GetNext dciSupplierModule answers %r" %
              (number, value))
        send_buffer = session.connection.getsockopt(socket.SOL_SOCKET,
                                                    socket.SO_SNDBUF)
        count = 2 * send_buffer // length + 3
        first = 1000 * number
        session.connection.sendall(b"".join(
            getbulk_pdu(session, 70, first + i) for i in range(count)))
        sent = time.monotonic()
        print("bulk: connection %d, requests %d to %d" %
              (number, first, first + count - 1), flush=True)
        if number == connections:
            print("holding: connection %d, %d GetBulks sent, nothing read" %
                  (number, count), flush=True)
        poller = select.poll()
        poller.register(session.connection, select.POLLRDHUP)
        ended = bool(poller.poll(BULK_END_WAIT_SECONDS * 1000))
        waited = time.monotonic() - sent
        if number == connections:
            session.connection.close()
            check(ended, "the last connection ended %.1f s after its GetBulks"
                  % waited)
            return
        data, how = read_to_end(session.connection, 5)
        session.connection.close()
        check(ended and how is not None,
              "connection %d ended (%s) %.1f s after %d GetBulks unread" %
              (number, how, waited, count) if ended else
              "connection %d ended within %d s of its GetBulks" %
              (number, BULK_END_WAIT_SECONDS))
        kinds, left = whole_pdus(session.buffer + data)
        check(kinds.count(RESPONSE) < count,
              "connection %d: %d whole PDUs (%d answers of %d), then %d "
              "octets of a PDU cut short, nothing after it" %
              (number, len(kinds), kinds.count(RESPONSE), count, left))
        connection, _ = listener.accept()
        connection.settimeout(30)
        master = Master(Session(connection))
        check(master.serve_until_registered(),
              "connection %d: Open, then the tables registered again" %
              (number + 1))


# How long the master waits for dcistatd's pings to fill its socket and
# end the connection: one every ping interval or two, each taking a buffer
# of what room the answers left.
PING_END_WAIT_SECONDS = 40


def ping_unread(master):
    """Gets whose answers fill dcistatd's socket to less than one answer's
    room, none read; then nothing sent either: dcistatd's pings, sent every
    ping interval the master is silent, fill the rest, and the first without
    room must end the connection."""
    session = master.session
    _, first, _ = master.getnext(SUPPLIER_MODULE)
    long_name = first + (0,) * (LONG_NAME_LENGTH - len(first))
    lengths = []
    for count in (1, 2):
        master.request(GET, [(long_name, (), False)] * count)
        lengths.append(len(session.last_pdu))
    # The answer size that leaves room for the fewest pings.
    best = None
    for names in range(LONG_NAMES_MAX, 0, -1):
        length = lengths[0] + (names - 1) * (lengths[1] - lengths[0])
        fitted, pings = pings_after_answers(length)
        if fitted > 0 and (best is None or pings < best[3]):
            best = (names, length, fitted, pings)
        if best is not None and best[3] <= 2:
            break
    if best is None:
        raise ProtocolError("no answer size fits this kernel's socket whole")
    names, length, fitted, pings = best
    ranges = search_ranges([(long_name, (), False)] * names)
    session.connection.sendall(b"".join(
        session.pdu(GET, ranges, 80, 501 + i) for i in range(fitted)))
    sent = time.monotonic()
    print("ok: sent %d Gets whose answers of %d octets fit in dcistatd's "
          "socket with room for %d pings, then nothing read or sent" %
          (fitted, length, pings), flush=True)
    poller = select.poll()
    poller.register(session.connection, select.POLLRDHUP)
    ended = bool(poller.poll(PING_END_WAIT_SECONDS * 1000))
    waited = time.monotonic() - sent
    data, how = read_to_end(session.connection, 5)
    session.connection.close()
    check(ended and how is not None,
          "the connection ended (%s) %.1f s after the Gets" % (how, waited)
          if ended else "the connection ended within %d s of the Gets" %
          PING_END_WAIT_SECONDS)
    kinds, left = whole_pdus(session.buffer + data)
    check(kinds.count(RESPONSE) == fitted,
          "read: the %d answers and %d pings, whole, then %d octets of a PDU "
          "cut short, nothing after them" %
          (kinds.count(RESPONSE), kinds.count(PING), left))


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    path, scenario = sys.argv[1], sys.argv[2]
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 30
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    listener.settimeout(timeout)
    print("listening", flush=True)
    try:
        connection, _ = listener.accept()
        connection.settimeout(timeout)
        master = Master(Session(connection))
        master.serve_until_registered()
        if scenario == "long-names":
            long_names(master)
        elif scenario == "framing":
            framing(master)
        elif scenario == "hang-up-at-close":
            hang_up_at_close(master)
        elif scenario == "ping-unread":
            ping_unread(master)
        elif scenario.startswith("bulk-unread-"):
            bulk_unread(master, listener,
                        int(scenario[len("bulk-unread-"):]))
        elif scenario in ("cut-answer", "unwritten-answer"):
            stop_reading(master, listener, scenario == "cut-answer")
        else:
            raise ProtocolError("no scenario %s" % scenario)
    except (ProtocolError, OSError, struct.error) as error:
        print("ERROR: %s" % error, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
