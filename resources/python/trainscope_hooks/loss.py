"""TRAINSCOPE_LOSS=1: the value of every scalar tensor ``backward()`` is called on.

``torch.Tensor.backward`` and ``torch.autograd.backward`` are wrapped; each floating
tensor with one element that either is called on becomes a ``scalar`` event with tag
``train/loss`` at the current step (``Tensor.backward`` calls ``torch.autograd.backward``
itself: a thread-local flag keeps that from counting twice). With gradient accumulation
a step has several values; a loss scaled by a GradScaler is recorded scaled.

Reading a CUDA value would synchronise the device in the middle of the step, so values
of tensors that are not on the CPU are kept (detached) and read at the end of the step,
after the optimizer step.
"""
import functools
import threading

from .events import now_ns

TAG = "train/loss"


class LossRecorder:
    def __init__(self, runtime):
        self._rt = runtime
        self._torch = None
        self._inside = threading.local()
        self._pending = []  # (step, detached tensor, ts) read at the end of the step

    def patch(self, torch):
        self._torch = torch
        recorder = self
        inside = self._inside
        original_tensor_backward = torch.Tensor.backward
        original_backward = torch.autograd.backward

        @functools.wraps(original_tensor_backward)
        def backward(tensor, *args, **kwargs):
            outer = not getattr(inside, "active", False)
            if outer:
                recorder._rt.guarded("loss", recorder.record, tensor)
                inside.active = True
            try:
                return original_tensor_backward(tensor, *args, **kwargs)
            finally:
                if outer:
                    inside.active = False

        @functools.wraps(original_backward)
        def autograd_backward(tensors, *args, **kwargs):
            outer = not getattr(inside, "active", False)
            if outer:
                recorder._rt.guarded("loss", recorder.record_many, tensors)
                inside.active = True
            try:
                return original_backward(tensors, *args, **kwargs)
            finally:
                if outer:
                    inside.active = False

        torch.Tensor.backward = backward
        torch.autograd.backward = autograd_backward
        self._rt.on_step_end("loss", self.flush)
        self._rt.on_exit("loss", self.flush)

    def record_many(self, tensors):
        if isinstance(tensors, self._torch.Tensor):
            self.record(tensors)
        elif isinstance(tensors, (list, tuple)):
            for t in tensors:
                self.record(t)

    def record(self, tensor):
        torch = self._torch
        if not isinstance(tensor, torch.Tensor) or tensor.numel() != 1 or not tensor.is_floating_point():
            return
        value = tensor.detach()
        if value.device.type == "cpu":
            self._emit(self._rt.step, float(value), now_ns())
        else:
            self._pending.append((self._rt.step, value, now_ns()))

    def flush(self, _step=None):
        """Reads the values kept for device tensors, after the optimizer step."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        for step, value, ts in pending:
            self._emit(step, float(value), ts)

    def _emit(self, step, value, ts):
        self._rt.events.emit("scalar", tag=TAG, step=step, value=value, ts=ts)
