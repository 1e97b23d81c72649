#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Random mmap/munmap/mprotect/fault/mremap sequences, run twice: as anonremap
scenarios, and as the raw system calls of tests/diff/seqrun in a carveout
made as merge.c makes it. Both run on the live kernel; any difference in a
step's errno or signal, or in the final VMAs of the reserved area (bounds and
permissions), is anonremap changing what the kernel is given.

diffrun.py SEQRUN ANONREMAP WORKDIR N SEED
prints one line per differing sequence (with both sides), then a summary
line; exit status 1 if any differ."""
import errno
import json
import os
import random
import signal
import subprocess
import sys

WINDOW = 24     # pages of the carveout the sequences use, from its start
MAXLEN = 5
PROTS = ["none", "r", "rw", "rwx"]
MAYMOVE, FIXED, DONTUNMAP = 1, 2, 4


def gen(rng):
    """One sequence: a list of (op, args) tuples, offsets and lengths in pages.
    mremap is generated only in place (flags 0) or to a fixed target: a
    target the kernel picks would depend on the rest of each process's
    address space, which anonremap and seqrun need not share."""
    seq = []
    for _ in range(rng.randint(4, 10)):
        off, ln = rng.randrange(WINDOW), rng.randint(1, MAXLEN)
        op = rng.choices(["mmap", "mprotect", "munmap", "fault", "mremap"], [3, 3, 1, 2, 2])[0]
        if op in ("mmap", "mprotect"):
            seq.append((op, off, ln, rng.choice(PROTS)))
        elif op == "munmap":
            seq.append((op, off, ln))
        elif op == "fault":
            seq.append((op, off, ln, rng.choice("wwr")))
        else:
            flags = rng.choice([0, MAYMOVE | FIXED, MAYMOVE | FIXED, MAYMOVE | FIXED | DONTUNMAP])
            newlen = ln if flags & DONTUNMAP and rng.random() < 0.8 else rng.randint(1, MAXLEN)
            seq.append((op, off, ln, rng.randrange(WINDOW), newlen, flags))
    return seq


def at(p):
    return "carveout+%dp" % p if p else "carveout"


def to_scenario(name, seq):
    """The anonremap scenario of a sequence: every call may fail (the errno is
    recorded either way), faults may raise a signal (run with -k)."""
    steps = []
    for s in seq:
        op = s[0]
        st = {"op": op, "at": at(s[1]), "len": "%dp" % s[2]}
        if op in ("mmap", "mprotect"):
            st["prot"] = s[3]
        elif op == "fault":
            st["access"] = "write" if s[3] == "w" else "read"
        elif op == "mremap":
            del st["len"]
            st["old_len"], st["new_len"] = "%dp" % s[2], "%dp" % s[4]
            names = [n for b, n in ((MAYMOVE, "MAYMOVE"), (FIXED, "FIXED"), (DONTUNMAP, "DONTUNMAP")) if s[5] & b]
            if names:
                st["flags"] = names
            if s[5] & FIXED:
                st["to"] = at(s[3])
        st["may_fail"] = True
        steps.append(st)
    steps.append({"op": "dump", "label": "final"})
    return {"anonremap": 1, "name": name, "steps": steps}


def to_lines(seq):
    return "".join(" ".join(str(x) for x in s) + "\n" for s in seq)


def seqrun_result(seqrun, seq):
    out = subprocess.run([seqrun], input=to_lines(seq), capture_output=True, text=True, check=True).stdout
    steps, vmas = [], []
    for line in out.splitlines():
        w = line.split()
        if w[0] == "step":
            kv = dict(x.split("=") for x in w[2:])
            sig = int(kv["signal"])
            steps.append((errno.errorcode[int(kv["errno"])] if int(kv["errno"]) else None,
                          signal.Signals(sig).name if sig else None,
                          at(int(kv["page"])) if sig else None))
        elif w[0] == "vma":
            vmas.append(w[1] + " " + w[2])
    return steps, vmas


def anonremap_result(sc):
    steps = []
    for st in sc["steps"]:
        if st["op"] == "dump":
            continue
        sig = st.get("signal")
        steps.append((st.get("errno"), sig["name"] if sig else None, sig["rel"] if sig else None))
    vmas = [v["rel"] + " " + v["perms"] for v in sc["dumps"][-1]["vmas"]] if sc.get("dumps") else None
    return steps, vmas


def main():
    seqrun, anonremap, workdir, n, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(seed)
    seqs, files = [], []
    for i in range(n):
        seq = gen(rng)
        seqs.append(seq)
        f = os.path.join(workdir, "seq%03d.json" % i)
        with open(f, "w") as fh:
            json.dump(to_scenario("seq%03d" % i, seq), fh, indent=1)
        with open(f[:-5] + ".txt", "w") as fh:
            fh.write(to_lines(seq))
        files.append(f)
    run = subprocess.run([anonremap, "run", "-k", "-f", "json"] + files, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit("anonremap run exited %d: %s" % (run.returncode, run.stderr.strip()))
    scs = json.loads(run.stdout)["scenarios"]
    differ = 0
    for i, (seq, sc) in enumerate(zip(seqs, scs)):
        a, c = anonremap_result(sc), seqrun_result(seqrun, seq)
        if a != c:
            differ += 1
            print("seq%03d differs (%s):" % (i, files[i]))
            for k, s in enumerate(seq):
                sa = a[0][k] if k < len(a[0]) else "not run"
                mark = "" if sa == c[0][k] else "   <- anonremap %s, seqrun %s" % (sa, c[0][k])
                print("  %s%s" % (" ".join(str(x) for x in s), mark))
            if a[1] != c[1]:
                print("  final VMAs, anonremap: %s" % "; ".join(a[1] or ["(no dump)"]))
                print("  final VMAs, seqrun:    %s" % "; ".join(c[1]))
    print("diff: %d sequences from seed %d (DIFF_SEED=%d to replay): %d differ" % (n, seed, seed, differ))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
