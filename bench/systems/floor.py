"""numpy floors: the same arithmetic written directly in numpy, no program, no interpreter.

B3's floor is the one the issue fixes: `x.sum(axis=0)` over the same rows, a
single read pass. B2's floor is the chain's numpy operations in a Python
loop; B5's is `np.fromfile` / `ndarray.tofile` (+ fsync) on a file of the same
size. They bound what any numpy-based interpreter can reach.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from bench import cases as C
from bench.systems.common import base_versions


def versions() -> dict:
    return base_versions()


class ChainFloor:
    def __init__(self, length: int):
        self.ops = C.b2_ops(length)
        self.x, self.y = C.b2_inputs()
        self.scale = np.float32(C.B2_SCALE)
        self.fingerprint = C.fingerprint(self.x, self.y)
        self.out = None

    def step(self):
        h, y, s = self.x, self.y, self.scale
        for op in self.ops:
            h = h * s if op == "scale" else h + y
        self.out = h

    def check(self):
        return {"out": [float(v) for v in self.out]}


class SumFloor:
    """x.sum(axis=0): every row read once, the least a SUM pooling must do."""

    def __init__(self):
        self.x = C.b3_data()
        self.fingerprint = C.fingerprint(self.x, C.b3_lengths())
        self.out = None

    def step(self):
        self.out = self.x.sum(axis=0)

    def check(self):
        return {"sum": float(self.out.sum(dtype=np.float64))}


class PaddedSequenceConv:
    """sequence_conv the padded way: rows laid out [512, 200, 128] with zeros (once, untimed),
    then per step the shifted windows of every padded sequence, one matmul, and the
    valid rows gathered back out."""

    def __init__(self):
        x, lengths, self.w = C.b3_data(), C.b3_lengths(), C.b9_filter()
        n, width = lengths.size, x.shape[1]
        before = max(0, -C.B9_START)
        after = max(0, C.B9_START + C.B9_FILTER_SIZE - 1)
        self.steps = int(lengths.max())
        self.padded = np.zeros((n, before + self.steps + after, width), dtype=x.dtype)
        valid = np.arange(self.steps)[None, :] < lengths[:, None]
        self.padded[:, before:before + self.steps][valid] = x
        self.valid = valid
        self.fingerprint = C.fingerprint(x, lengths, self.w)
        self.out = None

    def step(self):
        windows = np.concatenate([self.padded[:, k:k + self.steps]
                                  for k in range(C.B9_FILTER_SIZE)], axis=2)
        flat = windows.reshape(-1, windows.shape[2]) @ self.w    # one 2-D matmul
        self.out = flat.reshape(windows.shape[0], self.steps, -1)[self.valid]

    def check(self):
        return C.b9_check(self.out)


class FileFloor:
    """Raw bytes of the same size to and from a file: tofile + fsync, fromfile."""

    def __init__(self, what: str):
        self.what = what
        self.table = C.b5_table()
        self.dir = tempfile.TemporaryDirectory(prefix="floor-bench-",
                                               dir=os.environ.get("BENCH_TMPDIR"))
        self.path = os.path.join(self.dir.name, "raw")
        self._save()
        self.loaded = None
        self.fingerprint = C.fingerprint(self.table[::1000])
        self.info = {"bytes": os.path.getsize(self.path)}

    def _save(self):
        with open(self.path, "wb") as f:
            self.table.tofile(f)
            f.flush()
            os.fsync(f.fileno())

    def step(self):
        if self.what == "save":
            self._save()
        else:
            self.loaded = np.fromfile(self.path, dtype=np.float32)

    def check(self):
        loaded = np.fromfile(self.path, dtype=np.float32).reshape(self.table.shape)
        return {"roundtrip_equal": bool(np.array_equal(loaded, self.table))}

    def close(self):
        self.dir.cleanup()


CASES = {
    **{f"B2.chain{n}": (lambda n=n: ChainFloor(n)) for n in C.B2_LENGTHS},
    "B3.floor": SumFloor,
    "B9.seqconv": PaddedSequenceConv,
    "B5.save": lambda: FileFloor("save"),
    "B5.load": lambda: FileFloor("load"),
}
