#!/usr/bin/python3
"""Writes HDF5 dump pairs for the dump root-cause tests, in the engine's layout
(<op>/<seqid>/{input,output}/<i>, attributes as core/debug/dump_writer.cpp and the PyTorch
hooks write them: scope, step, wall_time, global_seq).

    make_dump_pair.py spread OUT_DIR      a.h5 (checked) / b.h5 (golden): an MLP forward; A's
                                          ReLU/1 output goes wrong and the error spreads
    make_dump_pair.py entry OUT_DIR       the same net; A's fc1 weights differ (a bad
                                          checkpoint): the first failing tensor is an input
    make_dump_pair.py frameworks OUT_DIR  engine.h5 (engine names, MatMul + BiasAdd per Dense
                                          layer) against torch.h5 (PyTorch module names,
                                          Linear per layer); the engine's ReLU/1 goes wrong
    make_dump_pair.py ranks OUT_DIR       rank_0.h5 .. rank_3.h5: rank 2 overflows in MatMul/3,
                                          ranks 0 and 1 get NaN from AllReduce/0, rank 3 clean

Needs numpy and h5py (Debian's /usr/bin/python3). Prints what it wrote as JSON.
"""
import json
import os
import sys

import h5py
import numpy as np

ENGINE = "Default/network-WithLossCell/_backbone-MLP/"


class Dump:
    """One dump file being written in the engine's layout."""

    def __init__(self, path, t0=1000.0):
        self.f = h5py.File(path, "w", track_order=True)
        self.f.attrs["dump_format"] = "op/seqid/{input,output}/i"
        self.seq = {}
        self.global_seq = 0
        self.t = t0

    def op(self, op, scope, inputs, outputs):
        seqid = self.seq.get(op, 0)
        self.seq[op] = seqid + 1
        g = self.f.require_group(op).create_group(str(seqid), track_order=True)
        g.attrs["seq_id"] = np.int64(seqid)
        g.attrs["global_seq"] = np.int64(self.global_seq)
        for io, tensors in (("input", inputs), ("output", outputs)):
            sub = g.create_group(io, track_order=True)
            for i, a in enumerate(tensors):
                d = sub.create_dataset(str(i), data=np.asarray(a, dtype=np.float32))
                d.attrs["op_type"] = op
                d.attrs["scope"] = scope
                d.attrs["step"] = np.int64(1)
                d.attrs["wall_time"] = np.float64(self.t)
                d.attrs["global_seq"] = np.int64(self.global_seq)
                self.t += 0.001
        self.global_seq += 1
        return "%s/%d" % (op, seqid)

    def close(self):
        self.f.close()


def net(seed=0):
    r = np.random.default_rng(seed)
    x = r.standard_normal((16, 32)).astype(np.float32)
    ws = [(r.standard_normal((32, 64)) * 0.2, r.standard_normal(64) * 0.1),
          (r.standard_normal((64, 48)) * 0.2, r.standard_normal(48) * 0.1),
          (r.standard_normal((48, 10)) * 0.2, r.standard_normal(10) * 0.1)]
    return x, [(w.astype(np.float32), b.astype(np.float32)) for w, b in ws]


def forward(x, ws, wrong_relu=None, tiny=0.0, seed=1):
    """Per op (name, layer, inputs, outputs); `wrong_relu`: index of the ReLU that goes wrong;
    `tiny`: relative float noise on every output (a different device's rounding)."""
    r = np.random.default_rng(seed)

    def jitter(a):
        return (a * (1 + tiny * r.standard_normal(a.shape))).astype(np.float32) if tiny else a

    ops, h = [], x
    for k, (w, b) in enumerate(ws):
        mm = jitter(h @ w)
        ops.append(("MatMul", "fc%d" % (k + 1), [h, w], [mm]))
        ba = jitter(mm + b)
        ops.append(("BiasAdd", "fc%d" % (k + 1), [mm, b], [ba]))
        h = ba
        if k < len(ws) - 1:
            out = np.maximum(h, 0)
            if wrong_relu == k:  # a broken kernel: half the activations scaled
                out = out * np.where(r.random(out.shape) < 0.5, 3.0, 1.0).astype(np.float32)
            out = jitter(out.astype(np.float32))
            ops.append(("ReLU", "relu%d" % (k + 1), [h], [out]))
            h = out
    e = np.exp(h - h.max(axis=1, keepdims=True))
    ops.append(("Softmax", "softmax", [h], [(e / e.sum(axis=1, keepdims=True)).astype(np.float32)]))
    return ops


def engine_scope(op, layer, n):
    cls = {"MatMul": "Dense", "BiasAdd": "Dense", "ReLU": "ReLU", "Softmax": "Softmax"}[op]
    return "%s%s-%s/%s-op%d" % (ENGINE, layer, cls, op, n)


def write_engine(path, ops):
    d = Dump(path)
    for n, (op, layer, ins, outs) in enumerate(ops):
        d.op(op, engine_scope(op, layer, n), ins, outs)
    d.close()


def write_torch(path, ops):
    """Leaf modules as the PyTorch hooks dump them: Linear (MatMul + BiasAdd), ReLU, Softmax."""
    d = Dump(path)
    k = 0
    while k < len(ops):
        op, layer, ins, outs = ops[k]
        if op == "MatMul":
            d.op("Linear", "Net/" + layer, [ins[0]], ops[k + 1][3])
            k += 2
            continue
        d.op(op, "Net/" + layer, ins, outs)
        k += 1
    d.close()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mode, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x, ws = net()
    info = {}
    if mode == "spread":
        write_engine(os.path.join(out, "a.h5"), forward(x, ws, wrong_relu=1, tiny=1e-7))
        write_engine(os.path.join(out, "b.h5"), forward(x, ws))
        info = {"root_cause": "ReLU/1", "first_failing": "ReLU/1/output/0"}
    elif mode == "entry":
        bad = [(ws[0][0] * 1.5, ws[0][1])] + ws[1:]  # fc1's weights wrongly converted
        write_engine(os.path.join(out, "a.h5"), forward(x, bad))
        write_engine(os.path.join(out, "b.h5"), forward(x, ws))
        info = {"root_cause": None, "first_failing": "MatMul/0/input/1"}
    elif mode == "frameworks":
        write_engine(os.path.join(out, "engine.h5"), forward(x, ws, wrong_relu=1, tiny=1e-7))
        write_torch(os.path.join(out, "torch.h5"), forward(x, ws))
        info = {"root_cause": "ReLU/1", "root_cause_b": "ReLU/1"}
    elif mode == "ranks":
        for rank in range(4):
            d = Dump(os.path.join(out, "rank_%d.h5" % rank), t0=1000.0 + 0.0001 * rank)
            r = np.random.default_rng(rank)
            for k in range(5):
                a = r.standard_normal((8, 8)).astype(np.float32)
                outp = a @ a
                if rank == 2 and k == 3:
                    outp[0, 0] = np.nan
                d.op("MatMul", "Default/net/MatMul-op%d" % k, [a, a], [outp])
            if rank != 3:  # rank 3 stopped before the collective
                g = np.full((8, 8), np.nan if rank in (0, 1, 2) else 0, dtype=np.float32)
                d.op("AllReduce", "Default/net/AllReduce-op9", [r.standard_normal((8, 8))], [g])
            d.close()
        info = {"origin": 2, "through": [0, 1], "clean": [3]}
    else:
        sys.exit("unknown mode %s" % mode)
    print(json.dumps(info))


if __name__ == "__main__":
    main()
