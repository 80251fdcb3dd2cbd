"""TRAINSCOPE_DUMP_CONFIG: leaf-module inputs and outputs to HDF5, in the engine's layout.

    <op>/<seqid>/input/<i>      <op>/<seqid>/output/<i>

``op`` is the module's class name; ``seqid`` counts that class's calls in the file from 0
-- every call of a dumped step, dumped or not, so a filtered dump keeps the seqids of a
full one; a per-run file keeps counting across steps (core/debug/dump_observer.cpp).
Inputs are written before the module runs, outputs after. Every dataset carries the
engine's attributes (op_type, scope, step, dtype, shape, wall_time, direction,
global_seq); the ``<seqid>`` group carries seq_id and global_seq; groups track creation
order; the file has the ``dump_format`` attribute (core/debug/dump_writer.cpp).

A file is closed at the end of its step (file_per step) or at exit (file_per run), then
announced with a ``dump_file`` event; a whole-run file is flushed at the end of every
step that wrote to it, so a process killed later (SIGTERM runs no exit handlers) leaves
it readable up to there. A write error is one warning: dumping stops, the run goes on.
"""
import os
import time

from .tensors import flatten_tensors, to_numpy

DUMP_FORMAT = "op/seqid/{input,output}/i"


class DumpFile:
    """One HDF5 dump file being written (h5py)."""

    def __init__(self, h5py, np, path, step):
        self._np = np
        self.path = path
        self.step = step  # -1 for a whole-run file
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        self._file = h5py.File(path, "w", track_order=True)
        self._file.attrs["dump_format"] = DUMP_FORMAT
        self._groups = {}
        self.tensors = 0

    def _group(self, op, seqid, io, global_seq):
        key = (op, seqid, io)
        g = self._groups.get(key)
        if g is not None:
            return g
        np = self._np
        op_group = self._groups.get(op)
        if op_group is None:
            op_group = self._groups[op] = self._file.create_group(op, track_order=True)
        seq_key = (op, seqid)
        seq_group = self._groups.get(seq_key)
        if seq_group is None:
            seq_group = op_group.create_group(str(seqid), track_order=True)
            seq_group.attrs["seq_id"] = np.int64(seqid)
            seq_group.attrs["global_seq"] = np.int64(global_seq)
            self._groups[seq_key] = seq_group
        g = self._groups[key] = seq_group.create_group(io, track_order=True)
        return g

    def write(self, op, seqid, io, slot, array, attrs):
        """Writes one tensor as <op>/<seqid>/<io>/<slot> with the engine's attributes."""
        np = self._np
        group = self._group(op, seqid, io, attrs["global_seq"])
        ds = group.create_dataset(str(slot), data=array)
        a = ds.attrs
        a["op_type"] = op
        a["scope"] = attrs["scope"]
        a["dtype"] = array.dtype.name
        a["direction"] = "forward"
        a["step"] = np.int64(attrs["step"])
        a["wall_time"] = np.float64(time.time())
        a["global_seq"] = np.int64(attrs["global_seq"])
        a["shape"] = np.asarray(array.shape, dtype=np.int64)
        if attrs.get("torch_dtype"):
            a["torch_dtype"] = attrs["torch_dtype"]
        self.tensors += 1

    def flush(self):
        self._file.flush()

    def close(self):
        self._groups.clear()
        self._file.close()


class Dumper:
    """The dump part: called by the module tracker around every leaf module call."""

    def __init__(self, runtime, config, torch, h5py, np):
        self._rt = runtime
        self._cfg = config
        self._torch = torch
        self._h5py = h5py
        self._np = np
        self._file = None
        self._counts = {}  # op -> next seqid in the current file
        self._global_seq = 0
        self._stopped = False
        self._skipped = 0  # tensors numpy could not hold
        self._flushed_at = 0  # tensors in the whole-run file at its last flush
        runtime.on_step_end("dump", self.end_step)
        runtime.on_exit("dump", self.close_file)

    def wants(self, scope, op):
        """Whether this module's calls are dumped at all (list, switch, filter)."""
        return self._cfg.wants_op(scope, op)

    def before(self, info, inputs):
        """A leaf module is about to run: returns its (seqid, global_seq) when its
        tensors are dumped in this step, after writing its inputs; else None."""
        step = self._rt.step
        if self._stopped or not self._cfg.wants_step(step):
            return None
        seqid = self._counts.get(info.op, 0)
        self._counts[info.op] = seqid + 1
        global_seq = self._global_seq
        self._global_seq += 1
        if not info.dumped:
            return None
        token = (seqid, global_seq)
        if self._cfg.wants_inputs:
            self._write(info, token, "input", inputs)
        return token

    def after(self, info, token, output):
        if token is not None and self._cfg.wants_outputs and not self._stopped:
            self._write(info, token, "output", output)

    def end_step(self, _step):
        if self._cfg.file_per_step:
            self.close_file()
            self._counts.clear()
            self._global_seq = 0
        elif self._file is not None and self._file.tensors != self._flushed_at:
            self._flushed_at = self._file.tensors
            try:
                self._file.flush()
            except Exception as err:
                self._stop("flushing %s failed: %s" % (self._file.path, err))

    def close_file(self):
        f, self._file = self._file, None
        if f is None:
            return
        try:
            f.close()
        except Exception as err:  # h5py raises OSError/RuntimeError/ValueError
            self._stop("closing %s failed: %s" % (f.path, err))
            return
        self._rt.events.emit("dump_file", path=f.path, step=f.step)
        if self._skipped:
            self._rt.events.warning("dump: %d tensors numpy cannot hold were skipped in %s"
                                    % (self._skipped, f.path))
            self._skipped = 0

    # -- internals --------------------------------------------------------------

    def _write(self, info, token, io, value):
        seqid, global_seq = token
        tensors = flatten_tensors(value, self._torch.Tensor)
        if not tensors:
            return
        step = self._rt.step
        try:
            f = self._open(step)
            for slot, t in enumerate(tensors):
                try:
                    array, converted = to_numpy(self._torch, t)
                except (TypeError, RuntimeError):
                    self._skipped += 1
                    continue
                f.write(info.op, seqid, io, slot, array,
                        {"scope": info.scope, "step": step, "global_seq": global_seq,
                         "torch_dtype": converted})
        except Exception as err:  # disk full, permission, HDF5 error: stop dumping
            self._stop("%s: %s" % (err.__class__.__name__, err))

    def _open(self, step):
        if self._file is None:
            cfg = self._cfg
            s = self._rt.settings
            path = cfg.file_for_step(step, s.rank, s.world_size)
            self._file = DumpFile(self._h5py, self._np, path, step if cfg.file_per_step else -1)
        return self._file

    def _stop(self, message):
        self._stopped = True
        self._rt.events.warning("dump: %s; dumping stopped, the run goes on" % message)
        f, self._file = self._file, None
        if f is not None:
            try:
                f.close()
                self._rt.events.emit("dump_file", path=f.path, step=f.step)
            except Exception:
                pass
