#!/usr/bin/python3
"""Peer for bench/diff_align: Python's difflib.SequenceMatcher (what scripts reach for to
match two op lists) on the same key sequences, written by `diff_align --tokens FILE`.

    peer_diff_align.py FILE [--sizes 2000,5000,10000,20000]

difflib's default autojunk treats every key seen in more than 1 % of a long sequence as junk,
which for op sequences (a few dozen op kinds repeated per layer) is all of them: it then pairs
almost nothing. With autojunk off it pairs them, at a cost that grows about quadratically; the
script times prefixes and extrapolates to the whole sequence.
"""
import difflib
import sys
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sizes = [2000, 5000, 10000, 20000]
    if "--sizes" in sys.argv:
        sizes = [int(x) for x in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    with open(sys.argv[1]) as f:
        a = f.readline().split()
        b = f.readline().split()
    t = time.perf_counter()
    m = difflib.SequenceMatcher(None, a, b)  # autojunk on (the default)
    pairs = sum(blk.size for blk in m.get_matching_blocks())
    print("difflib autojunk=True, %d x %d: %.2f s, %d pairs" % (len(a), len(b), time.perf_counter() - t, pairs))
    last = None
    for n in sizes:
        t = time.perf_counter()
        m = difflib.SequenceMatcher(None, a[:n], b[:n], autojunk=False)
        pairs = sum(blk.size for blk in m.get_matching_blocks())
        dt = time.perf_counter() - t
        print("difflib autojunk=False, %d x %d: %.2f s, %d pairs" % (n, n, dt, pairs))
        last = (n, dt)
    if last:
        n, dt = last
        print("extrapolated (quadratic) to %d x %d: ~%.0f s" % (len(a), len(b), dt * (len(a) / n) ** 2))


if __name__ == "__main__":
    main()
