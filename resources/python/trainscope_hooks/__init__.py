"""TrainScope's hooks for command runs: profile, dump and check a user's own PyTorch
script without editing it (the contract is docs/RUNS.md).

``sitecustomize`` calls ``install()`` at interpreter start-up when TRAINSCOPE_HOOKS=1.
install() reads the environment (settings.py), opens the events file (events.py) and
waits for the script to import torch (torch_watch.py); then it patches what was asked:

- steps.py      the first optimizer's step() ends a step (always on)
- loss.py       TRAINSCOPE_LOSS: backward() values as ``train/loss`` scalars
- profiling.py  TRAINSCOPE_PROFILE: torch.profiler cycles as Chrome traces
- dump.py       TRAINSCOPE_DUMP_CONFIG: leaf-module tensors to HDF5 (dump_config.py)
- overflow.py   TRAINSCOPE_OVERFLOW: NaN/Inf in leaf-module outputs, optional stop
- modules.py    the global forward hooks the last two share

The ``hello`` event (torch version, features on) is written once torch is imported, or
with ``"torch": null`` when its import fails or, at exit, when the process never
imported it. Every part is guarded (runtime.py): an error of ours becomes a ``warning``
event and switches that part off; the user's run goes on.
"""
import atexit
import os
import sys

from .events import EventWriter
from .runtime import Runtime
from .settings import Settings

__all__ = ["install", "runtime"]

_runtime = None


def runtime():
    """The installed Runtime (None before install())."""
    return _runtime


def install(warnings=()):
    """Sets the hooks up from the environment; idempotent. Returns the Runtime."""
    global _runtime
    if _runtime is not None:
        return _runtime
    settings = Settings()
    events = EventWriter(settings.events_template, settings.rank)
    rt = Runtime(settings, events)
    _runtime = rt
    for message in list(warnings) + settings.warnings:
        events.warning(message)
    dump_config = _load_dump_config(rt)
    atexit.register(_at_exit, rt)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: _after_fork(rt))

    from .torch_watch import TorchImportWatcher

    TorchImportWatcher(lambda torch: _on_torch_safe(rt, torch, dump_config),
                       lambda err: _hello(rt, None, [])).start()
    return rt


def _load_dump_config(rt):
    path = rt.settings.dump_config
    if not path:
        return None
    from .dump_config import DumpConfigError, load_dump_config

    try:
        config = load_dump_config(path)
    except DumpConfigError as err:
        rt.events.warning("%s; dumping is off" % err)
        return None
    if config.stop_on_overflow:
        rt.settings.raise_overflow("stop")
    elif config.check_overflow:
        rt.settings.raise_overflow("check")
    if config.load_file_path:
        rt.events.warning("dump.json: load_file_path is not supported in command runs; ignored")
    return config


def _hello(rt, torch_version, features):
    s = rt.settings
    rt.events.hello(pid=os.getpid(), rank=s.rank, world_size=s.world_size,
                    python="%d.%d.%d" % sys.version_info[:3], torch=torch_version,
                    features=features)


def _on_torch_safe(rt, torch, dump_config):
    """Runs inside the user's ``import torch``: nothing may escape from here."""
    try:
        _on_torch(rt, torch, dump_config)
    except Exception as err:
        rt.fail("install", err)
        _hello(rt, str(getattr(torch, "__version__", "unknown")), [])


def _on_torch(rt, torch, dump_config):
    """torch has been imported: set every asked-for part up, then say hello.

    Parts are made in the order their step-end work must run: loss values, overflow
    findings (and the stop decision), the dump file, the module hooks' per-step state,
    and last the profiler's step."""
    s = rt.settings
    features = []
    if s.loss and rt.guarded("loss", _make_loss, rt, torch) is not None:
        features.append("loss")
    overflow = None
    if s.overflow != "off":
        from .overflow import OverflowChecker

        overflow = rt.guarded("overflow", OverflowChecker, rt, torch, s.overflow == "stop")
        if overflow is not None:
            features += ["overflow", "stop_on_overflow"] if s.overflow == "stop" else ["overflow"]
    dumper = None
    if dump_config is not None:
        dumper = rt.guarded("dump", _make_dumper, rt, torch, dump_config)
        if dumper is not None:
            features.append("dump")
    if dumper is not None or overflow is not None:
        from .modules import ModuleTracker

        if rt.guarded(ModuleTracker.PART, _make_tracker, rt, torch, dumper, overflow) is None:
            for f in ("dump", "overflow", "stop_on_overflow"):
                if f in features:
                    features.remove(f)
    profiler = None
    if s.profile is not None:
        from .profiling import Profiler

        profiler = rt.guarded("profile", Profiler, rt, torch, s.profile, s.profile_dir,
                              s.profile_options)
        if profiler is not None and rt.guarded("profile", profiler.patch, torch) is None \
                and rt.is_on("profile"):
            features.append("profile")
        else:
            profiler = None
    from .steps import StepTracker

    steps = StepTracker(rt, profiler.start if profiler is not None else None)
    rt.guarded("steps", steps.patch, torch)
    if rt.is_on("steps"):
        features.insert(0, "steps")
    _hello(rt, str(getattr(torch, "__version__", "unknown")), features)


def _make_loss(rt, torch):
    from .loss import LossRecorder

    recorder = LossRecorder(rt)
    recorder.patch(torch)
    return recorder


def _make_tracker(rt, torch, dumper, overflow):
    from .modules import ModuleTracker

    tracker = ModuleTracker(rt, torch, dumper, overflow)
    tracker.install()
    return tracker


def _make_dumper(rt, torch, config):
    try:
        import h5py
        import numpy
    except ImportError as err:
        rt.events.warning("dump: h5py is not importable (%s); no dumps" % err)
        return None
    from .dump import Dumper

    return Dumper(rt, config, torch, h5py, numpy)


def _at_exit(rt):
    rt.run_exit()
    if not rt.forked_child:
        _hello(rt, None, [])  # no-op when torch was imported (hello already written)
    rt.events.close()


def _after_fork(rt):
    rt.forked_child = True
    rt.events.after_fork_in_child()
