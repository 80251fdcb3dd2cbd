"""A stand-in for a MindSpore training job (MindSpore is not packaged for Debian).

It needs neither MindSpore nor torch. It prints what a MindSpore job prints, in
MindSpore's real formats, with MindSpore's level rules:

- C++ (glog) records on stderr:
  ``[WARNING] DEVICE(12345,7f3a2b4c5d60,python):2021-01-01-12:00:00.123.456 [mindspore/ccsrc/file.cc:42] Func] message``
- Python records (mindspore.log) on stderr:
  ``[WARNING] ME(12345:139770,MainProcess):2021-01-01-12:00:00.123.456 [mindspore/train/model.py:42] message``
- LossMonitor lines on stdout: ``epoch: 1 step: 5, loss is 0.5234`` (step within the epoch).

``GLOG_v`` sets the level (0 DEBUG, 1 INFO, 2 WARNING (default), 3 ERROR, 4 CRITICAL);
``MS_SUBMODULE_LOG_v="{DEVICE:1,KERNEL:0}"`` sets C++ sub-modules' own levels (Python
records follow GLOG_v only, as in MindSpore). Bad values are reported and ignored.

With ``MS_RDR_ENABLE=1`` and an absolute ``MS_RDR_PATH`` the Running Data Recorder
export is written to ``<MS_RDR_PATH>/rank_<RANK_ID>/rdr/`` when the job fails, and at a
normal end too with ``MS_RDR_MODE=2`` -- in TrainScope's RDR layout (docs/RDR.md:
graph_0.ir, exec_order.txt, memory_alloc.txt, log_tail.txt, run_state.txt, and
rdr_index.json written last), which the studio's RDR view opens. ``--fail`` makes the
job fail at its last step: an ERROR record, the RDR export, then MindSpore's RuntimeError
(traceback on stderr, exit code 1).

    GLOG_v=1 MS_RDR_ENABLE=1 MS_RDR_PATH=/tmp/rdr python mindspore_standin.py --steps 10 --fail
"""
import argparse
import collections
import json
import math
import os
import random
import sys
import threading
import time

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# MindSpore's C++ sub-modules (mindspore/core/utils/log_adapter.h).
SUBMODULES = ("UNKNOWN", "CORE", "ANALYZER", "COMMON", "DEBUG", "OFFLINE_DEBUG", "DEVICE",
              "GE_ADPT", "IR", "KERNEL", "MD", "ME", "EXPRESS", "OPTIMIZER", "PARALLEL",
              "PARSER", "PIPELINE", "PRE_ACT", "PYNATIVE", "SESSION", "UTILS", "VM", "PROFILER",
              "PS", "FL", "DISTRIBUTED", "LITE", "ARMOUR", "HCCL_ADPT", "RUNTIME_FRAMEWORK",
              "GE", "API")
TAIL_LINES = 256

# The stand-in network: an MLP as MindSpore names its ops in a graph.
SCOPE = "Default/network-WithLossCell/_backbone-MLP/"
OPS = [  # (op, scope, inputs, outputs)
    ("MatMul", SCOPE + "fc1-Dense/MatMul-op0", "(32,784):Float32 (128,784):Float32", "(32,128):Float32"),
    ("BiasAdd", SCOPE + "fc1-Dense/BiasAdd-op1", "(32,128):Float32 (128):Float32", "(32,128):Float32"),
    ("ReLU", SCOPE + "relu-ReLU/ReLU-op2", "(32,128):Float32", "(32,128):Float32"),
    ("MatMul", SCOPE + "fc2-Dense/MatMul-op3", "(32,128):Float32 (10,128):Float32", "(32,10):Float32"),
    ("BiasAdd", SCOPE + "fc2-Dense/BiasAdd-op4", "(32,10):Float32 (10):Float32", "(32,10):Float32"),
    ("SoftmaxCrossEntropyWithLogits",
     "Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits/SoftmaxCrossEntropyWithLogits-op5",
     "(32,10):Float32 (32,10):Float32", "():Float32 (32,10):Float32"),
    ("ApplyMomentum", "Default/optimizer-Momentum/ApplyMomentum-op6",
     "(128,784):Float32 (128,784):Float32 ():Float32 (128,784):Float32", "(128,784):Float32"),
]
PARAMS = [("fc1.weight", (128, 784)), ("fc1.bias", (128,)), ("fc2.weight", (10, 128)),
          ("fc2.bias", (10,))]


