#!/usr/bin/env python3
"""Pickles of plain data, every protocol 0-5, for the pickle reader's tests: writes
OUTDIR/case_<name>_p<protocol>.pickle and OUTDIR/cases.txt, one line per file:
"<file> <canonical text of the value>". The canonical text (the C++ test builds the same
from what the reader read): N None, T/F bools, i<int>, f<float %.17g> (also ints beyond 64
bits, as the reader keeps those as doubles), s<len>:<hex of utf-8>, b<len>:<hex>, [a,b,] lists,
(a,b,) tuples, {k:v,} dicts in order, <a,b,> sets sorted by canonical text."""
import collections, math, os, pickle, sys


def canon(v):
    if v is None:
        return "N"
    if v is True:
        return "T"
    if v is False:
        return "F"
    if isinstance(v, int):
        return f"i{v}" if -2**63 <= v < 2**63 else "f%.17g" % float(v)
    if isinstance(v, float):
        return "f%.17g" % v
    if isinstance(v, str):
        b = v.encode("utf-8", "surrogatepass")
        return f"s{len(b)}:" + b.hex()
    if isinstance(v, (bytes, bytearray)):
        return f"b{len(v)}:" + bytes(v).hex()
    if isinstance(v, list):
        return "[" + "".join(canon(x) + "," for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(canon(x) + "," for x in v) + ")"
    if isinstance(v, dict):
        return "{" + "".join(canon(k) + ":" + canon(x) + "," for k, x in v.items()) + "}"
    if isinstance(v, (set, frozenset)):
        return "<" + "".join(c + "," for c in sorted(canon(x) for x in v)) + ">"
    raise TypeError(type(v))


shared = {"filename": "train.py", "line": 42, "name": "forward"}
frames = [shared, shared, {"filename": "??", "line": 0, "name": "malloc"}]
CASES = {
    "scalars": [None, True, False, 0, 1, 255, 256, 65535, 65536, -1, -129, 2**31 - 1, -2**31,
                2**31, 2**40, -2**40, 2**63 - 1, -2**63, 2**64 + 5, -2**70, 0.5, -1.25e-300,
                1e300, float("inf")],
    "strings": ["", "a", "é", "日本語", "x" * 300, "\n\\'\"", b"", b"\x00\xffabc", bytearray(b"xy")],
    "containers": {"list": [1, [2, [3, []]]], "tuple0": (), "tuple1": (1,), "tuple2": (1, 2),
                   "tuple3": (1, 2, 3), "tuple4": (1, 2, 3, 4), "dict": {"a": {"b": {}}},
                   "int_keys": {1: "one", 2: "two"}},
    "shared": {"frames": frames, "again": frames, "event": {"frames": frames}},
    "big_list": list(range(2500)),
    "big_dict": {f"k{i}": i for i in range(1500)},
    "sets": {"set": {1, 2, 3}, "frozen": frozenset({"a", "b"}), "empty": set()},
    "ordered": collections.OrderedDict([("z", 1), ("a", 2)]),
    "snapshot_like": {"segments": [{"device": 0, "address": 139737767608320, "total_size": 2097152,
                                    "segment_pool_id": (0, 0), "blocks": [{"size": 512, "state": "inactive"}]}],
                      "device_traces": [[{"action": "alloc", "addr": 139737767608320, "size": 512,
                                          "stream": 0, "time_us": 1795742239295317, "frames": frames}]]},
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, value in CASES.items():
        for p in range(0, 6):
            if p < 2 and name in ("strings",) and any(isinstance(x, (bytes, bytearray)) for x in value):
                pass
            fn = f"case_{name}_p{p}.pickle"
            with open(os.path.join(out, fn), "wb") as f:
                pickle.dump(value, f, protocol=p)
            expect = pickle.loads(open(os.path.join(out, fn), "rb").read())
            lines.append(f"{fn} {canon(expect)}")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
