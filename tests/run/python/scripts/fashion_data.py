"""Fashion-MNIST from the IDX files (Debian's /usr/share/datasets/fashion-mnist by
default), read with gzip and numpy only, or random data of the same shape when the files
are not there. Shared by the example training scripts beside it."""
import gzip
import logging
import os
import struct

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
log = logging.getLogger("fashion_data")


def read_idx(path, limit=None):
    """An IDX file (optionally gzipped) as a numpy array; at most `limit` items read."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        zero, dtype_code, ndim = struct.unpack(">HBB", f.read(4))
        if zero != 0 or dtype_code != 0x08:
            raise ValueError("%s: not an unsigned-byte IDX file" % path)
        dims = list(struct.unpack(">" + "I" * ndim, f.read(4 * ndim)))
        if limit is not None:
            dims[0] = min(dims[0], limit)
        count = int(np.prod(dims))
        data = f.read(count)
    if len(data) != count:
        raise ValueError("%s: truncated" % path)
    return np.frombuffer(data, dtype=np.uint8).reshape(dims)


def load(split="train", limit=None, data_dir=None, seed=0):
    """(images float32 [N, 784] scaled to [0, 1], labels int64 [N]) of `split`
    ("train" or "t10k"); random data with a log line when the files are missing."""
    data_dir = data_dir or os.environ.get("FASHION_MNIST_DIR", DEFAULT_DIR)
    images = os.path.join(data_dir, "%s-images-idx3-ubyte.gz" % split)
    labels = os.path.join(data_dir, "%s-labels-idx1-ubyte.gz" % split)
    if os.path.exists(images) and os.path.exists(labels):
        x = read_idx(images, limit).reshape(-1, 28 * 28).astype(np.float32) / 255.0
        y = read_idx(labels, limit).astype(np.int64)
        log.info("Fashion-MNIST %s: %d samples from %s", split, len(y), data_dir)
        return x, y
    n = limit or (60000 if split == "train" else 10000)
    log.info("Fashion-MNIST not found in %s: using %d random samples", data_dir, n)
    rng = np.random.default_rng(seed)
    return rng.random((n, 28 * 28), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)
