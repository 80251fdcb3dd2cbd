"""Trains a couple of steps, then fails with an uncaught RuntimeError.

The exception is the user's own: Python prints its traceback on stderr and the process
exits with code 1. The message is recognisable: "raise_script: simulated failure".

    python raise_script.py --fail-at 3
"""
import argparse
import logging

import torch
from torch import nn

log = logging.getLogger("raise_script")


def load_batch(step, fail_at):
    if step == fail_at:
        raise RuntimeError("raise_script: simulated failure in the data pipeline at step %d" % step)
    g = torch.Generator().manual_seed(step)
    return torch.randn(16, 20, generator=g), torch.randint(0, 4, (16,), generator=g)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--fail-at", type=int, default=3, help="step whose data loading raises")
    args = p.parse_args()

    logging.basicConfig(level=logging.INFO)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(1, args.steps + 1):
        x, y = load_batch(step, args.fail_at)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        print("epoch: 1 step: %d, loss is %.4f" % (step, loss.item()), flush=True)
    log.info("done")


if __name__ == "__main__":
    main()
