"""The TRAINSCOPE_* environment, read once at start-up (docs/RUNS.md has the table).

Nothing here imports torch. Bad values never raise: they switch the feature off (or fall
back to a default) and leave a message in ``Settings.warnings``, which install() turns
into ``warning`` events.
"""
import os

# Same fields and rules as ts::profiler::ProfileSchedule::parse (profile_schedule.h).
SCHEDULE_KEYS = ("wait", "warmup", "active", "repeat", "skip_first")
DEFAULT_SCHEDULE = {"wait": 0, "warmup": 0, "active": 1 << 30, "repeat": 0, "skip_first": 0}
PROFILE_OPTIONS = ("record_shapes", "profile_memory", "with_stack")


def parse_schedule(text):
    """``"wait=0,warmup=1,active=3,repeat=1[,skip_first=0]"`` (any subset) -> dict.

    Raises ValueError on an unknown key, a value that is not a non-negative integer, or
    ``active`` 0. Missing keys take the engine's defaults (every step recorded).
    """
    out = dict(DEFAULT_SCHEDULE)
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in SCHEDULE_KEYS:
            raise ValueError("unknown item %r (expected %s)" % (item, ", ".join(SCHEDULE_KEYS)))
        if not value.isdigit():
            raise ValueError("%s must be a non-negative integer, got %r" % (key, value))
        out[key] = int(value)
    if out["active"] <= 0:
        raise ValueError("active must be at least 1")
    return out


def parse_profile_options(text):
    """TRAINSCOPE_PROFILE_OPTIONS -> ({option: bool}, [unknown names]).

    None (variable absent) gives the default: record_shapes and profile_memory on."""
    if text is None:
        return {"record_shapes": True, "profile_memory": True, "with_stack": False}, []
    opts = {name: False for name in PROFILE_OPTIONS}
    unknown = []
    for name in text.split(","):
        name = name.strip()
        if not name:
            continue
        if name in opts:
            opts[name] = True
        else:
            unknown.append(name)
    return opts, unknown


def _int_env(env, names, default, warnings):
    """The first of `names` set in `env`, as an int (a bad value warns and is skipped)."""
    for name in names:
        value = env.get(name)
        if value is None or value.strip() == "":
            continue
        try:
            return int(value.strip())
        except ValueError:
            warnings.append("%s=%r is not an integer; ignored" % (name, value))
    return default


class Settings:
    """What the launcher asked for, from the environment."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.warnings = []
        w = self.warnings
        self.rank = _int_env(env, ("TRAINSCOPE_RANK", "RANK", "RANK_ID"), 0, w)
        self.world_size = max(1, _int_env(env, ("WORLD_SIZE", "RANK_SIZE"), 1, w))
        self.events_template = env.get("TRAINSCOPE_EVENTS") or None
        self.loss = env.get("TRAINSCOPE_LOSS", "") == "1"

        self.profile = None  # schedule dict when profiling is on
        spec = env.get("TRAINSCOPE_PROFILE")
        if spec is not None and spec.strip():
            try:
                self.profile = parse_schedule(spec)
            except ValueError as err:
                w.append("TRAINSCOPE_PROFILE=%r: %s; profiling is off" % (spec, err))
        self.profile_dir = env.get("TRAINSCOPE_PROFILE_DIR") or None
        if self.profile is not None and not self.profile_dir:
            self.profile_dir = os.getcwd()
            w.append("TRAINSCOPE_PROFILE_DIR is not set; traces go to %s" % self.profile_dir)
        if self.profile_dir:
            self.profile_dir = os.path.abspath(self.profile_dir)
        self.profile_options, unknown = parse_profile_options(env.get("TRAINSCOPE_PROFILE_OPTIONS"))
        if unknown:
            w.append("TRAINSCOPE_PROFILE_OPTIONS: unknown %s ignored (known: %s)"
                     % (", ".join(unknown), ", ".join(PROFILE_OPTIONS)))

        self.dump_config = env.get("TRAINSCOPE_DUMP_CONFIG") or None

        # Overflow check: "off", "check" or "stop" (dump.json may raise it later).
        self.overflow = "off"
        value = (env.get("TRAINSCOPE_OVERFLOW") or "").strip().lower()
        if value in ("1", "true", "on", "check"):
            self.overflow = "check"
        elif value == "stop":
            self.overflow = "stop"
        elif value not in ("", "0", "false", "off"):
            w.append("TRAINSCOPE_OVERFLOW=%r: expected 1 or stop; the check is off" % value)

    def raise_overflow(self, mode):
        """Switches the overflow check to at least `mode` ("check" < "stop")."""
        order = {"off": 0, "check": 1, "stop": 2}
        if order[mode] > order[self.overflow]:
            self.overflow = mode
