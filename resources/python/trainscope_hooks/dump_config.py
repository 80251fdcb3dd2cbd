"""dump.json, with the engine's fields and rules (core/debug/dump_config.cpp).

    {"dump_path": "./dump", "dump_mode": "all", "dump_list": [], "dump_op_switch": "on",
     "steps": "1-2,5", "op_filter": "fc[12]", "file_per": "step",
     "check_overflow": false, "stop_on_overflow": false}

A top-level ``"dump"`` object wrapping the fields is accepted. Unknown fields are
ignored; a field of the wrong type is an error (DumpConfigError, with the engine's
message). Here an op is a leaf module call: its *type* is the module's class name and its
*name* is its scope (``Net/fc1``); ``dump_list`` entries match either.
"""
import json
import os
import re


class DumpConfigError(ValueError):
    pass


def _string(o, key, default):
    if key not in o:
        return default
    if not isinstance(o[key], str):
        raise DumpConfigError('dump.json: "%s" must be a string' % key)
    return o[key]


def _switch(o, key, default):
    if key not in o:
        return default
    v = o[key]
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v in ("on", "true", "1"):
        return True
    if isinstance(v, str) and v in ("off", "false", "0"):
        return False
    raise DumpConfigError('dump.json: "%s" must be on/off or a boolean' % key)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def parse_steps(v):
    """An integer, an array of integers or "a-b,c" -> set of steps (1-based)."""
    if _is_int(v):
        return {v}
    if isinstance(v, list):
        if not all(_is_int(e) for e in v):
            raise DumpConfigError('dump.json: "steps" array must hold integers')
        return set(v)
    if not isinstance(v, str):
        raise DumpConfigError('dump.json: "steps" must be an integer, array or "a-b,c"')
    out = set()
    for part in v.split(","):
        part = part.strip()
        if not part:
            continue
        dash = part.find("-", 1)
        try:
            if dash < 0:
                out.add(int(part))
                continue
            a, b = int(part[:dash]), int(part[dash + 1:])
        except ValueError:
            raise DumpConfigError('dump.json: bad step "%s"' % part) from None
        if b < a or b - a > 1000000:
            raise DumpConfigError('dump.json: bad step range "%s"' % part)
        out.update(range(a, b + 1))
    return out


class DumpConfig:
    """What to dump and where (see the module docstring)."""

    def __init__(self):
        self.dump_path = "./dump"
        self.mode = "all"  # input | output | all
        self.dump_list = []
        self.op_switch = True
        self.steps = set()  # empty: every step
        self.op_filter = ""
        self.compiled_filter = None
        self.file_per_step = True
        self.check_overflow = False
        self.stop_on_overflow = False
        self.load_file_path = ""

    @property
    def wants_inputs(self):
        return self.mode != "output"

    @property
    def wants_outputs(self):
        return self.mode != "input"

    def wants_step(self, step):
        return not self.steps or step in self.steps

    def wants_op(self, name, op_type):
        """The step-independent part of the engine's wantsOp (list, switch, filter)."""
        if not self.op_switch and not self.dump_list:
            return False
        if self.dump_list and name not in self.dump_list and op_type not in self.dump_list:
            return False
        if self.compiled_filter is not None and not self.compiled_filter.search(name):
            return False
        return True

    def file_for_step(self, step, rank=0, world_size=1):
        """``<dump_path>/step_<n>.h5`` per step; ``<dump_path>/dump.h5`` (or dump_path itself
        when it ends in .h5) per run; with several ranks under ``rank_<R>/``."""
        path = self.dump_path
        is_file = len(path) > 3 and path.endswith(".h5")
        if not self.file_per_step:
            folder, name = (os.path.dirname(path), os.path.basename(path)) if is_file else (path, "dump.h5")
        else:
            folder, name = (path[:-3] if is_file else path), "step_%d.h5" % step
        if world_size > 1:
            folder = os.path.join(folder, "rank_%d" % rank)
        return os.path.join(folder, name)


def parse_dump_config(text, base_dir=None):
    """dump.json text -> DumpConfig; raises DumpConfigError. A relative dump_path is
    made absolute against `base_dir` (default: the current directory)."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise DumpConfigError("dump.json: %s" % err) from None
    if not isinstance(doc, dict):
        raise DumpConfigError("dump.json: top level must be an object")
    o = doc["dump"] if isinstance(doc.get("dump"), dict) else doc
    c = DumpConfig()
    c.dump_path = _string(o, "dump_path", c.dump_path)
    c.mode = _string(o, "dump_mode", "all")
    if c.mode not in ("input", "output", "all"):
        raise DumpConfigError('dump.json: "dump_mode" must be input, output or all')
    if "dump_list" in o:
        if not isinstance(o["dump_list"], list):
            raise DumpConfigError('dump.json: "dump_list" must be an array')
        for e in o["dump_list"]:
            if isinstance(e, str):
                c.dump_list.append(e)
            elif isinstance(e, dict) and isinstance(e.get("op_name"), str):
                c.dump_list.append(e["op_name"])
            else:
                raise DumpConfigError('dump.json: "dump_list" entries must be op names')
    c.op_switch = _switch(o, "dump_op_switch", True)
    if "steps" in o:
        c.steps = parse_steps(o["steps"])
    c.op_filter = _string(o, "op_filter", "")
    if c.op_filter:
        try:
            c.compiled_filter = re.compile(c.op_filter)
        except re.error as err:
            raise DumpConfigError('dump.json: bad "op_filter" regex: %s' % err) from None
    per = _string(o, "file_per", "step")
    if per not in ("step", "run"):
        raise DumpConfigError('dump.json: "file_per" must be step or run')
    c.file_per_step = per == "step"
    c.check_overflow = _switch(o, "check_overflow", False)
    c.stop_on_overflow = _switch(o, "stop_on_overflow", False)
    c.load_file_path = _string(o, "load_file_path", "")
    c.dump_path = os.path.abspath(os.path.join(base_dir or os.getcwd(), c.dump_path))
    return c


def load_dump_config(path):
    """Reads and parses a dump.json file; raises DumpConfigError (unreadable file too)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise DumpConfigError("cannot open dump config %s: %s" % (path, err.strerror or err)) from None
    return parse_dump_config(text)
