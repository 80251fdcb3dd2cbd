#!/usr/bin/env python3
"""GPU peer of `trainscope-cli train --device cuda` (bench/gpu_check.sh runs both on the same GPU
and data): the engine's MLP, LeNet-5, ResNet-8 and ShuffleNet V2 x0.5 as bench/peer_torch_train.py
and bench/peer_torch_models.py define them, on CUDA, trained as the engine trains them: the
data on the device (pixels/255), each epoch shuffled, the last partial batch dropped, SGD
momentum 0.9, cross entropy, the loss read with loss.item() every step (the engine reports
every step's loss too), PyTorch's default settings (cuDNN on, TF32 in cuDNN convolutions as
PyTorch enables it by default; printed). Three forward/backward passes warm up cuDNN and cuBLAS
before the timed loop.

Prints one JSON line per configuration: samples/s of the whole timed loop and of its steps
from the third on (as the engine's samples_per_s_after_warmup), the final loss and the test
accuracy (model.eval(), batches of 256).

Usage: torch_peer.py DATA_DIR EPOCHS SEED LR MODEL:BATCH[:EPOCHS[:STEPS]] [...]
  (STEPS: at most that many steps per epoch; the dry run's)
  DATA_DIR holds train-* and t10k-* IDX .gz files; one Python process runs every
  configuration (PyTorch is imported once). TS_PEER_DEVICE=cpu runs it on the CPU (the
  script's dry run on a machine without a GPU)."""
import json
import os
import sys
import time

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/: the models of the CPU peers

import peer_torch_train as ptt  # noqa: E402
import peer_torch_models as ptm  # noqa: E402

MODELS = {"mlp": ptt.mlp, "lenet5": ptt.lenet5, "resnet8": ptm.resnet8,
          "shufflenetv2": ptm.shufflenetv2}


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def run(name, batch, epochs, seed, lr, data, dev, limit=0):
    xtr, ytr, xte, yte = data
    torch.manual_seed(seed)
    net = MODELS[name]().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    net.train()
    for _ in range(3):  # warm-up: cuDNN / cuBLAS handles and kernels, no update
        opt.zero_grad(set_to_none=True)
        lossf(net(xtr[:batch]), ytr[:batch]).backward()
    opt.zero_grad(set_to_none=True)
    sync(dev)
    g = torch.Generator(device="cpu").manual_seed(seed)
    per_epoch = xtr.shape[0] // batch
    steps_per_epoch = min(per_epoch, limit) if limit else per_epoch
    steps, loss, t_all, t_warm, warm_samples = 0, float("nan"), 0.0, 0.0, 0
    for _ in range(epochs):
        perm = torch.randperm(xtr.shape[0], generator=g)[:per_epoch * batch].to(dev)
        sync(dev)
        for b in range(steps_per_epoch):
            t0 = time.perf_counter()
            i = perm[b * batch:(b + 1) * batch]
            opt.zero_grad(set_to_none=True)
            out = lossf(net(xtr[i]), ytr[i])
            out.backward()
            opt.step()
            loss = out.item()  # the step's loss on the host (waits for the step)
            dt = time.perf_counter() - t0
            t_all += dt
            steps += 1
            if steps > 2:
                t_warm += dt
                warm_samples += batch
    net.eval()
    correct = 0
    with torch.no_grad():
        for b in range(0, xte.shape[0], 256):
            correct += (net(xte[b:b + 256]).argmax(1) == yte[b:b + 256]).sum().item()
    return {"peer": "torch", "model": name, "batch": batch, "epochs": epochs, "steps": steps,
            "samples_per_s": steps * batch / t_all if t_all > 0 else 0.0,
            "samples_per_s_after_warmup": warm_samples / t_warm if t_warm > 0 else 0.0,
            "train_s": t_all, "final_loss": loss, "accuracy": correct / xte.shape[0]}


def setting(obj, *names):
    """The first of `names` that `obj` has (PyTorch renames its TF32 switches), as a string."""
    for n in names:
        try:
            return str(getattr(obj, n))
        except Exception:  # noqa: BLE001 - an attribute a release dropped or deprecated
            continue
    return "unknown"


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    ptt.DIR = sys.argv[1]
    epochs, seed, lr = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    dev = torch.device(os.environ.get("TS_PEER_DEVICE", "cuda"))
    data = tuple(t.to(dev) for t in ptt.load_fashion_mnist())
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu",
            "cudnn": torch.backends.cudnn.enabled,
            "tf32_cudnn": setting(torch.backends.cudnn, "allow_tf32", "fp32_precision"),
            "tf32_matmul": setting(torch.backends.cuda.matmul, "allow_tf32", "fp32_precision"),
            "train_samples": data[0].shape[0]}
    print(json.dumps({"peer": "torch", "settings": info}), flush=True)
    for spec in sys.argv[5:]:
        name, batch, *rest = spec.split(":")
        ep = int(rest[0]) if rest else epochs
        limit = int(rest[1]) if len(rest) > 1 else 0
        print(json.dumps(run(name, int(batch), ep, seed, lr, data, dev, limit)), flush=True)


if __name__ == "__main__":
    main()
