#!/usr/bin/env python3
"""PyTorch peer of bench/train_throughput.cpp (resnet8, shufflenetv2): the engine's resnet8 and shufflenetv2 written in
PyTorch with the same architecture, initialisation scheme (PyTorch's defaults, which the engine
copies), batch 64, SGD lr 0.05 momentum 0.9, pixels/255, shuffled, last partial batch dropped,
one epoch on Fashion-MNIST from the Debian package. Prints samples/s over the training loop only
(batch indexing, forward, backward, optimizer step, loss.item(); not the evaluation) and the
test accuracy (model.eval(): batch norm on its running statistics).
Run as bench/run_models_bench.sh does:
  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
  /usr/bin/python3 bench/peer_torch_models.py resnet8|shufflenetv2 [epochs] [limit_steps] [seed] [threads]
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

# The data and the timed loop are bench/peer_torch_train.py's (this script's folder is on
# sys.path when Python runs it).
from peer_torch_train import load_fashion_mnist, train


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
    xtr, ytr, xte, yte = load_fashion_mnist()
    net = MODELS[name]()
    steps, samples, train_s, loss = train(net, xtr, ytr, epochs, limit, seed)
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
