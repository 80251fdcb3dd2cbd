"""Training steps: one step is one call of ``step()`` of the first optimizer created.

``torch.optim.Optimizer.__init__`` is wrapped until the first optimizer of the process
exists; that instance gets an instance-level ``step`` (a bound method, so torch's LR
schedulers, which wrap ``optimizer.step`` with a call counter through ``__func__`` and
``__self__``, keep working) that calls the real step and then ends the step: every part's
step-end work, the ``step`` event, and in stop mode the ``stop`` event and
``SystemExit(3)``. The wrapper on ``__init__`` is removed once it has served.
"""
import functools
import sys
import types

EXIT_CODE_STOPPED = 3


class StepTracker:
    def __init__(self, runtime, on_first_optimizer=None):
        self._rt = runtime
        self._on_first = on_first_optimizer  # e.g. start the profiler
        self.optimizer = None  # the first optimizer, once created

    def patch(self, torch):
        optimizer_cls = torch.optim.Optimizer
        original_init = optimizer_cls.__init__
        tracker = self

        @functools.wraps(original_init)
        def __init__(opt, *args, **kwargs):
            original_init(opt, *args, **kwargs)
            if tracker.optimizer is None:
                if optimizer_cls.__init__ is __init__:
                    optimizer_cls.__init__ = original_init
                tracker._rt.guarded("steps", tracker._adopt, opt)

        optimizer_cls.__init__ = __init__

    def _adopt(self, opt):
        self.optimizer = opt
        real_step = opt.step  # bound: the class's step (with torch's profiler label)
        tracker = self

        def step(self_opt, *args, **kwargs):
            result = real_step(*args, **kwargs)
            tracker._after_step()
            return result

        functools.update_wrapper(step, getattr(real_step, "__func__", real_step))
        step.__wrapped__ = real_step
        opt.step = types.MethodType(step, opt)
        if self._on_first is not None:
            self._rt.guarded("profile", self._on_first)

    def _after_step(self):
        reason = self._rt.end_step()
        if reason is not None:
            self._rt.events.emit("stop", reason=reason)
            try:  # one line for the console too: exit code 3 alone would be a riddle
                sys.stderr.write("TrainScope: run stopped: %s\n" % reason)
                sys.stderr.flush()
            except Exception:
                pass
            raise SystemExit(EXIT_CODE_STOPPED)
