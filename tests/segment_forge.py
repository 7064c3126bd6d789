#!/usr/bin/env python3
"""segment_forge.py -- writes a supplier segment (include/dcistat/segment.h)
directly, as a hostile member of the supplier group could: every table
valid, every bound of dcistatd's reader met, but shaped to cost as much
as it can.

Used by tests/integration/agent_hostile.sh and bench/hostile. The layout
is segment.h's, built with ctypes so that it has the C compiler's
alignment (a check below compares the sizes with what segment.h gives).

    segment_forge.py PATH [options]

--classes N          classes (default 1)
--datums D           datums of each class (default 1)
--shared-datums      every class points at the same D datum records
                     (the amplification of issue 24); otherwise each class
                     has its own
--string-size S      datums are strings of S bytes (NUL included), not
                     64-bit counters
--instances I        live instances, spread over the classes (default 0)
--thread-regions T   thread regions (default 1), all in use
--block-words B      words of each instance's block, sequence word
                     included (default: what its datums take, plus one)
--shared-block       every instance's block at the same words (one block
                     in the regions: a small file whatever I is)
--alternate-blocks   two blocks, instances alternating between them (no
                     reader can keep the last copy)
--module M --number N --pid P (default: the parent process) --start TICKS
                     (default: P's start time from /proc)
--value V            every value word of the shared region (default 1)
--published-classes N
                     the class count published in the header (default:
                     all); the others can be published later by writing
                     the header's class_count (offset CLASS_COUNT_OFFSET)
--datums-first       the datum table before the class table, so that a
                     file cut in the class table keeps the datums whole
--size-at-least B    the value regions made longer until the file has at
                     least B bytes
--print-cost         prints the file size and the counts on stdout

Prints nothing else; exits 2 on a bad argument.
"""
import argparse
import ctypes
import os
import sys

LABEL = 64
DESCRIPTION = 160
INSTANCE_LABEL = 128
ID_WORDS = 16
CLASS_ID_WORDS = 14
LEVELS = 16
u32 = ctypes.c_uint32
u64 = ctypes.c_uint64


class Header(ctypes.Structure):
    _fields_ = [("magic", ctypes.c_char * 8), ("version", u32),
                ("byte_order_mark", u32), ("segment_size", u64),
                ("header_size", u32), ("pid", u32), ("process_start", u64),
                ("reset_stamp", u64), ("module", ctypes.c_char * LABEL),
                ("title", ctypes.c_char * LABEL),
                ("description", ctypes.c_char * DESCRIPTION),
                ("supplier_type", u32), ("supplier_version", u32),
                ("number", u32), ("class_capacity", u32),
                ("datum_capacity", u32), ("instance_capacity", u32),
                ("class_offset", u64), ("datum_offset", u64),
                ("instance_offset", u64), ("region_offset", u64),
                ("region_words", u32), ("thread_regions", u32),
                ("class_count", u32), ("datum_count", u32),
                ("instance_high", u32), ("regions_in_use", u32),
                ("closed", u32), ("reserved", u32 * 7)]


class Class(ctypes.Structure):
    _fields_ = [("id_length", u32), ("id", u32 * CLASS_ID_WORDS),
                ("level_count", u32), ("level_itype", u32 * LEVELS),
                ("level_size", u32 * LEVELS), ("datum_first", u32),
                ("datum_count", u32), ("label", ctypes.c_char * LABEL),
                ("description", ctypes.c_char * DESCRIPTION)]


class Datum(ctypes.Structure):
    _fields_ = [("id", u32), ("type", u32), ("format", u32),
                ("presentation", u32), ("size", u32), ("volatility", u32),
                ("unit", u32), ("semantics", u32), ("combine", u32),
                ("word", u32), ("divisor", u32), ("is_signed", u32),
                ("label", ctypes.c_char * LABEL),
                ("description", ctypes.c_char * DESCRIPTION)]


class Instance(ctypes.Structure):
    _fields_ = [("state", u32), ("class_index", u32), ("block", u32),
                ("block_words", u32), ("value_base", u32), ("parent", u32),
                ("id", u32 * ID_WORDS),
                ("label", ctypes.c_char * INSTANCE_LABEL)]


CLASS_COUNT_OFFSET = Header.class_count.offset
assert CLASS_COUNT_OFFSET == 400, "segment.h changed"
assert (ctypes.sizeof(Header), ctypes.sizeof(Class), ctypes.sizeof(Datum),
        ctypes.sizeof(Instance)) == (448, 424, 272, 216), "segment.h changed"

# provider.h's values.
ST_INTEGER64, ST_STRING = 6, 2
COMBINE_SUM, COMBINE_STRING = 1, 5
SEMANTICS_COUNTER, SEMANTICS_DISCRETE = 1, 3
SIF_UNSIGNED, SIP_DECIMAL = 1, 1


def align8(n):
    return (n + 7) // 8 * 8


