#!/usr/bin/env python3
"""Writes a folder as MindSpore users have them on disk, for screenshots and end-to-end runs:

  summary_dir/run_{1,2,3}/events.summary.<t>.host_MS     scalars, histograms, images, tensors,
                                                          a loss landscape, the graph
  summary_dir/run_{1,2,3}/events.summary.<t>.host_lineage hyper-parameters, metrics
  dump/rank_0/LeNet/0/{1,2}/...npy + statistic.csv        a sync dump, NaN from iteration 2
  rdr/rank_0/rdr/...                                      an RDR export after "Run task error"

The messages come from the project's .proto files (protoc --python_out, run here); framing and
CRC-32C are written here. Usage: make_mindspore_workspace.py OUT_DIR
"""
import math, os, struct, subprocess, sys, tempfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
PROTO = os.path.join(ROOT, 'core', 'proto')
gen = tempfile.mkdtemp(prefix='ms_pb2_')
# From the source root, as the build runs protoc (the files import "core/proto/<name>.proto").
subprocess.check_call(['protoc', '-I' + ROOT, '--python_out=' + gen] +
                      [os.path.join(PROTO, p) for p in os.listdir(PROTO) if p.endswith('.proto')])
sys.path.insert(0, gen)
sys.path.insert(0, os.path.join(HERE, '..', 'common'))
import tfrecord  # noqa: E402
from core.proto import mindinsight_summary_pb2 as S  # noqa: E402
from core.proto import mindinsight_lineage_pb2 as L  # noqa: E402
from core.proto import mindinsight_anf_ir_pb2 as A  # noqa: E402


def frame(msg):
    return tfrecord.frame(msg.SerializeToString())


def png(w, h, pixel):
    raw = b''.join(b'\0' + b''.join(bytes(pixel(x, y)) for x in range(w)) for y in range(h))
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def tensor(t, dims, values):
    t.dims.extend(dims)
    t.data_type = A.DT_FLOAT32
    t.float_data.extend(values)


def graph(g):
    g.name = 'kernel_graph_0'
    scope = 'Default/network-WithLossCell/_backbone-LeNet5'
    layers = [('Conv2D', 'conv1-Conv2d', [32, 6, 28, 28]), ('ReLU', 'relu-ReLU', [32, 6, 28, 28]),
              ('MaxPool', 'max_pool2d-MaxPool2d', [32, 6, 14, 14]), ('Conv2D', 'conv2-Conv2d', [32, 16, 10, 10]),
              ('ReLU', 'relu-ReLU', [32, 16, 10, 10]), ('MaxPool', 'max_pool2d-MaxPool2d', [32, 16, 5, 5]),
              ('Flatten', 'flatten-Flatten', [32, 400]), ('MatMul', 'fc1-Dense', [32, 120]),
              ('BiasAdd', 'fc1-Dense', [32, 120]), ('ReLU', 'relu-ReLU', [32, 120]),
              ('MatMul', 'fc2-Dense', [32, 84]), ('BiasAdd', 'fc2-Dense', [32, 84]),
              ('MatMul', 'fc3-Dense', [32, 10]), ('BiasAdd', 'fc3-Dense', [32, 10])]
    for name, shape in (('x', [32, 1, 32, 32]), ('conv1.weight', [6, 1, 5, 5]), ('fc1.weight', [120, 400])):
        p = g.parameters.add()
        p.name = name
        p.type.tensor_type.elem_type = A.DT_FLOAT32
        for d in shape:
            p.type.tensor_type.shape.dim.add().size = d
    prev = 'x'
    for i, (op, layer, shape) in enumerate(layers):
        n = g.node.add()
        n.name = str(i + 1)
        n.op_type = op
        n.scope = scope + '/' + layer
        n.full_name = n.scope + '/' + op + '-op' + str(i)
        n.input.add().name = prev
        if op in ('Conv2D', 'MatMul'):
            n.input.add().name = 'conv1.weight' if op == 'Conv2D' else 'fc1.weight'
            a = n.attribute.add()
            a.name = 'pad_list' if op == 'Conv2D' else 'transpose_b'
            if op == 'Conv2D':
                a.value.int_vals.extend([0, 0, 0, 0])
            else:
                a.value.bool_val = True
        a = n.attribute.add()
        a.name = 'data_format'
        a.value.str_val = 'NCHW'
        n.output_type.tensor_type.elem_type = A.DT_FLOAT32
        for d in shape:
            n.output_type.tensor_type.shape.dim.add().size = d
        prev = n.name
    loss = g.node.add()
    loss.name = str(len(layers) + 1)
    loss.op_type = 'SoftmaxCrossEntropyWithLogits'
    loss.scope = 'Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits'
    loss.full_name = loss.scope + '/SoftmaxCrossEntropyWithLogits-op' + str(len(layers))
    loss.input.add().name = prev


