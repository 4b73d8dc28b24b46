#!/usr/bin/env python3
"""Asks the installed uftrace how it prints symbol names: records a tiny C program once, then
rewrites the recording so that its executable's symbol table (.sym) holds the given names and its
task calls each of them once, and reads the names back from `uftrace dump`. Prints one line per
name: `<symbol>\t<what uftrace printed>`. The expected strings of the demangler's unit tests
(src/formats/uftrace/demangle/tests.rs) were taken from this with Debian's uftrace 0.13:
    python3 scripts/uftrace-names-oracle.py _ZN3ABC3fooEv _Znwm ...
    python3 scripts/uftrace-names-oracle.py - < names.txt     (one symbol a line)
Needs gcc and uftrace on PATH; works in a temporary directory."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# Symbols 4 bytes apart: the program's text mapping (0x5000 bytes) holds BATCH of them.
STRIDE = 4
BATCH = 3500
PROGRAM = "int f(int x) { return x + 1; }\nint main(void) { return f(1) - 2; }\n"


def record(work):
    src = os.path.join(work, "p.c")
    with open(src, "w") as f:
        f.write(PROGRAM)
    exe = os.path.join(work, "p")
    subprocess.run(["gcc", "-pg", "-O0", "-o", exe, src], check=True)
    data = os.path.join(work, "uftrace.data")
    subprocess.run(["uftrace", "record", "-d", data, exe], check=True, capture_output=True)
    # Without the program uftrace reads the symbol table from the recording's p.sym.
    os.remove(exe)
    return data


def exe_base(data):
    for name in os.listdir(data):
        if name.startswith("sid-") and name.endswith(".map"):
            for line in open(os.path.join(data, name)):
                if line.rstrip().split()[5:6] and line.split()[5].endswith("/p"):
                    return int(line.split("-")[0], 16)
    raise SystemExit("no mapping of the program in the recording")


def ask(names):
    work = tempfile.mkdtemp(prefix="uftrace-oracle-")
    try:
        data = record(work)
        base = exe_base(data)
        dats = [n for n in os.listdir(data) if n.endswith(".dat") and n[0].isdigit()]
        with open(os.path.join(data, "p.sym"), "w") as f:
            for i, n in enumerate(names):
                f.write("%016x T %s\n" % (0x1000 + STRIDE * i, n))
            f.write("%016x ? __func_end\n" % (0x1000 + STRIDE * len(names)))
        recs = bytearray()
        # Records are resolved in the session that started before them: keep the task's times.
        with open(os.path.join(data, dats[0]), "rb") as f:
            t = struct.unpack("<Q", f.read(8))[0]
        for i in range(len(names)):
            addr = base + 0x1000 + STRIDE * i + 2
            for kind in (0, 1):  # ENTRY, EXIT; magic 5, depth 0
                word = kind | (5 << 3) | (addr << 16)
                recs += struct.pack("<QQ", t, word)
                t += 1000
        with open(os.path.join(data, dats[0]), "wb") as f:
            f.write(recs)
        # One line per record, in order (`uftrace report` would merge equal names, and `replay`
        # prints `operator()` as `operator`).
        out = subprocess.run(["uftrace", "dump", "-d", data, "--no-event"],
                             check=True, capture_output=True, text=True).stdout
        if os.environ.get("ORACLE_DEBUG"):
            print(out)
        got = re.findall(r"\[entry\] (.*)\([0-9a-f]+\) depth: \d+$", out, re.M)
        if len(got) != len(names):
            raise SystemExit("uftrace printed %d names for %d symbols:\n%s" % (len(got), len(names), out))
        return got
    finally:
        shutil.rmtree(work)


def main():
    names = sys.argv[1:]
    if names == ["-"]:
        names = [l.strip() for l in sys.stdin if l.strip()]
    for i in range(0, len(names), BATCH):
        part = names[i:i + BATCH]
        for n, g in zip(part, ask(part)):
            print("%s\t%s" % (n, g))


if __name__ == "__main__":
    main()
