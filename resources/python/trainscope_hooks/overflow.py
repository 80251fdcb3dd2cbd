"""TRAINSCOPE_OVERFLOW=1|stop: NaN, +Inf and -Inf in every leaf module's float outputs.

After each leaf module's forward (in training steps only), every floating output tensor
is checked; one with any non-finite value is a finding and an ``overflow`` event (step,
op, scope, seqid -- the op's call count in the step, as the engine numbers findings --,
tensor ``output/<i>``, the three counts, ts). At most 64 events per step, like the
engine; the rest are counted in one warning at the end of the step. In stop mode the first
step with a finding ends the run once its optimizer step is done (steps.py writes the
``stop`` event and exits with code 3).

On the CPU a tensor costs one reduction (its sum is finite exactly when every element
is; only then are the three counts taken). On a device the counts are queued as device
tensors and read at the end of the step in one transfer, so the check never waits for
the device in the middle of a step.
"""
import math

from .events import now_ns
from .tensors import flatten_tensors

MAX_EVENTS_PER_STEP = 64


class OverflowChecker:
    def __init__(self, runtime, torch, stop):
        self._rt = runtime
        self._torch = torch
        self._stop = stop
        self._reported = 0
        self._suppressed = 0
        self._first = None  # the step's first finding, for the stop reason
        self._queued = []  # (meta, counts tensor on the device)
        runtime.on_step_end("overflow", self.end_step)
        runtime.on_exit("overflow", self.resolve)

    def check(self, info, seqid, output):
        torch = self._torch
        for slot, t in enumerate(flatten_tensors(output, torch.Tensor)):
            if not t.is_floating_point() or t.numel() == 0:
                continue
            meta = (self._rt.step, info.op, info.scope, seqid, "output/%d" % slot, now_ns())
            t = t.detach()
            if t.device.type == "cpu":
                if math.isfinite(float(t.sum())):
                    continue
                counts = (int(torch.isnan(t).sum()), int(torch.isposinf(t).sum()),
                          int(torch.isneginf(t).sum()))
                self._finding(meta, counts)
            else:
                counts = torch.stack([torch.isnan(t).sum(), torch.isposinf(t).sum(),
                                      torch.isneginf(t).sum()])
                self._queued.append((meta, counts))

    def resolve(self):
        """Reads the counts queued for device tensors."""
        if not self._queued:
            return
        queued, self._queued = self._queued, []
        by_device = {}
        for meta, counts in queued:
            by_device.setdefault(counts.device, []).append((meta, counts))
        for items in by_device.values():
            values = self._torch.stack([c for _, c in items]).cpu().tolist()
            for (meta, _), counts in zip(items, values):
                self._finding(meta, counts)

    def end_step(self, step):
        self.resolve()
        if self._suppressed:
            self._rt.events.warning(
                "overflow check: %d more tensors with NaN/Inf in step %d were not reported "
                "(at most %d per step)" % (self._suppressed, step, MAX_EVENTS_PER_STEP))
        first = self._first
        self._reported = self._suppressed = 0
        self._first = None
        if self._stop and first is not None and self._rt.stop_reason is None:
            _, op, scope, seqid, tensor, _ = first[0]
            nan, posinf, neginf = first[1]
            self._rt.stop_reason = (
                "overflow at step %d: %s %s (seqid %d) %s has %d NaN, %d +Inf, %d -Inf"
                % (step, op, scope, seqid, tensor, nan, posinf, neginf))

    def _finding(self, meta, counts):
        nan, posinf, neginf = (int(c) for c in counts)
        if not (nan or posinf or neginf):
            return
        if self._first is None:
            self._first = (meta, (nan, posinf, neginf))
        if self._reported >= MAX_EVENTS_PER_STEP:
            self._suppressed += 1
            return
        self._reported += 1
        step, op, scope, seqid, tensor, ts = meta
        self._rt.events.emit("overflow", step=step, op=op, scope=scope, seqid=seqid, tensor=tensor,
                             nan=nan, posinf=posinf, neginf=neginf, ts=ts)