def process_start(pid):
    with open("/proc/%d/stat" % pid) as stat:
        text = stat.read()
    return int(text[text.rindex(")") + 2:].split()[19])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--classes", type=int, default=1)
    parser.add_argument("--datums", type=int, default=1)
    parser.add_argument("--shared-datums", action="store_true")
    parser.add_argument("--string-size", type=int, default=0)
    parser.add_argument("--instances", type=int, default=0)
    parser.add_argument("--thread-regions", type=int, default=1)
    parser.add_argument("--block-words", type=int, default=0)
    parser.add_argument("--shared-block", action="store_true")
    parser.add_argument("--alternate-blocks", action="store_true")
    parser.add_argument("--module", default="forged")
    parser.add_argument("--number", type=int, default=4343)
    parser.add_argument("--pid", type=int, default=os.getppid())
    parser.add_argument("--start", type=int, default=-1)
    parser.add_argument("--value", type=int, default=1)
    parser.add_argument("--print-cost", action="store_true")
    parser.add_argument("--published-classes", type=int, default=-1)
    parser.add_argument("--datums-first", action="store_true")
    parser.add_argument("--size-at-least", type=int, default=0)
    args = parser.parse_args()
    if args.classes < 1 or args.datums < 1 or args.instances < 0:
        parser.error("classes and datums >= 1, instances >= 0")
    start = args.start if args.start >= 0 else process_start(args.pid)

    datum_words = (args.string_size + 7) // 8 if args.string_size else 1
    value_words = args.datums * datum_words
    block_words = args.block_words or value_words + 1
    if block_words < value_words + 1:
        parser.error("--block-words below what the datums take")
    datum_records = args.datums if args.shared_datums else \
        args.datums * args.classes
    if args.shared_block:
        blocks = 1
    elif args.alternate_blocks:
        blocks = 2
    else:
        blocks = max(args.instances, 1)
    region_words = 1 + blocks * block_words

    class_bytes = args.classes * ctypes.sizeof(Class)
    datum_bytes = datum_records * ctypes.sizeof(Datum)
    if args.datums_first:
        datum_offset = align8(ctypes.sizeof(Header))
        class_offset = align8(datum_offset + datum_bytes)
        instance_offset = align8(class_offset + class_bytes)
    else:
        class_offset = align8(ctypes.sizeof(Header))
        datum_offset = align8(class_offset + class_bytes)
        instance_offset = align8(datum_offset + datum_bytes)
    region_offset = align8(instance_offset +
                           max(args.instances, 1) * ctypes.sizeof(Instance))
    size = region_offset + (args.thread_regions + 1) * region_words * 8
    if size < args.size_at_least:
        region_words += -(-(args.size_at_least - size) //
                          ((args.thread_regions + 1) * 8))
        size = region_offset + (args.thread_regions + 1) * region_words * 8

    header = Header()
    header.magic = b"DCISEG"
    header.version = 1
    header.byte_order_mark = 0x01020304
    header.segment_size = size
    header.header_size = ctypes.sizeof(Header)
    header.pid = args.pid
    header.process_start = start
    header.reset_stamp = int.from_bytes(os.urandom(8), "little")
    header.module = args.module.encode()
    header.title = b"forged segment"
    header.description = b"tests/segment_forge.py"
    header.supplier_version = 1
    header.number = args.number
    header.class_capacity = args.classes
    header.datum_capacity = datum_records
    header.instance_capacity = max(args.instances, 1)
    header.class_offset = class_offset
    header.datum_offset = datum_offset
    header.instance_offset = instance_offset
    header.region_offset = region_offset
    header.region_words = region_words
    header.thread_regions = args.thread_regions
    header.class_count = args.classes if args.published_classes < 0 \
        else args.published_classes
    header.datum_count = datum_records
    header.instance_high = args.instances
    header.regions_in_use = args.thread_regions

    with open(args.path, "wb") as out:
        out.truncate(size)
        out.write(bytes(header))
        for c in range(args.classes):
            record = Class()
            record.id_length = 2
            record.id[0] = 17
            record.id[1] = c + 1
            record.level_count = 1
            record.level_itype[0] = 1
            record.level_size[0] = 4
            record.datum_first = 0 if args.shared_datums else c * args.datums
            record.datum_count = args.datums
            record.label = b"forged%d" % c
            record.description = b"a forged class"
            out.seek(class_offset + c * ctypes.sizeof(Class))
            out.write(bytes(record))
        out.seek(datum_offset)
        records = bytearray()
        for r in range(datum_records):
            d = r % args.datums
            record = Datum()
            record.id = d + 1
            if args.string_size:
                record.type, record.combine = ST_STRING, COMBINE_STRING
                record.size = args.string_size
                record.semantics = SEMANTICS_DISCRETE
            else:
                record.type, record.combine = ST_INTEGER64, COMBINE_SUM
                record.format = SIF_UNSIGNED
                record.presentation = SIP_DECIMAL
                record.size = 8
                record.semantics = SEMANTICS_COUNTER
            record.word = d * datum_words
            record.divisor = 1
            record.label = b"datum%d" % d
            record.description = b"a forged datum"
            records += bytes(record)
        out.write(records)
        out.seek(instance_offset)
        records = bytearray()
        for i in range(args.instances):
            record = Instance()
            record.state = 1
            record.class_index = i % args.classes
            block = 0 if args.shared_block else \
                i % 2 if args.alternate_blocks else i
            record.block = 1 + block * block_words
            record.block_words = block_words
            record.value_base = 1
            record.id[0] = i + 1
            record.label = b"instance%d" % i
            records += bytes(record)
        out.write(records)
        # The values of the shared region (the thread regions stay zero,
        # which every combination reads as nothing added).
        shared = region_offset + args.thread_regions * region_words * 8
        word = (args.value & (2**64 - 1)).to_bytes(8, "little")
        if args.string_size:
            word = b"forged\0\0"
        for b in range(blocks):
            out.seek(shared + (1 + b * block_words + 1) * 8)
            out.write(word * value_words)
    if args.print_cost:
        print("size %d classes %d datums %d datum_records %d instances %d "
              "thread_regions %d block_words %d"
              % (size, args.classes, args.datums, datum_records,
                 args.instances, args.thread_regions, block_words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
