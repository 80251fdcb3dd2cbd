#!/usr/bin/env python3
"""Peer for bench/h5_stats.cpp: the same statistics with h5py + numpy, streamed by blocks
of rows (so memory stays bounded like ours): min/max/mean/std over finite values and
NaN/+Inf/-Inf/zero counts. Prints 'h5py+numpy seconds: S' (best of 3)."""
import sys
import time

import h5py
import numpy as np


def stats(ds, rows_per_block=1024):
    n = nan = pinf = ninf = zeros = 0
    total = total_sq = 0.0
    lo, hi = np.inf, -np.inf
    for r in range(0, ds.shape[0], rows_per_block):
        x = ds[r:r + rows_per_block]
        fin = np.isfinite(x)
        nan += int(np.isnan(x).sum())
        pinf += int(np.isposinf(x).sum())
        ninf += int(np.isneginf(x).sum())
        f = x[fin].astype(np.float64)
        n += f.size
        zeros += int((f == 0).sum())
        if f.size:
            lo, hi = min(lo, f.min()), max(hi, f.max())
            total += f.sum()
            total_sq += (f * f).sum()
    mean = total / n
    return lo, hi, mean, np.sqrt(max(total_sq / n - mean * mean, 0.0)), nan, pinf, ninf, zeros


def main():
    path = sys.argv[1]
    with h5py.File(path, "r") as f:
        ds = f["x"]
        best = 1e30
        for _ in range(3):
            t0 = time.perf_counter()
            s = stats(ds)
            best = min(best, time.perf_counter() - t0)
        size = ds.size * ds.dtype.itemsize
    print("h5py+numpy: %.0f MB in %.3f s = %.2f GB/s (mean=%.6f std=%.6f)" % (size / 1e6, best, size / best / 1e9, s[2], s[3]))
    print("h5py+numpy seconds: %.6f" % best)


if __name__ == "__main__":
    main()
