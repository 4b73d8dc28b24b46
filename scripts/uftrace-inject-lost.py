#!/usr/bin/env python3
"""Writes LOST records into a copy of a uftrace recording, as libmcount writes them when its
shared-memory buffers overflow: the records that did not fit are missing, and the first record
of the next buffer is a LOST record (libmcount/record.c, get_new_shmem_buffer): time 0, type
LOST (2), magic 5, more 0, address = the number of records lost, and a depth field libmcount
does not set (the depth of whatever record that buffer held before; 0 in a fresh buffer).

    python3 scripts/uftrace-inject-lost.py SRC_DIR DST_DIR TID START:COUNT[:DEPTH] ...

drops COUNT records of TID's .dat from record index START (0-based, counted before any drop)
and puts one LOST record with that count in their place. Only recordings whose records have no
payload (no arguments, return values or event data) are accepted: their .dat is 16 bytes a
record. Every other file is copied unchanged."""
import os
import shutil
import struct
import sys

LOST, MAGIC = 2, 5


def lost_record(count, depth):
    word = LOST | (0 << 2) | (MAGIC << 3) | ((depth & 0x3FF) << 6) | ((count & 0xFFFFFFFFFFFF) << 16)
    return struct.pack("<QQ", 0, word)


def main():
    if len(sys.argv) < 5:
        raise SystemExit(__doc__)
    src, dst, tid = sys.argv[1], sys.argv[2], sys.argv[3]
    gaps = []
    for spec in sys.argv[4:]:
        parts = [int(p) for p in spec.split(":")]
        start, count = parts[0], parts[1]
        depth = parts[2] if len(parts) > 2 else 0
        gaps.append((start, count, depth))
    gaps.sort()
    if os.path.exists(dst):
        raise SystemExit("%s exists" % dst)
    shutil.copytree(src, dst)
    path = os.path.join(dst, "%s.dat" % tid)
    data = open(path, "rb").read()
    if len(data) % 16:
        raise SystemExit("%s: not a whole number of 16-byte records" % path)
    recs = [data[i:i + 16] for i in range(0, len(data), 16)]
    for r in recs:
        word = struct.unpack("<Q", r[8:])[0]
        if (word >> 3) & 7 != MAGIC or (word >> 2) & 1:
            raise SystemExit("%s: a record with a payload or a bad magic" % path)
    out = bytearray()
    i = 0
    for start, count, depth in gaps:
        if start < i or start + count > len(recs):
            raise SystemExit("gap %d:%d overlaps or passes the end (%d records)" % (start, count, len(recs)))
        out += b"".join(recs[i:start])
        out += lost_record(count, depth)
        i = start + count
    out += b"".join(recs[i:])
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
