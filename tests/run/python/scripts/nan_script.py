"""A training that diverges: a hand-written log-softmax and a too large learning rate.

``log(softmax(x))`` underflows to -inf once the logits grow apart, the hand-written
negative log-likelihood then gives NaN (0 * -inf), the NaN gradients reach the weights,
and from the next step on every output is NaN. With the defaults (seed 0, Fashion-MNIST in
order) the loss is NaN from step 3. The script keeps going for --steps steps, logging a
warning whenever the loss is NaN, as a careless training loop would.

    python nan_script.py --steps 6
"""
import argparse
import logging
import math

import torch
from torch import nn

import fashion_data

log = logging.getLogger("nan_script")


class NaiveLogSoftmax(nn.Module):
    """log(softmax(x)): the numerically unsafe way (nn.LogSoftmax is the safe one)."""

    def forward(self, x):
        return torch.log(torch.softmax(x, dim=1))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(64, 10)
        self.log_prob = NaiveLogSoftmax()

    def forward(self, x):
        return self.log_prob(self.fc2(self.relu(self.fc1(x))))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5.0)
    p.add_argument("--log-every", type=int, default=2)
    p.add_argument("--data-dir", default=None)
    args = p.parse_args()

    logging.basicConfig(level=logging.INFO)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x, y = fashion_data.load("train", args.steps * args.batch_size, args.data_dir)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    steps_per_epoch = max(1, len(y) // args.batch_size)
    for step in range(1, args.steps + 1):
        i = (step - 1) % steps_per_epoch
        xb = x[i * args.batch_size:(i + 1) * args.batch_size]
        yb = y[i * args.batch_size:(i + 1) * args.batch_size]
        optimizer.zero_grad()
        log_prob = model(xb)
        one_hot = nn.functional.one_hot(yb, 10).to(log_prob.dtype)
        loss = -(one_hot * log_prob).sum(dim=1).mean()
        loss.backward()
        optimizer.step()
        value = loss.item()
        if math.isnan(value):
            log.warning("loss is NaN at step %d; training goes on", step)
        if step % args.log_every == 0:
            print("epoch: 1 step: %d, loss is %s" % (i + 1, value), flush=True)
    log.info("done: %d steps", args.steps)


if __name__ == "__main__":
    main()
