#!/usr/bin/env python3
"""Checks an ONNX file the way the exporter's tests need, with Debian's python3-onnx (1.12,
which has no reference evaluator) and numpy:

  onnx_check.py MODEL.onnx                       checker (full_check: strict shape inference)
  onnx_check.py MODEL.onnx INPUT.bin EXPECTED.bin N,C,H,W
                                                 ... and evaluates the graph on the raw
                                                 float32 input, comparing with EXPECTED.bin

Prints one JSON line: {"checker": "ok", "opset": 13, "nodes": N, "output_shape": [...],
"max_abs_diff": x, "max_rel_diff": y}. Exit 0 when everything passed, 1 on a failure, 77
when onnx or numpy cannot be imported (the test skips).
The evaluator below is deliberately plain numpy, written from the ONNX operator specs and
independent of the engine's kernels.
"""
import json
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # pragma: no cover
    print(json.dumps({"skip": f"cannot import onnx/numpy: {e}"}))
    sys.exit(77)

from numpy.lib.stride_tricks import sliding_window_view


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def windows(x, kernel, strides, pads):
    """[N, C, OH, OW, KH, KW] views of x zero-padded by pads (top, left, bottom, right)."""
    t, l, b, r = pads
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    w = sliding_window_view(xp, kernel, axis=(2, 3))
    return w[:, :, ::strides[0], ::strides[1]]


def conv(x, w, b, a):
    group = a.get("group", 1)
    kh, kw = w.shape[2:]
    strides = a.get("strides", [1, 1])
    p = a.get("pads", [0, 0, 0, 0])
    win = windows(x, (kh, kw), strides, (p[0], p[1], p[2], p[3]))
    cg, og = x.shape[1] // group, w.shape[0] // group
    outs = [np.einsum("nchwkl,ockl->nohw", win[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og],
                      optimize=True) for g in range(group)]
    y = np.concatenate(outs, axis=1)
    return y + b.reshape(1, -1, 1, 1) if b is not None else y


def pool(x, a, fn):
    p = a.get("pads", [0, 0, 0, 0])
    return fn(windows(x, tuple(a["kernel_shape"]), a.get("strides", [1, 1]), (p[0], p[1], p[2], p[3])),
              axis=(4, 5))


def reshape(x, shape):
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return x.reshape(shape)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def run_node(n, v):
    a = attrs(n)
    i = [v[name] if name else None for name in n.input]
    t = n.op_type
    if t == "Conv":
        return [conv(i[0], i[1], i[2] if len(i) > 2 else None, a)]
    if t == "BatchNormalization":
        x, s, b, m, var = i
        shp = (1, -1) + (1,) * (x.ndim - 2)
        return [(x - m.reshape(shp)) / np.sqrt(var.reshape(shp) + a.get("epsilon", 1e-5)) * s.reshape(shp)
                + b.reshape(shp)]
    if t == "Relu":
        return [np.maximum(i[0], 0)]
    if t == "Sigmoid":
        return [1 / (1 + np.exp(-i[0]))]
    if t == "Tanh":
        return [np.tanh(i[0])]
    if t in ("Add", "Sub", "Mul", "Div"):
        return [{"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[t](i[0], i[1])]
    if t == "Gemm":
        A = i[0].T if a.get("transA", 0) else i[0]
        B = i[1].T if a.get("transB", 0) else i[1]
        y = a.get("alpha", 1.0) * (A @ B)
        return [y + a.get("beta", 1.0) * i[2] if len(i) > 2 and i[2] is not None else y]
    if t == "MatMul":
        return [i[0] @ i[1]]
    if t == "Concat":
        return [np.concatenate(i, axis=a["axis"])]
    if t == "Split":
        sizes = i[1] if len(i) > 1 and i[1] is not None else a.get("split")
        return np.split(i[0], np.cumsum(sizes)[:-1], axis=a.get("axis", 0))
    if t == "Transpose":
        return [np.transpose(i[0], a["perm"])]
    if t == "Reshape":
        return [reshape(i[0], i[1])]
    if t == "Flatten":
        ax = a.get("axis", 1)
        return [i[0].reshape(int(np.prod(i[0].shape[:ax])), -1)]
    if t == "Pad":
        p = i[1]
        half = len(p) // 2
        return [np.pad(i[0], [(p[k], p[k + half]) for k in range(half)])]
    if t == "GlobalAveragePool":
        return [i[0].mean(axis=(2, 3), keepdims=True)]
    if t == "MaxPool":
        return [pool(i[0], a, np.max)]
    if t == "AveragePool":
        return [pool(i[0], a, np.mean)]
    if t == "Softmax":
        return [softmax(i[0], a.get("axis", -1))]
    if t == "LogSoftmax":
        return [np.log(softmax(i[0], a.get("axis", -1)))]
    raise NotImplementedError(t)


def evaluate(model, x):
    v = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    v[model.graph.input[0].name] = x
    for n in model.graph.node:
        outs = run_node(n, {k: (val.astype(np.float64) if val.dtype == np.float32 else val)
                            for k, val in v.items() if k in n.input})
        for name, val in zip(n.output, outs):
            v[name] = val
    return v[model.graph.output[0].name]


def main():
    model = onnx.load(sys.argv[1])
    result = {"onnx": onnx.__version__, "opset": model.opset_import[0].version,
              "ir_version": model.ir_version, "nodes": len(model.graph.node)}
    try:
        onnx.checker.check_model(model, full_check=True)
        result["checker"] = "ok"
    except Exception as e:  # onnx.checker.ValidationError, shape inference errors
        result["checker"] = f"failed: {e}"
        print(json.dumps(result))
        return 1
    inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    dims = inferred.graph.output[0].type.tensor_type.shape.dim
    result["output_shape"] = [d.dim_param or d.dim_value for d in dims]
    if len(sys.argv) > 4:
        shape = [int(s) for s in sys.argv[4].split(",")]
        x = np.fromfile(sys.argv[2], dtype=np.float32).reshape(shape)
        expected = np.fromfile(sys.argv[3], dtype=np.float32)
        got = evaluate(model, x.astype(np.float64))
        expected = expected.reshape(got.shape)
        diff = np.abs(got - expected)
        result["eval_shape"] = list(got.shape)
        result["max_abs_diff"] = float(diff.max())
        result["max_rel_diff"] = float((diff / np.maximum(1.0, np.abs(got))).max())
        result["argmax_agree"] = float((got.argmax(1) == expected.argmax(1)).mean())
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
