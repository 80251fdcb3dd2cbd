#!/usr/bin/env python3
"""PyTorch peer of bench/train_throughput.cpp: the same MLP 784-256-128-10 and LeNet-5 (conv1
5x5 'same' and conv2 5x5 without bias, 2x2 max pools, fc 400-120-84-10), Fashion-MNIST from the
Debian package, batch 64, SGD lr 0.05 momentum 0.9, pixels/255, shuffled, drop_remainder.
Prints samples/s over the training loop only (batch indexing, forward, backward, optimizer
step, loss.item(); not the evaluation) and the test accuracy.
Run as bench/run_train_bench.sh does:
  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 \
  /usr/bin/python3 bench/peer_torch_train.py [mlp|lenet5|all] [epochs] [limit_steps]
"""
import gzip
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn

DIR = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 0x803:
        rows, cols = struct.unpack(">II", data[8:16])
        return np.frombuffer(data, np.uint8, offset=16).reshape(n, 1, rows, cols)
    return np.frombuffer(data, np.uint8, offset=8)


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def lenet5():
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2, bias=False), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5, bias=False), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def load_fashion_mnist():
    """(train images, train labels, test images, test labels): pixels/255 as float32, NCHW."""
    def images(name):
        return torch.from_numpy(idx(f"{DIR}/{name}-images-idx3-ubyte.gz").astype(np.float32) / 255.0)

    def labels(name):
        return torch.from_numpy(idx(f"{DIR}/{name}-labels-idx1-ubyte.gz").astype(np.int64))

    return images("train"), labels("train"), images("t10k"), labels("t10k")


def train(net, xtr, ytr, epochs, limit, seed):
    """SGD lr 0.05 momentum 0.9, batch 64, shuffled by a generator seeded with `seed`, the last
    partial batch dropped, at most `limit` steps (0: no limit). Only the loop is timed.
    Returns (steps, samples, train_s, last loss)."""
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
    return steps, samples, train_s, loss


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    torch.set_num_threads(2)
    torch.manual_seed(1)
    xtr, ytr, xte, yte = load_fashion_mnist()
    for name, make in (("mlp", mlp), ("lenet5", lenet5)):
        if which not in ("all", name):
            continue
        net = make()
        steps, samples, train_s, loss = train(net, xtr, ytr, epochs, limit, 1)
        with torch.no_grad():
            acc = (net(xte).argmax(1) == yte).float().mean().item()
        print(f"pytorch    {name:7s} epochs={steps // (len(xtr) // 64)} steps={steps} "
              f"threads={torch.get_num_threads()} samples/s={samples / train_s:.0f} "
              f"train_s={train_s:.2f} final_loss={loss:.4f} test_acc={acc:.4f}", flush=True)


if __name__ == "__main__":
    main()
