"""The events file: one JSON object per line, appended and flushed line by line.

``TRAINSCOPE_EVENTS`` names the file; ``{pid}`` and ``{rank}`` in it are replaced, so
every process of a run has its own. Without the variable nothing is written (the hooks
still work) and warnings go to stderr instead, so a user trying the package by hand sees
them.

The ``hello`` event is always the first line of a file: events emitted before it (for
instance a warning about a bad dump.json, found at start-up before torch is imported)
are held in memory and written right after it.

JSON is strict: a non-finite float (a NaN loss) is written as the string ``"NaN"``,
``"Infinity"`` or ``"-Infinity"`` (the spellings of JavaScript, Python and RapidJSON's
kParseNanAndInfFlag), never as a bare token.

Each line goes out in one ``write`` on a file opened in append mode, so a killed process
leaves whole lines; a process forked from ours (a DataLoader worker that emits) reopens
the file under its own pid and starts it with its own ``hello``.
"""
import _thread
import math
import os
import sys
import time



def now_ns():
    """Wall-clock time in Unix nanoseconds (the events' ``ts``)."""
    return time.time_ns()


_ESCAPES = {i: "\\u%04x" % i for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f",
                 13: "\\r"})


def _nonfinite(value):
    return '"NaN"' if value != value else ('"Infinity"' if value > 0 else '"-Infinity"')


def _encode_value(v):
    """A small strict-JSON encoder for the events' plain values (no json import)."""
    if isinstance(v, str):
        return '"' + v.translate(_ESCAPES) + '"'
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return float.__repr__(v) if math.isfinite(v) else _nonfinite(v)
    if isinstance(v, dict):
        return "{" + ",".join(_encode_value(str(k)) + ":" + _encode_value(x) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_encode_value(x) for x in v) + "]"
    return _encode_value(str(v))


def _finite(value):
    """`value` with every non-finite float replaced by its JSON-safe spelling."""
    if isinstance(value, float) and not math.isfinite(value):
        return _nonfinite(value)[1:-1]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def encode(record):
    """One event as its line (without the newline).

    json's C encoder when json is loaded (torch loads it), else our own encoder, so a
    process that never imports torch does not pay json's imports (re, enum, ...)."""
    global _encoder
    if _encoder is None:
        json = sys.modules.get("json")
        if json is None:
            return _encode_value(record)
        _encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False,
                                    default=str)
    try:
        return _encoder.encode(record)
    except ValueError:  # a NaN or an infinity somewhere (rare): spell them out
        return _encoder.encode(_finite(record))


_encoder = None


def expand_path(template, pid, rank):
    """TRAINSCOPE_EVENTS with {pid} and {rank} replaced, made absolute."""
    return os.path.abspath(template.replace("{pid}", str(pid)).replace("{rank}", str(rank)))


class EventWriter:
    """Appends events to this process's events file (or drops them without one)."""

    def __init__(self, template, rank):
        self._template = template or None
        self._rank = rank
        self._lock = _thread.allocate_lock()
        self._file = None
        self._pid = None
        self._held = []
        self._hello = None  # the hello record written, re-sent by a forked child
        self._broken = False
        self._forked = False  # set in a forked child until its own file is open
        self._inherited = None  # in a forked child: the parent's file object

    @property
    def path(self):
        """This process's events file, or None when events are not written."""
        if not self._template:
            return None
        return expand_path(self._template, os.getpid(), self._rank)

    @property
    def hello_written(self):
        return self._hello is not None

    def emit(self, kind, **fields):
        """Writes one event; events before ``hello`` wait for it."""
        record = {"type": kind}
        record.update(fields)
        with self._lock:
            if self._hello is None:
                self._held.append(record)
                return
            self._write_locked(record)

    def hello(self, **fields):
        """Writes the ``hello`` event (once), then the events held until now."""
        record = {"type": "hello"}
        record.update(fields)
        with self._lock:
            if self._hello is not None:
                return
            self._hello = record
            self._write_locked(record)
            held, self._held = self._held, []
            for r in held:
                self._write_locked(r)

    def warning(self, message):
        self.emit("warning", message=str(message))

    def after_fork_in_child(self):
        """Called in a forked child: its events go to a file of its own pid."""
        self._lock = _thread.allocate_lock()
        # The parent's file object is kept, never written (every line was flushed before
        # the fork); close() releases the child's copy of its descriptor.
        self._inherited, self._file = self._file, None
        self._pid = None
        self._forked = True

    def close(self):
        with self._lock:
            for f in (self._file, self._inherited):
                if f is not None:
                    try:
                        f.close()
                    except OSError:
                        pass
            self._file = self._inherited = None

    # -- internals --------------------------------------------------------------

    def _write_locked(self, record):
        if not self._template:
            if record.get("type") == "warning":
                sys.stderr.write("trainscope_hooks: warning: %s\n" % record.get("message"))
            return
        if self._broken:
            return
        try:
            f = self._open_locked(record)
            f.write(encode(record) + "\n")
        except (OSError, ValueError, TypeError) as err:
            self._broken = True
            sys.stderr.write("trainscope_hooks: events file not writable (%s); events stop\n" % err)

    def _open_locked(self, record):
        pid = os.getpid()
        if self._file is not None and self._pid == pid:
            return self._file
        path = expand_path(self._template, pid, self._rank)
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        self._file = open(path, "a", buffering=1, encoding="utf-8", errors="replace")
        self._pid = pid
        if self._forked and self._hello is not None and record is not self._hello:
            # A forked child: its own file starts with its own hello.
            self._forked = False
            hello = dict(self._hello)
            hello["pid"] = pid
            self._file.write(encode(hello) + "\n")
        return self._file


def report_early(message):
    """A warning from sitecustomize when the package could not be set up normally."""
    template = os.environ.get("TRAINSCOPE_EVENTS")
    rank = os.environ.get("TRAINSCOPE_RANK") or os.environ.get("RANK") or os.environ.get("RANK_ID") or "0"
    writer = EventWriter(template, rank)
    writer.hello(pid=os.getpid(), rank=int(rank) if rank.isdigit() else 0, world_size=1,
                 python=sys.version.split()[0], torch=None, features=[])
    writer.warning(message)
    writer.close()
