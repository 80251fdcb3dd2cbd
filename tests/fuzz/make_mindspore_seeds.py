#!/usr/bin/env python3
# Writes the seeds of the MindSpore fuzz targets (tests/fuzz/seeds/<target>/) from the
# project's own .proto files, with a framing and CRC-32C written here in Python (a second
# implementation beside the C++ reader's). Usage:
#   protoc -I. --python_out=/tmp/pyproto core/proto/*.proto
#   PYTHONPATH=/tmp/pyproto /usr/bin/python3 tests/fuzz/make_mindspore_seeds.py tests/fuzz/seeds
import sys, struct, os
from core.proto import mindinsight_summary_pb2 as S, mindinsight_lineage_pb2 as L
from core.proto import mindinsight_anf_ir_pb2 as A, tensorboard_summary_pb2 as T

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from tfrecord import frame  # noqa: E402

out = sys.argv[1]
os.makedirs(out + '/mindspore_summary', exist_ok=True)
os.makedirs(out + '/mindspore_lineage', exist_ok=True)
os.makedirs(out + '/npy', exist_ok=True)
os.makedirs(out + '/msdump', exist_ok=True)
os.makedirs(out + '/msrdr', exist_ok=True)

ev = S.Event(); ev.wall_time = 1.0; ev.version = 'MindSpore.Event:1'
rec = [frame(ev.SerializeToString())]
g = S.Event(); g.wall_time = 1.0
n = g.graph_def.node.add(); n.name = '1'; n.op_type = 'Conv2D'; n.scope = 'Default/net/conv1-Conv2d'; n.full_name = 'Default/net/conv1-Conv2d/Conv2D-op0'
n.input.add().name = 'x'
a = n.attribute.add(); a.name = 'pad'; a.value.int_vals.extend([1, 1])
n.output_type.tensor_type.elem_type = A.DT_FLOAT32; n.output_type.tensor_type.shape.dim.add().size = 4
rec.append(frame(g.SerializeToString()))
for step in range(1, 4):
    e = S.Event(); e.wall_time = 1.0 + step; e.step = step
    v = e.summary.value.add(); v.tag = 'loss/auto'; v.scalar_value = 1.0 / step
    h = e.summary.value.add(); h.tag = 'w/auto'
    b = h.histogram.buckets.add(); b.left = -1; b.width = 1; b.count = 3
    b = h.histogram.buckets.add(); b.left = 0; b.width = 1; b.count = 5
    h.histogram.nan_count = 1; h.histogram.min = -1; h.histogram.max = 1; h.histogram.count = 9
    t = e.summary.value.add(); t.tag = 'b/auto'; t.tensor.dims.extend([2, 2]); t.tensor.data_type = A.DT_FLOAT32; t.tensor.float_data.extend([1, 2, 3, 4])
    rec.append(frame(e.SerializeToString()))
e = S.Event(); e.wall_time = 9.0; e.step = 3
v = e.summary.value.add(); v.tag = 'landscape'
for pt in (v.loss_landscape.landscape,):
    for c, vals in ((pt.x, [0, 1, 0, 1]), (pt.y, [0, 0, 1, 1]), (pt.z, [1, 2, 3, 4])):
        c.dims.extend([2, 2]); c.data_type = A.DT_FLOAT32; c.float_data.extend(vals)
v.loss_landscape.loss_path.intervals.extend([1, 2])
rec.append(frame(e.SerializeToString()))
open(out + '/mindspore_summary/lenet_MS', 'wb').write(b''.join(rec))

# The TensorBoard dialect through the same decoder: PyTorch's scalars, histograms, images,
# HParams, a TF2 histogram tensor, text and audio (skipped with reasons).
def tb_event(step, fill):
    e = T.Event(); e.wall_time = 100.0 + step; e.step = step
    fill(e.summary.value.add())
    return frame(e.SerializeToString())
def tb_scalar(v):
    v.tag = 'loss'; v.simple_value = 0.5
def tb_histo(v):
    v.tag = 'weights'; h = v.histo; h.min = -1; h.max = 1; h.num = 6; h.sum = 0.5; h.sum_squares = 2
    h.bucket_limit.extend([-0.5, 0.0, 0.5, 1.0]); h.bucket.extend([1, 2, 2, 1])
def tb_image(v):
    v.tag = 'img'; v.image.height = 1; v.image.width = 1; v.image.colorspace = 3
    v.image.encoded_image_string = (b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01'
                                    b'\x08\x02\x00\x00\x00\x90wS\xde')
def tb_hparams(v):
    v.tag = '_hparams_/session_start_info'
    v.metadata.plugin_data.plugin_name = 'hparams'
    d = T.HParamsPluginData(); d.version = 0
    d.session_start_info.hparams['lr'].number_value = 0.01
    d.session_start_info.hparams['opt'].string_value = 'Adam'
    v.metadata.plugin_data.content = d.SerializeToString()
    v.tensor.dtype = T.DT_FLOAT
def tb_tf2_histogram(v):
    v.tag = 'acts'; v.metadata.plugin_data.plugin_name = 'histograms'
    v.tensor.dtype = T.DT_DOUBLE
    v.tensor.tensor_shape.dim.add().size = 2; v.tensor.tensor_shape.dim.add().size = 3
    v.tensor.tensor_content = struct.pack('<6d', 0, 1, 4, 1, 2, 6)
