"""Global forward hooks on every nn.Module call, feeding the dumper and the overflow check.

``torch.nn.modules.module.register_module_forward_pre_hook`` / ``..._forward_hook`` see
every module call of the process, so nothing in the user's script changes. Only *leaf*
modules (no children) are ops. Calls with grad disabled (``torch.no_grad`` evaluation,
inference mode) are ignored, as the engine dumps and checks training steps only.

Frames (the leaf calls in progress) are per thread, so replicas run by threads
(DataParallel) pair their pre- and post-hook calls right. In a process forked from ours
(a DataLoader worker) the hooks do nothing: the dump file belongs to the parent.

Scopes: the first time a module runs and is not known yet, it is taken as a root and its
whole tree is named, ``<root class>/<qualified name>`` (``Net/fc1``,
``Net/features.0``; a leaf run on its own is just its class, ``CrossEntropyLoss``).
DistributedDataParallel and DataParallel are looked through, so a DDP run has the scopes
of a single-process one and their dumps compare. Modules are held weakly.
"""
import os
import threading
import weakref


class ModuleInfo:
    __slots__ = ("scope", "op", "leaf", "dumped")

    def __init__(self, scope, op, leaf, dumped):
        self.scope = scope
        self.op = op
        self.leaf = leaf
        self.dumped = dumped


class ModuleTracker:
    PART = "module hooks"

    def __init__(self, runtime, torch, dumper=None, overflow=None):
        self._rt = runtime
        self._torch = torch
        self._dumper = dumper
        self._overflow = overflow
        self._infos = weakref.WeakKeyDictionary()
        self._local = threading.local()  # .frames: (module, info, seqid, dump token)
        self._enabled = True
        self._step_counts = {}  # op -> calls in the current step
        self._handles = []
        self._grad_enabled = torch.is_grad_enabled
        wrappers = []
        for name in ("DistributedDataParallel", "DataParallel"):
            cls = getattr(torch.nn.parallel, name, None)
            if isinstance(cls, type):
                wrappers.append(cls)
        self._wrappers = tuple(wrappers)
        # With the profiler on, our work inside a step is labelled in the trace rather
        # than mixed with the model's ops.
        self._label = None
        if runtime.settings.profile is not None:
            self._label = torch.autograd.profiler.record_function

    def install(self):
        m = self._torch.nn.modules.module
        self._handles = [m.register_module_forward_pre_hook(self._pre),
                         m.register_module_forward_hook(self._post)]
        self._rt.on_step_end(self.PART, self._end_step)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._disable)

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []

    def _disable(self):
        self._enabled = False

    def _frames(self):
        frames = getattr(self._local, "frames", None)
        if frames is None:
            frames = self._local.frames = []
        return frames

    # -- hooks (each one guarded: an error of ours removes the hooks) -------------

    def _pre(self, module, inputs):
        if not self._grad_enabled() or not self._enabled:
            return None
        try:
            info = self._infos.get(module)
            if info is None:
                info = self._index(module)
            if not info.leaf:
                return None
            seqid = self._step_counts.get(info.op, 0)
            self._step_counts[info.op] = seqid + 1
            token = None
            if self._dumper is not None and self._rt.is_on("dump"):
                if self._label is None:
                    token = self._rt.guarded("dump", self._dumper.before, info, inputs)
                else:
                    with self._label("trainscope::dump"):
                        token = self._rt.guarded("dump", self._dumper.before, info, inputs)
            self._frames().append((module, info, seqid, token))
        except Exception as err:
            self._fail(err)
        return None

    def _post(self, module, inputs, output):
        frames = getattr(self._local, "frames", None)
        if not frames:
            return None
        try:
            if frames[-1][0] is module:
                _, info, seqid, token = frames.pop()
            else:  # a leaf whose forward raised earlier left its frame: find ours
                for i in range(len(frames) - 1, -1, -1):
                    if frames[i][0] is module:
                        _, info, seqid, token = frames[i]
                        del frames[i:]
                        break
                else:
                    return None
            if self._label is None:
                self._after(info, seqid, token, output)
            else:
                with self._label("trainscope::dump_overflow"):
                    self._after(info, seqid, token, output)
        except Exception as err:
            self._fail(err)
        return None

    # -- internals --------------------------------------------------------------

    def _after(self, info, seqid, token, output):
        if token is not None:
            self._rt.guarded("dump", self._dumper.after, info, token, output)
        if self._overflow is not None:
            self._rt.guarded("overflow", self._overflow.check, info, seqid, output)

    def _index(self, root):
        """Names `root`'s tree (modules named before keep their names)."""
        base = root
        if isinstance(root, self._wrappers) and isinstance(getattr(root, "module", None),
                                                           self._torch.nn.Module):
            base = root.module
            self._infos[root] = self._make(type(root).__name__, root)
        prefix = type(base).__name__
        for name, m in base.named_modules():
            if m not in self._infos:
                self._infos[m] = self._make(prefix + "/" + name if name else prefix, m)
        return self._infos[root]

    def _make(self, scope, module):
        op = type(module).__name__
        leaf = next(module.children(), None) is None
        dumped = leaf and self._dumper is not None and self._dumper.wants(scope, op)
        return ModuleInfo(scope, op, leaf, dumped)

    def _end_step(self, _step):
        self._step_counts.clear()
        self._local.frames = []

    def _fail(self, err):
        self.remove()
        self._rt.fail(self.PART, err)
