#!/usr/bin/env python3
"""PyTorch peer of bench/dp_speedup.cpp: one rank of a data-parallel job on the gloo backend
(DistributedDataParallel, its default 25 MB buckets overlapped with backward), or the plain
model when WORLD_SIZE is 1. The models are bench/peer_torch_train.py's (mlp, lenet5) and
bench/peer_torch_models.py's (resnet8); the data Fashion-MNIST from the Debian package, pixels/255,
each rank reading its shard (sample i goes to rank i % world), shuffled per epoch by a generator
seeded with `seed`, batch GLOBAL_BATCH / world per rank, SGD lr 0.05 momentum 0.9, `threads`
intra-op threads per rank (torch.set_num_threads). Only the training loop is timed, as the
engine's samples/s: rank 0 prints one line
  ddp world=W steps=S threads=T samples/s=X acc=A
with X over the global batch (all ranks' samples) and A the test accuracy of rank 0's model.
The caller starts every rank with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set
(torch.distributed.run does not work with Debian's Python 3.11):
  RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 \
  /usr/bin/python3 bench/peer_torch_ddp.py MODEL GLOBAL_BATCH STEPS SEED THREADS
"""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from peer_torch_models import resnet8
from peer_torch_train import lenet5, load_fashion_mnist, mlp

MODELS = {"mlp": mlp, "lenet5": lenet5, "resnet8": resnet8}


def main():
    name, batch, steps, seed, threads = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                         int(sys.argv[4]), int(sys.argv[5]))
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    torch.set_num_threads(threads)
    torch.manual_seed(seed)  # the same initial weights on every rank (DDP broadcasts rank 0's)
    xtr, ytr, xte, yte = load_fashion_mnist()
    xtr, ytr = xtr[rank::world].contiguous(), ytr[rank::world].contiguous()
    net = MODELS[name]()
    if world > 1:
        dist.init_process_group("gloo", init_method="env://")
        model = DistributedDataParallel(net)
    else:
        model = net
    per_rank = batch // world
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    model.train()
    done, train_s = 0, 0.0
    while done < steps:
        perm = torch.randperm(len(xtr), generator=g)
        for b in range(len(xtr) // per_rank):
            if done >= steps:
                break
            t0 = time.perf_counter()
            i = perm[b * per_rank:(b + 1) * per_rank]
            opt.zero_grad()
            out = lossf(model(xtr[i]), ytr[i])
            out.backward()  # DDP all-reduces its buckets here, while backward runs
            opt.step()
            out.item()
            train_s += time.perf_counter() - t0
            done += 1
    if world > 1:
        dist.barrier()
    if rank == 0:
        net.eval()
        correct = 0
        with torch.no_grad():
            for b in range(0, 5000, 256):  # the engine's --eval-limit 5000
                correct += (net(xte[b:min(b + 256, 5000)]).argmax(1) == yte[b:min(b + 256, 5000)]).sum().item()
        print(f"ddp world={world} steps={done} threads={torch.get_num_threads()} "
              f"samples/s={done * per_rank * world / train_s:.1f} acc={correct / 5000:.4f}", flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