def summary(path, run, steps=120):
    lr = [0.1, 0.05, 0.01][run - 1]
    out = [frame(S.Event(wall_time=1.7e9, version='MindSpore.Event:1'))]
    g = S.Event(wall_time=1.7e9, step=0)
    graph(g.graph_def)
    out.append(frame(g))
    for s in range(1, steps + 1):
        e = S.Event(wall_time=1.7e9 + s, step=s)
        loss = 2.3 * math.exp(-lr * s / 4) + 0.08 + 0.05 * math.sin(s * 1.7 + run)
        for tag, v in (('loss/auto', loss), ('accuracy', 1 - 0.9 * math.exp(-lr * s / 5)),
                       ('learning_rate', lr * (0.95 ** (s // 20)))):
            val = e.summary.value.add()
            val.tag = tag
            val.scalar_value = v
        if s % 10 == 0:
            for tag, sd in (('conv1.weight/auto', 0.3), ('fc1.weight/auto', 0.12)):
                h = e.summary.value.add()
                h.tag = tag
                spread = sd * (1 + s / 60.0)
                mean = 0.02 * s / steps
                total = 0
                for b in range(30):
                    left = mean - 3 * spread + b * spread / 5
                    mid = left + spread / 10
                    c = int(2000 * math.exp(-((mid - mean) ** 2) / (2 * spread * spread)))
                    k = h.histogram.buckets.add()
                    k.left, k.width, k.count = left, spread / 5, c
                    total += c
                h.histogram.min, h.histogram.max = mean - 3 * spread, mean + 3 * spread
                h.histogram.sum = mean * total
                h.histogram.count = total
            im = e.summary.value.add()
            im.tag = 'input_data/auto'
            im.image.height, im.image.width, im.image.colorspace = 28, 28, 3
            digit = s // 10
            im.image.encoded_image = png(28, 28, lambda x, y: (
                (255, 255, 255) if ((x - 14) ** 2 + (y - 14) ** 2 < (6 + digit % 5) ** 2 and
                                    (x - 14) ** 2 + (y - 14) ** 2 > (3 + digit % 3) ** 2) else (10, 10, 10 + 20 * run)))
            t = e.summary.value.add()
            t.tag = 'fc3.bias/auto'
            tensor(t.tensor, [10], [0.1 * math.sin(i + s / 10.0) for i in range(10)])
            w = e.summary.value.add()
            w.tag = 'conv1.weight/tensor'
            tensor(w.tensor, [6, 25], [0.2 * math.sin(i * 0.7 + j * 0.3 + s / 30.0) for i in range(6) for j in range(25)])
        out.append(frame(e))
    e = S.Event(wall_time=1.7e9 + steps, step=steps)
    v = e.summary.value.add()
    v.tag = 'landscape'
    n = 31
    xs = [-1 + 2 * c / (n - 1) for r in range(n) for c in range(n)]
    ys = [-1 + 2 * r / (n - 1) for r in range(n) for c in range(n)]
    zs = [0.3 + 1.2 * x * x + 0.8 * y * y + 0.15 * math.sin(5 * x) * math.cos(3 * y) + 0.1 * run for x, y in zip(xs, ys)]
    land = v.loss_landscape
    tensor(land.landscape.x, [n, n], xs)
    tensor(land.landscape.y, [n, n], ys)
    tensor(land.landscape.z, [n, n], zs)
    px = [0.85 * (1 - k / 9) for k in range(10)]
    py = [-0.7 * (1 - k / 9) ** 1.5 for k in range(10)]
    tensor(land.loss_path.points.x, [10], px)
    tensor(land.loss_path.points.y, [10], py)
    tensor(land.loss_path.points.z, [10], [0.3 + 1.2 * a * a + 0.8 * b * b + 0.1 * run for a, b in zip(px, py)])
    land.loss_path.intervals.extend([(k + 1) * steps // 10 for k in range(10)])
    tensor(land.convergence_point.x, [1], [0.0])
    tensor(land.convergence_point.y, [1], [0.0])
    tensor(land.convergence_point.z, [1], [0.3 + 0.1 * run])
    land.metadata.decomposition = 'PCA'
    land.metadata.unit = 'step'
    land.metadata.step_per_epoch = 12
    out.append(frame(e))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, 'wb').write(b''.join(out))


def lineage(path, run):
    lr = [0.1, 0.05, 0.01][run - 1]
    t = L.LineageEvent(wall_time=1.7e9)
    h = t.train_lineage.hyper_parameters
    h.optimizer = ['Momentum', 'Adam', 'Momentum'][run - 1]
    h.learning_rate = lr
    h.loss_function = 'SoftmaxCrossEntropyWithLogits'
    h.epoch = 10
    h.batch_size = [32, 64, 128][run - 1]
    h.parallel_mode = 'stand_alone'
    h.device_num = 1
    t.train_lineage.train_dataset.train_dataset_path = '/data/mnist/train'
    t.train_lineage.train_dataset.train_dataset_size = 60000
    t.train_lineage.algorithm.network = 'LeNet5'
    t.train_lineage.algorithm.loss = [0.21, 0.09, 0.14][run - 1]
    e = L.LineageEvent(wall_time=1.7e9 + 100)
    e.evaluation_lineage.metric = '{"accuracy": %s, "loss": %s}' % ([0.948, 0.981, 0.966][run - 1], [0.19, 0.07, 0.12][run - 1])
    e.evaluation_lineage.valid_dataset.valid_dataset_size = 10000
    u = L.LineageEvent(wall_time=1.7e9 + 101)
    u.user_defined_info.map_double['dropout'] = [0.0, 0.2, 0.5][run - 1]
    open(path, 'wb').write(b''.join(frame(x) for x in (L.LineageEvent(wall_time=1.7e9, version='MindSpore.Event:1'), t, e, u)))


def npy(values, shape):
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (repr(tuple(shape)),)
    hdr += ' ' * ((64 - (10 + len(hdr) + 1) % 64) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + struct.pack('<%df' % len(values), *values)


def dump(root):
    scope = 'Default/network-WithLossCell/_backbone-LeNet5/'
    ops = [('Conv2D', scope + 'conv1-Conv2d/Conv2D-op0'), ('ReLU', scope + 'relu-ReLU/ReLU-op1'),
           ('MaxPool', scope + 'max_pool2d-MaxPool2d/MaxPool-op2'), ('MatMul', scope + 'fc1-Dense/MatMul-op3'),
           ('BiasAdd', scope + 'fc1-Dense/BiasAdd-op4'), ('Softmax', 'Default/network-WithLossCell/_loss_fn/Softmax-op5')]
    rank = os.path.join(root, 'rank_0')
    os.makedirs(os.path.join(rank, 'execution_order'), exist_ok=True)
    open(os.path.join(rank, 'execution_order', 'ms_execution_order_graph_0.csv'), 'w').write(
        'op_name\n' + ''.join(n + '\n' for _, n in ops))
    os.makedirs(os.path.join(rank, 'graphs'), exist_ok=True)
    open(os.path.join(rank, 'graphs', 'ms_output_trace_code_graph_0.ir'), 'w').write('# the final execution graph\n')
    for it in (1, 2):
        d = os.path.join(rank, 'LeNet', '0', str(it))
        os.makedirs(d, exist_ok=True)
        rows = ['Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min Value,Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf Count,Positive Inf Count,Zero Count']
        ts = 1700000000000000 + it * 100000
        for k, (op, name) in enumerate(ops):
            for io, slot in (('input', 0), ('output', 0)):
                ts += 7
                shape = [8, 16]
                vals = [math.sin(i * 0.3 + k + it * (1 if io == 'output' else 0.5)) * (3 if op == 'MatMul' else 1)
                        for i in range(128)]
                if it == 2 and k >= 3 and (k > 3 or io == 'output'):
                    vals[5] = float('nan')
                    vals[9] = float('inf')
                fname = '%s.%s.0.0.%d.%s.%d.DefaultFormat.float32.npy' % (op, name.replace('/', '_').replace('.', '_'), ts, io, slot)
                open(os.path.join(d, fname), 'wb').write(npy(vals, shape))
                fin = [v for v in vals if math.isfinite(v)]
                rows.append('%s,%s,0,0,%d,%s,%d,512,float32,"(8,16)",%g,%g,%g,128,0,0,%d,0,%d,0' % (
                    op, name, ts, io, slot, max(fin), min(fin), sum(fin) / len(fin),
                    sum(1 for v in vals if v != v), sum(1 for v in vals if v == float('inf'))))
        open(os.path.join(d, 'statistic.csv'), 'w').write('\n'.join(rows) + '\n')


def rdr(root):
    d = os.path.join(root, 'rank_0', 'rdr')
    os.makedirs(d, exist_ok=True)
    ts = '20240611093015'
    scope = 'Default/network-WithLossCell/_backbone-LeNet5/'
    ops = ['conv1-Conv2d/Conv2D-op0', 'relu-ReLU/ReLU-op1', 'max_pool2d-MaxPool2d/MaxPool-op2',
           'fc1-Dense/MatMul-op3', 'fc1-Dense/BiasAdd-op4', 'fc2-Dense/MatMul-op5']
    ir = ['# [No.1] hwopt_d_before_graph_0', 'subgraph @kernel_graph_0(%para1_x, %para2_conv1.weight) {']
    for i, o in enumerate(ops):
        op = o.split('/')[1].split('-')[0]
        ir += ['  %%%d(equivoutput) = %s(%s, %%para%d_w) {instance name: %s}' % (i + 1, op, '%para1_x' if i == 0 else '%%%d' % i, i + 2, op.lower()),
               '      : (<Tensor[Float32], (32, 120)>) -> (<Tensor[Float32], (32, 120)>)',
               '      # Fullname with scope: (%s%s)' % (scope, o)]
    ir += ['  Return(%%%d)' % len(ops), '}']
    open(os.path.join(d, 'PIPELINE_hwopt_d_before_graph_0_%s.ir' % ts), 'w').write('\n'.join(ir) + '\n')
    eo = ['================== execution order ==================', 'execution_order size: %d' % len(ops)]
    for i, o in enumerate(ops):
        eo += ['%d:' % i, '\t@kernel_graph_0:%s%s{[0]: ValueNode<Primitive> %s, [1]: @kernel_graph_0:param_x}' % (scope, o, o.split('/')[1].split('-')[0]), '\t0', '\t0']
    eo.append('================== execution order ==================')
    open(os.path.join(d, 'SESSION_graph_exec_order.0_%s.txt' % ts), 'w').write('\n'.join(eo) + '\n')
    open(os.path.join(d, 'KERNEL_stream_exec_order_%s.json' % ts), 'w').write('[\n' + ',\n'.join(
        '  {"index": %d, "node_name": "%s%s", "logic_id": 0, "stream_id": %d, "node_info": "%s", "event_id": %d}' % (
            i, scope, o, i % 2, o.split('/')[1], i) for i, o in enumerate(ops)) + '\n]')
    open(os.path.join(d, 'KERNEL_mem_address_list_%s.txt' % ts), 'w').write(''.join(
        '%s%s\nkernel_inputs 1\n&0x%x #%d\nkernel_workspaces 0\nkernel_outputs 1\n&0x%x #%d\n\n' % (
            scope, o, 0x12400000 + i * 0x10000, 15360, 0x12500000 + i * 0x10000, 15360) for i, o in enumerate(ops)))
    open(os.path.join(d, 'DEVICE_task_debug_info_0_%s.ir' % ts), 'w').write(''.join(
        'op_name:%s%s\ntask_index:%d\ttask_num:1\ttask0_stream_id:%d\ttask0_type:0\ttask0_dump_flag:0\n'
        'input address:0x%x(15360)\t\noutput address:0x%x(15360)\t\n\n' % (scope, o, i, i % 2, 0x12400000 + i * 0x10000, 0x12500000 + i * 0x10000)
        for i, o in enumerate(ops)))
    open(os.path.join(root, 'rank_0', 'mindspore.log'), 'w').write(
        '[ERROR] DEVICE(118114,ffff4effd1e0,python):2024-06-11-09:30:15.511.290 [mindspore/ccsrc/runtime/device/ascend/ascend_kernel_runtime.cc:679] DumpTaskExceptionInfo] Task fail infos task_id: 13, stream_id: 1, tid: 118198, device_id: 0, retcode: 507011 ( model execute failed)\n'
        '[ERROR] DEVICE(118114,ffff4effd1e0,python):2024-06-11-09:30:15.511.460 [mindspore/ccsrc/runtime/device/ascend/ascend_kernel_runtime.cc:688] DumpTaskExceptionInfo] Dump node (%sfc1-Dense/MatMul-op3) task error input/output data to: ./rank_0/node_dump trace:\n' % scope)


out = sys.argv[1]
for r in (1, 2, 3):
    run = os.path.join(out, 'summary_dir', 'run_%d' % r)
    summary(os.path.join(run, 'events.summary.1700000000.host_MS'), r)
    lineage(os.path.join(run, 'events.summary.1700000000.host_lineage'), r)
dump(os.path.join(out, 'dump'))
rdr(os.path.join(out, 'rdr'))
