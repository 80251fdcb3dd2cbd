#!/usr/bin/python3
"""Checks a Chrome Trace Event Format file against the format's rules, independently of
TrainScope's own importer (a second reader for `trainscope-cli export --chrome`).

Usage: check_trace_events.py TRACE.json[.gz] [--allow-unfinished] [--json]

Rules (Trace Event Format, the "JSON Object Format" and "JSON Array Format"):
  - the file is a JSON array of events, or an object whose "traceEvents" is an array;
    "displayTimeUnit" (when present) is "ms" or "ns"; "otherData" an object;
  - every event is an object with a known phase "ph";
  - "ts" is a number (not a string or bool) on every event but metadata (M);
    "pid" and "tid" are present (integers, or strings as some writers use) on every event
    that belongs to a thread, "pid" on process-level ones;
  - "name" is a string where the phase needs one; "cat" a string; "args" an object;
  - X: "dur" a number >= 0;
  - pairing rules are checked in time order (events sorted by ts, ties in file order), as
    viewers read them: writers need not sort their events;
  - B/E: balanced per (pid, tid): every E closes an open B, never earlier than it;
    B left open at the end is an error unless --allow-unfinished;
  - b/n/e (nestable async): "id" (or "id2") and "cat"; every e closes an open b with the
    same (cat, id); S/T/p/F (legacy async) likewise with S ... F;
  - s/t/f (flows): "id" present; every (cat, id) starts with one s and ends with one f, t only
    in between, f not earlier than its s; "bp" (when present) is "e";
  - C: "args" an object of numbers;
  - i/I: "s" (when present) is one of g, p, t (a global instant needs no pid);
  - M: "name" one of process_name, process_labels, process_sort_index, thread_name,
    thread_sort_index, process_uptime_seconds, num_cpus, trace_buffer_overflowed, with the
    argument each needs (args.name string, args.sort_index integer, args.labels string);
    other metadata names are reported as warnings (viewers ignore them).
Prints a summary (counts per phase, slices, flows, errors) and exits 1 when any rule fails,
2 when the file cannot be read at all.
"""
import gzip
import json
import sys
from collections import Counter, defaultdict

