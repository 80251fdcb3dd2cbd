"""State shared by the hooks of one process: the step counter, the events, the parts.

A *part* (loss recorder, profiler, dumper, overflow checker, module tracker) registers
what it does at the end of every step and at exit. Every call into a part goes through
``Runtime.guarded``: an unexpected exception in our code switches that part off and
becomes one ``warning`` event, so the user's run goes on untouched.
"""
import sys

from .events import now_ns

class Runtime:
    def __init__(self, settings, events):
        self.settings = settings
        self.events = events
        self.step = 1  # the current step: ops before the first optimizer step belong to 1
        self.forked_child = False  # True in a process forked from the one that installed
        self.stop_reason = None  # set by the overflow check in stop mode
        self._step_end = []  # (part name, callable(step)), in order
        self._exit = []  # (part name, callable()), in order
        self._off = set()  # parts switched off after an error

    # -- parts --------------------------------------------------------------------

    def on_step_end(self, part, fn):
        self._step_end.append((part, fn))

    def on_exit(self, part, fn):
        self._exit.append((part, fn))

    def is_on(self, part):
        return part not in self._off

    def fail(self, part, err):
        """Switches `part` off after an unexpected error of ours and says so once."""
        if part in self._off:
            return
        self._off.add(part)
        import traceback

        where = ""
        tb = traceback.extract_tb(err.__traceback__) if err.__traceback__ else []
        if tb:
            frame = tb[-1]
            where = " (%s:%d in %s)" % (frame.filename.rsplit("/", 1)[-1], frame.lineno, frame.name)
        self.events.warning("%s switched off after an internal error: %s: %s%s"
                            % (part, err.__class__.__name__, err, where))

    def guarded(self, part, fn, *args):
        """fn(*args) unless `part` is off; an exception switches the part off."""
        if part in self._off:
            return None
        try:
            return fn(*args)
        except Exception as err:  # never the user's exception: fn is our code
            self.fail(part, err)
            return None

    # -- step and exit ------------------------------------------------------------

    def end_step(self):
        """Called after each step() of the first optimizer: closes step N, opens N+1.

        Returns the stop reason when the run must end now (overflow check in stop
        mode), after the ``step`` event of the step that found it.
        """
        completed = self.step
        for part, fn in self._step_end:
            self.guarded(part, fn, completed)
        self.events.emit("step", step=completed, ts=now_ns())
        self.step = completed + 1
        return self.stop_reason

    def run_exit(self):
        """Interpreter exit: every part flushes (a forked child leaves files alone)."""
        if self.forked_child:
            return
        for part, fn in self._exit:
            self.guarded(part, fn)
        try:
            sys.stderr.flush()
        except Exception:
            pass