def tb_text(v):
    v.tag = 'note'; v.metadata.plugin_data.plugin_name = 'text'
    v.tensor.dtype = T.DT_STRING; v.tensor.string_val.append(b'hello')
def tb_audio(v):
    v.tag = 'wav'; v.audio.sample_rate = 8000; v.audio.encoded_audio_string = b'RIFF'
ver = T.Event(); ver.wall_time = 100.0; ver.file_version = 'brain.Event:2'
open(out + '/mindspore_summary/pytorch_tfevents', 'wb').write(
    frame(ver.SerializeToString()) + b''.join(tb_event(i + 1, f) for i, f in enumerate(
        (tb_scalar, tb_histo, tb_image, tb_hparams, tb_tf2_histogram, tb_text, tb_audio))))

lv = L.LineageEvent(); lv.wall_time = 1; lv.version = 'MindSpore.Event:1'
lt = L.LineageEvent(); lt.wall_time = 2; lt.train_lineage.hyper_parameters.learning_rate = 0.01; lt.train_lineage.hyper_parameters.optimizer = 'Momentum'; lt.train_lineage.algorithm.loss = 0.1
le = L.LineageEvent(); le.wall_time = 3; le.evaluation_lineage.metric = '{"accuracy": 0.9}'
lu = L.LineageEvent(); lu.wall_time = 4; lu.user_defined_info.map_str['k'] = 'v'; lu.user_defined_info.map_dict['d'].map_int32['x'] = 1
open(out + '/mindspore_lineage/lenet_lineage', 'wb').write(b''.join(frame(x.SerializeToString()) for x in (lv, lt, le, lu)))

def npy(descr, shape, data, fortran=False):
    hdr = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, 'True' if fortran else 'False', repr(tuple(shape)))
    hdr = hdr + ' ' * ((64 - (10 + len(hdr) + 1) % 64) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + data
f32 = struct.pack('<6f', 1, 2, float('nan'), 4, float('inf'), 6)
open(out + '/npy/f4.npy', 'wb').write(npy('<f4', (2, 3), f32))
open(out + '/npy/f2_fortran.npy', 'wb').write(npy('<f2', (2, 2), struct.pack('<4H', 0x3c00, 0x4000, 0x4200, 0x7c00), True))
open(out + '/npy/i8.npy', 'wb').write(npy('<i8', (3,), struct.pack('<3q', -1, 0, 7)))

csv = 'Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min Value,Avg Value,Count,NaN Count\nConv2D,Default_conv1-Conv2d_Conv2D-op0,0,0,100,output,0,24,float32,"(2,3)",6,1,3.5,6,1\n'
mapping = '1234,Conv2D.Default_conv1-Conv2d_Conv2D-op0.0.0.100.output.0.DefaultFormat.float32.npy\n'
names = 'Conv2D.Default_conv1-Conv2d_Conv2D-op0.0.0.100.output.0.DefaultFormat.float32.npy\n1234\nMatMul.Default_fc1_MatMul-op1.2.7.101\n'
order = 'op_name\nDefault/conv1-Conv2d/Conv2D-op0\n'
cut = b'\n--8<--\n'
open(out + '/msdump/sync_full.dump', 'wb').write(cut.join([csv.encode(), mapping.encode(), names.encode(), npy('<f4', (2, 3), f32), order.encode()]))

exec_order = '================== execution order ==================\nexecution_order size: 2\n0:\n\t@kernel_graph_0:Default/net/Conv2D-op0{[0]: ValueNode<Primitive> Conv2D}\n\t0\n\t0\n1:\n\t@kernel_graph_0:Default/net/Add-op8{[0]: ValueNode<Primitive> Add}\n\t0\n\t0\n================== execution order ==================\n'
stream = '[{"index": 0, "node_name": "Default/net/Conv2D-op0", "logic_id": 0, "stream_id": 0, "node_info": "x", "event_id": 0}]'
mem = 'Default/net/Conv2D-op0\nkernel_inputs 1\n&0x1000 #64\nkernel_workspaces 0\nkernel_outputs 1\n&0x2000 #64\n\n'
task = 'op_name:Default/net/Conv2D-op0\ntask_index:0\ttask_num:1\ttask0_stream_id:0\ttask0_type:0\ttask0_dump_flag:0\ninput address:0x1000(64)\t\noutput address:0x2000(64)\t\n\n'
ir = '# IR\n%1(equivoutput) = Conv2D(%para1_x, %para2_w)\n    : (<Tensor[Float32], (1, 1)>) -> (<Tensor[Float32], (1, 1)>)\n    # Fullname with scope: (Default/net/Conv2D-op0)\n'
log = '[ERROR] DEVICE(1,1,python):2021-09-11-16:48:31.511.290 [ascend_kernel_runtime.cc:679] DumpTaskExceptionInfo] Task fail infos task_id: 13, stream_id: 14, tid: 1, device_id: 0, retcode: 507011 ( model execute failed)\n[ERROR] DEVICE(1,1,python):2021-09-11-16:48:31.511.460 [ascend_kernel_runtime.cc:688] DumpTaskExceptionInfo] Dump node (Default/net/Add-op8) task error input/output data to: ./rank_0/node_dump trace:\n'
open(out + '/msrdr/task_error.rdr', 'wb').write(cut.join(x.encode() for x in (exec_order, stream, mem, task, ir, log)))