PHASES = set("BEXiICbneSTpFstfPNODMVvRc(),=")
THREAD_PHASES = set("BEXPstf")  # need pid and tid
METADATA = {
    "process_name": ("name", str),
    "process_labels": ("labels", str),
    "process_sort_index": ("sort_index", int),
    "thread_name": ("name", str),
    "thread_sort_index": ("sort_index", int),
    "process_uptime_seconds": ("uptime", (int, float)),
    "num_cpus": ("number", int),
    "trace_buffer_overflowed": ("overflowed_at_ts", (int, float)),
}
MAX_ERRORS = 50


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_id(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or isinstance(v, str)


class Checker:
    def __init__(self, allow_unfinished=False):
        self.allow_unfinished = allow_unfinished
        self.errors = []
        self.error_count = 0
        self.warnings = []
        self.warning_count = 0
        self.phases = Counter()
        self.open_b = defaultdict(list)  # (pid, tid) -> [(ts, name, index)]
        self.open_async = defaultdict(list)  # (cat, id) -> [ts]
        self.flows = {}  # id -> [state, ts]
        self.slices = 0
        self.flow_pairs = 0
        self.counter_samples = 0
        self.instants = 0
        self.async_slices = 0

    def warning(self, index, message):
        self.warning_count += 1
        if len(self.warnings) < MAX_ERRORS:
            self.warnings.append("event %d: %s" % (index, message))

    def error(self, index, message):
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append("event %d: %s" % (index, message) if index >= 0 else message)

    def check_file(self, doc):
        if isinstance(doc, list):
            events = doc
        elif isinstance(doc, dict):
            events = doc.get("traceEvents")
            if not isinstance(events, list):
                self.error(-1, 'the object has no "traceEvents" array')
                return
            unit = doc.get("displayTimeUnit")
            if unit is not None and unit not in ("ms", "ns"):
                self.error(-1, 'displayTimeUnit must be "ms" or "ns", got %r' % (unit,))
            if "otherData" in doc and not isinstance(doc["otherData"], dict):
                self.error(-1, '"otherData" must be an object')
        else:
            self.error(-1, "the top level must be an array or an object")
            return
        # Fields first, in file order; then the pairing rules in time order (writers need
        # not sort their events; viewers sort them by ts, ties in file order).
        ordered = []
        for i, ev in enumerate(events):
            if self.check_fields(i, ev):
                ordered.append((0 if ev["ph"] == "M" else 1, ev.get("ts", 0), i, ev))
        ordered.sort(key=lambda e: (e[0], e[1], e[2]))
        for _, _, i, ev in ordered:
            ph = ev["ph"]
            getattr(self, "ph_" + {"(": "ctx", ")": "ctx", ",": "ctx", "=": "ctx"}.get(ph, ph),
                    self.ph_other)(i, ev)
        self.finish()

    def check_fields(self, i, ev):
        if not isinstance(ev, dict):
            self.error(i, "not an object")
            return False
        ph = ev.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            self.error(i, "unknown or missing phase %r" % (ph,))
            return False
        self.phases[ph] += 1
        if ph != "M" and not is_number(ev.get("ts")):
            self.error(i, "%s: ts must be a number, got %r" % (ph, ev.get("ts")))
            return False
        if "pid" not in ev or not is_id(ev["pid"]):
            global_instant = ph in "iI" and ev.get("s") == "g"
            if ph != "c" and not global_instant:
                self.error(i, "%s: pid missing or not an integer/string" % ph)
        if ph in THREAD_PHASES or ph == "M" and str(ev.get("name", "")).startswith("thread"):
            if "tid" not in ev or not is_id(ev["tid"]):
                self.error(i, "%s: tid missing or not an integer/string" % ph)
        if "cat" in ev and not isinstance(ev["cat"], str):
            self.error(i, "cat must be a string")
        if "args" in ev and not isinstance(ev["args"], dict):
            self.error(i, "args must be an object")
        if ph not in "EM" and "name" in ev and not isinstance(ev["name"], str):
            self.error(i, "name must be a string")
        return True

    def need_name(self, i, ev):
        if not isinstance(ev.get("name"), str):
            self.error(i, "%s: name missing" % ev["ph"])

    def ph_X(self, i, ev):
        self.need_name(i, ev)
        dur = ev.get("dur")
        if not is_number(dur):
            self.error(i, "X: dur must be a number, got %r" % (dur,))
        elif dur < 0:
            self.error(i, "X: negative dur %r" % (dur,))
        else:
            self.slices += 1

    def ph_B(self, i, ev):
        self.need_name(i, ev)
        self.open_b[(ev.get("pid"), ev.get("tid"))].append((ev["ts"], ev.get("name"), i))

    def ph_E(self, i, ev):
        stack = self.open_b[(ev.get("pid"), ev.get("tid"))]
        if not stack:
            self.error(i, "E without an open B on pid %r tid %r" % (ev.get("pid"), ev.get("tid")))
            return
        ts, name, _ = stack.pop()
        if ev["ts"] < ts:
            self.error(i, "E of %r ends before its B" % (name,))
        self.slices += 1

    def async_key(self, i, ev):
        key = ev.get("id", ev.get("id2"))
        if key is None:
            self.error(i, "%s: async event without id" % ev["ph"])
            return None
        if not isinstance(ev.get("cat"), str):
            self.error(i, "%s: async event without cat" % ev["ph"])
        return (ev.get("cat"), json.dumps(key, sort_keys=True))

    def ph_b(self, i, ev):
        self.need_name(i, ev)
        key = self.async_key(i, ev)
        if key:
            self.open_async[key].append(ev["ts"])

    def ph_e(self, i, ev):
        key = self.async_key(i, ev)
        if not key:
            return
        if not self.open_async[key]:
            self.error(i, "e without an open b for cat %r id %s" % key)
            return
        if ev["ts"] < self.open_async[key].pop():
            self.error(i, "e ends before its b")
        self.async_slices += 1

    def ph_n(self, i, ev):
        self.need_name(i, ev)
        self.async_key(i, ev)
        self.async_slices += 1

    ph_S = ph_b
    ph_F = ph_e

    def ph_T(self, i, ev):
        self.async_key(i, ev)

    ph_p = ph_T

    def flow_key(self, i, ev):
        if "id" not in ev or not is_id(ev["id"]):
            self.error(i, "%s: flow event without an integer/string id" % ev["ph"])
            return None
        return "%s/%s" % (ev.get("cat", ""), json.dumps(ev["id"]))

    def ph_s(self, i, ev):
        key = self.flow_key(i, ev)
        if key is None:
            return
        if key in self.flows and self.flows[key][0] != "done":
            self.error(i, "s: flow id %s started twice" % key)
        self.flows[key] = ["open", ev["ts"]]

    def ph_t(self, i, ev):
        key = self.flow_key(i, ev)
        if key is not None and self.flows.get(key, ["none"])[0] != "open":
            self.error(i, "t: flow id %s has no open s" % key)

    def ph_f(self, i, ev):
        key = self.flow_key(i, ev)
        if key is None:
            return
        if "bp" in ev and ev["bp"] != "e":
            self.error(i, 'f: bp must be "e", got %r' % (ev["bp"],))
        state = self.flows.get(key)
        if not state or state[0] != "open":
            self.error(i, "f: flow id %s has no open s" % key)
            return
        if ev["ts"] < state[1]:
            self.error(i, "f: flow id %s ends before it starts" % key)
        state[0] = "done"
        self.flow_pairs += 1

    def ph_C(self, i, ev):
        self.need_name(i, ev)
        args = ev.get("args")
        if not isinstance(args, dict) or not args:
            self.error(i, "C: args must be a non-empty object of numbers")
            return
        for k, v in args.items():
            if not is_number(v):
                self.error(i, "C: value %r of %r is not a number" % (v, k))
        self.counter_samples += 1

    def ph_i(self, i, ev):
        self.need_name(i, ev)
        if "s" in ev and ev["s"] not in ("g", "p", "t"):
            self.error(i, "i: scope s must be g, p or t, got %r" % (ev["s"],))
        self.instants += 1

    ph_I = ph_i

    def ph_M(self, i, ev):
        name = ev.get("name")
        if name not in METADATA:
            self.warning(i, "M: metadata name %r is not in the format's list" % (name,))
            return
        key, kind = METADATA[name]
        args = ev.get("args")
        if not isinstance(args, dict) or key not in args:
            self.error(i, "M %s: args.%s missing" % (name, key))
            return
        value = args[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            self.error(i, "M %s: args.%s has the wrong type (%r)" % (name, key, value))

    def ph_ctx(self, i, ev):
        pass

    def ph_other(self, i, ev):
        pass

    def finish(self):
        for (pid, tid), stack in self.open_b.items():
            if stack and not self.allow_unfinished:
                self.error(stack[-1][2], "B of %r on pid %r tid %r never ends (%d open)"
                           % (stack[-1][1], pid, tid, len(stack)))
        for key, stack in self.open_async.items():
            if stack and not self.allow_unfinished:
                self.error(-1, "async b with cat %r id %s never ends" % key)
        for key, state in self.flows.items():
            if state[0] != "done":
                self.error(-1, "flow id %s has an s but no f" % key)

    def summary(self):
        return {
            "valid": self.error_count == 0,
            "events": sum(self.phases.values()),
            "phases": dict(sorted(self.phases.items())),
            "slices": self.slices,
            "async_slices": self.async_slices,
            "instants": self.instants,
            "counter_samples": self.counter_samples,
            "flows": self.flow_pairs,
            "error_count": self.error_count,
            "errors": self.errors,
            "warning_count": self.warning_count,
            "warnings": self.warnings,
        }


def load(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    flags = {a for a in argv[1:] if a.startswith("--")}
    unknown = flags - {"--allow-unfinished", "--json"}
    if len(args) != 1 or unknown:
        sys.stderr.write(__doc__)
        return 2
    try:
        doc = load(args[0])
    except (OSError, ValueError, EOFError) as e:
        out = {"valid": False, "error_count": 1, "errors": ["cannot read: %s" % e]}
        print(json.dumps(out) if "--json" in flags else out["errors"][0])
        return 2
    c = Checker(allow_unfinished="--allow-unfinished" in flags)
    c.check_file(doc)
    s = c.summary()
    if "--json" in flags:
        print(json.dumps(s))
    else:
        print("%s: %s — %d events, %d slices, %d flows, %d counter samples, %d instants"
              % (args[0], "valid" if s["valid"] else "INVALID", s["events"], s["slices"],
                 s["flows"], s["counter_samples"], s["instants"]))
        for e in s["errors"]:
            print("  " + e)
        for w in s["warnings"]:
            print("  warning: " + w)
        if s["error_count"] > len(s["errors"]):
            print("  ... %d more" % (s["error_count"] - len(s["errors"])))
    return 0 if s["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
