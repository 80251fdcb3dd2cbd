"""TRAINSCOPE_PROFILE: torch.profiler over the training steps, one trace per cycle.

The profiler (``torch.profiler.profile`` with ``torch.profiler.schedule`` of the given
numbers) starts when the first optimizer is created, so the schedule's step 0 is training
step 1; ``prof.step()`` follows every optimizer step; at interpreter exit the profiler
stops, which flushes a cycle still recording.

Step slices are named ``ProfilerStep#<N>`` with N the training step (as the engine names
them, and as the ``step``/``scalar`` events count): torch 1.13 labels them itself, one
behind (``ProfilerStep#0`` twice), so its labelling is switched off (``record_steps``)
and ours is used.

Each completed cycle is written as ``rank<R>.<pid>.<n>.pt.trace.json`` (n = 1, 2, ...) in
TRAINSCOPE_PROFILE_DIR: first under ``.rank<R>.<pid>.<n>.pt.trace.json.tmp`` in the same
folder, completed (see chrome_trace.py), then renamed into place with ``os.replace`` and
announced by a ``trace`` event, so a folder watcher never reads half a file.

Only one torch profiler can run in a thread. When the script starts its own (a
``torch.profiler.profile`` or ``torch.autograd.profiler.profile``), ours steps aside: it
is not started when the script's runs already, and it stops (writing the cycle it was
recording) when the script's starts, so the script's profiler works as without us.
"""
import os
import warnings

from . import chrome_trace


class Profiler:
    PART = "profile"

    def __init__(self, runtime, torch, schedule, folder, options):
        self._rt = runtime
        self._torch = torch
        self._schedule = schedule
        self._folder = folder
        self._options = options
        self._prof = None
        self._label = None  # the open ProfilerStep#N record_function
        self._own_labels = False
        self._cycles = 0
        self._dist_info = None  # remembered: the group may be gone at exit
        self._end = None  # profiler step index after which nothing is recorded
        if schedule["repeat"] > 0:
            cycle = schedule["wait"] + schedule["warmup"] + schedule["active"]
            self._end = schedule["skip_first"] + cycle * schedule["repeat"]
        runtime.on_step_end(self.PART, self.end_step)
        runtime.on_exit(self.PART, self.stop)

    def patch(self, torch):
        """Makes a profiler of the script's own stop ours before it starts."""
        session = self

        def yielding(original):
            def start(prof, *args, **kwargs):
                if session._prof is not None and prof is not session._prof:
                    session._rt.guarded(session.PART, session.yield_to_script)
                return original(prof, *args, **kwargs)

            start.__wrapped__ = original
            start.__name__ = original.__name__
            start.__doc__ = original.__doc__
            return start

        kineto_cls = torch.profiler.profile
        kineto_cls.start = yielding(kineto_cls.start)
        legacy_cls = torch.autograd.profiler.profile
        legacy_cls.__enter__ = yielding(legacy_cls.__enter__)

    def yield_to_script(self):
        self.stop()
        self._rt.events.warning("profile: the script started its own torch profiler at step %d; "
                                "TRAINSCOPE_PROFILE stops there" % self._rt.step)

    def start(self):
        """At the creation of the first optimizer: step 1 begins."""
        torch = self._torch
        profiler = torch.profiler
        enabled = getattr(torch.autograd, "_profiler_enabled", None)
        if enabled is not None and enabled():  # the script's own: two cannot run at once
            self._rt.events.warning("profile: the script's own torch profiler is running; "
                                    "TRAINSCOPE_PROFILE is ignored")
            return
        s = self._schedule
        os.makedirs(self._folder, exist_ok=True)
        activities = [profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available() and hasattr(profiler.ProfilerActivity, "CUDA"):
            activities.append(profiler.ProfilerActivity.CUDA)
        with warnings.catch_warnings():  # "won't be using warmup" for warmup=0
            warnings.simplefilter("ignore")
            schedule = profiler.schedule(wait=s["wait"], warmup=s["warmup"], active=s["active"],
                                         repeat=s["repeat"], skip_first=s["skip_first"])
        o = self._options
        self._prof = profiler.profile(
            activities=activities, schedule=schedule, on_trace_ready=self._on_trace_ready,
            record_shapes=o["record_shapes"], profile_memory=o["profile_memory"],
            with_stack=o["with_stack"])
        if hasattr(self._prof, "record_steps"):
            self._prof.record_steps = False
            self._own_labels = True
        self._remember_dist()
        self._prof.start()
        self._open_label(self._rt.step)

    def end_step(self, completed):
        prof = self._prof
        if prof is None:
            return
        self._close_label()
        self._remember_dist()
        prof.step()
        if self._end is not None and prof.step_num >= self._end:
            self._prof = None  # the schedule is over: no more overhead
            prof.stop()
            return
        self._open_label(completed + 1)

    def stop(self):
        prof, self._prof = self._prof, None
        if prof is not None:
            self._close_label()
            prof.stop()

    # -- internals --------------------------------------------------------------

    def _open_label(self, step):
        if self._own_labels:
            self._label = self._torch.autograd.profiler.record_function("ProfilerStep#%d" % step)
            self._label.__enter__()

    def _close_label(self):
        label, self._label = self._label, None
        if label is not None:
            label.__exit__(None, None, None)

    def _remember_dist(self):
        info = chrome_trace.distributed_info(self._torch)
        if info is not None:
            self._dist_info = info

    def _on_trace_ready(self, prof):
        try:  # a failed write loses this cycle only; profiling goes on
            self._write_trace(prof)
        except Exception as err:
            self._rt.events.warning("profile: writing trace %d failed: %s: %s"
                                    % (self._cycles, err.__class__.__name__, err))

    def _write_trace(self, prof):
        self._cycles += 1
        rank = self._rt.settings.rank
        name = "rank%d.%d.%d.pt.trace.json" % (rank, os.getpid(), self._cycles)
        final = os.path.join(self._folder, name)
        tmp = os.path.join(self._folder, "." + name + ".tmp")
        self._remember_dist()
        try:
            if self._torch.autograd.kineto_available():
                prof.export_chrome_trace(tmp)
                chrome_trace.ensure_distributed_info(tmp, self._dist_info)
            else:
                o = self._options
                chrome_trace.write_legacy_trace(prof.profiler.kineto_results, tmp, os.getpid(),
                                                self._dist_info, o["record_shapes"], o["with_stack"])
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        self._rt.events.emit("trace", path=final)
