"""A small MLP (784-128-10) on Fashion-MNIST with SGD and a StepLR, then a short
evaluation. A plain PyTorch script: it knows nothing of TrainScope.

    python mlp_fashion.py --steps 20
"""
import argparse
import logging
import time

import torch
from torch import nn

import fashion_data

log = logging.getLogger("mlp_fashion")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20, help="optimizer steps")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--train-samples", type=int, default=2048, help="samples per epoch")
    p.add_argument("--eval-samples", type=int, default=1000)
    p.add_argument("--log-every", type=int, default=5, help="loss line every N steps")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    logging.basicConfig(level=logging.INFO)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    x, y = fashion_data.load("train", args.train_samples, args.data_dir)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = MLP()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    steps_per_epoch = max(1, len(y) // args.batch_size)
    log.info("training %d steps, batch %d, %d steps per epoch", args.steps, args.batch_size,
             steps_per_epoch)

    start, start_cpu = time.perf_counter(), time.process_time()
    step = 0
    epoch = 0
    while step < args.steps:
        epoch += 1
        order = torch.randperm(len(y))
        for i in range(steps_per_epoch):
            if step >= args.steps:
                break
            idx = order[i * args.batch_size:(i + 1) * args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % args.log_every == 0:
                print("epoch: %d step: %d, loss is %.4f" % (epoch, i + 1, loss.item()), flush=True)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    log.info("trained %d steps in %.3f s (%.3f ms/step, %.3f ms CPU/step), lr now %g", step,
             elapsed, 1000 * elapsed / max(step, 1), 1000 * cpu / max(step, 1),
             scheduler.get_last_lr()[0])

    xt, yt = fashion_data.load("t10k", args.eval_samples, args.data_dir, seed=1)
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(xt)).argmax(dim=1)
    accuracy = (pred == torch.from_numpy(yt)).float().mean().item()
    log.info("evaluation: accuracy %.4f on %d samples", accuracy, len(yt))


if __name__ == "__main__":
    main()
