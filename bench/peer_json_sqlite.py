#!/usr/bin/env python3
"""Peer for bench/trace_import: Python json.load + sqlite3 executemany on the same Chrome
trace, rows shaped like TrainScope's slices table, indexes built. Prints 'events_per_s N'."""
import gzip, json, os, shutil, sqlite3, sys, tempfile, time


def main():
    path = sys.argv[1]
    t0 = time.perf_counter()
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    tmp_dir = tempfile.mkdtemp()
    db_path = os.path.join(tmp_dir, "peer.sqlite")
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("CREATE TABLE slices(id INTEGER PRIMARY KEY, pid TEXT, tid TEXT, ts INTEGER, dur INTEGER,"
               " name TEXT, cat TEXT, args TEXT)")
    rows = []
    for i, e in enumerate(events):
        if e.get("ph") != "X":
            continue
        rows.append((i, str(e.get("pid")), str(e.get("tid")), int(float(e["ts"]) * 1000),
                     int(float(e.get("dur", 0)) * 1000), e.get("name"), e.get("cat"),
                     json.dumps(e["args"]) if e.get("args") else None))
    db.executemany("INSERT INTO slices VALUES(?,?,?,?,?,?,?,?)", rows)
    db.execute("CREATE INDEX slices_tid_ts ON slices(pid, tid, ts)")
    db.commit()
    db.close()
    dt = time.perf_counter() - t0
    shutil.rmtree(tmp_dir)  # after the timing, as trace_import removes its session
    print(f"events {len(events)} seconds {dt:.3f} events_per_s {len(events) / dt:.0f}")


if __name__ == "__main__":
    main()
