#!/usr/bin/env python3
"""PyTorch peer of bench/train_models.cpp: the engine's resnet8 and shufflenetv2 written in
PyTorch with the same architecture, initialisation scheme (PyTorch's defaults, which the engine
copies), batch 64, SGD lr 0.05 momentum 0.9, pixels/255, shuffled, last partial batch dropped,
one epoch on Fashion-MNIST from the Debian package. Prints samples/s over the training loop only
(batch indexing, forward, backward, optimizer step, loss.item(); not the evaluation) and the
test accuracy (model.eval(): batch norm on its running statistics).
Run as bench/run_models_bench.sh does:
  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
  /usr/bin/python3 bench/peer_torch_models.py resnet8|shufflenetv2 [epochs] [limit_steps] [seed] [threads]
"""
import gzip
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DIR = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 0x803:
        rows, cols = struct.unpack(">II", data[8:16])
        return np.frombuffer(data, np.uint8, offset=16).reshape(n, 1, rows, cols)
    return np.frombuffer(data, np.uint8, offset=8)


def conv_bn(cin, cout, k, stride=1, groups=1):
    return [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]


class BasicBlock(nn.Module):
    """ResNet basic block: conv3x3-BN-ReLU-conv3x3-BN plus the shortcut (1x1 conv + BN when
    the shape changes), then ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(*conv_bn(cin, cout, 3, stride), nn.ReLU(), *conv_bn(cout, cout, 3))
        self.shortcut = (nn.Sequential(*conv_bn(cin, cout, 1, stride))
                         if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return F.relu(self.body(x) + self.shortcut(x))


def resnet8():
    return nn.Sequential(*conv_bn(1, 16, 3), nn.ReLU(), BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
                         BasicBlock(32, 64, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def channel_shuffle(x, groups):
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class ShuffleUnit(nn.Module):
    """ShuffleNet V2 unit (torchvision's InvertedResidual)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        half = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(*conv_bn(cin, cin, 3, stride, groups=cin), *conv_bn(cin, half, 1),
                                         nn.ReLU())
        self.branch2 = nn.Sequential(*conv_bn(cin if stride > 1 else half, half, 1), nn.ReLU(),
                                     *conv_bn(half, half, 3, stride, groups=half), *conv_bn(half, half, 1),
                                     nn.ReLU())

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


def shufflenetv2():
    """Width 0.5 (stages 48/96/192, 4/8/4 units, conv5 1024) on 32x32 input: 3x3 stride-1 stem
    without max pool (the CIFAR-size variant), input zero-padded from 28x28."""
    layers = [nn.ZeroPad2d(2), *conv_bn(1, 24, 3), nn.ReLU()]
    cin = 24
    for cout, units in ((48, 4), (96, 8), (192, 4)):
        for u in range(units):
            layers.append(ShuffleUnit(cin, cout, 2 if u == 0 else 1))
            cin = cout
    layers += [*conv_bn(cin, 1024, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 10)]
    return nn.Sequential(*layers)


MODELS = {"resnet8": resnet8, "shufflenetv2": shufflenetv2}


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "resnet8"
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    xtr = torch.from_numpy(idx(f"{DIR}/train-images-idx3-ubyte.gz").astype(np.float32) / 255.0)
    ytr = torch.from_numpy(idx(f"{DIR}/train-labels-idx1-ubyte.gz").astype(np.int64))
    xte = torch.from_numpy(idx(f"{DIR}/t10k-images-idx3-ubyte.gz").astype(np.float32) / 255.0)
    yte = torch.from_numpy(idx(f"{DIR}/t10k-labels-idx1-ubyte.gz").astype(np.int64))
    net = MODELS[name]()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    steps, samples, train_s, loss = 0, 0, 0.0, float("nan")
    g = torch.Generator().manual_seed(seed)
    net.train()
    for _ in range(epochs):
        perm = torch.randperm(len(xtr), generator=g)
        for b in range(len(xtr) // 64):
            if limit and steps >= limit:
                break
            t0 = time.perf_counter()
            i = perm[b * 64:(b + 1) * 64]
            x, y = xtr[i], ytr[i]
            opt.zero_grad()
            out = lossf(net(x), y)
            out.backward()
            opt.step()
            loss = out.item()
            train_s += time.perf_counter() - t0
            steps += 1
            samples += 64
    net.eval()
    correct = 0
    with torch.no_grad():
        for b in range(0, len(xte), 256):
            correct += (net(xte[b:b + 256]).argmax(1) == yte[b:b + 256]).sum().item()
    print(f"pytorch    {name:12s} seed={seed} epochs={steps // (len(xtr) // 64)} steps={steps} "
          f"threads={torch.get_num_threads()} samples/s={samples / train_s:.0f} "
          f"train_s={train_s:.2f} final_loss={loss:.4f} test_acc={correct / len(xte):.4f}", flush=True)


if __name__ == "__main__":
    main()
