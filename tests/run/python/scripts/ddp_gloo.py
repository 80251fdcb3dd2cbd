"""Data-parallel training of a small MLP on the gloo backend, one process per rank.

The caller starts every rank itself with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
set (init_method env://); Debian's torch.distributed.run does not work on Python 3.11.
Each rank reads its own shard of Fashion-MNIST (random data when it is absent).
``--slow-rank R --sleep-ms M`` makes rank R a straggler: it sleeps M ms in data loading
at every step, and the other ranks wait for it in the gradient all-reduce.

    RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 python ddp_gloo.py &
    RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 python ddp_gloo.py
"""
import argparse
import datetime
import logging
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import fashion_data


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32, help="per rank")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--samples", type=int, default=2048, help="samples read, split over ranks")
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--slow-rank", type=int, default=-1, help="rank that sleeps in data loading")
    p.add_argument("--sleep-ms", type=float, default=0.0)
    p.add_argument("--timeout-s", type=float, default=120.0, help="collective timeout")
    p.add_argument("--data-dir", default=None)
    args = p.parse_args()

    dist.init_process_group("gloo", init_method="env://",
                            timeout=datetime.timedelta(seconds=args.timeout_s))
    rank, world = dist.get_rank(), dist.get_world_size()
    logging.basicConfig(level=logging.INFO)
    log = logging.getLogger("ddp_gloo.rank%d" % rank)
    torch.set_num_threads(1)
    torch.manual_seed(0)  # same initial weights on every rank (DDP broadcasts rank 0's)

    x, y = fashion_data.load("train", args.samples, args.data_dir)
    x, y = torch.from_numpy(x[rank::world].copy()), torch.from_numpy(y[rank::world].copy())
    log.info("rank %d of %d: %d samples in this shard", rank, world, len(y))

    model = DistributedDataParallel(MLP())
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    steps_per_epoch = max(1, len(y) // args.batch_size)
    start = time.perf_counter()
    step = epoch = 0
    while step < args.steps:
        epoch += 1
        for i in range(steps_per_epoch):
            if step >= args.steps:
                break
            if rank == args.slow_rank and args.sleep_ms > 0:
                time.sleep(args.sleep_ms / 1000.0)  # a slow data pipeline on this rank
            xb = x[i * args.batch_size:(i + 1) * args.batch_size]
            yb = y[i * args.batch_size:(i + 1) * args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()  # DDP all-reduces the gradients here
            optimizer.step()
            step += 1
            if step % args.log_every == 0:
                print("epoch: %d step: %d, loss is %.4f" % (epoch, i + 1, loss.item()), flush=True)
    elapsed = time.perf_counter() - start
    log.info("rank %d trained %d steps in %.3f s (%.2f ms/step)", rank, step, elapsed,
             1000 * elapsed / max(step, 1))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