class MsLog:
    """MindSpore's two log formats and level rules; keeps the last lines for the RDR."""

    def __init__(self, env):
        self.problems = []
        self.level = self._level(env.get("GLOG_v"), "GLOG_v", 2)
        self.modules = self._submodules(env.get("MS_SUBMODULE_LOG_v"))
        self.tail = collections.deque(maxlen=TAIL_LINES)
        self.pid = os.getpid()

    def _level(self, text, name, default):
        if text is None or text.strip() == "":
            return default
        if text.strip() in ("0", "1", "2", "3", "4"):
            return int(text)
        self.problems.append("%s=%r is not a log level (0-4); the default %d is used"
                             % (name, text, default))
        return default

    def _submodules(self, text):
        out = {}
        if not text or not text.strip():
            return out
        body = text.strip()
        if not (body.startswith("{") and body.endswith("}")):
            self.problems.append("MS_SUBMODULE_LOG_v=%r must look like {DEVICE:1,KERNEL:0}" % text)
            return out
        for item in body[1:-1].split(","):
            item = item.strip()
            if not item:
                continue
            name, _, value = item.partition(":")
            name, value = name.strip().upper(), value.strip()
            if name not in SUBMODULES:
                self.problems.append("MS_SUBMODULE_LOG_v: unknown sub-module %r ignored" % name)
            elif value not in ("0", "1", "2", "3", "4"):
                self.problems.append("MS_SUBMODULE_LOG_v: bad level %r for %s ignored" % (value, name))
            else:
                out[name] = int(value)
        return out

    @staticmethod
    def _time():
        now = time.time()
        us = int((now - math.floor(now)) * 1e6)
        stamp = time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(now))
        return stamp + ".%03d.%03d" % (us // 1000, us % 1000)

    def _out(self, line):
        self.tail.append(line)
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def cpp(self, level, module, where, func, message):
        """A C++ record: `level` 0..4, `module` a sub-module, `where` "file.cc:line"."""
        if level < self.modules.get(module, self.level):
            return
        name = "EXCEPTION" if level == 4 else LEVELS[level]
        tid = "%x" % threading.get_ident()
        self._out("[%s] %s(%d,%s,python):%s [%s] %s] %s"
                  % (name, module, self.pid, tid, self._time(), where, func, message))

    def py(self, level, where, message):
        """A Python record of mindspore.log (sub-module ME, GLOG_v only)."""
        if level < self.level:
            return
        self._out("[%s] ME(%d:%d,MainProcess):%s [%s] %s"
                  % (LEVELS[level], self.pid, threading.get_ident(), self._time(), where, message))


class Rdr:
    """MS_RDR_*: what the recorder keeps, and the export in TrainScope's RDR layout."""

    def __init__(self, env, log):
        self.enabled = env.get("MS_RDR_ENABLE", "") == "1"
        self.mode = 1
        self.folder = None
        if not self.enabled:
            return
        path = env.get("MS_RDR_PATH", "")
        mode = env.get("MS_RDR_MODE", "") or "1"
        if mode not in ("1", "2"):
            log.py(2, "mindspore/_checkparam.py:120", "MS_RDR_MODE must be 1 or 2, got %r; 1 is used" % mode)
            mode = "1"
        self.mode = int(mode)
        if not path or not os.path.isabs(path):
            log.py(2, "mindspore/_checkparam.py:131",
                   "RDR path must be an absolute path, got %r; the RDR is off" % path)
            self.enabled = False
            return
        rank = env.get("RANK_ID", "") or "0"
        self.rank = int(rank) if rank.isdigit() else 0
        self.folder = os.path.join(path, "rank_%d" % self.rank, "rdr")
        self.orders = []  # per step: (epoch, global step, [(seqid, op, scope, in, out)])
        self.allocs = []
        self.state = {}

    def record_step(self, epoch, step, ops, t0_ns):
        if not self.enabled:
            return
        self.orders = (self.orders + [(epoch, step, ops)])[-2:]
        offset = 0
        for seqid, op, scope, _, outs in ops:  # each op's output block, freed two ops later
            size = 32 * 128 * 4 if "(32,128)" in outs else 32 * 10 * 4
            self.allocs.append([scope + ":out0", size, 0x7f0000000000 + offset,
                                t0_ns + seqid * 1000, t0_ns + seqid * 1000 + 2000, "freed"])
            offset += size
        self.allocs = self.allocs[-1024:]

    def export(self, reason, failing_op, failing_seqid, detail, epoch, step, loss, config, log):
        d = self.folder
        os.makedirs(d, exist_ok=True)
        index = os.path.join(d, "rdr_index.json")
        if os.path.exists(index):
            os.unlink(index)  # an index on disk always describes the files beside it
        with open(os.path.join(d, "graph_0.ir"), "w") as f:
            f.write(graph_ir())
        with open(os.path.join(d, "exec_order.txt"), "w") as f:
            f.write("# MindSpore stand-in RDR execution order: every op of each step\n")
            for label, order in zip(("current", "previous"), reversed(self.orders)):
                e, s, ops = order
                f.write("## %s epoch=%d step=%d ops=%d kept=%d\n" % (label, e, s, len(ops), len(ops)))
                f.write("seqid\top\tscope\tinputs\toutputs\n")
                for row in ops:
                    f.write("\t".join(str(x) for x in row) + "\n")
                f.write("\n")
        with open(os.path.join(d, "memory_alloc.txt"), "w") as f:
            in_use = sum(a[1] for a in self.allocs if a[5] == "live")
            peak = 2 * max((a[1] for a in self.allocs), default=0)
            f.write("# pool in_use_bytes=%d peak_bytes=%d capacity_bytes=%d\n" % (in_use, peak, 1 << 30))
            f.write("# allocations recorded=%d kept=%d\n" % (len(self.allocs), len(self.allocs)))
            f.write("tensor\tbytes\toffset\talloc_ns\tfree_ns\tstatus\n")
            for a in self.allocs:
                f.write("\t".join(str(x) for x in a) + "\n")
        with open(os.path.join(d, "log_tail.txt"), "w") as f:
            f.write("".join(line + "\n" for line in log.tail))
        with open(os.path.join(d, "run_state.txt"), "w") as f:
            f.write("epoch: %d\nstep: %d\nloss: %s\nloss_scale: 1\nconfig:\n%s\n"
                    % (epoch, step, loss, json.dumps(config)))
        now = time.time_ns()
        files = ["graph_0.ir", "exec_order.txt", "memory_alloc.txt", "log_tail.txt", "run_state.txt"]
        doc = {"format": "trainscope-rdr", "version": 1, "reason": reason,
               "failing_op": failing_op, "failing_seqid": failing_seqid,
               "failing_step": step if failing_op else -1, "detail": detail, "signal": None,
               "epoch": epoch, "step": step, "time_ns": now,
               "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now // 10**9))
               + ".%03dZ" % (now // 10**6 % 1000),
               "rank_id": self.rank, "pid": os.getpid(), "mode": self.mode, "files": files}
        tmp = index + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, index)
        return d


def graph_ir():
    """The stand-in network's graph in the IR text the RDR view colours."""
    lines = ["# IR entry      : @construct_wrapper", "# Total subgraphs: 1",
             "# Total params   : %d" % (len(PARAMS) + 2), "", "# Params:",
             "%para1_inputs : <Tensor[Float32], (32, 784)>",
             "%para2_labels : <Tensor[Float32], (32, 10)>"]
    for i, (name, shape) in enumerate(PARAMS, start=3):
        lines.append("%%para%d_%s : <Tensor[Float32], (%s)>" % (i, name, ", ".join(map(str, shape))))
    lines += ["", "subgraph attr:", "subgraph @construct_wrapper() {"]
    args = {0: "%para1_inputs, %para3_fc1.weight", 1: "%0, %para4_fc1.bias", 2: "%1",
            3: "%2, %para5_fc2.weight", 4: "%3, %para6_fc2.bias", 5: "%4, %para2_labels",
            6: "%para3_fc1.weight, %para3_fc1.weight, %arg0, %para3_fc1.weight"}
    for i, (op, scope, ins, outs) in enumerate(OPS):
        lines.append("  %%%d(%s-op%d) = %s(%s) : (%s) -> (%s)" % (i, op, i, op, args[i], ins, outs))
        lines.append("      # scope: %s" % scope)
    lines += ["  Return(%5)", "}", ""]
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=10, help="training steps in all")
    p.add_argument("--steps-per-epoch", type=int, default=5)
    p.add_argument("--step-ms", type=float, default=0.0, help="time one step takes")
    p.add_argument("--fail", action="store_true", help="fail at the last step (exit code 1)")
    args = p.parse_args()

    log = MsLog(os.environ)
    for problem in log.problems:
        log.py(2, "mindspore/log.py:410", problem)
    rdr = Rdr(os.environ, log)
    config = {"network": "MLP", "optimizer": "Momentum", "learning_rate": 0.01,
              "batch_size": 32, "epoch_size": math.ceil(args.steps / args.steps_per_epoch)}

    log.py(2, "mindspore/run_check/_check_version.py:140",
           "MindSpore version 2.2.0 and the device software package version do not match; "
           "this stand-in runs on the CPU.")
    log.cpp(1, "ME", "mindspore/ccsrc/pipeline/jit/pipeline.cc:1532", "CompileInner",
            "Start compiling 'construct_wrapper' in GRAPH_MODE.")
    log.cpp(1, "DEVICE", "mindspore/ccsrc/plugin/device/cpu/hal/hardware/cpu_device_context.cc:92",
            "Initialize", "CPU device context initialized.")
    for i, (op, scope, _, _) in enumerate(OPS):
        log.cpp(0, "KERNEL", "mindspore/ccsrc/plugin/device/cpu/kernel/cpu_kernel_factory.cc:134",
                "Create", "Select CPU kernel for %s: float32" % scope.rsplit("/", 1)[1])
    log.cpp(2, "DEVICE", "mindspore/ccsrc/plugin/device/cpu/hal/device/kernel_select_cpu.cc:330",
            "SetKernelInfo", "Operator:[%s] don't support int64, reduce precision from int64 to int32."
            % OPS[5][1])
    if rdr.enabled:
        log.cpp(1, "DEBUG", "mindspore/ccsrc/debug/rdr/recorder_manager.cc:42", "UpdateRdrEnable",
                "RDR is enabled, mode %d, path %s" % (rdr.mode, rdr.folder))

    rng = random.Random(0)
    loss = 2.3
    step = epoch = 0
    failing = None
    while step < args.steps:
        epoch += 1
        for in_epoch in range(1, args.steps_per_epoch + 1):
            if step >= args.steps:
                break
            step += 1
            t0 = time.time_ns()
            if args.step_ms > 0:
                time.sleep(args.step_ms / 1000.0)
            ops = [(i, op, scope, ins, outs) for i, (op, scope, ins, outs) in enumerate(OPS)]
            if args.fail and step == args.steps:
                ops = ops[:4]  # fc2's MatMul is in flight when the device reports the error
                failing = ops[-1]
            rdr.record_step(epoch, step, ops, t0)
            log.cpp(0, "RUNTIME_FRAMEWORK", "mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1023",
                    "Run", "Run graph 'construct_wrapper', step %d" % step)
            if failing:
                break
            loss = max(0.05, loss * (0.85 + 0.1 * rng.random()))
            print("epoch: %d step: %d, loss is %.4f" % (epoch, in_epoch, loss), flush=True)
        if failing:
            break

    if failing:
        seqid, scope = failing[0], failing[2]
        detail = "Launch kernel %s failed: device task exception, retCode=0x91" % scope
        log.cpp(3, "DEVICE", "mindspore/ccsrc/plugin/device/cpu/hal/hardware/cpu_device_context.cc:412",
                "LaunchKernel", detail)
        if rdr.enabled:
            folder = rdr.export("op_exception", scope, seqid, detail, epoch, step, loss, config, log)
            log.cpp(2, "DEBUG", "mindspore/ccsrc/debug/rdr/recorder_manager.cc:156", "TriggerAll",
                    "RDR export (op_exception) written to %s" % folder)
        raise RuntimeError(
            "mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1031 Run] %s\n\n"
            "----------------------------------------------------\n"
            "- C++ Call Stack: (For framework developers)\n"
            "----------------------------------------------------\n"
            "mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1031 Run\n"
            "mindspore/ccsrc/plugin/device/cpu/hal/hardware/cpu_device_context.cc:412 LaunchKernel"
            % detail)

    log.py(1, "mindspore/train/model.py:1089", "Training finished: %d epochs, %d steps." % (epoch, step))
    if rdr.enabled and rdr.mode == 2:
        last = OPS[-1]
        folder = rdr.export("normal_end", last[1], len(OPS) - 1, "", epoch, step, loss, config, log)
        log.cpp(1, "DEBUG", "mindspore/ccsrc/debug/rdr/recorder_manager.cc:156", "TriggerAll",
                "RDR export (normal_end) written to %s" % folder)


if __name__ == "__main__":
    main()
